"""Downloads and archives of the Windows model (windows/downloads.py), and artifact_fetch.ps1 whole on them.

First the documented behaviour of Invoke-WebRequest (Windows PowerShell 5.1: its reference page and
WebRequestPSCmdlet.cs as 5.1 shipped it), tar.exe (libarchive's bsdtar, tar/read.c) and ZipFile over the
simulated web (kubewin_sim/web.py); then the real artifact_fetch.ps1 run by the engine for real
downloads: the script's result (derived from what the web serves), its failure message, and the SHA-256
and size of what it installed.
"""

import base64
import hashlib
import io
import json
import os
import sys
import tarfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim import web  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh.values import SecureString  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import filesystem, run_on_node  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402  pylint: disable=wrong-import-position

BASE = 'https://downloads.example.invalid'
KUBELET = BASE + '/v1.31.0/bin/windows/amd64/kubelet.exe'
CONTAINERD = BASE + '/containerd/v1.7.24/containerd-1.7.24-windows-amd64.tar.gz'
CNI = BASE + '/cni/v1.6.2/cni-plugins-windows-amd64-v1.6.2.tgz'
DOCKER = BASE + '/docker/docker-27.5.1.zip'
# A download's seconds on the node's stopwatch (windows/system.py, exact: the engine's own run time is not the node's)
# are the transfer's and the write of the file it lands in (windows/filesystem.py WRITE_SECONDS).
WRITE = filesystem.WRITE_SECONDS


@pytest.fixture(name='web_dir')
def _web_dir(tmp_path, monkeypatch):
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', str(tmp_path))
    return str(tmp_path)


def fresh_node():
    return SimNode(initial_state('win1', {'ip': '10.0.0.11'}))


def run(node, text):
    outcome = run_on_node(node, text)
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    return outcome.output


def sha256(url):
    return hashlib.sha256(web.body(url)).hexdigest()


# --- Invoke-WebRequest --------------------------------------------------------------------------------------

def test_outfile_writes_the_bytes_the_web_serves_and_outputs_nothing(web_dir):
    node = fresh_node()
    assert run(node, "Invoke-WebRequest -Uri '%s' -OutFile C:\\k.exe -UseBasicParsing -TimeoutSec 30; "
                     "(Get-FileHash C:\\k.exe).Hash; (Get-Item C:\\k.exe).Length" % KUBELET) == [
        sha256(KUBELET).upper(), str(len(web.body(KUBELET)))]


def test_a_binary_served_by_its_pinned_digest_lands_as_a_stand_in(web_dir):
    web.configure(web_dir, served={KUBELET: {'sha256': 'ab' * 32, 'size': 123456}})
    node = fresh_node()
    assert run(node, "Invoke-WebRequest '%s' -OutFile C:\\k.exe; (Get-FileHash C:\\k.exe).Hash; (Get-Item C:\\k.exe).Length"
               % KUBELET) == ['AB' * 32, '123456']
    assert filesystem.lookup(node, 'C:\\k.exe')['stand_in'] == {'sha256': 'ab' * 32, 'size': 123456}


def test_an_http_error_is_a_web_exception_with_the_response_status(web_dir):
    # WebRequestPSCmdlet.ProcessRecord: catch (WebException) -> ErrorRecord "WebCmdletWebResponseException",
    # InvalidOperation, ThrowTerminatingError; HttpWebRequest's message names the status and its description.
    web.configure(web_dir, faults={KUBELET: ['404', '403']})
    node = fresh_node()
    assert run(node, "try { Invoke-WebRequest '%s' -OutFile C:\\k.exe } catch { $_.Exception.GetType().FullName; "
                     "$_.Exception.Message; [int]$_.Exception.Response.StatusCode; [string]$_.Exception.Status; "
                     "$_.FullyQualifiedErrorId; $_.CategoryInfo.Category }; "
                     "try { Invoke-WebRequest '%s' -OutFile C:\\k.exe } catch [System.InvalidOperationException] { 'a base' }; "
                     "Test-Path C:\\k.exe" % (KUBELET, KUBELET)) == [
        'System.Net.WebException', 'The remote server returned an error: (404) Not Found.', '404', 'ProtocolError',
        'WebCmdletWebResponseException,Microsoft.PowerShell.Commands.InvokeWebRequestCommand', 'InvalidOperation',
        'a base', 'False']


@pytest.mark.parametrize('fault, message, status', [
    ('timeout', 'The operation has timed out.', 'Timeout'),
    ('reset', 'The underlying connection was closed: An unexpected error occurred on a receive.', 'ReceiveFailure')])
