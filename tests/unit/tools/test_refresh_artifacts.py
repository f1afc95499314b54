# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""tools/refresh_artifacts.py on a copy of the catalog, its HTTP layer replaced by a fake (and once by a loopback server)."""

from __future__ import annotations

import hashlib
import http.server
import importlib.util
import io
import shutil
import socket
import sys
import threading
import urllib.error
from unittest import mock
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
VARS = ROOT / 'roles' / 'artifacts' / 'vars' / 'main.yml'
DEFAULTS = ROOT / 'roles' / 'artifacts' / 'defaults' / 'main.yml'

_spec = importlib.util.spec_from_file_location('refresh_artifacts', ROOT / 'tools' / 'refresh_artifacts.py')
tool = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = tool  # dataclasses look their module up
_spec.loader.exec_module(tool)


def digest(data, algorithm='sha256'):
    return hashlib.new(algorithm, data if isinstance(data, bytes) else data.encode()).hexdigest()


class FakeWeb:
    """Serves a hash file for every .sha256/.sha256sum/.sha512 URL and bytes for everything else, as upstream would."""

    def __init__(self, hash_files=None, missing=()):
        self.hash_files = dict(hash_files or {})
        self.missing = set(missing)
        self.calls = []

    def _check(self, url):
        self.calls.append(url)
        if url in self.missing:
            raise tool.artifacts.DownloadError('%s: HTTP 404 Not Found' % url, transient=False)

    def text(self, url):
        self._check(url)
        if url in self.hash_files:
            return self.hash_files[url]
        for suffix, algorithm in (('.sha256sum', 'sha256'), ('.sha256', 'sha256'), ('.sha512', 'sha512')):
            if url.endswith(suffix):
                artifact = url[:-len(suffix)]
                return '%s  %s\n' % (digest(artifact, algorithm), artifact.rsplit('/', 1)[1])
        raise AssertionError('not a hash file: %s' % url)

    def digest(self, url, algorithm):
        self._check(url)
        return digest(url, algorithm)


@pytest.fixture(name='catalog_file')
def fixture_catalog_file(tmp_path):
    copy = tmp_path / 'main.yml'
    shutil.copy(VARS, copy)
    return copy


def run(catalog_file, *args, web=None):
    out, err = io.StringIO(), io.StringIO()
    rc = tool.main(['--vars', str(catalog_file), '--defaults', str(DEFAULTS), *args], fetcher=web or FakeWeb(), out=out, err=err)
    return rc, out.getvalue(), err.getvalue()


def catalog_of(path):
    return yaml.safe_load(path.read_text(encoding='utf-8'))['artifacts_catalog']


def changed_lines(before, after):
    return [(old, new) for old, new in zip(before.splitlines(), after.splitlines()) if old != new]


def test_pins_from_upstream_hash_files_touch_only_those_version_lines(catalog_file):
    before = catalog_file.read_text(encoding='utf-8')
    web = FakeWeb()
    rc, out, err = run(catalog_file, 'kubelet', 'containerd=2.2.7', web=web)
    assert rc == 0 and not err, out + err
    after = catalog_file.read_text(encoding='utf-8')
    assert len(after.splitlines()) == len(before.splitlines())
    changes = changed_lines(before, after)
    assert [change[0] for change in changes] == ['      "%s": null' % v for v in catalog_of(VARS)['kubelet']['versions']] + [
        '      "2.2.7": null']
    catalog = catalog_of(catalog_file)
    url = 'https://dl.k8s.io/release/v1.33.13/bin/windows/amd64/kubelet.exe'
    assert catalog['kubelet']['versions']['1.33.13'] == 'sha256:' + digest(url)
    tarball = 'https://github.com/containerd/containerd/releases/download/v2.2.7/containerd-2.2.7-windows-amd64.tar.gz'
    assert catalog['containerd']['versions']['2.2.7'] == 'sha256:' + digest(tarball)
    assert catalog['containerd']['versions']['2.3.4'] is None
    assert tarball + '.sha256sum' in web.calls and url + '.sha256' in web.calls
    assert not [call for call in web.calls if not call.endswith(('.sha256', '.sha256sum'))], 'no artifact was downloaded'
    assert 'kubelet 1.33.13: pinned sha256:%s (from %s.sha256)' % (digest(url), url) in out
    # Everything else, comments included, is as it was.
    assert [line for line in before.splitlines() if line.lstrip().startswith('#')] == \
        [line for line in after.splitlines() if line.lstrip().startswith('#')]
    for component in set(catalog) - {'kubelet', 'containerd'}:
        assert catalog[component] == catalog_of(VARS)[component]


def test_a_second_run_changes_nothing_and_fetches_nothing(catalog_file):
    assert run(catalog_file, 'kubelet', 'crictl')[0] == 0
    pinned = catalog_file.read_text(encoding='utf-8')
    web = FakeWeb()
    rc, out, unused_err = run(catalog_file, 'kubelet', 'crictl', web=web)
    assert rc == 0 and catalog_file.read_text(encoding='utf-8') == pinned
    assert web.calls == [] and 'wrote' not in out and 'crictl 1.36.0: pinned already' in out


