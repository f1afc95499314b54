"""The Linux side checked against the Windows side (plugins/plugin_utils/_cluster.py)."""

import json

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _cluster
from ansible_collections.kubewin.node.plugins.plugin_utils._cluster import ClusterCheckError

OVERLAY = {'Network': '10.244.0.0/16', 'Backend': {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789, 'Name': 'flannel.4096'}}
HOST_GW = {'Network': '10.244.0.0/16', 'Backend': {'Type': 'host-gw', 'Name': 'cbr0'}}


def text(document):
    return json.dumps(document, indent=2) + '\n'


# -- flannel net-conf ----------------------------------------------------------------------------

def test_matching_net_conf_has_no_differences_and_name_is_ignored():
    cluster = {'Network': '10.244.0.0/16', 'EnableNFTables': False,
               'Backend': {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789}}
    result = _cluster.flannel_net_conf_compare(text(cluster), OVERLAY)
    assert result['differences'] == []
    assert result['reconciled'] == cluster and 'Name' not in result['reconciled']['Backend']


def test_explicit_vni_is_reported_exactly():
    cluster = {'Network': '10.244.0.0/16', 'Backend': {'Type': 'vxlan', 'VNI': 1, 'Port': 4789}}
    result = _cluster.flannel_net_conf_compare(text(cluster), OVERLAY)
    assert result['differences'] == ['Backend.VNI: cluster has 1, Windows nodes need 4096']
    assert result['reconciled']['Backend'] == {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789}
    assert json.loads(result['reconciled_text']) == result['reconciled']


def test_linux_defaults_count_as_set_and_say_so():
    # Today's kube-flannel.yml: vxlan without VNI and Port, i.e. VNI 1 on kernel port 8472.
    cluster = {'Network': '10.244.0.0/16', 'EnableNFTables': False, 'Backend': {'Type': 'vxlan'}}
    result = _cluster.flannel_net_conf_compare(text(cluster), OVERLAY)
    assert result['differences'] == [
        "Backend.VNI: cluster has 1 (flannel's default; net-conf.json does not set it), Windows nodes need 4096",
        "Backend.Port: cluster has 8472 (flannel's default; net-conf.json does not set it), Windows nodes need 4789",
    ]
    assert result['reconciled'] == {'Network': '10.244.0.0/16', 'EnableNFTables': False,
                                    'Backend': {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789}}


def test_network_and_type_differences():
    cluster = {'Network': '10.245.0.0/16', 'Backend': {'Type': 'host-gw'}}
    result = _cluster.flannel_net_conf_compare(cluster, OVERLAY)
    assert result['differences'] == ['Network: cluster has 10.245.0.0/16, Windows nodes need 10.244.0.0/16',
                                     'Backend.Type: cluster has host-gw, Windows nodes need vxlan']
    # settings of the old backend type are dropped, the new one's are set
    assert result['reconciled'] == {'Network': '10.244.0.0/16', 'Backend': {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789}}


def test_unset_type_is_flannels_udp_default():
    result = _cluster.flannel_net_conf_compare({'Network': '10.244.0.0/16'}, HOST_GW)
    assert result['differences'] == [
        "Backend.Type: cluster has udp (flannel's default; net-conf.json does not set it), Windows nodes need host-gw"]


def test_host_gw_compares_only_the_type():
    cluster = {'Network': '10.244.0.0/16', 'Backend': {'Type': 'host-gw'}}
    assert _cluster.flannel_net_conf_compare(cluster, HOST_GW)['differences'] == []


@pytest.mark.parametrize('cluster, message', [
    ('{"Network": ', 'not JSON'),
    ('[]', 'must be a JSON object'),
    ({'Network': '10.244.0.0/16', 'Backend': 'vxlan'}, 'Backend must be an object'),
])
def test_malformed_net_conf(cluster, message):
    with pytest.raises(ClusterCheckError, match=message):
        _cluster.flannel_net_conf_compare(cluster, OVERLAY)


def test_windows_side_must_be_a_net_conf():
    with pytest.raises(ClusterCheckError, match='Network and Backend.Type'):
        _cluster.flannel_net_conf_compare({'Network': '10.244.0.0/16'}, {'Network': '10.244.0.0/16'})


# -- Linux-only workloads ---------------------------------------------------------------------------

def daemonset(**pod_spec):
    return {'kind': 'DaemonSet', 'metadata': {'name': 'x'}, 'spec': {'template': {'spec': pod_spec}}}


