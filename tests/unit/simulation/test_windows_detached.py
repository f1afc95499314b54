"""Detached workers in the Windows model: Win32_Process.Create (windows/processes.py, Microsoft's "Create method of the
Win32_Process class"), powershell.exe -File (windows/powershell_exe.py, about_PowerShell_exe), and
hns_network_worker.ps1 run whole through detached_start.ps1 and detached_status.ps1. openvswitch_worker.ps1 runs the
same way in test_windows_ovs.py."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from _detached import run_detached  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import filesystem, run_on_node, system  # noqa: E402  pylint: disable=wrong-import-position

OPERATIONS = 'C:\\ProgramData\\kubewin\\operations\\'


def ok(node, text):
    outcome = run_on_node(node, text)
    assert (outcome.unsupported, outcome.exit_code, outcome.errors) == (None, 0, []), outcome
    return outcome.output


# -- Win32_Process.Create -------------------------------------------------------------------------------------------

CREATE = "$r = Invoke-CimMethod -ClassName Win32_Process -MethodName Create -Arguments @{ CommandLine = '%s' }\n"


def test_create_answers_the_documented_return_values():
    node = SimNode(initial_state('win1', {}))
    # 9 Path Not Found: no such program file; 21 Invalid Parameter: nothing to run.
    assert ok(node, CREATE % 'C:\\nowhere\\tool.exe' + '$r.ReturnValue; $null -eq $r.ProcessId') == ['9', 'True']
    assert ok(node, CREATE % '' + '$r.ReturnValue') == ['21']


def test_a_created_process_runs_on_after_the_call_and_is_gone_once_it_ended():
    # Create returns once the process exists; the script goes on while the process runs (the model runs it once the
    # node's clock is past its start-up, before the next session: processes.run_due).
    node = SimNode(initial_state('win1', {}))
    filesystem.make_directories(node, 'C:\\work')
    filesystem.write_file(node, 'C:\\work\\touch.ps1', b"Set-Content -LiteralPath 'C:\\work\\ran.txt' -Value 'yes'")
    output = ok(node, CREATE % 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -File '
                '"C:\\work\\touch.ps1"' + "$r.ReturnValue; $r.ProcessId.GetType().Name; $r.ProcessId\n"
                "$p = Get-Process -Id $r.ProcessId; $p.ProcessName; $p.StartTime.Kind\n"
                "Test-Path -LiteralPath 'C:\\work\\ran.txt'")
    assert output[:2] == ['0', 'UInt32'] and output[3:] == ['powershell', 'Local', 'False']
    system.pass_time(node, 1)
    assert ok(node, "$null -eq (Get-Process -Id %s -ErrorAction SilentlyContinue)\n"
                    "Get-Content -LiteralPath 'C:\\work\\ran.txt'" % output[2]) == ['True', 'yes']
    assert node.data['processes'][0]['exit_code'] == 0


# -- powershell.exe -File -------------------------------------------------------------------------------------------

SCRIPT = b"""param([string]$Name, [switch]$Loud, [int]$Count)
"$Name $Loud $($Count.GetType().Name) $Count"
$ErrorActionPreference
$null -eq $callerVariable
exit 3
"""


def test_powershell_file_binds_parameters_in_a_fresh_session_and_exits_with_the_script_s_code():
    node = SimNode(initial_state('win1', {}))
    filesystem.make_directories(node, 'C:\\work')
    filesystem.write_file(node, 'C:\\work\\s.ps1', SCRIPT)
    output = ok(node, "$callerVariable = 1\n$ErrorActionPreference = 'SilentlyContinue'\n"
                "& powershell.exe -NoProfile -File C:\\work\\s.ps1 -Name world -Loud -Count 2\n$LASTEXITCODE")
    assert output == ['world True Int32 2', 'Continue', 'True', '3']


def test_powershell_file_exit_codes_of_a_throw_and_of_a_missing_file():
    node = SimNode(initial_state('win1', {}))
    filesystem.make_directories(node, 'C:\\work')
    filesystem.write_file(node, 'C:\\work\\fail.ps1', b"throw 'broken'\n'not reached'")
    outcome = run_on_node(node, "& powershell.exe -File C:\\work\\fail.ps1 2>$null\n$LASTEXITCODE\n"
                                "& powershell.exe -File C:\\work\\none.ps1 2>$null\n$LASTEXITCODE\n"
                                "& powershell.exe -File C:\\work\\fail.txt 2>$null\n$LASTEXITCODE")
    assert (outcome.unsupported, outcome.exit_code) == (None, 0)
    # ExitCodeBadCommandLineParameter, 0xFFFD0000, as a signed process exit code.
    assert outcome.output == ['1', '-196608', '-196608']


def test_powershell_command_exit_codes_follow_the_last_command_unless_the_text_exits():
    # about_PowerShell_exe, -Command: 0 or 1 from $? of the last command (a script or program that set another code
    # gives 1), the number of an `exit` in the command text itself, 1 after a script-terminating error.
    node = SimNode(initial_state('win1', {}))
    filesystem.make_directories(node, 'C:\\work')
    filesystem.write_file(node, 'C:\\work\\s.ps1', b"param($Name)\n\"in script $Name\"\nexit 3")
    runs = {"& C:\\work\\s.ps1 -Name a": ['in script a', '1'],
            "& C:\\work\\s.ps1 -Name b; exit $LASTEXITCODE": ['in script b', '3'],
            "exit 7": ['7'], "'fine'": ['fine', '0'], "throw 'broken'": ['1'],
            "Get-Item -LiteralPath C:\\nowhere": ['1']}
    for command, expected in runs.items():
        output = ok(node, "& powershell.exe -NoProfile -Command '%s' 2>$null\n$LASTEXITCODE" % command.replace("'", "''"))
        assert output == expected, command


def test_a_script_file_called_by_path_runs_in_its_own_scope_and_its_exit_ends_only_it():
    node = SimNode(initial_state('win1', {}))
    filesystem.make_directories(node, 'C:\\work')
    filesystem.write_file(node, 'C:\\work\\s.ps1', b"param($Name)\n$inner = 1\n\"in script $Name $outer\"\nexit 3")
    assert ok(node, "$outer = 'seen'\n& 'C:\\work\\s.ps1' -Name x\n$LASTEXITCODE; $?; $null -eq $inner; 'after'") == [
        'in script x seen', '3', 'False', 'True', 'after']


def test_a_script_file_is_a_command_of_its_pipeline():
    # about_Pipelines: a script without named blocks runs as its end block, over every piped object in $input
    # (about_Automatic_Variables); what it wrote before `exit` is kept and the caller goes on (about_Language_Keywords
    # exit). (A script with a process block is refused: the grammar reads `process { }` as a command.)
    node = SimNode(initial_state('win1', {}))
    filesystem.make_directories(node, 'C:\\work')
    filesystem.write_file(node, 'C:\\work\\p.ps1', b"foreach ($i in $input) { \"got $i\"; if ($i -eq 2) { exit 4 } }")
    assert ok(node, "1, 2, 3 | & 'C:\\work\\p.ps1' | ForEach-Object { \"[$_]\" }\n$LASTEXITCODE; 'after'") == [
        '[got 1]', '[got 2]', '4', 'after']


# -- the execution policy (about_Execution_Policies, about_Group_Policy_Settings) -------------------------------------

def _policy_node(policy=None):
    node = SimNode(initial_state('win1', {'group_policy_execution_policy': policy} if policy else {}))
    filesystem.make_directories(node, 'C:\\work')
    filesystem.write_file(node, 'C:\\work\\s.ps1', b"'ran'")
    return node


LIST = "Get-ExecutionPolicy -List | ForEach-Object { '{0} {1}' -f $_.Scope, $_.ExecutionPolicy }\n"


def test_without_group_policy_a_server_runs_scripts_as_remote_signed_and_the_command_line_sets_the_process_scope():
    node = _policy_node()
    assert ok(node, LIST + "Get-ExecutionPolicy\n& powershell.exe -ExecutionPolicy Bypass -Command "
                           "'Get-ExecutionPolicy -Scope Process; Get-ExecutionPolicy'\n"
                           "& powershell.exe -File C:\\work\\s.ps1") == [
        'MachinePolicy Undefined', 'UserPolicy Undefined', 'Process Undefined', 'CurrentUser Undefined',
        'LocalMachine Undefined', 'RemoteSigned', 'Bypass', 'Bypass', 'ran']


def test_a_group_policy_of_allsigned_overrides_bypass_and_refuses_an_unsigned_script():
    node = _policy_node('AllSigned')
    assert ok(node, LIST + "(Get-ItemProperty HKLM:\\SOFTWARE\\Policies\\Microsoft\\Windows\\PowerShell).ExecutionPolicy\n"
                           "& powershell.exe -NoProfile -ExecutionPolicy Bypass -File C:\\work\\s.ps1 2>&1 | "
                           "ForEach-Object { [string]$_ }\n$LASTEXITCODE") == [
        'MachinePolicy AllSigned', 'UserPolicy Undefined', 'Process Undefined', 'CurrentUser Undefined',
        'LocalMachine Undefined', 'AllSigned',
        'File C:\\work\\s.ps1 cannot be loaded. The file C:\\work\\s.ps1 is not digitally signed. You cannot run this '
        'script on the current system. For more information about running scripts and setting execution policy, see '
        'about_Execution_Policies at https:/go.microsoft.com/fwlink/?LinkID=135170.', '1']
    outcome = run_on_node(node, "& C:\\work\\s.ps1; 'next'")
    assert outcome.output == ['next'] and outcome.errors[0].startswith('File C:\\work\\s.ps1 cannot be loaded.')


def test_a_group_policy_that_disables_scripts_is_restricted_and_remote_signed_runs_local_scripts():
    node = _policy_node('Restricted')
    assert ok(node, "Get-ExecutionPolicy\n& powershell.exe -ExecutionPolicy Bypass -File C:\\work\\s.ps1 2>&1 | "
                    "ForEach-Object { [string]$_ }") == [
        'Restricted', 'File C:\\work\\s.ps1 cannot be loaded because running scripts is disabled on this system. For '
        'more information, see about_Execution_Policies at https:/go.microsoft.com/fwlink/?LinkID=135170.']
    # Scripts the collection writes on the node carry no Mark of the Web: RemoteSigned runs them.
    assert ok(_policy_node('RemoteSigned'), "& powershell.exe -ExecutionPolicy Bypass -File C:\\work\\s.ps1") == ['ran']


# -- the workers, whole, through detached_start and detached_status --------------------------------------------------

def _hns_node(**profile):
    node = SimNode(initial_state('win1', dict({'ip': '10.0.0.11'}, **profile)))
    node.data['features']['Containers'] = 'installed'
    return node


MANAGEMENT = {'adapter': 'Ethernet', 'address': '10.0.0.11', 'prefix_length': 24, 'gateway': '10.0.0.1',
              'dns_servers': ['10.0.0.1'], 'dhcp': False}


def _worker(node, arguments):
    started, status = run_detached(node, 'hns_network_worker', arguments, 'op-1')
    assert started == {'operation_id': 'op-1', 'process_id': started['process_id']}
    return status


def _create(network_type):
    return {'name': 'external', 'type': network_type, 'adapter': 'Ethernet', 'address_prefix': '10.244.11.0/24',
            'gateway': '10.244.11.1', 'vsid': 4096 if network_type == 'Overlay' else None}


@pytest.mark.parametrize('network_type, wipe', [('Overlay', True), ('L2Bridge', False)])
def test_the_hns_worker_creates_the_first_vswitch(network_type, wipe):
    node = _hns_node(wipe_static_ip=wipe)
    arguments = {'remove_ids': [], 'create': _create(network_type), 'management': MANAGEMENT, 'settle_seconds': 10}
    status = _worker(node, arguments)
    [network] = node.data['hns']['networks']
    assert (network['name'], network['type'], network['adapter']) == ('external', network_type, 'Ethernet')
    assert status == {'operation_id': 'op-1', 'state': 'done', 'result': dict(
        status['result'], operation_id='op-1', state='done', removed=[], ip_restored=wipe, error=None)}
    assert status['result']['created']['id'].lower() == network['id'].lower()
    # The vSwitch dropped the network for the profile's seconds, from when the worker created it: the worker runs
    # alongside the session, so its own waits (the settle loop, when the address was wiped) do not shorten the drop
    # for the session's next call (the worker ran when the status probe found it due, a few simulated milliseconds of
    # the session's own calls after it started). The host vNIC has the management configuration (restored when wiped).
    assert not node.reachable()
    assert node.data['unreachable_until'] - node.elapsed() == pytest.approx(node.profile['network_drop_seconds'], abs=0.01)
    vnic = node.adapter('vEthernet (Ethernet)')
    assert (vnic['ipv4'], vnic['gateway'], vnic['dhcp']) == (
        [{'address': '10.0.0.11', 'prefix_length': 24, 'origin': 'Manual'}], '10.0.0.1', False)
    log = filesystem.content_bytes(filesystem.lookup(node, OPERATIONS + 'op-1.log')).decode('ascii')
    assert log.rstrip('\r\n').endswith('finished: done')
    assert ('static IPv4 configuration of \'vEthernet (Ethernet)\' was lost' in log) is wipe


def test_the_hns_worker_removing_an_unknown_network_fails():
    arguments = {'remove_ids': ['00000000-0000-0000-0000-0000000000aa'], 'create': None, 'management': None,
                 'settle_seconds': 10}
    status = _worker(_hns_node(), arguments)
    assert (status['state'], status['result']['removed'], status['result']['created']) == ('failed', [], None)
    assert status['result']['error'] == ('HNS DELETE /networks/00000000-0000-0000-0000-0000000000aa failed: '
                                         'The network was not found. ')


def test_a_worker_that_vanishes_leaves_no_result():
    node = _hns_node(worker_vanishes=True)
    arguments = {'remove_ids': [], 'create': _create('L2Bridge'), 'management': MANAGEMENT, 'settle_seconds': 10}
    started, status = run_detached(node, 'hns_network_worker', arguments, 'op-1')
    assert status == {'operation_id': 'op-1', 'state': 'unknown', 'result': None}
    assert node.data['hns']['networks'] == []
    assert filesystem.lookup(node, OPERATIONS + 'op-1.result.json') is None
    assert filesystem.lookup(node, OPERATIONS + 'op-1.pid') is not None
    assert ok(node, "$null -eq (Get-Process -Id %d -ErrorAction SilentlyContinue)" % started['process_id']) == ['True']


def test_a_restore_that_fails_leaves_the_node_unreachable():
    # The profile's static_ip_restore_fails: New-NetIPAddress on the host vNIC fails (error 5010) and the node never
    # returns at its address.
    node = _hns_node(wipe_static_ip=True, static_ip_restore_fails=True)
    arguments = {'remove_ids': [], 'create': _create('L2Bridge'), 'management': MANAGEMENT, 'settle_seconds': 10}
    status = _worker(node, arguments)
    assert (status['state'], status['result']['ip_restored']) == ('failed', False)
    assert status['result']['error'] == 'Instance MSFT_NetIPAddress already exists'
    assert node.data['unreachable_until'] == 1e18
