"""The day-two playbooks against one converged simulated overlay node (one converge, shared, as a converge is most of
the cost):

- playbooks/collect_logs.yml: one read-only remote call per node, the logs of the node's services and its HNS state
  as JSON in <collect_logs_dir>/<inventory_hostname>/ on the controller;
- playbooks/doctor.yml: a healthy node has no findings; a broken one (kube-proxy stopped while a Service was deleted
  and another created: a stale and a missing load balancer; the CNI config edited) has them, each with its cause and
  fix; with doctor_repair=true they are repaired and a second run is clean. The checks one by one are
  tests/unit/plugins/plugin_utils/test_doctor.py.
- playbooks/patch.yml, then, on the node the doctor left healthy: a window whose drain a PodDisruptionBudget holds
  back (the node stays cordoned, nothing installed), then, the budget relaxed, the window that resumes it (updates
  found, the node drained, the updates installed with a restart, the node verified, uncordoned), the window's part
  in make test; tests/unit/playbooks/test_patch.py has the check run, and (long) the windows of several nodes, failed
  and resumed.

One test, in this order, as its steps share the converged node (a module-scoped fixture would converge once per
pytest-xdist worker).
"""

import json
import os
import sys
import time

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import cluster as sim_cluster  # noqa: E402
from kubewin_sim.node import windows_state  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402
from _patch_offers import ANNOTATION, CUMULATIVE, FEATURE, INSTALL, MSRT, PATCH_VARS, offer  # noqa: E402

CNI_CONFIG = 'C:\\etc\\cni\\net.d\\10-kubewin.conf'


def _node_object(sim, name):
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        return cluster.get('Node', None, name)


def _ids(result, host='win1'):
    return sorted(f['id'] for f in result.report_row(host)['findings'])


def test_collect_logs_and_the_doctor_on_a_converged_overlay_node(tmp_path):
    sim = Simulation(tmp_path)
    inventory = sim.inventory(
        {'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version='1.31.14',
                        **PATCH_VARS),
        control_plane={'cp1': {}})
    converge = network_play.run(sim, 'playbooks/site.yml', inventory, join_method='bootstrap_kubeconfig')
    assert converge.rc == 0, converge.output
    before = json.dumps(windows_state(sim.node('win1').data), sort_keys=True)

    target = tmp_path / 'collected'
    collect = sim.run('playbooks/collect_logs.yml', inventory, '-e', 'collect_logs_dir=%s' % target)
    assert collect.rc == 0, collect.output
    assert collect.calls['win1']['by_kind'] == {'win_powershell:node_logs': 1}, 'one remote call'
    # The fleet report says so too, and that nothing changed.
    row = collect.report_row('win1')
    assert (row['status'], row['changes'], row['calls']) == ('ok', [], 1), row
    assert json.dumps(windows_state(sim.node('win1').data), sort_keys=True) == before, 'read-only on the node'

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

    healthy = sim.run('playbooks/doctor.yml', inventory)
    assert healthy.rc == 0, healthy.output
    assert healthy.report_row('win1')['findings'] == [], healthy.output
    # The Nodes the doctor read fill the report's Ready and podCIDR, as after site.yml.
    assert (healthy.report_row('win1')['ready'], healthy.report_row('win1')['pod_cidr'][:7]) == ('True', '10.244.')
    assert healthy.calls['win1']['by_kind'] == {'win_powershell:node_info': 1, 'win_powershell:node_logs': 1}
    assert healthy.changed('win1') == 0

    # Break the node: kube-proxy stopped, then a Service deleted (its load balancer stays: stale) and one created
    # with a ready endpoint (no load balancer: missing), and the CNI config's ExceptionList edited.
    with sim.edit_node('win1') as node:
        node.data['services']['kube-proxy']['state'] = 'stopped'
        text = node.file(CNI_CONFIG)['content']
        node.write_file(CNI_CONFIG, content=text.replace('"10.244.0.0/16",', ''))
    with sim.edit_cluster() as cluster:
        cluster.delete('Service', 'kube-system', 'kube-dns')
        # A workload on win1 behind a Service: the cluster's controllers give it a ready endpoint.
        cluster.create(network_play.web_deployment())
        cluster.create({'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': 'web', 'namespace': 'default'},
                        'spec': {'clusterIP': '10.96.0.50', 'selector': {'app': 'web'},
                                 'ports': [{'port': 80, 'protocol': 'TCP'}]}})
    before = json.dumps(sim.node('win1').data['hns'], sort_keys=True)

    broken = sim.run('playbooks/doctor.yml', inventory)
    assert broken.rc == 0, broken.output
    assert _ids(broken) == ['cni-exception-list', 'load-balancer-missing', 'load-balancer-stale', 'service-stopped'], broken.report_row('win1')['findings']
    found = {f['id']: f for f in broken.report_row('win1')['findings']}
    assert '10.96.0.10' in found['load-balancer-stale']['what'] and '10.96.0.50' in found['load-balancer-missing']['what']
    assert 'missing: 10.244.0.0/16' in found['cni-exception-list']['what']
    assert json.dumps(sim.node('win1').data['hns'], sort_keys=True) == before, 'read-only without doctor_repair'

    repair = sim.run('playbooks/doctor.yml', inventory, '-e', 'doctor_repair=true')
    assert repair.rc == 0, repair.output
    row = repair.report_row('win1')
    assert sorted(f['id'] for f in row['findings']) == _ids(broken)
    assert row['repaired'][0] == 'CNI config rewritten' and row['repaired'][-1] == 'kube-proxy restarted', row
    node = sim.node('win1')
    assert node.data['services']['kube-proxy']['state'] == 'running'
    assert sorted(v for p in node.data['hns']['policy_lists'] for v in p['vips']) == ['10.96.0.1', '10.96.0.50']

    again = sim.run('playbooks/doctor.yml', inventory)
    assert again.rc == 0, again.output
    assert again.report_row('win1')['findings'] == [], again.output

    _patch_window(sim, inventory)