def test_no_answer_is_a_web_exception_without_a_response(web_dir, fault, message, status):
    web.configure(web_dir, faults={KUBELET: [fault]})
    assert run(fresh_node(), "try { Invoke-WebRequest '%s' -OutFile C:\\k.exe } catch { $_.Exception.Message; "
                             "$null -eq $_.Exception.Response; [string]$_.Exception.Status }" % KUBELET) == [
        message, 'True', status]


def test_the_cmdlet_returns_once_the_body_arrived_at_the_rate_the_web_serves_it(web_dir):
    # 8 MiB/s: a 120 MiB stand-in takes 15 s of the node's time, the hash file next to it (no rate) none.
    web.configure(web_dir, served={KUBELET: {'sha256': sha256(KUBELET), 'size': 120 * 2 ** 20}},
                  rates={KUBELET: 8 * 2 ** 20})
    node = fresh_node()
    waited = run(node, "New-Item C:\\k -ItemType Directory | Out-Null; $watch = [Diagnostics.Stopwatch]::StartNew(); "
                       "Invoke-WebRequest -Uri '%s' -OutFile C:\\k\\kubelet.exe -UseBasicParsing; $watch.Elapsed.TotalSeconds; "
                       "$watch.Restart(); Invoke-WebRequest -Uri '%s.sha256' -OutFile C:\\k\\kubelet.sha256; "
                       "$watch.Elapsed.TotalSeconds" % (KUBELET, KUBELET))
    assert [float(seconds) for seconds in waited] == [pytest.approx(15 + WRITE), pytest.approx(WRITE)]


def test_faults_are_answers_consumed_in_order(web_dir):
    web.configure(web_dir, faults={KUBELET: ['503', '200']})
    node = fresh_node()
    assert run(node, "foreach ($i in 1..2) { try { Invoke-WebRequest '%s' -OutFile C:\\k.exe; 'ok' } "
                     "catch { $_.Exception.Message } }" % KUBELET) == [
        'The remote server returned an error: (503) Server Unavailable.', 'ok']


def test_an_empty_uri_fails_validation_and_a_missing_folder_the_file_creation(web_dir):
    node = fresh_node()
    outcome = run_on_node(node, "Invoke-WebRequest -Uri '' -OutFile C:\\k.exe")
    assert outcome.errors == ["Cannot validate argument on parameter 'Uri'. The argument is null or empty. Provide an "
                              "argument that is not null or empty, and then try the command again."]
    assert run(node, "try { Invoke-WebRequest '%s' -OutFile C:\\missing\\k.exe } catch { $_.Exception.GetType().FullName }"
               % KUBELET) == ['System.IO.DirectoryNotFoundException']


def test_a_body_the_disk_has_no_room_for_fails_the_write_and_the_file_keeps_what_fit(web_dir):
    # The write fails with ERROR_DISK_FULL (System Error Codes 0-499), an IOException FileStream throws and
    # WebRequestPSCmdlet.ProcessRecord does not catch (it catches WebException); File.Create made the file.
    node = fresh_node()
    filesystem.fill_volume(node, 10)
    outcome = run_on_node(node, "try { Invoke-WebRequest '%s' -OutFile C:\\k.exe } catch { "
                                "$_.Exception.GetType().FullName; $_.Exception.Message; $_.FullyQualifiedErrorId }; "
                                "(Get-Item C:\\k.exe).Length; (Get-CimInstance Win32_LogicalDisk).FreeSpace" % KUBELET)
    assert outcome.output == ['System.IO.IOException', 'There is not enough space on the disk.',
                              'System.IO.IOException,Microsoft.PowerShell.Commands.InvokeWebRequestCommand', '10', '0']
    assert filesystem.content_bytes(filesystem.lookup(node, 'C:\\k.exe')) == web.body(KUBELET)[:10]


def test_files_take_room_from_the_system_drive_and_give_it_back(web_dir):
    node = fresh_node()
    free = node.profile['free_disk_bytes']
    assert run(node, "Set-Content C:\\a.txt -Value ('x' * 998); (Get-CimInstance Win32_LogicalDisk).FreeSpace; "
                     "Remove-Item C:\\a.txt; (Get-CimInstance Win32_LogicalDisk).FreeSpace") == [
        str(free - 1000), str(free)]


def test_proxy_credential_needs_a_proxy(web_dir):
    outcome = run_on_node(fresh_node(), "param($Password)\n$c = New-Object System.Management.Automation.PSCredential "
                                        "-ArgumentList @('u', $Password)\n"
                                        "Invoke-WebRequest '%s' -OutFile C:\\k.exe -ProxyCredential $c" % KUBELET,
                          {'Password': SecureString('p')})
    assert outcome.errors and 'following parameter is missing: Proxy' in outcome.errors[0]


