"""Static routes (kubewin_sim/windows/nettcpip.py: New-NetRoute, Remove-NetRoute over node.data['routes']) and
node_routes_apply.ps1, whole, run by the engine the way win_powershell runs it."""

import copy
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import run_on_node  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402  pylint: disable=wrong-import-position


def fresh_node():
    return SimNode(initial_state('win1', {'ip': '10.0.0.11'}))


def ok(node, text):
    outcome = run_on_node(node, text)
    assert (outcome.unsupported, outcome.exit_code, outcome.errors) == (None, 0, []), outcome
    return outcome.output


def stored(node):
    return [(r['destination'], r['next_hop'], r['interface_index'], r['metric'], r['active'], r['persistent'])
            for r in node.data['routes']]


# -- what Windows shows by default ------------------------------------------------------------------

def _bound_node():
    """A node whose Ethernet an external vSwitch took (its address on the host vNIC), with a disabled second NIC."""
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'extra_adapters': [{'name': 'Ethernet 2', 'status': 'Disabled'}]}))
    node.data['hns']['networks'].append({'id': 'n1', 'name': 'cbr0', 'type': 'L2Bridge', 'adapter': 'Ethernet'})
    node._bind_vswitch('Ethernet')  # pylint: disable=protected-access
    return node


def test_get_netipaddress_has_the_loopback_and_a_link_local_address_per_interface():
    # Get-NetIPAddress without parameters: "the entire IP address configuration for the computer".
    out = ok(fresh_node(), 'Get-NetIPAddress | ForEach-Object { "$($_.IPAddress)/$($_.PrefixLength) $($_.InterfaceIndex) '
                           '$($_.PrefixOrigin) $($_.SuffixOrigin) $($_.AddressState)" }')
    assert out == ['::1/128 1 WellKnown WellKnown Preferred', 'fe80::215:5dff:fe00:b%4/64 4 WellKnown Link Preferred',
                   '127.0.0.1/8 1 WellKnown WellKnown Preferred', '10.0.0.11/24 4 Manual Manual Preferred']


def test_get_netroute_has_the_on_link_host_broadcast_and_multicast_routes():
    out = ok(fresh_node(), 'Get-NetRoute | ForEach-Object { "$($_.ifIndex) $($_.DestinationPrefix) $($_.NextHop) '
                           '$($_.RouteMetric) $($_.Protocol)" }')
    assert out == ['1 127.0.0.0/8 0.0.0.0 256 Local', '1 127.0.0.1/32 0.0.0.0 256 Local',
                   '1 127.255.255.255/32 0.0.0.0 256 Local', '1 224.0.0.0/4 0.0.0.0 256 Local',
                   '1 255.255.255.255/32 0.0.0.0 256 Local', '4 10.0.0.0/24 0.0.0.0 256 Local',
                   '4 10.0.0.11/32 0.0.0.0 256 Local', '4 10.0.0.255/32 0.0.0.0 256 Local',
                   '4 224.0.0.0/4 0.0.0.0 256 Local', '4 255.255.255.255/32 0.0.0.0 256 Local',
                   '4 0.0.0.0/0 10.0.0.1 256 NetMgmt', '1 ::1/128 :: 256 Local', '1 ff00::/8 :: 256 Local',
                   '4 fe80::/64 :: 256 Local', '4 fe80::215:5dff:fe00:b/128 :: 256 Local', '4 ff00::/8 :: 256 Local']


def test_a_dhcp_gateway_has_route_metric_0_and_the_interface_metric_follows_the_link_speed():
    # KB 299540 (Windows 10 and later): 10 Gb and more 15, 1 Gb 25, 100 Mb 35; the loopback's 75.
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'dhcp': True, 'link_speed': 10 ** 9, 'extra_adapters': [
        {'name': 'Ethernet 2', 'ip': '10.1.0.11', 'link_speed': 10 ** 8},
        {'name': 'Ethernet 3', 'ip': '10.2.0.11', 'interface_metric': 500}]}))
    out = ok(node, "Get-NetIPInterface -AddressFamily IPv4 | ForEach-Object { \"$($_.InterfaceAlias) $($_.InterfaceMetric) "
                   "$($_.AutomaticMetric)\" }\n(Get-NetRoute -DestinationPrefix 0.0.0.0/0).RouteMetric\n"
                   "(Get-NetAdapter).LinkSpeed")
    assert out == ['Loopback Pseudo-Interface 1 75 Enabled', 'Ethernet 25 Enabled', 'Ethernet 2 35 Enabled',
                   'Ethernet 3 500 Disabled', '0', '1 Gbps', '100 Mbps', '10 Gbps']


