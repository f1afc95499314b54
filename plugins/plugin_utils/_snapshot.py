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

**Trust.** A snapshot that ``node_info`` took in this run (``run_id``) is also
trusted to plan a change without the query before it, for the sections and
keys nothing has changed since but the kubewin modules that folded their
result back (``TRUST``). A module's apply distrusts what it may change beyond
what it re-reads (``NodeAction.side_effects``); a program the node runs keeps
changing what ``PROGRAM_EFFECTS`` says, from the moment it starts, so that
part is never trusted while it runs. A snapshot from another run (a fact
cache), a run whose controller cannot name itself, and the tasks after a
rescued failure (whose facts Ansible dropped) get no trust: they query first
as before.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Mapping

FACT = 'kubewin_node'
SECTIONS = ('os', 'features', 'adapters', 'routes', 'hns', 'services', 'files', 'artifacts', 'contents',
            'environment', 'firewall', 'ovs', 'credentials', 'scheduled_tasks', 'registry', 'remote_access', 'gmsa',
            'csi_proxy', 'folders', 'ports', 'defender')
# Sections whose content is a mapping keyed by the names the query asked for, and the
# node_info script parameter that carries those names.
KEYED_SECTIONS = {'features': 'Features', 'services': 'Services', 'files': 'Files', 'contents': 'Contents',
                  'environment': 'Environment', 'firewall': 'FirewallRules', 'credentials': 'Credentials',
                  'registry': 'RegistryKeys', 'folders': 'Folders'}
# Names a read answers without listing them, because it lists every one that exists (lib/state.ps1): a file under a
# folder the folders section lists (the node layout's) whose entry on the way to it is not among the folder's names,
# or under a missing folder; and a firewall rule named kubewin-* (node_info lists every rule of the collection). A
# module asking for one of them plans from the snapshot.
MANAGED_RULE_PREFIX = 'kubewin-'
DEFAULT_MAX_AGE = 900
TRUST = 'trusted'
# A keyed section's distrusted names: a name, or a folder (ending in a backslash) for every path under it. '*' is the
# whole section.
EVERYTHING = '*'
# The keyed sections that hold what is known of files, by path or pattern.
FILE_SECTIONS = ('files', 'contents', 'credentials')

# What a program the collection runs as a service keeps changing on the node while it runs, by service name (the
# names node_info reads by default). Any other service is taken to change anything. Paths are the defaults of the
# node layout (plugin_utils/_node_plan.py NODE_PATHS; a moved one is taken from the host's plan_paths, LAYOUT_FOLDERS)
# and of the programs.
_NETWORK = {'hns': [EVERYTHING], 'routes': [EVERYTHING], 'adapters': [EVERYTHING]}
PROGRAM_EFFECTS = {
    # Its root and state folders (containerd's defaults_windows.go); it runs no CNI but for the kubelet's pods.
    'containerd': {'files': ['C:\\ProgramData\\containerd\\']},
    # Docker creates its nat HNS network when it starts (moby daemon_windows.go) and keeps its data root.
    'docker': dict(_NETWORK, files=['C:\\ProgramData\\docker\\']),
    'cri-dockerd': {'hns': [EVERYTHING]},
    # The kubelet's pods get HNS endpoints through the CNI; HostProcess pods (calico-node-windows, a flannel or
    # kube-proxy DaemonSet, csi-proxy) change the host's network and csi-proxy's pipes; the kubelet rotates its
    # certificates and keeps its state under its root directory. At each start it also writes its own service's
    # pre-shutdown time-out and its place in the pre-shutdown order (graceful shutdown; kubelet_shutdown.py in the
    # simulation): fields of its services entry that no module plans from (node_service compares the configuration)
    # and that _converged.PROGRAM_OWNED_FIELDS leaves out of the record, so its services entry stays trusted.
    'kubelet': dict(_NETWORK, csi_proxy=[EVERYTHING], ovs=[EVERYTHING], files=['C:\\var\\lib\\kubelet\\'],
                    contents=['C:\\var\\lib\\kubelet\\'], credentials=['C:\\var\\lib\\kubelet\\']),
    # kube-proxy's winkernel proxier programs HNS load balancers and remote endpoints (pkg/proxy/winkernel).
    'kube-proxy': {'hns': [EVERYTHING]},
    # flanneld creates the HNS network (and, first on an adapter, its vSwitch), adds routes for host-gw and remote
    # endpoints for vxlan, and writes its subnet file (flannel pkg/backend/*_windows.go, --subnet-file).
    'flanneld': dict(_NETWORK, files=['C:\\run\\flannel\\'], contents=['C:\\run\\flannel\\']),
    'ovs-vswitchd': dict(_NETWORK, ovs=[EVERYTHING]),
    'ovsdb-server': {'ovs': [EVERYTHING]},
    'ovn-controller': dict(_NETWORK, ovs=[EVERYTHING]),
    'csiproxy': {'csi_proxy': [EVERYTHING]},
    # windows_exporter serves metrics it reads (performance counters, WMI, HCS for the container collector) and
    # writes nothing the snapshot reads; it logs to the event log as a service (cmd/windows_exporter/main.go).
    'windows_exporter': {},
}
# The folders of PROGRAM_EFFECTS that kubewin_node_paths may move, by their key in plan_paths.
LAYOUT_FOLDERS = {'C:\\var\\lib\\kubelet\\': 'kubelet_dir', 'C:\\run\\flannel\\': 'flannel_run_dir'}


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
        held = snapshot.get(section) or {}
        if section in KEYED_SECTIONS and not all(name in held or _implied_absent(snapshot, section, name, now)
                                                 for name in scope.get(section) or []):
            return False
    return True


