"""Pure planning of HNS networks and endpoints."""

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _hns

ADAPTERS = [
    {'name': 'Ethernet', 'default_route': False, 'physical_adapter': None, 'ipv4': [], 'gateway': None,
     'dns_servers': [], 'dhcp': False},
    {'name': 'vEthernet (Ethernet)', 'default_route': True, 'physical_adapter': 'Ethernet',
     'ipv4': [{'address': '10.0.0.5', 'prefix_length': 24}], 'gateway': '10.0.0.1', 'dns_servers': ['10.0.0.2'],
     'dhcp': False},
    {'name': 'Storage', 'default_route': False, 'physical_adapter': None,
     'ipv4': [{'address': '169.254.3.4', 'prefix_length': 16}], 'gateway': None, 'dns_servers': [], 'dhcp': True},
]


def network(name, kind='L2Bridge', prefix='192.168.255.0/30', gateway='192.168.255.1', adapter='Ethernet',
            vsid=None, network_id='n1'):
    return {'id': network_id, 'name': name, 'type': kind, 'adapter': adapter,
            'subnets': [{'address_prefix': prefix, 'gateway': gateway, 'vsid': vsid}]}


def args(**overrides):
    base = {'name': 'External', 'type': 'L2Bridge', 'address_prefix': '192.168.255.0/30', 'gateway': None,
            'adapter_name': None, 'vsid': None, 'state': 'present'}
    return dict(base, **overrides)


def test_default_adapter_is_the_one_behind_the_default_route():
    assert _hns.management_adapter(ADAPTERS) == 'Ethernet'
    assert _hns.management_adapter(ADAPTERS, 'Storage') == 'Storage'
    with pytest.raises(_hns.PlanError, match="adapter 'Ethernet 2' does not exist.*Ethernet, Storage"):
        _hns.management_adapter(ADAPTERS, 'Ethernet 2')


def test_ip_configuration_reads_the_host_vnic_once_bound():
    assert _hns.ip_configuration(ADAPTERS, 'Ethernet') == {
        'adapter': 'Ethernet', 'address': '10.0.0.5', 'prefix_length': 24, 'gateway': '10.0.0.1',
        'dns_servers': ['10.0.0.2'], 'dhcp': False}
    assert _hns.ip_configuration(ADAPTERS, 'Storage')['address'] is None
    assert _hns.ip_configuration(ADAPTERS, 'nope') is None


def test_first_external_network_on_an_adapter_is_disruptive_and_gateway_defaults():
    ops, before, after, disruptive = _hns.plan_network(args(), {'networks': []}, ADAPTERS)
    assert before == {} and disruptive is True
    assert ops == [{'op': 'create', 'network': after}]
    assert after['gateway'] == '192.168.255.1' and after['adapter'] == 'Ethernet'


def test_gateway_default_uses_integer_math_for_any_prefix():
    after = _hns.plan_network(args(address_prefix='10.10.187.64/26'), {'networks': []}, ADAPTERS)[2]
    assert after['gateway'] == '10.10.187.65'


def test_transparent_networks_get_no_default_gateway():
    transparent = args(type='Transparent', address_prefix='10.0.1.0/24')
    assert _hns.plan_network(transparent, {'networks': []}, ADAPTERS)[2]['gateway'] is None


def test_same_settings_mean_nothing_to_do_case_insensitively():
    existing = network('external', kind='l2bridge')
    assert _hns.plan_network(args(), {'networks': [existing]}, ADAPTERS)[0] == []


@pytest.mark.parametrize('change, differing', [
    ({'address_prefix': '192.168.254.0/30', 'gateway': '192.168.254.1'}, ['address_prefix', 'gateway']),
    ({'type': 'Overlay'}, ['type']),
    ({'vsid': 9999}, ['vsid']),
])
def test_other_settings_replace_the_network(change, differing):
    existing = network('External')
    ops, before, after, disruptive = _hns.plan_network(args(**change), {'networks': [existing]}, ADAPTERS)
    assert [op['op'] for op in ops] == ['remove', 'create'] and ops[0]['id'] == 'n1'
    assert _hns.network_differences(_hns.describe_network(existing), after) == differing
    assert disruptive is True, 'the only network on the adapter goes away, and with it the vSwitch'


