# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.defender_exclusions: Microsoft Defender Antivirus exclusion paths and processes, present or absent,
where Defender runs (plugin_utils/_defender.py)."""

from __future__ import annotations

import ntpath

from ansible_collections.kubewin.node.plugins.plugin_utils import _defender
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan

# The module's option -> the defender section's list.
LISTS = {'paths': 'exclusion_path', 'processes': 'exclusion_process'}


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'paths': {'type': 'list', 'elements': 'str', 'default': []},
        'processes': {'type': 'list', 'elements': 'str', 'default': []},
        'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
    }
    SECTIONS = ('defender',)

    def validate(self, args):
        bad = [path for path in args['paths'] + args['processes'] if not ntpath.isabs(path) or len(path.rstrip('\\')) <= 3]
        if bad:
            raise NodeActionError('paths and processes must be absolute and not a drive root: %s' % ', '.join(bad))

    def side_effects(self, args, plan):
        return {}  # the exclusion lists, which the apply re-reads

    def plan(self, args, state):
        defender = state['defender']
        current = {option: list(defender.get(key) or []) for option, key in LISTS.items()}
        if not defender.get('running'):
            # Nothing to exclude from a scanner that does not scan; the lists are only readable while it runs.
            why = 'is not installed' if not defender.get('installed') else 'does not run (its service WinDefend is stopped)'
            return Plan(before=current, after=current, notes=['Microsoft Defender Antivirus %s: no exclusion changed' % why])
        present = args['state'] == 'present'
        changes = {option: [value for value in args[option] if _defender.held(current[option], value) is not present]
                   for option in LISTS}
        operations = [{'op': 'add' if present else 'remove', **changes}] if any(changes.values()) else []
        after = {option: (current[option] + changes[option] if present else
                          [value for value in current[option] if not _defender.held(changes[option], value)])
                 for option in LISTS}
        return Plan(operations, before=current, after=after)

    def apply(self, args, plan, state):
        [operation] = plan.operations
        verb = 'Add' if operation['op'] == 'add' else 'Remove'
        return self.run_script('defender_apply', {'%sPaths' % verb: operation['paths'],
                                                  '%sProcesses' % verb: operation['processes']})

    def check_applied(self, args, plan, state):
        left = self.plan(args, state)
        if left.changed or not state['defender'].get('running'):
            raise NodeActionError('Microsoft Defender Antivirus does not show the change: %s'
                                  % (left.operations or 'it no longer runs'))

    def resource(self, args):
        return 'Defender exclusions'

    def report(self, args, state, plan):
        return {'defender': state['defender']}