def _implied_absent(snapshot, section, name, now=None):
    """Whether a read of ``section`` that did not list ``name`` says it is not there (see MANAGED_RULE_PREFIX)."""
    held = snapshot.get(section) or {}
    if name.lower() in (key.lower() for key in held):
        return False
    if section == 'firewall':
        return name.lower().startswith(MANAGED_RULE_PREFIX)
    if section == 'files' and covers(snapshot, ('folders',), {}, now):
        for folder, names in (snapshot.get('folders') or {}).items():
            folder = folder.rstrip('\\') + '\\'
            if _under(name, [folder]):
                # Missing, or without the entry on the way to the file (the file itself, or its folder below).
                entry = name[len(folder):].partition('\\')[0].lower()
                if names is None or entry not in (listed.lower() for listed in names):
                    return True
    return False


def _absent(section, name):
    return {'name': name, 'exists': False} if section == 'firewall' else {'exists': False}


def extract(snapshot, sections, scope):
    """The part of the snapshot a module asked for, shaped like a fresh query."""
    state = {'sections': list(sections)}
    for section in sections:
        value = snapshot.get(section)
        if section in KEYED_SECTIONS:
            value = {name: value[name] if name in (value or {}) else _absent(section, name)
                     for name in scope.get(section) or []}
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


def run_id():
    """This run's name: the controller process that forked the task's worker (Ansible runs each task in a fork of
    ansible-playbook), by boot, process ID and start time, so a restarted controller with the same process ID (a
    fresh AWX container) is another run. None where the controller cannot tell (no /proc): no snapshot is trusted."""
    parent = os.getppid()
    try:
        with open('/proc/sys/kernel/random/boot_id', encoding='ascii') as handle:
            boot = handle.read().strip()
        with open('/proc/%d/stat' % parent, encoding='ascii', errors='replace') as handle:
            # The 22nd field, after the command in parentheses (which may hold spaces), is the start time.
            started = handle.read().rpartition(')')[2].split()[19]
    except (OSError, IndexError):
        return None
    return '%s:%d:%s' % (boot, parent, started)


def program_effects(name, paths=None):
    """What the program of service ``name`` keeps changing while it runs (section -> names or folders), its folders
    where the host's ``paths`` (plan_paths) put them."""
    effects = PROGRAM_EFFECTS.get(name.lower(), {section: [EVERYTHING] for section in SECTIONS})
    moved = {}
    for default, key in LAYOUT_FOLDERS.items():
        folder = (paths or {}).get(key) if isinstance(paths, Mapping) else None
        if isinstance(folder, str) and folder:
            moved[default] = folder.rstrip('\\') + '\\'
    return {section: [moved.get(entry, entry) for entry in names] for section, names in effects.items()}


