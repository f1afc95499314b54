"""The network_l2bridge role (with flannel host-gw, static routes, upstream) against simulated nodes."""

import json

import pytest

from kubewin_sim import flannel

from network_play import CONTAINERS_READY, KUBECONFIG, inventory, network, planned, playbook, run, task, text, with_runtime

NET_CONF = 'C:\\etc\\kube-flannel\\net-conf.json'
CNI_CONFIG = 'C:\\etc\\cni\\net.d\\10-kubewin.conf'
SUBNET_ENV = 'C:\\run\\flannel\\subnet.env'


def untouched(node):
    return (not node.data['hns']['networks'] and not node.managed_registry()['files'] and 'flanneld' not in node.data['services']
            and not node.data['routes'])


# Long (make unit-long): make test converges l2bridge with flannel host-gw in
# test_a_new_net_conf_restarts_flanneld_once_and_drops_the_old_lease; make e2e on the l2bridge-flannel fleet.
@pytest.mark.long
def test_flannel_host_gw_check_converge_idempotent(sim):
    hosts = inventory(sim, topology='l2bridge')
    book = playbook(sim, 'network_l2bridge')
    with_runtime(sim)

    check = run(sim, book, hosts, '--check')
    assert check.rc == 0, check.output
    assert check.changed('win1') > 0 and untouched(sim.node('win1')), 'check mode changed nothing'

    converge = run(sim, book, hosts)
    assert converge.rc == 0, converge.output
    placeholder = task(converge, 'Create the vSwitch with the placeholder L2Bridge network', 'win1')['result']
    assert placeholder['changed'] and placeholder['disruptive'], 'the network drop was survived'
    node = sim.node('win1')
    assert network(sim, 'win1', 'External')['subnets'][0] == {'address_prefix': '192.168.255.0/30',
                                                              'gateway': '192.168.255.1', 'vsid': None}
    lease = flannel.leases(sim.state_dir)['10.244.0.0/16']['win1']
    cbr0 = network(sim, 'win1', 'cbr0')
    assert cbr0['type'] == 'L2Bridge' and cbr0['subnets'][0]['address_prefix'] == lease
    assert [e['ip_address'] for e in node.data['hns']['endpoints'] if e['name'] == 'cbr0_ep'] == [
        lease.replace('.0/24', '.2')]
    assert node.adapter('vEthernet (Ethernet)')['ipv4'][0]['address'] == '10.127.130.38'

    plan = planned(converge, 'win1')
    assert text(sim, 'win1', CNI_CONFIG) == plan['cni_config_text']
    assert text(sim, 'win1', NET_CONF) == plan['flannel_net_conf_text']
    assert node.file('C:\\etc\\kube-flannel\\kubeconfig')['content'] == KUBECONFIG
    assert node.file('C:\\etc\\kube-flannel\\kubeconfig')['acl'] == 'secret'
    assert 'FLANNEL_SUBNET=%s' % lease.replace('.0/24', '.1/24') in text(sim, 'win1', SUBNET_ENV)
    for binary in ('flannel.exe', 'sdnbridge.exe', 'sdnoverlay.exe', 'win-bridge.exe', 'host-local.exe'):
        assert node.file('C:\\opt\\cni\\bin\\' + binary), binary
    service = node.data['services']['flanneld']
    assert service['state'] == 'running' and service['starts'] == 1
    assert service['dependencies'] == ['containerd'] and service['environment'] == ['NODE_NAME=win1']
    assert service['nssm']['application'] == 'C:\\k\\flanneld.exe'
    assert service['nssm']['app_stdout'] == 'C:\\var\\log\\flanneld\\flanneld.log'
    assert service['command_line'] == 'C:\\k\\nssm.exe'
    assert 'sim-flannel-token' not in converge.output + json.dumps(converge.tasks), 'the kubeconfig is never shown'

    again = run(sim, book, hosts)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'the role decided everything from the snapshot'
    assert sim.node('win1').data['services']['flanneld']['starts'] == 1, 'flanneld was not restarted'
    check_again = run(sim, book, hosts, '--check')
    assert check_again.rc == 0 and check_again.changed('win1') == 0, check_again.output


def test_a_new_net_conf_restarts_flanneld_once_and_drops_the_old_lease(sim):
    book = playbook(sim, 'network_l2bridge')
    with_runtime(sim)
    assert run(sim, book, inventory(sim, topology='l2bridge')).rc == 0
    old = text(sim, 'win1', SUBNET_ENV)

    moved = run(sim, book, inventory(sim, name='moved.yml', topology='l2bridge', cluster_cidr='10.200.0.0/16'))
    assert moved.rc == 0, moved.output
    assert task(moved, 'Remove the lease file of the previous net-conf', 'win1')['changed']
    assert task(moved, 'Run flanneld as a service under nssm', 'win1')['result']['operations'] == ['restart']
    assert sim.node('win1').data['services']['flanneld']['starts'] == 2, 'restarted exactly once'
    lease = flannel.leases(sim.state_dir)['10.200.0.0/16']['win1']
    assert network(sim, 'win1', 'cbr0')['subnets'][0]['address_prefix'] == lease
    assert 'FLANNEL_NETWORK=10.200.0.0/16' in text(sim, 'win1', SUBNET_ENV) and text(sim, 'win1', SUBNET_ENV) != old
    assert text(sim, 'win1', NET_CONF) == planned(moved, 'win1')['flannel_net_conf_text']
    assert text(sim, 'win1', CNI_CONFIG) == planned(moved, 'win1')['cni_config_text']


