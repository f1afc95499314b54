"""HostProcess pods of DaemonSets on the simulated Windows nodes (kubewin_sim/hostprocess.py): the kube-proxy
DaemonSet of kubewin_kube_proxy_mode daemonset runs its start script whole in the engine on each Windows node that
meets the prerequisites, and its kube-proxy programs the node's Service load balancers."""

import os
import sys
import time

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _kube_proxy_daemonset  # noqa: E402
from kubewin_sim import hostprocess  # noqa: E402
from kubewin_sim.cluster import KUBELET_KUBECONFIG, open_cluster  # noqa: E402
from kubewin_sim.node import open_node, peek  # noqa: E402

SELECTOR = ['k8s-app=kube-proxy-windows']


@pytest.fixture(name='state')
def state_fixture(tmp_path, monkeypatch):
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', str(tmp_path))
    return str(tmp_path)


def windows_node(state, host, ip, kube_proxy=True, source_vip=True, runtime=None):
    """A joined overlay node: kubelet running, the flannel network, and what the collection puts there."""
    with open_node(state, host, profile={'ip': ip, 'build': 20348}) as node:
        node.data['services']['kubelet'] = {'name': 'kubelet', 'exists': True, 'state': 'running'}
        if runtime:
            node.data['services']['containerd'] = {'name': 'containerd', 'exists': True, 'state': 'running',
                                                   'version': runtime}
        node.write_file(KUBELET_KUBECONFIG, content='apiVersion: v1\nkind: Config\n')
        node.data['hns']['networks'].append({'id': 'n1', 'name': 'flannel.4096', 'type': 'Overlay', 'adapter': 'Ethernet',
                                             'subnets': [{'address_prefix': '10.244.1.0/24', 'gateway': '10.244.1.1'}],
                                             'management_ip': ip, 'flags': 0})
        if kube_proxy:
            node.write_file('C:\\k\\kube-proxy.exe', content='kube-proxy')
            node.write_file('C:\\etc\\kubernetes\\kube-proxy.conf', content='apiVersion: v1\nkind: Config\n')
        if source_vip:
            node.write_file('C:\\k\\SourceVip.json', content='{"cniVersion":"0.3.1","ips":[{"address":"10.244.1.2/24"}]}')


def apply_daemonset(state):
    built = _kube_proxy_daemonset.kube_proxy_daemonset({
        'kubernetes_version': '1.31.4', 'topology': 'overlay', 'cluster_cidr': '10.244.0.0/16',
        'paths': {'kubernetes_dir': 'C:\\k', 'kubernetes_config_dir': 'C:\\etc\\kubernetes'}})
    with open_cluster(state) as cluster:
        for obj in built['objects']:
            cluster.create(obj)
        cluster.reconcile()


def pods(state):
    with open_cluster(state) as cluster:
        return {p['spec']['nodeName']: p for p in cluster.list('Pod', 'kube-system', SELECTOR)}


def vips(state):
    with open_cluster(state) as cluster:
        return sorted(s['spec']['clusterIP'] for s in cluster.list('Service'))


def programmed(state, host):
    return sorted(vip for p in peek(state, host).data['hns'].get('policy_lists', []) for vip in p['vips'])


def test_the_pod_runs_kube_proxy_on_each_windows_node_and_its_services_are_routed(state):
    windows_node(state, 'WIN1', '10.127.130.38')
    windows_node(state, 'win2', '10.127.130.39')
    apply_daemonset(state)
    found = pods(state)
    assert sorted(found) == ['win1', 'win2'], 'one pod per Windows node, none on the Linux control plane'
    for pod in found.values():
        assert pod['status']['phase'] == 'Running' and pod['status']['containerStatuses'][0]['state'] == {'running': {}}
        assert pod['status']['podIP'] == pod['status']['hostIP'], 'hostNetwork: the node address'
    assert programmed(state, 'WIN1') == programmed(state, 'win2') == vips(state)
    # The start script came from the ConfigMap into the pod's sandbox, and ran with the pod's node name.
    log = '\n'.join(peek(state, 'WIN1').data.get('log') or [])
    assert 'running (' in log
    with open_cluster(state) as cluster:
        status = cluster.get('DaemonSet', 'kube-system', 'kube-proxy-windows')['status']
    assert (status['desiredNumberScheduled'], status['numberReady']) == (2, 2)


def test_a_node_whose_containerd_is_older_than_1_6_gets_a_pod_that_never_starts(state):
    windows_node(state, 'win1', '10.127.130.38', runtime='v1.5.18')
    apply_daemonset(state)
    pod = pods(state)['win1']
    waiting = pod['status']['containerStatuses'][0]['state']['waiting']
    assert (pod['status']['phase'], waiting['reason']) == ('Pending', 'CreateContainerError')
    assert 'containerd 1.6 or later' in waiting['message'] and 'containerd://1.5.18' in waiting['message']
    assert programmed(state, 'win1') == []


