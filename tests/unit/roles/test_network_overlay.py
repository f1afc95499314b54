"""The network_overlay role (flannel vxlan, source VIP) against a simulated node."""

import json

import pytest

from kubewin_sim import flannel
from kubewin_sim.windows import hostlocal

from network_play import inventory, network, planned, playbook, run, task, text, with_runtime

NET_CONF = 'C:\\etc\\kube-flannel\\net-conf.json'
CNI_CONFIG = 'C:\\etc\\cni\\net.d\\10-kubewin.conf'
SOURCE_VIP = 'C:\\k\\SourceVip.json'
STORE = 'c:\\var\\lib\\cni\\networks\\flannel.4096'


def source_vip(result):
    return task(result, 'Hand the source VIP to the kube_proxy role', 'win1')['result']['ansible_facts'][
        'network_overlay_source_vip']


# Long (make unit-long): make test converges the overlay role through site.yml in
# tests/unit/playbooks/test_site_network.py and in the representative fault scenarios (e2e).
@pytest.mark.long
def test_check_converge_idempotent(sim):
    hosts = inventory(sim, topology='overlay')
    book = playbook(sim, 'network_overlay')
    with_runtime(sim)

    check = run(sim, book, hosts, '--check')
    assert check.rc == 0, check.output
    assert check.changed('win1') > 0 and source_vip(check) is None
    node = sim.node('win1')
    assert not node.data['hns']['networks'] and not node.data['firewall_rules'] and not node.managed_registry()['files']

    converge = run(sim, book, hosts)
    assert converge.rc == 0, converge.output
    assert task(converge, 'Create the vSwitch with the placeholder Overlay network', 'win1')['result']['disruptive']
    node = sim.node('win1')
    assert node.data['firewall_rules']['kubewin-vxlan']['protocol'] == 'udp'
    assert node.data['firewall_rules']['kubewin-vxlan']['local_port'] == ['4789']
    external = network(sim, 'win1', 'External')
    assert (external['type'], external['subnets'][0]['vsid']) == ('Overlay', 9999)
    lease = flannel.leases(sim.state_dir)['10.244.0.0/16']['win1']
    vxlan = network(sim, 'win1', 'flannel.4096')
    assert vxlan['type'] == 'Overlay' and vxlan['subnets'][0] == {
        'address_prefix': lease, 'gateway': lease.replace('.0/24', '.1'), 'vsid': 4096}
    assert 'FLANNEL_MTU=1450' in text(sim, 'win1', 'C:\\run\\flannel\\subnet.env')
    plan = planned(converge, 'win1')
    assert text(sim, 'win1', CNI_CONFIG) == plan['cni_config_text']
    assert text(sim, 'win1', NET_CONF) == plan['flannel_net_conf_text']
    backend = json.loads(plan['flannel_net_conf_text'])['Backend']
    assert backend == {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789, 'Name': 'flannel.4096'}
    vip = source_vip(converge)
    assert vip == lease.replace('.0/24', '.2')
    assert json.loads(text(sim, 'win1', SOURCE_VIP))['ips'][0]['address'] == vip + '/24'
    assert hostlocal.reservations(node, STORE) == {vip: 'kubewin-source-vip/source-vip'}
    assert node.data['services']['flanneld']['starts'] == 1

    again = run(sim, book, hosts)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'the role decided everything from the snapshot'
    assert source_vip(again) == vip, 'the source VIP is stable'
    assert sim.node('win1').data['services']['flanneld']['starts'] == 1
    check_again = run(sim, book, hosts, '--check')
    assert check_again.rc == 0 and check_again.changed('win1') == 0 and source_vip(check_again) == vip


# Long (make unit-long): make test releases the old subnet's source VIP in test_source_vip.py
# (test_a_new_pod_subnet_releases_the_stale_reservation); the restart of flanneld for a lost network runs only here.
@pytest.mark.long
def test_a_new_pod_subnet_gets_a_new_source_vip_and_a_lost_network_a_restart(sim):
    book = playbook(sim, 'network_overlay')
    with_runtime(sim)
    first = run(sim, book, inventory(sim, topology='overlay'))
    assert first.rc == 0, first.output
    old_vip = source_vip(first)

    moved = run(sim, book, inventory(sim, name='moved.yml', topology='overlay', cluster_cidr='10.200.0.0/16'))
    assert moved.rc == 0, moved.output
    assert task(moved, 'Run flanneld as a service under nssm', 'win1')['result']['operations'] == ['restart']
    node = sim.node('win1')
    assert node.data['services']['flanneld']['starts'] == 2, 'restarted exactly once'
    lease = flannel.leases(sim.state_dir)['10.200.0.0/16']['win1']
    assert network(sim, 'win1', 'flannel.4096')['subnets'][0]['address_prefix'] == lease
    vip = source_vip(moved)
    assert vip != old_vip and vip == lease.replace('.0/24', '.2')
    assert hostlocal.reservations(node, STORE) == {vip: 'kubewin-source-vip/source-vip'}, 'old one released'
    assert text(sim, 'win1', CNI_CONFIG) == planned(moved, 'win1')['cni_config_text']

    moved_hosts = inventory(sim, name='moved.yml', topology='overlay', cluster_cidr='10.200.0.0/16')
    again = run(sim, book, moved_hosts)
    assert again.rc == 0 and again.changed('win1') == 0 and source_vip(again) == vip

    # HNS lost the network while flanneld kept running: flanneld creates its network only when it starts (flannel
    # pkg/backend/vxlan/device_windows.go), so the role restarts it, once.
    with sim.edit_node('win1') as node:
        node.remove_network(network(sim, 'win1', 'flannel.4096')['id'])
        assert node.data['services']['flanneld']['state'] == 'running'
    check = run(sim, book, moved_hosts, '--check')
    assert check.rc == 0, check.output
    assert task(check, 'Run flanneld as a service under nssm', 'win1')['result']['operations'] == ['restart']
    assert not [n for n in sim.node('win1').data['hns']['networks'] if n['name'] == 'flannel.4096']

    repaired = run(sim, book, moved_hosts, flannel_network_wait_retries=3, flannel_network_wait_delay=0)
    assert repaired.rc == 0, repaired.output
    assert task(repaired, 'Run flanneld as a service under nssm', 'win1')['result']['operations'] == ['restart']
    assert network(sim, 'win1', 'flannel.4096')['subnets'][0]['address_prefix'] == lease
    assert sim.node('win1').data['services']['flanneld']['starts'] == 3

    settled = run(sim, book, moved_hosts)
    assert settled.rc == 0 and settled.changed('win1') == 0, settled.output
    assert sim.node('win1').data['services']['flanneld']['starts'] == 3, 'a node with its network keeps flanneld'
