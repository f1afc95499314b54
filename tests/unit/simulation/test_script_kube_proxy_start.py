"""kube_proxy_start.ps1, the kube-proxy-windows DaemonSet's entry point, run whole in the engine on the Windows model
(kube-proxy.exe: kubewin_sim/windows/kube_proxy.py), with the flags the control_plane role puts in the DaemonSet."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from ansible_collections.kubewin.node.plugins.plugin_utils import _kube_proxy_daemonset  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.cluster import open_cluster  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402  pylint: disable=wrong-import-position

KUBE_PROXY = 'C:\\k\\kube-proxy.exe'
SOURCE_VIP_FILE = 'C:\\k\\SourceVip.json'
KUBECONFIG = 'C:\\etc\\kubernetes\\kube-proxy.conf'


@pytest.fixture(name='cluster_dir')
def cluster_dir_fixture(tmp_path, monkeypatch):
    """A simulated cluster (kube-dns and kubernetes Services) that the kube-proxy model reads."""
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', str(tmp_path))
    with open_cluster(str(tmp_path), profile={}) as cluster:
        vips = sorted(s['spec']['clusterIP'] for s in cluster.list('Service'))
    return vips


def _daemonset_env(topology):
    """The start script the DaemonSet ships (its ConfigMap) and the container's environment."""
    config_map, daemon_set = _kube_proxy_daemonset.kube_proxy_daemonset({
        'kubernetes_version': '1.33.5', 'topology': topology, 'cluster_cidr': '10.244.0.0/16',
        'paths': {'kubernetes_dir': 'C:\\k', 'kubernetes_config_dir': 'C:\\etc\\kubernetes'}})['objects']
    container = daemon_set['spec']['template']['spec']['containers'][0]
    env = {item['name']: item.get('value') for item in container['env']}
    env['script'] = config_map['data'][_kube_proxy_daemonset.START_SCRIPT_KEY]
    return env


def _node(network):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    node.write_file(KUBE_PROXY, content='kube-proxy')
    node.write_file(KUBECONFIG, content='apiVersion: v1\nkind: Config\n')
    node.data['hns']['networks'].append({'id': 'a1', 'name': network, 'type': 'Overlay', 'adapter': 'Ethernet',
                                         'subnets': [{'address_prefix': '10.244.1.0/24', 'gateway': '10.244.1.1'}],
                                         'management_ip': '10.0.0.11', 'flags': 0})
    return node


def _run(node, env, node_name='WIN1', **extra):
    parameters = {'KubeProxy': env['KUBEWIN_KUBE_PROXY'], 'Arguments': env['KUBEWIN_KUBE_PROXY_ARGS'],
                  'NodeName': node_name, 'SourceVipFile': env['KUBEWIN_SOURCE_VIP_FILE'],
                  'SourceVipEndpoint': env['KUBEWIN_SOURCE_VIP_ENDPOINT'], 'Network': env['KUBE_NETWORK']}
    parameters.update(extra)
    return invoke(node, env['script'], parameters)


def _flags(result):
    """The flags kube-proxy logged at start (FLAG: --name="value")."""
    found = {}
    for line in result['output']:
        if ' FLAG: ' in line:
            name, value = line.split(' FLAG: ', 1)[1].split('=', 1)
            found[name] = value.strip('"')
    return found


def test_overlay_pod_runs_kube_proxy_with_the_reserved_source_vip_and_programs_every_service(cluster_dir):
    node = _node('flannel.4096')
    node.write_file(SOURCE_VIP_FILE, content='{"cniVersion":"0.3.1","ips":[{"version":"4","address":"10.244.1.2/24"}]}')
    result = _run(node, _daemonset_env('overlay'))
    assert (result['failed'], result['error']) == (False, [])
    flags = _flags(result)
    assert flags['--hostname-override'] == 'win1' and flags['--source-vip'] == '10.244.1.2'
    assert flags['--network-name'] == 'flannel.4096' and flags['--proxy-mode'] == 'kernelspace'
    assert flags['--kubeconfig'] == 'C:\\etc\\kubernetes\\kube-proxy.conf'
    assert sorted(vip for p in node.data['hns']['policy_lists'] for vip in p['vips']) == cluster_dir


def test_l2bridge_pod_needs_no_source_vip(cluster_dir):
    node = _node('cbr0')
    env = _daemonset_env('l2bridge')
    assert env['KUBEWIN_SOURCE_VIP_FILE'] == ''
    result = _run(node, env)
    assert (result['failed'], result['error']) == (False, [])
    flags = _flags(result)
    assert '--source-vip' not in flags and flags['--network-name'] == 'cbr0'
    assert sorted(vip for p in node.data['hns']['policy_lists'] for vip in p['vips']) == cluster_dir


def test_overlay_pod_fails_before_the_source_vip_is_reserved(cluster_dir):  # pylint: disable=unused-argument
    node = _node('flannel.4096')
    result = _run(node, _daemonset_env('overlay'))
    assert result['failed']
    assert "no source VIP on this node yet: 'C:\\k\\SourceVip.json' is missing" in result['error'][0]['exception']['message']
    assert node.data['hns']['policy_lists'] == []


def test_pod_on_a_node_without_kube_proxy_fails_naming_the_path(cluster_dir):  # pylint: disable=unused-argument
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    result = _run(node, _daemonset_env('l2bridge'))
    assert result['failed']
    assert "kube-proxy is not installed on this node at 'C:\\k\\kube-proxy.exe'" in result['error'][0]['exception']['message']


