"""win_powershell's contract on the engine, point by point, held to the installed ansible.windows' own module
(plugins/modules/win_powershell.ps1 and plugins/action/win_powershell.py) and its integration tests
(tests/integration/targets/win_powershell/tasks of ansible-collections/ansible.windows); tests/simulation/README.md
has the table of the points."""

import contextlib
import importlib.util
import io
import json
import os
import re
import sys

import pytest
from ansible.module_utils import basic

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from kubewin_sim import fake  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.pwsh.values import Unsupported  # noqa: E402
from kubewin_sim.windows import filesystem, win_powershell  # noqa: E402
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402

_MODULE = os.path.join(ROOT, 'tests', 'simulation', 'collections', 'ansible_collections', 'ansible', 'windows',
                       'plugins', 'modules', 'win_powershell.py')
_SPEC = importlib.util.spec_from_file_location('fake_win_powershell_module', _MODULE)
FAKE_MODULE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(FAKE_MODULE)

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


# -- the contract is the installed module's ------------------------------------------------------------------

def _stripped_lines(text):
    return [line.strip() for line in text.splitlines()]


@pytest.mark.parametrize('piece', sorted(win_powershell.MIRRORED))
def test_every_mirrored_piece_is_still_in_the_installed_module(piece):
    # A release of ansible.windows that changes one of these lines changes the contract the fake follows: each line
    # of the piece is a whole line of the installed file, in this order (comments may come between them).
    lines = iter(_stripped_lines(win_powershell.real_source()))
    missing = [line for line in win_powershell.MIRRORED[piece] if line not in lines]
    assert missing == [], piece


def test_the_result_keys_are_the_modules():
    keys = re.findall(r'^\$module\.Result\.(\w+) = ', win_powershell.real_source(), re.M)
    assert sorted(set(keys) - {'msg', 'changed', 'failed'}) == sorted(win_powershell.EMPTY)


def test_every_option_of_the_installed_module_is_simulated_or_refused():
    spec = win_powershell.module_spec()
    handled = {'script', 'parameters', 'sensitive_parameters', 'error_action', 'depth'} | set(fake._OPTIONS)  # pylint: disable=protected-access
    assert sorted(spec['options']) == sorted(handled)
    # Ansible.Basic's spec is AnsibleModule's: the sub-options of sensitive_parameters keep their rules.
    assert spec['options']['sensitive_parameters']['required_together'] == [['username', 'password']]


def _validate(arguments):
    """The fake module's AnsibleModule on these arguments: its params, or the message it fails with."""
    basic._ANSIBLE_ARGS = json.dumps({'ANSIBLE_MODULE_ARGS': arguments}).encode()  # pylint: disable=protected-access
    basic._ANSIBLE_PROFILE = 'legacy'  # pylint: disable=protected-access
    spec = dict(win_powershell.module_spec())
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            module = FAKE_MODULE.BasicModule(argument_spec=spec.pop('options'), **spec)
    except SystemExit:
        return json.loads(out.getvalue())['msg']
    finally:
        basic._ANSIBLE_ARGS = None  # pylint: disable=protected-access
    return module.params


@pytest.mark.parametrize('arguments, message', [
    # The messages ansible.windows' integration tests expect (tests/integration/targets/win_powershell/tasks).
    ({'script': 'x', 'sensitive_parameters': [{'name': 'Param', 'username': 'user'}]},
     'parameters are required together: username, password found in sensitive_parameters'),
    ({'script': 'x', 'sensitive_parameters': [{'name': 'Param', 'value': 'secret1', 'username': 'user'}]},
     'parameters are mutually exclusive: value, username found in sensitive_parameters'),
    ({'script': 'x', 'path': 'abc.ps1'}, 'parameters are mutually exclusive: path, script'),
    ({'script': 'x', 'error_action': 'ignore'},
     'value of error_action must be one of: silently_continue, continue, stop, got: ignore'),
])
def test_the_fake_module_refuses_what_the_real_one_refuses(arguments, message):
    assert _validate(arguments) == message


def test_the_fake_collection_uses_the_installed_action_plugin():
    # A local path becomes the script (plugins/action/win_powershell.py of ansible.windows).
    path = os.path.join(ROOT, 'tests', 'simulation', 'collections', 'ansible_collections', 'ansible', 'windows',
                        'plugins', 'action', 'win_powershell.py')
    spec = importlib.util.spec_from_file_location('shim_under_test', path)
    shim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shim)
    assert shim.ActionModule.__module__ == 'kubewin_sim_installed_win_powershell_action'
    assert shim._INSTALLED.__file__ == win_powershell.real_file(win_powershell.ACTION)  # pylint: disable=protected-access


