# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report: one row per Windows node saying where a run left it, and what the run cost.

Internal to kubewin.node, not a public API. The public interfaces are the ``kubewin.node.fleet_report``
module, which the last play of the playbooks runs on the controller, and the ``kubewin.node.fleet_report``
callback, which writes the same report when a run stopped before that play (every node of a batch failed, or
``kubewin_max_fail_percentage`` was exceeded: ansible-core's PlaybookExecutor then runs no later play). Both build
it with ``fleet_document`` and print and write it with ``publish``.

Pure functions of what the run left in the host variables; nothing here contacts a host:

- the node's snapshot (``kubewin_node``): its Windows build, the installed kubelet's record, the files holding
  credentials that others may read (its ``credentials`` section, _credentials.py);
- its share of the plan (``plan_node``, ``plan_cluster``): runtime, podCIDR, topology;
- the Node object the verify role read (``verify_windows_nodes`` on the control-plane host), when the
  run verified: Ready, the kubelet and runtime versions the node reports, the podCIDR it was given;
- the convergence decision (``prerequisites_converged``) of a node that ended its run early;
- the takeover plan (``prerequisites_takeover``, _adopt.py) of a node another tool set up: its layout, what the run
  takes over, replaces or leaves, and why it refused the node;
- what the modules did (``_activity``) and the results of the few ``ansible.windows`` tasks the roles
  run on a node themselves (``DIRECT_RESULTS``): the changes and the remote calls of this run.
"""

from __future__ import annotations

import datetime
import json
import os

from ansible.utils.display import Display

from ansible_collections.kubewin.node.plugins.plugin_utils import (
    _activity, _adopt, _cluster_api, _converged, _credentials, _fleet_decisions, _node_plan)

display = Display()

# The options of the kubewin.node.fleet_report module (plugins/modules/fleet_report.py documents them); the callback
# validates the arguments of the playbook's report task with them too.
ARGUMENT_SPEC = {
    'playbook': {'type': 'str', 'required': True},
    'dest': {'type': 'path', 'default': ''},
    'started': {'type': 'float'},
    'control_plane': {'type': 'str'},
    'node_objects': {'type': 'list', 'elements': 'dict'},
}
# The verify role's Node objects of the Windows nodes, on the host it ran on.
NODE_OBJECTS = 'verify_windows_nodes'

# The ansible.windows tasks the roles run on a Windows node outside the kubewin.node modules, by the
# variable each registers: (module, what it manages). Each is one remote call when it ran, but
# win_reboot in check mode, which answers without contacting the node (ansible.windows'
# plugins/action/win_reboot.py). tests/unit/plugins/plugin_utils/test_fleet_report.py keeps this in
# step with the roles.
DIRECT_RESULTS = {
    'prerequisites_features_result': ('win_feature', 'Windows features'),
    'prerequisites_reboot_result': ('win_reboot', ''),
    'prerequisites_proxy_result': ('win_environment', 'proxy variables'),
    'container_runtime_crictl_result': ('win_environment', 'CRI_CONFIG_FILE'),
    'patch_search_result': ('win_updates', 'Windows updates'),
    'patch_install_result': ('win_updates', 'Windows updates'),
}
NO_CALL_IN_CHECK_MODE = ('win_reboot',)
# win_updates is an action plugin that runs its module three times a round (start, poll, cancel) and, with
# reboot=true, restarts the node and runs another round (ansible.windows plugins/action/win_updates.py). Its
# result says whether it restarted, not how often: a restart counts as one call and one more round.
UPDATE_CALLS_PER_ROUND = 3
# Host variables the report reads of each node (besides DIRECT_RESULTS and the facts).
NODE_VARIABLES = ('plan_node', 'plan_cluster', _converged.DECISION, 'prerequisites_takeover', 'doctor_findings',
                  'doctor_repaired', 'patch_failure')
# What a role records when a node's work failed but the node stays in the run, so that the run goes on to its
# report (the patch role: a node that did not verify stays cordoned); such a node is reported as failed.
FAILURE_VARIABLE = 'patch_failure'
KUBELET = '\\kubelet.exe'

COLUMNS = (('node', 'node'), ('status', 'status'), ('windows', 'Windows'), ('runtime', 'runtime'),
           ('kubernetes', 'Kubernetes'), ('ready', 'Ready'), ('pod_cidr', 'podCIDR'), ('network', 'network'),
           ('credentials', 'credentials'), ('changes', 'changed'), ('calls', 'calls'))

# Status of a node: what a reader must know before the other columns.
OK = 'ok'
CONVERGED = 'converged'  # ended early: its snapshot matched the record of its last full run
FAILED = 'failed'  # failed or unreachable: Ansible took it out of the run
STOPPED = 'stopped'  # did not fail, but the run stopped (other nodes failed) before its report play


def _windows(snapshot):
    os_info = (snapshot or {}).get('os') or {}
    if not os_info.get('build'):
        return ''
    product = os_info.get('product') or ''
    return '%s (%s)' % (product, os_info['build']) if product else str(os_info['build'])


def _installed_kubelet(snapshot):
    """The version of the kubelet the node's artifact record holds, written as the kubelet reports it (v1.x.y)."""
    for path, record in sorted(((snapshot or {}).get('artifacts') or {}).items()):
        if path.lower().endswith(KUBELET) and isinstance(record, dict) and record.get('version'):
            return 'v' + str(record['version']).lstrip('v')
    return ''


def _ready(node_object):
    if node_object is None:
        return ''
    for condition in (node_object.get('status') or {}).get('conditions') or []:
        if condition.get('type') == 'Ready':
            return condition.get('status') or ''
    return 'Unknown'


def _pod_cidr(node_object, planned):
    """The Node's podCIDR; the plan's (kubewin_pod_cidr) when there is no Node, and beside the Node's when they differ:
    the node's CNI config and routes are made from the plan's."""
    assigned = ((node_object or {}).get('spec') or {}).get('podCIDR') or ''
    if assigned and planned and assigned != planned:
        return '%s (plan: %s)' % (assigned, planned)
    return assigned or planned or ''


def _network(plan_cluster):
    topology = (plan_cluster or {}).get('topology') or ''
    routing = (plan_cluster or {}).get('l2bridge_routing')
    return '%s (%s)' % (topology, routing) if topology == 'l2bridge' and routing else topology


def _open_credentials(snapshot):
    """The files holding credentials whose ACL is not the secret one, or None when the snapshot did not read them."""
    if not isinstance((snapshot or {}).get('credentials'), dict):
        return None
    return _credentials.unrestricted(snapshot['credentials'])


def _direct_entries(variables, check_mode):
    """Activity entries for the ansible.windows tasks that ran on the node in this run."""
    entries = []
    for name, (module, resource) in DIRECT_RESULTS.items():
        result = variables.get(name)
        if isinstance(result, dict) and result and not result.get('skipped'):
            calls = 0 if check_mode and module in NO_CALL_IN_CHECK_MODE else 1
            if module == 'win_updates':
                calls = UPDATE_CALLS_PER_ROUND + (1 + UPDATE_CALLS_PER_ROUND if result.get('rebooted') else 0)
            entries.append({'module': module, 'resource': resource, 'changed': bool(result.get('changed')),
                            'calls': calls, 'task': name})
    return entries


def node_row(host, variables, node_object=None, status=OK, started=None, check_mode=False):
    """One row of the report.

    ``variables`` are the node's host variables (``kubewin_node`` and ``kubewin_activity`` may be under
    ``ansible_facts``), ``node_object`` the cluster's Node of it when the run verified, ``started`` the
    controller time the run started (entries before it are an earlier run's, kept by a fact cache),
    ``check_mode`` whether the run was a check run.
    """
    facts = variables.get('ansible_facts') or {}
    snapshot = facts.get('kubewin_node') or variables.get('kubewin_node')
    entries = _activity.since(facts.get(_activity.FACT) or variables.get(_activity.FACT) or [], started)
    entries = entries + _direct_entries(variables, check_mode)
    plan_node = variables.get('plan_node') or {}
    info = ((node_object or {}).get('status') or {}).get('nodeInfo') or {}
    runtime = info.get('containerRuntimeVersion') or plan_node.get('container_runtime') or ''
    decision = variables.get(_converged.DECISION) or {}
    failure = variables.get(FAILURE_VARIABLE)
    row = {
        'node': host,
        'status': FAILED if failure else status,
        'windows': _windows(snapshot),
        'runtime': runtime.replace('://', ' '),
        'kubernetes': info.get('kubeletVersion') or _installed_kubelet(snapshot),
        'ready': _ready(node_object),
        'pod_cidr': _pod_cidr(node_object, plan_node.get('pod_cidr')),
        'network': _network(variables.get('plan_cluster')),
        'open_credentials': _open_credentials(snapshot),
        'changes': _changes(entries),
        # Tasks that changed the node, as the play recap counts them (a loop's items are one task).
        'changed_tasks': len({entry.get('task') or id(entry) for entry in entries if entry['changed']}),
        'calls': sum(entry['calls'] for entry in entries),
        'reasons': list(decision.get('reasons') or []),
        'takeover': _takeover(variables.get('prerequisites_takeover')),
        # playbooks/doctor.yml: what it found on the node (plugin_utils/_doctor.py) and what it repaired.
        'findings': list(variables.get('doctor_findings') or []),
        'repaired': list(variables.get('doctor_repaired') or []),
    }
    if failure:
        row['failure'] = str(failure)
    return row


def _changes(entries):
    """What the run changed on the node, each resource once, in order (``node_service kubelet (2 times)`` when
    several tasks changed it)."""
    counts = {}
    for entry in entries:
        if entry['changed']:
            name = ' '.join(part for part in (entry['module'], entry['resource']) if part)
            counts[name] = counts.get(name, 0) + 1
    return [name if count == 1 else '%s (%d times)' % (name, count) for name, count in counts.items()]


def _takeover(plan):
    """What the report keeps of a node's takeover plan: none for the collection's own node or a new one."""
    if not isinstance(plan, dict) or plan.get('layout') in (None, 'kubewin', 'none'):
        return None
    return {key: plan.get(key) for key in ('layout', 'description', 'items', 'refusals')}


def status_of(host, failed, ended_early, complete=True):
    """The status of a node: ``failed`` hosts are those Ansible took out of the run; ``complete`` says whether the
    run got to its report play."""
    if host in failed:
        return FAILED
    if host in ended_early:
        return CONVERGED
    return OK if complete else STOPPED


def report(playbook, rows, check_mode=False, generated='', complete=True):
    """The whole report as one JSON-ready document."""
    return {'playbook': playbook, 'check_mode': bool(check_mode), 'generated': generated, 'complete': bool(complete),
            'nodes': list(rows),
            'totals': {'nodes': len(rows), 'changes': sum(row['changed_tasks'] for row in rows),
                       'calls': sum(row['calls'] for row in rows),
                       'by_status': {status: sum(1 for row in rows if row['status'] == status)
                                     for status in sorted({row['status'] for row in rows})}}}


def _credentials_cell(row):
    """'restricted' when every file holding a credential is readable only by SYSTEM and Administrators, else how many
    are not; empty when the node's snapshot did not read them."""
    files = row.get('open_credentials')
    if files is None:
        return ''
    return '%d open' % len(files) if files else 'restricted'


def _cells(row):
    return [_credentials_cell(row) if key == 'credentials' else str(row['changed_tasks']) if key == 'changes'
            else str(row[key]) for key, _title in COLUMNS]


def _title(document):
    mode = ', check mode: changes are predictions' if document['check_mode'] else ''
    if not document.get('complete', True):
        mode += ', the run stopped before its end'
    return 'Fleet report of %s (%s%s)' % (document['playbook'], document['generated'] or 'this run', mode)


def _details(document):
    """One line per node that changed something or ended early, saying what."""
    lines = []
    for row in document['nodes']:
        if row.get('failure'):
            lines.append('%s failed: %s' % (row['node'], row['failure']))
        if row.get('open_credentials'):
            lines.append('%s has files holding credentials that others than SYSTEM and Administrators may read '
                         '(site.yml restricts them): %s' % (row['node'], ', '.join(row['open_credentials'])))
        takeover = row.get('takeover')
        if takeover:
            by_action = {}
            for item in takeover['items'] or []:
                by_action.setdefault(item['action'], []).append(item['what'])
            lines.append('%s was set up by %s: %s' % (row['node'], takeover['description'], '; '.join(
                '%s %s' % (action, ', '.join(by_action[action])) for action in _adopt.ACTIONS if action in by_action)
                or 'nothing to take over'))
            lines += ['refused: %s' % refusal for refusal in takeover['refusals'] or []]
        for found in row.get('findings') or []:
            lines.append('%s %s [%s]: %s. Likely cause: %s. Fix: %s'
                         % (row['node'], found['severity'], found['id'], found['what'], found['cause'], found['fix']))
        if row.get('repaired'):
            lines.append('%s repaired: %s' % (row['node'], '; '.join(row['repaired'])))
        if row['changes']:
            lines.append('%s %s: %s' % (row['node'], 'would change' if document['check_mode'] else 'changed',
                                        ', '.join(row['changes'])))
        elif row['status'] == CONVERGED:
            lines.append('%s ended early: its snapshot matches the record of its last full run' % row['node'])
        if row['status'] == STOPPED:
            lines.append('%s did not finish: the run stopped when other nodes failed' % row['node'])
    return lines


def text(document):
    """The report as the run prints it: an aligned table, then what changed on each node."""
    table = [[title for _key, title in COLUMNS]] + [_cells(row) for row in document['nodes']]
    widths = [max(len(line[column]) for line in table) for column in range(len(COLUMNS))]
    lines = [_title(document), '']
    lines += ['  '.join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    details = _details(document)
    return '\n'.join(lines + ([''] + details if details else [])) + '\n'


def markdown(document):
    """The report as a Markdown document."""
    def escape(cell):
        return cell.replace('|', '\\|')

    lines = ['# ' + _title(document), '',
             '| ' + ' | '.join(title for _key, title in COLUMNS) + ' |',
             '|' + '|'.join('---' for _column in COLUMNS) + '|']
    lines += ['| ' + ' | '.join(escape(cell) for cell in _cells(row)) + ' |' for row in document['nodes']]
    details = _details(document)
    if details:
        lines += [''] + ['- ' + escape(line) for line in details]
    return '\n'.join(lines) + '\n'


def json_text(document):
    return json.dumps(document, indent=1, sort_keys=True) + '\n'


def node_variables(host_vars):
    """The variables the report reads of a node, each only when the run left it (no templating of the rest)."""
    names = ('ansible_facts',) + NODE_VARIABLES + tuple(DIRECT_RESULTS)
    return {name: host_vars[name] for name in names if name in host_vars}


def _node_objects(hostvars, control_plane):
    """The Node objects the verify role read, by name; none when it did not run."""
    if not control_plane or control_plane not in hostvars or NODE_OBJECTS not in hostvars[control_plane]:
        return {}
    return {node['metadata']['name']: node for node in hostvars[control_plane][NODE_OBJECTS] or []}


def fleet_document(args, hostvars, groups, targeted, failed, check_mode=False, complete=True):
    """The report of the Windows nodes ``targeted`` (in the play's order), ``failed`` those Ansible took out of the
    run; ``args`` are the module's, validated (ARGUMENT_SPEC); ``complete`` whether the run got to its report play."""
    # The nodes that skipped the node play because they ended early (kubewin.node.fleet_decisions).
    ended_early = set(_fleet_decisions.fleet_decisions(hostvars, groups)['converged'])
    if args.get('node_objects') is not None:
        node_objects = {node['metadata']['name']: node for node in args['node_objects']}
    else:
        # The verify role ran where the cluster-side plays run (kubewin.node.cluster_api).
        node_objects = _node_objects(hostvars, args.get('control_plane')
                                     or _cluster_api.cluster_api(hostvars, groups)['host'] or None)
    rows = [node_row(host, node_variables(hostvars[host]), node_objects.get(_node_plan.node_name(host, hostvars[host])),
                     status_of(host, failed, ended_early, complete), args.get('started'), check_mode)
            for host in targeted]
    generated = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M:%S UTC')
    return report(args['playbook'], rows, check_mode, generated, complete)


def publish(document, dest):
    """Print the report and write it into the folder ``dest`` as <playbook>.md and .json (nothing when ``dest`` is
    empty); the paths written. Raises OSError when the folder cannot be written."""
    text_form = text(document)
    display.display('\n' + text_form)
    paths = []
    if dest:
        os.makedirs(dest, exist_ok=True)
        for suffix, content in (('md', markdown(document)), ('json', json_text(document))):
            path = os.path.join(dest, '%s.%s' % (document['playbook'], suffix))
            with open(path, 'w', encoding='utf-8') as handle:
                handle.write(content)
            paths.append(path)
    return text_form, paths
