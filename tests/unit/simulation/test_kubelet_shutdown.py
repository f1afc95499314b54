"""A starting kubelet registers for the pre-shutdown notification as nodeshutdown_manager_windows.go does
(kubewin_sim/kubelet_shutdown.py), through the model's service control manager and registry, and the registry
provider shows what it wrote."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402
from kubewin_sim import kubelet_shutdown, scm  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import registry, services  # noqa: E402
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402

from ansible_collections.kubewin.node.plugins.plugin_utils._flags import windows_command_line  # noqa: E402

KUBELET = 'C:\\k\\kubelet.exe'
RUNNER = 'C:\\k\\kube-log-runner.exe'
CONFIG = 'C:\\var\\lib\\kubelet\\config.yaml'
DROPINS = 'C:\\etc\\kubernetes\\kubelet.conf.d'
DEFAULT_ORDER = list(registry.DEFAULT_PRESHUTDOWN_ORDER)


def dropin(grace, critical=0):
    return ('# Managed by kubewin.node\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
            'shutdownGracePeriod: %ss\nshutdownGracePeriodCriticalPods: %ss\n' % (grace, critical))


def kubelet_node(version='1.34.2', grace=60, critical=20, flags=('--windows-service',), dependencies=('containerd',),
                 runner=True):
    node = SimNode(initial_state('win1', {'features': {'Containers': 'installed'}}))
    node.write_file(KUBELET, sha256='cd' * 32, size=10, acl='protected')
    node.write_file(RUNNER, sha256='ef' * 32, size=10, acl='protected')
    node.set_artifact_record('C:\\k', {'url': 'https://dl.k8s.io/v%s/kubernetes-node-windows-amd64.tar.gz' % version,
                                       'version': version, 'files': {KUBELET: 'cd' * 32}})
    node.write_file(CONFIG, content='apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n')
    if grace is not None:
        node.write_file(DROPINS + '\\50-kubewin.conf', content=dropin(grace, critical))
    args = ['--config=' + CONFIG, '--config-dir=' + DROPINS] + list(flags)
    path, args = (RUNNER, ['-log-file=C:\\var\\log\\kubelet\\kubelet.log', KUBELET] + args) if runner else (KUBELET, args)
    node.data['services']['containerd'] = {'name': 'containerd', 'state': 'running', 'start_mode': 'auto',
                                           'command_line': 'C:\\Program Files\\containerd\\containerd.exe',
                                           'dependencies': [], 'environment': [], 'nssm': None}
    node.data['services']['kubelet'] = {'name': 'kubelet', 'state': 'stopped', 'start_mode': 'auto',
                                        'command_line': windows_command_line(path, args),
                                        'dependencies': list(dependencies), 'environment': [], 'nssm': None}
    return node


def registered(node):
    return services.query_preshutdown_timeout(node, 'kubelet'), registry.preshutdown_order(node)


def test_a_fresh_service_has_the_default_time_out_and_windows_own_order():
    node = kubelet_node()
    assert registered(node) == (10000, DEFAULT_ORDER)
    assert 'PreshutdownTimeout' not in registry.read_key(node, registry.SERVICES + '\\kubelet')


@pytest.mark.parametrize('version, flags', [
    ('1.34.2', ['--windows-service']),  # beta, on by default
    ('1.33.13', ['--windows-service', '--feature-gates=WindowsGracefulNodeShutdown=true']),
    ('1.32.9', ['--windows-service', '--feature-gates=WindowsGracefulNodeShutdown=true']),
])
def test_the_kubelet_raises_its_time_out_and_puts_itself_before_its_runtime(version, flags):
    node = kubelet_node(version, flags=flags)
    scm.start(node, 'kubelet')
    assert registered(node) == (60000, DEFAULT_ORDER + ['kubelet', 'containerd'])
    # What the SCM keeps, as the registry provider reads it.
    assert registry.read_key(node, registry.SERVICES + '\\kubelet')['PreshutdownTimeout'] == ('REG_DWORD', 60000)
    assert registry.read_key(node, registry.CONTROL) == {
        'PreshutdownOrder': ('REG_MULTI_SZ', DEFAULT_ORDER + ['kubelet', 'containerd'])}


def test_a_restart_writes_the_same_again():
    node = kubelet_node()
    scm.start(node, 'kubelet')
    first = registered(node)
    scm.control_stop(node, 'kubelet')
    scm.start(node, 'kubelet')
    assert registered(node) == first


@pytest.mark.parametrize('version, flags, grace', [
    ('1.33.13', ['--windows-service'], 60),  # alpha: off unless the gate is set
    ('1.34.2', ['--windows-service', '--feature-gates=WindowsGracefulNodeShutdown=false'], 60),
    ('1.31.14', ['--windows-service', '--feature-gates=WindowsGracefulNodeShutdown=true'], 60),  # no manager yet
    ('1.34.2', ['--windows-service'], 0),  # no grace period
    ('1.34.2', ['--windows-service'], None),  # no drop-in
])
def test_without_the_gate_or_a_grace_period_the_kubelet_changes_nothing(version, flags, grace):
    node = kubelet_node(version, grace=grace, flags=flags)
    scm.start(node, 'kubelet')
    assert registered(node) == (10000, DEFAULT_ORDER)
    assert not [line for line in node.data['log'] if 'shutdown manager' in line]


def test_a_kubelet_that_is_no_windows_service_logs_it_and_runs_on():
    node = kubelet_node(flags=())
    scm.start(node, 'kubelet')
    assert node.data['services']['kubelet']['state'] == 'running'
    assert registered(node) == (10000, DEFAULT_ORDER)
    assert 'Failed to start node shutdown manager: kubelet is NOT running as a Windows service' in node.data['log'][-1]


def test_a_missing_order_fails_the_manager_before_it_writes_anything():
    node = kubelet_node()
    registry.set_preshutdown_order(node, None)
    scm.start(node, 'kubelet')
    assert registered(node) == (10000, None)
    assert 'Could not access registry value PreshutdownOrder' in node.data['log'][-1]


def test_a_longer_time_out_is_kept_and_a_kubelet_without_dependencies_leaves_the_order():
    node = kubelet_node(dependencies=())
    services.change_preshutdown_timeout(node, 'kubelet', 600000)
    scm.start(node, 'kubelet')
    assert registered(node) == (600000, DEFAULT_ORDER)


def test_the_order_is_taken_apart_and_put_together_as_the_kubelet_does():
    # The example of addToExistingOrder's comment.
    assert kubelet_shutdown.add_to_existing_order(['a', 'b', 'c', 'd'], ['x', 'b', 'y', 'c', 'z']) == \
        ['x', 'kubelet', 'b', 'y', 'c', 'z', 'a', 'd']
    # Any "Kubelet" is taken out first; the dependencies are matched as written.
    assert kubelet_shutdown.add_to_existing_order(['containerd'], ['Kubelet', 'gpsvc', 'containerd']) == \
        ['gpsvc', 'kubelet', 'containerd']
    assert kubelet_shutdown.add_to_existing_order([], ['Kubelet', 'gpsvc']) == ['Kubelet', 'gpsvc']


@pytest.mark.parametrize('config, seconds', [
    ({'shutdownGracePeriod': '1m30s', 'shutdownGracePeriodCriticalPods': '30s'}, 90),
    ({'shutdownGracePeriod': '60s', 'shutdownGracePeriodCriticalPods': '90s'}, 0),  # migrateConfig gives nothing
    ({'shutdownGracePeriodByPodPriority': [{'priority': 0, 'shutdownGracePeriodSeconds': 40},
                                           {'priority': 2000000000, 'shutdownGracePeriodSeconds': 20}]}, 60),
])
def test_the_period_requested_is_the_sum_of_the_priority_groups(config, seconds):
    assert kubelet_shutdown.period_requested(config) == seconds


def test_the_registry_provider_writes_the_order_and_refuses_the_control_keys_other_values():
    node = kubelet_node()
    assert registry.set_value(node, registry.CONTROL, 'PreshutdownOrder', 'REG_MULTI_SZ', ['gpsvc'])
    assert registry.preshutdown_order(node) == ['gpsvc']
    assert registry.remove_value(node, registry.CONTROL, 'PreshutdownOrder')
    assert registry.preshutdown_order(node) is None
    from kubewin_sim.pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
    with pytest.raises(Unsupported):
        registry.set_value(node, registry.CONTROL, 'WaitToKillServiceTimeout', 'REG_SZ', '5000')


def snapshot_of_kubelet(node):
    result = invoke(node, _pwsh.load_script('node_info'), {'Sections': ['services'], 'Services': ['kubelet']},
                    error_action='stop')
    assert (result['failed'], result['error']) == (False, [])
    kubelet = _contracts.check('node_info', json.loads(result['result']))['services']['kubelet']
    return kubelet['preshutdown_timeout_ms'], kubelet['preshutdown_ordered']


def test_the_snapshot_reads_the_time_out_and_the_order_the_kubelet_set():
    node = kubelet_node()
    assert snapshot_of_kubelet(node) == (None, False), 'the default time-out, not in the order'
    scm.start(node, 'kubelet')
    assert snapshot_of_kubelet(node) == (60000, True)
    # Taken out of the order by hand (another tool rewrote it): the snapshot says so.
    registry.set_preshutdown_order(node, DEFAULT_ORDER)
    assert snapshot_of_kubelet(node) == (60000, False)
