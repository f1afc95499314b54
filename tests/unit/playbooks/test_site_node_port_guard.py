"""playbooks/site.yml with prerequisites_node_port_guard on two nodes: win1's dynamic TCP range was widened to
1025-65535 (it holds the NodePorts 30000-32767), win2 has Windows' default 49152-65535 (KB 929851). With exclude,
win1 gets the persistent exclusion 30000-32767 for TCP in one remote call and win2 costs nothing more; a converged
re-run is one call each; check refuses a node whose exclusion was deleted, before anything on it changes; reset.yml
removes the exclusion."""

import os
import sys

import pytest

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402
from kubewin_sim.windows import netsh  # noqa: E402

import network_play  # noqa: E402

WIDENED = dict(network_play.CONTAINERS_READY, tcpip_ports={'dynamic': {'tcp': [1025, 64511]}})
OPTIONS = {'join_method': 'bootstrap_kubeconfig'}
EXCLUSION = {'start': 30000, 'end': 32767, 'administered': True, 'persistent': True}


def fleet(sim, guard):
    return sim.inventory(
        {'win1': {'ansible_host': network_play.NODES['win1'], 'kubewin_sim': WIDENED},
         'win2': {'ansible_host': network_play.NODES['win2'], 'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version='1.31.14',
                        prerequisites_node_port_guard=guard),
        control_plane={'cp1': {}})


# Long (make unit-long): its representative part is the dual-stack e2e fleet make test runs
# (tests/e2e/inventories/l2bridge-dualstack), which turns the setting on in its first converge and checks the
# converged re-run and the doctor.
@pytest.mark.long
def test_the_node_ports_are_excluded_once_where_the_dynamic_range_holds_them(tmp_path):
    sim = Simulation(tmp_path)
    converge = network_play.run(sim, 'playbooks/site.yml', fleet(sim, 'exclude'), **OPTIONS)
    assert converge.rc == 0, converge.output
    assert netsh.state(sim.node('win1'))['excluded'] == {'tcp': [EXCLUSION], 'udp': []}
    assert netsh.state(sim.node('win2'))['excluded'] == {'tcp': [], 'udp': []}
    # The same converge but for the one apply call of the exclusion: a node that is clear pays nothing.
    assert converge.calls['win1']['total'] == converge.calls['win2']['total'] + 1, converge.calls

    again = network_play.run(sim, 'playbooks/site.yml', fleet(sim, 'exclude'), **OPTIONS)
    assert again.rc == 0 and again.changed('win1') == 0 and again.changed('win2') == 0
    assert again.calls['win1']['total'] == 1 and again.calls['win2']['total'] == 1, again.calls

    # Someone deletes the exclusion: with check the node is refused before anything changes, naming the ports.
    with sim.edit_node('win1') as node:
        ports = netsh.state(node)
        ports['excluded']['tcp'] = []
        netsh.save(node, ports)
    checked = network_play.run(sim, 'playbooks/site.yml', fleet(sim, 'check'), **OPTIONS)
    assert checked.rc != 0 and 'tcp 30000-32767' in checked.output
    assert checked.changed('win1') == 0

    with sim.edit_node('win1') as node:
        ports = netsh.state(node)
        ports['excluded']['tcp'] = [EXCLUSION]
        netsh.save(node, ports)
    reset = network_play.run(sim, 'playbooks/reset.yml', fleet(sim, 'exclude'), reset_delete_node=False)
    assert reset.rc == 0, reset.output
    assert netsh.state(sim.node('win1'))['excluded'] == {'tcp': [], 'udp': []}
