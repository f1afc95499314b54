# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a node already is in the state its inputs describe, decided from its snapshot alone.

Internal to kubewin.node, not a public API.

A re-run of ``site.yml`` on a node that nothing changed decides every task from the
snapshot and makes no other remote call, but still walks ~100 task results. The end of
a full run on a node records, on the node (RECORD_PATH), a digest of the run's inputs, a
digest of the credentials the control plane handed it, and a digest of each section of a
fresh snapshot. The next run's snapshot (which always reads the record, see node_info) is
compared with it: the same inputs and the same sections mean the full path would make the
same decisions on the same state, that is, change nothing. site.yml then ends the node's
prerequisites play right after the decision, and the control-plane play leaves the node
out of the node play when the credentials it hands out now have the recorded digest.
Anything else (a changed variable, plan, credential or collection file; a stopped
service; an edited or missing file; another network) takes the full path, which records
again.

The inputs are what the node roles decide from besides the snapshot and the credentials:
the node's share of the plan (``plan_*`` facts), the ``kubewin_*`` inventory variables, the
variables the node roles document in their argument specs, and the collection's own
files. The credentials (``control_plane_credentials``) are only known after the
control-plane play, so they have a digest of their own; neither is stored in the clear.

Left out of the section digests, because they change on a healthy node without the
collection having anything to do: the last boot time, the clock, free disk space and the page files' size (``os``), and
the HNS endpoints and policy lists, which pods and kube-proxy create and delete (the host
endpoint the l2bridge role attaches shows as its ``vEthernet`` adapter, which is compared),
the named pipes csi-proxy serves, which its HostProcess pod opens whenever the kubelet starts it
(a csiproxy service shows in the services section), what the kubelet writes for its graceful shutdown at each start
(PROGRAM_OWNED_FIELDS), and the ids of the HNS networks. flanneld's vxlan network is not persistent and comes back
with a new id after every boot; nothing the node roles decide depends on that id. The
modules find networks by name and compare their type, subnets, adapter and flags
(_hns.py, hns_network, source_vip); hns_endpoint uses a network's id only to tell which
endpoints belong to it, and a network created again has none of the old one's endpoints
(the l2bridge host endpoint's ``vEthernet`` adapter goes with it, which is compared).
kube-proxy follows a new id by itself: winkernel's syncProxyRules finds its network by name
and, when the id changed, drops its policies and programs them again in the new network
(kubernetes pkg/proxy/winkernel/proxier.go).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os

from ansible_collections.kubewin.node.plugins.plugin_utils import _activity, _preflight, _roles, _snapshot

RECORD_FOLDER = 'C:\\ProgramData\\kubewin'
RECORD_PATH = RECORD_FOLDER + '\\converged.json'
RECORD_VERSION = 1
COLLECTION_ROOT = _roles.COLLECTION_ROOT
# The roles site.yml runs on a Windows node; their documented options are inputs.
NODE_ROLES = ('prerequisites', 'artifacts', 'container_runtime', 'kubernetes_binaries', 'kubelet', 'join',
              'network_l2bridge', 'network_overlay', 'network_ovn', 'flannel', 'kube_proxy', 'log_rotation', 'upgrade',
              'gmsa', 'csi_proxy', 'monitoring')
INPUT_PREFIXES = ('plan_', 'kubewin_')
CREDENTIALS = 'control_plane_credentials'
# What the prerequisites role registers the decision of its snapshot task as.
DECISION = 'prerequisites_converged'
# The snapshot fact itself and what the modules did this run (the fleet report's) are not inputs, nor are the
# variables only the playbooks read (where reports go, batch sizes, this decision's switch, the controller's
# kubeconfig): a node is as converged with another report folder.
NOT_INPUTS = (_snapshot.FACT, _activity.FACT) + _preflight.PLAYBOOK_VARIABLES
# Fields that change on a healthy node, per section (see the module docstring); a page file Windows manages grows
# with the commit charge, and the commit limit with it.
VOLATILE = {'os': ('last_boot', 'system_drive_free_bytes', 'now', 'page_files_kb', 'commit_limit_kb'),
            'hns': ('endpoints', 'policy_lists'),
            'csi_proxy': ('pipes',)}
# Fields of each item of a section's list that change on a healthy node (see the module docstring).
VOLATILE_ITEM_FIELDS = {'hns': {'networks': ('id',)}}
# Fields of each entry of a keyed section that a program owns: what the kubelet writes at each start for its graceful
# shutdown (its service's pre-shutdown time-out, its place in the pre-shutdown order; kubelet role), whenever its
# shutdown manager gets to it after the service reports Running. No node role decides from them (node_service compares
# the service's configuration), the doctor reads them (graceful-shutdown-not-registered), and a run could not bring
# them back but by restarting the kubelet.
PROGRAM_OWNED_FIELDS = {'services': ('preshutdown_timeout_ms', 'preshutdown_ordered')}
# Sections reported as lists whose order means nothing; sorted before hashing.
UNORDERED = {'adapters': (), 'routes': (), 'hns': ('networks',)}
# The collection files that make up its behaviour on a node.
COLLECTION_DIRS = ('plugins', 'roles', 'playbooks')


def _digest(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(',', ':'), default=str)
                          .encode('utf-8')).hexdigest()


