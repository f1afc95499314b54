"""The fleet report of a run that stopped before its report play: ansible-core runs no later play once every host of a
play (or of a serial batch) failed, or max_fail_percentage was exceeded (PlaybookExecutor.run, StrategyBase), but it
still hands the play recap to the callbacks, and the kubewin.node.fleet_report callback writes the report then."""

import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'roles')))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402

REPORT_TASK = 'Print and write the fleet report'
GROUP_VARS = dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version='1.31.14')
# tests/e2e/faults.py ROLE_FAULTS: the call of a role's script that fails.
PREREQUISITES_FAULT = {'script': 'firewall_rule_apply'}
CONTAINER_RUNTIME_FAULT = {'script': 'node_service_apply', 'contains': '"Name": "containerd"'}


def fleet(sim, faults, **group_vars):
    """Two Windows nodes ready for the Containers feature; ``faults``: {host: the one script fault it meets}."""
    hosts = {}
    for host in ('win1', 'win2'):
        ip = network_play.NODES[host]
        with sim.edit_node(host, profile=dict(network_play.CONTAINERS_READY, ip=ip)) as node:
            node.data['script_faults'] = [dict(faults[host], times=1)] if host in faults else []
        hosts[host] = {'ansible_host': ip, 'kubewin_sim': network_play.CONTAINERS_READY}
    return sim.inventory(hosts, group_vars=dict(GROUP_VARS, **group_vars), control_plane={'cp1': {}})


def test_a_site_run_in_which_every_node_fails_writes_the_report_with_every_node_failed(tmp_path):
    sim = Simulation(tmp_path)
    inventory = fleet(sim, {'win1': PREREQUISITES_FAULT, 'win2': PREREQUISITES_FAULT})
    run = network_play.run(sim, 'playbooks/site.yml', inventory, join_method='bootstrap_kubeconfig')
    assert run.rc != 0 and {run.stats[host]['failures'] for host in ('win1', 'win2')} == {1}, run.output
    # The run stopped in the prerequisites play: the report play never ran, the callback wrote the report.
    assert not run.results(REPORT_TASK), run.output
    assert run.report is not None, run.output
    assert not run.report['complete'] and run.report['totals']['by_status'] == {'failed': 2}
    for host in ('win1', 'win2'):
        row = run.report_row(host)
        # What the node did before it failed: its snapshot (the Windows build comes from it) and the staging of its
        # artifacts (the first step that writes, before the features and the firewall rule). The call of the failed
        # firewall rule task (its apply, planned from this run's snapshot) is not counted: Ansible drops a failed
        # task's facts.
        assert row['status'] == 'failed' and row['windows'] == 'Windows Server 2022 (20348)', row
        assert (row['calls'], row['changes']) == (2, ['artifact_stage C:\\k\\staging']), row
        assert run.calls[host]['by_kind'] == {'win_powershell:node_info': 1, 'win_powershell:artifact_stage': 1,
                                              'win_powershell:firewall_rule_apply': 1}
    assert run.output.count('Fleet report of site (') == 1
    assert ', the run stopped before its end)' in run.output
    assert '| win1 | failed |' in (tmp_path / 'reports' / 'site.md').read_text()


def test_a_node_a_stopped_batch_left_behind_is_reported_stopped(tmp_path):
    """One node at a time: win1's batch fails whole in the node play, so ansible-core stops the run before win2's."""
    sim = Simulation(tmp_path)
    inventory = fleet(sim, {'win1': CONTAINER_RUNTIME_FAULT}, kubewin_serial=1)
    run = network_play.run(sim, 'playbooks/site.yml', inventory, join_method='bootstrap_kubeconfig')
    assert run.rc != 0 and run.stats['win1']['failures'] == 1 and not run.stats['win2']['failures'], run.output
    assert not run.results(REPORT_TASK) and run.report is not None, run.output
    assert [(row['node'], row['status']) for row in run.report['nodes']] == [('win1', 'failed'), ('win2', 'stopped')]
    # win2 was prepared (the prerequisites play) before the run stopped; the node play never reached it.
    assert run.report_row('win2')['calls'] == run.calls['win2']['total'] > 1
    assert 'win2 did not finish: the run stopped when other nodes failed' in run.output


def test_without_the_callback_a_run_in_which_every_node_is_unreachable_writes_no_report(tmp_path):
    """collect_logs.yml's one remote call per node, on nodes that do not answer: the run stops after its first play.
    The callback writes the report; the same run without it (a project that did not enable it) writes none."""
    sim = Simulation(tmp_path)
    inventory = fleet(sim, {})
    for host in ('win1', 'win2'):
        with sim.edit_node(host) as node:
            node.drop_network(3600)
    logs = '-e', 'collect_logs_dir=%s' % (tmp_path / 'logs')
    run = sim.run('playbooks/collect_logs.yml', inventory, *logs)
    assert run.rc != 0 and {run.stats[host]['unreachable'] for host in ('win1', 'win2')} == {1}, run.output
    assert [(row['node'], row['status'], row['calls']) for row in run.report['nodes']] == [
        ('win1', 'failed', 0), ('win2', 'failed', 0)]

    without = sim.run('playbooks/collect_logs.yml', inventory, *logs, env={'KUBEWIN_SIM_CFG_CALLBACKS': 'false'})
    assert without.rc != 0 and without.report is None and 'Fleet report' not in without.output, without.output
