"""kubewin.node.node_health_problems: a node's networking against its plan, from its snapshot and its Node."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.plugin_utils._node_health import node_health_problems

OVERLAY = {'topology': 'overlay', 'network_name': 'flannel.4096', 'l2bridge_routing': 'flannel'}
OVN = {'topology': 'ovn', 'network_name': None, 'l2bridge_routing': None}


def _service(name, state='running'):
    return {'name': name, 'exists': True, 'state': state}


def _snapshot(networks, services):
    return {'hns': {'available': True, 'networks': [{'name': name} for name in networks], 'endpoints': [],
                    'policy_lists': []},
            'services': {name: _service(name, state) for name, state in services.items()}}


def _ready_node(name='win1', ready='True'):
    labels = {'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348'}
    return {'metadata': {'name': name, 'labels': labels},
            'status': {'conditions': [{'type': 'Ready', 'status': ready, 'reason': 'KubeletReady'}]}}


def _hostvars(cluster, runtime='containerd', **more):
    return {'win1': dict({'plan_cluster': cluster, 'plan_node': {'container_runtime': runtime}}, **more)}


RUNNING = {'containerd': 'running', 'kubelet': 'running', 'kube-proxy': 'running', 'flanneld': 'running'}


def test_a_working_overlay_node_has_no_problem():
    snapshot = _snapshot(['External', 'flannel.4096'], RUNNING)
    assert node_health_problems(snapshot, [_ready_node()], 'win1', _hostvars(OVERLAY)) == []


def test_each_missing_network_stopped_service_and_unready_node_is_named():
    snapshot = _snapshot(['external'], dict(RUNNING, flanneld='stopped'))
    del snapshot['services']['kube-proxy']
    problems = node_health_problems(snapshot, [_ready_node(ready='False')], 'win1', _hostvars(OVERLAY))
    assert problems == ['the HNS network flannel.4096 is missing', 'the service kube-proxy is not installed',
                        'the service flanneld is stopped', 'not Ready (Ready=False, KubeletReady)']


def test_with_the_kube_proxy_daemonset_the_node_needs_no_kube_proxy_service():
    snapshot = _snapshot(['External', 'flannel.4096'], RUNNING)
    del snapshot['services']['kube-proxy']
    assert node_health_problems(snapshot, [_ready_node()], 'win1', _hostvars(OVERLAY, plan_kube_proxy_mode='daemonset')) == []
    assert node_health_problems(snapshot, [_ready_node()], 'win1', _hostvars(OVERLAY, plan_kube_proxy_mode='service')) == [
        'the service kube-proxy is not installed']


def test_the_placeholder_name_follows_the_hosts_role_option():
    snapshot = _snapshot(['vSwitch', 'flannel.4096'], RUNNING)
    hostvars = _hostvars(OVERLAY, network_overlay_placeholder_name='vSwitch')
    assert node_health_problems(snapshot, [_ready_node()], 'win1', hostvars) == []
    assert node_health_problems(snapshot, [_ready_node()], 'win1', _hostvars(OVERLAY)) == [
        'the HNS network External is missing']


def test_ovn_needs_open_vswitch_and_ovn_controller_and_no_kube_proxy():
    services = {'containerd': 'running', 'kubelet': 'running', 'ovsdb-server': 'running', 'ovs-vswitchd': 'running',
                'ovn-controller': 'stopped'}
    snapshot = dict(_snapshot(['external'], services), ovs={'database': {'bridges': {'br-ex': {'ports': {}}},
                                                                         'external_ids': {}}, 'database_error': None})
    assert node_health_problems(snapshot, [_ready_node()], 'win1', _hostvars(OVN)) == [
        'the service ovn-controller is stopped']
    snapshot['ovs']['database']['bridges'] = {}
    assert node_health_problems(snapshot, [_ready_node()], 'win1', _hostvars(OVN))[-1] == (
        'the Open vSwitch bridge br-ex is missing')
    snapshot['ovs'] = {'database': None, 'database_error': 'ovsdb-server is not running'}
    assert node_health_problems(snapshot, [_ready_node()], 'win1', _hostvars(OVN))[-1] == (
        'the Open vSwitch database cannot be read: ovsdb-server is not running')


def test_cri_dockerd_must_run_where_the_node_has_it():
    services = dict(RUNNING, docker='running', **{'cri-dockerd': 'stopped'})
    del services['containerd']
    problems = node_health_problems(_snapshot(['External', 'flannel.4096'], services), [_ready_node()], 'win1',
                                    _hostvars(OVERLAY, runtime='docker'))
    assert problems == ['the service cri-dockerd is stopped']


def test_a_node_without_its_node_object_is_named():
    problems = node_health_problems(_snapshot(['External', 'flannel.4096'], RUNNING), [], 'win1', _hostvars(OVERLAY))
    assert problems == ['no Node named win1 (the kubelet has not registered it: not joined, or not running)']


def test_bad_input_is_refused_naming_what_is_missing():
    with pytest.raises(AnsibleFilterError, match='plan_cluster and plan_node'):
        node_health_problems(_snapshot([], {}), [], 'win1', {'win1': {}})
    with pytest.raises(AnsibleFilterError, match='hns and services'):
        node_health_problems({'os': {}}, [], 'win1', _hostvars(OVERLAY))
