# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The artifact catalog (roles/artifacts/vars/main.yml) through the artifact_sources and artifact_versions filters."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

from ansible.errors import AnsibleError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kubewin.node.plugins.filter import artifacts as filter_module
from ansible_collections.kubewin.node.plugins.plugin_utils._artifact_catalog import CatalogError
from ansible_collections.kubewin.node.plugins.plugin_utils._artifacts import file_name, parse_checksum, parse_hash_file

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / 'tests' / 'simulation'))
from kubewin_sim import catalog_web, web  # noqa: E402  pylint: disable=wrong-import-position

CATALOG = yaml.safe_load((ROOT / 'roles' / 'artifacts' / 'vars' / 'main.yml').read_text(encoding='utf-8'))['artifacts_catalog']
BASE_URLS = yaml.safe_load((ROOT / 'roles' / 'artifacts' / 'defaults' / 'main.yml').read_text(encoding='utf-8'))['artifacts_base_urls']
MIRROR = {name: 'https://mirror.example.internal/%s' % name for name in BASE_URLS}
FILTERS = filter_module.FilterModule().filters()
artifact_sources = FILTERS['artifact_sources']
artifact_versions = FILTERS['artifact_versions']

# Upstream publishes no hash file for these, and the catalog pins none of their versions: the user must.
NEEDS_A_PIN = {'flanneld', 'cri-dockerd', 'openvswitch', 'csi-proxy'}
EVERY_VERSION = [(component, version) for component in sorted(CATALOG) for version in CATALOG[component]['versions']]
PIN = 'sha256:' + '0123456789abcdef' * 4


def install(component, version, dest='C:\\k\\x'):
    return {'component': component, 'version': version, 'dest': dest}


def render(expression, **variables):
    templar = Templar(loader=DataLoader(), variables=variables)
    return templar.template(trust_as_template(expression))


def test_registered_filters_match_their_documentation():
    assert sorted(FILTERS) == ['artifact_sources', 'artifact_versions']
    for name in FILTERS:
        doc = yaml.safe_load((Path(filter_module.__file__).parent / ('%s.yml' % name)).read_text(encoding='utf-8'))
        assert doc['DOCUMENTATION']['name'] == name
        assert doc['DOCUMENTATION']['author'] == 'kubewin.node contributors (@kubewin)'
        assert str(doc['DOCUMENTATION']['version_added']) == '0.1.0'
        assert '_input' in doc['DOCUMENTATION']['options'] and '_value' in doc['RETURN']


def test_catalog_shape():
    assert set(CATALOG) == {'kubelet', 'kube-proxy', 'kubeadm', 'kubectl', 'kube-log-runner', 'containerd', 'crictl',
                            'cni-plugins', 'sdn-cni', 'flanneld', 'flannel-cni', 'docker', 'cri-dockerd', 'openvswitch',
                            'csi-proxy', 'ecr-credential-provider', 'nssm', 'windows_exporter'}
    for component, entry in CATALOG.items():
        assert set(entry) <= {'url', 'upstream_checksum', 'extract', 'versions'}, component
        versions = list(entry['versions'])
        assert versions and all(isinstance(version, str) and not version.startswith('v') for version in versions), component
        assert versions == artifact_versions(CATALOG, component), '%s: versions are listed oldest first' % component
        for version, pin in entry['versions'].items():
            assert pin is None or re.fullmatch(r'sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128}', pin), (component, version)
    kubernetes = ['1.29.15', '1.30.14', '1.31.14', '1.32.13', '1.33.13', '1.34.11', '1.35.8', '1.36.4', '1.37.0']
    for binary in ('kubelet', 'kube-proxy', 'kubeadm', 'kubectl', 'kube-log-runner'):
        assert list(CATALOG[binary]['versions']) == kubernetes