def test_an_adapter_bound_to_a_vswitch_or_disabled_has_no_ip_interface():
    node = _bound_node()
    out = ok(node, "(Get-NetAdapter | ForEach-Object { $_.Name + ':' + $_.Status + ':' + $_.InterfaceDescription }) -join ','\n"
                   "(Get-NetIPInterface -AddressFamily IPv4 | ForEach-Object { $_.InterfaceAlias }) -join ','\n"
                   "(Get-DnsClientServerAddress | ForEach-Object { '{0}/{1}' -f $_.InterfaceIndex, $_.AddressFamily }) -join ','")
    assert out == ['Ethernet:Up:Microsoft Hyper-V Network Adapter,Ethernet 2:Disabled:Microsoft Hyper-V Network Adapter #2,'
                   'vEthernet (Ethernet):Up:Hyper-V Virtual Ethernet Adapter',
                   'Loopback Pseudo-Interface 1,vEthernet (Ethernet)', '6/2,6/23,1/2,1/23']
    for command in ('Get-NetIPInterface', 'Get-NetIPAddress', 'Get-NetRoute', 'Get-DnsClientServerAddress'):
        outcome = run_on_node(node, '%s -InterfaceIndex 4' % command)
        assert (outcome.output, len(outcome.errors)) == ([], 1), command
        assert 'No matching' in outcome.errors[0]


def test_get_netadapter_include_hidden_adds_each_vswitch_adapter():
    node = _bound_node()
    out = ok(node, "(Get-NetAdapter -IncludeHidden | ForEach-Object { '{0}|{1}|{2}' -f $_.ifIndex, $_.Name, "
                   "$_.InterfaceDescription }) -join ','\n(Get-NetAdapter).Count\n(Get-NetAdapter -Physical).Count")
    assert out == ['4|Ethernet|Microsoft Hyper-V Network Adapter,5|Ethernet 2|Microsoft Hyper-V Network Adapter #2,'
                   '6|vEthernet (Ethernet)|Hyper-V Virtual Ethernet Adapter,'
                   '7|vSwitch (cbr0)|Hyper-V Virtual Switch Extension Adapter', '3', '2']


def test_dns_servers_per_interface_and_family():
    # An interface without any server shows the site-local defaults for IPv6, as the loopback always does.
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'extra_adapters': [{'name': 'Ethernet 2', 'ip': '10.1.0.11'}]}))
    out = ok(node, "Get-DnsClientServerAddress | ForEach-Object { '{0} {1} {2}' -f $_.InterfaceAlias, $_.AddressFamily, "
                   "($_.ServerAddresses -join ',') }")
    site_local = 'fec0:0:0:ffff::1,fec0:0:0:ffff::2,fec0:0:0:ffff::3'
    assert out == ['Ethernet 2 10.0.0.1', 'Ethernet 23 ', 'Ethernet 2 2 ', 'Ethernet 2 23 ' + site_local,
                   'Loopback Pseudo-Interface 1 2 ', 'Loopback Pseudo-Interface 1 23 ' + site_local]


def test_find_netroute_takes_the_lowest_route_and_interface_metric():
    # Find-NetRoute's page: the local address, then the route. Ethernet 256 + 15 beats Ethernet 2's DHCP route 0 + 500.
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'extra_adapters': [
        {'name': 'Ethernet 2', 'ip': '192.168.50.11', 'gateway': '192.168.50.1', 'dhcp': True, 'interface_metric': 500}]}))
    out = ok(node, "$a, $r = Find-NetRoute -RemoteIPAddress 198.51.100.1\n$a.IPAddress; $r.InterfaceAlias; $r.NextHop\n"
                   "(Find-NetRoute -RemoteIPAddress 192.168.50.7)[1].DestinationPrefix")
    assert out == ['10.0.0.11', 'Ethernet', '10.0.0.1', '192.168.50.0/24']
    node.adapter('Ethernet 2')['interface_metric'] = 271
    outcome = run_on_node(node, 'Find-NetRoute -RemoteIPAddress 198.51.100.1')
    assert outcome.exit_code == 2 and 'equal metric' in outcome.unsupported


