"""kubewin.node.artifact against a simulated node and a simulated (or loopback) web."""

import hashlib
import http.server
import re
import threading

import pytest

from kubewin_sim import web
from kubewin_sim.windows import filesystem

URL = 'https://dl.k8s.io/release/v1.31.4/bin/windows/amd64/kubelet.exe'
DEST = 'C:\\k\\kubelet.exe'
SHA = hashlib.sha256(web.body(URL)).hexdigest()

PLAYBOOK = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: kubelet
      kubewin.node.artifact:
        url: {url}
        dest: C:\\k\\kubelet.exe
        checksum: {checksum}
'''


def playbook(sim, checksum='sha256:' + SHA, url=URL, name='artifact.yml'):
    return sim.write(name, PLAYBOOK.format(url=url, checksum=checksum))


def installed(sim, path=DEST):
    entry = sim.node('win1').file(path)
    return entry and entry['sha256']


def test_check_apply_idempotent_check(sim, one_node):
    # At -v each run shows one line per artifact: what was (or would be) downloaded, its size, time and rate.
    inventory, book = one_node(), playbook(sim)
    check = sim.run(book, inventory, '--check', '-v')
    assert check.rc == 0 and check.result('kubelet', 'win1')['changed'], check.output
    assert check.result('kubelet', 'win1')['result']['download'] == {'file': 'kubelet.exe', 'status': 'pending'}
    assert '<win1> kubelet.exe: would be downloaded (check mode)' in check.output
    assert installed(sim) is None
    run = sim.run(book, inventory, '-v')
    assert run.rc == 0, run.output
    assert installed(sim) == SHA and sim.node('win1').file(DEST)['acl'] == 'protected'
    assert run.result('kubelet', 'win1')['result']['attempts'] == 1
    download = run.result('kubelet', 'win1')['result']['download']
    assert (download['status'], download['bytes'], download['attempts']) == ('downloaded', len(web.body(URL)), 1)
    assert re.search(r'^<win1> kubelet\.exe: %d B in %.1f s' % (len(web.body(URL)), download['seconds']), run.output,
                     re.MULTILINE), run.output
    again = sim.run(book, inventory, '-v')
    assert again.rc == 0 and again.changed('win1') == 0
    assert again.calls['win1']['total'] == 1, 'decided from the snapshot: no call, no download'
    assert again.result('kubelet', 'win1')['result']['download'] == {'file': 'kubelet.exe', 'status': 'present'}
    assert '<win1> kubelet.exe: already in place, verified by its hash; not downloaded' in again.output
    assert sim.run(book, inventory, '--check').changed('win1') == 0


def test_the_record_names_the_release_and_a_record_of_another_release_is_installed_again(sim, one_node):
    inventory = one_node()
    assert sim.run(playbook(sim), inventory).rc == 0
    assert 'version' not in sim.node('win1').managed_registry()['artifacts'][DEST]
    versioned = sim.write('versioned.yml', (PLAYBOOK + '        version: 1.31.4\n').format(url=URL, checksum='sha256:' + SHA))
    run = sim.run(versioned, inventory)
    assert run.rc == 0 and run.result('kubelet', 'win1')['changed'], 'a record without the release is renewed'
    assert run.result('kubelet', 'win1')['result']['version'] == '1.31.4'
    assert sim.node('win1').managed_registry()['artifacts'][DEST]['version'] == '1.31.4'
    again = sim.run(versioned, inventory)
    assert again.rc == 0 and again.changed('win1') == 0 and again.calls['win1']['total'] == 1
    # The snapshot reports the record with its release, which the upgrade decision reads.
    snapshot = again.result('snapshot', 'win1')['result']['ansible_facts']['kubewin_node']
    assert snapshot['artifacts'][DEST]['version'] == '1.31.4'


def test_upstream_hash_file_and_sha512(sim, one_node):
    inventory = one_node()
    for checksum in ('sha256:%s.sha256' % URL, 'sha512:%s' % hashlib.sha512(web.body(URL)).hexdigest()):
        run = sim.run(playbook(sim, checksum), inventory)
        assert run.rc == 0, run.output
        assert installed(sim) == SHA
        assert sim.run(playbook(sim, checksum), inventory).calls['win1']['total'] == 1


def test_corrupted_download_fails_and_keeps_the_previous_file(sim, one_node):
    inventory = one_node()
    assert sim.run(playbook(sim), inventory).rc == 0
    new_url = URL.replace('v1.31.4', 'v1.31.5')
    web.configure(sim.state_dir, faults={new_url: ['corrupt']})
    run = sim.run(playbook(sim, 'sha256:' + hashlib.sha256(web.body(new_url)).hexdigest(), new_url), inventory)
    assert run.rc != 0
    message = run.result('kubelet', 'win1')['result']['msg']
    assert 'checksum mismatch for %s' % new_url in message
    assert hashlib.sha256(web.body(new_url)).hexdigest() in message
    assert installed(sim) == SHA, 'the old kubelet stays'


def test_truncated_existing_file_is_replaced(sim, one_node):
    inventory = one_node()
    assert sim.run(playbook(sim), inventory).rc == 0
    with sim.edit_node('win1') as node:
        node.write_file(DEST, sha256=hashlib.sha256(b'kubewin').hexdigest(), size=7, acl='protected')
    run = sim.run(playbook(sim), inventory)
    assert run.rc == 0 and run.result('kubelet', 'win1')['changed'], run.output
    assert installed(sim) == SHA


def test_transient_failures_are_retried_then_give_up(sim, one_node):
    inventory = one_node()
    web.configure(sim.state_dir, faults={URL: ['503', '503', '200']})
    run = sim.run(playbook(sim), inventory)
    assert run.rc == 0, run.output
    assert run.result('kubelet', 'win1')['result']['attempts'] == 3

    other = URL.replace('kubelet', 'kube-proxy')
    web.configure(sim.state_dir, faults={other: ['503'] * 10})
    failed = sim.run(playbook(sim, 'sha256:' + hashlib.sha256(web.body(other)).hexdigest(), other), inventory)
    assert failed.rc != 0
    assert 'failed (HTTP 503) after 5 attempts' in failed.result('kubelet', 'win1')['result']['msg']


def test_not_found_fails_at_once(sim, one_node):
    inventory = one_node()
    web.configure(sim.state_dir, faults={URL: ['404', '200']})
    run = sim.run(playbook(sim), inventory)
    assert run.rc != 0
    assert 'failed (HTTP 404); not retried' in run.result('kubelet', 'win1')['result']['msg']


def test_no_checksum_is_refused_unless_opted_out(sim, one_node):
    inventory = one_node()
    refused = sim.write('none.yml', PLAYBOOK.replace('        checksum: {checksum}\n', '').format(url=URL))
    run = sim.run(refused, inventory)
    assert run.rc != 0 and 'no checksum for %s' % URL in run.result('kubelet', 'win1')['result']['msg']
    assert run.calls['win1']['total'] == 1, 'refused before the module contacted the node'
    opted = sim.write('opt.yml', PLAYBOOK.replace('checksum: {checksum}', 'skip_checksum: true').format(url=URL))
    assert sim.run(opted, inventory).rc == 0
    assert installed(sim) == SHA


@pytest.mark.parametrize('checksum', ['md5:abc', 'sha256:abc', 'sha256:ftp://x/y'])
def test_bad_checksums_are_explained(sim, one_node, checksum):
    run = sim.run(playbook(sim, checksum), one_node())
    assert run.rc != 0 and 'checksum' in run.result('kubelet', 'win1')['result']['msg']


ARCHIVE = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: flannel cni
      kubewin.node.artifact:
        url: https://github.com/flannel-io/cni-plugin/releases/download/v1.6.2-flannel1/cni-plugin-flannel-windows-amd64-v1.6.2-flannel1.tgz
        checksum: sha256:https://github.com/flannel-io/cni-plugin/releases/download/v1.6.2-flannel1/cni-plugin-flannel-windows-amd64-v1.6.2-flannel1.tgz.sha256
        dest: C:\\opt\\cni\\bin
        extract:
          members: [{members}]
          rename:
            flannel-amd64.exe: flannel.exe
'''


