"""playbooks/collect_logs.yml against a converged simulated node: one read-only remote call per node, the logs
of the node's services and its HNS state as JSON in <collect_logs_dir>/<inventory_hostname>/ on the controller."""

import json
import os
import sys

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402


def test_collect_logs_of_a_converged_overlay_node(tmp_path):
    sim = Simulation(tmp_path)
    inventory = sim.inventory(
        {'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version='1.31.14'),
        control_plane={'cp1': {}})
    converge = network_play.run(sim, 'playbooks/site.yml', inventory, join_method='bootstrap_kubeconfig')
    assert converge.rc == 0, converge.output
    before = json.dumps(sim.node('win1').data, sort_keys=True)

    target = tmp_path / 'collected'
    collect = sim.run('playbooks/collect_logs.yml', inventory, '-e', 'collect_logs_dir=%s' % target)
    assert collect.rc == 0, collect.output
    assert collect.calls['win1']['by_kind'] == {'win_powershell:node_logs': 1}, 'one remote call'
    # The fleet report says so too, and that nothing changed.
    row = collect.report_row('win1')
    assert (row['status'], row['changes'], row['calls']) == ('ok', [], 1), row
    after = sim.node('win1').data
    after['calls'] = json.loads(before)['calls']
    assert json.dumps(after, sort_keys=True) == before, 'read-only on the node'

    folder = target / 'win1'
    names = sorted(os.listdir(folder))
    assert names == ['containerd.log', 'events-docker.json', 'flanneld.log', 'hns-endpoints.json',
                     'hns-networks.json', 'hns-policylists.json', 'kube-proxy.log', 'kubelet.log', 'services.json']
    node = sim.node('win1')
    assert (folder / 'flanneld.log').read_text() == node.file('C:\\var\\log\\flanneld\\flanneld.log')['content']
    assert 'Acquired lease' in (folder / 'flanneld.log').read_text()
    assert 'kubelet.exe started' in (folder / 'kubelet.log').read_text()
    networks = json.loads((folder / 'hns-networks.json').read_text())
    assert sorted((n['Name'], n['Type']) for n in networks) == [('External', 'Overlay'), ('flannel.4096', 'Overlay')]
    vsids = {n['Name']: n['Subnets'][0]['Policies'][0]['VSID'] for n in networks}
    assert vsids == {'External': 9999, 'flannel.4096': 4096}
    policy_lists = json.loads((folder / 'hns-policylists.json').read_text())
    assert sorted(v for p in policy_lists for v in p['Policies'][0]['VIPs']) == ['10.96.0.1', '10.96.0.10']
    services = json.loads((folder / 'services.json').read_text())
    assert services['kubelet']['state'] == 'running' and services['docker']['exists'] is False
    assert services['flanneld']['log_files'] == ['C:\\var\\log\\flanneld\\flanneld.log']
    assert json.loads((folder / 'events-docker.json').read_text()) == []


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
