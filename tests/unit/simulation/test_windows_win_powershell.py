"""win_powershell's contract on the engine: $Ansible, parameters, check mode, failures, error records."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh.values import Unsupported  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402  pylint: disable=wrong-import-position

SHOULD_PROCESS = '''[CmdletBinding(SupportsShouldProcess)]
param([Parameter(Mandatory)][string]$Name, [securestring]$Secret)
$ErrorActionPreference = 'Stop'
$plain = $null
if ($Secret) { $plain = (New-Object System.Management.Automation.PSCredential -ArgumentList 'u', $Secret).GetNetworkCredential().Password }
$Ansible.Changed = $false
$Ansible.Result = ConvertTo-Json -Compress -InputObject ([ordered]@{
    name = $Name; whatif = [bool]$WhatIfPreference; secret_type = $(if ($Secret) { $Secret.GetType().FullName }); secret = $plain
    adapters = @(Get-NetAdapter | ForEach-Object { $_.Name })
})
'''


def node():
    return SimNode(initial_state('win1', {'ip': '10.0.0.11'}))


def test_result_changed_and_parameters_as_the_module_binds_them():
    result = invoke(node(), SHOULD_PROCESS, {'Name': 'x'}, [{'name': 'Secret', 'value': 'token'}], error_action='stop')
    assert (result['failed'], result['changed'], result['error']) == (False, False, [])
    assert result['result'] == ('{"name":"x","whatif":false,"secret_type":"System.Security.SecureString",'
                                '"secret":"token","adapters":["Ethernet"]}')


def test_check_mode_runs_a_should_process_script_with_whatif():
    result = invoke(node(), SHOULD_PROCESS, {'Name': 'x'}, check_mode=True)
    assert '"whatif":true' in result['result']


def test_check_mode_skips_a_script_without_should_process():
    result = invoke(node(), 'param($Name)\n$Ansible.Result = "ran"', {'Name': 'x'}, check_mode=True)
    assert (result['changed'], result['msg'], result['result']) == (True, 'skipped, running in check mode', {})


def test_a_terminating_error_fails_the_task_with_its_record():
    result = invoke(node(), '$Ansible.Changed = $false\nthrow "no luck"', error_action='stop')
    assert result['failed'] is True and result['changed'] is False
    record, = result['error']
    assert record['exception']['message'] == 'no luck'
    assert record['fully_qualified_error_id'] == 'no luck'


def test_a_parameter_that_does_not_bind_fails_the_task():
    result = invoke(node(), SHOULD_PROCESS, {}, error_action='stop')
    assert result['failed'] is True
    assert 'missing mandatory parameters: Name' in result['error'][0]['exception']['message']


def test_non_terminating_errors_alone_do_not_fail_the_task():
    result = invoke(node(), 'Write-Error "soft"\n$Ansible.Result = "done"', error_action='continue')
    assert (result['failed'], result['result']) == (False, 'done')
    assert [entry['exception']['message'] for entry in result['error']] == ['soft']


def test_an_unsupported_construct_is_a_test_failure_not_a_task_result():
    with pytest.raises(Unsupported):
        invoke(node(), 'class Foo {}')
