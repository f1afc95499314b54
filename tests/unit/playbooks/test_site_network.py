"""playbooks/site.yml with the overlay topology against a simulated cluster and Windows node: the network
role runs after the join, flanneld leases the Node's podCIDR, and kube-proxy gets the source VIP."""

import json
import os
import sys

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import cluster as sim_cluster  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402


def test_site_overlay_converges_then_changes_nothing(tmp_path):
    sim = Simulation(tmp_path)
    inventory = sim.inventory(
        {'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version='1.31.14'),
        control_plane={'cp1': {}})
    # The bootstrap kubeconfig join: the kubeadm join of this revision fails on values that come from
    # facts (yaml.safe_dump of tagged strings), which is not what this test is about.
    options = {'join_method': 'bootstrap_kubeconfig'}

    converge = network_play.run(sim, 'playbooks/site.yml', inventory, **options)
    assert converge.rc == 0, converge.output
    names = [t['task'] for t in converge.tasks if t['host'] == 'win1' and t['status'] != 'skipped']
    assert names.index('kubewin.node.join : Write the bootstrap kubeconfig') < names.index(
        'kubewin.node.flannel : Run flanneld as a service under nssm'), 'flannel after the join'
    # The kubelet has its own kubeconfig after its TLS bootstrap: the bootstrap credential is not left on disk, as
    # kubeadm removes it (cmd/kubeadm/app/cmd/phases/join/kubelet.go, kubernetes/kubernetes).
    node = sim.node('win1')
    assert node.file('C:\\etc\\kubernetes\\kubelet.conf') is not None
    assert node.file('C:\\etc\\kubernetes\\bootstrap-kubelet.conf') is None
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        pod_cidr = cluster.get('Node', None, 'win1')['spec']['podCIDR']
    assert network_play.network(sim, 'win1', 'flannel.4096')['subnets'][0]['address_prefix'] == pod_cidr
    vip = json.loads(network_play.text(sim, 'win1', 'C:\\k\\SourceVip.json'))['ips'][0]['address'].split('/')[0]
    assert vip == pod_cidr.replace('.0/24', '.2')
    assert '--source-vip=%s' % vip in sim.node('win1').data['services']['kube-proxy']['command_line']

    # The cluster is read once a run: the control_plane play reuses what the check play before the prerequisites read.
    assert len(converge.results("Read kubeadm's cluster configuration", 'cp1')) == 1

    again = network_play.run(sim, 'playbooks/site.yml', inventory, **options)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'the whole node play decided from one snapshot'
    # Every node ended early: the cluster check and control-plane plays have nothing to do, verify reads the Nodes.
    assert again.api_calls['by_kind'] == {'k8s_info:Node': 1}, again.api_calls
    assert not again.results("Read kubeadm's cluster configuration", 'cp1')
