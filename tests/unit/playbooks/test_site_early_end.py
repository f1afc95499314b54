"""playbooks/site.yml ends a converged node's run after its snapshot, and takes the full path again as soon as
the node or an input differs from the record its last full run left (kubewin.node.node_converged)."""

import os
import sys

import pytest

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402

RECORD = 'C:\\ProgramData\\kubewin\\converged.json'
KUBE_PROXY_KUBECONFIG = 'C:\\etc\\kubernetes\\kube-proxy.conf'
DECISION = 'Take the node state snapshot and decide whether the node is converged'
# As in test_site_network: the bootstrap kubeconfig join.
OPTIONS = {'join_method': 'bootstrap_kubeconfig'}


def decision(result):
    return network_play.task(result, DECISION, 'win1')['result']


def node_stages(result):
    """The node play's tasks that ran on win1 (a converged node skips the play)."""
    return [t['task'] for t in result.tasks if t['host'] == 'win1' and (
        t['task'].startswith(('kubewin.node.kubelet', 'kubewin.node.kube_proxy', 'kubewin.node.flannel'))
        or t['task'] == 'Install the container runtime')]


# Long (make unit-long): nine site.yml runs. make test keeps the early end through e2e (every re-run ends
# early after one call per node; a node the fault scenarios broke takes the full path) and test_converged.py.
@pytest.mark.long
def test_a_converged_node_ends_early_until_the_node_or_an_input_changes(tmp_path):
    sim = Simulation(tmp_path)
    inventory = sim.inventory(
        {'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version='1.31.14'),
        control_plane={'cp1': {}})

    converge = network_play.run(sim, 'playbooks/site.yml', inventory, **OPTIONS)
    assert converge.rc == 0, converge.output
    assert decision(converge)['converged'] is False
    # The fleet report: Ready at the version of the inventory, with the changes the task results show and the
    # calls the simulated node counted (the vSwitch drop makes one go unanswered).
    row = converge.report_row('win1')
    assert dict(row, changes=None, reasons=None) == {
        'node': 'win1', 'status': 'ok', 'windows': 'Windows Server 2022 (20348)', 'runtime': row['runtime'],
        'kubernetes': 'v1.31.14', 'ready': 'True', 'pod_cidr': row['pod_cidr'], 'network': 'overlay',
        # The join by bootstrap kubeconfig: the kubelet's kubeconfig, certificate and key restricted after it wrote them.
        'open_credentials': [],
        'changes': None, 'changed_tasks': converge.changed_tasks('win1'), 'calls': converge.attempted_calls('win1'),
        'reasons': None, 'takeover': None, 'findings': [], 'repaired': []}, row
    assert row['runtime'].startswith('containerd ') and row['pod_cidr'].startswith('10.')
    assert '| win1 | ok | Windows Server 2022 (20348) |' in (tmp_path / 'reports' / 'site.md').read_text()
    assert 'Fleet report of site' in converge.output
    record = sim.node('win1').file(RECORD)
    assert record is not None and record['acl'] == 'protected', record

    again = network_play.run(sim, 'playbooks/site.yml', inventory, **OPTIONS)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert decision(again) == dict(decision(again), converged=True, reasons=[])
    assert again.calls['win1']['total'] == 1 and not node_stages(again)
    assert (again.report_row('win1')['status'], again.report_row('win1')['calls'], again.report_row('win1')['changes']) == (
        'converged', 1, [])

    # Check mode ends early as well (it would predict nothing), and writes no record.
    check = network_play.run(sim, 'playbooks/site.yml', inventory, '--check', '--diff', **OPTIONS)
    assert check.rc == 0 and check.changed('win1') == 0 and decision(check)['converged'], check.output

    # Drift: the kubelet stopped. The full path starts it, and the new record lets the next run end early.
    with sim.edit_node('win1') as node:
        node.data['services']['kubelet']['state'] = 'stopped'
    repair = network_play.run(sim, 'playbooks/site.yml', inventory, **OPTIONS)
    assert repair.rc == 0, repair.output
    assert decision(repair)['reasons'] == ['the node changed since the record: services'], decision(repair)
    assert sim.node('win1').data['services']['kubelet']['state'] == 'running'
    assert decision(network_play.run(sim, 'playbooks/site.yml', inventory, **OPTIONS))['converged']

    # A credential changed: kube-proxy's token Secret is gone, so the control-plane play makes a new token. The
    # node itself matches its record, but the control-plane play sends it down the node play, which writes
    # kube-proxy's new kubeconfig.
    kubeconfig = sim.node('win1').file(KUBE_PROXY_KUBECONFIG)['sha256']
    with sim.edit_cluster() as cluster:
        cluster.delete('Secret', 'kube-system', 'kubewin-kube-proxy-windows-token')
    rotated = network_play.run(sim, 'playbooks/site.yml', inventory, **OPTIONS)
    assert rotated.rc == 0 and decision(rotated)['converged'], rotated.output
    assert node_stages(rotated) and sim.node('win1').file(KUBE_PROXY_KUBECONFIG)['sha256'] != kubeconfig

    # An input changed: a role variable. The full path applies it.
    changed_input = dict(OPTIONS, kubelet_verbosity=4)
    verbose = network_play.run(sim, 'playbooks/site.yml', inventory, **changed_input)
    assert verbose.rc == 0, verbose.output
    assert decision(verbose)['reasons'] == [
        'the plan, the role variables or the collection changed since the record']
    assert ' --v=4 ' in sim.node('win1').data['services']['kubelet']['command_line']

    # A run limited by tags does every stage it was asked for but records nothing: kube-proxy, stopped
    # meanwhile, is outside the kubelet tag, so the next full run must still see the node as changed.
    recorded = sim.node('win1').file(RECORD)['sha256']
    with sim.edit_node('win1') as node:
        node.data['services']['kube-proxy']['state'] = 'stopped'
    tagged = network_play.run(sim, 'playbooks/site.yml', inventory, '--tags', 'prerequisites,control_plane,kubelet', **changed_input)
    assert tagged.rc == 0 and not decision(tagged)['converged'], tagged.output
    assert sim.node('win1').file(RECORD)['sha256'] == recorded
    full = network_play.run(sim, 'playbooks/site.yml', inventory, **changed_input)
    assert full.rc == 0 and not decision(full)['converged'], full.output
    assert sim.node('win1').data['services']['kube-proxy']['state'] == 'running'
