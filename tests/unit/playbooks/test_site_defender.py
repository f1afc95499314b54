"""playbooks/site.yml with prerequisites_defender_exclusions: on a node where Defender runs (a default Windows Server)
the runtime's and the kubelet's folders and programs are excluded, a converged re-run is one remote call, an exclusion
removed by hand comes back with one apply call; a node without Defender is left as it is and does not fail; turned
off, nothing is managed (the exclusions stay); reset.yml removes the collection's Kubernetes exclusions and keeps the
runtime's (it stays installed)."""

import os
import sys

import pytest

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402

TASK = "Exclude the container runtime's and the kubelet's folders from Microsoft Defender's scans"
OPTIONS = {'join_method': 'bootstrap_kubeconfig'}
PATHS = ['C:\\ProgramData\\containerd\\root', 'C:\\ProgramData\\containerd\\state', 'C:\\var\\lib\\kubelet',
         'C:\\etc\\kubernetes']
PROCESSES = ['C:\\Program Files\\containerd\\containerd.exe', 'C:\\k\\kubelet.exe', 'C:\\k\\kube-proxy.exe']


def fleet(sim, enabled):
    hosts = {name: {'ansible_host': address, 'kubewin_sim': dict(network_play.CONTAINERS_READY)}
             for name, address in network_play.NODES.items()}
    # win2 is a Windows Server whose feature Windows-Defender was removed.
    hosts['win2']['kubewin_sim']['defender'] = 'removed'
    return sim.inventory(hosts, group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay',
                                                kubewin_kubernetes_version='1.31.14',
                                                prerequisites_defender_exclusions=enabled),
                         control_plane={'cp1': {}})


def changed_tasks(result):
    return [task['task'] for task in result.tasks if task['host'] == 'win1' and task['changed']
            and task['action'].startswith('kubewin.node.')]


# Long (make unit-long): its representative part is the dual-stack e2e fleet make test runs
# (tests/e2e/inventories/l2bridge-dualstack), which turns the setting on in its first converge and checks the
# converged re-run and the doctor.
@pytest.mark.long
def test_defender_exclusions_on_then_drift_then_off_then_reset(tmp_path):
    sim = Simulation(tmp_path)
    converge = network_play.run(sim, 'playbooks/site.yml', fleet(sim, True), **OPTIONS)
    assert converge.rc == 0, converge.output
    assert sim.node('win1').data['defender'] == {'exclusion_path': PATHS, 'exclusion_process': PROCESSES}
    assert 'defender' not in sim.node('win2').data
    added = converge.result(TASK, 'win1')['result']
    assert added['changed'] is True
    skipped = converge.result(TASK, 'win2')['result']
    assert skipped['changed'] is False and 'is not installed' in skipped['notes'][0]
    print('converge with the exclusions on:', converge.calls['win1']['total'], converge.calls['win2']['total'])

    again = network_play.run(sim, 'playbooks/site.yml', fleet(sim, True), **OPTIONS)
    assert again.rc == 0 and again.changed('win1') == 0 and again.calls['win1']['total'] == 1, again.calls['win1']
    assert again.calls['win2']['total'] == 1, again.calls['win2']

    # An administrator removed one: the snapshot differs from the record, the full path runs and puts it back.
    with sim.edit_node('win1') as node:
        node.data['defender']['exclusion_path'].remove('C:\\var\\lib\\kubelet')
    drift = network_play.run(sim, 'playbooks/site.yml', fleet(sim, True), **OPTIONS)
    assert drift.rc == 0, drift.output
    assert sorted(sim.node('win1').data['defender']['exclusion_path']) == sorted(PATHS)
    changed = changed_tasks(drift)
    # The exclusion, and the record of the full run (the snapshot it records differs).
    assert changed == ['kubewin.node.prerequisites : ' + TASK, 'kubewin.node.prerequisites : Write the convergence record'], \
        changed
    assert drift.calls['win1']['by_kind'].get('win_powershell:defender_apply') == 1, drift.calls['win1']
    print('re-run after the drift:', drift.calls['win1']['total'])

    off = network_play.run(sim, 'playbooks/site.yml', fleet(sim, False), **OPTIONS)
    assert off.rc == 0, off.output
    # A new input: the full path, which changes nothing but the record.
    changed = changed_tasks(off)
    assert changed == ['kubewin.node.prerequisites : Write the convergence record'], changed
    assert 'win_powershell:defender_apply' not in off.calls['win1']['by_kind']
    assert sorted(sim.node('win1').data['defender']['exclusion_path']) == sorted(PATHS), 'off manages nothing'
    print('first run with the exclusions off:', off.calls['win1']['total'])

    # The reset removes the collection's Kubernetes exclusions in one call; containerd stays installed
    # (reset_container_runtime false), and so do its exclusions.
    reset = network_play.run(sim, 'playbooks/reset.yml', fleet(sim, False))
    assert reset.rc == 0, reset.output
    assert sim.node('win1').data['defender'] == {'exclusion_path': PATHS[:2], 'exclusion_process': PROCESSES[:1]}
    assert reset.calls['win1']['by_kind'].get('win_powershell:defender_apply') == 1, reset.calls['win1']
    assert 'win_powershell:defender_apply' not in reset.calls['win2']['by_kind']
