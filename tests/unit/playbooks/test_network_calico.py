"""playbooks/site.yml with the calico topology against a simulated cluster running the Tigera operator and one fresh
Windows node: the network_calico role waits for the operator's calico-node-windows pod (kubewin_sim/calico_windows.py)
to write the CNI config and create External through the network drop, and a second run changes nothing.

kube-proxy for calico is not part of this branch (its DaemonSet mode is built apart), so the runs select every stage
but kube_proxy; the network include carries the kube_proxy tag too, hence --tags rather than --skip-tags. Without
every stage no converged record is written, so the re-run goes through the node play (its no-op in one remote call is
checked once kube-proxy for calico is merged).

Reusable for a calico e2e fleet: ``install_operator`` (the operator and an Installation the plan accepts) and
``CALICO_VARS`` (the inventory's group variables).
"""

import json
import os
import sys

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import tigera  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402

CALICO_VARS = dict(network_play.CLUSTER, kubewin_topology='calico', kubewin_calico_version='3.30.3',
                   kubewin_kubernetes_version='1.31.14')
EVERY_STAGE_BUT_KUBE_PROXY = 'prerequisites,control_plane,runtime,binaries,kubelet,join,network,logs,upgrade,verify'
CONFLIST = 'C:\\etc\\cni\\net.d\\10-calico.conflist'


def install_operator(sim, cluster_cidr='10.244.0.0/16', service_cidr='10.96.0.0/12'):
    """The Tigera operator with an Installation for Windows that the plan's cluster checks accept as it is."""
    with sim.edit_cluster() as cluster:
        tigera.install(cluster, strict_affinity=True, calico_version='v3.30.3',
                       services_endpoint={'KUBERNETES_SERVICE_HOST': '10.127.130.10', 'KUBERNETES_SERVICE_PORT': '6443'},
                       installation={'serviceCIDRs': [service_cidr],
                                     'calicoNetwork': {'windowsDataplane': 'HNS', 'bgp': 'Disabled', 'ipPools': [
                                         {'name': 'default-ipv4-ippool', 'cidr': cluster_cidr, 'encapsulation': 'VXLAN',
                                          'natOutgoing': 'Enabled', 'blockSize': 26}]}})


def test_site_calico_converges_a_fresh_node_then_changes_nothing(tmp_path):
    sim = Simulation(tmp_path)
    install_operator(sim)
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': network_play.CONTAINERS_READY}},
                              group_vars=CALICO_VARS, control_plane={'cp1': {}})
    options = {'join_method': 'bootstrap_kubeconfig'}

    converge = network_play.run(sim, 'playbooks/site.yml', inventory, '--tags', EVERY_STAGE_BUT_KUBE_PROXY, **options)
    assert converge.rc == 0, converge.output
    node = sim.node('win1')
    plugin = json.loads(node.file(CONFLIST)['content'])['plugins'][0]
    assert (plugin['name'], plugin['mode'], plugin['nodename']) == ('Calico', 'vxlan', 'win1')
    external = [n for n in node.data['hns']['networks'] if n['name'] == 'External']
    assert len(external) == 1 and external[0]['type'] == 'Overlay'
    assert node.file('C:\\etc\\cni\\net.d\\10-kubewin.conf') is None, 'the collection writes no CNI config for calico'
    waited = converge.result('Wait for the node\'s CNI config and External network, surviving the vSwitch\'s network '
                             'drop', 'win1')['result']
    # The pod ran while the task before waited for it: the node read afresh has both, so this task changed nothing.
    assert not waited['changed'] and waited['network']['name'] == 'External'
    assert converge.result('Wait for the operator\'s calico-node-windows pod on the node to be Ready', 'win1')['status'] == 'ok'
    assert node.data['firewall_rules']['kubewin-vxlan']['local_port'] == ['4789']

    again = network_play.run(sim, 'playbooks/site.yml', inventory, '--tags', EVERY_STAGE_BUT_KUBE_PROXY, **options)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
