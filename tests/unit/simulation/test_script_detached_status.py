"""detached_status.ps1, whole, run by the engine on the Windows model: it reads the result file a worker wrote
with lib/worker's Save-WorkerOutcome (Write-KubeWinTextFile: UTF-8 without a byte order mark), run as
win_powershell runs it."""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from _detached import detached_status, start_detached  # noqa: E402  pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import filesystem, run_on_node, system  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402  pylint: disable=wrong-import-position


def _lib(name):
    with open(os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts', 'lib', name + '.ps1'), encoding='utf-8') as handle:
        return handle.read()


FILES = _lib('files')
WORKER = FILES + _lib('worker')

# What a worker leaves: non-ASCII text (an adapter name, a localized Windows error message).
OUTCOME = {'state': 'failed', 'error': 'Der Netzwerkadapter \u201eEthernet 2\u201c wurde nicht gefunden (Zugriff verweigert) \u2013 \u00e9'}


def worker_result(node, operation_id, outcome):
    """The result file as a worker writes it: lib/worker's Save-WorkerOutcome (ConvertTo-Json, which leaves
    non-ASCII characters as they are, into Write-KubeWinTextFile)."""
    entries = '; '.join("%s = '%s'" % item for item in outcome.items())
    outcome = run_on_node(node, WORKER + "\n$OperationId = '%s'\nSave-WorkerOutcome -Outcome ([ordered]@{ %s })"
                          % (operation_id, entries))
    assert (outcome.unsupported, outcome.exit_code, outcome.errors) == (None, 0, []), outcome


def test_a_finished_worker_s_non_ascii_result_reads_back_as_written():
    # Get-Content -Raw without -Encoding reads a file without a byte order mark in the ANSI code page on 5.1:
    # each UTF-8 sequence became two or three Windows-1252 characters.
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    worker_result(node, 'op-1', OUTCOME)
    result = invoke(node, _pwsh.load_script('detached_status'), {'OperationId': 'op-1'}, error_action='stop')
    assert (result['failed'], result['error']) == (False, [])
    assert json.loads(result['result']) == {'operation_id': 'op-1', 'state': 'failed', 'result': OUTCOME}


def test_a_worker_without_a_result_whose_process_is_gone_is_unknown():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    outcome = run_on_node(node, FILES + "\nWrite-KubeWinTextFile -Path (Get-KubeWinOperationPath -OperationId op-2 "
                                        "-Suffix '.pid') -Text '4242'")
    assert outcome.exit_code == 0, outcome
    result = invoke(node, _pwsh.load_script('detached_status'), {'OperationId': 'op-2'}, error_action='stop')
    assert (result['failed'], result['error']) == (False, [])
    assert json.loads(result['result']) == {'operation_id': 'op-2', 'state': 'unknown', 'result': None}


# -- a worker that runs on, vanishes or is cut off (issue 28, defect 11), and its log (defect 15) --------------------

OPERATIONS = 'C:\\ProgramData\\kubewin\\operations\\'
# A worker that does nothing but report (the HNS worker with nothing to remove or create).
IDLE = {'remove_ids': [], 'create': None, 'management': None, 'settle_seconds': 0}


def ok(node, text):
    outcome = run_on_node(node, text)
    assert (outcome.unsupported, outcome.exit_code, outcome.errors) == (None, 0, []), outcome
    return outcome.output


def _node(**profile):
    node = SimNode(initial_state('win1', dict({'ip': '10.0.0.11'}, **profile)))
    node.data['features']['Containers'] = 'installed'
    return node


def test_a_status_call_while_the_worker_runs_says_running_and_a_later_one_has_its_result():
    node = _node()
    start_detached(node, 'hns_network_worker', IDLE, 'op-3')
    assert detached_status(node, 'op-3') == {'operation_id': 'op-3', 'state': 'running', 'result': None}
    system.pass_time(node, 1)
    assert detached_status(node, 'op-3')['state'] == 'done'


def test_a_worker_whose_process_id_went_to_another_process_is_unknown_at_once():
    # The worker died before it ran; Windows gave its process id to another program (conhost.exe). The id alone
    # says "running" until the module's budget runs out; the start time detached_start read says it is another one.
    node = _node(worker_vanishes=True, worker_pid_reused=True)
    started = start_detached(node, 'hns_network_worker', IDLE, 'op-4')
    system.pass_time(node, 1)
    assert ok(node, "(Get-Process -Id %d).ProcessName" % started['process_id']) == ['conhost']
    assert detached_status(node, 'op-4') == {'operation_id': 'op-4', 'state': 'unknown', 'result': None}


def test_a_result_cut_off_by_a_full_disk_is_never_read_as_the_result():
    # Save-WorkerOutcome's write fails half-way (what fit stays: windows/filesystem.py); the status must not read the
    # half document as the worker's result.
    node = _node()
    outcome = run_on_node(node, FILES + "\nGet-KubeWinOperationPath -OperationId op-5 -Suffix '.pid' | Out-Null")
    assert outcome.exit_code == 0, outcome
    filesystem.fill_volume(node, 20)
    outcome = run_on_node(node, WORKER + "\n$ErrorActionPreference = 'Stop'\n$OperationId = 'op-5'\n"
                                         "Save-WorkerOutcome -Outcome ([ordered]@{ state = "
                                         "'done'; error = $null; created = 'a result longer than the disk has room'})")
    assert outcome.exit_code == 1 and 'There is not enough space on the disk.' in outcome.errors[-1], outcome
    result = invoke(node, _pwsh.load_script('detached_status'), {'OperationId': 'op-5'}, error_action='stop')
    assert (result['failed'], result['error']) == (False, []), result
    assert json.loads(result['result']) == {'operation_id': 'op-5', 'state': 'unknown', 'result': None}


def test_the_worker_log_keeps_non_ascii_text():
    # Add-Content -Encoding ASCII writes each character outside ASCII as '?' (5.1's ASCIIEncoding); the log is UTF-8
    # without a byte order mark, as every file the collection writes.
    node = _node()
    message = OUTCOME['error']
    outcome = run_on_node(node, WORKER + "\n$OperationId = 'op-6'\nWrite-WorkerLog -Message '%s'" % message)
    assert outcome.exit_code == 0, outcome
    data = filesystem.content_bytes(filesystem.lookup(node, OPERATIONS + 'op-6.log'))
    assert data.decode('utf-8').rstrip('\r\n').endswith(' ' + message)
    assert not data.startswith(b'\xef\xbb\xbf')
