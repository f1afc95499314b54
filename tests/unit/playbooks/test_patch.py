"""playbooks/patch.yml against a simulated fleet: a node with no update is not drained and costs only the search;
a node with updates is drained, patched, restarted, verified and uncordoned; a node that does not verify after its
restart stays cordoned and the run says why; check mode names the updates each node would get and changes nothing.

The fleet of the tests in make test is laid out as site.yml leaves an overlay node (its services, HNS networks and
kubelet kubeconfig) without running site.yml, which costs minutes; the long tests patch fleets site.yml converged.
make test's real window (drain, install, restart, verify, uncordon) runs in test_day_two.py, on the node it converges.
"""

import json
import os
import sys
import time
from unittest import mock

import pytest

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import cluster as sim_cluster  # noqa: E402
from kubewin_sim import scm  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402
from _patch_offers import ANNOTATION, CUMULATIVE, FEATURE, INSTALL, MSRT, PATCH_VARS, PREVIEW, offer  # noqa: E402

NAME = 'Name the updates the node gets'
GROUP = dict(network_play.CLUSTER, kubewin_topology='overlay', **PATCH_VARS)
SERVICES = {'containerd': [], 'kubelet': ['containerd'], 'flanneld': ['containerd'], 'kube-proxy': ['kubelet']}


def _joined_overlay_node(sim, host, index):
    """A node as site.yml leaves an overlay node: its services running, the placeholder and flannel's HNS networks on
    its vSwitch, the kubelet's kubeconfig (with which the simulated cluster registers its Node)."""
    address = network_play.NODES.get(host, '10.127.130.%d' % (40 + index))
    # A restart takes the simulated node off the network for a second.
    with sim.edit_node(host, profile=dict(network_play.CONTAINERS_READY, ip=address, reboot_seconds=1)) as node:
        for name, dependencies in SERVICES.items():
            node.data['services'][name] = {
                'name': name, 'exists': True, 'state': 'running', 'start_mode': 'auto', 'dependencies': dependencies,
                'command_line': 'C:\\k\\%s.exe' % name, 'environment': [], 'nssm': None}
        management_ip = node.data['adapters'][0]['ipv4'][0]['address']
        for name, prefix, vsid in (('External', '192.168.255.0/30', 9999), ('flannel.4096', '10.244.%d.0/24' % index, 4096)):
            node.data['hns']['networks'].append({
                'id': '0000000%d-0000-4000-8000-%012d' % (index, vsid), 'name': name, 'type': 'Overlay', 'adapter': 'Ethernet',
                'management_ip': management_ip, 'subnets': [{'address_prefix': prefix, 'gateway': prefix.replace('.0/', '.1/')
                                                             .split('/')[0], 'vsid': vsid}]})
        node.write_file(sim_cluster.KUBELET_KUBECONFIG, content='apiVersion: v1\nkind: Config\n', acl='secret')


def _fleet(sim, hosts, **group):
    for index, host in enumerate(hosts, start=1):
        _joined_overlay_node(sim, host, index)
    return sim.inventory({host: {'ansible_host': sim.node(host).data['adapters'][0]['ipv4'][0]['address']} for host in hosts},
                         group_vars=dict(GROUP, **group), control_plane={'cp1': {}})


def _node_object(sim, name):
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        return cluster.get('Node', None, name)


def _unchanging(node):
    return json.dumps({k: v for k, v in node.data.items() if k not in ('calls', 'unreachable_attempts', 'clock_offset')},
                      sort_keys=True)


def _window_fleet(sim, converged=False):
    """Four joined overlay nodes: win1 with updates of every kind, win2 with none, win3 with one and kube-proxy set to
    start by hand, win4 with an update that fails to install. Made by hand, or converged by site.yml (their programs
    then come back after a restart, kubewin_sim/windows/boot.py)."""
    # All at once (a window takes one node at a time unless kubewin_serial says otherwise).
    hosts = ('win1', 'win2', 'win3', 'win4')
    if converged:
        inventory = sim.inventory(
            {host: {'ansible_host': '10.127.130.%d' % (40 + index), 'kubewin_sim': network_play.CONTAINERS_READY}
             for index, host in enumerate(hosts, start=1)},
            group_vars=dict(GROUP, kubewin_kubernetes_version='1.31.14', kubewin_serial='100%'), control_plane={'cp1': {}})
        converge = network_play.run(sim, 'playbooks/site.yml', inventory, join_method='bootstrap_kubeconfig')
        assert converge.rc == 0, converge.output
    else:
        inventory = _fleet(sim, hosts, kubewin_serial='100%')
    offer(sim, 'win1', CUMULATIVE, MSRT, FEATURE, PREVIEW)
    offer(sim, 'win3', CUMULATIVE)
    # WU_E_ALL_UPDATES_FAILED (wuerror.h), at every attempt.
    offer(sim, 'win4', dict(MSRT, install_hresult=0x80240022,
                            install_error=('WU_E_ALL_UPDATES_FAILED', 'Operation failed for all the updates')))
    # Someone set kube-proxy to start by hand on win3: it runs now, and not after the update's restart.
    with sim.edit_node('win3') as node:
        node.data['services']['kube-proxy']['start_mode'] = 'manual'
    with sim.edit_cluster() as cluster:
        assert all(cluster.node_ready(cluster.get('Node', None, host)) for host in ('win1', 'win2', 'win3', 'win4'))

    return inventory