PROXY = 'http://proxy.corp.example.invalid:3128'
MIRROR = 'https://mirror.corp.example.invalid/kubelet.exe'


def proxied_node(**profile):
    """A node whose network lets it out only through PROXY; mirror.corp.example.invalid is inside that network."""
    return SimNode(initial_state('win1', dict({'ip': '10.0.0.11', 'web_proxy': PROXY,
                                               'web_direct_hosts': ['mirror.corp.example.invalid']}, **profile)))


def _download(url, extra=''):
    return ("try { Invoke-WebRequest -Uri '%s' -OutFile C:\\k.exe %s; 'ok' } catch { $_.Exception.Message; "
            "[string]$_.Exception.Status; $null -eq $_.Exception.Response }" % (url, extra))


def test_without_proxy_the_request_takes_the_accounts_internet_settings_only(web_dir):
    # WebRequest.DefaultWebProxy: the WinRM account's Internet settings, never HTTPS_PROXY nor WinHTTP's proxy.
    node = proxied_node(environment={'HTTPS_PROXY': PROXY})
    assert run(node, _download(KUBELET)) == ['Unable to connect to the remote server', 'ConnectFailure', 'True']
    assert run(node, _download(KUBELET, '-Proxy ' + PROXY)) == ['ok']
    assert run(node, _download(KUBELET, '-Proxy http://other.example.invalid:8080')) == [
        'Unable to connect to the remote server', 'ConnectFailure', 'True']
    assert run(proxied_node(user_proxy=PROXY), _download(KUBELET)) == ['ok']


def test_a_host_inside_the_network_is_reached_directly_and_not_through_the_proxy(web_dir):
    node = proxied_node()
    assert run(node, _download(MIRROR)) == ['ok']
    assert run(node, _download(MIRROR, '-Proxy ' + PROXY)) == [
        'The remote server returned an error: (502) Bad Gateway.', 'ProtocolError', 'False']


def test_uri_conversion_is_relative_or_absolute():
    # LanguagePrimitives.ConvertStringToUri: new Uri(text, UriKind.RelativeOrAbsolute).
    assert run(fresh_node(), "$u = [Uri]'https://Example.invalid/a b/k.tgz?x=1'; $u.AbsolutePath; $u.Host; "
                             "([Uri]'k.tgz').IsAbsoluteUri; [System.IO.Path]::GetFileName($u.AbsolutePath)") == [
        '/a%20b/k.tgz', 'example.invalid', 'False', 'k.tgz']


# --- tar.exe and ZipFile ----------------------------------------------------------------------------------------

TAR = '& "$env:SystemRoot\\System32\\tar.exe" '


def _real_tgz(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode='w:gz') as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return base64.b64encode(buffer.getvalue()).decode()


def test_tar_extracts_a_real_archive_into_the_folder(web_dir):
    node = fresh_node()
    run(node, "[System.IO.File]::WriteAllBytes('C:\\a.tgz', [Convert]::FromBase64String('%s')); "
              "New-Item C:\\x -ItemType Directory | Out-Null" % _real_tgz({'bin/a.exe': b'AAA', 'b.exe': b'BB'}))
    assert run(node, TAR + "-x -z -f C:\\a.tgz -C C:\\x; $LASTEXITCODE; "
               "Get-ChildItem C:\\x -Recurse -File | ForEach-Object { $_.FullName + '=' + $_.Length }") == [
        '0', 'C:\\x\\b.exe=2', 'C:\\x\\bin\\a.exe=3']


def test_tar_extracts_an_archive_of_the_simulated_web_as_stand_ins(web_dir):
    node = fresh_node()
    run(node, "Invoke-WebRequest '%s' -OutFile C:\\c.tgz; New-Item C:\\x -ItemType Directory | Out-Null; " % CONTAINERD
        + TAR + "-x -z -f C:\\c.tgz -C C:\\x")
    expected = web.member_identity(CONTAINERD, sha256(CONTAINERD), 'bin/ctr.exe')
    assert filesystem.lookup(node, 'C:\\x\\bin\\ctr.exe')['stand_in'] == expected
    assert len(filesystem.children(node, 'C:\\x\\bin')) == 4


