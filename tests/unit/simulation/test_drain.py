"""The simulated kubernetes.core.k8s_drain, cordoned Nodes, and the kubelet version a Node reports."""

import copy
import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import k8s_modules, programs  # noqa: E402
from kubewin_sim.cluster import KUBELET_KUBECONFIG, open_cluster  # noqa: E402
from kubewin_sim.node import open_node  # noqa: E402

KUBELET = 'C:\\k\\kubelet.exe'
DEPLOYMENT = {
    'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web', 'namespace': 'default'},
    'spec': {'replicas': 2, 'selector': {'matchLabels': {'app': 'web'}},
             'template': {'metadata': {'labels': {'app': 'web'}},
                          'spec': {'nodeSelector': {'kubernetes.io/os': 'windows'},
                                   'containers': [{'name': 'web', 'image': 'mcr.microsoft.com/windows/nanoserver:ltsc2022'}]}}},
}


def params(name, state='drain', **options):
    delete_options = {'terminate_grace_period': None, 'force': False, 'ignore_daemonsets': False,
                      'delete_emptydir_data': False, 'disable_eviction': False, 'wait_timeout': None, 'wait_sleep': 5}
    delete_options.update(options)
    return {'name': name, 'state': state, 'delete_options': delete_options, 'pod_selectors': None}


def join(state, host, ip, kubelet_version=None):
    with open_node(state, host, profile={'ip': ip, 'build': 20348}) as node:
        node.write_file(KUBELET_KUBECONFIG, content='apiVersion: v1\nkind: Config\n')
        if kubelet_version:
            entry = node.write_file(KUBELET, sha256='%064x' % 1, size=4096)
            node.set_artifact_record(KUBELET, {
                'url': 'https://dl.k8s.io/release/v%s/bin/windows/amd64/kubelet.exe' % kubelet_version,
                'checksum': 'sha256:x', 'version': kubelet_version, 'files': {KUBELET: entry['sha256']}})
        service = {'name': 'kubelet', 'exists': True, 'state': 'running', 'start_mode': 'auto',
                   'command_line': '%s --v=2' % KUBELET, 'dependencies': [], 'nssm': None}
        programs.start(node, 'kubelet', service)
        node.data['services']['kubelet'] = service


@pytest.fixture
def fleet(tmp_path):
    state = str(tmp_path)
    join(state, 'win1', '10.127.130.38')
    join(state, 'win2', '10.127.130.39')
    with open_cluster(state) as cluster:
        cluster.create(copy.deepcopy(DEPLOYMENT))
    return state


def pods(state):
    with open_cluster(state) as cluster:
        return {p['metadata']['name']: p['spec'].get('nodeName') for p in cluster.list('Pod', 'default')}


def drain(state_dir, **kwargs):
    with open_cluster(state_dir) as cluster:
        answer = k8s_modules._drain(cluster, params(**kwargs))  # pylint: disable=protected-access
        cluster.reconcile()
    return answer


def test_drain_cordons_evicts_and_the_pods_move_off_the_node(fleet):
    before = pods(fleet)
    assert sorted(before.values()) == ['win1', 'win2']
    answer, failure = drain(fleet, name='win1')
    assert failure is None and answer['changed']
    assert answer['result'] == 'node win1 marked unschedulable. 1 Pod(s) deleted from node.'
    after = pods(fleet)
    assert sorted(after.values()) == ['win2', 'win2']
    assert [n for n, node in before.items() if node == 'win1'][0] not in after, 'the pod on win1 was evicted'
    with open_cluster(fleet) as cluster:
        node = cluster.get('Node', None, 'win1')
    assert node['spec']['unschedulable'] is True
    assert {'key': 'node.kubernetes.io/unschedulable', 'effect': 'NoSchedule'} in node['spec']['taints']
    # Draining again evicts nothing and changes nothing.
    assert drain(fleet, name='win1') == ({'changed': False, 'result': 'node win1 already marked unschedulable.'}, None)
    answer, failure = drain(fleet, name='win1', state='uncordon')
    assert failure is None
    assert answer == {'changed': True, 'result': 'node win1 marked schedulable.'}
    with open_cluster(fleet) as cluster:
        node = cluster.get('Node', None, 'win1')
    assert 'unschedulable' not in node['spec'] and 'taints' not in node['spec'], node['spec']
    assert drain(fleet, name='win1', state='uncordon')[0]['changed'] is False


