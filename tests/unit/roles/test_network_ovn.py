"""The network_ovn role (Open vSwitch, Transparent network, ovn_cni.exe config) against a simulated node."""

import hashlib

from kubewin_sim import web

from network_play import inventory, network, planned, playbook, run, task, text

CNI_CONFIG = 'C:\\etc\\cni\\net.d\\10-kubewin.conf'
MSI_URL = 'https://cloudbase.it/downloads/openvswitch-hyperv-2.7.0-certified.msi'
HYPER_V = {'features': {'Containers': 'installed', 'Hyper-V': 'installed', 'Hyper-V-PowerShell': 'installed'}}
POD_CIDR = {'win1': {'kubewin_pod_cidr': '10.244.11.0/24'}}


def extra(**more):
    return dict({'network_ovn_central_address': '10.127.130.10', 'artifacts_checksum_overrides': {
        'openvswitch': {'2.7.0': 'sha256:' + hashlib.sha256(web.body(MSI_URL)).hexdigest()}}}, **more)


def test_check_converge_idempotent(sim):
    hosts = inventory(sim, topology='ovn', profile=HYPER_V, host_vars=POD_CIDR)
    book = playbook(sim, 'network_ovn')

    check = run(sim, book, hosts, '--check', **extra())
    assert check.rc == 0, check.output
    assert check.changed('win1') > 0
    node = sim.node('win1')
    assert not node.data['hns']['networks'] and 'ovs' not in node.data and not node.managed_registry()['files']

    converge = run(sim, book, hosts, **extra(network_ovn_encap_type='stt'))
    assert converge.rc == 0, converge.output
    transparent = network(sim, 'win1', 'external')
    assert (transparent['type'], transparent['adapter'], transparent['subnets'][0]['address_prefix'],
            transparent['subnets'][0]['gateway']) == ('Transparent', 'Ethernet', '10.244.11.0/24', '10.244.11.1')
    node = sim.node('win1')
    assert node.data['firewall_rules']['kubewin-ovn-stt']['local_port'] == ['7471']
    assert node.data['ovs']['db']['external_ids'] == {
        'system-id': 'win1', 'ovn-remote': 'tcp:10.127.130.10:6642', 'ovn-nb': 'tcp:10.127.130.10:6641',
        'ovn-encap-ip': '10.127.130.38', 'ovn-encap-type': 'stt'}
    assert node.data['ovs']['db']['bridges']['br-ex']['ports'] == {'vEthernet (Ethernet)': 'internal',
                                                                   'Ethernet': 'system'}
    assert text(sim, 'win1', CNI_CONFIG) == planned(converge, 'win1')['cni_config_text']
    assert '"type": "ovn_cni.exe"' in text(sim, 'win1', CNI_CONFIG)

    again = run(sim, book, hosts, **extra(network_ovn_encap_type='stt'))
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'the role decided everything from the snapshot'


def test_open_vswitch_needs_hyper_v(sim):
    hosts = inventory(sim, topology='ovn', host_vars=POD_CIDR)
    result = run(sim, playbook(sim, 'network_ovn'), hosts, **extra())
    assert result.rc != 0
    message = task(result, 'Check that the Hyper-V switch tools Open vSwitch needs are installed', 'win1')
    assert 'the prerequisites role enables them for the ovn topology' in message['result']['msg']
    assert not sim.node('win1').data['hns']['networks']
