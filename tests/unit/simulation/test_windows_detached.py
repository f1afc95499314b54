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
from kubewin_sim.windows import filesystem, run_on_node  # noqa: E402  pylint: disable=wrong-import-position

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


def test_a_created_process_ran_to_its_end_and_is_gone():
    node = SimNode(initial_state('win1', {}))
    filesystem.make_directories(node, 'C:\\work')
    filesystem.write_file(node, 'C:\\work\\touch.ps1', b"Set-Content -LiteralPath 'C:\\work\\ran.txt' -Value 'yes'")
    output = ok(node, CREATE % 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -File '
                '"C:\\work\\touch.ps1"' + "$r.ReturnValue; $r.ProcessId.GetType().Name\n"
                "$null -eq (Get-Process -Id $r.ProcessId -ErrorAction SilentlyContinue)\n"
                "Get-Content -LiteralPath 'C:\\work\\ran.txt'")
    assert output == ['0', 'UInt32', 'True', 'yes']
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
    # for the session's next call. The host vNIC has the management configuration (restored when wiped).
    assert not node.reachable()
    assert node.data['unreachable_until'] - node.elapsed() == node.profile['network_drop_seconds']
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