@pytest.mark.parametrize('setup, arguments, message', [
    ('', '-x -z -f C:\\none.tgz -C C:\\x', "tar.exe: Error opening archive: Failed to open 'C:\\none.tgz'"),
    ("Set-Content C:\\a.tgz 'text'; ", '-x -z -f C:\\a.tgz -C C:\\x', 'tar.exe: Error opening archive: Unrecognized archive format'),
    ("[System.IO.File]::WriteAllBytes('C:\\a.tgz', [Convert]::FromBase64String('%s')); " % _real_tgz({'a': b'a'}),
     '-x -f C:\\a.tgz -C C:\\nowhere', "tar.exe: could not chdir to 'C:\\nowhere'"),
    ('', '-f C:\\a.tgz', 'tar.exe: Must specify one of -c, -r, -t, -u, -x'),
])
def test_tar_failures_exit_1_with_bsdtars_message_on_stderr(web_dir, setup, arguments, message):
    node = fresh_node()
    outcome = run_on_node(node, setup + "New-Item C:\\x -ItemType Directory | Out-Null; " + TAR + arguments
                          + " 2>$null; $LASTEXITCODE; " + TAR + arguments)
    assert outcome.output == ['1'] and outcome.errors == [message]


def test_zipfile_needs_its_assembly_and_extracts_an_archive_of_the_simulated_web(web_dir):
    node = fresh_node()
    run(node, "Invoke-WebRequest '%s' -OutFile C:\\d.zip" % DOCKER)
    assert 'Unable to find type' in run_on_node(node, "[System.IO.Compression.ZipFile]::ExtractToDirectory('C:\\d.zip', 'C:\\d')"
                                                ).errors[0]
    run(node, "Add-Type -AssemblyName System.IO.Compression.FileSystem; "
              "[System.IO.Compression.ZipFile]::ExtractToDirectory('C:\\d.zip', 'C:\\d')")
    assert filesystem.lookup(node, 'C:\\d\\docker\\dockerd.exe')['stand_in'] == \
        web.member_identity(DOCKER, sha256(DOCKER), 'docker/dockerd.exe')
    outcome = run_on_node(node, "Add-Type -AssemblyName System.IO.Compression.FileSystem; Set-Content C:\\n.zip 'x'; "
                                "[System.IO.Compression.ZipFile]::ExtractToDirectory('C:\\n.zip', 'C:\\n')")
    assert 'End of Central Directory record could not be found.' in outcome.errors[0]


# --- artifact_fetch.ps1, whole ----------------------------------------------------------------------------------

def _parameters(url, dest, **more):
    """One artifact, described flat (Url, Dest, ... and the script's own Retries, Proxy, ...); _invoke_fetch passes
    it to artifact_fetch.ps1 as its only -Artifacts entry."""
    parameters = {'Url': url, 'Dest': dest, 'Algorithm': 'sha256', 'Checksum': sha256(url),
                  'ChecksumSpec': 'sha256:' + sha256(url), 'ArtifactKey': dest, 'Version': 'v1'}
    parameters.update(more)
    return parameters


# The flat names of _parameters -> the keys of an -Artifacts entry; the other names are the script's parameters.
ENTRY_KEYS = {'Url': 'url', 'Dest': 'dest', 'Algorithm': 'algorithm', 'Checksum': 'checksum',
              'ChecksumUrl': 'checksum_url', 'ChecksumSpec': 'checksum_spec', 'Format': 'format', 'Members': 'members',
              'Names': 'names', 'StagedPath': 'staged_path', 'ArtifactKey': 'key', 'Version': 'version'}


def _invoke_fetch(node, parameters, **options):
    """artifact_fetch.ps1 with the one artifact ``parameters`` describes; its result as the script reported one artifact
    before it took several: the artifact's figures and the state."""
    entry = {'name': parameters['Url'].rpartition('/')[2], 'format': 'file'}
    entry.update((ENTRY_KEYS[key], value) for key, value in parameters.items() if key in ENTRY_KEYS)
    script = {key: value for key, value in parameters.items() if key not in ENTRY_KEYS}
    result = invoke(node, _pwsh.load_script('artifact_fetch'), dict(script, Artifacts=[entry]), **options)
    if not result['failed']:
        answer = _contracts.check('artifact_fetch', json.loads(result['result']))
        assert len(answer['artifacts']) == 1, answer
        result['result'] = dict(answer['artifacts'][0], state=answer['state'])
    return result


def _fetch(web_dir, parameters, served=None, faults=None, before=None, rates=None):
    """Run the real script on a fresh node over the simulated web; ((result, failure message), node)."""
    web.configure(web_dir, served=served, faults=faults, rates=rates)
    node = fresh_node()
    if before:
        run(node, before)
    result = _invoke_fetch(node, parameters)
    if result['failed']:
        return (None, result['error'][-1]['exception']['message']), node
    return (result['result'], None), node


