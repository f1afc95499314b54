# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.fleet_report: the table of the Windows nodes at the end of a run; on the controller only."""

from __future__ import annotations

import datetime
import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.kubewin.node.plugins.plugin_utils import _cluster_api, _fleet_decisions, _fleet_report, _node_plan

display = Display()

WINDOWS_GROUP = 'windows_nodes'
# The verify role's Node objects of the Windows nodes, on the host it ran on.
NODE_OBJECTS = 'verify_windows_nodes'


class ActionModule(ActionBase):

    # Reads the host variables the run left and writes on the controller: no host is contacted.
    _requires_connection = False
    TRANSFERS_FILES = False

    ARGUMENT_SPEC = {
        'playbook': {'type': 'str', 'required': True},
        'dest': {'type': 'path', 'default': ''},
        'started': {'type': 'float'},
        'control_plane': {'type': 'str'},
        'node_objects': {'type': 'list', 'elements': 'dict'},
    }

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        result = super().run(tmp, task_vars)
        del tmp
        task_vars = task_vars or {}
        try:
            args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)[1]
        except AnsibleActionFail as exc:
            result.update(failed=True, msg=str(exc))
            return result

        groups = task_vars.get('groups') or {}
        hostvars = task_vars['hostvars']
        # The Windows nodes this run targeted (--limit leaves some out); those Ansible took out of the run
        # after a failure or an unreachable connection are no longer among the play's hosts.
        targeted = [host for host in task_vars.get('ansible_play_hosts_all') or [] if host in groups.get(WINDOWS_GROUP, [])]
        finished = set(task_vars.get('ansible_play_hosts') or [])
        # The nodes that skipped the node play because they ended early (kubewin.node.fleet_decisions).
        ended_early = set(_fleet_decisions.fleet_decisions(hostvars, groups)['converged'])
        # The verify role ran where the cluster-side plays run (kubewin.node.cluster_api).
        if args['node_objects'] is not None:
            node_objects = {node['metadata']['name']: node for node in args['node_objects']}
        else:
            node_objects = self._node_objects(hostvars, args['control_plane']
                                              or _cluster_api.cluster_api(hostvars, groups)['host'] or None)

        rows = []
        for host in targeted:
            variables = self._node_variables(hostvars[host])
            rows.append(_fleet_report.node_row(
                host, variables, node_objects.get(_node_plan.node_name(host, hostvars[host])),
                _fleet_report.status_of(host, finished, ended_early), args['started'], self._task.check_mode))
        generated = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M:%S UTC')
        document = _fleet_report.report(args['playbook'], rows, self._task.check_mode, generated)
        text = _fleet_report.text(document)
        display.display('\n' + text)

        paths = []
        if args['dest']:
            try:
                os.makedirs(args['dest'], exist_ok=True)
                for suffix, content in (('md', _fleet_report.markdown(document)), ('json', _fleet_report.json_text(document))):
                    path = os.path.join(args['dest'], '%s.%s' % (args['playbook'], suffix))
                    with open(path, 'w', encoding='utf-8') as handle:
                        handle.write(content)
                    paths.append(path)
            except OSError as exc:
                result.update(failed=True, msg='cannot write the fleet report into %s: %s' % (args['dest'], exc))
                return result
        result.update(changed=False, report=document, text=text, paths=paths)
        return result

    @staticmethod
    def _node_variables(host_vars):
        """The variables the report reads of a node, each only when the run left it (no templating of the rest)."""
        names = ('ansible_facts',) + _fleet_report.NODE_VARIABLES + tuple(_fleet_report.DIRECT_RESULTS)
        return {name: host_vars[name] for name in names if name in host_vars}

    @staticmethod
    def _node_objects(hostvars, control_plane):
        """The Node objects the verify role read, by name; none when it did not run."""
        if not control_plane or control_plane not in hostvars or NODE_OBJECTS not in hostvars[control_plane]:
            return {}
        return {node['metadata']['name']: node for node in hostvars[control_plane][NODE_OBJECTS] or []}
