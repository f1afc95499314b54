"""kubewin.node.openvswitch against a simulated node (MSI, OVS database and switch extension simulated)."""

import pytest
import yaml

MSI = 'C:\\k\\ovs\\openvswitch.msi'
IDS = {'system-id': 'win1', 'ovn-remote': 'tcp:10.127.130.10:6642', 'ovn-nb': 'tcp:10.127.130.10:6641',
       'ovn-encap-ip': '10.127.130.38', 'ovn-encap-type': 'geneve'}
READY = {'features': {'Containers': 'installed', 'Hyper-V': 'installed', 'Hyper-V-PowerShell': 'installed'}}


def playbook(sim, name='ovs.yml', network=True, network_name='external', **options):
    module = {key: value for key, value in dict({'msi': MSI, 'network': network_name, 'external_ids': IDS},
                                                **options).items() if value is not None}
    tasks = [{'name': 'snapshot', 'kubewin.node.node_info': {}}]
    if network:
        tasks.append({'name': 'network', 'kubewin.node.hns_network': {
            'name': 'external', 'type': 'Transparent', 'address_prefix': '10.244.3.0/24', 'gateway': '10.244.3.1',
            'reconnect_timeout': 30}})
    tasks.append({'name': 'ovs', 'kubewin.node.openvswitch': module})
    return sim.write(name, yaml.safe_dump([{'hosts': 'windows_nodes', 'gather_facts': False, 'tasks': tasks}]))


def node_with_msi(sim):
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38',
                                        'kubewin_sim': dict(READY, network_drop_seconds=0)}})
    with sim.edit_node('win1', profile=dict(READY, ip='10.127.130.38', network_drop_seconds=0)) as node:
        node.write_file(MSI, sha256='ab' * 32, size=4 * 1024 * 1024)
    return inventory


def ovs_state(sim):
    return sim.node('win1').data['ovs']


# Long (make unit-long): make test converges Open vSwitch through the network_ovn role
# (tests/unit/roles/test_network_ovn.py, test_check_converge_idempotent).
@pytest.mark.long
def test_check_converge_then_nothing(sim):
    inventory, book = node_with_msi(sim), playbook(sim)
    before = sim.node('win1').data
    check = sim.run(book, inventory, '--check', '--diff')
    assert check.rc == 0, check.output
    result = check.result('ovs', 'win1')['result']
    assert result['changed'] and result['openvswitch']['external_ids'] == IDS
    assert 'does not exist (yet)' in result['notes'][0]
    assert 'ovs' not in sim.node('win1').data and sim.node('win1').data['services'] == before['services']

    run = sim.run(book, inventory, '--diff')
    assert run.rc == 0, run.output
    result = run.result('ovs', 'win1')['result']
    assert result['operations'] == ['install', 'rebuild_bridge', 'set_external_ids', 'start_services']
    assert result['diff']['before']['product'] == {'installed': False}
    state = ovs_state(sim)
    assert state['products'][0]['features'] == {'OpenvSwitchCLI': 'local', 'OpenvSwitchDriver': 'local',
                                                'OVNHost': 'local'}
    assert state['db']['bridges'] == {'br-ex': {'ports': {'vEthernet (Ethernet)': 'internal', 'Ethernet': 'system'}}}
    assert state['db']['external_ids'] == IDS and state['extensions'] == {'Ethernet': True}
    services = sim.node('win1').data['services']
    assert {name: services[name]['state'] for name in ('ovsdb-server', 'ovs-vswitchd', 'ovn-controller')} == {
        'ovsdb-server': 'running', 'ovs-vswitchd': 'running', 'ovn-controller': 'running'}
    # The two ports the collection adds; the bridge's own local port (br-ex) is listed beside them.
    ports = result['openvswitch']['bridge']['ports']
    assert {name: ports[name] for name in ('Ethernet', 'vEthernet (Ethernet)')} == {
        'Ethernet': {'type': 'system', 'error': None}, 'vEthernet (Ethernet)': {'type': 'internal', 'error': None}}
    assert sorted(ports) == ['Ethernet', 'br-ex', 'vEthernet (Ethernet)']

    again = sim.run(book, inventory)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'decided from the snapshot'
    assert sim.run(book, inventory, '--check').changed('win1') == 0

    # A changed external id is set without touching the bridge.
    starts = sim.node('win1').data['services']['ovs-vswitchd']['starts']
    stt = sim.run(playbook(sim, 'stt.yml', external_ids=dict(IDS, **{'ovn-encap-type': 'stt'})), inventory, '--diff')
    assert stt.rc == 0 and stt.changed('win1') == 1, stt.output
    result = stt.result('ovs', 'win1')['result']
    assert result['operations'] == ['set_external_ids']
    assert result['diff']['before']['external_ids']['ovn-encap-type'] == 'geneve'
    assert ovs_state(sim)['db']['external_ids']['ovn-encap-type'] == 'stt'
    assert sim.node('win1').data['services']['ovs-vswitchd']['starts'] == starts, 'ovs-vswitchd kept running'

    # A stopped ovn-controller is started, and only that.
    with sim.edit_node('win1') as node:
        node.data['services']['ovn-controller']['state'] = 'stopped'
    started = sim.run(book, inventory)
    assert started.rc == 0, started.output
    assert started.result('ovs', 'win1')['result']['operations'] == ['set_external_ids', 'start_services']
    assert sim.node('win1').data['services']['ovn-controller']['state'] == 'running'