def _check_mode_lists_the_updates(sim, inventory):
    """Check mode names the updates each node would get, changes no node, drains none, and costs each its search."""
    before = {host: _unchanging(sim.node(host)) for host in ('win1', 'win2', 'win3', 'win4')}
    check = sim.run('playbooks/patch.yml', inventory, '--check')
    assert check.rc == 0, check.output
    assert check.result(NAME, 'win1')['result']['msg'] == (
        'win1 would get 2 update(s): %s; %s' % (CUMULATIVE['title'], MSRT['title']))
    assert check.result(NAME, 'win1')['changed'] is True
    assert check.result(NAME, 'win2')['result']['msg'] == 'win2 would get no update; it is not drained'
    assert check.result(NAME, 'win2')['changed'] is False
    filtered = check.result('Search for the updates of this window', 'win1')['result']['filtered_updates']
    assert {update['title']: update['filtered_reasons'] for update in filtered.values()} == {
        FEATURE['title']: ['category_names'], PREVIEW['title']: ['reject_list']}
    assert {host: _unchanging(sim.node(host)) for host in before} == before, 'check mode changed no node'
    assert 'k8s_drain:drain' not in check.api_calls['by_kind']
    assert {host: check.calls[host]['total'] for host in before} == {'win1': 3, 'win2': 3, 'win3': 3, 'win4': 3}, \
        'a check run costs each node its search (the module start, poll and cancel)'

    return before


def test_check_mode_names_the_updates_each_node_would_get_and_changes_nothing(tmp_path):
    sim = Simulation(tmp_path)
    _check_mode_lists_the_updates(sim, _window_fleet(sim))


# The real window restarts win1 and win3, whose programs must come back (the restart is modelled from the sources,
# kubewin_sim/windows/boot.py): the fleet is converged by site.yml first, hence long. make test keeps the check run
# above, the refusal of bad variables, and one real window on the node test_day_two.py converges (for the doctor).
@pytest.mark.long
def test_a_patch_window_drains_only_nodes_with_updates_and_keeps_one_that_does_not_verify_cordoned(tmp_path):
    sim = Simulation(tmp_path)
    inventory = _window_fleet(sim, converged=True)
    before = _check_mode_lists_the_updates(sim, inventory)
    boot = {host: sim.node(host).data['os']['last_boot'] for host in before}
    started = time.time()
    run = sim.run('playbooks/patch.yml', inventory)
    assert run.rc == 2, run.output

    # win1: drained, patched, restarted, verified, uncordoned.
    installed = run.result(INSTALL, 'win1')['result']
    assert installed['rebooted'] is True and installed['installed_update_count'] == 2
    assert sorted(u['title'] for u in installed['updates'].values() if u['installed']) == sorted(
        [CUMULATIVE['title'], MSRT['title']])
    win1 = sim.node('win1')
    assert win1.data['os']['last_boot'] >= started > boot['win1'], 'win1 restarted'
    assert [u['title'] for u in win1.data['windows_update']['updates'] if u.get('installed_at')] == [
        CUMULATIVE['title'], MSRT['title']], 'the filtered updates stay uninstalled'
    node = _node_object(sim, 'win1')
    assert not node['spec'].get('unschedulable') and ANNOTATION not in node['metadata'].get('annotations', {})
    assert sim.cluster().node_ready(node)
    assert run.report_row('win1')['status'] == 'ok'
    # The search (start, poll, cancel), two rounds of the install with a restart between them, one snapshot.
    assert run.calls['win1']['total'] == run.report_row('win1')['calls'] == 3 + (3 + 1 + 3) + 1

    # win2: nothing to install, so only the search.
    assert run.calls['win2'] == {'by_kind': {'win_updates': 3}, 'total': 3, 'unreachable_attempts': 0}
    assert run.results('Drain the node before its updates', 'win2') == []
    assert sim.node('win2').data['os']['last_boot'] == boot['win2']

    # win3: patched and restarted, but kube-proxy did not come back: it stays cordoned, marked, and the run says why.
    assert run.api_calls['by_kind']['k8s_drain:drain'] == 3 and run.api_calls['by_kind']['k8s_drain:uncordon'] == 1
    node = _node_object(sim, 'win3')
    assert node['spec'].get('unschedulable') is True and node['metadata']['annotations'][ANNOTATION] == 'cordoned'
    failure = run.result('Say what went wrong', 'win3')['result']['msg']
    # The doctor's error findings, by what they found.
    assert failure == ('win3 does not verify after 1 update(s) and a restart, so it stays cordoned: service kube-proxy '
                       'is stopped (exit code 0). Fix that (playbooks/doctor.yml gives the cause and the fix of each), '
                       'then run the window again: it verifies the node and uncordons it.')
    assert run.report_row('win3')['status'] == 'failed' and run.report_row('win3')['failure'] == failure

    # win4: its update fails, again after the restart win_updates tries once: it stays cordoned, named with the update.
    node = _node_object(sim, 'win4')
    assert node['spec'].get('unschedulable') is True and node['metadata']['annotations'][ANNOTATION] == 'cordoned'
    task = run.result(INSTALL, 'win4')
    installed = task['result']
    assert task['status'] == 'failed' and installed['rebooted'] and installed['failed_update_count'] == 1
    assert installed['msg'].startswith('An update loop was detected')
    install_failure = run.result('Say what went wrong', 'win4')['result']['msg']
    assert install_failure.startswith("the patch window of win4 stopped at 'Install the updates, restarting as often "
                                      "as they need': An update loop was detected"), install_failure
    assert install_failure.endswith('(failed updates: %s). It stays cordoned (with the Node\'s %s annotation); run the '
                                    'window again once the cause is fixed.' % (MSRT['title'], ANNOTATION)), install_failure
    assert run.result('Fail naming each node whose window failed', 'localhost')['result']['msg'] == (
        'The patch window failed on 2 node(s): %s %s' % (failure, install_failure))
    print('remote calls: %s' % {host: run.calls[host]['total'] for host in before})