@functools.lru_cache(maxsize=None)
def role_options():
    """The option names of the node roles' argument specs."""
    return frozenset().union(*(_roles.role_options(role) for role in NODE_ROLES))


@functools.lru_cache(maxsize=None)
def collection_fingerprint():
    """One digest of the collection's plugins, roles and playbooks: a changed template or script is a new input."""
    digest = hashlib.sha256()
    for top in COLLECTION_DIRS:
        for folder, subfolders, files in sorted(os.walk(os.path.join(COLLECTION_ROOT, top))):
            subfolders[:] = sorted(d for d in subfolders if d != '__pycache__')
            for name in sorted(files):
                if name.endswith(('.pyc', '.pyo')):
                    continue
                path = os.path.join(folder, name)
                digest.update(os.path.relpath(path, COLLECTION_ROOT).encode('utf-8') + b'\0')
                with open(path, 'rb') as handle:
                    digest.update(hashlib.sha256(handle.read()).digest())
    return digest.hexdigest()


def input_names(names):
    """Of the variable ``names`` a task sees, those that are inputs of the node roles."""
    options = role_options()
    return sorted(name for name in names if name not in NOT_INPUTS and (
        name.startswith(INPUT_PREFIXES) or name in options))


def inputs_digest(variables):
    """The digest of the inputs, given their (templated) values by name."""
    return _digest({'collection': collection_fingerprint(), 'variables': variables})


# What only a join uses: the bootstrap token, which the control-plane play replaces before it expires
# (control_plane_token_min_remaining), and the bootstrap kubeconfig made of it. A node that joined has its own
# kubeconfig, which its snapshot holds; kubeadm itself removes the bootstrap kubeconfig once the kubelet has its own
# (kubernetes/kubernetes, cmd/kubeadm/app/cmd/phases/join/kubelet.go). A new token alone therefore does not make a
# converged node take the node play.
JOIN_ONLY_CREDENTIALS = ('token', 'bootstrap_kubeconfig')


def credentials_digest(credentials):
    """The digest of the credentials the control-plane play hands a node (an empty dict when it hands none), but
    those only a join uses."""
    return _digest({key: value for key, value in (credentials or {}).items() if key not in JOIN_ONLY_CREDENTIALS})


def _is_record(path):
    return path.lower() == RECORD_PATH.lower()


def section_view(snapshot, section):
    """What of a snapshot section is compared: all of it but its volatile fields and the record itself."""
    value = snapshot.get(section)
    if section in ('files', 'contents'):
        value = {path: entry for path, entry in (value or {}).items() if not _is_record(path)}
    if isinstance(value, dict) and section in VOLATILE:
        value = {key: item for key, item in value.items() if key not in VOLATILE[section]}
    if section in PROGRAM_OWNED_FIELDS:
        value = {name: {field: item for field, item in entry.items() if field not in PROGRAM_OWNED_FIELDS[section]}
                 if isinstance(entry, dict) else entry for name, entry in (value or {}).items()}
    for key, fields in VOLATILE_ITEM_FIELDS.get(section, {}).items():
        value = dict(value or {}, **{key: [{field: item for field, item in entry.items() if field not in fields}
                                           for entry in (value or {}).get(key) or []]})
    if section in UNORDERED:
        if UNORDERED[section]:
            value = dict(value or {}, **{key: sorted((value or {}).get(key) or [], key=_digest)
                                         for key in UNORDERED[section]})
        else:
            value = sorted(value or [], key=_digest)
    if section == 'features':
        value = {'features': value, 'reboot_pending': snapshot.get('reboot_pending', False)}
    return value