def test_an_unmodelled_filter_is_refused():
    outcome = run_on_node(fresh_node(), 'Get-NetRoute -RouteMetric 256')
    assert outcome.exit_code == 2 and 'Get-NetRoute -RouteMetric' in outcome.unsupported


# -- the cmdlets ------------------------------------------------------------------------------------

def test_new_netroute_writes_both_stores_and_returns_an_instance_of_each():
    node = fresh_node()
    out = ok(node, '$r = New-NetRoute -DestinationPrefix 10.244.1.0/24 -InterfaceAlias Ethernet -NextHop 10.0.0.21\n'
                   '$r.Count; $r | ForEach-Object { $_.PolicyStore + " " + $_.RouteMetric + " " + [string]$_.Protocol }')
    assert out == ['2', 'ActiveStore 256 NetMgmt', 'PersistentStore 256 NetMgmt']
    assert stored(node) == [('10.244.1.0/24', '10.0.0.21', 4, 256, True, True)]


def _wiped_vnic(node):
    """A host vNIC that came up with a link-local address and DHCP (what the wipe_static_ip profile makes)."""
    vnic = dict(copy.deepcopy(node.adapter('Ethernet')), name='vEthernet (Ethernet)', if_index=7, gateway=None,
                dns_servers=[], dhcp=True, ipv4=[{'address': '169.254.7.17', 'prefix_length': 16, 'origin': 'WellKnown'}])
    node.data['adapters'].append(vnic)
    return vnic


def test_restoring_a_static_address_on_a_wiped_host_vnic():
    # New-NetIPAddress's page: adding an address where DHCP is enabled disables DHCP; one instance per store.
    node = fresh_node()
    vnic = _wiped_vnic(node)
    out = ok(node, "Get-NetIPAddress -InterfaceAlias 'vEthernet (Ethernet)' -AddressFamily IPv4 | Remove-NetIPAddress "
                   "-Confirm:$false\n$a = New-NetIPAddress -InterfaceAlias 'vEthernet (Ethernet)' -IPAddress 10.0.0.11 "
                   "-PrefixLength 24 -DefaultGateway 10.0.0.1\n$a.Count; [string]$a[0].PrefixOrigin\n"
                   "Set-DnsClientServerAddress -InterfaceAlias 'vEthernet (Ethernet)' -ServerAddresses @('10.0.0.2', '10.0.0.3')")
    assert out == ['2', 'Manual']
    assert (vnic['ipv4'], vnic['gateway'], vnic['dhcp'], vnic['dns_servers']) == (
        [{'address': '10.0.0.11', 'prefix_length': 24, 'origin': 'Manual'}], '10.0.0.1', False, ['10.0.0.2', '10.0.0.3'])


def test_new_netipaddress_of_an_address_the_interface_has_is_error_5010():
    outcome = run_on_node(fresh_node(), 'New-NetIPAddress -InterfaceAlias Ethernet -IPAddress 10.0.0.11 -PrefixLength 24\n'
                                        "'next'")
    assert (outcome.exit_code, outcome.output, outcome.errors) == (0, ['next'], ['Instance MSFT_NetIPAddress already exists'])


def test_removing_a_manual_address_held_by_both_stores_is_not_modelled():
    outcome = run_on_node(fresh_node(), 'Get-NetIPAddress -InterfaceAlias Ethernet | Remove-NetIPAddress -Confirm:$false')
    assert outcome.exit_code == 2 and 'manual address 10.0.0.11' in outcome.unsupported


def test_new_netroute_in_the_active_store_only_is_lost_at_boot():
    node = fresh_node()
    ok(node, '$null = New-NetRoute 10.244.1.0/24 -InterfaceIndex 4 -NextHop 10.0.0.21 -RouteMetric 10 -PolicyStore ActiveStore')
    assert stored(node) == [('10.244.1.0/24', '10.0.0.21', 4, 10, True, False)]


