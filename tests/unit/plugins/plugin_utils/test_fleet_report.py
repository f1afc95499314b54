"""The fleet report: one row per node from what the run left in its host variables; the activity fact behind it."""

import json
from pathlib import Path

import yaml

from ansible_collections.kubewin.node.plugins.plugin_utils import _activity, _converged, _fleet_report

ROOT = Path(__file__).resolve().parents[4]
STARTED = 1000.0
KUBELET = 'C:\\k\\kubelet.exe'
# The credentials section of a snapshot (node_info): the kubelet's client certificate still has the ACL it inherited.
CREDENTIALS = {'C:\\etc\\kubernetes\\*.conf': {'C:\\etc\\kubernetes\\kubelet.conf': 'secret'},
               'C:\\var\\lib\\kubelet\\pki\\*.pem': {
                   'C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem': 'inherited',
                   'C:\\var\\lib\\kubelet\\pki\\kubelet-client-2026.pem': 'custom'},
               'C:\\etc\\kube-flannel\\kubeconfig': {}}


def variables(**more):
    """The host variables a converging run leaves on an overlay node."""
    entries = []
    for module, resource, changed, calls in (('node_info', '', False, 1), ('node_service', 'kubelet', True, 2),
                                             ('node_file', 'C:\\k\\kubelet-config.yaml', True, 1),
                                             ('node_service', 'kube-proxy', False, 1)):
        entries = _activity.add(entries, module, resource, changed, calls, now=STARTED + len(entries))
    base = {
        'ansible_facts': {
            'kubewin_node': {'os': {'build': 20348, 'product': 'Windows Server 2022', 'release': '21H2'},
                             'artifacts': {KUBELET: {'version': '1.31.14', 'checksum': 'sha256:aa'}},
                             'credentials': CREDENTIALS},
            'kubewin_activity': entries,
        },
        'plan_node': {'container_runtime': 'containerd', 'pod_cidr': None},
        'plan_cluster': {'topology': 'overlay', 'l2bridge_routing': None},
        'prerequisites_converged': {'converged': False, 'reasons': ['the node has no convergence record (x)']},
        'prerequisites_features_result': {'changed': True, 'feature_result': []},
        'prerequisites_proxy_result': {'changed': False, 'skipped': True},
    }
    base.update(more)
    return base


NODE = {
    'metadata': {'name': 'win1'},
    'spec': {'podCIDR': '10.244.3.0/24'},
    'status': {'conditions': [{'type': 'MemoryPressure', 'status': 'False'}, {'type': 'Ready', 'status': 'True'}],
               'nodeInfo': {'kubeletVersion': 'v1.31.14', 'containerRuntimeVersion': 'containerd://1.7.22'}},
}


def test_a_verified_node_reports_what_its_node_object_says_and_what_the_run_did():
    row = _fleet_report.node_row('win1', variables(), NODE, _fleet_report.OK, STARTED)
    assert row == {
        'node': 'win1', 'status': 'ok', 'windows': 'Windows Server 2022 (20348)', 'runtime': 'containerd 1.7.22',
        'kubernetes': 'v1.31.14', 'ready': 'True', 'pod_cidr': '10.244.3.0/24', 'network': 'overlay',
        # Any ACL but the secret profile may let others read the file.
        'open_credentials': ['C:\\var\\lib\\kubelet\\pki\\kubelet-client-2026.pem',
                             'C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem'],
        # The feature task ran and changed; the skipped proxy task neither changed nor cost a call.
        'changes': ['node_service kubelet', 'node_file C:\\k\\kubelet-config.yaml', 'win_feature Windows features'],
        'changed_tasks': 3,
        'calls': 1 + 2 + 1 + 1 + 1,
        'reasons': ['the node has no convergence record (x)'],
        'takeover': None,
        'findings': [], 'repaired': [],
    }