def test_a_cordon_survives_the_kubelet_status_updates(fleet):
    drain(fleet, name='win2', state='cordon')
    with open_node(fleet, 'win2') as node:
        node.data['os']['ubr'] += 1  # the kubelet reports a new kernel version: the Node is written again
    with open_cluster(fleet) as cluster:
        assert cluster.get('Node', None, 'win2')['spec']['unschedulable'] is True


def add_pod(cluster, name, owner_kind=None, **spec):
    """A pod on win1 owned by the cluster's flannel DaemonSet or the web Deployment's ReplicaSet, or by nothing."""
    owners = []
    if owner_kind == 'DaemonSet':
        owner = cluster.get('DaemonSet', 'kube-flannel', 'kube-flannel-ds')
        owners = [{'apiVersion': 'apps/v1', 'kind': 'DaemonSet', 'name': 'kube-flannel-ds', 'uid': owner['metadata']['uid']}]
    elif owner_kind == 'ReplicaSet':
        # The web Deployment's pod on win1, with its labels and owner, so that its controller keeps it.
        web = [p for p in cluster.list('Pod', 'default') if p['spec'].get('nodeName') == 'win1'][0]
        del cluster.data['objects']['Pod']['default/' + web['metadata']['name']]
        cluster.data['objects']['Pod']['default/' + name] = dict(
            web, metadata=dict(web['metadata'], name=name), spec=dict(web['spec'], **spec))
        return
    cluster.data['objects']['Pod']['default/' + name] = {
        'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name, 'namespace': 'default', 'ownerReferences': owners},
        'spec': dict({'nodeName': 'win1', 'containers': [{'name': 'c', 'image': 'i'}]}, **spec),
        'status': {'phase': 'Running'}}


@pytest.mark.parametrize('owner, spec, error', [
    ('DaemonSet', {}, 'cannot delete DaemonSet-managed Pods (use option ignore_daemonset set to yes): default/extra.'),
    (None, {}, 'cannot delete Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet '
               '(use option force set to yes): default/extra.'),
    ('ReplicaSet', {'volumes': [{'name': 'cache', 'emptyDir': {}}]},
     'cannot delete Pods with local storage: default/extra.'),
])
def test_pods_the_options_do_not_allow_stop_the_drain_and_the_node_stays_schedulable(fleet, owner, spec, error):
    with open_cluster(fleet) as cluster:
        add_pod(cluster, 'extra', owner, **spec)
    answer, failure = drain(fleet, name='win1')
    assert answer == {} and failure == 'Pod deletion errors: ' + error
    with open_cluster(fleet) as cluster:
        assert not cluster.get('Node', None, 'win1')['spec'].get('unschedulable')
        assert cluster.get('Pod', 'default', 'extra') is not None


def test_ignore_daemonsets_leaves_their_pods_and_force_evicts_unmanaged_ones(fleet):
    with open_cluster(fleet) as cluster:
        add_pod(cluster, 'ds-pod', 'DaemonSet')
        add_pod(cluster, 'bare')
    answer, failure = drain(fleet, name='win1', ignore_daemonsets=True, force=True)
    assert failure is None
    assert answer['warnings'] == [
        'Deleting Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet: default/bare.',
        'Ignoring DaemonSet-managed Pods: default/ds-pod.']
    remaining = pods(fleet)
    assert 'ds-pod' in remaining and 'bare' not in remaining


def test_an_unknown_node_fails_as_the_real_module_does(fleet):
    assert drain(fleet, name='win9') == ({}, 'Node win9 not found.')


def test_the_node_reports_the_version_of_the_kubelet_binary_it_started(tmp_path):
    state = str(tmp_path)
    join(state, 'win1', '10.127.130.38', kubelet_version='1.32.13')
    with open_cluster(state) as cluster:
        assert cluster.get('Node', None, 'win1')['status']['nodeInfo']['kubeletVersion'] == 'v1.32.13'
    # A binary replaced under the running kubelet changes nothing until the kubelet restarts.
    with open_node(state, 'win1') as node:
        node.write_file(KUBELET, sha256='%064x' % 2, size=4096)
        assert programs.installed_version(node, KUBELET) is None, 'the record no longer matches the file'
    with open_cluster(state) as cluster:
        assert cluster.get('Node', None, 'win1')['status']['nodeInfo']['kubeletVersion'] == 'v1.32.13'


