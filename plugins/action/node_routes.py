# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.node_routes: the exact set of persistent static routes to other nodes' pod CIDRs (IPv4, and IPv6 on a
dual-stack node: each family's route goes through the peer's address of that family)."""

from __future__ import annotations

import ipaddress

from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan


def _describe(route):
    node = ' (node %s)' % route['via_node'] if route.get('via_node') else ''
    return '%s via %s%s on %s, metric %s' % (
        route['destination'], route['next_hop'], node, route.get('interface_alias'), route['metric'])


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'routes': {'type': 'list', 'elements': 'dict', 'required': True, 'options': {
            'destination': {'type': 'str', 'required': True},
            'next_hop': {'type': 'str', 'required': True},
            'via_node': {'type': 'str'},
        }},
        'interface_alias': {'type': 'str'},
        'scope': {'type': 'str'},
        'metric': {'type': 'int', 'default': 256},
    }
    SECTIONS = ('adapters', 'routes')

    def validate(self, args):
        scope = args['scope'] or ((self._task_vars.get('plan_cluster') or {}).get('cluster_cidr'))
        if not scope:
            raise NodeActionError('scope is required when the plan (plan_cluster.cluster_cidr) is not known: give '
                                  'the range whose routes this module owns, usually the cluster (pod) range')
        try:
            # One range per family, comma-separated as the plan's cluster_cidr is on a dual-stack plan.
            self._scope = [ipaddress.ip_network(part.strip()) for part in scope.split(',')]
        except ValueError as exc:
            raise NodeActionError('scope %r is not a network in CIDR form (or one per IP family, comma-separated): %s'
                                  % (scope, exc))
        if not 0 <= args['metric'] <= 65535:
            raise NodeActionError('metric %d is outside 0-65535' % args['metric'])
        seen = set()
        for route in args['routes']:
            try:
                destination = ipaddress.ip_network(route['destination'])
                if ipaddress.ip_address(route['next_hop']).version != destination.version:
                    raise ValueError('the next hop is not of the destination\'s IP family')
            except ValueError as exc:
                raise NodeActionError('route %s via %s: %s' % (route['destination'], route['next_hop'], exc))
            if not self._within_scope(destination):
                raise NodeActionError('route destination %s is outside scope %s; the module only manages routes '
                                      'within its scope' % (destination, self._scope_text()))
            if destination in seen:
                raise NodeActionError('route destination %s is given twice' % destination)
            seen.add(destination)

    def _within_scope(self, network):
        return any(network.version == scope.version and network.subnet_of(scope) for scope in self._scope)

    def _scope_text(self):
        return ','.join(str(scope) for scope in self._scope)

    def _in_scope(self, route):
        try:
            return self._within_scope(ipaddress.ip_network(route['destination']))
        except ValueError:
            return False

    @staticmethod
    def _interface_for(args, adapters, next_hop):
        """The adapter the next hop is reached through: interface_alias, else the one on the next hop's subnet."""
        if args['interface_alias']:
            return args['interface_alias']
        hop = ipaddress.ip_address(next_hop)
        family = 'ipv4' if hop.version == 4 else 'ipv6'
        for adapter in adapters:
            for entry in adapter.get(family) or []:
                if entry['address'].startswith('169.254.'):
                    continue
                if hop in ipaddress.ip_interface('%s/%s' % (entry['address'], entry['prefix_length'])).network:
                    return adapter['name']
        raise NodeActionError('next hop %s is on the subnet of no adapter of the node (adapters: %s); set '
                              'interface_alias' % (next_hop, ', '.join(a['name'] for a in adapters) or 'none'))

    def desired(self, args, adapters):
        return [{'destination': str(ipaddress.ip_network(route['destination'])), 'next_hop': route['next_hop'],
                 'interface_alias': self._interface_for(args, adapters, route['next_hop']), 'metric': args['metric'],
                 'via_node': route['via_node']}
                for route in args['routes']]

    def plan(self, args, state):
        current = [route for route in state['routes'] if self._in_scope(route)]
        desired = self.desired(args, state['adapters'])
        key = ('destination', 'next_hop', 'interface_alias', 'metric')
        kept, operations = [], []
        for route in current:
            wanted = any(all(route.get(k) == want[k] for k in key) for want in desired)
            # A route only in one of the two stores is removed and added again in both.
            if wanted and route['active'] and route['persistent'] and route not in kept:
                kept.append(route)
            else:
                operations.append({'op': 'remove', 'destination': route['destination'], 'next_hop': route['next_hop'],
                                   'interface_index': route['interface_index']})
        for want in desired:
            if not any(all(route.get(k) == want[k] for k in key) for route in kept):
                operations.append(dict(want, op='add'))
        before = sorted(_describe(route) + ('' if route['active'] and route['persistent'] else
                                            ' [%s only]' % ('active' if route['active'] else 'persistent'))
                        for route in current)
        after = sorted(_describe(route) for route in desired)
        return Plan(operations, before={'routes': before}, after={'routes': after})

    def side_effects(self, args, plan):
        return {}  # the routes and adapters, which the apply re-reads

    def apply(self, args, plan, state):
        remove = [{k: op[k] for k in ('destination', 'next_hop', 'interface_index')}
                  for op in plan.operations if op['op'] == 'remove']
        add = [dict({k: op[k] for k in ('destination', 'next_hop', 'interface_alias', 'metric')},
                    family='IPv6' if ':' in op['destination'] else 'IPv4')
               for op in plan.operations if op['op'] == 'add']
        # Lists of dicts bind to the script's [hashtable[]] parameters (win_powershell's AddParameters).
        return {'state': self.run_script('node_routes_apply', {'Remove': remove, 'Add': add})['state']}

    def check_applied(self, args, plan, state):
        again = self.plan(args, state)
        if again.changed:
            raise NodeActionError('the routes within %s are not as configured after the change: still to do %s'
                                  % (self._scope_text(), again.operations))

    def report(self, args, state, plan):
        return {'routes': [route for route in state['routes'] if self._in_scope(route)], 'scope': self._scope_text()}
