"""node_repair_apply.ps1, whole, run by the engine on the Windows model: the stale HNS load balancer is deleted, a
stopped service started, kube-proxy restarted, and kube-proxy's program model (programs.py: winkernel programs a load
balancer per Service VIP when it starts) programs the Service that had none; the answer holds to its contract."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'simulation'))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402
from kubewin_sim import cluster as sim_cluster  # noqa: E402
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402

from test_script_node_reset import reset_node  # noqa: E402


@pytest.fixture
def cluster_dir(tmp_path, monkeypatch):
    """The simulated cluster kube-proxy's model reads its Services from: kubernetes 10.96.0.1, kube-dns 10.96.0.10."""
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', str(tmp_path))
    with sim_cluster.open_cluster(str(tmp_path)):
        pass
    return tmp_path


def run_repair(node, parameters):
    result = invoke(node, _pwsh.load_script('node_repair_apply'), parameters, error_action='stop')
    assert (result['failed'], result['error']) == (False, []), result
    return _contracts.check('node_repair_apply', json.loads(result['result']))


def vips(node):
    return sorted(vip for p in node.data['hns']['policy_lists'] for vip in p['vips'])


def test_repair_removes_the_stale_list_starts_and_restarts(cluster_dir):
    node = reset_node()
    stale = node.add_policy_list(['10.96.0.99'], [])  # a Service deleted while kube-proxy was stopped
    node.data['services']['kube-proxy']['state'] = 'stopped'
    assert vips(node) == ['10.96.0.1', '10.96.0.99']

    real = run_repair(node, {'PolicyListIds': [stale['id'].upper()], 'Restart': ['kube-proxy']})
    # The stale list is gone, the one still in use kept, and kube-proxy, started, programmed kube-dns's VIP.
    assert vips(node) == ['10.96.0.1', '10.96.0.10']
    assert node.data['services']['kube-proxy']['state'] == 'running'
    assert real['state']['sections'] == ['services', 'hns']
    assert real['state']['services']['kube-proxy']['state'] == 'running'
    assert sorted(v for p in real['state']['hns']['policy_lists'] for v in p['vips']) == ['10.96.0.1', '10.96.0.10']


def test_a_list_already_gone_is_no_error_and_a_running_service_is_left_running(cluster_dir):
    node = reset_node()
    real = run_repair(node, {'PolicyListIds': ['0f2d4c7a-8e7b-4d3c-a1b2-9c8d7e6f5a40'], 'Start': ['kubelet']})
    assert real['state']['services']['kubelet']['state'] == 'running'
    assert vips(node) == ['10.96.0.1']


def test_restarting_the_kubelet_starts_again_kube_proxy_which_depends_on_it(cluster_dir):
    # Stopped with its dependents (Stop-Service -Force), started alone, then kube-proxy, which ran.
    node = reset_node()
    real = run_repair(node, {'Restart': ['kubelet']})
    assert real['state']['services']['kubelet']['state'] == 'running'
    assert node.data['services']['kube-proxy']['state'] == 'running'


def test_a_kubelet_that_does_not_start_again_fails_as_itself_not_as_kube_proxy(cluster_dir):
    # Restart-Service would start kube-proxy first, and the SCM its dependency the kubelet with it: the error would
    # name kube-proxy.
    node = reset_node()
    node.profile['program_start_failures'] = [node.file('C:\\k\\kubelet.exe')['sha256']]
    result = invoke(node, _pwsh.load_script('node_repair_apply'), {'Restart': ['kubelet']}, error_action='stop')
    assert result['failed']
    assert result['error'][0]['exception']['message'] == (
        "service kubelet did not start: Cannot start service kubelet on computer '.'. (The process terminated "
        "unexpectedly.)")