@pytest.mark.parametrize('base_urls', [BASE_URLS, MIRROR], ids=['upstream', 'mirror'])
def test_every_listed_version_resolves(base_urls):
    for component, version in EVERY_VERSION:
        entry = CATALOG[component]
        pin = entry['versions'][version]
        if pin is None and not entry.get('upstream_checksum'):
            with pytest.raises(CatalogError, match='%s %s has no pinned checksum and upstream publishes no hash file; '
                                                   'give its checksum in artifacts_checksum_overrides' % (component, version)):
                artifact_sources([install(component, version)], CATALOG, base_urls)
            overrides = {component: {version: PIN}}
        else:
            overrides = {}
        [source] = artifact_sources([install(component, 'v' + version)], CATALOG, base_urls, overrides)
        site = re.match(r'\{(\w+)\}', entry['url']).group(1)
        assert source['url'].startswith(base_urls[site] + '/'), source
        assert source['version'] == version and source['component'] == component and source['dest'] == 'C:\\k\\x'
        if overrides:
            assert source['checksum'] == PIN
        elif pin:
            assert source['checksum'] == pin
        else:
            algorithm, pinned, hash_url = parse_checksum(source['checksum'])
            # The hash file beside the artifact, or the release's list of every asset (windows_exporter's
            # sha256sums.txt), at the same base URL.
            assert pinned is None and (hash_url.startswith(source['url'] + '.') or hash_url == (
                source['url'].rsplit('/', 1)[0] + '/sha256sums.txt')), source
            assert hash_url == entry['upstream_checksum'].split(':', 1)[1].format(url=source['url'], version=version,
                                                                                  **base_urls)
        if entry.get('extract'):
            assert source['extract']['members'] == entry['extract']['members']
        else:
            assert 'extract' not in source


def test_components_that_need_a_user_pin_are_the_documented_ones():
    unverifiable = {component for component, version in EVERY_VERSION
                    if CATALOG[component]['versions'][version] is None and not CATALOG[component].get('upstream_checksum')}
    assert unverifiable == NEEDS_A_PIN
    docs = (ROOT / 'docs' / 'docsite' / 'rst' / 'artifacts.rst').read_text(encoding='utf-8')
    # The RST section runs from below its title's underline to the next title (a line followed by one).
    section = docs.split('\nComponents that need your pin\n', 1)[1].split('\n', 1)[1]
    section = re.split(r'\n[^\n]+\n-{3,}\n', section, maxsplit=1)[0]
    for component in NEEDS_A_PIN:
        assert '* ``%s``' % component in section, component


def test_a_version_not_in_the_catalog_is_refused_with_the_known_versions():
    with pytest.raises(CatalogError) as refused:
        artifact_sources([install('kubelet', '1.33.99')], CATALOG, BASE_URLS)
    message = str(refused.value)
    assert message.startswith('kubelet 1.33.99 is not in the artifact catalog (known: 1.29.15, 1.30.14, 1.31.14, 1.32.13, '
                              '1.33.13, 1.34.11, 1.35.8, 1.36.4, 1.37.0)')
    assert 'artifacts_checksum_overrides' in message
    with pytest.raises(CatalogError, match="no component 'kubelett' in the artifact catalog; it has: cni-plugins, "):
        artifact_sources([install('kubelett', '1.33.13')], CATALOG, BASE_URLS)


def test_overrides_pin_unlisted_versions_and_take_precedence():
    overrides = {'kubelet': {'1.33.99': PIN}, 'docker': {'29.5.3': 'sha512:' + 'ab' * 64}}
    kubelet, docker, containerd = artifact_sources(
        [install('kubelet', '1.33.99'), install('docker', '29.5.3', 'C:\\docker'), install('containerd', '2.2.7')],
        CATALOG, BASE_URLS, overrides)
    assert kubelet == {'component': 'kubelet', 'version': '1.33.99', 'dest': 'C:\\k\\x', 'checksum': PIN,
                       'url': 'https://dl.k8s.io/release/v1.33.99/bin/windows/amd64/kubelet.exe'}
    assert docker['checksum'] == 'sha512:' + 'ab' * 64
    assert docker['extract'] == {'members': ['docker/docker.exe', 'docker/dockerd.exe'], 'rename': {}}
    assert containerd['checksum'] == ('sha256:https://github.com/containerd/containerd/releases/download/v2.2.7/'
                                      'containerd-2.2.7-windows-amd64.tar.gz.sha256sum')
    with pytest.raises(CatalogError, match="kubelet 1.33.99: checksum 'md5:abc' is not sha256:<64 hex>"):
        artifact_sources([install('kubelet', '1.33.99')], CATALOG, BASE_URLS, {'kubelet': {'1.33.99': 'md5:abc'}})


def test_a_base_url_name_missing_from_artifacts_base_urls_is_named():
    partial = {name: url for name, url in BASE_URLS.items() if name != 'cloudbase'}
    with pytest.raises(CatalogError, match="openvswitch: the template .* needs 'cloudbase', which artifacts_base_urls does not define"):
        artifact_sources([install('openvswitch', '2.7.0')], CATALOG, partial, {'openvswitch': {'2.7.0': PIN}})