def test_new_versions_are_added_in_order(catalog_file):
    rc, out, unused_err = run(catalog_file, 'kubelet=1.33.14,v1.28.15,1.38.0', 'flannel-cni=1.8.0-flannel2')
    assert rc == 0, out
    lines = catalog_file.read_text(encoding='utf-8').splitlines()
    block = lines[lines.index('    versions:', lines.index('  kubelet:')) + 1:lines.index('  kube-proxy:')]
    assert [line.split('"')[1] for line in block] == ['1.28.15', '1.29.15', '1.30.14', '1.31.14', '1.32.13', '1.33.13',
                                                      '1.33.14', '1.34.11', '1.35.8', '1.36.4', '1.37.0', '1.38.0']
    catalog = catalog_of(catalog_file)
    assert catalog['kubelet']['versions']['1.33.13'] is None, 'only the versions named were touched'
    assert list(catalog['flannel-cni']['versions']) == ['1.6.2-flannel1', '1.7.1-flannel1', '1.8.0-flannel2', '1.9.1-flannel1']
    assert 'kubelet 1.38.0: added as sha256:' in out


def test_update_text_keeps_comments_quotes_and_the_final_newline():
    text = ('---\n# head\nartifacts_catalog:\n  a:\n    url: "https://e/{version}"\n    versions:\n'
            "      # oldest first\n      '1.0.0': null  # kept\n      \"2.0.0\": null\n  b:\n    versions:\n"
            'other_var: 1\n')
    pins = {('a', '1.0.0'): 'sha256:' + 'a' * 64, ('a', '1.5.0'): 'sha256:' + 'b' * 64, ('b', '0.1'): 'sha256:' + 'c' * 64}
    updated = tool.update_text(text, pins)
    assert updated == ('---\n# head\nartifacts_catalog:\n  a:\n    url: "https://e/{version}"\n    versions:\n'
                       '      # oldest first\n      "1.0.0": "sha256:%s"  # kept\n      "1.5.0": "sha256:%s"\n'
                       '      "2.0.0": null\n  b:\n    versions:\n      "0.1": "sha256:%s"\nother_var: 1\n'
                       % ('a' * 64, 'b' * 64, 'c' * 64))
    assert tool.update_text(updated, pins) == updated
    with pytest.raises(tool.RefreshError, match='no versions: block for c'):
        tool.update_text(text, {('c', '1'): 'sha256:' + 'a' * 64})
    with pytest.raises(tool.RefreshError, match='one \'"<version>": <value>\' line each'):
        tool.update_text('artifacts_catalog:\n  a:\n    versions: {"1": null}\n', pins)


def test_without_an_upstream_hash_file_nothing_is_pinned_unless_the_download_is_trusted(catalog_file):
    before = catalog_file.read_text(encoding='utf-8')
    web = FakeWeb()
    rc, out, err = run(catalog_file, 'flanneld=0.28.9', 'openvswitch', web=web)
    assert rc == 0 and web.calls == [] and catalog_file.read_text(encoding='utf-8') == before
    assert 'flanneld 0.28.9: skipped, upstream publishes no hash file' in out and not err
    rc, out, err = run(catalog_file, 'flanneld=0.28.9', '--trust-download', web=web)
    url = 'https://github.com/flannel-io/flannel/releases/download/v0.28.9/flanneld.exe'
    assert rc == 0 and web.calls == [url]
    assert catalog_of(catalog_file)['flanneld']['versions']['0.28.9'] == 'sha256:' + digest(url)
    assert err.startswith('WARNING: flanneld 0.28.9: upstream publishes no hash file; pinning sha256 of what %s' % url)


def test_verify_reports_a_pin_upstream_no_longer_matches_and_changes_nothing(catalog_file):
    before = catalog_file.read_text(encoding='utf-8')
    pinned = catalog_of(VARS)['docker']['versions']['29.5.3']
    url = 'https://download.docker.com/win/static/stable/x86_64/docker-29.5.3.zip'
    rc, out, unused_err = run(catalog_file, 'docker=29.5.3', '--verify')
    assert rc == 1 and catalog_file.read_text(encoding='utf-8') == before
    assert 'docker 29.5.3: MISMATCH: pinned %s, but %s gives sha256:%s; not changed' % (pinned, url, digest(url)) in out

    class Matching(FakeWeb):
        def digest(self, url, algorithm):
            self._check(url)
            return pinned.split(':', 1)[1]
    rc, out, unused_err = run(catalog_file, 'docker=29.5.3', '--verify', web=Matching())
    assert rc == 0 and 'docker 29.5.3: pin matches %s' % url in out


