"""log_rotate.ps1, the node's log rotation task, run whole in the engine as the scheduled task runs it
(powershell.exe -File), against logs that running services hold open.

The writers' share modes are the Windows model's (windows/filesystem.py): containerd and kube-log-runner
append through Go's os.OpenFile, which shares reading and writing but not deleting, so their log cannot be
renamed while the service runs and is rotated by copying and emptying it; nssm and kube-log-runner 1.34+
rotate theirs themselves, and the task only keeps the newest rotated files.
"""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh  # noqa: E402
from kubewin_sim.node import open_node  # noqa: E402
from kubewin_sim.windows import filesystem, run_on_node  # noqa: E402

FOLDER = 'C:\\ProgramData\\kubewin\\log-rotation'
SCRIPT = FOLDER + '\\rotate.ps1'
CONFIG = FOLDER + '\\config.json'
CONTAINERD_LOG = 'C:\\ProgramData\\containerd\\containerd.log'
FLANNELD_LOG = 'C:\\var\\log\\flanneld\\flanneld.log'
KUBELET_LOG = 'C:\\var\\log\\kubelet\\kubelet.log'
OPEN_READ_WRITE = '[System.IO.FileMode]::Open, [System.IO.FileAccess]::ReadWrite'


@pytest.fixture
def node(tmp_path):
    with open_node(str(tmp_path), 'win1', profile={'ip': '10.127.130.38', 'build': 20348}) as opened:
        opened.write_file(SCRIPT, content=_pwsh.load_script('log_rotate'))
        # containerd runs and appends to its --log-file.
        opened.write_file(CONTAINERD_LOG, content='')
        opened.data['services']['containerd'] = {
            'name': 'containerd', 'exists': True, 'state': 'running', 'start_mode': 'auto', 'dependencies': [], 'nssm': None,
            'command_line': '"C:\\Program Files\\containerd\\bin\\containerd.exe" --run-service --log-file %s' % CONTAINERD_LOG}
        yield opened


def run(node, logs, max_bytes=100, files_kept=2):
    node.write_file(CONFIG, content=json.dumps({'max_bytes': max_bytes, 'files_kept': files_kept, 'logs': logs}))
    outcome = run_on_node(node, 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -File %s -ConfigPath %s\n'
                                '$LASTEXITCODE' % (SCRIPT, CONFIG))
    assert not outcome.unsupported, outcome.unsupported
    last = json.loads(node.content_view(FOLDER + '\\last-run.json')['text'])
    return int(outcome.output[-1]), {entry['path']: entry for entry in last['logs']}


def names(node, folder):
    return sorted(path.rsplit('\\', 1)[-1] for path in node.file_paths() if path.lower().startswith(folder.lower() + '\\'))


def test_a_running_writers_log_cannot_be_renamed_but_can_be_emptied_through_a_shared_handle(node):
    # Go's syscall.Open shares reading and writing, not deleting (syscall_windows.go); CreateFileW: a second
    # handle must share the first one's write access, and may write because the first shares writing.
    node.write_file(CONTAINERD_LOG, content='line\n')
    moved = run_on_node(node, "Move-Item -LiteralPath '%s' -Destination C:\\ProgramData\\containerd\\old.log" % CONTAINERD_LOG)
    assert 'being used by another process' in ' '.join(str(error) for error in moved.errors)
    refused = run_on_node(node, "[System.IO.File]::Open('%s', %s, [System.IO.FileShare]::Read)" % (CONTAINERD_LOG, OPEN_READ_WRITE))
    assert 'being used by another process' in ' '.join(str(error) for error in refused.errors)
    emptied = run_on_node(node, "$s = [System.IO.File]::Open('%s', %s, [System.IO.FileShare]::ReadWrite); $s.SetLength(0); "
                                "$s.Dispose(); (Get-Item -LiteralPath '%s').Length" % (CONTAINERD_LOG, OPEN_READ_WRITE, CONTAINERD_LOG))
    assert not emptied.errors and emptied.output == ['0']
    # Stopped, containerd holds nothing: the file can be renamed.
    node.data['services']['containerd']['state'] = 'stopped'
    assert not run_on_node(node, "Move-Item -LiteralPath '%s' -Destination C:\\ProgramData\\containerd\\old.log"
                           % CONTAINERD_LOG).errors


def test_containerd_log_over_the_size_is_copied_and_emptied_while_containerd_writes(node):
    node.write_file(CONTAINERD_LOG, content='x' * 150)
    code, logs = run(node, [{'path': CONTAINERD_LOG, 'copy_truncate': True}])
    assert code == 0 and logs[CONTAINERD_LOG]['error'] is None
    rotated = logs[CONTAINERD_LOG]['rotated_to']
    assert rotated.startswith('C:\\ProgramData\\containerd\\containerd-') and rotated.endswith('.log')
    assert node.content_view(rotated)['text'] == 'x' * 150
    assert node.content_view(CONTAINERD_LOG)['text'] == ''


def test_a_log_under_the_size_is_left_alone(node):
    node.write_file(CONTAINERD_LOG, content='x' * 99)
    code, logs = run(node, [{'path': CONTAINERD_LOG, 'copy_truncate': True}])
    assert code == 0 and logs[CONTAINERD_LOG]['rotated_to'] is None
    assert node.content_view(CONTAINERD_LOG)['text'] == 'x' * 99
    assert names(node, 'C:\\ProgramData\\containerd') == ['containerd.log']