def test_archive_members_are_installed_renamed_and_missing_ones_named(sim, one_node):
    inventory = one_node()
    run = sim.run(sim.write('a.yml', ARCHIVE.format(members='flannel-amd64.exe')), inventory)
    assert run.rc == 0, run.output
    assert installed(sim, 'C:\\opt\\cni\\bin\\flannel.exe')
    assert sim.run(sim.write('a.yml', ARCHIVE.format(members='flannel-amd64.exe')), inventory).changed('win1') == 0
    missing = sim.run(sim.write('b.yml', ARCHIVE.format(members='flannel-amd64.exe, host-local.exe')), inventory)
    assert missing.rc != 0
    assert 'does not contain: host-local.exe' in missing.result('flannel cni', 'win1')['result']['msg']


class _Handler(http.server.BaseHTTPRequestHandler):
    payload = b'kubelet binary bytes' * 1000
    hits = []

    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header('Content-Length', str(len(self.payload)))
        self.end_headers()
        self.wfile.write(self.payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def loopback_server():
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Handler.hits.clear()
    yield 'http://127.0.0.1:%d' % server.server_address[1]
    server.shutdown()


def test_controller_source_downloads_once_and_pushes(sim, one_node, loopback_server, tmp_path):
    url = loopback_server + '/kubelet.exe'
    digest = hashlib.sha256(_Handler.payload).hexdigest()
    book = sim.write('c.yml', '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: kubelet
      kubewin.node.artifact:
        url: %s
        dest: C:\\k\\kubelet.exe
        checksum: sha256:%s
        source: controller
        cache_dir: %s
''' % (url, digest, tmp_path / 'cache'))
    inventory = one_node()
    run = sim.run(book, inventory)
    assert run.rc == 0, run.output
    assert installed(sim) == digest
    assert run.calls['win1']['by_kind'].get('put_file') == 1
    assert _Handler.hits == ['/kubelet.exe']
    download = run.result('kubelet', 'win1')['result']['download']
    assert (download['status'], download['bytes'], download['attempts']) == ('downloaded', len(_Handler.payload), 1)
    assert download['seconds'] >= 0 and download['copy_seconds'] >= 0
    with sim.edit_node('win1') as node:
        node.remove_file(DEST)
    again = sim.run(book, inventory, '-v')
    assert again.rc == 0
    assert _Handler.hits == ['/kubelet.exe'], 'the controller cache served the second push'
    cached = again.result('kubelet', 'win1')['result']['download']
    assert (cached['status'], cached['bytes'], 'seconds' in cached) == ('cached', len(_Handler.payload), False)
    assert "<win1> kubelet.exe: 19.5 KiB from the controller's cache; copied to the node in" in again.output


def test_a_batch_from_the_controller_copies_each_file_and_installs_them_in_one_call(sim, one_node, loopback_server,
                                                                                    tmp_path):
    # kubewin.node.artifact_batch with source=controller: a copy per file (numbered in one temporary folder), then
    # one artifact_fetch.ps1 run for both; a second push is served by the controller's cache.
    digest = hashlib.sha256(_Handler.payload).hexdigest()
    book = sim.write('batch.yml', '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: binaries
      kubewin.node.artifact_batch:
        source: controller
        cache_dir: %s
        artifacts:
          - {name: kubelet, url: "%s/kubelet.exe", dest: 'C:\\k\\kubelet.exe', checksum: "sha256:%s"}
          - {name: kube-proxy, url: "%s/kube-proxy.exe", dest: 'C:\\k\\kube-proxy.exe', checksum: "sha256:%s"}
''' % (tmp_path / 'cache', loopback_server, digest, loopback_server, digest))
    inventory = one_node()
    for status in ('downloaded', 'cached'):
        run = sim.run(book, inventory)
        assert run.rc == 0, run.output
        by_kind = run.calls['win1']['by_kind']
        assert (by_kind.get('put_file'), by_kind.get('win_powershell:artifact_fetch')) == (2, 1), by_kind
        assert installed(sim) == digest and installed(sim, 'C:\\k\\kube-proxy.exe') == digest
        assert sorted(_Handler.hits) == ['/kube-proxy.exe', '/kubelet.exe']
        results = run.result('binaries', 'win1')['result']['results']
        assert [entry['download']['status'] for entry in results] == [status, status]
        with sim.edit_node('win1') as node:
            node.remove_file(DEST)
            node.remove_file('C:\\k\\kube-proxy.exe')


SHARED_DIR = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: cni plugins
      kubewin.node.artifact:
        url: https://github.com/containernetworking/plugins/releases/download/v1.9.1/cni-plugins-windows-amd64-v1.9.1.tgz
        checksum: sha256:https://github.com/containernetworking/plugins/releases/download/v1.9.1/cni-plugins-windows-amd64-v1.9.1.tgz.sha256
        dest: C:\\opt\\cni\\bin
        extract:
          members: [win-bridge.exe, host-local.exe]
    - name: flannel cni
      kubewin.node.artifact:
        url: https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel1/cni-plugin-flannel-windows-amd64-v1.9.1-flannel1.tgz
        checksum: sha256:https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel1/cni-plugin-flannel-windows-amd64-v1.9.1-flannel1.tgz.sha256
        dest: C:\\opt\\cni\\bin
        extract:
          members: [flannel-amd64.exe]
          rename:
            flannel-amd64.exe: flannel.exe
'''


def test_archives_sharing_a_directory_keep_one_record_each(sim, one_node):
    inventory, book = one_node(), sim.write('shared.yml', SHARED_DIR)
    assert sim.run(book, inventory).rc == 0
    records = sim.node('win1').managed_registry()['artifacts']
    assert sorted(records) == ['C:\\opt\\cni\\bin\\flannel.exe', 'C:\\opt\\cni\\bin\\win-bridge.exe']
    for unused_run in range(2):
        again = sim.run(book, inventory)
        assert again.rc == 0 and again.changed('win1') == 0, again.output
        assert again.calls['win1']['total'] == 1


def test_a_running_program_is_renamed_aside_and_cleaned_up_later(sim, one_node):
    inventory = one_node()
    assert sim.run(playbook(sim), inventory).rc == 0
    with sim.edit_node('win1') as node:
        node.data['services']['kubelet'] = {'name': 'kubelet', 'exists': True, 'state': 'running',
                                            'command_line': DEST + ' --windows-service', 'dependencies': []}
    newer = URL.replace('v1.31.4', 'v1.31.5')
    newer_sha = hashlib.sha256(web.body(newer)).hexdigest()
    assert sim.run(playbook(sim, 'sha256:' + newer_sha, newer), inventory).rc == 0
    node = sim.node('win1')
    assert node.file(DEST)['sha256'] == newer_sha
    assert [p for p in node.file_paths() if '.kubewin-old-' in p], 'the running kubelet keeps its old file until restarted'
    with sim.edit_node('win1') as node:
        # What the service control manager does when the service stops: the process lets go of its file.
        node.data['services']['kubelet']['state'] = 'stopped'
        filesystem.release(node, 'kubelet')
    newest = URL.replace('v1.31.4', 'v1.31.6')
    assert sim.run(playbook(sim, 'sha256:' + hashlib.sha256(web.body(newest)).hexdigest(), newest), inventory).rc == 0
    assert not [p for p in sim.node('win1').file_paths() if '.kubewin-old-' in p], 'leftovers removed'