# The folders section lists names only to tell modules which files are not there; it changes on a healthy node (a log
# file, the record itself) and is no part of what a converged node must keep.
NOT_STATE = ('folders',)


def section_digests(snapshot):
    return {section: _digest(section_view(snapshot, section)) for section in _snapshot.SECTIONS
            if section not in NOT_STATE}


def record_text(snapshot, inputs, credentials):
    """The record of a converged node: the digests of its inputs and credentials, and of each snapshot section."""
    return json.dumps({'version': RECORD_VERSION, 'inputs': inputs, 'credentials': credentials,
                       'sections': section_digests(snapshot)}, indent=1, sort_keys=True) + '\n'


def read_record(snapshot):
    """The node's record as the snapshot read it, or None (absent, unreadable or of another version)."""
    entry = ((snapshot or {}).get('contents') or {}).get(RECORD_PATH) or {}
    try:
        record = json.loads(entry.get('text') or '')
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get('version') != RECORD_VERSION:
        return None
    return record


def decide(snapshot, inputs, now=None):
    """``(converged, reasons, credentials)``: converged when the snapshot is fresh and matches the record of the
    same inputs; ``credentials`` is the recorded credentials digest (None without a record)."""
    if snapshot is None:
        return False, ['there is no node state snapshot (a run limited by tags may skip the one that takes it)'], None
    if not _snapshot.covers(snapshot, _snapshot.SECTIONS, {'contents': [RECORD_PATH]}, now=now):
        return False, ['the snapshot is incomplete or older than its max_age'], None
    record = read_record(snapshot)
    if record is None:
        return False, ['the node has no convergence record (%s)' % RECORD_PATH], None
    reasons = []
    if record.get('inputs') != inputs:
        reasons.append('the plan, the role variables or the collection changed since the record')
    recorded = record.get('sections') or {}
    changed = [section for section, digest in section_digests(snapshot).items() if recorded.get(section) != digest]
    if changed:
        reasons.append('the node changed since the record: %s' % ', '.join(changed))
    return not reasons, reasons, record.get('credentials')


def ended_early(decisions):
    """Of ``{host: the result of its decision}``, the hosts found converged (whatever their credentials)."""
    return sorted(host for host, decision in decisions.items() if decision.get('converged'))


def decision(snapshot, variables, template, enabled=True, now=None):
    """The decision as kubewin.node.node_converged and kubewin.node.node_info (decide=true) return it, for the
    variables a task sees (``template`` renders one of them)."""
    inputs = inputs_digest({name: template(variables[name]) for name in input_names(variables)})
    converged, reasons, credentials = decide(snapshot, inputs, now=now)
    if not enabled:
        converged, reasons = False, reasons + ['the decision is turned off (kubewin_early_end=false)']
    return {'converged': converged, 'reasons': reasons, 'inputs': inputs, 'credentials': credentials,
            'path': RECORD_PATH}


def early_end(hostvars, groups):
    """``{'hosts': the Windows nodes whose decision found them converged, 'fleet': whether every Windows node did}``;
    a node without a decision (its snapshot failed, --limit left it out) did not."""
    nodes = list((groups or {}).get('windows_nodes') or [])
    hosts = ended_early({host: dict(hostvars[host].get(DECISION) or {}) for host in nodes if host in hostvars})
    return {'hosts': hosts, 'fleet': bool(nodes) and len(hosts) == len(nodes)}


def converged_hosts(decisions, credentials):
    """Of ``{host: the result of its decision}``, the hosts that are converged and were recorded with ``credentials``."""
    wanted = credentials_digest(credentials)
    return sorted(host for host, decision in decisions.items()
                  if decision.get('converged') and decision.get('credentials') == wanted)
