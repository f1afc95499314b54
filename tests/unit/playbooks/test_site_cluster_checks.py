"""playbooks/site.yml refuses a cluster that contradicts the plan before any Windows node changes (issue 12): the
control_plane role's read-only checks (tasks_from checks) run in a play of their own before the prerequisites play,
whose Containers feature and reboot used to come first. A refused run contacts no Windows node at all."""

import os
import sys

import yaml

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.node import windows_state  # noqa: E402
from kubewin_sim.harness import ROOT, Simulation  # noqa: E402

import network_play  # noqa: E402

SITE = os.path.join(ROOT, 'playbooks', 'site.yml')
CHECK_PLAY = 'Check the cluster against the plan before any Windows node changes'
CONTROL_PLANE_PLAY = 'Prepare the control plane for Windows nodes'
# The hosts of a play on Windows nodes: the group, or a decision of kubewin.node.fleet_decisions naming Windows nodes.
WINDOWS_NODE_HOSTS = ('windows_nodes', '.to_prepare }}', '.to_converge }}')
# Fresh Windows Server hosts: the prerequisites play would install the Containers feature and reboot them.
FRESH = {'win1': {'build': 20348}, 'win2': {'build': 17763}}


def fresh_fleet(sim, cluster_profile):
    """Two fresh Windows nodes and a cluster made from ``cluster_profile``; the nodes' state before the run."""
    with sim.edit_cluster(profile=cluster_profile):
        pass
    for host, profile in FRESH.items():
        with sim.edit_node(host, profile=dict(profile, ip=network_play.NODES[host])):
            pass
    inventory = sim.inventory(
        {host: {'ansible_host': network_play.NODES[host], 'kubewin_sim': profile} for host, profile in FRESH.items()},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version='1.31.14'),
        control_plane={'cp1': {}})
    return inventory, {host: sim.node(host).data for host in FRESH}


def assert_no_node_changed(sim, run, before, snapshot=True):
    """No Windows node changed: each had at most its read-only snapshot (the play that decides the early end runs
    before the cluster check), or, with snapshot=False, no call at all."""
    for host in FRESH:
        wanted = {'win_powershell:node_info': 1} if snapshot else {}
        assert run.calls.get(host, {}).get('by_kind', {}) == wanted, (host, run.calls.get(host), run.output)
        # The plan check before them runs once for the play (run_once), on the first node.
        assert [t['task'] for t in run.tasks if t['host'] == host and 'Check that the plan role' not in t['task']] == (
            ['kubewin.node.prerequisites : Take the node state snapshot and decide whether the node is converged']
            if snapshot else []), run.output
        after = sim.node(host).data
        assert windows_state(after) == windows_state(before[host]), '%s changed' % host
    assert run.api_calls['total'] and all(kind.startswith(('k8s_info:', 'k8s_cluster_info'))
                                          for kind in run.api_calls['by_kind']), run.api_calls


def test_a_contradicting_pod_subnet_is_refused_before_any_windows_node_changes(tmp_path):
    sim = Simulation(tmp_path)
    inventory, before = fresh_fleet(sim, {'pod_subnet': '10.245.0.0/16'})
    run = network_play.run(sim, SITE, inventory)
    assert run.rc != 0
    message = run.result('Fail when the cluster contradicts the Windows IP plan', 'cp1')['result']['msg']
    assert message == ('The cluster contradicts the Windows IP plan: networking.podSubnet: cluster has 10.245.0.0/16, '
                       'Windows nodes need 10.244.0.0/16 (kubewin_cluster_cidr)')
    assert_no_node_changed(sim, run, before)

    # The check runs with a tag of the node play alone, and in check mode: it reads and changes nothing.
    tagged = network_play.run(sim, SITE, inventory, '--check', '--tags', 'kubelet')
    assert tagged.rc != 0
    assert tagged.result('Fail when the cluster contradicts the Windows IP plan', 'cp1')['result']['msg'] == message
    assert_no_node_changed(sim, tagged, before, snapshot=False)


def test_a_contradicting_flannel_vni_is_refused_before_any_windows_node_changes(tmp_path):
    sim = Simulation(tmp_path)
    inventory, before = fresh_fleet(sim, {'flannel_backend': {'Type': 'vxlan', 'VNI': 1, 'Port': 4789}})
    objects = sim.cluster().data['objects']
    run = network_play.run(sim, SITE, inventory)
    assert run.rc != 0
    message = run.result("Fail when flannel's net-conf.json contradicts the Windows side", 'cp1')['result']['msg']
    assert 'Backend.VNI: cluster has 1, Windows nodes need 4096' in message
    assert 'kube-flannel/kube-flannel-cfg' in message and 'control_plane_patch_flannel' in message
    assert_no_node_changed(sim, run, before)
    assert sim.cluster().data['objects'] == objects


def play_tags(play):
    return set(play.get('tags') or [])


def task_tags(tasks):
    """The tags of tasks and of what they include (include_role's apply)."""
    tags = set()
    for task in tasks or []:
        tags |= set(task.get('tags') or [])
        for include in ('ansible.builtin.include_role', 'ansible.builtin.include_tasks'):
            tags |= set(((task.get(include) or {}).get('apply') or {}).get('tags') or [])
        tags |= task_tags(task.get('block'))
    return tags


def test_the_cluster_check_runs_with_every_tag_that_changes_a_windows_node():
    """Every tag that selects work on the Windows nodes (the plays that target windows_nodes and their tasks) runs the
    check; verify alone (read-only) does not, nor control_plane alone, whose role checks first when this run has not
    (so that --skip-tags control_plane keeps the check)."""
    with open(SITE, encoding='utf-8') as handle:
        plays = {play['name']: play for play in yaml.safe_load(handle)}
    on_nodes = [play for play in plays.values()
                if str(play['hosts']).endswith(WINDOWS_NODE_HOSTS) and 'always' not in play_tags(play)]
    assert len(on_nodes) == 3, [play['name'] for play in on_nodes]
    wanted = set()
    for play in on_nodes:
        wanted |= play_tags(play) | task_tags(play.get('tasks')) | task_tags(play.get('pre_tasks'))
    assert wanted == play_tags(plays[CHECK_PLAY]) and 'control_plane' not in wanted
    names = list(plays)
    assert names.index(CHECK_PLAY) < names.index('Prepare the Windows nodes') < names.index(CONTROL_PLANE_PLAY)
