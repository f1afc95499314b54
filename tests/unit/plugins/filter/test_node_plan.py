"""From inventory variables to each node's share of the plan."""

import json

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.filter.node_plan import FilterModule

FILTERS = FilterModule().filters()
CLUSTER = {'kubewin_topology': 'l2bridge', 'kubewin_cluster_cidr': '10.244.0.0/16',
           'kubewin_service_cidr': '10.96.0.0/12', 'kubewin_management_cidr': '10.127.130.0/24'}


def hostvars(**per_host):
    return {host: dict(CLUSTER, **variables) for host, variables in per_host.items()}


def test_plan_input_reads_the_contract():
    gathered = FILTERS['plan_input'](hostvars(
        a={'ansible_host': '10.127.130.11', 'kubewin_container_runtime': 'docker'},
        b={'ansible_host': 'b.example', 'kubewin_management_ip': '10.127.130.12', 'kubewin_node_count': ''}),
        ['a', 'b'])
    assert gathered['plan'] == dict(
        topology='l2bridge', cluster_cidr='10.244.0.0/16', service_cidr='10.96.0.0/12',
        management_cidr='10.127.130.0/24',
        nodes=[{'name': 'a', 'management_ip': '10.127.130.11', 'pod_cidr': None},
               {'name': 'b', 'management_ip': '10.127.130.12', 'pod_cidr': None}])
    assert gathered['container_runtimes'] == {'a': 'docker', 'b': 'containerd'}
    assert gathered['versions'] == {'kubernetes_version': None, 'control_plane_version': None,
                                    'acknowledged_cves': [], 'calico_version': None, 'topology': 'l2bridge',
                                    'dual_stack': False}
    assert gathered['paths']['cni_bin_dir'] == 'C:\\opt\\cni\\bin'


def test_node_paths_can_move_but_must_be_windows_paths():
    variables = hostvars(a={'ansible_host': '10.127.130.11', 'kubewin_node_paths': {'kubernetes_dir': 'D:\\k'}})
    assert FILTERS['plan_input'](variables, ['a'])['paths']['kubernetes_dir'] == 'D:\\k'
    for bad, message in (({'nope': 'C:\\x'}, 'unknown keys'), ({'log_dir': '/var/log'}, 'absolute Windows paths')):
        with pytest.raises(AnsibleFilterError, match=message):
            FILTERS['plan_input'](hostvars(a={'ansible_host': '10.127.130.11', 'kubewin_node_paths': bad}), ['a'])


def test_cluster_variables_must_agree_across_nodes():
    variables = hostvars(a={'ansible_host': '10.127.130.11'}, b={'ansible_host': '10.127.130.12'},
                         c={'ansible_host': '10.127.130.13'})
    variables['b']['kubewin_cluster_cidr'] = '10.245.0.0/16'
    with pytest.raises(AnsibleFilterError, match=r'kubewin_cluster_cidr must be the same on every Windows node, '
                                                 r'found: 10.244.0.0/16 on a, c; 10.245.0.0/16 on b'):
        FILTERS['plan_input'](variables, ['a', 'b', 'c'])


def test_plan_input_errors():
    with pytest.raises(AnsibleFilterError, match='no Windows nodes'):
        FILTERS['plan_input']({}, [])
    with pytest.raises(AnsibleFilterError, match='a has neither kubewin_management_ip nor ansible_host'):
        FILTERS['plan_input'](hostvars(a={}), ['a'])


def test_node_network_for_static_routes():
    gathered = FILTERS['plan_input'](hostvars(
        a={'ansible_host': '10.127.130.11', 'kubewin_pod_cidr': '10.244.1.0/24'},
        b={'ansible_host': '10.127.130.12', 'kubewin_pod_cidr': '10.244.2.0/24', 'kubewin_container_runtime': 'docker'}),
        ['a', 'b'])
    gathered['plan']['l2bridge_routing'] = 'static_routes'
    network = FILTERS['node_network'](gathered['plan'], gathered['container_runtimes'])
    assert network['a']['static_routes'] == [{'destination': '10.244.2.0/24', 'next_hop': '10.127.130.12',
                                              'via_node': 'b'}]
    assert network['b']['pod_gateways'] == {'bridge_gateway': '10.244.2.1', 'endpoint_gateway': '10.244.2.2'}
    assert network['b']['cni_config']['type'] == 'win-bridge' and network['a']['cni_config']['type'] == 'sdnbridge'
    assert network['a']['flannel_net_conf'] is None and network['a']['flannel_net_conf_text'] is None
    assert json.loads(network['a']['cni_config_text']) == network['a']['cni_config']
    assert network['a']['cni_config_text'].endswith('}\n')
    assert network['a']['exception_list'] == ['10.244.0.0/16', '10.96.0.0/12', '10.127.130.0/24']


def test_node_network_for_flannel_overlay():
    plan = {'topology': 'overlay', 'cluster_cidr': '10.244.0.0/16', 'service_cidr': '10.96.0.0/12',
            'management_cidr': '10.127.130.0/24', 'nodes': [{'name': 'a', 'management_ip': '10.127.130.11'}]}
    network = FILTERS['node_network'](plan, {})
    node = network['a']
    assert node['container_runtime'] == 'containerd' and node['pod_cidr'] is None and node['pod_gateways'] is None
    assert json.loads(node['flannel_net_conf_text']) == {
        'Network': '10.244.0.0/16', 'Backend': {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789, 'Name': 'flannel.4096'}}
    assert node['cni_config']['name'] == 'flannel.4096'
