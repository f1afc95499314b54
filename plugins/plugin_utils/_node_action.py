# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Base class of every kubewin.node module that manages state on a Windows node.

Internal to kubewin.node, not a public API.

Every module follows one rhythm, implemented once in ``NodeAction.run``:

1. validate the arguments against the module's ``ARGUMENT_SPEC``;
2. read the node state it decides from: from the ``kubewin_node`` snapshot
   when that covers it (no remote call), else with one ``node_info`` call;
3. ``plan``: a pure function of (arguments, state) returning the operations
   to perform; none means ``changed: false``. A plan made from the snapshot
   that wants changes is made again from a fresh query first, so the
   snapshot can only ever save work, never cause it; a snapshot this run took
   and nothing has changed since but kubewin modules is trusted to plan the
   change itself (``_snapshot`` "Trust"), and the query is skipped;
4. in check mode stop here, reporting ``changed`` and ``diff`` exactly as a
   real run would;
5. ``apply`` the operations with one script run, which also returns the node
   state after the change (a change that drops the node's network runs
   detached and is followed by a query); verify that state and fold it back
   into the snapshot.

A run that changed something or made a remote call adds an entry to the
host's activity fact (``_activity``), which the fleet report reads.

A subclass sets ``ARGUMENT_SPEC`` and ``SECTIONS`` and implements ``plan``,
``apply`` and, where useful, ``scope``, ``validate``, ``report``,
``check_applied`` and ``side_effects``.
"""

from __future__ import annotations

import json
import uuid

from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure
from ansible.plugins.action import ActionBase

from ansible_collections.kubewin.node.plugins.plugin_utils import (
    _activity, _contracts, _pwsh, _reconnect, _snapshot, _windows)


class NodeActionError(Exception):
    """A failure the module explains to the user; ``details`` go into the result."""

    def __init__(self, message, **details):
        self.details = details
        super().__init__(message)


class Plan:
    """What a module would do: operations, the diff to show, and whether it drops the network."""

    def __init__(self, operations=(), before=None, after=None, disruptive=False, notes=(), text_diff=None):
        self.operations = list(operations)
        self.before = before
        self.after = after
        self.disruptive = disruptive
        self.notes = list(notes)
        # A file's diff: {'before', 'after', 'before_header', 'after_header'} as text.
        self.text_diff = text_diff

    @classmethod
    def presence(cls, before, after, present):
        """The plan of a single object that is there or not (a firewall rule, a scheduled task).

        ``before`` is its settings now ({} when it is not there), ``after`` the wanted settings; with ``present``
        false it is removed if there, otherwise created, updated or left as it is.
        """
        if not present:
            return cls([{'op': 'remove'}] if before else [], before=before, after={})
        if before == after:
            return cls(before=before, after=after)
        return cls([{'op': 'update' if before else 'create'}], before=before, after=after)

    @property
    def changed(self):
        return bool(self.operations)

    def diff(self):
        if self.text_diff is not None:
            return self.text_diff
        return {'before': self.before if self.before is not None else {},
                'after': self.after if self.after is not None else {}}


class NodeAction(ActionBase):
    """Validate -> query -> plan -> (check mode stops) -> apply -> verify."""

    ARGUMENT_SPEC = {}
    ARGSPEC_OPTIONS = {}
    SECTIONS = ()

    # -- hooks for subclasses -------------------------------------------------

    def scope(self, args, live=False):
        """Names this call asks about in keyed sections (_snapshot.KEYED_SECTIONS), e.g. {'services': ['kubelet']}.

        ``live`` is true for a query of the node itself (not the snapshot): a
        module can ask for more there, e.g. a file's text for a diff.
        """
        return {}

    def live_sections(self, args):
        """Sections a query of the node reads; by default the ones the module decides from."""
        return self.SECTIONS

    def validate(self, args):
        """Checks beyond the argument spec; raise NodeActionError."""

    def plan(self, args, state):
        """Pure: return a Plan for these arguments and this node state."""
        raise NotImplementedError

    def apply(self, args, plan, state):
        """Perform plan.operations on the node; return result data.

        Apply scripts return the node state after the change; put it under the
        key ``state`` and it is used for verification instead of a new query.
        """
        raise NotImplementedError

    def report(self, args, state, plan):
        """Result data describing the managed object (as it is, or would be in check mode)."""
        return {}

    def check_applied(self, args, plan, state):
        """Raise NodeActionError when the freshly queried state does not show the change."""

    def side_effects(self, args, plan):
        """What an applied ``plan`` may change on the node beyond the state its apply returns (section -> names, or
        folders ending in a backslash, or ``_snapshot.EVERYTHING``): the snapshot no longer trusts it. Without a
        narrower answer from the module, anything."""
        return {section: [_snapshot.EVERYTHING] for section in _snapshot.SECTIONS}

    def written_folders(self, args, plan):
        """The folders (ending in a backslash) where an applied ``plan`` writes files its apply does not re-read: the
        snapshot forgets what it held there before the apply's own read is folded in (``_snapshot.forget``), and
        does not trust them (a module's ``side_effects`` include ``_snapshot.written_under`` of them)."""
        return []

    def resource(self, args):
        """What this call manages, as the fleet report names it (a service, a file, a network...)."""
        return args.get('name') or args.get('path') or args.get('dest') or ''

    # -- helpers ----------------------------------------------------------------

    def run_script(self, name, parameters=None, secrets=None):
        self.count_remote_call()
        return _pwsh.run_script(self, name, parameters, self._task_vars, secrets=secrets)

    def count_remote_call(self):
        """Account one round trip to the node (a script run, a file copy) in the activity fact."""
        self._remote_calls += 1

    def query(self, args, sections=None, scope=None):
        """Read the node with one node_info call limited to what this module needs (or to ``sections`` and
        ``scope``)."""
        sections = list(sections or self.live_sections(args))
        scope = scope if scope is not None else self.scope(args, live=True)
        parameters = {'Sections': sections}
        for section, parameter in _snapshot.KEYED_SECTIONS.items():
            if section in sections:
                parameters[parameter] = list(scope.get(section) or [])
        return self.remember(self.run_script('node_info', parameters))

    def query_after_change(self, args, plan):
        """The node state after an apply that returned none (a detached change): by default a query."""
        return self.query(args)

    def retake(self, args):
        """Read again, in one call, everything the snapshot holds (its sections and names) and what this module
        reads: after a change that may have moved anything (a vSwitch created detached), the snapshot is whole again
        and trusted as node_info's is."""
        snapshot = _snapshot.from_task_vars(self._task_vars) or {}
        held = set(snapshot.get('collected_at') or {}) | set(self.live_sections(args))
        sections = [section for section in _snapshot.SECTIONS if section in held]
        own = self.scope(args, live=True)
        scope = {section: sorted(set(own.get(section) or []) | set(snapshot.get(section) or {}))
                 for section in _snapshot.KEYED_SECTIONS}
        self._retaken = True
        return self.query(args, sections, scope)

    def remember(self, state):
        """Keep a freshly read node state: it is what the snapshot fact gets updated with."""
        if state.get('os'):
            state['os'].update(_windows.describe_build(state['os']['build']))
        self._fresh_state = state
        return state

    def read_state(self, args):
        snapshot = _snapshot.from_task_vars(self._task_vars)
        if _snapshot.covers(snapshot, self.SECTIONS, self.scope(args)):
            return _snapshot.extract(snapshot, self.SECTIONS, self.scope(args)), True
        return self.query(args), False

    def snapshot_trusted(self, args):
        """Whether the snapshot may plan this module's change without a query first. Not after a rescued failure:
        Ansible dropped the failed task's facts, so the snapshot does not know what it changed. Nor with --diff: a
        diff shows what only the live query reads (a file's text)."""
        if 'ansible_failed_result' in self._task_vars or self._task.diff:
            return False
        return _snapshot.trusted(_snapshot.from_task_vars(self._task_vars), _snapshot.run_id(), self.SECTIONS,
                                 self.scope(args))

    def run_detached(self, worker, arguments, timeout, what):
        """Run ``worker`` detached on the node and wait for it to report, through a network drop.

        Returns the worker's result document. Raises NodeActionError when the
        node does not come back within ``timeout`` seconds or the worker failed.
        """
        operation_id = uuid.uuid4().hex
        try:
            self.run_script('detached_start', {
                'OperationId': operation_id,
                'WorkerScript': _pwsh.load_script(worker),
                'ArgumentsJson': json.dumps(arguments, sort_keys=True),
            })
        except AnsibleConnectionFailure:
            # The worker can drop the network before this call returns; the
            # status probe below tells whether it ran.
            pass

        def probe():
            status = self.run_script('detached_status', {'OperationId': operation_id})
            return status if status.get('state') in ('done', 'failed', 'unknown') else None

        try:
            status = _reconnect.wait_for(probe, timeout, reset=self._connection.reset)
        except _reconnect.NodeDidNotReturn as exc:
            raise NodeActionError(
                'The node did not come back within %d s after %s (%s). Creating the first vSwitch on an '
                'adapter drops the node\'s network for seconds; when it never returns, check that MAC address '
                'spoofing is allowed on the VM\'s network adapter, that the adapter name is the management '
                'adapter, and that the static IPv4 configuration survived (on the console: Get-NetIPAddress '
                '-InterfaceAlias "vEthernet (<adapter>)"). The worker log is '
                'C:\\ProgramData\\kubewin\\operations\\%s.log on the node.' % (timeout, what, exc, operation_id),
                operation_id=operation_id, reason='node_did_not_return')
        if status['state'] == 'unknown':
            raise NodeActionError('The worker for %s did not run or left no result on the node (operation %s).'
                                  % (what, operation_id), operation_id=operation_id, reason='worker_vanished')
        # detached_status checked the outcome's common keys; the worker's contract says the rest.
        outcome = _contracts.check(worker, status['result']) if status.get('result') is not None else {}
        if status['state'] == 'failed':
            raise NodeActionError('%s failed on the node: %s' % (what, outcome.get('error')),
                                  operation_id=operation_id, reason='worker_failed', worker_result=outcome)
        return outcome

    # -- the rhythm ---------------------------------------------------------------

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        self._supports_async = False
        result = super().run(tmp, task_vars)
        del tmp
        self._task_vars = task_vars or {}
        self._fresh_state = None
        self._effects = None
        self._written = []
        self._retaken = False
        self._remote_calls = 0
        try:
            args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC, **self.ARGSPEC_OPTIONS)[1]
        except AnsibleActionFail as exc:
            result.update(failed=True, msg=str(exc))
            return result

        try:
            self.validate(args)
            state, from_snapshot = self.read_state(args)
            plan = self.plan(args, state)
            if plan.changed and from_snapshot and not self.snapshot_trusted(args):
                state = self.query(args)
                plan = self.plan(args, state)
            result['changed'] = plan.changed
            if plan.notes:
                result['notes'] = plan.notes
            if self._task.diff and plan.changed:
                result['diff'] = plan.diff()
            if plan.changed and not self._task.check_mode:
                self._effects = self.side_effects(args, plan)
                self._written = self.written_folders(args, plan)
                applied = self.apply(args, plan, state) or {}
                fresh = applied.pop('state', None)
                result.update(applied)
                state = self.remember(fresh) if fresh is not None else self.query_after_change(args, plan)
                self.check_applied(args, plan, state)
            result.update(self.report(args, state, plan))
        except NodeActionError as exc:
            result.update(exc.details)
            result.update(failed=True, msg=str(exc))
        except _pwsh.ScriptError as exc:
            result.update(failed=True, msg=str(exc), error_record=exc.error_record)
        if result.get('failed'):
            return result  # Ansible drops the facts of a failed task
        facts = result.setdefault('ansible_facts', {})
        if self._fresh_state is not None:
            snapshot = _snapshot.merge(_snapshot.forget(_snapshot.from_task_vars(self._task_vars), self._written),
                                       self._fresh_state)
            if self._retaken:
                facts[_snapshot.FACT] = _snapshot.trust(snapshot, _snapshot.run_id(), self._task_vars.get('plan_paths'))
            else:
                facts[_snapshot.FACT] = _snapshot.distrust(snapshot, self._effects)
        activity = _activity.record(self._task_vars, self._task._uuid, self._task.action.rpartition('.')[2],
                                    self.resource(args), result.get('changed'), self._remote_calls)
        if activity is not None:
            facts[_activity.FACT] = activity
        if not facts:
            del result['ansible_facts']
        return result