def budget(**spec):
    return {'apiVersion': 'policy/v1', 'kind': 'PodDisruptionBudget', 'metadata': {'name': 'web', 'namespace': 'default'},
            'spec': dict({'selector': {'matchLabels': {'app': 'web'}}}, **spec)}


def test_a_disruption_budget_that_allows_no_disruption_refuses_the_eviction_and_the_node_stays_cordoned(fleet):
    # Kubernetes docs, "API-initiated eviction": the API server answers 429 while a budget allows no disruption;
    # kubernetes.core's k8s_drain fails with the Status message at once, and does not uncordon.
    with open_cluster(fleet) as cluster:
        cluster.create(budget(minAvailable=2))
    with open_cluster(fleet) as cluster:
        assert cluster.get('PodDisruptionBudget', 'default', 'web')['status'] == {
            'observedGeneration': 1, 'expectedPods': 2, 'currentHealthy': 2, 'desiredHealthy': 2, 'disruptionsAllowed': 0}
    before = pods(fleet)
    answer, failure = drain(fleet, name='win1')
    on_win1 = [name for name, node in before.items() if node == 'win1'][0]
    assert failure == ("Failed to delete pod default/%s due to: Cannot evict pod as it would violate the pod's "
                       "disruption budget." % on_win1)
    assert pods(fleet) == before, 'nothing evicted'
    with open_cluster(fleet) as cluster:
        assert cluster.get('Node', None, 'win1')['spec']['unschedulable'] is True
        assert cluster.eviction_refusal('default', on_win1)[1] == 'The disruption budget web needs 2 healthy pods and has 2 currently'
        assert cluster.eviction_refusal('default', 'no-such-pod') is None, 'a pod that is gone: nothing to refuse'

    # The budget lets one pod go: the drain evicts it, and its replacement runs on win2.
    with open_cluster(fleet) as cluster:
        cluster.patch('PodDisruptionBudget', 'default', 'web', {'spec': {'minAvailable': 1}})
    answer, failure = drain(fleet, name='win1')
    assert failure is None and answer['result'] == 'node win1 already marked unschedulable. 1 Pod(s) deleted from node.'
    assert sorted(pods(fleet).values()) == ['win2', 'win2']


def test_a_delete_is_no_eviction(fleet):
    # disable_eviction: the module deletes the pods (delete_namespaced_pod), which no budget holds back.
    with open_cluster(fleet) as cluster:
        cluster.create(budget(minAvailable=2))
    answer, failure = drain(fleet, name='win1', disable_eviction=True)
    assert failure is None and answer['result'] == 'node win1 marked unschedulable. 1 Pod(s) deleted from node.'


def test_max_unavailable_and_an_unready_pod(fleet):
    with open_cluster(fleet) as cluster:
        cluster.create(budget(maxUnavailable=1))
    with open_cluster(fleet) as cluster:
        assert cluster.get('PodDisruptionBudget', 'default', 'web')['status']['disruptionsAllowed'] == 1
        with pytest.raises(Exception, match='one of minAvailable or maxUnavailable as an integer'):
            cluster.create(dict(budget(minAvailable='50%'), metadata={'name': 'half', 'namespace': 'default'}))
    # The kubelet on win2 stops: its pod is not Ready, the budget has 1 healthy of 1 desired, and the unready pod may
    # still be evicted (unhealthyPodEvictionPolicy IfHealthyBudget, the default).
    with open_node(fleet, 'win2') as node:
        node.data['services']['kubelet']['state'] = 'stopped'
    with open_cluster(fleet) as cluster:
        status = cluster.get('PodDisruptionBudget', 'default', 'web')['status']
        on_win2 = [p['metadata']['name'] for p in cluster.list('Pod', 'default') if p['spec'].get('nodeName') == 'win2'][0]
        on_win1 = [p['metadata']['name'] for p in cluster.list('Pod', 'default') if p['spec'].get('nodeName') == 'win1'][0]
        assert (status['currentHealthy'], status['desiredHealthy'], status['disruptionsAllowed']) == (1, 1, 0)
        assert cluster.eviction_refusal('default', on_win2) is None
        assert cluster.eviction_refusal('default', on_win1)[0].startswith('Cannot evict pod')
