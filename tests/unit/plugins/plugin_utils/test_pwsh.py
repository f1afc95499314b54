"""The PowerShell runner: parameters stay parameters, errors become clear failures."""

import json
import os

import pytest
from ansible.errors import AnsibleConnectionFailure

from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh


class FakeAction:
    """Stands in for an ActionBase: records _execute_module calls and returns a canned result."""

    def __init__(self, result):
        self.result = result
        self.calls = []

    def _execute_module(self, module_name, module_args, task_vars):
        self.calls.append((module_name, module_args, task_vars))
        return self.result


def test_parameters_are_passed_as_parameters_never_pasted_into_the_script():
    hostile = "x'; Remove-Item C:\\ -Recurse; '"
    status = {'operation_id': 'a', 'state': 'running', 'result': None}
    action = FakeAction({'result': json.dumps(status), 'output': ['noise']})
    answer = _pwsh.run_script(action, 'detached_status', {'OperationId': hostile}, {'inventory_hostname': 'w'})
    assert answer == status
    [(module, args, task_vars)] = action.calls
    assert module == 'ansible.windows.win_powershell'
    assert args['parameters'] == {'OperationId': hostile}
    assert hostile not in args['script']
    assert args['script'] == _pwsh.load_script('detached_status')
    assert args['error_action'] == 'stop'
    assert task_vars == {'inventory_hostname': 'w'}


def test_secrets_go_through_sensitive_parameters():
    action = FakeAction({'result': json.dumps({'operation_id': 'a', 'state': 'unknown', 'result': None})})
    _pwsh.run_script(action, 'detached_status', {'OperationId': 'a'}, secrets={'Token': 's3cret'})
    args = action.calls[0][1]
    assert args['sensitive_parameters'] == [{'name': 'Token', 'value': 's3cret'}]
    assert 's3cret' not in json.dumps(args['parameters'])


def test_script_errors_name_the_script_and_carry_the_error_record():
    record = {'exception': {'message': 'HNS POST /networks/ failed: The parameter is incorrect.'},
              'script_stack_trace': 'at Invoke-KubeWinHns, <No file>: line 31\nat <ScriptBlock>'}
    action = FakeAction({'failed': True, 'error': [record], 'result': {}})
    with pytest.raises(_pwsh.ScriptError) as caught:
        _pwsh.run_script(action, 'hns_network_apply', {})
    error = caught.value
    assert error.script == 'hns_network_apply'
    assert str(error).startswith('hns_network_apply: HNS POST /networks/ failed: The parameter is incorrect.')
    assert 'line 31' in str(error)
    assert error.error_record is record


def test_the_error_that_ended_the_script_is_the_one_reported():
    # win_powershell adds the terminating error's record after the non-terminating ones the script wrote before
    # (ansible.windows plugins/modules/win_powershell.ps1: $ps.Streams.Error.Add($_.Exception.ErrorRecord)).
    earlier = {'exception': {'message': 'Cannot find path C:\\old because it does not exist.'},
               'script_stack_trace': 'at <ScriptBlock>, <No file>: line 4'}
    fatal = {'exception': {'message': 'the download failed'}, 'script_stack_trace': 'at <ScriptBlock>, <No file>: line 9'}
    action = FakeAction({'failed': True, 'error': [earlier, fatal], 'result': {}})
    with pytest.raises(_pwsh.ScriptError) as caught:
        _pwsh.run_script(action, 'artifact_fetch', {})
    assert str(caught.value) == 'artifact_fetch: the download failed (at <ScriptBlock>, <No file>: line 9)'
    assert caught.value.error_record is fatal


def test_failure_without_error_record_uses_the_module_message():
    action = FakeAction({'failed': True, 'msg': 'executable requires PowerShell 5.0 or newer'})
    with pytest.raises(_pwsh.ScriptError, match='node_info: executable requires PowerShell 5.0'):
        _pwsh.run_script(action, 'node_info', {})


@pytest.mark.parametrize('document, complaint', [
    ({}, 'instead of one JSON document'),
    ('not json', 'not JSON'),
])
def test_a_script_must_return_one_json_document(document, complaint):
    with pytest.raises(_pwsh.ScriptError, match=complaint):
        _pwsh.run_script(FakeAction({'result': document}), 'node_info', {})


def test_unreachable_results_become_connection_failures():
    with pytest.raises(AnsibleConnectionFailure, match='timed out'):
        _pwsh.run_script(FakeAction({'unreachable': True, 'msg': 'timed out'}), 'node_info', {})


def test_includes_are_expanded_once_recursively():
    text = _pwsh.load_script('hns_endpoint_apply')
    assert '# kubewin-include:' not in text
    assert text.count('function Invoke-KubeWinHns') == 1
    assert text.count('function Get-KubeWinNodeState') == 1
    assert text.startswith('# kubewin-script: hns_endpoint_apply\n')


def test_every_script_loads_and_declares_should_process_unless_the_node_runs_it():
    for name in sorted(os.listdir(_pwsh.SCRIPT_DIR)):
        if not name.endswith('.ps1'):
            continue
        text = _pwsh.load_script(name[:-4])
        # win_powershell skips scripts without SupportsShouldProcess in check mode; workers are started by
        # detached_start, the log rotation by Task Scheduler (the scheduled_task module) and kube-proxy's start script by
        # the container of its HostProcess pod, never by win_powershell.
        run_by_the_node = name.endswith('_worker.ps1') or name in ('log_rotate.ps1', 'kube_proxy_start.ps1')
        assert ('[CmdletBinding(SupportsShouldProcess)]' in text) != run_by_the_node, name


def test_script_names_are_checked():
    with pytest.raises(ValueError):
        _pwsh.load_script('../etc/passwd')
