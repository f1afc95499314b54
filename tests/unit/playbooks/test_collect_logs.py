"""playbooks/collect_logs.yml against a node that does not answer; against a converged node, with the doctor, in
test_day_two.py."""

import os
import sys

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402


def test_the_fleet_report_names_a_node_that_did_not_answer(tmp_path):
    # No converge first: collect_logs.yml reads whatever a node holds, and the report is all this test is about.
    sim = Simulation(tmp_path)
    hosts = {'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': network_play.CONTAINERS_READY},
             'win2': {'ansible_host': '10.127.130.39', 'kubewin_sim': network_play.CONTAINERS_READY}}
    inventory = sim.inventory(hosts, group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay'))
    with sim.edit_node('win2', profile=dict(network_play.CONTAINERS_READY, ip='10.127.130.39')) as node:
        node.drop_network(3600)

    collect = sim.run('playbooks/collect_logs.yml', inventory, '-e', 'collect_logs_dir=%s' % (tmp_path / 'logs'))
    assert collect.rc != 0 and collect.stats['win2']['unreachable'] == 1, collect.output
    assert [(row['node'], row['status'], row['calls']) for row in collect.report['nodes']] == [
        ('win1', 'ok', 1), ('win2', 'failed', 0)]
    assert '| win2 | failed |' in (tmp_path / 'reports' / 'collect_logs.md').read_text()
    # The run got to its report play: the report task printed the report, and the kubewin.node.fleet_report callback
    # (which the checkout's ansible.cfg enables) did not print it again.
    assert collect.result('Print and write the fleet report', 'win1')['status'] == 'ok'
    assert collect.output.count('Fleet report of collect_logs (') == 1 and collect.report['complete'], collect.output
