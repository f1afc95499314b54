"""playbooks/site.yml as AWX job slices run it: each slice's inventory holds only its share of the Windows nodes and no
kube_control_plane host (AWX deals hosts out regardless of groups), and the cluster-side steps run on localhost with
kubewin_cluster_kubeconfig. Two slices, one after the other against one simulated cluster: each converges its node,
the second reuses what the first created, and a re-run changes nothing."""

import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'roles')))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import cluster as sim_cluster  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402

GROUP_VARS = dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version='1.31.14')
# The bootstrap kubeconfig join, as in test_site_network (what this test is about is the cluster side).
OPTIONS = {'join_method': 'bootstrap_kubeconfig'}
MANAGED = 'app.kubernetes.io/managed-by=kubewin.node'


def slice_inventory(sim, host):
    """What AWX hands one slice: its Windows node, no kube_control_plane group."""
    return sim.inventory({host: {'ansible_host': network_play.NODES[host], 'kubewin_sim': network_play.CONTAINERS_READY}},
                         group_vars=GROUP_VARS, name='slice-%s.yml' % host)


def cluster_objects(sim):
    """What the control-plane play creates, by kind: the names, to see that a second slice duplicates none."""
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        return {
            'RuntimeClass': [o['metadata']['name'] for o in cluster.list('RuntimeClass', label_selectors=[MANAGED])],
            'join tokens': [o['metadata']['name'] for o in cluster.list(
                'Secret', 'kube-system', [MANAGED], ['type=bootstrap.kubernetes.io/token'])],
            'service-account tokens': [o['metadata']['namespace'] + '/' + o['metadata']['name'] for o in cluster.list(
                'Secret', None, [MANAGED], ['type=kubernetes.io/service-account-token'])],
            'pod CIDRs': {o['metadata']['name']: o['spec'].get('podCIDR') for o in cluster.list('Node')
                          if o['metadata']['name'].startswith('win')},
        }


# Long (make unit-long): make test keeps the cluster_api filter and role defaults (test_cluster_api.py), the
# preflight of kubewin_cluster_kubeconfig and the RuntimeClass race a second slice meets (test_control_plane.py).
@pytest.mark.long
def test_two_job_slices_converge_their_nodes_from_localhost_and_duplicate_nothing(tmp_path):
    sim = Simulation(tmp_path)
    # The file an AWX credential's injector writes on the execution node; the preflight requires it to exist.
    options = dict(OPTIONS, kubewin_cluster_kubeconfig=sim.write('kubeconfig', network_play.KUBECONFIG))

    first = network_play.run(sim, 'playbooks/site.yml', slice_inventory(sim, 'win1'), **options)
    assert first.rc == 0, first.output
    # Every cluster-side step ran on localhost: the control-plane and verify plays, and the credentials handout.
    for task in ('Create a RuntimeClass per Windows build', 'Wait for the Windows nodes to be Ready with their labels'):
        assert {t['host'] for t in first.results(task)} == {'localhost'}, task
    # The fleet report found the verify results there.
    assert first.report_row('win1')['ready'] == 'True'
    created = cluster_objects(sim)
    assert created['RuntimeClass'] == ['windows-2022'] and len(created['join tokens']) == 1, created
    assert created['service-account tokens'] == ['kube-flannel/kubewin-flannel-windows-token',
                                                 'kube-system/kubewin-kube-proxy-windows-token'], created

    second = network_play.run(sim, 'playbooks/site.yml', slice_inventory(sim, 'win2'), **options)
    assert second.rc == 0, second.output
    assert second.report_row('win2')['ready'] == 'True'
    # The second slice created and patched nothing on the cluster: it reused the first slice's token and objects.
    assert second.changed('localhost') == 0, second.output
    assert second.result('Create the join token', 'localhost')['status'] == 'skipped'
    both = cluster_objects(sim)
    assert {key: value for key, value in both.items() if key != 'pod CIDRs'} == {
        key: value for key, value in created.items() if key != 'pod CIDRs'}
    assert sorted(both['pod CIDRs']) == ['win1', 'win2'] and len(set(both['pod CIDRs'].values())) == 2, both

    # A slice run again is a no-op: its node ends after its snapshot, the cluster side changes nothing.
    again = network_play.run(sim, 'playbooks/site.yml', slice_inventory(sim, 'win1'), **options)
    assert again.rc == 0 and again.changed('win1') == 0 and again.changed('localhost') == 0, again.output
    assert again.calls['win1']['total'] == 1
    assert cluster_objects(sim) == both