def whole(url):
    """{'sha256', 'size'} of what the simulated web serves at ``url`` (web.body)."""
    return {'sha256': sha256(url), 'size': len(web.body(url))}


def member(url, archive_sha256, name):
    """{'sha256', 'size'} of a member of an archive of the simulated web, as tar.exe and ZipFile extract it."""
    return web.member_identity(url, archive_sha256, name)


def expected_result(parameters, installed, attempts=1, sha=None, size=None, seconds=0.0):
    """What artifact_fetch.ps1 reports once it installed ``installed`` ({path: {'sha256', 'size'}}): the attempts,
    the size of what it downloaded (by default what the web serves at the URL) and the seconds that took, the
    verified hash, each file protected, and the artifact's record in the registry of managed files."""
    return {'attempts': attempts, 'sha': sha or parameters['Checksum'],
            'bytes': len(web.body(parameters['Url'])) if size is None else size,
            'seconds': None if seconds is None else pytest.approx(seconds + WRITE), 'state': {
        'sections': ['files', 'artifacts'],
        'files': {path: {'exists': True, 'type': 'file', 'size': identity['size'], 'sha256': identity['sha256'],
                         'acl': 'protected'} for path, identity in installed.items()},
        'artifacts': {parameters['ArtifactKey']: {
            'url': parameters['Url'], 'checksum': parameters['ChecksumSpec'], 'version': parameters['Version'],
            'files': {path: identity['sha256'] for path, identity in installed.items()}}}}}


def _installed(node, paths):
    """The SHA-256 and size of each file in the model's file system."""
    real = {}
    for path in paths:
        entry = filesystem.lookup(node, path)
        real[path] = entry['stand_in'] if entry.get('stand_in') else \
            {'sha256': hashlib.sha256(filesystem.content_bytes(entry)).hexdigest(), 'size': filesystem.size_of(entry)}
    return real


def _check(fetched, installed=None):
    """The files ``installed`` are on the node as reported, and nothing of the download is left next to the
    destination or in TEMP."""
    answer, node = fetched
    installed = installed or {}
    assert _installed(node, installed) == installed
    leftovers = [key for key in filesystem.tree(node) if '.kubewin-download-' in key or 'kubewin-checksum-' in key]
    assert leftovers == []
    return answer


def test_a_binary_with_its_checksum(web_dir):
    parameters = _parameters(KUBELET, 'C:\\k\\kubelet.exe')
    installed = {'C:\\k\\kubelet.exe': whole(KUBELET)}
    assert _check(_fetch(web_dir, parameters), installed) == (expected_result(parameters, installed), None)


@pytest.mark.parametrize('algorithm, suffix', [('sha256', '.sha256'), ('sha512', '.sha512')])
def test_a_checksum_from_a_hash_file(web_dir, algorithm, suffix):
    parameters = _parameters(KUBELET, 'C:\\k\\kubelet.exe', Algorithm=algorithm, ChecksumUrl=KUBELET + suffix,
                             ChecksumSpec='%s:%s%s' % (algorithm, KUBELET, suffix))
    del parameters['Checksum']
    installed = {'C:\\k\\kubelet.exe': whole(KUBELET)}
    # The reported hash is of the algorithm asked for; the file state's stays SHA-256.
    assert _check(_fetch(web_dir, parameters), installed) == (
        expected_result(parameters, installed, sha=hashlib.new(algorithm, web.body(KUBELET)).hexdigest()), None)


def test_a_tar_gz_archive_with_members(web_dir):
    members = ['bin/containerd.exe', 'bin/containerd-shim-runhcs-v1.exe', 'bin/ctr.exe']
    names = ['containerd.exe', 'containerd-shim-runhcs-v1.exe', 'ctr.exe']
    parameters = _parameters(CONTAINERD, 'C:\\Program Files\\containerd\\bin', Format='tar.gz', Members=members,
                             Names=names)
    installed = {'C:\\Program Files\\containerd\\bin\\' + name: member(CONTAINERD, sha256(CONTAINERD), inside)
                 for inside, name in zip(members, names)}
    assert _check(_fetch(web_dir, parameters), installed) == (expected_result(parameters, installed), None)


