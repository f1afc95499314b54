# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.remote_access_routing: Remote Access installed as a LAN router and its service running, which
Calico's bgp backend needs (its confd configures BGP with the RemoteAccess module's BgpRouter cmdlets)."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan

# What calico's bgp backend needs: Get-RemoteAccess's RoutingStatus, and the service RemoteAccess's status.
READY = {'routing': 'Installed', 'service': 'Running'}


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {}
    SECTIONS = ('remote_access',)

    @staticmethod
    def _settings(remote):
        return {'routing': remote.get('routing') or 'Uninstalled', 'service': remote.get('service') or 'absent'}

    def plan(self, args, state):
        before = self._settings(state['remote_access'])
        operations = []
        if before['routing'] != READY['routing']:
            operations.append('install Remote Access as a LAN router (Install-RemoteAccess -VpnType RoutingOnly)')
        if before['service'] != READY['service']:
            operations.append('start the service RemoteAccess')
        return Plan(operations, before=before, after=dict(READY))

    def apply(self, args, plan, state):
        remote = state['remote_access']
        # The prerequisites role installs the features first; without them the cmdlet is not there.
        if not remote['module'] or remote['service'] is None:
            raise NodeActionError('the Remote Access role or its PowerShell module is not installed: install the '
                                  'features RemoteAccess, RSAT-RemoteAccess-PowerShell and Routing and restart first')
        return {'state': self.run_script('remote_access_routing_apply')['state']}

    def check_applied(self, args, plan, state):
        settings = self._settings(state['remote_access'])
        if settings != READY:
            raise NodeActionError('Remote Access is not a running LAN router after the change: %s' % settings)

    def resource(self, args):
        return 'RemoteAccess'

    def report(self, args, state, plan):
        return {'remote_access': state['remote_access']}