def test_without_a_node_object_the_row_falls_back_to_the_plan_and_the_snapshot():
    plan_node = {'container_runtime': 'docker', 'pod_cidr': '10.244.9.0/24'}
    plan_cluster = {'topology': 'l2bridge', 'l2bridge_routing': 'static_routes'}
    row = _fleet_report.node_row('win2', variables(plan_node=plan_node, plan_cluster=plan_cluster))
    assert (row['runtime'], row['kubernetes'], row['ready'], row['pod_cidr'], row['network']) == (
        'docker', 'v1.31.14', '', '10.244.9.0/24', 'l2bridge (static_routes)')
    # A Node given another podCIDR than the plan's, which its CNI config and routes use, shows both.
    planned = variables(plan_node=dict(plan_node, pod_cidr='10.244.10.0/24'))
    assert _fleet_report.node_row('win1', planned, NODE)['pod_cidr'] == '10.244.3.0/24 (plan: 10.244.10.0/24)'
    assert _fleet_report.node_row('win1', variables(plan_node=dict(plan_node, pod_cidr='10.244.3.0/24')),
                                  NODE)['pod_cidr'] == '10.244.3.0/24'
    # A node not ready says so, and one whose snapshot was never taken (unreachable at once) has empty columns.
    not_ready = dict(NODE, status=dict(NODE['status'], conditions=[{'type': 'Ready', 'status': 'False'}]))
    assert _fleet_report.node_row('win1', variables(), not_ready)['ready'] == 'False'
    bare = _fleet_report.node_row('win3', {}, None, _fleet_report.FAILED)
    assert (bare['windows'], bare['kubernetes'], bare['changes'], bare['calls'], bare['status']) == ('', '', [], 0, 'failed')
    assert bare['open_credentials'] is None, 'unknown, not restricted'


def test_activity_of_an_earlier_run_is_left_out():
    facts = variables()['ansible_facts']
    earlier = _activity.add([], 'node_service', 'kubelet', True, 3, now=STARTED - 3600)
    facts['kubewin_activity'] = earlier + facts['kubewin_activity']
    row = _fleet_report.node_row('win1', variables(ansible_facts=facts), NODE, started=STARTED)
    assert row['calls'] == 6 and row['changes'].count('node_service kubelet') == 1
    # Without a start, everything the fact holds counts.
    assert _fleet_report.node_row('win1', variables(ansible_facts=facts), NODE)['calls'] == 9


def test_a_reboot_in_check_mode_costs_no_call():
    rebooted = variables(prerequisites_features_result={'skipped': True},
                         prerequisites_reboot_result={'changed': True, 'rebooted': True})
    real = _fleet_report.node_row('win1', rebooted, NODE, started=STARTED)
    check = _fleet_report.node_row('win1', rebooted, NODE, started=STARTED, check_mode=True)
    assert 'win_reboot' in real['changes'] and 'win_reboot' in check['changes']
    assert real['calls'] - check['calls'] == 1


def test_status_failed_for_nodes_out_of_the_run_converged_for_those_that_ended_early():
    failed = {'win3'}
    assert [_fleet_report.status_of(host, failed, {'win2'}) for host in ('win1', 'win2', 'win3')] == [
        'ok', 'converged', 'failed']
    # The run stopped before its report play (other nodes failed): a node that neither failed nor ended early did not
    # finish.
    assert [_fleet_report.status_of(host, failed, {'win2'}, complete=False) for host in ('win1', 'win2', 'win3')] == [
        'stopped', 'converged', 'failed']


def test_the_document_of_a_run_says_which_nodes_failed_ended_early_or_did_not_finish(tmp_path):
    """fleet_document, as the module and the callback build the report: the rows of the targeted nodes from the host
    variables, the nodes that skipped the node play from kubewin.node.fleet_decisions."""
    converged = {'prerequisites_converged': {'converged': True, 'reasons': []}}
    hostvars = {'win1': variables(), 'win2': dict(variables(), **converged), 'win3': variables(), 'cp1': {},
                'localhost': {}}
    groups = {'windows_nodes': ['win1', 'win2', 'win3'], 'kube_control_plane': ['cp1'], 'kubewin_converged': ['win2']}
    args = {'playbook': 'site', 'dest': str(tmp_path / 'reports'), 'started': STARTED, 'control_plane': None,
            'node_objects': [NODE]}
    document = _fleet_report.fleet_document(args, hostvars, groups, ['win1', 'win2', 'win3'], {'win3'}, complete=False)
    assert [(row['node'], row['status']) for row in document['nodes']] == [
        ('win1', 'stopped'), ('win2', 'converged'), ('win3', 'failed')]
    # What the failed node did before it failed: its activity.
    assert document['nodes'][2]['calls'] == 6 and document['nodes'][2]['changes']
    assert document['nodes'][0]['ready'] == 'True' and not document['complete']

    text, paths = _fleet_report.publish(document, args['dest'])
    assert text.splitlines()[0].endswith(', the run stopped before its end)')
    assert 'win1 did not finish: the run stopped when other nodes failed' in text.splitlines()
    assert paths == [str(tmp_path / 'reports' / 'site.md'), str(tmp_path / 'reports' / 'site.json')]
    assert json.loads((tmp_path / 'reports' / 'site.json').read_text()) == document
    complete = _fleet_report.fleet_document(args, hostvars, groups, ['win1'], set())
    assert complete['complete'] and complete['nodes'][0]['status'] == 'ok'


