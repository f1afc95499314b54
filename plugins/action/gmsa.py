# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.gmsa: a Windows node ready for the gMSA identities of its pods (plugin_utils/_gmsa.py)."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _gmsa, _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'compartment_namespace': {'type': 'bool', 'default': True},
        'ccg_plugin': {'type': 'dict', 'options': {
            'clsid': {'type': 'str', 'required': True},
            'registration': {'type': 'str', 'required': True},
            'events_manifest': {'type': 'str', 'required': True},
        }},
        'reregister': {'type': 'bool', 'default': False},
    }
    SECTIONS = ('gmsa',)

    def validate(self, args):
        plugin = args['ccg_plugin']
        if plugin and not _gmsa.is_clsid(plugin['clsid']):
            raise NodeActionError('ccg_plugin.clsid %r must be a CLSID in braces, such as '
                                  '{CCC2A336-D7F3-4818-A213-272B7924213E}' % plugin['clsid'])

    @staticmethod
    def _settings(gmsa):
        return {'compartment_namespace': gmsa.get('compartment_namespace'),
                'ccg_plugins': sorted(gmsa.get('ccg_plugins') or [], key=str.lower)}

    @staticmethod
    def _registered(gmsa, clsid):
        return clsid.lower() in [name.lower() for name in gmsa.get('ccg_plugins') or []]

    def plan(self, args, state):
        gmsa = state['gmsa']
        before = self._settings(gmsa)
        after = dict(before)
        operations = []
        if args['compartment_namespace'] and before['compartment_namespace'] != 1:
            operations.append('set EnableCompartmentNamespace to 1 under %s' % _gmsa.HNS_STATE_KEY)
            after['compartment_namespace'] = 1
        plugin = args['ccg_plugin']
        if plugin and (args['reregister'] or not self._registered(gmsa, plugin['clsid'])):
            operations.append('register the CCG plugin %s (reg.exe import %s, wevtutil.exe im %s)'
                              % (plugin['clsid'], plugin['registration'], plugin['events_manifest']))
            if not self._registered(gmsa, plugin['clsid']):
                after['ccg_plugins'] = sorted(after['ccg_plugins'] + [plugin['clsid']], key=str.lower)
        return Plan(operations, before=before, after=after)

    def side_effects(self, args, plan):
        # HNS's EnableCompartmentNamespace and the plugin's own registry file, which may write any key (a service's
        # too); the event manifest registers a channel no section reads.
        return {'registry': [_snapshot.EVERYTHING], 'services': [_snapshot.EVERYTHING]}

    def apply(self, args, plan, state):
        plugin = args['ccg_plugin'] or {}
        parameters = {'CompartmentNamespace': any(op.startswith('set ') for op in plan.operations)}
        if any(op.startswith('register ') for op in plan.operations):
            parameters.update(PluginClsid=plugin['clsid'], RegistrationPath=plugin['registration'],
                              ManifestPath=plugin['events_manifest'])
        return {'state': self.run_script('gmsa_apply', parameters)['state']}

    def check_applied(self, args, plan, state):
        gmsa = state['gmsa']
        if args['compartment_namespace'] and gmsa.get('compartment_namespace') != 1:
            raise NodeActionError('EnableCompartmentNamespace is %r after the change' % gmsa.get('compartment_namespace'))
        if args['ccg_plugin'] and not self._registered(gmsa, args['ccg_plugin']['clsid']):
            raise NodeActionError('the CCG plugin %s is not registered after the change' % args['ccg_plugin']['clsid'])

    def resource(self, args):
        return 'gMSA'

    def report(self, args, state, plan):
        return {'gmsa': state['gmsa']}