def affinity(*terms):
    return {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': list(terms)}}}


LINUX_TERM = {'matchExpressions': [{'key': 'kubernetes.io/os', 'operator': 'In', 'values': ['linux']}]}


@pytest.mark.parametrize('workload, expected', [
    (daemonset(nodeSelector={'kubernetes.io/os': 'linux'}), True),
    (daemonset(nodeSelector={'beta.kubernetes.io/os': 'linux'}), True),
    (daemonset(affinity=affinity(LINUX_TERM)), True),
    (daemonset(affinity=affinity(LINUX_TERM, LINUX_TERM)), True),
    (daemonset(), False),
    (daemonset(nodeSelector={'kubernetes.io/arch': 'amd64'}), False),
    (daemonset(nodeSelector={'kubernetes.io/os': 'windows'}), False),
    # one term that admits any OS makes the whole affinity admit Windows
    (daemonset(affinity=affinity(LINUX_TERM, {'matchExpressions': [
        {'key': 'kubernetes.io/arch', 'operator': 'In', 'values': ['amd64']}]})), False),
    (daemonset(affinity=affinity({'matchExpressions': [
        {'key': 'kubernetes.io/os', 'operator': 'In', 'values': ['linux', 'windows']}]})), False),
    (daemonset(affinity=affinity({'matchExpressions': [
        {'key': 'kubernetes.io/os', 'operator': 'NotIn', 'values': ['windows']}]})), False),
])
def test_schedules_only_on_linux(workload, expected):
    assert _cluster.schedules_only_on_linux(workload) is expected


def test_workload_without_pod_template_is_an_error():
    with pytest.raises(ClusterCheckError, match='no spec.template.spec'):
        _cluster.schedules_only_on_linux({'kind': 'ConfigMap', 'metadata': {'name': 'x'}})


# -- Windows Nodes ------------------------------------------------------------------------------------

def node(name, ready='True', build=20348, os_label='windows', reason='KubeletReady', message=''):
    labels = {'kubernetes.io/hostname': name}
    if os_label:
        labels['kubernetes.io/os'] = os_label
    if build:
        labels['node.kubernetes.io/windows-build'] = '10.0.%d' % build
    return {'metadata': {'name': name, 'labels': labels},
            'status': {'conditions': [{'type': 'Ready', 'status': ready, 'reason': reason, 'message': message}]}}


def snapshot(build):
    return {'ansible_facts': {'kubewin_node': {'os': {'build': build}}}}


def test_ready_labelled_nodes_have_no_problems():
    nodes = [node('win-a'), node('win-b', build=17763), node('cp1', os_label='linux', build=None)]
    hostvars = {'WIN-A': snapshot(20348), 'win-b': {}}
    assert _cluster.windows_node_problems(nodes, ['WIN-A', 'win-b'], hostvars) == {}


def test_every_problem_is_named_per_host():
    nodes = [node('win-b', ready='False', reason='KubeletNotReady', message='cni plugin not initialized'),
             node('win-c', build=None), node('win-d', build=17763), node('win-e', os_label='linux')]
    hostvars = {h: snapshot(20348) for h in ('win-a', 'win-b', 'win-c', 'win-d', 'win-e')}
    problems = _cluster.windows_node_problems(nodes, ['win-a', 'win-b', 'win-c', 'win-d', 'win-e'], hostvars)
    assert problems == {
        'win-a': ['no Node named win-a (the kubelet has not registered it: not joined, or not running)'],
        'win-b': ['not Ready (Ready=False, KubeletNotReady: cni plugin not initialized)'],
        'win-c': ['lacks label node.kubernetes.io/windows-build=10.0.20348'],
        'win-d': ['lacks label node.kubernetes.io/windows-build=10.0.20348 (has 10.0.17763)'],
        'win-e': ['lacks label kubernetes.io/os=windows (has kubernetes.io/os=linux)'],
    }


def test_without_a_snapshot_any_build_label_will_do_but_one_is_needed():
    nodes = [node('win-a', build=17763), node('win-b', build=None)]
    assert _cluster.windows_node_problems(nodes, ['win-a', 'win-b']) == {
        'win-b': ['lacks label node.kubernetes.io/windows-build']}


def test_unknown_ready_status_and_missing_condition():
    unknown = node('win-a', ready='Unknown', reason='NodeStatusUnknown', message='Kubelet stopped posting node status.')
    bare = node('win-b')
    bare['status'] = {}
    assert _cluster.windows_node_problems([unknown, bare], ['win-a', 'win-b']) == {
        'win-a': ['not Ready (Ready=Unknown, NodeStatusUnknown: Kubelet stopped posting node status.)'],
        'win-b': ['not Ready (no Ready condition)']}


@pytest.mark.parametrize('nodes, hosts', [({}, ['a']), ([], 'a'), ([], None)])
def test_bad_arguments(nodes, hosts):
    with pytest.raises(ClusterCheckError):
        _cluster.windows_node_problems(nodes, hosts)