# -- parameters -------------------------------------------------------------------------------------------------

CREDENTIAL = '''[CmdletBinding()]
param($Credential, $Secret)
$Ansible.Changed = $false
$Ansible.Result = ConvertTo-Json -Compress -InputObject ([ordered]@{
    user = $Credential.UserName; password = $Credential.GetNetworkCredential().Password
    secret_type = $(if ($null -ne $Secret) { $Secret.GetType().FullName })
    secret = (New-Object System.Management.Automation.PSCredential -ArgumentList 'u', $Secret).GetNetworkCredential().Password
})
'''


def test_a_username_binds_a_pscredential_and_an_entry_without_a_value_an_empty_securestring():
    result = invoke(node(), CREDENTIAL, sensitive_parameters=[
        {'name': 'Credential', 'username': 'admin', 'password': 'pass'},
        {'name': 'Secret', 'username': '', 'password': 'ignored'}], error_action='stop')
    assert (result['failed'], result['error']) == (False, []), result['error']
    assert json.loads(result['result']) == {'user': 'admin', 'password': 'pass',
                                            'secret_type': 'System.Security.SecureString', 'secret': ''}


def test_parameter_names_are_one_case_insensitive_hashtable():
    # $parameters = @{} in the module: the later of two names differing in case wins.
    script = 'param($Name)\n$Ansible.Result = $Name'
    assert invoke(node(), script, {'name': 'a', 'NAME': 'b'})['result'] == 'b'


# -- check mode -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('binding, runs', [
    ('[CmdletBinding(SupportsShouldProcess)]', True),
    ('[CmdletBinding(SupportsShouldProcess=$True)]', True),
    ('[CmdletBinding(ConfirmImpact="High", SupportsShouldProcess = $true)]', True),
    # The module compares the argument's text with '$true': any other value, even a true one, is skipped.
    ('[CmdletBinding(SupportsShouldProcess=$false)]', False),
    ('[CmdletBinding(SupportsShouldProcess=1)]', False),
    ('[CmdletBinding()]', False),
])
def test_check_mode_runs_what_the_module_s_ast_test_accepts(binding, runs):
    result = invoke(node(), binding + '\nparam()\n$Ansible.Result = "ran"', check_mode=True)
    assert (result['result'] == 'ran') is runs
    assert result.get('msg') == (None if runs else 'skipped, running in check mode')


def test_a_script_5_1_cannot_parse_is_judged_by_the_module_s_regular_expression():
    # PowerShell 7 syntax: the parser fails, the module matches the text; the script then fails to parse.
    script = '[CmdletBinding(SupportsShouldProcess)]\nparam()\nWrite-Output a && Write-Output b\n'
    result = invoke(node(), script, check_mode=True)
    assert result['failed'] is True
    assert result['error'][0]['category_info']['category'] == 'ParserError'
    skipped = invoke(node(), script.replace('SupportsShouldProcess', 'PositionalBinding=$false'), check_mode=True)
    assert skipped['msg'] == 'skipped, running in check mode'


# -- $Ansible ---------------------------------------------------------------------------------------------------

def test_the_ansible_variable_has_verbosity_and_a_tmpdir_removed_afterwards():
    sim = node()
    script = ('$null = New-Item -Path "$($Ansible.Tmpdir)\\Directory" -ItemType Directory\n'
              '$Ansible.Result = @{ verbosity = $Ansible.Verbosity; tmpdir = $Ansible.Tmpdir;'
              ' exists = Test-Path -LiteralPath $Ansible.Tmpdir }')
    result = invoke(sim, script, verbosity=3)
    assert (result['result']['verbosity'], result['result']['exists']) == (3, True)
    assert re.match(r'^C:\\Users\\Administrator\\AppData\\Local\\Temp\\ansible-moduletmp-\d+-\d+-\d+$',
                    result['result']['tmpdir'])
    assert filesystem.lookup(sim, result['result']['tmpdir']) is None


def test_the_diff_is_returned_when_ansible_asks_for_one():
    script = ("$Ansible.Diff = @{ before = @{ foo = 'foo' }; after = @{ foo = 'bar'; "
              "nested = @{'1' = @{'2' = @{ foo = 'bar' }}} } }")
    result = invoke(node(), script, diff=True)
    # Depth also controls the diff's nesting (the module's integration test).
    assert result['diff'] == {'before': {'foo': 'foo'},
                              'after': {'foo': 'bar', 'nested': {'1': {'2': 'System.Collections.Hashtable'}}}}
    assert 'diff' not in invoke(node(), script)