def test_a_tgz_archive_pinned_by_its_digest(web_dir):
    # An upstream release the tests have no bytes of: the archive and its members are stand-ins.
    pinned = hashlib.sha256(b'the real cni-plugins archive').hexdigest()
    parameters = _parameters(CNI, 'C:\\opt\\cni\\bin', Format='tar.gz', Members=['win-bridge.exe', 'host-local.exe'],
                             Names=['win-bridge.exe', 'host-local.exe'], Checksum=pinned, ChecksumSpec='sha256:' + pinned)
    installed = {'C:\\opt\\cni\\bin\\' + name: member(CNI, pinned, name) for name in ['win-bridge.exe', 'host-local.exe']}
    fetched = _fetch(web_dir, parameters, served={CNI: {'sha256': pinned, 'size': 4242}})
    assert _check(fetched, installed) == (expected_result(parameters, installed, size=4242), None)


def test_a_zip_archive(web_dir):
    parameters = _parameters(DOCKER, 'C:\\Program Files\\docker', Format='zip',
                             Members=['docker/docker.exe', 'docker/dockerd.exe'], Names=['docker.exe', 'dockerd.exe'])
    installed = {'C:\\Program Files\\docker\\' + name: member(DOCKER, sha256(DOCKER), 'docker/' + name)
                 for name in ['docker.exe', 'dockerd.exe']}
    assert _check(_fetch(web_dir, parameters), installed) == (expected_result(parameters, installed), None)


def test_a_member_the_archive_lacks(web_dir):
    parameters = _parameters(DOCKER, 'C:\\Program Files\\docker', Format='zip', Members=['docker/nothere.exe'],
                             Names=['nothere.exe'])
    fetched = _fetch(web_dir, parameters)
    assert _check(fetched) == (None, '%s does not contain: docker/nothere.exe' % DOCKER)
    assert [key for key in filesystem.tree(fetched[1]) if key.startswith('c:\\program files\\docker\\')] == []


def test_transient_faults_are_retried_until_the_download_succeeds(web_dir):
    parameters = _parameters(KUBELET, 'C:\\k\\kubelet.exe')
    installed = {'C:\\k\\kubelet.exe': whole(KUBELET)}
    fetched = _fetch(web_dir, parameters, faults={KUBELET: ['503', 'timeout', 'reset', '500', '200']})
    assert _check(fetched, installed) == (expected_result(parameters, installed, attempts=5), None)


def test_transient_faults_beyond_the_retries_fail(web_dir):
    fetched = _fetch(web_dir, _parameters(KUBELET, 'C:\\k\\kubelet.exe', Retries=1), faults={KUBELET: ['503', '503', '200']})
    assert _check(fetched) == (None, 'download of %s failed (HTTP 503) after 2 attempts: The remote server returned an '
                                     'error: (503) Server Unavailable.' % KUBELET)
    assert filesystem.lookup(fetched[1], 'C:\\k\\kubelet.exe') is None


def test_a_404_is_not_retried(web_dir):
    fetched = _fetch(web_dir, _parameters(KUBELET, 'C:\\k\\kubelet.exe'), faults={KUBELET: ['404', '200']})
    assert _check(fetched) == (None, 'download of %s failed (HTTP 404); not retried: The remote server returned an '
                                     'error: (404) Not Found.' % KUBELET)
    # One request only: the 200 is still queued.
    with open(os.path.join(web_dir, 'web.json'), encoding='utf-8') as handle:
        assert json.load(handle)['faults'][KUBELET] == ['200']


def test_a_corrupt_body_fails_the_checksum_and_keeps_the_previous_file(web_dir):
    before = "New-Item C:\\k -ItemType Directory | Out-Null; Set-Content C:\\k\\kubelet.exe 'old'"
    fetched = _fetch(web_dir, _parameters(KUBELET, 'C:\\k\\kubelet.exe'), faults={KUBELET: ['corrupt']}, before=before)
    corrupt = hashlib.sha256(b'corrupt' + web.body(KUBELET)).hexdigest()
    assert _check(fetched) == (None, 'checksum mismatch for %s: expected sha256 %s, got %s; the file was not installed'
                                     % (KUBELET, sha256(KUBELET), corrupt))
    assert run(fetched[1], "Get-Content C:\\k\\kubelet.exe; (Get-ChildItem C:\\k).Count") == ['old', '1']


def test_a_full_disk_fails_at_once_saying_so_and_keeps_the_previous_file(web_dir):
    # A full disk is no failure of the web: retrying it only fills the disk again (the script retried it 4 times).
    before = ("New-Item C:\\k -ItemType Directory | Out-Null; Set-Content C:\\k\\kubelet.exe 'old'; "
              "$null = Get-CimInstance Win32_LogicalDisk")
    web.configure(web_dir, faults={KUBELET: ['200', '200']})
    node = fresh_node()
    run(node, before)
    filesystem.fill_volume(node, 4)
    result = _invoke_fetch(node, _parameters(KUBELET, 'C:\\k\\kubelet.exe'))
    assert result['failed'] and result['error'][-1]['exception']['message'] == (
        'download of %s failed; not retried: There is not enough space on the disk.' % KUBELET)
    assert _check((None, node)) is None
    assert run(node, "Get-Content C:\\k\\kubelet.exe; (Get-ChildItem C:\\k).Count") == ['old', '1']
    with open(os.path.join(web_dir, 'web.json'), encoding='utf-8') as handle:
        assert json.load(handle)['faults'][KUBELET] == ['200']


