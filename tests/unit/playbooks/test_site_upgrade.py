"""playbooks/site.yml upgrading a converged 2-node fleet from kubelet 1.31 to 1.32, one node at a time:
drain, new binaries, one restart of the kubelet and kube-proxy, Ready at the new version, uncordon. The
second node's run fails after its binaries are replaced; the next run finishes its upgrade."""

import copy
import os
import sys

import pytest

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.node import windows_state  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402

HOSTS = ('win1', 'win2')
OLD, NEW = '1.31.14', '1.32.13'
# The control plane is upgraded first (kubeadm upgrade apply on Linux); the Windows nodes follow.
CLUSTER = {'version': 'v1.32.4'}
# The bootstrap kubeconfig join, as in test_site_network: what is tested here is what follows the join.
OPTIONS = {'join_method': 'bootstrap_kubeconfig'}
DRAIN = 'Drain the node before its Kubernetes binaries are replaced'
UNCORDON = 'Uncordon the node'
MARKER = 'C:\\var\\lib\\kubelet\\kubewin-upgrade.json'

WORKLOAD = network_play.web_deployment(replicas=2, image='mcr.microsoft.com/windows/nanoserver:ltsc2022')


def fleet(sim, version):
    return sim.inventory(
        {host: {'ansible_host': network_play.NODES[host], 'kubewin_sim': network_play.CONTAINERS_READY}
         for host in HOSTS},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version=version,
                        kubewin_serial=1),
        control_plane={'cp1': {}})


def node_states(sim):
    return {host: windows_state(sim.node(host).data) for host in HOSTS}


def windows_pods(sim):
    with sim.edit_cluster() as cluster:
        return {pod['metadata']['name']: pod['spec'].get('nodeName') for pod in cluster.list('Pod', 'default')}


def ran(result, task, host):
    """The results of a task of the upgrade role that did not skip (the role runs twice per node)."""
    return [t for t in result.results(task, host) if t['status'] != 'skipped']


def starts(sim, host):
    services = sim.node(host).data['services']
    return {name: services[name].get('starts', 0) for name in ('kubelet', 'kube-proxy')}


