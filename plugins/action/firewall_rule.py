# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.firewall_rule: one Windows Firewall rule (kubelet 10250/TCP, VXLAN 4789/UDP, ...)."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _ip_plan
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan

SETTINGS = ('display_name', 'enabled', 'direction', 'action', 'protocol', 'local_port', 'remote_addresses')


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'name': {'type': 'str', 'required': True},
        'display_name': {'type': 'str'},
        'direction': {'type': 'str', 'choices': ['inbound', 'outbound'], 'default': 'inbound'},
        'protocol': {'type': 'str', 'choices': ['tcp', 'udp'], 'default': 'tcp'},
        'local_port': {'type': 'list', 'elements': 'str', 'default': []},
        'remote_addresses': {'type': 'list', 'elements': 'str', 'default': []},
        'action': {'type': 'str', 'choices': ['allow', 'block'], 'default': 'allow'},
        'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
    }
    SECTIONS = ('firewall',)

    def validate(self, args):
        for port in args['local_port']:
            bounds = port.split('-', 1)
            if not all(part.isdigit() and 0 < int(part) < 65536 for part in bounds):
                raise NodeActionError('local_port %r is not a port (1-65535) or a range such as 30000-32767' % port)
        try:
            _ip_plan.parse_networks('remote_addresses', args['remote_addresses'])
        except _ip_plan.IPPlanError as error:
            raise NodeActionError(str(error))

    def side_effects(self, args, plan):
        return {}  # the rule itself, which the apply re-reads

    def scope(self, args, live=False):
        return {'firewall': [args['name']]}

    def desired(self, args):
        return {'display_name': args['display_name'] or args['name'], 'enabled': True,
                'direction': args['direction'], 'action': args['action'], 'protocol': args['protocol'],
                'local_port': sorted(args['local_port']),
                'remote_addresses': _ip_plan.parse_networks('remote_addresses', args['remote_addresses'])}

    @staticmethod
    def _settings(rule):
        settings = {key: rule.get(key) for key in SETTINGS[:-1] + ('remote_address',)}
        settings['local_port'] = sorted(str(port) for port in rule.get('local_port') or [])
        # Windows reads an IPv4 subnet back with its mask (10.0.0.0/255.255.255.0): compared as networks. An entry
        # that is no network (a keyword, a range another tool set) stays as read, so it differs and is replaced.
        read = [_ip_plan.read_back_network(address) or str(address) for address in rule.get('remote_address') or []]
        settings['remote_addresses'] = sorted(set(read), key=_ip_plan.network_order)
        del settings['remote_address']
        return settings

    def plan(self, args, state):
        current = state['firewall'][args['name']]
        before = self._settings(current) if current.get('exists') else {}
        present = args['state'] == 'present'
        return Plan.presence(before, self.desired(args) if present else {}, present)

    def apply(self, args, plan, state):
        if args['state'] == 'absent':
            parameters = {'Name': args['name'], 'Remove': True}
        else:
            desired = self.desired(args)
            parameters = {'Name': args['name'], 'DisplayName': desired['display_name'], 'Direction': args['direction'],
                          'Protocol': args['protocol'], 'LocalPort': desired['local_port'], 'Action': args['action'],
                          'RemoteAddress': desired['remote_addresses']}
        return {'state': self.run_script('firewall_rule_apply', parameters)['state']}

    def check_applied(self, args, plan, state):
        current = state['firewall'][args['name']]
        if args['state'] == 'absent' and current.get('exists'):
            raise NodeActionError('firewall rule %s still exists after removal' % args['name'])
        if args['state'] == 'present' and self._settings(current) != self.desired(args):
            raise NodeActionError('firewall rule %s is not as configured after the change' % args['name'])

    def report(self, args, state, plan):
        return {'rule': state['firewall'][args['name']]}