def test_a_failed_hash_file_is_reported_and_the_others_are_still_pinned(catalog_file):
    bad = 'https://github.com/kubernetes-sigs/cri-tools/releases/download/v1.35.0/crictl-v1.35.0-windows-amd64.tar.gz.sha256'
    gone = 'https://github.com/kubernetes-sigs/cri-tools/releases/download/v1.36.0/crictl-v1.36.0-windows-amd64.tar.gz.sha256'
    web = FakeWeb(hash_files={bad: '<html>rate limited</html>\n'}, missing=[gone])
    rc, out, unused_err = run(catalog_file, 'crictl', web=web)
    assert rc == 1
    assert 'crictl 1.35.0: FAILED: the hash file holds no sha256 for crictl-v1.35.0-windows-amd64.tar.gz' in out
    assert 'crictl 1.36.0: FAILED: %s: HTTP 404 Not Found' % gone in out
    versions = catalog_of(catalog_file)['crictl']['versions']
    assert versions['1.35.0'] is None and versions['1.36.0'] is None and versions['1.34.0'].startswith('sha256:')


def test_dry_run_prints_the_diff_and_writes_nothing(catalog_file):
    before = catalog_file.read_text(encoding='utf-8')
    rc, out, unused_err = run(catalog_file, 'kubectl=1.37.0', '--dry-run')
    assert rc == 0 and catalog_file.read_text(encoding='utf-8') == before
    url = 'https://dl.k8s.io/release/v1.37.0/bin/windows/amd64/kubectl.exe'
    assert '-      "1.37.0": null\n+      "1.37.0": "sha256:%s"\n' % digest(url) in out


def test_mirror_base_urls_and_bad_targets(catalog_file):
    web = FakeWeb()
    rc, unused_out, unused_err = run(catalog_file, 'kubeadm=1.36.4', '--base-url', 'kubernetes=https://mirror.example.internal/k8s/', web=web)
    assert rc == 0 and web.calls == ['https://mirror.example.internal/k8s/release/v1.36.4/bin/windows/amd64/kubeadm.exe.sha256']
    rc, unused_out, err = run(catalog_file, 'kubelett')
    assert rc == 1 and "no component 'kubelett' in the catalog; it has: cni-plugins" in err
    rc, unused_out, err = run(catalog_file, 'kubeadm', '--base-url', 'kubernetes')
    assert rc == 1 and "--base-url takes NAME=URL, not 'kubernetes'" in err


class _Handler(http.server.BaseHTTPRequestHandler):
    files = {}

    def do_GET(self):  # noqa: N802 (http.server's naming)
        body = self.files.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header('Content-Length', str(len(body or b'')))
        self.end_headers()
        self.wfile.write(body or b'')

    def log_message(self, *args):
        pass


def test_the_http_fetcher_against_a_loopback_server():
    payload = b'flanneld.exe bytes' * 1000
    _Handler.files = {'/flanneld.exe': payload, '/flanneld.exe.sha256': ('%s\n' % digest(payload)).encode()}
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = 'http://127.0.0.1:%d' % server.server_address[1]
        fetcher = tool.HttpFetcher(retries=0, timeout=10)
        assert fetcher.text(base + '/flanneld.exe.sha256').strip() == digest(payload)
        assert fetcher.digest(base + '/flanneld.exe', 'sha512') == digest(payload, 'sha512')
        with pytest.raises(tool.artifacts.DownloadError, match='HTTP 404'):
            fetcher.text(base + '/missing.sha256')
    finally:
        server.shutdown()


def test_without_name_resolution_the_run_stops_at_the_first_url():
    # No network: the first name that does not resolve ends the run at once, without retries, instead of every URL
    # failing after its five attempts (34 minutes over the catalog).
    calls = []

    def unresolvable(url, destination, retries, timeout, proxy=None, sleep=None, retry_unresolved=True):
        calls.append((url, retry_unresolved))
        raise tool.artifacts.DownloadError('%s: [Errno -3] Temporary failure in name resolution' % url, True, True)

    with mock.patch.object(tool.artifacts, 'download', unresolvable):
        out, err = io.StringIO(), io.StringIO()
        status = tool.main(['kubelet', 'containerd', '--dry-run'], out=out, err=err)
    assert status == 1
    assert len(calls) == 1 and calls[0][1] is False
    assert 'stopped: a server name does not resolve (no network?);' in out.getvalue()


def test_a_name_that_does_not_resolve_is_marked_as_such(tmp_path):
    # What urllib raises when getaddrinfo fails (no resolver is asked here: open_url is replaced).
    unresolved = urllib.error.URLError(socket.gaierror(-3, 'Temporary failure in name resolution'))
    refused = urllib.error.URLError(ConnectionRefusedError(111, 'Connection refused'))
    for error, expected in ((unresolved, True), (refused, False)):
        with mock.patch.object(tool.artifacts, 'open_url', side_effect=error):
            with pytest.raises(tool.artifacts.DownloadError) as failed:
                tool.artifacts.download('https://example.test/file', str(tmp_path / 'file'), retries=0, timeout=5)
        assert failed.value.unresolved is expected and failed.value.transient
