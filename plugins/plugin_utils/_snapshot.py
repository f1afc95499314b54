# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node state snapshot that lets an unchanged node cost one remote call per play.

Internal to kubewin.node, not a public API.

``kubewin.node.node_info`` reads a node in one call and returns the result as
the fact ``kubewin_node``. Every other module first looks for the state it
decides from in that fact: a section that is present, covers the items the
module asks about (a service name, a file path, a feature) and has not expired
serves the query without a remote call. The snapshot is trusted only to skip
work: when it says something must change, the module queries the node again
before planning what to do. A module that changes the node returns the slices
it re-read while verifying, so the fact stays current for later tasks.

Ansible discards the facts of a failed task, so a failure cannot update the
snapshot; a failed host leaves the play and the next run takes a new snapshot.
Anything that changes the node outside this collection (a reboot, a raw
script) should be followed by ``kubewin.node.node_info`` to take a new one.
"""

from __future__ import annotations

import copy
import time

FACT = 'kubewin_node'
SECTIONS = ('os', 'features', 'adapters', 'routes', 'hns', 'services', 'files', 'artifacts', 'contents',
            'environment', 'firewall', 'ovs', 'credentials', 'scheduled_tasks', 'registry', 'remote_access', 'gmsa',
            'csi_proxy')
# Sections whose content is a mapping keyed by the names the query asked for, and the
# node_info script parameter that carries those names.
KEYED_SECTIONS = {'features': 'Features', 'services': 'Services', 'files': 'Files', 'contents': 'Contents',
                  'environment': 'Environment', 'firewall': 'FirewallRules', 'credentials': 'Credentials',
                  'registry': 'RegistryKeys'}
DEFAULT_MAX_AGE = 900


def from_task_vars(task_vars):
    """The snapshot fact of the current host, or None."""
    facts = (task_vars or {}).get('ansible_facts') or {}
    snapshot = facts.get(FACT)
    return snapshot if isinstance(snapshot, dict) else None


def covers(snapshot, sections, scope, now=None):
    """True when the snapshot can answer a query for ``sections`` and ``scope``.

    ``scope`` maps keyed sections to the names asked about, e.g.
    ``{'services': ['kubelet']}``.
    """
    if not snapshot:
        return False
    now = time.time() if now is None else now
    collected = snapshot.get('collected_at') or {}
    max_age = snapshot.get('max_age', DEFAULT_MAX_AGE)
    for section in sections:
        taken = collected.get(section)
        if taken is None or now - taken > max_age:
            return False
        wanted = scope.get(section) or []
        if section in KEYED_SECTIONS and not set(wanted) <= set(snapshot.get(section) or {}):
            return False
    return True


def extract(snapshot, sections, scope):
    """The part of the snapshot a module asked for, shaped like a fresh query."""
    state = {'sections': list(sections)}
    for section in sections:
        value = snapshot.get(section)
        if section in KEYED_SECTIONS:
            value = {name: value[name] for name in scope.get(section) or []}
        state[section] = copy.deepcopy(value)
        if section == 'features':
            state['reboot_pending'] = snapshot.get('reboot_pending', False)
    return state


def merge(snapshot, state, now=None, max_age=None):
    """Return a new snapshot with the sections of a fresh query ``state`` folded in."""
    now = time.time() if now is None else now
    merged = copy.deepcopy(snapshot) if snapshot else {}
    collected = merged.setdefault('collected_at', {})
    if max_age is not None:
        merged['max_age'] = max_age
    merged.setdefault('max_age', DEFAULT_MAX_AGE)
    for section in state.get('sections') or ():
        if section not in SECTIONS:
            continue
        if section in KEYED_SECTIONS:
            merged.setdefault(section, {}).update(copy.deepcopy(state.get(section) or {}))
        else:
            merged[section] = copy.deepcopy(state.get(section))
        if section == 'features':
            merged['reboot_pending'] = state.get('reboot_pending', False)
        collected[section] = now
    return merged
