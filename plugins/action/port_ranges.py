# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.port_ranges: the cluster's NodePort range kept out of the node's dynamic (ephemeral) port ranges, by
excluded port ranges (_port_ranges.py says why an exclusion and not a moved range)."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _port_ranges
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan


def _text(entry):
    return '%s %d-%d' % (entry['protocol'], entry['start'], entry['end'])


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'node_port_range': {'type': 'str', 'default': _port_ranges.DEFAULT_RANGE},
        # excluded: add exclusions where the dynamic range exposes NodePorts; checked: fail there, change nothing;
        # absent: remove the administered exclusions inside the NodePort range.
        'state': {'type': 'str', 'choices': ['excluded', 'checked', 'absent'], 'default': 'excluded'},
    }
    SECTIONS = ('ports',)

    @staticmethod
    def _node_ports(args):
        try:
            return _port_ranges.parse(args['node_port_range'])
        except _port_ranges.PortRangeError as error:
            raise NodeActionError(str(error).replace(_port_ranges.VARIABLE, 'node_port_range'))

    def validate(self, args):
        self._node_ports(args)

    @staticmethod
    def _view(ports):
        """The diff's view of the node: per protocol its dynamic range and its exclusions."""
        view = {}
        for protocol in _port_ranges.PROTOCOLS:
            state = ports.get(protocol) or {}
            dynamic = _port_ranges.dynamic_range(state)
            view[protocol] = {'dynamic': '%d-%d' % dynamic if dynamic else None,
                              'excluded': ['%d-%d%s' % (entry['start'], entry['end'], '' if entry['administered'] else
                                                        ' (reserved by Windows)')
                                           for entry in sorted(state.get('excluded') or [], key=lambda e: e['start'])]}
        return view

    def plan(self, args, state):
        ports = state['ports']
        node_ports = self._node_ports(args)
        before = self._view(ports)
        try:
            exposed = _port_ranges.exposed(ports, node_ports)
        except _port_ranges.PortRangeError as error:
            raise NodeActionError(str(error))
        if args['state'] == 'checked':
            if any(exposed.values()):
                raise NodeActionError(
                    'the dynamic port range of the node hands out ports of the NodePort range %s (%s): a NodePort can '
                    'collide with a connection\'s local port. Exclude them (prerequisites_node_port_guard: exclude) '
                    'or move the range (netsh int ipv4 set dynamicport tcp|udp start=<n> num=<n>)'
                    % (args['node_port_range'], _port_ranges.describe(exposed)), exposed=exposed)
            return Plan(before=before, after=before)
        if args['state'] == 'absent':
            operations = [dict(entry, op='delete') for entry in _port_ranges.exclusions_to_remove(ports, node_ports)]
        else:
            operations = [dict(entry, op='add') for entry in _port_ranges.exclusions_to_add(ports, node_ports)]
            self._refuse_without_ephemeral_ports(ports, operations)
        after = {protocol: dict(view, excluded=list(view['excluded'])) for protocol, view in before.items()}
        for operation in operations:
            text = '%d-%d' % (operation['start'], operation['end'])
            excluded = after[operation['protocol']]['excluded']
            if operation['op'] == 'add':
                excluded.append(text)
            else:
                excluded.remove(text)
        for view in after.values():
            view['excluded'].sort(key=lambda item: int(item.split('-')[0]))
        return Plan(operations, before=before, after=after)

    @staticmethod
    def _refuse_without_ephemeral_ports(ports, operations):
        """An exclusion that would take every port of a dynamic range leaves Windows no ephemeral port at all."""
        for protocol in _port_ranges.PROTOCOLS:
            dynamic = _port_ranges.dynamic_range(ports.get(protocol) or {})
            adds = [(op['start'], op['end']) for op in operations if op['protocol'] == protocol]
            covered = [(e['start'], e['end']) for e in (ports.get(protocol) or {}).get('excluded') or []]
            if adds and dynamic and not _port_ranges.subtract(dynamic[0], dynamic[1], covered + adds):
                raise NodeActionError('excluding the NodePort range would leave no port of the node\'s dynamic %s range '
                                      '%d-%d: move the range first' % (protocol, dynamic[0], dynamic[1]))

    def apply(self, args, plan, state):
        changes = ['%s:%s:%d:%d' % (op['op'], op['protocol'], op['start'], op['end'] - op['start'] + 1)
                   for op in plan.operations]
        result = self.run_script('port_ranges_apply', {'Changes': changes})
        return {'state': result['state'], 'operations': [_text(op) for op in plan.operations]}

    def check_applied(self, args, plan, state):
        after = self.plan(args, state)
        if after.changed:
            raise NodeActionError('the excluded port ranges are not what was applied: still to do %s'
                                  % ', '.join('%s %s' % (op['op'], _text(op)) for op in after.operations))

    def side_effects(self, args, plan):
        return {}  # the port ranges, which the apply re-reads

    def resource(self, args):
        return 'NodePort range %s' % args['node_port_range']

    def report(self, args, state, plan):
        return {'ports': state['ports']}
