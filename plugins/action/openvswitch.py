# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.openvswitch: Open vSwitch and the OVN host settings on a Windows node."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _ovs, _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'msi': {'type': 'str'},
        'features': {'type': 'list', 'elements': 'str', 'default': list(_ovs.DEFAULT_FEATURES)},
        'version': {'type': 'str'},
        'network': {'type': 'str'},
        'adapter': {'type': 'str'},
        'bridge': {'type': 'str', 'default': 'br-ex'},
        'internal_port': {'type': 'str'},
        'external_ids': {'type': 'dict', 'default': {}},
        'timeout': {'type': 'int', 'default': 600},
        'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
    }
    SECTIONS = ('adapters', 'hns', 'services', 'ovs')

    def validate(self, args):
        if args['state'] == 'present' and not args['network']:
            raise NodeActionError('network is required with state=present')
        if not args['features']:
            raise NodeActionError('features must name at least one feature of the Open vSwitch MSI')
        if args['msi'] and not (len(args['msi']) > 3 and args['msi'][1:3] == ':\\'
                                and args['msi'].lower().endswith('.msi')):
            raise NodeActionError('msi must be the absolute Windows path of an .msi file, got %r' % args['msi'])
        if args['timeout'] < 1:
            raise NodeActionError('timeout must be at least 1 second')
        args['external_ids'] = {str(key): value for key, value in args['external_ids'].items()}
        try:
            _ovs.check_external_ids(args['external_ids'])
        except _ovs.PlanError as exc:
            raise NodeActionError(str(exc))

    def scope(self, args, live=False):
        return {'services': list(_ovs.ALL_SERVICES)}

    def read_state(self, args):
        # The snapshot's ovs section says nothing about a vSwitch created after it was taken
        # (a new vSwitch starts with the extension disabled): use it only when it is at least
        # as new as what this run knows about the HNS networks.
        snapshot = _snapshot.from_task_vars(self._task_vars) or {}
        taken = snapshot.get('collected_at') or {}
        if taken.get('ovs') is not None and all(taken.get('ovs') >= (taken.get(section) or 0)
                                                for section in ('hns', 'adapters')):
            return super().read_state(args)
        return self.query(args), False

    def plan(self, args, state):
        if args['state'] == 'absent':
            operations, before, after, notes = _ovs.plan_absent(args, state)
            # Only disabling the extension on a vSwitch that still exists touches the node's network.
            disruptive = any(op.get('disable_extension_on') for op in operations)
            return Plan(operations, before, after, disruptive=disruptive, notes=notes)
        try:
            operations, before, after, notes, context = _ovs.plan(args, state)
        except _ovs.PlanError as exc:
            raise NodeActionError(str(exc))
        self._context = context
        rebuild = any(op['op'] == 'rebuild_bridge' for op in operations)
        return Plan(operations, before, after, disruptive=rebuild, notes=notes)

    def apply(self, args, plan, state):
        ops = {op['op']: op for op in plan.operations}
        # Every step of the worker, none asked for; the state fills in its own.
        spec = {'stop': [], 'remove_bridge': None, 'remove_external_ids': [],
                'install': None, 'bridge': None, 'external_ids': {}, 'services': []}
        if args['state'] == 'absent':
            spec.update(
                stop=ops['stop_services']['names'] if 'stop_services' in ops else [],
                remove_bridge=({'name': args['bridge'], 'extension': _ovs.EXTENSION,
                                'disable_extension_on': ops['remove_bridge']['disable_extension_on']}
                               if 'remove_bridge' in ops else None),
                remove_external_ids=ops['remove_external_ids']['keys'] if 'remove_external_ids' in ops else [])
            what = "taking the node out of OVN (bridge '%s')" % args['bridge']
        else:
            if not self._context['network_exists']:
                raise NodeActionError('HNS network %r does not exist; create the Transparent network before the '
                                      'bridge' % args['network'])
            spec.update(
                install=({'msi': args['msi'], 'features': list(args['features'])} if 'install' in ops else None),
                bridge=({'name': args['bridge'], 'adapter': self._context['adapter'],
                         'internal_port': self._context['internal_port'], 'extension': _ovs.EXTENSION}
                        if 'rebuild_bridge' in ops else None),
                external_ids=ops['set_external_ids']['values'] if 'set_external_ids' in ops else {},
                services=_ovs.services_wanted(args['features']))
            what = "setting up Open vSwitch (bridge '%s' on adapter '%s')" % (args['bridge'], self._context['adapter'])
        outcome = self.run_detached('openvswitch_worker', spec, args['timeout'], what)
        return {'reboot_required': bool(outcome.get('reboot_required')), 'operations': [op['op'] for op in plan.operations]}

    def check_applied(self, args, plan, state):
        if args['state'] == 'absent':
            found = _ovs.absent_differences(args, state)
            if found:
                raise NodeActionError('The node is still set up for OVN after the change: %s' % '; '.join(found))
            return
        found = _ovs.differences(args, state, self._context)
        if found:
            raise NodeActionError('Open vSwitch is not as requested after the change: %s' % '; '.join(found))

    def report(self, args, state, plan):
        # Absent: the plan's after is what check_applied verified (and equals before when nothing changed).
        if (self._task.check_mode and plan.changed) or args['state'] == 'absent':
            return {'openvswitch': plan.after}
        ovs = state.get('ovs') or {}
        return {'openvswitch': {
            'product': _ovs.describe_product(_ovs.installed_product(ovs)),
            'bridge': _ovs.describe_bridge(ovs, args['bridge'], self._context['adapter']),
            'external_ids': {key: ((ovs.get('database') or {}).get('external_ids') or {}).get(key)
                             for key in sorted(args['external_ids'])},
            'services': {name: ((state.get('services') or {}).get(name) or {}).get('state') or 'absent'
                         for name in _ovs.services_wanted(args['features'])},
        }}