def running_effects(services, paths=None):
    """What the running services of a node state's services section keep changing."""
    effects = {}
    for name, service in (services or {}).items():
        if (service or {}).get('state') == 'running':
            effects = combine(effects, program_effects(name, paths))
    return effects


def folders(paths):
    """The folders of Windows ``paths``, as distrust names (ending in a backslash)."""
    return sorted({path.rpartition('\\')[0] + '\\' for path in paths})


def rewritten(paths):
    """What an apply that wrote files ``paths`` and re-read their state (hash, ACL) leaves unknown: their text, and
    the credential patterns of their folders that may match them."""
    return {'contents': list(paths), 'credentials': folders(paths)}


def written_under(written):
    """What an apply that wrote files it does not re-read, in the folders ``written``, leaves unknown."""
    return {section: list(written) for section in FILE_SECTIONS}


def forget(snapshot, written):
    """``snapshot`` without what it held of the folders ``written`` (ending in a backslash), where an apply wrote
    files it does not re-read: their files' states, texts and credential patterns, and the listings of those folders,
    of the folders under them and of the folders on the way to them. What it held there is stale, also for skipping
    work: a module asking about such a file reads the node (or the apply's own fresh read, folded in after this)."""
    if not snapshot or not written:
        return snapshot
    snapshot = dict(snapshot)
    for section in FILE_SECTIONS:
        if snapshot.get(section):
            snapshot[section] = {name: value for name, value in snapshot[section].items() if not _under(name, written)}
    if snapshot.get('folders'):
        snapshot['folders'] = {folder: names for folder, names in snapshot['folders'].items()
                               if not _under(folder.rstrip('\\') + '\\', written)
                               and not any(_under(path, [folder.rstrip('\\') + '\\']) for path in written)}
    return snapshot


def combine(first, second):
    """Two distrust maps (section -> names or folders) as one."""
    combined = {section: list(names) for section, names in first.items()}
    for section, names in second.items():
        combined[section] = sorted(set(combined.get(section, [])) | set(names))
    return combined


def trusted(snapshot, run, sections, scope):
    """True when ``snapshot`` may plan a change without a query first: it was taken in run ``run`` (not None) and
    nothing it holds of ``sections`` and ``scope`` has changed since but by modules that folded their result in."""
    trust = (snapshot or {}).get(TRUST) or {}
    if run is None or trust.get('run') != run:
        return False
    distrusted = trust.get('distrusted') or {}
    for section in sections:
        if section not in trust.get('sections', ()):
            return False
        names = distrusted.get(section) or []
        if EVERYTHING in names:
            return False
        keys = scope.get(section) or []
        if section in KEYED_SECTIONS and any(_under(key, names) for key in keys):
            return False
        # A file the snapshot knows absent from its folder's absence needs that read trusted too.
        if (section == 'files' and any(key not in (snapshot.get('files') or {}) for key in keys)
                and not trusted(snapshot, run, ('folders',), {})):
            return False
    return True


def _under(key, names):
    key = key.lower()
    return any(key == name.lower() or (name.endswith('\\') and key.startswith(name.lower())) for name in names)


def trust(snapshot, run, paths=None):
    """``snapshot`` (a whole read of the node) trusted in run ``run`` for what it read, but what its running services
    keep changing (their folders where the host's ``paths`` put them); nothing when ``run`` is None."""
    snapshot = {key: value for key, value in snapshot.items() if key != TRUST}
    if run is not None:
        snapshot[TRUST] = {'run': run, 'sections': sorted(section for section in SECTIONS if section in snapshot.get(
            'collected_at', {})), 'distrusted': running_effects(snapshot.get('services'), paths)}
    return snapshot


def distrust(snapshot, effects):
    """``snapshot`` with ``effects`` (section -> names or folders) no longer trusted."""
    if effects and (snapshot or {}).get(TRUST):
        trusted_part = dict(snapshot[TRUST], distrusted=combine(snapshot[TRUST].get('distrusted') or {}, effects))
        snapshot = dict(snapshot, **{TRUST: trusted_part})
    return snapshot
