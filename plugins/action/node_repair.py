# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.node_repair: the doctor's safe repairs (stale HNS load balancers, stopped services) in one call."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'policy_lists': {'type': 'list', 'elements': 'str', 'default': []},
        'start': {'type': 'list', 'elements': 'str', 'default': []},
        'restart': {'type': 'list', 'elements': 'str', 'default': []},
        'start_timeout': {'type': 'int', 'default': 60},
    }
    SECTIONS = ('services', 'hns')

    def validate(self, args):
        both = sorted(set(args['start']) & set(args['restart']))
        if both:
            raise NodeActionError('a service is either started or restarted, not both: %s' % ', '.join(both))

    def scope(self, args, live=False):
        return {'services': list(args['start']) + list(args['restart'])}

    def plan(self, args, state):
        services = state['services']
        missing = sorted(name for name in args['start'] + args['restart'] if not services[name].get('exists'))
        if missing:
            raise NodeActionError('no such service on the node: %s (site.yml registers it)' % ', '.join(missing))
        present = {p['id'] for p in state['hns'].get('policy_lists') or []}
        policy_lists = sorted(i.lower() for i in args['policy_lists'] if i.lower() in present)
        start = [name for name in args['start'] if services[name].get('state') != 'running']
        operations = []
        if policy_lists:
            operations.append({'op': 'remove_policy_lists', 'ids': policy_lists})
        if start:
            operations.append({'op': 'start', 'names': start})
        if args['restart']:
            # A restart is asked for because of what the service does when it starts: always a change.
            operations.append({'op': 'restart', 'names': list(args['restart'])})
        before = {'policy_lists': policy_lists, 'stopped': start, 'restarted': []}
        after = {'policy_lists': [], 'stopped': [], 'restarted': list(args['restart'])}
        return Plan(operations, before=before, after=after)

    def apply(self, args, plan, state):
        parameters = {'PolicyListIds': [], 'Start': [], 'Restart': [], 'StartTimeoutSeconds': args['start_timeout']}
        for operation in plan.operations:
            key = {'remove_policy_lists': 'PolicyListIds', 'start': 'Start', 'restart': 'Restart'}[operation['op']]
            parameters[key] = operation.get('ids') or operation.get('names')
        return {'state': self.run_script('node_repair_apply', parameters)['state']}

    def check_applied(self, args, plan, state):
        removed = {i for op in plan.operations for i in op.get('ids') or []}
        left = ['policy list %s' % p['id'] for p in state['hns'].get('policy_lists') or [] if p['id'] in removed]
        left += ['service %s is %s' % (name, state['services'][name].get('state'))
                 for name in args['start'] + args['restart'] if state['services'][name].get('state') != 'running']
        if left:
            raise NodeActionError('not repaired: %s' % ', '.join(left))

    def report(self, args, state, plan):
        return {'repaired': {op['op']: op.get('ids') or op.get('names') for op in plan.operations}}