# Long (make unit-long), as it converges its own fleet: the window's part in make test is the one window of
# test_day_two.py.
@pytest.mark.long
def test_a_patch_window_on_a_converged_fleet_stops_at_a_node_that_does_not_verify_and_resumes(tmp_path):
    """site.yml converges two overlay nodes; a window one node at a time patches win1, then win2, whose flannel
    network does not come back, stays cordoned and stops the window; once fixed, the next window finds nothing to
    install, verifies win2 and uncordons it, and a window after that changes nothing."""
    sim = Simulation(tmp_path)
    inventory = sim.inventory(
        {host: {'ansible_host': network_play.NODES[host], 'kubewin_sim': network_play.CONTAINERS_READY}
         for host in ('win1', 'win2')},
        group_vars=dict(GROUP, kubewin_kubernetes_version='1.31.14', kubewin_serial=1), control_plane={'cp1': {}})
    converge = network_play.run(sim, 'playbooks/site.yml', inventory, join_method='bootstrap_kubeconfig')
    assert converge.rc == 0, converge.output
    offer(sim, 'win1', CUMULATIVE)
    offer(sim, 'win2', CUMULATIVE, MSRT)
    # flanneld set to start by hand on win2: after the restart its network is not there.
    with sim.edit_node('win2') as node:
        node.data['services']['flanneld']['start_mode'] = 'manual'

    run = sim.run('playbooks/patch.yml', inventory)
    assert run.rc == 2, run.output
    assert not _node_object(sim, 'win1')['spec'].get('unschedulable')
    node = _node_object(sim, 'win2')
    assert node['spec'].get('unschedulable') is True and ANNOTATION in node['metadata']['annotations']
    failure = run.result('Say what went wrong', 'win2')['result']['msg']
    assert 'stays cordoned: HNS network flannel.4096 does not exist; service flanneld is stopped' in failure, failure

    # The operator sets flanneld to start with Windows and starts it: it leases and creates its network
    # (kubewin_sim/flannel.py), for which it reaches the simulated cluster in the state directory.
    with mock.patch.dict(os.environ, KUBEWIN_SIM_STATE_DIR=sim.state_dir), sim.edit_node('win2') as node:
        node.data['services']['flanneld']['start_mode'] = 'auto'
        scm.start(node, 'flanneld')
    resumed = sim.run('playbooks/patch.yml', inventory)
    assert resumed.rc == 0, resumed.output
    assert resumed.result(NAME, 'win2')['result']['msg'] == (
        'win2 gets no update; it stays cordoned from an unfinished window until it verifies')
    assert resumed.result(INSTALL, 'win2')['status'] == 'skipped'
    node = _node_object(sim, 'win2')
    assert not node['spec'].get('unschedulable') and ANNOTATION not in node['metadata'].get('annotations', {})

    steady = sim.run('playbooks/patch.yml', inventory)
    assert steady.rc == 0 and steady.changed('win1') == 0 and steady.changed('win2') == 0, steady.output
    assert {host: steady.calls[host]['total'] for host in ('win1', 'win2')} == {'win1': 3, 'win2': 3}


def test_a_bad_patch_variable_is_refused_before_any_node_is_contacted(tmp_path):
    sim = Simulation(tmp_path)
    inventory = _fleet(sim, ('win1',), patch_reboot_timeout='soon')
    run = sim.run('playbooks/patch.yml', inventory)
    assert run.rc == 2, run.output
    failed = run.result("Check the patch window's variables of every node", 'localhost')
    assert "argument 'patch_reboot_timeout' is of type str and we were unable to convert to int" in json.dumps(
        failed['result']), failed
    assert run.calls['win1']['total'] == 0
