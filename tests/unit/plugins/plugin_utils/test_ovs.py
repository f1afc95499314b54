"""Planning Open vSwitch on a node (pure functions of plugin_utils/_ovs.py)."""

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _ovs

ADAPTERS = [{'name': 'Ethernet', 'default_route': False, 'physical_adapter': None},
            {'name': 'vEthernet (Ethernet)', 'default_route': True, 'physical_adapter': 'Ethernet'}]
NETWORK = {'id': 'n1', 'name': 'external', 'type': 'Transparent', 'adapter': 'Ethernet',
           'subnets': [{'address_prefix': '10.244.3.0/24', 'gateway': '10.244.3.1'}]}
IDS = {'system-id': 'win-1', 'ovn-encap-type': 'geneve'}
LOCAL = {'OpenvSwitchCLI': 'local', 'OpenvSwitchDriver': 'local', 'OVNHost': 'local'}
RUNNING = {name: {'state': 'running'} for name in _ovs.ALL_SERVICES}


def args(**overrides):
    return dict({'msi': 'C:\\k\\ovs.msi', 'features': list(_ovs.DEFAULT_FEATURES), 'version': None,
                 'network': 'external', 'adapter': None, 'bridge': 'br-ex', 'internal_port': None,
                 'external_ids': IDS}, **overrides)


def converged(**changes):
    ovs = {'products': [{'product_code': '{X}', 'version': '2.7.0.1', 'features': dict(LOCAL)}],
           'database': {'bridges': {'br-ex': {'ports': {'vEthernet (Ethernet)': {'type': 'internal', 'error': None},
                                                        'Ethernet': {'type': '', 'error': None},
                                                        'patch-br-ex': {'type': 'patch', 'error': None}}}},
                        'external_ids': dict(IDS, hostname='win-1')},
           'switches': [{'name': 'external', 'adapter': 'Ethernet', 'extension': {'enabled': True}}]}
    ovs.update(changes)
    return {'adapters': ADAPTERS, 'hns': {'networks': [NETWORK]}, 'services': dict(RUNNING), 'ovs': ovs}


def ops(state, **overrides):
    return [op['op'] for op in _ovs.plan(args(**overrides), state)[0]]


def test_a_converged_node_needs_nothing_and_foreign_ports_and_ids_stay():
    operations, before, after, notes, context = _ovs.plan(args(), converged())
    assert operations == [] and notes == [] and before == after
    assert context == {'adapter': 'Ethernet', 'internal_port': 'vEthernet (Ethernet)', 'network_exists': True}


def test_a_fresh_node_gets_everything():
    state = {'adapters': ADAPTERS, 'hns': {'networks': []}, 'services': {}, 'ovs': {'products': [], 'switches': []}}
    operations, before, after, notes, context = _ovs.plan(args(), state)
    assert [op['op'] for op in operations] == ['install', 'rebuild_bridge', 'set_external_ids', 'start_services']
    assert operations[2]['values'] == IDS and operations[3]['names'] == list(_ovs.ALL_SERVICES)
    assert before['product'] == {'installed': False} and after['services'] == {n: 'running' for n in _ovs.ALL_SERVICES}
    assert "HNS network 'external' does not exist (yet)" in notes[0]
    assert context == {'adapter': 'Ethernet', 'internal_port': 'vEthernet (Ethernet)', 'network_exists': False}


@pytest.mark.parametrize('change, expected', [
    ({'switches': [{'name': 'external', 'adapter': 'Ethernet', 'extension': {'enabled': False}}]}, ['rebuild_bridge']),
    ({'switches': []}, ['rebuild_bridge']),
    ({'database': {'bridges': {}, 'external_ids': IDS}}, ['rebuild_bridge']),
    ({'database': {'bridges': {'br-ex': {'ports': {'vEthernet (Ethernet)': {'type': 'internal', 'error': None},
                                                   'Ethernet': {'type': '', 'error': 'could not add'}}}},
                   'external_ids': IDS}}, ['rebuild_bridge']),
    ({'database': {'bridges': {'br-ex': {'ports': {'vEthernet (Ethernet)': {'type': '', 'error': None},
                                                   'Ethernet': {'type': '', 'error': None}}}},
                   'external_ids': IDS}}, ['rebuild_bridge']),
    ({'products': [{'product_code': '{X}', 'version': '2.7.0.1', 'features': dict(LOCAL, OVNHost='absent')}]},
     ['install', 'rebuild_bridge']),
])
def test_what_is_wrong_decides_what_is_done(change, expected):
    assert ops(converged(**change)) == expected


