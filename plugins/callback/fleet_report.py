# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
name: fleet_report
type: aggregate
short_description: Write the fleet report of a run that stopped before its report play
version_added: 0.1.0
description:
  - The playbooks of kubewin.node (C(site.yml), C(reset.yml), C(patch.yml), C(doctor.yml), C(collect_logs.yml)) end
    with a play whose M(kubewin.node.fleet_report) task prints and writes the fleet report. When every host of a
    play (or of a C(serial) batch) fails, or a play's C(max_fail_percentage) (C(kubewin_max_fail_percentage)) is
    exceeded, ansible-core runs no later play, so that task never runs, exactly when the report matters most.
  - This callback writes the same report at the end of such a run (when ansible-core hands the play recap to the
    callbacks, which it does after a stopped run too), from what the run left in the host variables. It acts only
    on a playbook that has a M(kubewin.node.fleet_report) task, and only when that task did not start; it uses the
    task's own arguments (C(playbook), C(dest), C(started), ...), templated as the task would have been, with the
    variables of the first host of its play that did not fail. A run that stopped before any Windows node took
    part (the first play refused the inventory) has no report.
  - In that report, a Windows node with a failed task or an unreachable connection is C(failed), with what it did
    before (its changes and remote calls); one that ended early is C(converged); any other is C(stopped) (it did not
    fail, but the run stopped before its end), and the title says that the run stopped before its end.
  - A collection's callback runs only when enabled. The checkout's C(ansible.cfg) enables it; a project that
    installs the collection adds C(kubewin.node.fleet_report) to C(callbacks_enabled) in the C([defaults]) section
    of its C(ansible.cfg) (an AWX project too), or sets C(ANSIBLE_CALLBACKS_ENABLED). Without it, a run that gets
    to its last play prints and writes the report all the same.
requirements:
  - enable in configuration, see the description
notes:
  - A run interrupted by the user (Ctrl+C) or stopped by an error of Ansible itself sends no play recap, and writes
    no report.
seealso:
  - module: kubewin.node.fleet_report
author:
  - kubewin.node contributors (@kubewin)
'''

from ansible import context
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.playbook.block import Block
from ansible.plugins.callback import CallbackBase
from ansible.template import Templar

from ansible_collections.kubewin.node.plugins.plugin_utils import _fleet_decisions, _fleet_report

REPORT_ACTION = 'kubewin.node.fleet_report'


def _tasks(items):
    """The tasks of a play's task lists, those of blocks included (not those of roles: no report task is in one)."""
    for item in items:
        if isinstance(item, Block):
            yield from _tasks(item.block + item.rescue + item.always)
        else:
            yield item


def _is_report(task):
    """Whether ``task`` runs kubewin.node.fleet_report (by its full name, or a short name the play's collections
    resolve)."""
    action = task.action or ''
    return action == REPORT_ACTION or (action.endswith('fleet_report') and task.resolved_action == REPORT_ACTION)


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'kubewin.node.fleet_report'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._report = None
        self._report_started = False

    def v2_playbook_on_start(self, playbook):
        # ansible-playbook runs each playbook it is given in turn (ansible-core's PlaybookExecutor.run), with a recap
        # each: each has its own report task.
        self._report, self._report_started = None, False
        for play in playbook.get_plays():
            for task in _tasks(play.pre_tasks + play.tasks + play.post_tasks):
                if _is_report(task):
                    self._report = (play, task)

    def v2_playbook_on_task_start(self, task, is_conditional):
        if self._report is not None and _is_report(task):
            self._report_started = True

    def v2_playbook_on_stats(self, stats):
        if self._report is None or self._report_started:
            return
        play, task = self._report
        # Failed: a task failed on the host (not ignored, not rescued) or it was unreachable; the play recap counts
        # them (ansible-core's StrategyBase._process_pending_results). A host that max_fail_percentage took out of the
        # run without failing itself is not counted, and shows as stopped.
        failed = {host for host in stats.processed if stats.failures.get(host) or stats.dark.get(host)}
        try:
            variables = self._report_variables(play, task, failed)
            args = self._arguments(task, variables)
            windows_nodes = variables['groups'].get(_fleet_decisions.WINDOWS_GROUP, [])
            targeted = [host for host in variables['ansible_play_hosts_all'] if host in windows_nodes]
            if not any(host in stats.processed for host in targeted):
                return  # the run stopped before any Windows node took part (a refused plan): nothing to report
            document = _fleet_report.fleet_document(args, variables['hostvars'], variables['groups'], targeted, failed,
                                                    self._check_mode(task), complete=False)
            _fleet_report.publish(document, args['dest'])
        except Exception as exc:  # a callback's error must not hide the run's own
            self._display.warning('kubewin.node.fleet_report: the run stopped before its report play, and the report '
                                  'could not be written: %s' % exc)

    @staticmethod
    def _report_variables(play, task, failed):
        """The variables the report task would have seen on the first host of its play that did not fail."""
        manager = play.get_variable_manager()
        # The hosts of the report play under --limit: the play never started, so they are read from its pattern.
        hosts = manager.get_vars(play=play, task=task, include_hostvars=False)['ansible_play_hosts_all']
        runner = next((host for host in hosts if host not in failed), hosts[0] if hosts else 'localhost')
        # VariableManager has no public accessor of its inventory; the host object is needed for its variables.
        host = manager._inventory.get_host(runner)
        return manager.get_vars(play=play, host=host, task=task, _hosts=hosts, _hosts_all=hosts)

    @staticmethod
    def _arguments(task, variables):
        """The report task's arguments, templated and validated as the module validates them."""
        templated = Templar(loader=task.get_loader(), variables=variables).template(task.args)
        # ansible-core 2.19 drops an argument templated to omit; earlier releases leave the placeholder of the 'omit'
        # variable in its place.
        placeholder = variables.get('omit')
        arguments = {key: value for key, value in templated.items() if placeholder is None or value != placeholder}
        validated = ArgumentSpecValidator(_fleet_report.ARGUMENT_SPEC).validate(arguments)
        if validated.error_messages:
            raise ValueError('; '.join(validated.error_messages))
        return validated.validated_parameters

    @staticmethod
    def _check_mode(task):
        """Whether the run was a check run: the task's own check_mode, else --check."""
        return task.check_mode if isinstance(task.check_mode, bool) else bool(context.CLIARGS.get('check'))
