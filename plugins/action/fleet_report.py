# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.fleet_report: the table of the Windows nodes at the end of a run; on the controller only."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.kubewin.node.plugins.plugin_utils import _fleet_decisions, _fleet_report


class ActionModule(ActionBase):

    # Reads the host variables the run left and writes on the controller: no host is contacted.
    _requires_connection = False
    TRANSFERS_FILES = False

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        result = super().run(tmp, task_vars)
        del tmp
        task_vars = task_vars or {}
        try:
            args = self.validate_argument_spec(argument_spec=_fleet_report.ARGUMENT_SPEC)[1]
        except AnsibleActionFail as exc:
            result.update(failed=True, msg=str(exc))
            return result

        groups = task_vars.get('groups') or {}
        # The Windows nodes this run targeted (--limit leaves some out); those Ansible took out of the run
        # after a failure or an unreachable connection are no longer among the play's hosts.
        windows_nodes = groups.get(_fleet_decisions.WINDOWS_GROUP, [])
        targeted = [host for host in task_vars.get('ansible_play_hosts_all') or [] if host in windows_nodes]
        failed = set(targeted) - set(task_vars.get('ansible_play_hosts') or [])
        document = _fleet_report.fleet_document(args, task_vars['hostvars'], groups, targeted, failed,
                                                self._task.check_mode)
        try:
            text, paths = _fleet_report.publish(document, args['dest'])
        except OSError as exc:
            result.update(failed=True, msg='cannot write the fleet report into %s: %s' % (args['dest'], exc))
            return result
        result.update(changed=False, report=document, text=text, paths=paths)
        return result
