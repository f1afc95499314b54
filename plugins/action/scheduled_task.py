# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.scheduled_task: one scheduled task of the collection's task folder (the log rotation task)."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan

# The principal every task of the collection runs as: it maintains files of services that run as LocalSystem.
USER_ID = 'SYSTEM'
RUN_LEVEL = 'Highest'


def xml_duration(minutes):
    """Minutes as the XML duration Task Scheduler keeps a repetition interval in (PT1H, PT15M, PT1H30M)."""
    hours, rest = divmod(minutes, 60)
    return 'PT' + ('%dH' % hours if hours else '') + ('%dM' % rest if rest else '')


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'name': {'type': 'str', 'required': True},
        'description': {'type': 'str', 'default': ''},
        'execute': {'type': 'str'},
        'arguments': {'type': 'str', 'default': ''},
        'interval_minutes': {'type': 'int', 'default': 60},
        'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
    }
    ARGSPEC_OPTIONS = {'required_if': [('state', 'present', ('execute',))]}
    SECTIONS = ('scheduled_tasks',)

    def validate(self, args):
        if not 1 <= args['interval_minutes'] <= 1440:
            raise NodeActionError('interval_minutes must be from 1 to 1440 (a day), got %d' % args['interval_minutes'])
        if not args['name'] or not all(char.isalnum() or char in '_.-' for char in args['name']):
            raise NodeActionError('name %r may hold only letters, digits, _ . and -' % args['name'])

    def scope(self, args, live=False):
        return {}

    def side_effects(self, args, plan):
        return {}  # the task, which the apply re-reads; what it runs runs at its trigger, on files no module reads

    def desired(self, args):
        return {'description': args['description'], 'execute': args['execute'], 'arguments': args['arguments'],
                'interval': xml_duration(args['interval_minutes']), 'user_id': USER_ID, 'run_level': RUN_LEVEL,
                'state': 'Ready'}

    @staticmethod
    def _settings(task):
        actions, triggers = task.get('actions') or [], task.get('triggers') or []
        return {'description': task.get('description') or '',
                'execute': actions[0]['execute'] if len(actions) == 1 else actions,
                'arguments': (actions[0]['arguments'] or '') if len(actions) == 1 else None,
                'interval': triggers[0]['interval'] if len(triggers) == 1 else triggers,
                'user_id': (task.get('user_id') or '').upper(), 'run_level': task.get('run_level'),
                'state': task.get('state')}

    def plan(self, args, state):
        current = (state.get('scheduled_tasks') or {}).get(args['name'])
        before = self._settings(current) if current else {}
        present = args['state'] == 'present'
        return Plan.presence(before, self.desired(args) if present else {}, present)

    def apply(self, args, plan, state):
        if args['state'] == 'absent':
            parameters = {'Name': args['name'], 'Remove': True}
        else:
            parameters = {'Name': args['name'], 'Description': args['description'], 'Execute': args['execute'],
                          'Arguments': args['arguments'], 'IntervalMinutes': args['interval_minutes']}
        return {'state': self.run_script('scheduled_task_apply', parameters)['state']}

    def check_applied(self, args, plan, state):
        current = (state.get('scheduled_tasks') or {}).get(args['name'])
        if args['state'] == 'absent' and current:
            raise NodeActionError('scheduled task \\kubewin\\%s still exists after removal' % args['name'])
        if args['state'] == 'present' and (not current or self._settings(current) != self.desired(args)):
            raise NodeActionError('scheduled task \\kubewin\\%s is not as configured after the change' % args['name'])

    def report(self, args, state, plan):
        return {'task': (state.get('scheduled_tasks') or {}).get(args['name'])}
