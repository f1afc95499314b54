"""The node action rhythm: check mode never applies; the snapshot only saves work."""

import time
from unittest.mock import MagicMock

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _activity, _pwsh, _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan


class Switch(NodeAction):
    """A toy module: a named flag on the node that should be on."""

    ARGUMENT_SPEC = {'name': {'type': 'str', 'required': True}}
    SECTIONS = ('services',)

    def scope(self, args, live=False):
        return {'services': [args['name']]}

    def plan(self, args, state):
        current = state['services'][args['name']]
        if current.get('on'):
            return Plan(before=current, after=current)
        return Plan([{'op': 'on'}], before=current, after=dict(current, on=True))

    def apply(self, args, plan, state):
        self.applied.append(plan.operations)
        return {'state': {'sections': ['services'], 'services': {args['name']: {'on': True}}}}

    def report(self, args, state, plan):
        return {'flag': state['services'][args['name']]}


def make(args, check_mode=False, node_state=None, diff=True):
    task = MagicMock(args=args, check_mode=check_mode, diff=diff, async_val=0, action='kubewin.node.switch')
    connection = MagicMock()
    connection._shell.tmpdir = 'set'
    action = Switch(task, connection, MagicMock(), MagicMock(), MagicMock())
    action.applied, action.queries = [], []

    def run_script(name, parameters=None, secrets=None):
        assert name == 'node_info'
        action.queries.append(parameters)
        return {'sections': parameters['Sections'],
                'services': {n: dict((node_state or {}).get(n, {})) for n in parameters['Services']}}
    action.run_script = run_script
    return action


def facts(services, age=0):
    snapshot = _snapshot.merge(None, {'sections': ['services'], 'services': services}, now=time.time() - age)
    return {'ansible_facts': {'kubewin_node': snapshot}}


def test_check_mode_reports_the_change_and_never_applies():
    action = make({'name': 'kubelet'}, check_mode=True)
    result = action.run(task_vars={})
    assert result['changed'] is True
    assert result['diff'] == {'before': {}, 'after': {'on': True}}
    assert action.applied == []


def test_real_run_applies_verifies_and_refreshes_the_snapshot():
    action = make({'name': 'kubelet'})
    result = action.run(task_vars={})
    assert result['changed'] is True and action.applied == [[{'op': 'on'}]]
    assert result['flag'] == {'on': True}
    assert result['ansible_facts']['kubewin_node']['services']['kubelet'] == {'on': True}
    assert len(action.queries) == 1, 'the apply result verifies; no second query'


def test_a_fresh_snapshot_that_shows_nothing_to_do_costs_no_call():
    action = make({'name': 'kubelet'})
    result = action.run(task_vars=facts({'kubelet': {'on': True}}))
    assert result['changed'] is False and action.queries == [] and action.applied == []


def test_a_snapshot_that_wants_a_change_is_confirmed_by_a_live_query():
    # The snapshot is stale: the node already has the flag on.
    action = make({'name': 'kubelet'}, node_state={'kubelet': {'on': True}})
    result = action.run(task_vars=facts({'kubelet': {}}))
    assert result['changed'] is False and len(action.queries) == 1 and action.applied == []


def trusted_facts(services, run):
    return {'ansible_facts': {'kubewin_node': _snapshot.trust(
        _snapshot.merge(None, {'sections': ['services'], 'services': services}), run)}}


def test_a_snapshot_this_run_took_plans_the_change_without_a_query(monkeypatch):
    monkeypatch.setattr(_snapshot, 'run_id', lambda: 'this-run')
    action = make({'name': 'kubelet'}, diff=False)
    result = action.run(task_vars=trusted_facts({'kubelet': {}}, 'this-run'))
    assert result['changed'] is True and action.queries == [] and action.applied == [[{'op': 'on'}]]
    # The toy module says nothing of what its change moves: the snapshot no longer trusts anything.
    snapshot = result['ansible_facts']['kubewin_node']
    assert snapshot['services']['kubelet'] == {'on': True}
    assert not _snapshot.trusted(snapshot, 'this-run', ('services',), {'services': ['kubelet']})