def test_the_activity_fact_records_only_work_and_is_capped():
    assert _activity.add([], 'node_file', 'C:\\x', False, 0) == []
    entries = []
    for number in range(_activity.MAX_ENTRIES + 5):
        entries = _activity.add(entries, 'node_info', '', False, 1, now=number)
    assert len(entries) == _activity.MAX_ENTRIES and entries[-1]['at'] == _activity.MAX_ENTRIES + 4
    # What a run did is no input of the next run's early-end decision.
    assert _converged.input_names(['kubewin_activity', 'kubewin_node', 'kubewin_topology']) == ['kubewin_topology']


def test_the_table_markdown_and_json_hold_the_same_rows():
    # win-2 ended early: its one snapshot, and none of the tasks after it ran.
    snapshot_only = _activity.add([], 'node_info', '', False, 1, now=STARTED)
    ended_early = dict(variables()['ansible_facts'], kubewin_activity=snapshot_only)
    ended_early['kubewin_node'] = dict(ended_early['kubewin_node'], credentials={'C:\\etc\\kubernetes\\*.conf': {
        'C:\\etc\\kubernetes\\kubelet.conf': 'secret'}})
    rows = [_fleet_report.node_row('win1', variables(), NODE, _fleet_report.OK, STARTED),
            _fleet_report.node_row('win-2', {'ansible_facts': ended_early, 'plan_node': {'container_runtime': 'containerd'},
                                             'plan_cluster': {'topology': 'overlay'}},
                                   None, _fleet_report.CONVERGED, STARTED)]
    document = _fleet_report.report('site', rows, check_mode=True, generated='2026-11-24 04:00:00 UTC')
    assert document['totals'] == {'nodes': 2, 'changes': 3, 'calls': 7, 'by_status': {'converged': 1, 'ok': 1}}

    lines = _fleet_report.text(document).splitlines()
    assert lines[0] == 'Fleet report of site (2026-11-24 04:00:00 UTC, check mode: changes are predictions)'
    header, first, second = lines[2:5]
    assert header.split() == ['node', 'status', 'Windows', 'runtime', 'Kubernetes', 'Ready', 'podCIDR', 'network',
                              'credentials', 'changed', 'calls']
    # Columns are aligned: each column starts at the same offset on every line.
    assert first.index('ok') == second.index('converged') == header.index('status')
    assert first.index('v1.31.14') == header.index('Kubernetes') and first.endswith(' 3        6')
    assert first.index('2 open') == second.index('restricted') == header.index('credentials')
    assert lines[6:] == ['win1 has files holding credentials that others than SYSTEM and Administrators may read '
                         '(site.yml restricts them): C:\\var\\lib\\kubelet\\pki\\kubelet-client-2026.pem, '
                         'C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem',
                         # A check run's changes are predictions.
                         'win1 would change: node_service kubelet, node_file C:\\k\\kubelet-config.yaml, '
                         'win_feature Windows features',
                         'win-2 ended early: its snapshot matches the record of its last full run']

    markdown = _fleet_report.markdown(document).splitlines()
    assert markdown[2] == ('| node | status | Windows | runtime | Kubernetes | Ready | podCIDR | network | credentials | '
                           'changed | calls |')
    assert markdown[4] == ('| win1 | ok | Windows Server 2022 (20348) | containerd 1.7.22 | v1.31.14 | True | '
                           '10.244.3.0/24 | overlay | 2 open | 3 | 6 |')
    assert markdown[5] == ('| win-2 | converged | Windows Server 2022 (20348) | containerd | v1.31.14 |  |  | overlay | '
                           'restricted | 0 | 1 |')

    assert json.loads(_fleet_report.json_text(document)) == document