def test_kube_proxy_without_its_kubeconfig_exits_and_the_script_with_it(cluster_dir):  # pylint: disable=unused-argument
    node = _node('cbr0')
    node.remove_file(KUBECONFIG)
    result = _run(node, _daemonset_env('l2bridge'))
    # kube-proxy's error output fails the script (its stderr, an error record under ErrorActionPreference Stop).
    assert result['failed']
    assert 'stat C:\\etc\\kubernetes\\kube-proxy.conf: The system cannot find the file specified.' in result['error'][0]['output']
    assert node.data['hns']['policy_lists'] == []


# --- calico ---------------------------------------------------------------------------------------------------------
# The Calico node state is built directly in the Windows model, as Calico's pods leave it: the network External that
# binds the vSwitch (Overlay with VSID 9999 for VXLAN, L2Bridge for BGP; projectcalico/calico
# node/windows-packaging/CalicoWindows/node/node-service.ps1) and, once the kubelet runs, the network Calico on the
# node's IPAM block with its host endpoint Calico_ep (node/pkg/lifecycle/startup/startup_windows.go, through
# cni-plugin/pkg/dataplane/windows/dataplane_windows.go SetupVxlanNetwork and SetupL2bridgeNetwork: epName :=
# networkName + "_ep").
# The simulated operator's calico-node-windows pods can replace this builder once they exist.
CALICO_BLOCK, CALICO_EP_IP = '192.168.0.0/26', '192.168.0.2'


def _calico_node(backend, calico_started=True):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    node.data['features']['Containers'] = 'installed'  # HNS (vmcompute.dll) is there
    node.write_file(KUBE_PROXY, content='kube-proxy')
    node.write_file(KUBECONFIG, content='apiVersion: v1\nkind: Config\n')
    node.create_network({'name': 'External', 'type': 'Overlay' if backend == 'vxlan' else 'L2Bridge',
                         'adapter': 'Ethernet', 'address_prefix': '192.168.255.0/30', 'gateway': '192.168.255.1',
                         'vsid': 9999 if backend == 'vxlan' else None})
    if calico_started:
        _calico_network(node, backend)
    return node


def _calico_network(node, backend, endpoint=True):
    network = node.create_network({'name': 'Calico', 'type': 'Overlay' if backend == 'vxlan' else 'L2Bridge',
                                   'adapter': 'Ethernet', 'address_prefix': CALICO_BLOCK, 'gateway': '192.168.0.1',
                                   'vsid': 4096 if backend == 'vxlan' else None})
    if endpoint:
        node.create_endpoint('Calico_ep', network['id'], CALICO_EP_IP)


def _message(result):
    return result['error'][0]['exception']['message']


def test_calico_daemonset_names_the_network_and_the_endpoint_and_fixes_no_per_node_flag():
    env = _daemonset_env('calico')
    assert (env['KUBE_NETWORK'], env['KUBEWIN_SOURCE_VIP_ENDPOINT'], env['KUBEWIN_SOURCE_VIP_FILE']) == ('Calico', 'Calico_ep', '')
    arguments = env['KUBEWIN_KUBE_PROXY_ARGS'].split('\n')
    assert '--network-name=Calico' in arguments
    assert not [a for a in arguments if a.startswith(('--hostname-override', '--source-vip'))]
    assert _daemonset_env('overlay')['KUBEWIN_SOURCE_VIP_ENDPOINT'] == '', 'flannel overlay: SourceVip.json instead'


def test_calico_vxlan_kube_proxy_gets_the_address_of_calico_ep_as_its_source_vip(cluster_dir):
    node = _calico_node('vxlan')
    result = _run(node, _daemonset_env('calico'))
    assert (result['failed'], result['error']) == (False, [])
    flags = _flags(result)
    assert flags['--source-vip'] == CALICO_EP_IP and flags['--hostname-override'] == 'win1'
    assert flags['--network-name'] == 'Calico'
    assert sorted(vip for p in node.data['hns']['policy_lists'] for vip in p['vips']) == cluster_dir


def test_calico_bgp_kube_proxy_gets_no_source_vip(cluster_dir):  # pylint: disable=unused-argument
    node = _calico_node('bgp')
    result = _run(node, _daemonset_env('calico'))
    assert (result['failed'], result['error']) == (False, [])
    flags = _flags(result)
    assert '--source-vip' not in flags and flags['--network-name'] == 'Calico'


def test_calico_before_its_start_up_made_the_network_the_script_waits_its_bound_and_fails_naming_what_is_missing():
    node = _calico_node('vxlan', calico_started=False)
    result = _run(node, _daemonset_env('calico'), WaitSeconds=5)
    assert result['failed']
    assert _message(result) == ("no HNS network 'Calico' on this node after 5 seconds (Calico's calico-node-windows "
                                "creates it once the node's kubelet runs)")
    assert not _flags(result), 'kube-proxy was not started'


def test_calico_vxlan_network_without_its_endpoint_yet_is_waited_for_as_well():
    node = _calico_node('vxlan', calico_started=False)
    _calico_network(node, 'vxlan', endpoint=False)
    result = _run(node, _daemonset_env('calico'), WaitSeconds=3)
    assert result['failed']
    assert _message(result).startswith("no HNS endpoint 'Calico_ep' on 'Calico' on this node after 3 seconds")


def test_calico_ep_of_another_network_is_not_the_source_vip():
    """An endpoint named Calico_ep on the network External (left by a manual install, say) is not kube-proxy's."""
    node = _calico_node('vxlan', calico_started=False)
    node.create_endpoint('Calico_ep', node.data['hns']['networks'][0]['id'], '192.168.255.2')
    _calico_network(node, 'vxlan', endpoint=False)
    result = _run(node, _daemonset_env('calico'), WaitSeconds=2)
    assert result['failed'] and _message(result).startswith("no HNS endpoint 'Calico_ep' on 'Calico'")