# Long (make unit-long): make test keeps the upgrade role's own tests (tests/unit/roles/test_upgrade.py).
@pytest.mark.long
def test_upgrade_drains_one_node_at_a_time_and_a_rerun_changes_nothing(tmp_path):
    sim = Simulation(tmp_path)
    with sim.edit_cluster(profile=CLUSTER):
        pass
    converge = network_play.run(sim, 'playbooks/site.yml', fleet(sim, OLD), **OPTIONS)
    assert converge.rc == 0, converge.output
    assert not [t for host in HOSTS for t in ran(converge, DRAIN, host)], 'a node that joins is not drained'
    with sim.edit_cluster() as cluster:
        cluster.create(copy.deepcopy(WORKLOAD))
        cluster.reconcile()
    before_pods = windows_pods(sim)
    assert sorted(before_pods.values()) == ['win1', 'win2'], before_pods
    for host in HOSTS:
        assert sim.node(host).managed_registry()['artifacts']['C:\\k\\kubelet.exe']['version'] == OLD
    upgraded = fleet(sim, NEW)

    # Check mode predicts the drain and the new binaries, and touches neither the nodes nor the cluster.
    states, objects = node_states(sim), copy.deepcopy(sim.cluster().data['objects'])
    check = network_play.run(sim, 'playbooks/site.yml', upgraded, '--check', **OPTIONS)
    assert check.rc == 0, check.output
    assert node_states(sim) == states
    assert sim.cluster().data['objects'] == objects, 'check mode changed the cluster (a cordon?)'
    for host in HOSTS:
        assert [t['changed'] for t in ran(check, 'Predict the drain', host)] == [True]
        assert [t['status'] for t in check.results(DRAIN, host)] == ['skipped', 'skipped'], 'k8s_drain has no check mode'
        assert check.changed(host) > 0
    assert not [kind for kind in check.api_calls['by_kind'] if kind.startswith('k8s_drain')]

    restarts_before = {host: starts(sim, host) for host in HOSTS}
    # On win2 the kubelet's service update fails (the WinRM call is refused) once its binaries are replaced.
    with sim.edit_node('win2') as node:
        node.data['script_faults'] = [{'script': 'node_service_apply', 'contains': 'Kubernetes kubelet'}]
    upgrade = network_play.run(sim, 'playbooks/site.yml', upgraded, **OPTIONS)
    assert upgrade.rc != 0, upgrade.output
    # Serial: win1 is drained and uncordoned before win2 is drained.
    order = [(t['task'].split(' : ')[-1], t['host']) for t in upgrade.tasks
             if t['task'].split(' : ')[-1] in (DRAIN, UNCORDON) and t['status'] == 'ok']
    assert order == [(DRAIN, 'win1'), (UNCORDON, 'win1'), (DRAIN, 'win2')], order
    interrupted = sim.node('win2')
    assert interrupted.managed_registry()['artifacts']['C:\\k\\kubelet.exe']['version'] == NEW, 'the new binaries are on disk'
    assert interrupted.data['services']['kubelet']['version'] == 'v' + OLD, 'the kubelet runs the old one'
    assert interrupted.file(MARKER) is not None
    assert sim.cluster().data['objects']['Node']['win2']['spec']['unschedulable'] is True

    # The artifact records match now, so only the record of the upgrade in progress makes the next run
    # drain win2 again, restart its kubelet and kube-proxy, wait for Ready at the new version and uncordon.
    resume = network_play.run(sim, 'playbooks/site.yml', upgraded, **OPTIONS)
    assert resume.rc == 0, resume.output
    assert resume.changed('win1') == 0 and resume.calls['win1']['total'] == 1
    # The drain runs again (win2 is still cordoned and empty: nothing to change), the uncordon changes.
    assert [t['changed'] for t in ran(resume, DRAIN, 'win2') + ran(resume, UNCORDON, 'win2')] == [False, True]
    for host in HOSTS:
        node = sim.node(host)
        assert node.file(MARKER) is None
        assert node.managed_registry()['artifacts']['C:\\k\\kubelet.exe']['version'] == NEW
        assert node.managed_registry()['artifacts']['C:\\k\\kube-proxy.exe']['url'].endswith('/v%s/bin/windows/amd64/kube-proxy.exe' % NEW)
        restarted = starts(sim, host)
        assert restarted == {name: count + 1 for name, count in restarts_before[host].items()}, restarted
        assert node.data['services']['kubelet']['version'] == 'v' + NEW
    assert upgrade.api_calls['by_kind'].get('k8s_drain:drain') == 2
    assert upgrade.api_calls['by_kind'].get('k8s_drain:uncordon') == 1
    assert resume.api_calls['by_kind'].get('k8s_drain:drain') == 1
    assert resume.api_calls['by_kind'].get('k8s_drain:uncordon') == 1
    with sim.edit_cluster() as cluster:
        for host in HOSTS:
            node = cluster.get('Node', None, host)
            assert node['status']['nodeInfo']['kubeletVersion'] == 'v' + NEW
            assert not node['spec'].get('unschedulable') and not node['spec'].get('taints'), node['spec']
    # Every pod was evicted once its node was drained; the last drain (win2) sent them all to win1.
    after_pods = windows_pods(sim)
    assert not set(after_pods) & set(before_pods), (before_pods, after_pods)
    assert sorted(after_pods.values()) == ['win1', 'win1'], after_pods

    again = network_play.run(sim, 'playbooks/site.yml', upgraded, **OPTIONS)
    assert again.rc == 0, again.output
    for host in HOSTS:
        assert again.changed(host) == 0, [t['task'] for t in again.tasks if t['host'] == host and t['changed']]
        assert again.calls[host]['total'] == 1, again.calls[host]
        assert not ran(again, DRAIN, host) and not ran(again, UNCORDON, host)
    assert not [kind for kind in again.api_calls['by_kind'] if kind.startswith('k8s_drain')]
    print('remote calls per node: upgrade %s, resumed upgrade %s, re-run %s'
          % ({h: upgrade.calls[h]['total'] for h in HOSTS}, resume.calls['win2']['total'],
             {h: again.calls[h]['total'] for h in HOSTS}))
