"""lib/netconfig.ps1 run by the PowerShell engine against the Windows model of a simulated node.

The first scripts to run for real: how Get-KubeWinAdapters and Get-KubeWinStaticRoutes answer for
one adapter, two, no static route, one and two, as lib/state.ps1 puts them into node_info's JSON.
"""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import run_on_node  # noqa: E402  pylint: disable=wrong-import-position

with open(os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts', 'lib', 'netconfig.ps1'), encoding='utf-8') as handle:
    NETCONFIG = handle.read()

# As lib/state.ps1 uses them: the function's answer assigned to a key of the state, then ConvertTo-Json.
STATE_OF = '\n$state = [ordered]@{}\n$state.%s = %s\nConvertTo-Json -InputObject $state -Depth 10 -Compress\n'


def answer(node, key, function):
    outcome = run_on_node(node, NETCONFIG + STATE_OF % (key, function))
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    return json.loads(outcome.output[-1])[key]


def fresh_node():
    return SimNode(initial_state('win1', {'ip': '10.0.0.11'}))


def test_one_adapter_is_a_list_of_one():
    # PowerShell unrolls `return @(...)`: before the unary comma, one adapter became an object here.
    adapters = answer(fresh_node(), 'adapters', 'Get-KubeWinAdapters')
    assert isinstance(adapters, list) and [adapter['name'] for adapter in adapters] == ['Ethernet']


def test_two_adapters_after_a_vswitch():
    node = fresh_node()
    node.data['hns']['networks'].append({'id': 'n1', 'name': 'cbr0', 'type': 'L2Bridge', 'adapter': 'Ethernet'})
    node._bind_vswitch('Ethernet')  # pylint: disable=protected-access
    adapters = answer(node, 'adapters', 'Get-KubeWinAdapters')
    assert [(a['name'], a['virtual'], a['physical_adapter'], a['default_route']) for a in adapters] == [
        ('Ethernet', False, None, False), ('vEthernet (Ethernet)', True, 'Ethernet', True)]


def test_the_adapter_facts_match_the_node():
    adapter, = answer(fresh_node(), 'adapters', 'Get-KubeWinAdapters')
    assert adapter == {
        'name': 'Ethernet', 'description': 'Microsoft Hyper-V Network Adapter', 'if_index': 4,
        'mac_address': '00-15-5D-00-00-0B', 'status': 'Up', 'virtual': False, 'physical_adapter': None,
        'default_route': True, 'ipv4': [{'address': '10.0.0.11', 'prefix_length': 24, 'origin': 'Manual'}],
        'gateway': '10.0.0.1', 'dns_servers': ['10.0.0.1'], 'dhcp': False, 'ipv6': []}


def test_a_dual_stack_adapter_reports_its_ipv6_address_but_not_its_link_local_one():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'ipv6': 'fd00:127:130::41/64'}))
    adapter, = answer(node, 'adapters', 'Get-KubeWinAdapters')
    assert adapter['ipv6'] == [{'address': 'fd00:127:130::41', 'prefix_length': 64, 'origin': 'Manual'}]


@pytest.mark.parametrize('count', [0, 1, 2])
def test_static_routes_are_a_list_of_any_length(count):
    # No route used to be JSON null and one route an object: node_routes iterates this list.
    node = fresh_node()
    for index in range(count):
        node.add_route('10.244.%d.0/24' % index, '10.0.0.%d' % (20 + index), 'Ethernet', 256)
    routes = answer(node, 'routes', 'Get-KubeWinStaticRoutes')
    assert isinstance(routes, list) and len(routes) == count
    assert routes == [{'destination': '10.244.%d.0/24' % index, 'next_hop': '10.0.0.%d' % (20 + index),
                       'interface_alias': 'Ethernet', 'interface_index': 4, 'metric': 256, 'active': True,
                       'persistent': True} for index in range(count)]


# -- adapters without an IP interface, and the choice of the default route --------------------------------------------

# A node with a second NIC that holds a DHCP gateway but that the administrator made the least preferred (interface
# metric 500), and a third NIC that is disabled (windows/nettcpip.py: no IP interface, no DNS entry for it).
TWO_GATEWAYS = {'ip': '10.0.0.11', 'extra_adapters': [
    {'name': 'Ethernet 2', 'ip': '192.168.50.11', 'gateway': '192.168.50.1', 'dhcp': True, 'interface_metric': 500},
    {'name': 'Ethernet 3', 'status': 'Disabled'}]}


def test_a_disabled_adapter_and_one_bound_to_a_vswitch_have_no_dns_servers():
    # Get-DnsClientServerAddress finds no entry for an adapter without an IP interface, and @($null.ServerAddresses)
    # was a list of one $null: "dns_servers[0] must be a string, got null" on every node after its first vSwitch.
    node = SimNode(initial_state('win1', TWO_GATEWAYS))
    node.data['hns']['networks'].append({'id': 'n1', 'name': 'cbr0', 'type': 'L2Bridge', 'adapter': 'Ethernet'})
    node._bind_vswitch('Ethernet')  # pylint: disable=protected-access
    adapters = answer(node, 'adapters', 'Get-KubeWinAdapters')
    assert [(a['name'], a['status'], a['ipv4'], a['dns_servers'], a['dhcp']) for a in adapters] == [
        ('Ethernet', 'Up', [], [], False),
        ('Ethernet 2', 'Up', [{'address': '192.168.50.11', 'prefix_length': 24, 'origin': 'Dhcp'}], [], True),
        ('Ethernet 3', 'Disabled', [], [], False),
        ('vEthernet (Ethernet)', 'Up', [{'address': '10.0.0.11', 'prefix_length': 24, 'origin': 'Manual'}],
         ['10.0.0.1'], False)]
    _contracts.check('node_info', {'sections': ['adapters'], 'adapters': adapters})


def test_the_default_route_is_the_one_of_the_lowest_route_and_interface_metric():
    # Get-NetRoute's page (-RouteMetric): Windows adds the interface metric and takes the lowest sum. Ethernet: 256 + 15
    # (10 Gbps); Ethernet 2: 0 (a DHCP gateway) + 500. Sorting by RouteMetric alone took Ethernet 2.
    adapters = answer(SimNode(initial_state('win1', TWO_GATEWAYS)), 'adapters', 'Get-KubeWinAdapters')
    assert [(a['name'], a['default_route']) for a in adapters] == [
        ('Ethernet', True), ('Ethernet 2', False), ('Ethernet 3', False)]


@pytest.mark.parametrize('speeds, chosen', [((10 ** 10, 10 ** 9), 'Ethernet'), ((10 ** 9, 10 ** 10), 'Ethernet 2')])
def test_two_static_gateways_the_faster_interface_wins(speeds, chosen):
    # Both gateways set by hand (RouteMetric 256 each): the automatic interface metric of the faster link (KB 299540:
    # 10 Gb 15, 1 Gb 25) decides. With RouteMetric alone the two tie, and 5.1's Sort-Object (an unstable sort) swaps
    # two equal items: the script took whichever route Windows listed second.
    profile = {'ip': '10.0.0.11', 'link_speed': speeds[0], 'extra_adapters': [
        {'name': 'Ethernet 2', 'ip': '192.168.50.11', 'gateway': '192.168.50.1', 'link_speed': speeds[1]}]}
    adapters = answer(SimNode(initial_state('win1', profile)), 'adapters', 'Get-KubeWinAdapters')
    assert [a['name'] for a in adapters if a['default_route']] == [chosen]