def test_no_url_names_a_moving_branch_or_a_latest_alias():
    for base_urls in (BASE_URLS, MIRROR):
        for component, version in EVERY_VERSION:
            entry = CATALOG[component]
            [source] = artifact_sources([install(component, version)], CATALOG, base_urls, {component: {version: PIN}})
            for text in (entry['url'], entry.get('upstream_checksum', ''), source['url']):
                for moving in ('master', 'main/', 'latest', 'raw.githubusercontent.com'):
                    assert moving not in text, (component, text)
            assert '{version}' in entry['url'], component
            assert source['url'].startswith('https://'), source['url']


def test_every_extract_member_is_in_the_layout_the_simulated_web_serves():
    for base_urls in (BASE_URLS, MIRROR):
        for component, version in EVERY_VERSION:
            if not CATALOG[component].get('extract'):
                continue
            [source] = artifact_sources([install(component, version)], CATALOG, base_urls, {component: {version: PIN}})
            layouts = [members for pattern, members in web.KNOWN_LAYOUTS if re.search(pattern, source['url'])]
            assert layouts, 'no KNOWN_LAYOUTS entry serves %s' % source['url']
            missing = set(source['extract']['members']) - set(layouts[0])
            assert not missing, '%s lacks %s in the simulation' % (source['url'], missing)


def test_the_simulated_web_serves_every_upstream_hash_file_the_catalog_names(tmp_path):
    # As a playbook run has it: the catalog's web (a release's list of hashes, windows_exporter's sha256sums.txt, is
    # served by catalog_web; a hash file beside its artifact by the web itself).
    catalog_web.serve_catalog(str(tmp_path), str(ROOT))
    for component, version in EVERY_VERSION:
        if CATALOG[component]['versions'][version] or not CATALOG[component].get('upstream_checksum'):
            continue
        [source] = artifact_sources([install(component, version)], CATALOG, BASE_URLS)
        algorithm, unused_pin, hash_url = parse_checksum(source['checksum'])
        served = web.request(str(tmp_path), hash_url)
        text = served['text'] if 'text' in served else served['body'].decode('ascii')
        assert not text.startswith('kubewin-sim:'), 'the simulated web serves no hash file at %s' % hash_url
        expected = web.request(str(tmp_path), source['url'])[algorithm]
        assert parse_hash_file(text, algorithm, file_name(source['url'])) == expected


def test_artifact_versions_sorts_numerically_and_names_unknown_components():
    versions = {'1.10.0': None, '1.9.1-flannel1': None, '1.9.1': None, '0.3.2': None}
    catalog = {'x': {'url': 'https://e/{version}', 'versions': versions}}
    assert artifact_versions(catalog, 'x') == ['0.3.2', '1.9.1', '1.9.1-flannel1', '1.10.0']
    with pytest.raises(CatalogError, match="no component 'y' in the artifact catalog; it has: x"):
        artifact_versions(catalog, 'y')


def test_the_filters_in_jinja():
    sources = render('{{ installs | kubewin.node.artifact_sources(catalog, base_urls, {}) }}',
                     installs=[install('flannel-cni', '1.9.1-flannel1', 'C:\\opt\\cni\\bin')], catalog=CATALOG,
                     base_urls=BASE_URLS)
    assert sources == [{
        'component': 'flannel-cni', 'version': '1.9.1-flannel1', 'dest': 'C:\\opt\\cni\\bin',
        'url': 'https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel1/'
               'cni-plugin-flannel-windows-amd64-v1.9.1-flannel1.tgz',
        'checksum': 'sha256:https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel1/'
                    'cni-plugin-flannel-windows-amd64-v1.9.1-flannel1.tgz.sha256',
        'extract': {'members': ['flannel-amd64.exe'], 'rename': {'flannel-amd64.exe': 'flannel.exe'}}}]
    assert render("{{ catalog | kubewin.node.artifact_versions('docker') }}", catalog=CATALOG) == ['27.5.1', '28.5.2', '29.5.3']
    with pytest.raises(AnsibleError, match='flanneld 0.28.9 has no pinned checksum'):
        render("{{ [{'component': 'flanneld', 'version': '0.28.9', 'dest': 'C:/k'}]"
               " | kubewin.node.artifact_sources(catalog, base_urls) }}", catalog=CATALOG, base_urls=BASE_URLS)
    with pytest.raises(AnsibleError, match=r"artifact install .* lacks dest"):
        render("{{ [{'component': 'kubelet', 'version': '1.33.13'}] | kubewin.node.artifact_sources(catalog, base_urls) }}",
               catalog=CATALOG, base_urls=BASE_URLS)
