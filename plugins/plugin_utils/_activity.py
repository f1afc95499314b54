# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kubewin.node modules did to a node during a run, kept in one fact for the fleet report.

Internal to kubewin.node, not a public API.

Every module that touches a node (``_node_action.NodeAction``) appends one entry to the fact
``kubewin_activity`` of its host: which module, on which resource, whether it changed (or, in
check mode, would change) it, and how many remote calls it cost (script runs and file copies).
A module that decided from the snapshot and changed nothing costs no call and adds no entry, so
an unchanged node's activity is its one snapshot.

The fact is returned as ``ansible_facts`` with each module result, so it accumulates over the plays
of a run and is lost with the result of a failed task (as the snapshot is). With a persistent fact
cache it outlives the run: each entry carries the controller's time, and the report counts only the
entries since its run started. The list is capped so a cache cannot grow it without bound.

It is not an input of the convergence decision (``_converged.NOT_INPUTS``): what a run did must not
make the next run take the full path.
"""

from __future__ import annotations

import time

FACT = 'kubewin_activity'
# A converging run adds a few dozen entries per node; the cap only matters with a persistent fact cache.
MAX_ENTRIES = 500

# The items of a loop run one after another in one worker process, each with the facts the task started
# with, and Ansible applies each item's facts in turn, so the last item's list would drop the earlier items'
# entries: they are carried here, by host and task, for the items after them (ansible-core's
# executor/task_executor.py _run_loop and plugins/strategy/__init__.py _process_pending_results).
_LOOP_CARRY = {}


def from_task_vars(task_vars):
    """The activity fact of the current host: a list of entries (empty when there is none)."""
    facts = (task_vars or {}).get('ansible_facts') or {}
    entries = facts.get(FACT)
    return list(entries) if isinstance(entries, list) else []


def add(entries, module, resource, changed, calls, now=None, task=None):
    """``entries`` with one more for a module run; unchanged when it cost nothing and changed nothing. ``task``
    names the task (the items of a loop share it), so a report can count changed tasks as the play recap does."""
    if not changed and not calls:
        return list(entries)
    entry = {'at': round(time.time() if now is None else now, 3), 'module': module, 'resource': resource or '',
             'changed': bool(changed), 'calls': int(calls), 'task': task}
    return (list(entries) + [entry])[-MAX_ENTRIES:]


def record(task_vars, task_id, module, resource, changed, calls, now=None):
    """The host's activity fact after a module run; None when the run adds nothing to it."""
    if not changed and not calls:
        return None
    looping = bool(task_vars.get('ansible_loop_var'))
    carried = _LOOP_CARRY.setdefault((task_vars.get('inventory_hostname'), task_id), []) if looping else []
    entries = add(from_task_vars(task_vars) + carried, module, resource, changed, calls, now=now, task=task_id)
    if looping:
        carried.append(entries[-1])
    return entries


def since(entries, started):
    """The entries of the run that started at ``started`` (controller time; None: all of them)."""
    if started is None:
        return list(entries or [])
    return [entry for entry in entries or [] if entry.get('at', 0) >= started]