def test_external_ids_and_services_alone():
    state = converged()
    state['services'] = dict(RUNNING, **{'ovn-controller': {'state': 'stopped'}})
    operations = _ovs.plan(args(external_ids=dict(IDS, **{'ovn-encap-type': 'stt'})), state)[0]
    assert operations == [{'op': 'set_external_ids', 'values': {'ovn-encap-type': 'stt'}},
                          {'op': 'start_services', 'names': ['ovn-controller']}]


def test_version_pin_and_features_without_ovn():
    assert ops(converged(), version='2.7.0') == []
    assert ops(converged(), version='2.8') == ['install', 'rebuild_bridge']
    state = converged()
    del state['services']['ovn-controller']
    assert ops(state, features=['OpenvSwitchCLI', 'OpenvSwitchDriver']) == []


@pytest.mark.parametrize('overrides, state, message', [
    ({'msi': None}, {'products': []}, 'Open vSwitch is not installed with the features'),
    ({'external_ids': {'ovn remote': 'x'}}, {}, 'may only hold'),
    ({'external_ids': {'ovn-remote': 'tcp:"x"'}}, {}, 'without quotes'),
])
def test_refusals(overrides, state, message):
    with pytest.raises(_ovs.PlanError, match=message):
        _ovs.plan(args(**overrides), converged(**state))


def test_a_network_of_another_type_is_refused():
    state = converged()
    state['hns']['networks'] = [dict(NETWORK, type='L2Bridge')]
    with pytest.raises(_ovs.PlanError, match='not Transparent'):
        _ovs.plan(args(), state)


def test_differences_after_apply():
    context = {'adapter': 'Ethernet', 'internal_port': 'vEthernet (Ethernet)', 'network_exists': True}
    assert _ovs.differences(args(), converged(), context) == []
    found = _ovs.differences(args(), converged(database=None), context)
    assert any('bridge br-ex is not as requested' in item for item in found)
    assert any('external_ids ovn-encap-type, system-id are not set' in item for item in found)


def test_absent_plans_what_makes_the_node_a_chassis():
    operations, before, after, notes = _ovs.plan_absent(args(external_ids={'hostname': 'x'}), converged())
    assert operations == [{'op': 'stop_services', 'names': ['ovn-controller']},
                          {'op': 'remove_bridge', 'disable_extension_on': ['Ethernet']},
                          {'op': 'remove_external_ids', 'keys': ['hostname', 'ovn-encap-type', 'system-id']}]
    assert notes == [] and before['bridge']['exists'] and not after['bridge']['exists']
    assert after['product'] == before['product'], 'Open vSwitch stays installed'


def test_absent_after_the_vswitch_is_gone_only_edits_the_database():
    state = converged(switches=[])
    state['services'][_ovs.OVN_SERVICE] = {'state': 'stopped'}
    operations = _ovs.plan_absent(args(), state)[0]
    assert operations == [{'op': 'remove_bridge', 'disable_extension_on': []},
                          {'op': 'remove_external_ids', 'keys': ['ovn-encap-type', 'system-id']}]


def test_absent_is_done_when_nothing_is_left():
    state = converged(database={'bridges': {}, 'external_ids': {'hostname': 'win-1'}})
    state['services'][_ovs.OVN_SERVICE] = {'state': 'stopped'}
    assert _ovs.plan_absent(args(), state)[0] == [] and _ovs.absent_differences(args(), state) == []
    unreadable = converged(database=None, database_error='connection failed')
    assert _ovs.plan_absent(args(), unreadable)[3] == ['the OVS database could not be read: connection failed']