def test_exit_ends_the_script_without_failing_the_task():
    result = invoke(node(), "'output 1'\nexit 3\n'output 2'")
    assert (result['failed'], result['changed'], result['output']) == (False, True, ['output 1'])


# -- streams ----------------------------------------------------------------------------------------------------

def test_debug_verbose_and_warning_records_and_the_host_output():
    # The module's integration test "write debug/verbose/warning streams".
    result = invoke(node(), "$DebugPreference = 'Continue'\n$VerbosePreference = 'Continue'\n"
                            "$WarningPreference = 'Continue'\nWrite-Debug 'debug'\nWrite-Verbose 'verbose'\n"
                            "Write-Warning 'warning'\nWrite-Verbose -Message 'off' -Verbose:$false")
    assert result['host_out'] == 'DEBUG: debug\r\nVERBOSE: verbose\r\nWARNING: warning\r\n'
    assert (result['debug'], result['verbose'], result['warning']) == (['debug'], ['verbose'], ['warning'])


def test_information_records_and_write_host():
    result = invoke(node(), "Write-Information -MessageData 'data' -Tags tag1\nWrite-Host 'shown'\n"
                            "Write-Host 'no line' -NoNewline")
    first, second, third = result['information']
    assert (first['message_data'], first['source'], first['tags']) == ('data', 'Write-Information', ['tag1'])
    assert re.match(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$', first['time_generated'])
    assert (second['source'], second['tags']) == ('Write-Host', ['PSHOST'])
    assert second['message_data'] == {'Message': 'shown', 'NoNewLine': False, 'ForegroundColor': None,
                                      'BackgroundColor': None}
    assert third['message_data']['NoNewLine'] is True
    # Only Write-Host's records reach the host: $InformationPreference is SilentlyContinue.
    assert result['host_out'] == 'shown\r\nno line'


def test_should_process_writes_what_if_to_the_host():
    script = ("[CmdletBinding(SupportsShouldProcess)]\nparam()\n"
              "$Ansible.Result = $PSCmdlet.ShouldProcess('the node', 'Change')")
    result = invoke(node(), script, check_mode=True)
    assert result['result'] is False
    assert result['host_out'] == 'What if: Performing the operation "Change" on target "the node".\r\n'


# -- error records ----------------------------------------------------------------------------------------------

def test_a_write_error_record_as_the_module_returns_it():
    # The module's integration test "dont fail with error record".
    result = invoke(node(), "'output 1'\nWrite-Error -Message 'error'\n'output 2'")
    record, = result['error']
    assert record['category_info'] == {'activity': 'Write-Error', 'category': 'NotSpecified', 'category_id': 0,
                                       'reason': 'WriteErrorException', 'target_name': '', 'target_type': ''}
    assert record['exception'] == {'message': 'error', 'type': 'Microsoft.PowerShell.Commands.WriteErrorException',
                                   'help_link': None, 'source': None, 'hresult': -2146233087,
                                   'inner_exception': None}
    assert (record['error_details'], record['target_object']) == (None, None)
    assert record['fully_qualified_error_id'] == 'Microsoft.PowerShell.Commands.WriteErrorException'
    assert record['script_stack_trace'] == 'at <ScriptBlock>, <No file>: line 2'
    assert record['output'].startswith('error\r\n    + CategoryInfo          : NotSpecified: (:) [Write-Error], '
                                       'WriteErrorException\r\n')
    assert result['output'] == ['output 1', 'output 2']


def test_a_write_error_with_an_exception_and_every_category_part():
    script = ("$errorParams = @{ Exception = [System.IO.IOException]::new('disk'); Message = 'error message'\n"
              "    Category = 'PermissionDenied'; ErrorId = 'error id'; TargetObject = 'some object'\n"
              "    RecommendedAction = 'recommended action'; CategoryActivity = 'ran pipeline'\n"
              "    CategoryReason = 'touch luck'; CategoryTargetName = 'target'; CategoryTargetType = 'directory' }\n"
              "Write-Error @errorParams")
    record, = invoke(node(), script)['error']
    assert record['category_info'] == {'activity': 'ran pipeline', 'category': 'PermissionDenied', 'category_id': 18,
                                       'reason': 'touch luck', 'target_name': 'target', 'target_type': 'directory'}
    assert record['error_details'] == {'message': 'error message', 'recommended_action': 'recommended action'}
    assert (record['exception']['message'], record['exception']['hresult']) == ('disk', -2146232800)
    assert (record['fully_qualified_error_id'], record['target_object']) == ('error id', 'some object')


def test_a_cmdlet_s_error_names_the_cmdlet_and_where_it_was_called():
    record, = invoke(node(), "'x'\n  Get-Item -LiteralPath C:\\nothing")['error']
    assert record['category_info'] == {'activity': 'Get-Item', 'category': 'ObjectNotFound', 'category_id': 13,
                                       'reason': 'ItemNotFoundException', 'target_name': 'C:\\nothing',
                                       'target_type': 'String'}
    assert record['output'].startswith("Get-Item : Cannot find path 'C:\\nothing' because it does not exist.\r\n"
                                       "At line:2 char:3\r\n+   Get-Item -LiteralPath C:\\nothing\r\n"
                                       "+   ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\r\n")


def test_the_target_object_follows_depth():
    # The module's integration test for ansible.windows#375.
    record, = invoke(node(), "Write-Error -Message err -TargetObject @{'1'=@{'2'=@{'3'=@{'4'=@{foo='bar'}}}}}")['error']
    assert record['target_object'] == {'1': {'2': {'3': 'System.Collections.Hashtable'}}}


def test_a_thrown_error_fails_the_task_with_its_record():
    result = invoke(node(), "'output 1'\nthrow 'exception'\n'output 2'")
    record, = result['error']
    assert (result['failed'], result['output']) == (True, ['output 1'])
    # The thrown value is the record's TargetObject (ExceptionHandlingOps.ConvertToException's SetTargetObject,
    # PowerShell/PowerShell 60b3b304f2 engine/runtime/Operations/MiscOps.cs), so CategoryInfo names it and its type.
    assert record['category_info'] == {'activity': '', 'category': 'OperationStopped', 'category_id': 14,
                                       'reason': 'RuntimeException', 'target_name': 'exception',
                                       'target_type': 'String'}


# -- output -----------------------------------------------------------------------------------------------------

def test_output_is_converted_to_depth():
    # The module's integration test "output with larger depth" and its enum and date entries.
    result = invoke(node(), "@('normal 0', @('normal 1', @('normal 2', @('normal 3', @('squashed', @('even more'))))))\n"
                            "[IO.FileAccess]'Read'", depth=3)
    assert result['output'] == ['normal 0', ['normal 1', ['normal 2', ['normal 3', 'squashed System.Object[]']]],
                                {'Type': 'System.IO.FileAccess', 'String': 'Read', 'Value': 1}]
    # Below the depth an enum is a value type, written as its number; an array is its [string].
    assert invoke(node(), "[IO.FileAccess]::Write\n, @([IO.FileAccess]::Write)", depth=0)['output'] == [2, 'Write']


# -- options ----------------------------------------------------------------------------------------------------

def test_creates_and_removes_skip_as_the_module_s_test_ansible_path_decides():
    sim = node()
    assert invoke(sim, '"ran"', creates='C:\\Windows') == dict(win_powershell.EMPTY, changed=False,
                                                               msg='skipped, since C:\\Windows exists')
    assert invoke(sim, '"ran"', creates='C:\\Missing')['output'] == ['ran']
    assert invoke(sim, '"ran"', removes='C:\\Windows\\Missing\\file.txt')['msg'] == (
        'skipped, since C:\\Windows\\Missing\\file.txt does not exist')
    assert invoke(sim, '"ran"', removes='C:\\Win*')['output'] == ['ran']


def test_a_script_file_of_the_node():
    sim = node()
    filesystem.write_file(sim, 'C:\\script.ps1', 'param($Name)\n"caf\u00e9 $Name"'.encode('utf-8'))
    assert invoke(sim, None, {'Name': 'x'}, path='C:\\script.ps1', remote_src=True)['output'] == ['caf\u00e9 x']
    missing = invoke(sim, None, path='C:\\missing.ps1', remote_src=True)
    assert (missing['failed'], missing['msg']) == (True, "Could not find or access 'C:\\missing.ps1' on Windows host")


@pytest.mark.parametrize('option', ['executable', 'chdir'])
def test_options_that_run_the_script_elsewhere_are_not_simulated(option):
    with pytest.raises(Unsupported):
        invoke(node(), '"x"', **{option: 'C:\\Windows'})
