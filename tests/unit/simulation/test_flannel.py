"""The simulated flanneld: what it does when its service starts, and how it fails."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import flannel  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402

NET_CONF = 'C:\\etc\\kube-flannel\\net-conf.json'
KUBECONFIG = 'C:\\etc\\kube-flannel\\kubeconfig'
SUBNET_ENV = 'C:\\run\\flannel\\subnet.env'
LOG = 'C:\\var\\log\\flanneld\\flanneld.log'
HOST_GW = {'Network': '10.244.0.0/16', 'Backend': {'Type': 'host-gw', 'Name': 'cbr0'}}
VXLAN = {'Network': '10.244.0.0/16', 'Backend': {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789, 'Name': 'flannel.4096'}}


@pytest.fixture
def state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', str(tmp_path))
    return str(tmp_path)


def node_with(net_conf='host-gw', kubeconfig=True, **profile):
    node = SimNode(initial_state('win1', dict({'ip': '10.127.130.38', 'features': {'Containers': 'installed'}},
                                              **profile)))
    # The placeholder network gave the adapter its vSwitch.
    node.create_network({'name': 'External', 'type': 'L2Bridge', 'address_prefix': '192.168.255.0/30',
                         'gateway': '192.168.255.1', 'adapter': 'Ethernet'})
    node.data['unreachable_until'] = 0  # the node is back after the placeholder's drop
    net_conf = HOST_GW if net_conf == 'host-gw' else net_conf
    if net_conf is not None:
        node.write_file(NET_CONF, content=net_conf if isinstance(net_conf, str) else json.dumps(net_conf))
    if kubeconfig:
        node.write_file(KUBECONFIG, content='apiVersion: v1\nkind: Config\n', acl='secret')
    return node


def service(environment=('NODE_NAME=win1',)):
    parameters = ('"--kubeconfig-file=%s" --iface=10.127.130.38 --ip-masq=1 --kube-subnet-mgr=1 '
                  '"--net-config-path=%s" "--subnet-file=%s"' % (KUBECONFIG, NET_CONF, SUBNET_ENV))
    return {'name': 'flanneld', 'command_line': 'C:\\k\\nssm.exe', 'environment': list(environment),
            'nssm': {'application': 'C:\\k\\flanneld.exe', 'app_parameters': parameters, 'app_stdout': LOG}}


def networks(node):
    return {n['name']: n for n in node.data['hns']['networks']}


def test_host_gw_creates_cbr0_with_its_host_endpoint_and_subnet_env(state_dir):
    node = node_with()
    flannel.run(node, service())
    lease = flannel.leases(state_dir)['10.244.0.0/16']['win1']
    prefix = lease.rsplit('.', 1)[0]
    cbr0 = networks(node)['cbr0']
    assert (cbr0['type'], cbr0['adapter'], cbr0['subnets'][0]) == (
        'L2Bridge', 'Ethernet', {'address_prefix': lease, 'gateway': prefix + '.1', 'vsid': None})
    assert [(e['name'], e['ip_address']) for e in node.data['hns']['endpoints']] == [('cbr0_ep', prefix + '.2')]
    assert node.adapter('vEthernet (cbr0_ep)') is not None
    assert node.file(SUBNET_ENV)['content'] == (
        'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=%s.1/24\nFLANNEL_MTU=1500\nFLANNEL_IPMASQ=true\n' % prefix)
    assert node.reachable(), 'the vSwitch existed: no network drop'
    again = dict(networks(node)['cbr0'])
    flannel.run(node, service())
    assert networks(node)['cbr0'] == again, 'a restart keeps a network with the same subnet'


def test_vxlan_creates_an_overlay_network_with_the_vni(state_dir):
    node = node_with(VXLAN)
    flannel.run(node, service())
    network = networks(node)['flannel.4096']
    assert (network['type'], network['subnets'][0]['vsid']) == ('Overlay', 4096)
    assert 'FLANNEL_MTU=1450' in node.file(SUBNET_ENV)['content']
    assert not node.data['hns']['endpoints']


def test_leases_are_distinct_per_node_and_kept(state_dir):
    first = flannel.lease(state_dir, '10.244.0.0/16', 'win1')
    second = flannel.lease(state_dir, '10.244.0.0/16', 'win2')
    assert first != second and flannel.lease(state_dir, '10.244.0.0/16', 'win1') == first
    assert flannel.lease(state_dir, '10.244.0.0/24', 'win3', prefix_length=25, preferred=1) == \
        flannel.lease(state_dir, '10.244.0.0/24', 'win3')
    assert str(flannel.lease(state_dir, '10.244.0.0/24', 'win4', prefix_length=25, preferred=1)) == '10.244.0.0/25'


@pytest.mark.parametrize('setup, environment, expected', [
    ({'net_conf': None}, ('NODE_NAME=win1',), 'failed to read net conf: open %s' % NET_CONF),
    ({'net_conf': '{"Network": '}, ('NODE_NAME=win1',), 'failed to parse net conf'),
    ({'kubeconfig': False}, ('NODE_NAME=win1',), 'fail to create kubernetes config: open %s' % KUBECONFIG),
    ({}, (), 'NODE_NAME is not set'),
    ({'net_conf': dict(VXLAN, Backend=dict(VXLAN['Backend'], VNI=1))}, ('NODE_NAME=win1',), 'VNI 1 is below 4096'),
    ({'net_conf': dict(VXLAN, Backend=dict(VXLAN['Backend'], Port=8472))}, ('NODE_NAME=win1',), 'only supports port'),
])
def test_flanneld_exits_and_creates_nothing(state_dir, setup, environment, expected):
    node = node_with(**setup)
    flanneld = service(environment)
    flannel.run(node, flanneld)
    assert expected in node.data['flanneld_log'][-1]
    assert expected in node.file(LOG)['content']
    assert flanneld['exit_code'] == 1
    assert list(networks(node)) == ['External'] and node.file(SUBNET_ENV) is None


def test_the_fault_leaves_it_waiting_for_the_network(state_dir):
    node = node_with(flannel_never_creates_network=True)
    flannel.run(node, service())
    assert list(networks(node)) == ['External'] and node.file(SUBNET_ENV) is None
    assert 'Waiting for the HNS network cbr0' in node.data['flanneld_log'][-1]


def test_stuck_starts_leave_it_waiting_until_a_later_start(state_dir):
    # flannel-io/flannel#1272, kubernetes-sigs/sig-windows-tools#89: restarting flanneld is the workaround.
    node = node_with(flannel_stuck_starts=1)
    flannel.run(node, service())
    assert list(networks(node)) == ['External'] and node.file(SUBNET_ENV) is None
    assert 'Waiting for the HNS network cbr0' in node.data['flanneld_log'][-1]
    flannel.run(node, service())
    assert 'cbr0' in networks(node) and node.file(SUBNET_ENV) is not None
    assert node.data['flannel_stuck_starts_spent'] == 1


def test_a_running_flanneld_does_not_bring_back_its_lost_network(state_dir):
    # vxlan_network_windows.go handleSubnetEvents: a network not found is logged, not created again.
    from kubewin_sim import scm  # pylint: disable=import-outside-toplevel
    node = node_with(net_conf=VXLAN)
    node.data['services']['flanneld'] = dict(service(), exists=True, state='stopped', start_mode='auto',
                                             dependencies=[])
    node.write_file('C:\\k\\nssm.exe', content='')
    node.write_file('C:\\k\\flanneld.exe', content='')
    node.write_file(LOG, content='')  # nssm opens its output file in an existing folder
    scm.start(node, 'flanneld')
    node.remove_network(networks(node)['flannel.4096']['id'])
    assert 'flannel.4096' not in networks(node) and node.data['services']['flanneld']['state'] == 'running'
    scm.stop(node, 'flanneld')
    scm.start(node, 'flanneld')
    assert 'flannel.4096' in networks(node)


def test_without_the_placeholder_flanneld_creates_the_vswitch_and_drops_the_network(state_dir):
    node = node_with()
    node.remove_network(networks(node)['External']['id'])
    node.data['unreachable_until'] = 0
    flannel.run(node, service())
    assert networks(node)['cbr0']['adapter'] == 'Ethernet' and node.adapter('vEthernet (Ethernet)') is not None
    assert not node.reachable(), 'the first vSwitch of the adapter drops the node'


def test_with_a_cluster_the_lease_is_the_nodes_pod_cidr_once_the_kubelet_registered_it(state_dir):
    from kubewin_sim import cluster as sim_cluster  # pylint: disable=import-outside-toplevel
    from kubewin_sim.node import open_node  # pylint: disable=import-outside-toplevel
    with sim_cluster.open_cluster(state_dir, profile={}):
        pass
    node = node_with()
    flannel.run(node, service())
    assert 'Waiting for node win1 to be registered' in node.data['flanneld_log'][-1]
    assert list(networks(node)) == ['External'] and node.file(SUBNET_ENV) is None
    with open_node(state_dir, 'win1', profile={'ip': '10.127.130.38'}) as registered:
        registered.data['services']['kubelet'] = {'name': 'kubelet', 'exists': True, 'state': 'running'}
        registered.write_file(sim_cluster.KUBELET_KUBECONFIG, content='apiVersion: v1\nkind: Config\n')
    with sim_cluster.open_cluster(state_dir) as cluster:
        pod_cidr = cluster.get('Node', None, 'win1')['spec']['podCIDR']
    flannel.run(node, service())
    assert networks(node)['cbr0']['subnets'][0]['address_prefix'] == pod_cidr