def test_a_truncated_archive_fails_the_checksum_and_extracts_nothing(web_dir):
    parameters = _parameters(CONTAINERD, 'C:\\Program Files\\containerd\\bin', Format='tar.gz',
                             Members=['bin/containerd.exe'], Names=['containerd.exe'])
    fetched = _fetch(web_dir, parameters, faults={CONTAINERD: ['truncated']})
    assert _check(fetched) == (None, 'checksum mismatch for %s: expected sha256 %s, got %s; the file was not installed'
                                     % (CONTAINERD, sha256(CONTAINERD), hashlib.sha256(web.body(CONTAINERD)[:5]).hexdigest()))
    assert [key for key in filesystem.tree(fetched[1]) if key.startswith('c:\\program files\\containerd\\bin\\')] == []


def test_an_archive_tar_cannot_read_fails_naming_the_url_and_tars_message(web_dir):
    # tar.exe writes its error to stderr. Under win_powershell the runspace redirects a native program's stderr
    # (NativeCommandProcessor.CalculateIORedirection: the error pipe is no Out-Default), 5.1 writes each line as an
    # error record, and the script's $ErrorActionPreference = 'Stop' ended the script at tar's first line: the
    # failure never named the URL, and a warning of a successful extraction would have failed it too.
    url = BASE + '/not-an-archive.tar.gz'
    node = fresh_node()
    parameters = _parameters(url, 'C:\\t', Format='tar.gz', Members=['a.exe'], Names=['a.exe'])
    result = _invoke_fetch(node, parameters)
    assert result['failed'] and result['error'][-1]['exception']['message'] == (
        'tar.exe could not extract %s (exit code 1): tar.exe: Error opening archive: Unrecognized archive format' % url)
    assert [key for key in filesystem.tree(node) if key.startswith('c:\\t\\')] == []


# --- artifact_fetch.ps1's figures: what it downloaded and how long that took ---------------------------------------

MIB = 2 ** 20


def test_the_size_and_the_seconds_of_a_download_are_reported(web_dir):
    # 118.3 MiB at 8.3 MiB/s: about 14.25 s on the node's clock.
    size, rate = int(118.3 * MIB), int(8.3 * MIB)
    parameters = _parameters(KUBELET, 'C:\\k\\kubelet.exe')
    served = {KUBELET: {'sha256': sha256(KUBELET), 'size': size}}
    installed = {'C:\\k\\kubelet.exe': {'sha256': sha256(KUBELET), 'size': size}}
    fetched = _fetch(web_dir, parameters, served=served, rates={KUBELET: rate})
    assert _check(fetched, installed) == (expected_result(parameters, installed, size=size, seconds=size / rate), None)


def test_the_seconds_are_the_successful_attempts_alone(web_dir):
    # Two failed attempts and the waits after them (2 s, then 4 s) are not in the transfer's seconds, nor is the hash
    # file's download (1 byte per second: over a minute), yet all of them passed on the node's clock.
    size, rate = 40 * MIB, 4 * MIB
    checksum_url = KUBELET + '.sha256'
    parameters = _parameters(KUBELET, 'C:\\k\\kubelet.exe', ChecksumUrl=checksum_url, ChecksumSpec='sha256:' + checksum_url)
    del parameters['Checksum']
    served = {KUBELET: {'sha256': sha256(KUBELET), 'size': size}}
    installed = {'C:\\k\\kubelet.exe': {'sha256': sha256(KUBELET), 'size': size}}
    fetched = _fetch(web_dir, parameters, served=served, faults={KUBELET: ['503', 'reset', '200']},
                     rates={KUBELET: rate, checksum_url: 1})
    assert _check(fetched, installed) == (
        expected_result(parameters, installed, attempts=3, sha=sha256(KUBELET), size=size, seconds=10), None)
    hash_file_seconds = len('%s  kubelet.exe\n' % sha256(KUBELET))
    # ... and the milliseconds of the files the script wrote (WRITE each).
    assert 0 <= fetched[1].data['clock_offset'] - (hash_file_seconds + 2 + 4 + 10) < 100 * WRITE


