# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.hns_endpoint: desired state of one HNS endpoint (e.g. the l2bridge host endpoint)."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _hns
from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import IPPlanError, parse_address, parse_ipv4_address
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'name': {'type': 'str', 'required': True},
        'network': {'type': 'str', 'required': True},
        'ip_address': {'type': 'str'},
        'ipv6_address': {'type': 'str'},
        'attach_host': {'type': 'bool', 'default': True},
        'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
    }
    ARGSPEC_OPTIONS = {'required_if': [('state', 'present', ('ip_address',))]}
    SECTIONS = ('hns',)

    def validate(self, args):
        if args['state'] == 'present':
            try:
                parse_ipv4_address('ip_address', args['ip_address'])
                if args['ipv6_address']:
                    parse_address('ipv6_address', args['ipv6_address'], ('IPv6',))
            except IPPlanError as exc:
                raise NodeActionError(str(exc))

    def plan(self, args, state):
        try:
            operations, before, after, notes = _hns.plan_endpoint(args, state['hns'])
        except _hns.PlanError as exc:
            raise NodeActionError(str(exc))
        return Plan(operations, before, after, notes=notes)

    def side_effects(self, args, plan):
        return {}  # the endpoint in HNS, which the apply re-reads

    def apply(self, args, plan, state):
        parameters = {'RemoveIds': [op['id'] for op in plan.operations if op['op'] == 'remove'],
                      'Name': args['name'], 'AttachHost': args['attach_host']}
        for op in plan.operations:
            if op['op'] == 'create':
                if not op['network_id']:
                    raise NodeActionError('HNS network %r does not exist; create it first (kubewin.node.hns_network)'
                                          % args['network'])
                parameters.update(NetworkId=op['network_id'], IPAddress=args['ip_address'])
            elif op['op'] == 'attach':
                parameters['AttachId'] = op['id']
        if args['ipv6_address']:
            # Sent to a create, and to an attach, which turns on the endpoint's IPv6 forwarding too.
            parameters['IPv6Address'] = args['ipv6_address']
        if args['state'] == 'absent':
            parameters = {'RemoveIds': parameters['RemoveIds']}
        return {'state': self.run_script('hns_endpoint_apply', parameters)['state']}

    def _endpoints(self, args, state):
        return [e for e in state['hns']['endpoints'] if _hns.same_name(e.get('name'), args['name'])]

    def check_applied(self, args, plan, state):
        endpoints = self._endpoints(args, state)
        if args['state'] == 'absent':
            if endpoints:
                raise NodeActionError('HNS endpoint %r still exists after removal' % args['name'])
            return
        wanted = (args['ip_address'], args['ipv6_address'])
        if len(endpoints) != 1 or (endpoints[0].get('ip_address'), endpoints[0].get('ipv6_address')) != wanted:
            raise NodeActionError('expected one HNS endpoint %r with IP %s after the change, found %s'
                                  % (args['name'], ' and '.join(a for a in wanted if a),
                                     [(e['id'], e.get('ip_address'), e.get('ipv6_address')) for e in endpoints]
                                     or 'none'))
        if args['attach_host'] and not endpoints[0].get('host_attached'):
            raise NodeActionError('HNS endpoint %r is not attached to the host compartment after the change'
                                  % args['name'])

    def report(self, args, state, plan):
        if args['state'] == 'absent':
            return {'endpoint': {}}
        if self._task.check_mode and plan.changed:
            return {'endpoint': dict(plan.after, id=None)}
        endpoints = self._endpoints(args, state)
        return {'endpoint': _hns.describe_endpoint(endpoints[0]) if endpoints else {}}
