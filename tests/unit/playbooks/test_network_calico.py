"""playbooks/site.yml with the calico topology against a simulated cluster running the Tigera operator and one fresh
Windows node: the network_calico role waits for the operator's calico-node-windows pod (kubewin_sim/calico_windows.py)
to write the CNI config and create External through the network drop, and a second run changes nothing.

The vxlan test selects every stage but kube_proxy (it was written before kube-proxy's DaemonSet; the network include
carries the kube_proxy tag too, hence --tags rather than --skip-tags), so its re-run goes through the node play; the
calico e2e fleet runs the whole of site.yml. The bgp test runs the whole of site.yml on a fresh node: the features,
the restart, Remote Access as a LAN router, the pod's L2Bridge networks and kube-proxy's pod without a source VIP.

Reusable for a calico e2e fleet: ``install_operator`` (the operator and an Installation the plan accepts) and
``CALICO_VARS`` (the inventory's group variables).
"""

import json
import os
import sys

import pytest

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


def install_operator(sim, cluster_cidr='10.244.0.0/16', service_cidr='10.96.0.0/12', backend='vxlan'):
    """The Tigera operator with an Installation for Windows that the plan's cluster checks accept as it is: for vxlan
    a VXLAN pool with BGP disabled, for bgp a pool without encapsulation with BGP enabled."""
    encapsulation, bgp = ('VXLAN', 'Disabled') if backend == 'vxlan' else ('None', 'Enabled')
    with sim.edit_cluster() as cluster:
        tigera.install(cluster, strict_affinity=True, calico_version='v3.30.3',
                       services_endpoint={'KUBERNETES_SERVICE_HOST': '10.127.130.10', 'KUBERNETES_SERVICE_PORT': '6443'},
                       installation={'serviceCIDRs': [service_cidr],
                                     'calicoNetwork': {'windowsDataplane': 'HNS', 'bgp': bgp, 'ipPools': [
                                         {'name': 'default-ipv4-ippool', 'cidr': cluster_cidr,
                                          'encapsulation': encapsulation, 'natOutgoing': 'Enabled', 'blockSize': 26}]}})


# Long: the calico e2e fleet converges vxlan nodes in make test (check mode, converge, the early end, reset and rejoin).
@pytest.mark.long
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


BGP_FEATURES = ['RemoteAccess', 'RSAT-RemoteAccess-PowerShell', 'Routing']


# Long (make unit-long): make test converges calico Windows nodes (vxlan) on the calico e2e fleet; the bgp backend's
# refusals and its plan are in tests/unit/roles/test_control_plane_calico.py and the calico plan tests.
@pytest.mark.long
def test_site_calico_bgp_installs_the_features_restarts_and_converges_a_fresh_node_then_changes_nothing(tmp_path):
    # The whole of site.yml on a fresh node (no feature installed): the prerequisites role installs Containers and the
    # bgp backend's features (tigera/docs CalicoWindowsInstall.js) and restarts once; the operator's pod creates
    # External as L2Bridge and restarts RemoteAccess, the node's start-up sets up Calico (L2Bridge) with Calico_ep;
    # kube-proxy's DaemonSet pod runs without a source VIP (L2Bridge).
    sim = Simulation(tmp_path)
    install_operator(sim, backend='bgp')
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': {'network_drop_seconds': 1}}},
                              group_vars=dict(CALICO_VARS, kubewin_calico_backend='bgp'), control_plane={'cp1': {}})
    options = {'join_method': 'bootstrap_kubeconfig'}

    converge = network_play.run(sim, 'playbooks/site.yml', inventory, **options)
    assert converge.rc == 0, converge.output
    node = sim.node('win1')
    assert {name: node.data['features'][name] for name in ['Containers'] + BGP_FEATURES} == dict.fromkeys(
        ['Containers'] + BGP_FEATURES, 'installed')
    installed = converge.result('Enable the Windows features containers need', 'win1')['result']
    assert sorted(f['display_name'] for f in installed['feature_result']) == sorted(['Containers'] + BGP_FEATURES)
    assert converge.result('Reboot the node', 'win1')['result']['rebooted'] is True
    # Remote Access as a LAN router once, its service running: the node container's restart of it worked.
    assert node.data['log'].count('Install-RemoteAccess -VpnType RoutingOnly') == 1
    assert node.data['remote_access']['service'] == {'state': 'running', 'start_mode': 'auto'}
    assert not [line for line in node.data['log'] if line.startswith('calico node: Restart-Service')]
    plugin = json.loads(node.file(CONFLIST)['content'])['plugins'][0]
    assert (plugin['name'], plugin['mode']) == ('Calico', 'windows-bgp')
    types = {n['name']: n['type'] for n in node.data['hns']['networks']}
    assert (types['External'], types['Calico']) == ('L2Bridge', 'L2Bridge')
    assert [e['name'] for e in node.data['hns']['endpoints'] if e['name'] == 'Calico_ep'] == ['Calico_ep']
    assert 'kubewin-vxlan' not in node.data['firewall_rules'], 'BGP needs no VXLAN port'
    with sim.edit_cluster() as cluster:
        proxies = [p for p in cluster.list('Pod', 'kube-system') if p['spec'].get('nodeName') == 'win1'
                   and p['metadata']['name'].startswith('kube-proxy')]
    assert len(proxies) == 1, proxies
    ready = [c for c in proxies[0]['status']['conditions'] if c['type'] == 'Ready']
    assert ready and ready[0]['status'] == 'True', proxies[0]['status']
    env = {e['name']: e.get('value') for c in proxies[0]['spec']['containers'] for e in c.get('env', [])}
    assert not env.get('KUBEPROXY_SOURCE_VIP'), 'no source VIP on L2Bridge'

    again = network_play.run(sim, 'playbooks/site.yml', inventory, **options)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'the converged node ends early'
