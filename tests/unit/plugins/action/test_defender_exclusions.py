"""kubewin.node.defender_exclusions against simulated nodes: Defender running (a default Windows Server), its service
stopped, and the feature removed."""

import json

from conftest import CONTAINERS_READY

from kubewin_sim.harness import Simulation

PATHS = ['C:\\ProgramData\\containerd\\root', 'C:\\var\\lib\\kubelet']
PROCESSES = ['C:\\k\\kubelet.exe']
PLAY = '''
- hosts: windows_nodes
  gather_facts: false
  vars:
    exclusions: &exclusions
      paths: %s
      processes: %s
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: predict
      kubewin.node.defender_exclusions: *exclusions
      check_mode: true
      diff: true
    - name: add
      kubewin.node.defender_exclusions: *exclusions
    - name: again
      kubewin.node.defender_exclusions: *exclusions
    - name: remove
      kubewin.node.defender_exclusions:
        <<: *exclusions
        state: absent
''' % (json.dumps(PATHS), json.dumps(PROCESSES))


def node(sim, defender, operator_paths=()):
    profile = dict(CONTAINERS_READY, defender=defender)
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': profile}})
    if operator_paths:
        with sim.edit_node('win1', profile) as windows:
            windows.data['defender'] = {'exclusion_path': list(operator_paths), 'exclusion_process': []}
    return inventory


def test_adds_what_is_missing_once_and_removes_only_its_own(sim):
    # An operator's own exclusion, and one of ours already there in another case.
    inventory = node(sim, 'running', ['D:\\builds', 'c:\\VAR\\lib\\kubelet'])
    run = sim.run(sim.write('defender.yml', PLAY), inventory)
    assert run.rc == 0, run.output
    predicted = run.result('predict', 'win1')['result']
    assert predicted['changed'] is True and predicted['diff'] == {
        'before': {'paths': ['D:\\builds', 'c:\\VAR\\lib\\kubelet'], 'processes': []},
        'after': {'paths': ['D:\\builds', 'c:\\VAR\\lib\\kubelet', 'C:\\ProgramData\\containerd\\root'],
                  'processes': ['C:\\k\\kubelet.exe']}}
    added = run.result('add', 'win1')['result']
    assert added['changed'] is True and added['defender']['exclusion_process'] == ['C:\\k\\kubelet.exe']
    assert run.result('again', 'win1')['result']['changed'] is False
    assert run.result('remove', 'win1')['result']['changed'] is True
    # Only the operator's entry is left (our kubelet folder went, in the case the node held it).
    assert sim.node('win1').data['defender'] == {'exclusion_path': ['D:\\builds'], 'exclusion_process': []}
    # The snapshot; the prediction with --diff reads the node live; the add plans from this run's trusted snapshot
    # and applies in one call; "again" decides from what the add re-read; the removal applies in one call.
    assert run.calls['win1']['total'] == 4, run.calls['win1']


def test_a_node_whose_defender_does_not_run_changes_nothing_and_does_not_fail(tmp_path):
    for defender in ('stopped', 'removed'):
        sim = Simulation(tmp_path / defender)
        inventory = node(sim, defender)
        run = sim.run(sim.write('defender.yml', PLAY), inventory)
        assert run.rc == 0, run.output
        for task in ('predict', 'add', 'again', 'remove'):
            result = run.result(task, 'win1')['result']
            assert result['changed'] is False and 'no exclusion changed' in result['notes'][0], result
        assert 'defender' not in sim.node('win1').data
        # The snapshot: with nothing to change, every task (the prediction with --diff too) plans from it.
        assert run.calls['win1']['total'] == 1, run.calls['win1']


def test_a_relative_path_is_refused_before_the_node_is_read(sim):
    inventory = node(sim, 'running')
    play = PLAY.replace(json.dumps(PROCESSES), '["kubelet.exe"]')
    run = sim.run(sim.write('defender.yml', play), inventory)
    assert run.rc != 0 and 'must be absolute' in run.result('predict', 'win1')['result']['msg']
