"""netsh.exe interface ipv4|ipv6 port ranges (windows/netsh.py), and the ports section of lib/state.ps1 run by the
engine.

Windows' default dynamic range is 49152-65535 for TCP and for UDP (KB 929851); ``add excludedportrange`` marks its
range administered (``*``), keeps it across a restart unless ``store=active``, and fails with exit code 1 on a port in
use, a range that is not there or a reservation that is not administered. The ``ipv6`` context shows and changes the
same store as ``ipv4``: the ranges are the transport's (CreatePersistentTcpPortReservation, Set-NetUDPSetting).
"""

import json

import pytest

from test_windows_scm import STATE, ok, run

from kubewin_sim.node import SimNode, initial_state
from kubewin_sim.pwsh.values import Unsupported
from kubewin_sim.windows import netsh
from kubewin_sim.windows.boot import restart

NETSH = '& "$env:SystemRoot\\System32\\netsh.exe" '


def node_with(**ports):
    node = SimNode(initial_state('win1', {}))
    if ports:
        node.data['tcpip_ports'] = ports
    return node


def netsh_run(node, arguments):
    outcome = run(node, NETSH + arguments + '\n"exit=$LASTEXITCODE"')
    return outcome.output[:-1], outcome.output[-1]


def ports_section(node):
    text = STATE + '\nConvertTo-Json -Compress -Depth 5 -InputObject (Get-KubeWinNodeState -Sections ports)'
    return json.loads(ok(node, text)[-1])['ports']


def test_the_default_dynamic_range_is_the_one_of_kb929851():
    output, code = netsh_run(node_with(), 'interface ipv4 show dynamicport tcp')
    assert code == 'exit=0'
    assert output == ['', 'Protocol tcp Dynamic Port Range', '---------------------------------',
                      'Start Port      : 49152', 'Number of Ports : 16384', '']


def test_an_added_exclusion_is_listed_as_administered_and_persists():
    node = node_with()
    output, code = netsh_run(node, 'int ipv4 add excludedportrange protocol=udp startport=30000 numberofports=2768 '
                                   'store=persistent')
    assert (output, code) == (['Ok.', ''], 'exit=0')
    listed = netsh_run(node, 'interface ipv4 show excludedportrange protocol=udp')[0]
    assert '     30000       32767     *' in listed and listed[-2] == '* - Administered port exclusions.'
    assert netsh_run(node, 'interface ipv4 show excludedportrange protocol=tcp')[0][3:6] == [
        'Start Port    End Port', '----------    --------', '']
    restart(node)
    assert ports_section(node)['udp']['excluded'] == [{'start': 30000, 'end': 32767, 'administered': True}]


def test_an_active_exclusion_goes_at_the_next_boot():
    node = node_with()
    assert netsh_run(node, 'int ipv4 add excludedportrange tcp 30000 2768 active')[1] == 'exit=0'
    assert ports_section(node)['tcp']['excluded'] == [{'start': 30000, 'end': 32767, 'administered': True}]
    restart(node)
    assert ports_section(node)['tcp']['excluded'] == []


def test_a_port_in_use_refuses_the_exclusion():
    node = node_with(in_use={'tcp': [31000]})
    output, code = netsh_run(node, 'int ipv4 add excludedportrange protocol=tcp startport=30000 numberofports=2768')
    assert (output, code) == ([netsh.IN_USE, ''], 'exit=1')
    assert ports_section(node)['tcp']['excluded'] == []


def test_delete_removes_an_administered_exclusion_only():
    reserved = {'start': 50000, 'end': 50059, 'administered': False, 'persistent': True}
    node = node_with(excluded={'tcp': [reserved]})
    assert netsh_run(node, 'int ipv4 delete excludedportrange protocol=tcp startport=50000 numberofports=60') == (
        [netsh.DENIED, ''], 'exit=1')
    assert netsh_run(node, 'int ipv4 delete excludedportrange protocol=tcp startport=30000 numberofports=2768') == (
        [netsh.NOT_FOUND, ''], 'exit=1')
    netsh_run(node, 'int ipv4 add excludedportrange protocol=tcp startport=30000 numberofports=2768')
    assert netsh_run(node, 'int ipv4 delete excludedportrange protocol=tcp startport=30000 numberofports=2768') == (
        ['Ok.', ''], 'exit=0')
    assert ports_section(node)['tcp']['excluded'] == [{'start': 50000, 'end': 50059, 'administered': False}]


def test_values_out_of_range_are_incorrect_parameters():
    node = node_with()
    for arguments in ('int ipv4 add excludedportrange protocol=tcp startport=65000 numberofports=1000',
                      'int ipv4 add excludedportrange protocol=sctp startport=30000 numberofports=10',
                      'int ipv4 show dynamicport protocol=icmp'):
        assert netsh_run(node, arguments) == ([netsh.INVALID, ''], 'exit=1'), arguments


def test_what_is_not_modelled_is_unsupported():
    node = node_with(excluded={'tcp': [{'start': 30500, 'end': 30599, 'administered': False, 'persistent': True}]})
    for argv in (['int', 'ip', 'show', 'dynamicport', 'tcp'], ['int', 'ipv6', 'set', 'dynamicport', 'tcp', 'start=10000', 'num=1000'],
                 ['advfirewall', 'show', 'allprofiles', 'state'],
                 ['int', 'ipv4', 'add', 'excludedportrange', 'protocol=tcp', 'startport=30000', 'numberofports=2768']):
        with pytest.raises(Unsupported):
            netsh.run(node, argv)


def test_ipv6_shows_and_changes_the_store_of_ipv4():
    # One dynamic range and one set of exclusions per transport, whichever family's context names them.
    node = node_with(dynamic={'tcp': [1025, 64511]})
    assert netsh_run(node, 'interface ipv6 show dynamicport tcp')[0][3:5] == [
        'Start Port      : 1025', 'Number of Ports : 64511']
    assert netsh_run(node, 'int ipv4 add excludedportrange protocol=tcp startport=30000 numberofports=2768')[1] == 'exit=0'
    assert '     30000       32767     *' in netsh_run(node, 'interface ipv6 show excludedportrange protocol=tcp')[0]
    # The same range again through the other context overlaps the reservation it made: ERROR_SHARING_VIOLATION.
    assert netsh_run(node, 'int ipv6 add excludedportrange protocol=tcp startport=30000 numberofports=2768') == (
        [netsh.IN_USE, ''], 'exit=1')
    assert netsh_run(node, 'int ipv6 delete excludedportrange protocol=tcp startport=30000 numberofports=2768') == (
        ['Ok.', ''], 'exit=0')
    assert ports_section(node)['tcp']['excluded'] == []


def test_the_ports_section_reports_the_numbers():
    node = node_with(dynamic={'tcp': [10000, 55536]},
                     excluded={'udp': [{'start': 5357, 'end': 5357, 'administered': False, 'persistent': True}]})
    assert ports_section(node) == {
        'tcp': {'dynamic_start': 10000, 'dynamic_count': 55536, 'excluded': []},
        'udp': {'dynamic_start': 49152, 'dynamic_count': 16384,
                'excluded': [{'start': 5357, 'end': 5357, 'administered': False}]},
    }
