# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.hns_network: desired state of one HNS network."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _hns, _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import (
    IPPlanError, parse_address, parse_ipv4_address, parse_ipv4_network, parse_network,
)
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan

# The host vNIC gets its address back within seconds; the worker waits at most this long.
WORKER_SETTLE_SECONDS = 60


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'name': {'type': 'str', 'required': True},
        'type': {'type': 'str', 'choices': ['L2Bridge', 'Overlay', 'Transparent']},
        'address_prefix': {'type': 'str'},
        'gateway': {'type': 'str'},
        'ipv6_address_prefix': {'type': 'str'},
        'ipv6_gateway': {'type': 'str'},
        'adapter_name': {'type': 'str'},
        'vsid': {'type': 'int'},
        'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
        'reconnect_timeout': {'type': 'int', 'default': 120},
    }
    ARGSPEC_OPTIONS = {'required_if': [('state', 'present', ('type', 'address_prefix'))]}
    SECTIONS = ('adapters', 'hns')

    def validate(self, args):
        if args['state'] == 'absent':
            return
        try:
            prefix = parse_ipv4_network('address_prefix', args['address_prefix'])
            if args['gateway'] and parse_ipv4_address('gateway', args['gateway']) not in prefix:
                raise NodeActionError('gateway %s is outside address_prefix %s' % (args['gateway'], prefix))
            self._validate_ipv6(args)
        except IPPlanError as exc:
            raise NodeActionError(str(exc))
        if args['vsid'] is not None and not 1 <= args['vsid'] <= 16777215:
            raise NodeActionError('vsid %d is outside 1-16777215 (a 24-bit VXLAN network id)' % args['vsid'])
        if args['reconnect_timeout'] < 1:
            raise NodeActionError('reconnect_timeout must be at least 1 second')

    @staticmethod
    def _validate_ipv6(args):
        """A dual-stack network's IPv6 subnet: L2Bridge only (microsoft/windows-container-networking#61, "Only l2bridge
        network is supported"), created with HNS's IPv6 flag as hns.psm1 New-HnsNetwork -IPv6 does."""
        if not args['ipv6_address_prefix']:
            if args['ipv6_gateway']:
                raise NodeActionError('ipv6_gateway %s needs ipv6_address_prefix' % args['ipv6_gateway'])
            return
        if args['type'] != 'L2Bridge':
            raise NodeActionError('ipv6_address_prefix is for L2Bridge networks, the only ones Windows container '
                                  'networking runs dual-stack (microsoft/windows-container-networking#61), not %s'
                                  % args['type'])
        prefix = parse_network('ipv6_address_prefix', args['ipv6_address_prefix'], ('IPv6',))
        if args['ipv6_gateway'] and parse_address('ipv6_gateway', args['ipv6_gateway'], ('IPv6',)) not in prefix:
            raise NodeActionError('ipv6_gateway %s is outside ipv6_address_prefix %s' % (args['ipv6_gateway'], prefix))

    def plan(self, args, state):
        try:
            operations, before, after, disruptive = _hns.plan_network(args, state['hns'], state['adapters'])
        except _hns.PlanError as exc:
            raise NodeActionError(str(exc))
        notes = []
        if not state['hns'].get('available', True) and args['state'] == 'present':
            # Check mode on a fresh node: the Containers feature is enabled by an earlier task.
            notes.append('the Host Network Service is not available yet (Containers feature not installed or '
                         'the node not rebooted since)')
        return Plan(operations, before, after, disruptive, notes)

    def apply(self, args, plan, state):
        if not state['hns'].get('available', True):
            raise NodeActionError('the Host Network Service is not available on the node; install the Containers '
                                  'feature and reboot before creating HNS networks')
        remove_ids = [op['id'] for op in plan.operations if op['op'] == 'remove']
        create = next((op['network'] for op in plan.operations if op['op'] == 'create'), None)
        if not plan.disruptive:
            parameters = {'RemoveIds': remove_ids}
            if create:
                parameters.update(Name=create['name'], Type=create['type'], AddressPrefix=create['address_prefix'],
                                  AdapterName=create['adapter'])
                if create['gateway']:
                    parameters['Gateway'] = create['gateway']
                if create['vsid'] is not None:
                    parameters['Vsid'] = create['vsid']
                if create['ipv6_address_prefix']:
                    parameters.update(Ipv6AddressPrefix=create['ipv6_address_prefix'], Ipv6Gateway=create['ipv6_gateway'])
            applied = self.run_script('hns_network_apply', parameters)
            return {'disruptive': False, 'ip_restored': False, 'state': applied['state']}

        if create is None:
            # Removing the last vSwitch of the adapter: its host vNIC's address goes back to the
            # physical adapter, which check_applied verifies.
            adapter = plan.before['adapter']
            self._management_before = dict(_hns.ip_configuration(state['adapters'], adapter) or {}, adapter=adapter)
            self.run_detached(
                'hns_network_worker',
                {'remove_ids': remove_ids, 'create': None, 'management': None,
                 'settle_seconds': min(WORKER_SETTLE_SECONDS, args['reconnect_timeout'])},
                args['reconnect_timeout'],
                "removing HNS network '%s', the last vSwitch on adapter '%s'" % (args['name'], adapter))
            return {'disruptive': True, 'ip_restored': False}
        self._management_before = _hns.ip_configuration(state['adapters'], create['adapter'])
        outcome = self.run_detached(
            'hns_network_worker',
            {'remove_ids': remove_ids, 'create': create,
             'management': self._management_before if (self._management_before or {}).get('address') else None,
             'settle_seconds': min(WORKER_SETTLE_SECONDS, args['reconnect_timeout'])},
            args['reconnect_timeout'],
            "creating HNS network '%s', the first vSwitch on adapter '%s'" % (create['name'], create['adapter']))
        return {'disruptive': True, 'ip_restored': bool(outcome.get('ip_restored'))}

    def side_effects(self, args, plan):
        # A vSwitch created or removed detached moves the node's adapters, addresses and routes (a retake follows);
        # a network on an existing vSwitch adds its routes.
        if plan.disruptive:
            return super().side_effects(args, plan)
        return {'routes': [_snapshot.EVERYTHING]}

    def query_after_change(self, args, plan):
        return self.retake(args) if plan.disruptive else self.query(args)

    def check_applied(self, args, plan, state):
        matches = _hns.networks_named(state['hns']['networks'], args['name'])
        if args['state'] == 'absent':
            if matches:
                raise NodeActionError('HNS network %r still exists after removal (ids: %s)'
                                      % (args['name'], ', '.join(n['id'] for n in matches)))
            if plan.disruptive:
                self._check_management_kept(state)
            return
        if len(matches) != 1:
            raise NodeActionError('expected exactly one HNS network named %r after the change, found %d (ids: %s)'
                                  % (args['name'], len(matches), ', '.join(n['id'] for n in matches) or 'none'))
        differences = _hns.network_differences(_hns.describe_network(matches[0]), plan.after)
        if differences:
            raise NodeActionError('HNS network %r differs from the request after the change: %s'
                                  % (args['name'], ', '.join(differences)))
        if plan.disruptive:
            self._check_management_kept(state)

    def _check_management_kept(self, state):
        before = self._management_before
        if not before or not before.get('address'):
            return
        after = _hns.ip_configuration(state['adapters'], before['adapter'])
        keys = ('address', 'prefix_length') if before['dhcp'] else ('address', 'prefix_length', 'gateway', 'dns_servers')
        changed = [key for key in keys if (after or {}).get(key) != before.get(key)]
        if changed:
            raise NodeActionError(
                'the IPv4 configuration of adapter %r changed with its vSwitch (%s): before %s, now %s'
                % (before['adapter'], ', '.join(changed), {k: before[k] for k in keys},
                   {k: (after or {}).get(k) for k in keys}))

    def report(self, args, state, plan):
        if args['state'] == 'absent':
            return {'network': {}}
        matches = _hns.networks_named(state['hns']['networks'], args['name'])
        if self._task.check_mode and plan.changed:
            return {'network': dict(plan.after, id=None)}
        return {'network': _hns.describe_network(matches[0]) if matches else {}}