def test_the_size_of_an_archive_is_the_archives(web_dir):
    size = 3 * MIB
    parameters = _parameters(DOCKER, 'C:\\Program Files\\docker', Format='zip', Members=['docker/docker.exe'],
                             Names=['docker.exe'])
    served = {DOCKER: {'sha256': sha256(DOCKER), 'size': size}}
    installed = {'C:\\Program Files\\docker\\docker.exe': member(DOCKER, sha256(DOCKER), 'docker/docker.exe')}
    fetched = _fetch(web_dir, parameters, served=served, rates={DOCKER: MIB})
    assert _check(fetched, installed) == (expected_result(parameters, installed, size=size, seconds=3), None)


def test_a_download_through_a_proxy_with_credentials(web_dir):
    # The action sends the proxy password as a sensitive parameter: a SecureString the script puts in a PSCredential.
    node = fresh_node()
    result = _invoke_fetch(node, _parameters(KUBELET, 'C:\\k\\kubelet.exe', Proxy='http://proxy.example.invalid:3128',
                                             ProxyUsername='u'),
                           sensitive_parameters=[{'name': 'ProxyPassword', 'value': 'secret'}])
    assert (result['failed'], result['result']['sha']) == (False, sha256(KUBELET))


# A node behind a machine proxy: its network lets it out through the proxy only, and the machine environment names
# the proxy (HTTPS_PROXY, what containerd and the kubelet read). Windows PowerShell 5.1's Invoke-WebRequest without
# -Proxy takes the WinRM account's Internet settings (none), so every download failed unless the task set `proxy`.

def _fetch_on(node, parameters, served=None):
    result = _invoke_fetch(node, parameters)
    if result['failed']:
        return None, result['error'][-1]['exception']['message']
    return result['result'], None


def test_a_node_behind_a_machine_proxy_downloads_through_it(web_dir):
    node = proxied_node(environment={'HTTPS_PROXY': PROXY, 'NO_PROXY': 'localhost,.svc,10.96.0.0/12'})
    parameters = _parameters(KUBELET, 'C:\\k\\kubelet.exe')
    installed = {'C:\\k\\kubelet.exe': whole(KUBELET)}
    assert _fetch_on(node, parameters) == (expected_result(parameters, installed), None)
    assert _installed(node, installed) == installed


@pytest.mark.parametrize('no_proxy', ['mirror.corp.example.invalid', 'corp.example.invalid', '.corp.example.invalid',
                                      '*', 'other.invalid, mirror.corp.example.invalid:443'])
def test_no_proxy_sends_a_host_of_the_network_directly(web_dir, no_proxy):
    # NO_PROXY as Go's net/http reads it (golang.org/x/net/http/httpproxy): a name and its subdomains, a leading dot
    # for subdomains only, '*' for every host, an optional port.
    node = proxied_node(environment={'HTTPS_PROXY': PROXY, 'NO_PROXY': no_proxy})
    web.configure(web_dir, served={MIRROR: {'sha256': 'cd' * 32, 'size': 10}})
    parameters = dict(_parameters(MIRROR, 'C:\\k\\kubelet.exe'), Checksum='cd' * 32, ChecksumSpec='sha256:' + 'cd' * 32)
    answer, message = _fetch_on(node, parameters)
    assert message is None and answer['sha'] == 'cd' * 32


def test_an_explicit_proxy_wins_over_the_machine_environment(web_dir):
    node = proxied_node(environment={'HTTPS_PROXY': 'http://stale.example.invalid:3128'})
    answer, message = _fetch_on(node, _parameters(KUBELET, 'C:\\k\\kubelet.exe', Proxy=PROXY))
    assert message is None and answer['sha'] == sha256(KUBELET)


@pytest.mark.parametrize('no_proxy, direct', [('10.16.0.0/12', True), ('10.32.0.0/12', False), ('10.20.0.5', True)])
def test_no_proxy_ranges_and_addresses(web_dir, no_proxy, direct):
    url = 'https://10.20.0.5/kubelet.exe'
    node = proxied_node(environment={'HTTPS_PROXY': PROXY, 'NO_PROXY': no_proxy}, web_direct_hosts=['10.20.0.5'])
    web.configure(web_dir, served={url: {'sha256': 'cd' * 32, 'size': 10}})
    parameters = dict(_parameters(url, 'C:\\k\\kubelet.exe'), Checksum='cd' * 32, ChecksumSpec='sha256:' + 'cd' * 32,
                      Retries=0)
    answer, message = _fetch_on(node, parameters)
    assert (message is None) == direct, message
    if not direct:
        assert message.endswith('The remote server returned an error: (502) Bad Gateway.')