def test_replacing_beside_another_network_on_the_adapter_is_not_disruptive():
    pods = network('cbr0', prefix='10.244.1.0/24', gateway='10.244.1.1', network_id='n2')
    state = {'networks': [network('External'), pods]}
    ops, before, after, disruptive = _hns.plan_network(args(name='cbr0', address_prefix='10.244.2.0/24'), state,
                                                       ADAPTERS)
    assert [op['op'] for op in ops] == ['remove', 'create'] and disruptive is False
    assert (before['address_prefix'], after['address_prefix']) == ('10.244.1.0/24', '10.244.2.0/24')


def test_duplicates_are_an_error_naming_ids():
    state = {'networks': [network('cbr0', network_id='b'), network('CBR0', network_id='a')]}
    with pytest.raises(_hns.PlanError, match=r"2 HNS networks are named 'cbr0' \(ids: a, b\)"):
        _hns.plan_network(args(name='cbr0'), state, ADAPTERS)


def test_absent():
    assert _hns.plan_network(args(state='absent'), {'networks': []}, ADAPTERS)[0] == []
    ops, _before, _after, disruptive = _hns.plan_network(args(state='absent'), {'networks': [network('External')]},
                                                         ADAPTERS)
    assert ops == [{'op': 'remove', 'id': 'n1'}]
    assert disruptive is True, 'the last external network of the adapter takes its vSwitch with it'
    two = {'networks': [network('External'), network('cbr0', network_id='n2')]}
    assert _hns.plan_network(args(state='absent'), two, ADAPTERS)[3] is False


def endpoint(name='cbr0_ep', network_id='n2', ip='10.244.1.2', attached=True, endpoint_id='e1'):
    return {'id': endpoint_id, 'name': name, 'network_id': network_id, 'network_name': 'cbr0', 'ip_address': ip,
            'host_attached': attached}


EP_ARGS = {'name': 'cbr0_ep', 'network': 'cbr0', 'ip_address': '10.244.1.2', 'attach_host': True, 'state': 'present'}
HNS = {'networks': [network('cbr0', prefix='10.244.1.0/24', gateway='10.244.1.1', network_id='n2')]}


def test_endpoint_plans():
    assert _hns.plan_endpoint(EP_ARGS, dict(HNS, endpoints=[endpoint()]))[0] == []
    assert _hns.plan_endpoint(EP_ARGS, dict(HNS, endpoints=[endpoint(attached=False)]))[0] == [
        {'op': 'attach', 'id': 'e1'}]
    ops = _hns.plan_endpoint(EP_ARGS, dict(HNS, endpoints=[endpoint(ip='10.244.1.9')]))[0]
    assert [op['op'] for op in ops] == ['remove', 'create'] and ops[1]['network_id'] == 'n2'
    ops, before, after, notes = _hns.plan_endpoint(EP_ARGS, {'networks': [], 'endpoints': []})
    assert ops[0]['network_id'] is None and 'does not exist' in notes[0]
    assert before == {} and after['ip_address'] == '10.244.1.2'
    twice = [endpoint(endpoint_id='e1'), endpoint(endpoint_id='e2')]
    assert _hns.plan_endpoint(EP_ARGS, dict(HNS, endpoints=twice))[0] == [{'op': 'remove', 'id': 'e2'}]
    absent = dict(EP_ARGS, state='absent')
    assert _hns.plan_endpoint(absent, dict(HNS, endpoints=twice))[0] == [
        {'op': 'remove', 'id': 'e1'}, {'op': 'remove', 'id': 'e2'}]
