"""kubewin.node.kube_proxy_daemonset: the ConfigMap and DaemonSet of kube-proxy on the Windows nodes."""

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.kubewin.node.plugins.filter.kube_proxy_daemonset import FilterModule
from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh

kube_proxy_daemonset = FilterModule().filters()['kube_proxy_daemonset']
PATHS = {'kubernetes_dir': 'D:\\k', 'kubernetes_config_dir': 'C:\\etc\\kubernetes'}
DIGEST = 'sha256:' + 'ab' * 32


def _build(**given):
    data = dict({'kubernetes_version': '1.33.13', 'topology': 'overlay', 'cluster_cidr': '10.244.0.0/16',
                 'vxlan_vni': 4097, 'paths': PATHS}, **given)
    return kube_proxy_daemonset(data)


def _container(result):
    return result['objects'][1]['spec']['template']['spec']['containers'][0]


def _env(result):
    return {item['name']: item.get('value', item.get('valueFrom')) for item in _container(result)['env']}


def test_overlay_daemonset_runs_the_nodes_kube_proxy_in_a_hostprocess_pod_on_windows_nodes():
    result = _build()
    config_map, daemon_set = result['objects']
    assert (config_map['kind'], config_map['metadata']['namespace'], config_map['metadata']['name']) == (
        'ConfigMap', 'kube-system', 'kube-proxy-windows')
    assert config_map['data'] == {'kube_proxy_start.ps1': _pwsh.load_script('kube_proxy_start')}
    assert (daemon_set['kind'], daemon_set['metadata']['name']) == ('DaemonSet', 'kube-proxy-windows')
    assert daemon_set['metadata']['labels'] == {'app.kubernetes.io/managed-by': 'kubewin.node',
                                                'app.kubernetes.io/component': 'kube-proxy-windows',
                                                'app.kubernetes.io/version': 'v1.33.13'}
    pod = daemon_set['spec']['template']['spec']
    assert pod['nodeSelector'] == {'kubernetes.io/os': 'windows'}
    assert pod['hostNetwork'] is True and pod['securityContext']['windowsOptions'] == {
        'hostProcess': True, 'runAsUserName': 'NT AUTHORITY\\SYSTEM'}
    assert (pod['serviceAccountName'], pod['automountServiceAccountToken']) == ('kube-proxy', False)
    assert daemon_set['spec']['selector']['matchLabels'] == {'k8s-app': 'kube-proxy-windows'}
    assert result['pod_selector'] == 'k8s-app=kube-proxy-windows'
    container = _container(result)
    assert container['image'].endswith('@sha256:b4c9637e032f667c52d1eccfa31ad8c63f1b035e8639f3f48a510536bf34032b')
    assert container['imagePullPolicy'] == 'IfNotPresent'
    env = _env(result)
    assert env['KUBE_NETWORK'] == 'flannel.4097' and env['KUBEWIN_KUBE_PROXY'] == 'D:\\k\\kube-proxy.exe'
    assert env['KUBEWIN_SOURCE_VIP_FILE'] == 'D:\\k\\SourceVip.json'
    assert env['NODE_NAME'] == {'fieldRef': {'apiVersion': 'v1', 'fieldPath': 'spec.nodeName'}}
    # The service's flags, but the node's own (name, source VIP), which the start script adds, and the service's.
    assert env['KUBEWIN_KUBE_PROXY_ARGS'].split('\n') == [
        '--cluster-cidr=10.244.0.0/16', '--enable-dsr=false', '--kubeconfig=C:\\etc\\kubernetes\\kube-proxy.conf',
        '--network-name=flannel.4097', '--proxy-mode=kernelspace', '--v=2']
    assert result['files'] == {'kube_proxy': 'D:\\k\\kube-proxy.exe', 'kubeconfig': 'C:\\etc\\kubernetes\\kube-proxy.conf',
                               'source_vip_file': 'D:\\k\\SourceVip.json'}


def test_l2bridge_gets_its_network_and_no_source_vip():
    env = _env(_build(topology='l2bridge', network_name='cbr1'))
    assert env['KUBE_NETWORK'] == 'cbr1' and env['KUBEWIN_SOURCE_VIP_FILE'] == ''
    assert '--network-name=cbr1' in env['KUBEWIN_KUBE_PROXY_ARGS'].split('\n')


def test_an_image_pinned_by_digest_is_used_as_given():
    image = 'registry.example.org/hpc/base:v1.0.0@' + DIGEST
    assert _container(_build(image=image))['image'] == image


@pytest.mark.parametrize('given, message', [
    ({'image': 'registry.example.org/hpc/base:v1.0.0'}, "image 'registry.example.org/hpc/base:v1.0.0' must be pinned by digest"),
    ({'topology': 'ovn'}, 'topology ovn runs no kube-proxy'),
    ({'paths': None}, 'the input needs paths'),
    ({'colour': 'blue'}, 'unknown key(s) colour'),
    ({'kubernetes_version': '1.33'}, 'kubernetes_version must be a Kubernetes release'),
])
def test_bad_input_is_refused_naming_it(given, message):
    with pytest.raises(AnsibleFilterError, match=None) as error:
        _build(**given)
    assert message in str(error.value)


def test_the_control_plane_role_removes_what_the_filter_labels():
    from pathlib import Path  # pylint: disable=import-outside-toplevel
    import yaml  # pylint: disable=import-outside-toplevel
    role_vars = yaml.safe_load((Path(__file__).resolve().parents[4] / 'roles' / 'control_plane' / 'vars' / 'main.yml')
                               .read_text(encoding='utf-8'))
    result = _build()
    assert role_vars['control_plane_kube_proxy_owner_labels'] == result['owner_labels']
    assert role_vars['control_plane_kube_proxy_namespace'] == result['namespace']
    for obj in result['objects']:
        assert result['owner_labels'].items() <= obj['metadata']['labels'].items()
