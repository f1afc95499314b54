"""Detached workers in the Windows model: Win32_Process.Create (windows/processes.py, Microsoft's "Create method of the
Win32_Process class"), powershell.exe -File (windows/powershell_exe.py, about_PowerShell_exe), and
hns_network_worker.ps1 run whole through detached_start.ps1 and detached_status.ps1, each compared with the twins
(handlers/core.py) on an equivalent node. openvswitch_worker.ps1 runs the same way in test_windows_ovs.py."""

import json
import os
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from _detached import run_detached, twin_detached  # noqa: E402  pylint: disable=wrong-import-position
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


def _both(node, worker, arguments, monkeypatch):
    """Both runs, each on its own copy of the node, with the same GUIDs."""
    runs = []
    for runner in (run_detached, twin_detached):
        counter = iter(range(1, 1000))
        monkeypatch.setattr('kubewin_sim.node.new_guid', lambda: '00000000-0000-0000-0000-%012d' % next(counter))
        copy = SimNode(json.loads(json.dumps(node.data)))
        runs.append(runner(copy, worker, arguments, 'op-1') + (copy,))
    return runs


MANAGEMENT = {'adapter': 'Ethernet', 'address': '10.0.0.11', 'prefix_length': 24, 'gateway': '10.0.0.1',
              'dns_servers': ['10.0.0.1'], 'dhcp': False}


@pytest.mark.parametrize('network_type, wipe', [('Overlay', True), ('L2Bridge', False)])
def test_the_hns_worker_creates_the_first_vswitch_as_the_twin_does(network_type, wipe, monkeypatch):
    node = _hns_node(wipe_static_ip=wipe)
    arguments = {'remove_ids': [], 'create': {'name': 'external', 'type': network_type, 'adapter': 'Ethernet',
                                              'address_prefix': '10.244.11.0/24', 'gateway': '10.244.11.1',
                                              'vsid': 4096 if network_type == 'Overlay' else None},
                 'management': MANAGEMENT, 'settle_seconds': 10}
    (started, status, real), (twin_started, twin_status, twin) = _both(node, 'hns_network_worker', arguments,
                                                                       monkeypatch)
    assert started == dict(twin_started, process_id=started['process_id'])
    assert status == json.loads(json.dumps(twin_status))
    assert (status['state'], status['result']['ip_restored'], status['result']['error']) == ('done', wipe, None)
    # The vSwitch dropped the network; the host vNIC has the management configuration (restored when wiped).
    assert real.data['unreachable_until'] > time.time() and twin.data['unreachable_until'] > time.time()
    assert real.data['adapters'] == twin.data['adapters'] and real.data['hns'] == twin.data['hns']
    vnic = real.adapter('vEthernet (Ethernet)')
    assert (vnic['ipv4'], vnic['gateway'], vnic['dhcp']) == (
        [{'address': '10.0.0.11', 'prefix_length': 24, 'origin': 'Manual'}], '10.0.0.1', False)
    log = filesystem.content_bytes(filesystem.lookup(real, OPERATIONS + 'op-1.log')).decode('ascii')
    assert log.rstrip('\r\n').endswith('finished: done')
    assert ('static IPv4 configuration of \'vEthernet (Ethernet)\' was lost' in log) is wipe


def test_the_hns_worker_removing_an_unknown_network_fails_as_the_twin_does(monkeypatch):
    arguments = {'remove_ids': ['00000000-0000-0000-0000-0000000000aa'], 'create': None, 'management': None,
                 'settle_seconds': 10}
    (_, status, _), (_, twin_status, _) = _both(_hns_node(), 'hns_network_worker', arguments, monkeypatch)
    assert status['state'] == twin_status['state'] == 'failed'
    assert status['result']['removed'] == twin_status['result']['removed'] == []


def test_a_worker_that_vanishes_leaves_no_result_as_in_the_twin(monkeypatch):
    node = _hns_node(worker_vanishes=True)
    arguments = {'remove_ids': [], 'create': {'name': 'external', 'type': 'L2Bridge', 'adapter': 'Ethernet',
                                              'address_prefix': '10.244.11.0/24', 'gateway': '10.244.11.1',
                                              'vsid': None},
                 'management': MANAGEMENT, 'settle_seconds': 10}
    (started, status, real), (_, twin_status, twin) = _both(node, 'hns_network_worker', arguments, monkeypatch)
    assert status == twin_status == {'operation_id': 'op-1', 'state': 'unknown', 'result': None}
    assert real.data['hns']['networks'] == twin.data['hns']['networks'] == []
    assert filesystem.lookup(real, OPERATIONS + 'op-1.result.json') is None
    assert filesystem.lookup(real, OPERATIONS + 'op-1.pid') is not None
    assert ok(real, "$null -eq (Get-Process -Id %d -ErrorAction SilentlyContinue)" % started['process_id']) == ['True']


def test_a_restore_that_fails_leaves_the_node_unreachable_as_in_the_twin(monkeypatch):
    # The profile's static_ip_restore_fails: New-NetIPAddress on the host vNIC fails (error 5010) and the node never
    # returns at its address. The twin words the error its own way.
    node = _hns_node(wipe_static_ip=True, static_ip_restore_fails=True)
    arguments = {'remove_ids': [], 'create': {'name': 'external', 'type': 'L2Bridge', 'adapter': 'Ethernet',
                                              'address_prefix': '10.244.11.0/24', 'gateway': '10.244.11.1',
                                              'vsid': None},
                 'management': MANAGEMENT, 'settle_seconds': 10}
    (_, status, real), (_, twin_status, twin) = _both(node, 'hns_network_worker', arguments, monkeypatch)
    assert (status['state'], status['result']['ip_restored']) == (twin_status['state'], False) == ('failed', False)
    assert status['result']['error'] == 'Instance MSFT_NetIPAddress already exists'
    assert real.data['unreachable_until'] == twin.data['unreachable_until'] == 1e18