def test_a_new_vswitch_gets_the_bridge_again(sim):
    inventory = node_with_msi(sim)
    assert sim.run(playbook(sim), inventory).rc == 0
    # The Transparent network is recreated on another subnet: a new vSwitch, extension disabled.
    moved = playbook(sim, 'moved.yml')
    with open(moved, encoding='utf-8') as handle:
        text = handle.read().replace('10.244.3.', '10.244.9.')
    with open(moved, 'w', encoding='utf-8') as handle:
        handle.write(text)
    run = sim.run(moved, inventory)
    assert run.rc == 0, run.output
    assert run.result('ovs', 'win1')['result']['operations'] == ['rebuild_bridge']
    assert ovs_state(sim)['extensions'] == {'Ethernet': True}
    assert sim.run(moved, inventory).changed('win1') == 0


def test_failures_say_what_is_missing(sim):
    inventory = node_with_msi(sim)
    no_network = sim.run(playbook(sim, 'nonet.yml', network=False), inventory)
    assert no_network.rc != 0
    assert "HNS network 'external' does not exist" in no_network.result('ovs', 'win1')['result']['msg']
    no_msi = sim.run(playbook(sim, 'nomsi.yml', msi=None), inventory)
    assert no_msi.rc != 0
    assert 'Open vSwitch is not installed' in no_msi.result('ovs', 'win1')['result']['msg']
    bad_feature = sim.run(playbook(sim, 'feature.yml', features=['OpenvSwitchCLI', 'Bogus']), inventory)
    assert bad_feature.rc != 0
    assert 'msiexec failed with exit code 1603' in bad_feature.result('ovs', 'win1')['result']['msg']
    assert 'ovs' not in sim.node('win1').data or not ovs_state(sim)['products']


def test_absent_takes_the_node_out_of_ovn_and_keeps_open_vswitch(sim):
    """state=absent on a node whose vSwitch still exists: ovn-controller stopped, the extension disabled
    before the bridge goes (the vSwitch forwards on its own again), the OVN keys removed; a foreign key and
    the product stay. Check mode predicts it; a second run changes nothing."""
    inventory = node_with_msi(sim)
    assert sim.run(playbook(sim), inventory).rc == 0
    with sim.edit_node('win1') as node:
        node.data['ovs']['db']['external_ids']['hostname'] = 'win1'
    absent = playbook(sim, 'absent.yml', network=False, state='absent', msi=None, external_ids={})

    check = sim.run(absent, inventory, '--check', '--diff')
    assert check.rc == 0 and check.changed('win1') == 1, check.output
    result = check.result('ovs', 'win1')['result']
    assert result['diff']['before']['bridge'] == {'name': 'br-ex', 'exists': True}
    assert result['openvswitch']['services'] == {'ovn-controller': 'stopped'}
    assert ovs_state(sim)['db']['bridges'], 'check mode changed nothing'

    run = sim.run(absent, inventory)
    assert run.rc == 0, run.output
    operations = run.result('ovs', 'win1')['result']['operations']
    assert operations == ['stop_services', 'remove_bridge', 'remove_external_ids']
    state = ovs_state(sim)
    assert state['db'] == {'bridges': {}, 'external_ids': {'hostname': 'win1'}}
    assert state['extensions'] == {'Ethernet': False} and state['products']
    services = sim.node('win1').data['services']
    assert (services['ovn-controller']['state'], services['ovsdb-server']['state']) == ('stopped', 'running')

    again = sim.run(absent, inventory)
    assert again.rc == 0 and again.changed('win1') == 0, again.output

    # present again: the bridge is rebuilt, the keys set, ovn-controller started.
    back = sim.run(playbook(sim), inventory)
    assert back.rc == 0, back.output
    operations = back.result('ovs', 'win1')['result']['operations']
    assert operations == ['rebuild_bridge', 'set_external_ids', 'start_services']


def test_absent_on_a_node_without_open_vswitch_changes_nothing(sim):
    inventory = node_with_msi(sim)
    run = sim.run(playbook(sim, 'absent.yml', network=False, state='absent', msi=None, external_ids={}), inventory)
    assert run.rc == 0 and run.changed('win1') == 0, run.output
    assert run.result('ovs', 'win1')['result']['openvswitch']['product'] == {'installed': False}


def test_present_needs_a_network(sim):
    inventory = node_with_msi(sim)
    run = sim.run(playbook(sim, 'nonet.yml', network=False, network_name=None), inventory)
    assert run.rc != 0
    assert run.result('ovs', 'win1')['result']['msg'] == 'network is required with state=present'
