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


def _run(node, env, node_name='WIN1'):
    parameters = {'KubeProxy': env['KUBEWIN_KUBE_PROXY'], 'Arguments': env['KUBEWIN_KUBE_PROXY_ARGS'],
                  'NodeName': node_name, 'SourceVipFile': env['KUBEWIN_SOURCE_VIP_FILE']}
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
