"""parse_hash_file on hash files in the formats upstream release sites publish (tests/unit/test_data/hash_files)."""

import hashlib
from pathlib import Path

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _artifacts
from ansible_collections.kubewin.node.plugins.plugin_utils._artifacts import ChecksumError, parse_hash_file

HASH_FILES = Path(__file__).resolve().parents[2] / 'test_data' / 'hash_files'


def recorded(name):
    return (HASH_FILES / name).read_text(encoding='utf-8')


def digest(text, algorithm='sha256'):
    # The fixtures hold the hash of the artifact's file name, so each expectation is computed, not copied.
    return hashlib.new(algorithm, text.encode()).hexdigest()


@pytest.mark.parametrize('fixture, algorithm, artifact', [
    # dl.k8s.io: the bare hash, without a file name or a newline.
    ('kubelet.exe.sha256', 'sha256', 'kubelet.exe'),
    # containerd: sha256sum in text mode, "<hash>  <name>".
    ('containerd-2.2.7-windows-amd64.tar.gz.sha256sum', 'sha256', 'containerd-2.2.7-windows-amd64.tar.gz'),
    # binary mode, "<hash> *<name>".
    ('crictl-v1.25.0-windows-amd64.tar.gz.sha256', 'sha256', 'crictl-v1.25.0-windows-amd64.tar.gz'),
    # shasum -a 512 of a relative path.
    ('windows-container-networking-cni-amd64-v0.3.1.zip.sha512', 'sha512', 'windows-container-networking-cni-amd64-v0.3.1.zip'),
    ('windows-container-networking-cni-amd64-v0.3.3.zip.sha256', 'sha256', 'windows-container-networking-cni-amd64-v0.3.3.zip'),
])
def test_single_artifact_hash_files(fixture, algorithm, artifact):
    text = recorded(fixture)
    assert parse_hash_file(text, algorithm, artifact) == digest(artifact, algorithm)
    # The same file written on Windows.
    assert parse_hash_file(text.replace('\n', '\r\n'), algorithm, artifact) == digest(artifact, algorithm)


def test_a_file_listing_several_artifacts_gives_the_one_asked_for():
    text = recorded('SHA256SUMS')
    for artifact in ('nerdctl-2.1.3-windows-amd64.tar.gz', 'nerdctl-2.1.3-linux-amd64.tar.gz'):
        assert parse_hash_file(text, 'sha256', artifact) == digest(artifact)
    with pytest.raises(ChecksumError, match='holds no sha256 for nerdctl-2.1.3-darwin-amd64.tar.gz'):
        parse_hash_file(text, 'sha256', 'nerdctl-2.1.3-darwin-amd64.tar.gz')


def test_a_named_hash_file_for_another_artifact_is_refused():
    with pytest.raises(ChecksumError, match='holds no sha256 for containerd-2.2.6-windows-amd64.tar.gz'):
        parse_hash_file(recorded('containerd-2.2.7-windows-amd64.tar.gz.sha256sum'), 'sha256',
                        'containerd-2.2.6-windows-amd64.tar.gz')


def test_the_wrong_algorithm_finds_nothing():
    with pytest.raises(ChecksumError, match='holds no sha512'):
        parse_hash_file(recorded('kubelet.exe.sha256'), 'sha512', 'kubelet.exe')
    with pytest.raises(ChecksumError, match='holds no sha256'):
        parse_hash_file(recorded('windows-container-networking-cni-amd64-v0.3.1.zip.sha512'), 'sha256',
                        'windows-container-networking-cni-amd64-v0.3.1.zip')


@pytest.mark.parametrize('text', [
    recorded('error-page.sha256'),
    '',
    'not a hash\n',
    digest('kubelet.exe')[:63] + '\n',
    # Two bare hashes: which one is meant cannot be told.
    digest('kubelet.exe') + '\n' + digest('kubectl.exe') + '\n',
])
def test_garbage_is_an_error(text):
    with pytest.raises(ChecksumError):
        parse_hash_file(text, 'sha256', 'kubelet.exe')


def test_a_name_that_only_ends_like_the_artifact_is_not_it():
    text = '%s  evil-kubelet.exe\n' % ('ab' * 32)
    with pytest.raises(ChecksumError):
        parse_hash_file(text, 'sha256', 'kubelet.exe')
    assert parse_hash_file('%s  ./bin/kubelet.exe\n' % ('cd' * 32), 'sha256', 'kubelet.exe') == 'cd' * 32


def test_the_proxy_parameters_keep_the_password_a_secret():
    # artifact and artifact_stage hand the download scripts the same proxy parameters; the password never goes
    # with the logged ones.
    assert _artifacts.proxy_parameters(None) == ({}, {})
    assert _artifacts.proxy_parameters({'url': 'http://proxy:3128', 'username': None, 'password': None}) == (
        {'Proxy': 'http://proxy:3128'}, {})
    assert _artifacts.proxy_parameters({'url': 'http://proxy:3128', 'username': 'svc', 'password': 's3cret'}) == (
        {'Proxy': 'http://proxy:3128', 'ProxyUsername': 'svc'}, {'ProxyPassword': 's3cret'})