def test_new_netroute_of_an_existing_route_is_a_non_terminating_error():
    node = fresh_node()
    node.add_route('10.244.1.0/24', '10.0.0.21', 'Ethernet', 256)
    outcome = run_on_node(node, 'New-NetRoute -DestinationPrefix 10.244.1.0/24 -InterfaceAlias Ethernet -NextHop 10.0.0.21\n'
                                "'after'")
    assert outcome.output == ['after'] and outcome.errors == ['Instance MSFT_NetRoute already exists']
    assert stored(node) == [('10.244.1.0/24', '10.0.0.21', 4, 256, True, True)]


def test_remove_netroute_removes_the_piped_instance_from_its_store():
    node = fresh_node()
    node.add_route('10.244.1.0/24', '10.0.0.21', 'Ethernet', 256)
    ok(node, 'Get-NetRoute -DestinationPrefix 10.244.1.0/24 -PolicyStore ActiveStore | Remove-NetRoute -Confirm:$false')
    assert stored(node) == [('10.244.1.0/24', '10.0.0.21', 4, 256, False, True)]
    ok(node, 'Get-NetRoute -DestinationPrefix 10.244.1.0/24 -PolicyStore PersistentStore | Remove-NetRoute -Confirm:$false')
    assert stored(node) == []


# -- node_routes_apply.ps1 --------------------------------------------------------------------------

def test_node_routes_apply_removes_and_adds_every_route_of_its_lists():
    # The lists used to be JSON text through ConvertFrom-Json, which in 5.1 writes a parsed array as one object:
    # the loop ran once with the whole array, and two routes to remove or add failed the script.
    node = fresh_node()
    for index in (1, 2, 3):
        node.add_route('10.244.%d.0/24' % index, '10.0.0.%d' % (20 + index), 'Ethernet', 256)
    node.data['routes'][2]['active'] = False  # 10.244.3.0/24 is only in the persistent store
    parameters = {'Remove': [{'destination': '10.244.%d.0/24' % index, 'next_hop': '10.0.0.%d' % (20 + index),
                              'interface_index': 4} for index in (1, 3)],
                  'Add': [{'destination': '10.244.%d.0/24' % index, 'next_hop': '10.0.0.%d' % (20 + index),
                           'interface_alias': 'Ethernet', 'metric': 100, 'family': 'IPv4'} for index in (3, 4)]}
    result = invoke(node, _pwsh.load_script('node_routes_apply'), parameters, error_action='stop')
    assert (result['failed'], result['error']) == (False, [])
    assert stored(node) == [('10.244.2.0/24', '10.0.0.22', 4, 256, True, True),
                            ('10.244.3.0/24', '10.0.0.23', 4, 100, True, True),
                            ('10.244.4.0/24', '10.0.0.24', 4, 100, True, True)]
    real = _contracts.check('node_routes_apply', json.loads(result['result']))
    # It reports the node's one adapter (initial_state: Ethernet, ifIndex 4, 10.0.0.11/24) and every static route.
    assert real == {'state': {'sections': ['adapters', 'routes'], 'adapters': [{
        'name': 'Ethernet', 'description': 'Microsoft Hyper-V Network Adapter', 'if_index': 4,
        'mac_address': '00-15-5D-00-00-0B', 'status': 'Up', 'virtual': False, 'physical_adapter': None,
        'default_route': True, 'ipv4': [{'address': '10.0.0.11', 'prefix_length': 24, 'origin': 'Manual'}],
        'gateway': '10.0.0.1', 'dns_servers': ['10.0.0.1'], 'dhcp': False, 'ipv6': []}], 'routes': [
        {'destination': '10.244.%d.0/24' % index, 'next_hop': '10.0.0.%d' % (20 + index), 'interface_alias': 'Ethernet',
         'interface_index': 4, 'metric': metric, 'active': True, 'persistent': True}
        for index, metric in ((2, 256), (3, 100), (4, 100))]}}


# -- a dual-stack node: a static IPv6 address, IPv6 routes ------------------------------------------------------