def _patch_window(sim, inventory):
    """Windows on the healthy node with two updates to install (and one its categories filter out). The first: its
    drain refused by a PodDisruptionBudget for the doctor's web pod, so the node stays cordoned and marked and nothing
    is installed. The second, with the budget relaxed: drained (the web pod evicted; its Deployment makes a new one),
    installed with the restart the cumulative update asks for, verified, uncordoned, unmarked; the fleet report says
    so."""
    offer(sim, 'win1', CUMULATIVE, MSRT, FEATURE)
    booted = sim.node('win1').data['os']['last_boot']
    with sim.edit_cluster() as cluster:
        # One replica and one needed: the budget allows no disruption.
        cluster.create({'apiVersion': 'policy/v1', 'kind': 'PodDisruptionBudget',
                        'metadata': {'name': 'web', 'namespace': 'default'},
                        'spec': {'minAvailable': 1, 'selector': {'matchLabels': {'app': 'web'}}}})
    blocked = sim.run('playbooks/patch.yml', inventory)
    assert blocked.rc == 2, blocked.output
    failure = blocked.result('Say what went wrong', 'win1')['result']['msg']
    assert failure.startswith("the patch window of win1 stopped at 'Drain the node before its updates': Failed to "
                              "delete pod default/web-"), failure
    assert failure.endswith("due to: Cannot evict pod as it would violate the pod's disruption budget. (the "
                            "PodDisruptionBudget(s) that allow no disruption now: default/web (it needs 1 healthy "
                            "pod(s) and has 1)). It stays cordoned (with the Node's %s annotation); run the window "
                            "again once the cause is fixed." % ANNOTATION), failure
    assert blocked.report_row('win1')['status'] == 'failed'
    node_object = _node_object(sim, 'win1')
    assert node_object['spec'].get('unschedulable') is True and node_object['metadata']['annotations'][ANNOTATION]
    assert blocked.results(INSTALL, 'win1') == [] and sim.node('win1').data['os']['last_boot'] == booted
    assert not any(u.get('installed_at') for u in sim.node('win1').data['windows_update']['updates']), 'nothing installed'
    with sim.edit_cluster() as cluster:
        cluster.patch('PodDisruptionBudget', 'default', 'web', {'spec': {'minAvailable': 0}})
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        pods_before = {p['metadata']['name'] for p in cluster.list('Pod', 'default', [], [])}
    started = time.time()

    window = sim.run('playbooks/patch.yml', inventory)
    assert window.rc == 0, window.output
    assert window.result('Name the updates the node gets', 'win1')['result']['msg'] == (
        'win1 gets 2 update(s): %s; %s; it stays cordoned from an unfinished window until it verifies'
        % (CUMULATIVE['title'], MSRT['title']))
    installed = window.result(INSTALL, 'win1')['result']
    assert (installed['installed_update_count'], installed['rebooted'], installed['failed_update_count']) == (2, True, 0)
    node = sim.node('win1')
    assert node.data['os']['last_boot'] >= started > booted, 'win1 restarted'
    assert [u['title'] for u in node.data['windows_update']['updates'] if u.get('installed_at')] == [
        CUMULATIVE['title'], MSRT['title']], 'the feature update is not in the default categories'
    assert window.api_calls['by_kind']['k8s_drain:drain'] == 1 and window.api_calls['by_kind']['k8s_drain:uncordon'] == 1
    node_object = _node_object(sim, 'win1')
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        pods_after = {p['metadata']['name'] for p in cluster.list('Pod', 'default', [], [])}
    assert not node_object['spec'].get('unschedulable'), 'uncordoned'
    assert ANNOTATION not in node_object['metadata'].get('annotations', {}), 'the window is finished'
    assert sim.cluster().node_ready(node_object)
    assert pods_before and not pods_before & pods_after, 'the drain evicted the web pod'
    row = window.report_row('win1')
    assert (row['status'], row['changes']) == ('ok', ['win_updates Windows updates']), row
    # The search (start, poll, cancel), two rounds of the install with a restart between them, one snapshot.
    assert window.calls['win1']['total'] == row['calls'] == 3 + (3 + 1 + 3) + 1, window.calls['win1']
