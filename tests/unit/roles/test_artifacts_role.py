"""The artifacts role installs components from the catalog on a simulated node, verified, and refuses what it cannot verify."""

import hashlib
from pathlib import Path

import yaml

from kubewin_sim import web

ROOT = Path(__file__).resolve().parents[3]
CATALOG = yaml.safe_load((ROOT / 'roles' / 'artifacts' / 'vars' / 'main.yml').read_text(encoding='utf-8'))['artifacts_catalog']
SDN_CNI = ('https://github.com/microsoft/windows-container-networking/releases/download/v0.3.3/'
           'windows-container-networking-cni-amd64-v0.3.3.zip')
FLANNELD = 'https://github.com/flannel-io/flannel/releases/download/v0.28.9/flanneld.exe'

PLAYBOOK = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: components
      ansible.builtin.include_role:
        name: kubewin.node.artifacts
      vars:
        artifacts_install: {install}
        artifacts_checksum_overrides: {overrides}
        artifacts_install_sources: {sources}
'''

INSTALL = [
    {'component': 'kubelet', 'version': '1.33.13', 'dest': 'C:\\k\\kubelet.exe'},
    {'component': 'containerd', 'version': 'v2.2.7', 'dest': 'C:\\Program Files\\containerd'},
    {'component': 'sdn-cni', 'version': '0.3.3', 'dest': 'C:\\opt\\cni\\bin'},
    {'component': 'flannel-cni', 'version': '1.9.1-flannel1', 'dest': 'C:\\opt\\cni\\bin'},
    {'component': 'flanneld', 'version': '0.28.9', 'dest': 'C:\\k\\flanneld.exe'},
]


def playbook(sim, install, overrides, sources=()):
    return sim.write('artifacts.yml', PLAYBOOK.format(**{name: yaml.safe_dump(value, default_flow_style=True).strip()
                                                         for name, value in (('install', install), ('overrides', overrides),
                                                                             ('sources', list(sources)))}))


def test_catalog_components_install_verified_then_nothing_to_do(sim, one_node):
    # The simulation wrapper makes the pinned zip serve what upstream serves (the bytes the pin
    # describes, kubewin_sim/catalog_web.py); nothing here declares it.
    overrides = {'flanneld': {'0.28.9': 'sha256:' + hashlib.sha256(web.body(FLANNELD)).hexdigest()}}
    book = playbook(sim, INSTALL, overrides)
    run = sim.run(book, one_node)
    assert run.rc == 0, run.output
    node = sim.node('win1')
    for path in ('C:\\k\\kubelet.exe', 'C:\\Program Files\\containerd\\containerd.exe',
                 'C:\\Program Files\\containerd\\containerd-shim-runhcs-v1.exe', 'C:\\Program Files\\containerd\\ctr.exe',
                 'C:\\opt\\cni\\bin\\sdnbridge.exe', 'C:\\opt\\cni\\bin\\sdnoverlay.exe', 'C:\\opt\\cni\\bin\\flannel.exe',
                 'C:\\k\\flanneld.exe'):
        assert node.file(path), path
    assert node.file('C:\\k\\flanneld.exe')['sha256'] == overrides['flanneld']['0.28.9'].split(':', 1)[1]
    again = sim.run(book, one_node)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'decided from the snapshot: no download'


def test_a_pinned_artifact_that_differs_is_not_installed(sim, one_node):
    # A zip re-uploaded upstream under the same name: the pin catches it.
    reuploaded = hashlib.sha256(b're-uploaded ' + web.body(SDN_CNI)).hexdigest()
    assert 'sha256:' + reuploaded != CATALOG['sdn-cni']['versions']['0.3.3']
    web.configure(sim.state_dir, served={SDN_CNI: {'sha256': reuploaded, 'size': 4242}})
    run = sim.run(playbook(sim, [INSTALL[2]], {}), one_node)
    assert run.rc != 0
    assert 'checksum mismatch for %s' % SDN_CNI in run.output
    assert not sim.node('win1').file('C:\\opt\\cni\\bin\\sdnbridge.exe')


def test_unverifiable_and_unknown_versions_are_refused_before_any_download(sim, one_node):
    run = sim.run(playbook(sim, [INSTALL[4]], {}), one_node)
    assert run.rc != 0 and 'flanneld 0.28.9 has no pinned checksum and upstream publishes no hash file' in run.output
    unknown = [{'component': 'kubelet', 'version': '1.33.99', 'dest': 'C:\\k\\kubelet.exe'}]
    run = sim.run(playbook(sim, unknown, {}), one_node)
    assert run.rc != 0 and 'kubelet 1.33.99 is not in the artifact catalog (known: 1.29.15,' in run.output
    assert run.calls['win1']['total'] == 1, 'only the snapshot reached the node'
    assert not sim.node('win1').file('C:\\k\\kubelet.exe')


def test_files_given_by_url_install_with_the_catalogs_in_one_call(sim, one_node):
    # artifacts_install_sources: a file the catalog does not know (the kubelet role's credential providers given by
    # url), pinned by whoever names it, installed in the same artifact_batch call as the catalog's components.
    digest = hashlib.sha256(web.body(FLANNELD)).hexdigest()
    provider = {'name': 'credential provider acr', 'url': FLANNELD, 'checksum': 'sha256:' + digest,
                'dest': 'C:\\k\\credential-provider\\acr-credential-provider.exe'}
    book = playbook(sim, [INSTALL[0]], {}, [provider])
    run = sim.run(book, one_node)
    assert run.rc == 0, run.output
    assert run.calls['win1']['by_kind'].get('win_powershell:artifact_fetch') == 1, run.calls['win1']
    node = sim.node('win1')
    assert node.file(provider['dest'])['sha256'] == digest and node.file('C:\\k\\kubelet.exe')
    again = sim.run(book, one_node)
    assert again.rc == 0 and again.changed('win1') == 0 and again.calls['win1']['total'] == 1, again.output
    provider['checksum'] = 'sha256:' + '1' * 64
    wrong = sim.run(playbook(sim, [], {}, [provider]), one_node)
    assert wrong.rc != 0 and 'checksum' in wrong.output