def test_a_pod_that_starts_before_the_node_has_kube_proxy_backs_off_until_it_is_deleted(state):
    windows_node(state, 'win1', '10.127.130.38', kube_proxy=False)
    apply_daemonset(state)
    pod = pods(state)['win1']
    status = pod['status']['containerStatuses'][0]
    assert status['state']['waiting']['reason'] == 'CrashLoopBackOff' and status['restartCount'] == 1
    assert "kube-proxy is not installed on this node at 'C:\\k\\kube-proxy.exe'" in status['lastState']['terminated']['message']
    with open_node(state, 'win1') as node:
        node.write_file('C:\\k\\kube-proxy.exe', content='kube-proxy')
        node.write_file('C:\\etc\\kubernetes\\kube-proxy.conf', content='apiVersion: v1\nkind: Config\n')
    # Within its back-off the kubelet does not try again; deleting the pod starts a new one at once.
    assert pods(state)['win1']['status']['containerStatuses'][0]['state']['waiting']['reason'] == 'CrashLoopBackOff'
    with open_cluster(state) as cluster:
        cluster.delete('Pod', 'kube-system', pod['metadata']['name'])
    assert pods(state)['win1']['status']['phase'] == 'Running'
    assert programmed(state, 'win1') == vips(state)


def test_deleting_the_daemonset_removes_its_pods_and_hns_keeps_the_load_balancers(state):
    windows_node(state, 'win1', '10.127.130.38')
    apply_daemonset(state)
    assert pods(state)['win1']['status']['phase'] == 'Running'
    with open_cluster(state) as cluster:
        cluster.delete('DaemonSet', 'kube-system', 'kube-proxy-windows')
    assert pods(state) == {}
    assert programmed(state, 'win1') == vips(state)


def test_the_pod_reports_kube_proxy_s_own_exit_code(state):
    # kube-proxy's Go runtime panics at start: exit status 2. The start script ends with `exit $LASTEXITCODE`, but
    # powershell.exe -Command makes any exit code of a script other than 0 or 1 its own exit code 1 unless the command
    # text itself ends with `exit $LASTEXITCODE` (about_PowerShell_exe, -Command).
    windows_node(state, 'win1', '10.127.130.38')
    with open_node(state, 'win1') as node:
        node.profile['program_panics'] = [node.file('C:\\k\\kube-proxy.exe')['sha256']]
    apply_daemonset(state)
    status = pods(state)['win1']['status']['containerStatuses'][0]
    assert status['state']['waiting']['reason'] == 'CrashLoopBackOff'
    assert status['lastState']['terminated']['exitCode'] == 2


def test_the_back_off_ends_on_the_clusters_clock_not_the_test_machines(state):
    windows_node(state, 'win1', '10.127.130.38', kube_proxy=False)
    apply_daemonset(state)
    with open_node(state, 'win1') as node:
        node.write_file('C:\\k\\kube-proxy.exe', content='kube-proxy')
        node.write_file('C:\\etc\\kubernetes\\kube-proxy.conf', content='apiVersion: v1\nkind: Config\n')
    time.sleep(0.2)
    with open_cluster(state) as cluster:
        # The first back-off is 10 s: 9.5 s of requests and waits later the kubelet still waits ...
        cluster.pass_time(9.5)
    assert pods(state)['win1']['status']['containerStatuses'][0]['state']['waiting']['reason'] == 'CrashLoopBackOff'
    with open_cluster(state) as cluster:
        cluster.pass_time(0.5)
    # ... and at 10 s it tries again, now with kube-proxy there.
    assert pods(state)['win1']['status']['phase'] == 'Running'
    assert pods(state)['win1']['status']['containerStatuses'][0]['restartCount'] == 1


def test_during_a_playbook_run_a_nodes_pods_start_in_its_own_tasks_only(state, monkeypatch):
    # (hostprocess.py, "When the kubelet acts".) An API access made for win2's task leaves win1's new pod
    # ContainerCreating; one made for win1's task, or for the control plane's, starts it.
    windows_node(state, 'win1', '10.127.130.38')
    windows_node(state, 'win2', '10.127.130.39')
    monkeypatch.setenv(hostprocess.TASK_HOST_ENV, 'win2')
    apply_daemonset(state)
    found = pods(state)
    assert found['win2']['status']['phase'] == 'Running'
    waiting = found['win1']['status']['containerStatuses'][0]['state']['waiting']
    assert (found['win1']['status']['phase'], waiting['reason']) == ('Pending', 'ContainerCreating')
    assert programmed(state, 'win1') == []
    monkeypatch.setenv(hostprocess.TASK_HOST_ENV, 'WIN1')
    assert pods(state)['win1']['status']['phase'] == 'Running'
    assert programmed(state, 'win1') == vips(state)


def test_an_access_for_a_host_that_is_not_a_windows_node_lets_every_kubelet_act(state, monkeypatch):
    windows_node(state, 'win1', '10.127.130.38')
    monkeypatch.setenv(hostprocess.TASK_HOST_ENV, 'cp1')
    apply_daemonset(state)
    assert pods(state)['win1']['status']['phase'] == 'Running'


def test_a_pods_start_script_sleeps_alongside_the_nodes_calls(state):
    windows_node(state, 'win1', '10.127.130.38')
    before = peek(state, 'win1').elapsed()
    apply_daemonset(state)
    assert pods(state)['win1']['status']['phase'] == 'Running'
    assert peek(state, 'win1').elapsed() == before, 'the container\'s time is its own'
