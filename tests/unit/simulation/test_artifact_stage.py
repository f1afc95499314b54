"""artifact_stage.ps1 whole in the engine, over the simulated web (kubewin_sim/web.py): every artifact of a node
downloaded and verified into C:\\k\\staging\\<hash>\\<file name> before anything on the node changes; a wrong hash
fails naming the URL and both hashes, with nothing staged; what is staged is not downloaded again."""

import hashlib
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim import web  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import filesystem, run_on_node  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402  pylint: disable=wrong-import-position

BASE = 'https://downloads.example.invalid'
FLANNELD = BASE + '/flannel/v0.28.4/flanneld.exe'
KUBELET = BASE + '/v1.31.0/bin/windows/amd64/kubelet.exe'
STAGING = 'C:\\k\\staging'


@pytest.fixture(name='web_dir')
def _web_dir(tmp_path, monkeypatch):
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', str(tmp_path))
    return str(tmp_path)


def sha256(url):
    return hashlib.sha256(web.body(url)).hexdigest()


def pinned(url, checksum=None):
    return {'url': url, 'algorithm': 'sha256', 'checksum': checksum or sha256(url), 'name': url.rsplit('/', 1)[-1]}


def from_hash_file(url):
    return {'url': url, 'algorithm': 'sha256', 'checksum_url': url + '.sha256', 'name': url.rsplit('/', 1)[-1]}


def stage(node, artifacts, check_mode=False):
    """Run the real script; (result, None) or (None, the failure message)."""
    result = invoke(node, _pwsh.load_script('artifact_stage'), {'StagingDir': STAGING, 'Artifacts': artifacts},
                    check_mode=check_mode)
    if result['failed']:
        return None, result['error'][-1]['exception']['message']
    return _contracts.check('artifact_stage', json.loads(result['result'])), None


def staged_files(node):
    """The files under the staging folder but its index, with their SHA-256 as the model holds them."""
    found = {}
    for entry in filesystem.tree(node).values():
        if entry['path'].lower().startswith(STAGING.lower() + '\\') and not entry['dir'] \
                and not entry['path'].endswith('index.json'):
            found[entry['path']] = hashlib.sha256(filesystem.content_bytes(entry)).hexdigest()
    return found


def profile(node, path):
    """The ACL profile lib/files.ps1 reads on ``path``."""
    with open(os.path.join(_pwsh.SCRIPT_DIR, 'lib', 'files.ps1'), encoding='utf-8') as handle:
        files = handle.read()
    return run_on_node(node, files + "\nGet-KubeWinAclProfile -Path '%s'" % path).output[-1]


def test_every_artifact_is_downloaded_verified_into_a_folder_named_by_its_hash(web_dir):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    result, failure = stage(node, [pinned(FLANNELD), from_hash_file(KUBELET)])
    assert failure is None
    flanneld = '%s\\%s\\flanneld.exe' % (STAGING, sha256(FLANNELD))
    kubelet = '%s\\%s\\kubelet.exe' % (STAGING, sha256(KUBELET))
    assert [(item['url'], item['state'], item['path'], item['sha']) for item in result['artifacts']] == [
        (FLANNELD, 'downloaded', flanneld, sha256(FLANNELD)), (KUBELET, 'downloaded', kubelet, sha256(KUBELET))]
    assert staged_files(node) == {flanneld: sha256(FLANNELD), kubelet: sha256(KUBELET)}
    assert web.requests(web_dir) == [FLANNELD, KUBELET + '.sha256', KUBELET]
    # Only SYSTEM and Administrators may read the staging folder (lib/files.ps1's secret profile).
    assert profile(node, STAGING) == 'secret'


def test_what_is_staged_is_not_downloaded_again_nor_its_hash_file(web_dir):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    artifacts = [pinned(FLANNELD), from_hash_file(KUBELET)]
    stage(node, artifacts)
    before = len(web.requests(web_dir))
    result, failure = stage(node, artifacts)
    assert failure is None
    assert [item['state'] for item in result['artifacts']] == ['present', 'present']
    assert web.requests(web_dir)[before:] == []


def test_a_wrong_pin_fails_naming_the_url_and_both_hashes_and_stages_nothing(web_dir):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    wrong = 'ab' * 32
    result, failure = stage(node, [pinned(FLANNELD, wrong), from_hash_file(KUBELET)])
    assert result is None
    assert ('checksum mismatch for %s: expected sha256 %s, got %s' % (FLANNELD, wrong, sha256(FLANNELD))) in failure
    # The other artifact was staged all the same: the corrected re-run downloads only the one that failed.
    assert staged_files(node) == {'%s\\%s\\kubelet.exe' % (STAGING, sha256(KUBELET)): sha256(KUBELET)}
    assert not [key for key in filesystem.tree(node) if '.kubewin-download-' in key]
    before = len(web.requests(web_dir))
    result, failure = stage(node, [pinned(FLANNELD), from_hash_file(KUBELET)])
    assert failure is None
    assert web.requests(web_dir)[before:] == [FLANNELD]


def test_check_mode_predicts_from_the_hash_and_downloads_nothing(web_dir):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    stage(node, [pinned(FLANNELD)])
    before = len(web.requests(web_dir))
    result, failure = stage(node, [pinned(FLANNELD), from_hash_file(KUBELET)], check_mode=True)
    assert failure is None
    assert [item['state'] for item in result['artifacts']] == ['present', 'pending']
    assert web.requests(web_dir)[before:] == []
    assert list(staged_files(node)) == ['%s\\%s\\flanneld.exe' % (STAGING, sha256(FLANNELD))]


def test_folders_of_artifacts_no_longer_wanted_are_removed(web_dir):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    stage(node, [pinned(FLANNELD), pinned(KUBELET)])
    stage(node, [pinned(KUBELET)])
    assert list(staged_files(node)) == ['%s\\%s\\kubelet.exe' % (STAGING, sha256(KUBELET))]
