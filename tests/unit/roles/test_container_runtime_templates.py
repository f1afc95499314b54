"""The container_runtime role's templates render valid TOML and YAML for every containerd major (no node involved)."""

import tomllib
from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

TEMPLATES = Path(__file__).resolve().parents[3] / 'roles' / 'container_runtime' / 'templates'
VARIABLES = {
    'container_runtime_sandbox_image': 'registry.k8s.io/pause:3.10.1',
    'container_runtime_cni_bin_dir': 'C:\\opt\\cni\\bin',
    'container_runtime_cni_conf_dir': 'C:\\etc\\cni\\net.d',
    'container_runtime_containerd_registry_dir': 'C:\\Program Files\\containerd\\certs.d',
    'container_runtime_endpoint': 'npipe:////./pipe/containerd-containerd',
    'container_runtime_containerd_metrics_address': '',
}


def render(name, **variables):
    templar = Templar(loader=DataLoader(), variables=dict(VARIABLES, **variables))
    return templar.template(trust_as_template((TEMPLATES / name).read_text(encoding='utf-8')))


def containerd_config(version, **variables):
    text = render('config.toml.j2', container_runtime_containerd_version=version, **variables)
    assert not text.startswith('\ufeff')
    return tomllib.loads(text)


@pytest.mark.parametrize('version', ['1.7.0', '1.7.24'])
def test_containerd_1_gets_config_version_2(version):
    document = containerd_config(version)
    assert document['version'] == 2
    assert document['plugins'] == {'io.containerd.grpc.v1.cri': {
        'sandbox_image': 'registry.k8s.io/pause:3.10.1',
        'cni': {'bin_dir': 'C:\\opt\\cni\\bin', 'conf_dir': 'C:\\etc\\cni\\net.d'},
        'registry': {'config_path': 'C:\\Program Files\\containerd\\certs.d'},
    }}


# bin_dirs from 2.1, and only it from 2.4, which removed bin_dir (containerd PR #14169's notes;
# kubernetes-sigs/windows-testing PR #593 converts its CAPZ configs for 2.4 alike).
@pytest.mark.parametrize('version, bin_key', [('2.0.0', 'bin_dir'), ('2.0.7', 'bin_dir'), ('2.1.0', 'bin_dirs'),
                                              ('2.2.1', 'bin_dirs'), ('2.4.0', 'bin_dirs')])
def test_containerd_2_gets_config_version_3(version, bin_key):
    document = containerd_config(version)
    assert document['version'] == 3
    images = document['plugins']['io.containerd.cri.v1.images']
    assert images == {'pinned_images': {'sandbox': 'registry.k8s.io/pause:3.10.1'},
                      'registry': {'config_path': 'C:\\Program Files\\containerd\\certs.d'}}
    cni = document['plugins']['io.containerd.cri.v1.runtime']['cni']
    # Only one of bin_dir (2.0) and bin_dirs (2.1 on) may be set.
    expected = ['C:\\opt\\cni\\bin'] if bin_key == 'bin_dirs' else 'C:\\opt\\cni\\bin'
    assert cni == {bin_key: expected, 'conf_dir': 'C:\\etc\\cni\\net.d'}
    assert set(document['plugins']) == {'io.containerd.cri.v1.images', 'io.containerd.cri.v1.runtime'}


@pytest.mark.parametrize('version', ['1.7.24', '2.2.1'])
def test_awkward_values_stay_valid_toml(version):
    odd = 'D:\\cni "plugins"\\bin\tneu\u00e9'
    image = 'mirror.example.com:5000/pause@sha256:' + 'a' * 64
    document = containerd_config(version, container_runtime_cni_bin_dir=odd, container_runtime_sandbox_image=image)
    if version.startswith('1.'):
        cri = document['plugins']['io.containerd.grpc.v1.cri']
        assert (cri['cni']['bin_dir'], cri['sandbox_image']) == (odd, image)
    else:
        plugins = document['plugins']
        assert plugins['io.containerd.cri.v1.runtime']['cni']['bin_dirs'] == [odd]
        assert plugins['io.containerd.cri.v1.images']['pinned_images']['sandbox'] == image


# The top-level [metrics] section is the same in config version 2 and 3 (containerd's MetricsConfig, toml "metrics",
# in services/server/config/config.go at v1.7.24 and cmd/containerd/server/config/config.go at v2.2.7).
@pytest.mark.parametrize('version', ['1.7.24', '2.0.7', '2.4.0'])
def test_the_metrics_address_is_the_top_level_metrics_section_when_asked(version):
    assert 'metrics' not in containerd_config(version)
    document = containerd_config(version, container_runtime_containerd_metrics_address='0.0.0.0:10257')
    assert document['metrics'] == {'address': '0.0.0.0:10257'}
    assert document['version'] == (2 if version.startswith('1.') else 3)


def test_hosts_toml_lists_the_mirrors_in_order():
    item = {'key': 'docker.io', 'value': ['https://b.example.com', 'http://10.0.0.5:5000', 'https://a.example.com']}
    document = tomllib.loads(render('hosts.toml.j2', item=item))
    assert list(document['host']) == item['value']
    assert all(host == {'capabilities': ['pull', 'resolve']} for host in document['host'].values())


def test_crictl_yaml():
    assert yaml.safe_load(render('crictl.yaml.j2')) == {
        'runtime-endpoint': 'npipe:////./pipe/containerd-containerd',
        'image-endpoint': 'npipe:////./pipe/containerd-containerd', 'timeout': 10}
