"""detached_status.ps1, whole, run by the engine on the Windows model: it reads the result file a worker wrote
with lib/worker's Save-WorkerOutcome (Write-KubeWinTextFile: UTF-8 without a byte order mark), run as
win_powershell runs it."""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import run_on_node  # noqa: E402  pylint: disable=wrong-import-position
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