def _dual_stack_node():
    return SimNode(initial_state('win1', {'ip': '10.0.0.11', 'ipv6': 'fd00:127:130::41/64'}))


def test_a_static_ipv6_address_follows_the_link_local_one_with_its_on_link_routes():
    node = _dual_stack_node()
    out = ok(node, 'Get-NetIPAddress -InterfaceIndex 4 -AddressFamily IPv6 | ForEach-Object { '
                   '"$($_.IPAddress)/$($_.PrefixLength) $($_.PrefixOrigin)/$($_.SuffixOrigin)" }')
    assert out[1:] == ['fd00:127:130::41/64 Manual/Manual'] and out[0].startswith('fe80::')
    routes = ok(node, 'Get-NetRoute -InterfaceIndex 4 -AddressFamily IPv6 | ForEach-Object { '
                      '"$($_.DestinationPrefix) $($_.NextHop)" }')
    assert 'fd00:127:130::/64 ::' in routes and 'fd00:127:130::41/128 ::' in routes


def test_new_netroute_of_an_ipv6_prefix_writes_both_stores():
    node = _dual_stack_node()
    out = ok(node, "New-NetRoute -AddressFamily IPv6 -DestinationPrefix 'fd00:10:244:11::/64' -InterfaceAlias Ethernet "
                   "-NextHop 'fd00:127:130::42' -RouteMetric 256 | ForEach-Object { \"$($_.AddressFamily) $($_.PolicyStore)\" }")
    assert out == ['IPv6 ActiveStore', 'IPv6 PersistentStore']
    assert stored(node) == [('fd00:10:244:11::/64', 'fd00:127:130::42', 4, 256, True, True)]


def test_new_netroute_of_another_family_than_its_prefix_is_error_87():
    outcome = run_on_node(_dual_stack_node(), "New-NetRoute -AddressFamily IPv4 -DestinationPrefix 'fd00::/64' "
                                              "-InterfaceAlias Ethernet -NextHop 'fd00:127:130::42'")
    assert outcome.errors == ['The parameter is incorrect.']


def test_node_routes_apply_adds_and_removes_ipv6_routes_beside_the_ipv4_ones():
    node = _dual_stack_node()
    node.add_route('fd00:10:244:12::/64', 'fd00:127:130::43', 'Ethernet', 256)
    parameters = {'Remove': [{'destination': 'fd00:10:244:12::/64', 'next_hop': 'fd00:127:130::43', 'interface_index': 4}],
                  'Add': [{'destination': '10.244.11.0/24', 'next_hop': '10.0.0.12', 'interface_alias': 'Ethernet',
                           'metric': 256, 'family': 'IPv4'},
                          {'destination': 'fd00:10:244:11::/64', 'next_hop': 'fd00:127:130::42',
                           'interface_alias': 'Ethernet', 'metric': 256, 'family': 'IPv6'}]}
    result = invoke(node, _pwsh.load_script('node_routes_apply'), parameters, error_action='stop')
    assert (result['failed'], result['error']) == (False, [])
    assert stored(node) == [('10.244.11.0/24', '10.0.0.12', 4, 256, True, True),
                            ('fd00:10:244:11::/64', 'fd00:127:130::42', 4, 256, True, True)]
    state = _contracts.check('node_routes_apply', json.loads(result['result']))['state']
    # node_info's view: the adapter's IPv6 address, and the static routes of both families.
    assert state['adapters'][0]['ipv6'] == [{'address': 'fd00:127:130::41', 'prefix_length': 64, 'origin': 'Manual'}]
    assert [route['destination'] for route in state['routes']] == ['10.244.11.0/24', 'fd00:10:244:11::/64']


def test_set_netipinterface_sets_the_ipv6_interfaces_forwarding_apart_from_the_ipv4_ones():
    node = _dual_stack_node()
    ok(node, 'Set-NetIPInterface -InterfaceAlias Ethernet -AddressFamily IPv6 -Forwarding Enabled')
    out = ok(node, 'Get-NetIPInterface -InterfaceAlias Ethernet | ForEach-Object { "$($_.AddressFamily) $($_.Forwarding)" }')
    assert sorted(out) == ['IPv4 Disabled', 'IPv6 Enabled']