def ansible_windows_tasks(tasks, path):
    """(path, module, register) of every ansible.windows task in a task list, blocks included."""
    found = []
    for task in tasks or []:
        for key in ('block', 'rescue', 'always'):
            found += ansible_windows_tasks(task.get(key), path)
        for module in task:
            if module.startswith('ansible.windows.'):
                found.append((path, module, task.get('register'), task.get('delegate_to')))
    return found


def test_every_ansible_windows_task_of_the_node_roles_is_registered_for_the_report():
    found = []
    for path in sorted(ROOT.glob('roles/*/tasks/*.yml')):
        found += ansible_windows_tasks(yaml.safe_load(path.read_text(encoding='utf-8')), path.relative_to(ROOT))
    assert found
    # The verify role's HTTP check runs from the control-plane host, delegated to a node, and only with the
    # optional sample workload: it is not the node's own run.
    on_nodes = [task for task in found if not task[3]]
    assert sorted(register for _path, _module, register, _delegate in on_nodes) == sorted(_fleet_report.DIRECT_RESULTS)
    for path, module, register, _delegate in on_nodes:
        assert _fleet_report.DIRECT_RESULTS[register][0] == module.rpartition('.')[2], path


def test_the_items_of_a_loop_keep_each_others_entries():
    # Each item sees the facts the task started with; Ansible keeps the facts of the last item that returns any.
    start = {'inventory_hostname': 'win1', 'ansible_loop_var': 'item',
             'ansible_facts': {'kubewin_activity': [{'at': 1.0, 'module': 'node_info', 'resource': '',
                                                     'changed': False, 'calls': 1}]}}
    first = _activity.record(start, 'task-1', 'artifact', 'C:\\k\\kubelet.exe', True, 1, now=2.0)
    assert _activity.record(start, 'task-1', 'artifact', 'C:\\k\\kubeadm.exe', False, 0) is None
    last = _activity.record(start, 'task-1', 'artifact', 'C:\\k\\kubectl.exe', True, 1, now=3.0)
    assert [entry['resource'] for entry in first] == ['', 'C:\\k\\kubelet.exe']
    assert [entry['resource'] for entry in last] == ['', 'C:\\k\\kubelet.exe', 'C:\\k\\kubectl.exe']
    # Outside a loop the task's facts already hold the earlier runs (an until retry sees its last attempt's).
    plain = dict(start, ansible_loop_var=None)
    assert len(_activity.record(plain, 'task-2', 'node_info', '', False, 1)) == 2


def test_the_doctor_findings_and_repairs_of_a_node_are_in_the_details():
    found = {'id': 'service-stopped', 'severity': 'error', 'what': 'service kube-proxy is stopped (exit code 0)',
             'cause': 'it was stopped', 'fix': 'start it', 'repair': 'start_services', 'targets': ['kube-proxy']}
    row = _fleet_report.node_row('win1', variables(doctor_findings=[found], doctor_repaired=['started: kube-proxy']),
                                 NODE, _fleet_report.OK, STARTED)
    assert (row['findings'], row['repaired']) == ([found], ['started: kube-proxy'])
    text = _fleet_report.text(_fleet_report.report('doctor', [row]))
    assert 'win1 error [service-stopped]: service kube-proxy is stopped (exit code 0). Likely cause: it was stopped. ' \
        'Fix: start it' in text
    assert 'win1 repaired: started: kube-proxy' in text


def test_changes_are_counted_by_task_as_the_play_recap_does_and_listed_once():
    # Two tasks changed the kubelet's service (registered, then restarted), one looped task installed two artifacts.
    entries = []
    for module, resource, task in (('node_service', 'kubelet', 'register'), ('artifact', 'kubelet.exe', 'install'),
                                   ('artifact', 'kube-proxy.exe', 'install'), ('node_service', 'kubelet', 'restart')):
        entries = _activity.add(entries, module, resource, True, 1, now=STARTED, task=task)
    facts = dict(variables()['ansible_facts'], kubewin_activity=entries)
    row = _fleet_report.node_row('win1', variables(ansible_facts=facts, prerequisites_features_result={'skipped': True}),
                                 NODE, started=STARTED)
    assert row['changed_tasks'] == 3
    assert row['changes'] == ['node_service kubelet (2 times)', 'artifact kubelet.exe', 'artifact kube-proxy.exe']
    assert _fleet_report.report('site', [row])['totals']['changes'] == 3