@pytest.mark.parametrize('run, diff, extra', [
    ('another-run', False, {}),  # a snapshot a fact cache kept from another run
    ('this-run', True, {}),  # a diff shows what only a live query reads
    ('this-run', False, {'ansible_failed_result': {'failed': True}}),  # a rescue: the failed task's facts are gone
])
def test_a_change_the_snapshot_wants_is_read_live_first_unless_this_run_trusts_it(monkeypatch, run, diff, extra):
    monkeypatch.setattr(_snapshot, 'run_id', lambda: 'this-run')
    action = make({'name': 'kubelet'}, diff=diff, node_state={'kubelet': {'on': True}})
    result = action.run(task_vars=dict(trusted_facts({'kubelet': {}}, run), **extra))
    assert result['changed'] is False and len(action.queries) == 1 and action.applied == []


@pytest.mark.parametrize('task_vars', [facts({'kubelet': {'on': True}}, age=10_000), facts({'other': {'on': True}})])
def test_expired_or_partial_snapshots_are_not_trusted(task_vars):
    action = make({'name': 'kubelet'}, node_state={'kubelet': {'on': True}})
    assert action.run(task_vars=task_vars)['changed'] is False
    assert len(action.queries) == 1


def test_argument_errors_fail_before_any_call():
    action = make({})
    result = action.run(task_vars={})
    assert result['failed'] and 'name' in result['msg'] and action.queries == []


def test_module_errors_become_failed_results_without_facts():
    action = make({'name': 'kubelet'})

    def refuse(args, plan, state):
        raise NodeActionError('cannot do that', reason='test')
    action.apply = refuse
    result = action.run(task_vars={})
    assert result['failed'] is True and result['msg'] == 'cannot do that' and result['reason'] == 'test'
    assert 'ansible_facts' not in result


def counting(monkeypatch, node_state=None, check_mode=False):
    """A Switch whose scripts go through NodeAction.run_script (which counts them) to a fake _pwsh."""
    action = make({'name': 'kubelet'}, check_mode=check_mode, node_state=node_state)
    fake = action.run_script
    del action.run_script  # back to NodeAction.run_script
    monkeypatch.setattr(_pwsh, 'run_script', lambda _action, name, parameters, _vars, secrets=None: fake(name, parameters))
    return action


def test_each_run_that_costs_a_call_or_changes_adds_to_the_activity_fact(monkeypatch):
    # A change: the query is one call (the toy's apply returns the state without a script).
    action = counting(monkeypatch)
    [entry] = action.run(task_vars={})['ansible_facts'][_activity.FACT]
    # The task it came from, so that the fleet report counts changed tasks as the play recap does.
    assert entry['task'] == action._task._uuid
    assert dict(entry, at=0, task=None) == {'at': 0, 'module': 'switch', 'resource': 'kubelet', 'changed': True,
                                            'calls': 1, 'task': None}

    # Nothing to do, decided from the snapshot: no call, no entry, no fact returned at all.
    action = counting(monkeypatch)
    result = action.run(task_vars=facts({'kubelet': {'on': True}}))
    assert result['changed'] is False and 'ansible_facts' not in result

    # Nothing to do, but the snapshot did not cover it: the query is recorded, appended to what the host had.
    action = counting(monkeypatch, node_state={'kubelet': {'on': True}})
    earlier = {'at': 1.0, 'module': 'node_info', 'resource': '', 'changed': False, 'calls': 1}
    result = action.run(task_vars={'ansible_facts': {_activity.FACT: [earlier]}})
    assert [(e['module'], e['changed'], e['calls']) for e in result['ansible_facts'][_activity.FACT]] == [
        ('node_info', False, 1), ('switch', False, 1)]

    # Check mode records what it would change.
    action = counting(monkeypatch, check_mode=True)
    [entry] = action.run(task_vars={})['ansible_facts'][_activity.FACT]
    assert (entry['changed'], entry['calls'], action.applied) == (True, 1, [])