def test_a_network_that_never_appears_fails_with_the_known_causes(sim):
    hosts = inventory(sim, topology='l2bridge')
    with_runtime(sim, flannel_never_creates_network=True)
    failed = run(sim, playbook(sim, 'network_l2bridge'), hosts, flannel_network_wait_retries=3,
                 flannel_network_wait_delay=0)
    assert failed.rc != 0
    message = task(failed, "Explain why flanneld's network did not appear", 'win1')['result']['msg']
    for expected in ("flanneld did not create the HNS network 'cbr0' on win1 in 3 looks", 'the network is not there',
                     'Waiting for the Network to be created',
                     'MAC address spoofing', 'C:\\etc\\kube-flannel\\kubeconfig',
                     'C:\\var\\log\\flanneld\\flanneld.log', '10.127.130.38'):
        assert expected in message, expected
    assert task(failed, 'Look for the HNS network flanneld creates', 'win1')['result']['attempts'] == 3
    assert not [t for t in failed.tasks if t['task'].endswith('Write the CNI config')], 'nothing after the failure'


# Long (make unit-long): make test converges static routes on the dual-stack e2e fleet, and a stale route's
# removal in test_node_routes.py (test_stale_routes_in_scope_go_others_stay).
@pytest.mark.long
def test_static_routes_converge_and_a_stale_route_goes(sim):
    pods = {'win1': {'kubewin_pod_cidr': '10.244.1.0/24'},
            'win2': {'kubewin_pod_cidr': '10.244.2.0/24', 'kubewin_container_runtime': 'docker'}}
    hosts = inventory(sim, ('win1', 'win2'), topology='l2bridge', l2bridge_routing='static_routes', host_vars=pods)
    book = playbook(sim, 'network_l2bridge')

    check = run(sim, book, hosts, '--check')
    assert check.rc == 0, check.output
    assert untouched(sim.node('win1')) and untouched(sim.node('win2'))

    converge = run(sim, book, hosts)
    assert converge.rc == 0, converge.output
    for host, peer, pod, hop in (('win1', 'win2', '10.244.1', '10.127.130.39'),
                                 ('win2', 'win1', '10.244.2', '10.127.130.38')):
        node = sim.node(host)
        assert network(sim, host, 'cbr0')['subnets'][0] == {'address_prefix': pod + '.0/24', 'gateway': pod + '.1',
                                                            'vsid': None}
        [endpoint] = [e for e in node.data['hns']['endpoints'] if e['name'] == 'cbr0_ep']
        assert endpoint['ip_address'] == pod + '.2' and node.adapter('vEthernet (cbr0_ep)')['forwarding']
        vnic = node.adapter('vEthernet (Ethernet)')['if_index']
        assert [(r['destination'], r['next_hop'], r['interface_index'], r['persistent']) for r in node.data['routes']] \
            == [('10.244.%s.0/24' % peer[-1], hop, vnic, True)]
        assert text(sim, host, CNI_CONFIG) == planned(converge, host)['cni_config_text']
        assert 'flanneld' not in node.data['services']
    assert sim.node('win1').file('C:\\opt\\cni\\bin\\sdnbridge.exe'), 'containerd delegates to sdnbridge'
    assert sim.node('win2').file('C:\\opt\\cni\\bin\\win-bridge.exe') and not sim.node('win2').file(
        'C:\\opt\\cni\\bin\\sdnbridge.exe'), 'Docker delegates to win-bridge'
    assert sim.node('win2').file('C:\\opt\\cni\\bin\\host-local.exe')

    again = run(sim, book, hosts)
    assert again.rc == 0 and again.changed('win1') == 0 and again.changed('win2') == 0, again.output
    assert again.calls['win1']['total'] == 1 and again.calls['win2']['total'] == 1

    with sim.edit_node('win1') as node:
        node.add_route('10.244.9.0/24', '10.127.130.99', 'vEthernet (Ethernet)', 256)
    stale = run(sim, book, hosts)
    assert stale.rc == 0 and stale.changed('win1') == 1 and stale.changed('win2') == 0, stale.output
    assert [r['destination'] for r in sim.node('win1').data['routes']] == ['10.244.2.0/24']


def test_upstream_routing_leaves_routes_to_the_router(sim):
    hosts = inventory(sim, topology='l2bridge', l2bridge_routing='upstream',
                      host_vars={'win1': {'kubewin_pod_cidr': '10.244.1.0/24', 'kubewin_container_runtime': 'docker'}})
    with sim.edit_node('win1', profile=dict(CONTAINERS_READY, ip='10.127.130.38')) as node:
        node.add_route('10.244.7.0/24', '10.127.130.1', 'Ethernet', 256)
    converge = run(sim, playbook(sim, 'network_l2bridge'), hosts)
    assert converge.rc == 0, converge.output
    assert network(sim, 'win1', 'cbr0')['subnets'][0]['address_prefix'] == '10.244.1.0/24'
    assert [r['destination'] for r in sim.node('win1').data['routes']] == ['10.244.7.0/24']
    assert text(sim, 'win1', CNI_CONFIG) == planned(converge, 'win1')['cni_config_text']