def test_the_writer_goes_on_at_the_start_of_the_emptied_file(node):
    node.write_file(CONTAINERD_LOG, content='old\n' * 40)
    run(node, [{'path': CONTAINERD_LOG, 'copy_truncate': True}])
    # containerd appends (FILE_APPEND_DATA): its next line lands at the file's new end, offset 0.
    node.write_file(CONTAINERD_LOG, content=node.content_view(CONTAINERD_LOG)['text'] + 'new\n')
    assert node.content_view(CONTAINERD_LOG)['text'] == 'new\n'


def aged(node, path, written, content='old\n'):
    node.write_file(path, content=content)
    filesystem.lookup(node, path)['written'] = written


def test_only_the_newest_rotated_files_are_kept_whoever_rotated_them(node):
    # nssm's names (nssm.cc "File rotation") and kube-log-runner's (internal/logrotation), and files that only look alike.
    folder = 'C:\\var\\log\\flanneld'
    node.write_file(FLANNELD_LOG, content='current\n')
    aged(node, folder + '\\flanneld-20260101T101010.123.log', 1000)
    aged(node, folder + '\\flanneld-20260102T101010.123.log', 2000)
    aged(node, folder + '\\flanneld-20260103-101010.log', 3000)
    aged(node, folder + '\\flanneld-20260104T101010.123.log', 4000)
    aged(node, folder + '\\flanneld-notes.log', 10)
    aged(node, folder + '\\flanneld-20260101T101010.123.log.bak', 10)
    code, logs = run(node, [{'path': FLANNELD_LOG, 'copy_truncate': False}], max_bytes=1, files_kept=2)
    assert code == 0
    assert logs[FLANNELD_LOG]['rotated_to'] is None, 'nssm rotates its own log'
    assert sorted(logs[FLANNELD_LOG]['removed']) == [
        folder + '\\flanneld-20260101T101010.123.log', folder + '\\flanneld-20260102T101010.123.log']
    assert names(node, folder) == ['flanneld-20260101T101010.123.log.bak', 'flanneld-20260103-101010.log',
                                   'flanneld-20260104T101010.123.log', 'flanneld-notes.log', 'flanneld.log']


def test_a_copy_counts_among_the_kept_files(node):
    folder = 'C:\\ProgramData\\containerd'
    aged(node, folder + '\\containerd-20250101-000000.log', 1000)
    aged(node, folder + '\\containerd-20250102-000000.log', 2000)
    node.write_file(CONTAINERD_LOG, content='x' * 200)
    code, logs = run(node, [{'path': CONTAINERD_LOG, 'copy_truncate': True}], files_kept=2)
    assert code == 0
    assert logs[CONTAINERD_LOG]['removed'] == [folder + '\\containerd-20250101-000000.log']
    assert logs[CONTAINERD_LOG]['rotated_to'].rsplit('\\', 1)[-1] in names(node, folder)
    assert len(names(node, folder)) == 3


def test_a_log_that_cannot_be_rotated_is_reported_and_the_others_are_still_rotated(node):
    # A log held by a writer that shares only reading cannot be emptied; the run says so, exits 1, and goes on.
    node.write_file(KUBELET_LOG, content='k' * 200)
    filesystem.lookup(node, KUBELET_LOG)['held'] = 'open'
    node.write_file(CONTAINERD_LOG, content='x' * 200)
    missing = 'C:\\var\\log\\kube-proxy\\kube-proxy.log'
    code, logs = run(node, [{'path': KUBELET_LOG, 'copy_truncate': True}, {'path': missing, 'copy_truncate': True},
                            {'path': CONTAINERD_LOG, 'copy_truncate': True}])
    assert code == 1
    assert 'being used by another process' in logs[KUBELET_LOG]['error']
    assert node.content_view(KUBELET_LOG)['text'] == 'k' * 200
    assert logs[missing] == {'path': missing, 'rotated_to': None, 'removed': [], 'error': None}
    assert logs[CONTAINERD_LOG]['rotated_to'] and node.content_view(CONTAINERD_LOG)['text'] == ''


@pytest.fixture
def thai_node(tmp_path):
    """The node of the fixture above with the format culture th-TH (windows/culture.py: ThaiBuddhistCalendar)."""
    with open_node(str(tmp_path), 'win1', profile={'ip': '10.127.130.38', 'build': 20348, 'culture': 'th-TH'}) as opened:
        opened.write_file(SCRIPT, content=_pwsh.load_script('log_rotate'))
        opened.write_file(CONTAINERD_LOG, content='')
        opened.data['services']['containerd'] = {
            'name': 'containerd', 'exists': True, 'state': 'running', 'start_mode': 'auto', 'dependencies': [], 'nssm': None,
            'command_line': '"C:\\Program Files\\containerd\\bin\\containerd.exe" --run-service --log-file %s' % CONTAINERD_LOG}
        yield opened


def test_rotated_names_carry_the_gregorian_date_on_a_thai_node(thai_node):
    # A custom date format takes the year from the current culture's calendar (datetimeformat.cs: cal.GetYear): on a
    # th-TH node (Get-Date).ToString('yyyyMMdd-HHmmss') names the Buddhist year, 543 after the Gregorian one.
    thai_node.write_file(CONTAINERD_LOG, content='x' * 150)
    now = run_on_node(thai_node, "(Get-Date).ToString('yyyy', [System.Globalization.CultureInfo]::InvariantCulture); "
                                 "(Get-Date).ToString('yyyy'); (Get-Culture).Name").output
    assert int(now[1]) == int(now[0]) + 543 and now[2] == 'th-TH'
    code, logs = run(thai_node, [{'path': CONTAINERD_LOG, 'copy_truncate': True}])
    assert code == 0 and logs[CONTAINERD_LOG]['error'] is None
    rotated = logs[CONTAINERD_LOG]['rotated_to'].rsplit('\\', 1)[-1]
    assert rotated.startswith('containerd-' + now[0]), rotated
