# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.node_info: one remote call that reads what the other modules decide from."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _converged, _credentials, _node_plan, _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, Plan

# Services the collection installs or depends on, on any topology.
DEFAULT_SERVICES = ['containerd', 'docker', 'cri-dockerd', 'kubelet', 'kube-proxy', 'flanneld',
                    'ovs-vswitchd', 'ovsdb-server', 'ovn-controller', 'csiproxy', 'windows_exporter']
# Those a container host needs, and those a topology adds (prerequisites_topology_features): Hyper-V for ovn, the
# Remote Access role, its Routing role service and the RemoteAccess module for calico's bgp backend.
DEFAULT_FEATURES = ['Containers', 'Hyper-V', 'Hyper-V-PowerShell', 'RemoteAccess', 'Routing', 'RSAT-RemoteAccess-PowerShell']
# The machine proxy settings the prerequisites role manages, and where crictl finds its config.
DEFAULT_ENVIRONMENT = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'CRI_CONFIG_FILE']
# kubeadm writes the kubelet's flags here on join; a native service cannot source it.
DEFAULT_CONTENTS = ['C:\\var\\lib\\kubelet\\kubeadm-flags.env']
# The files holding credentials in the default node layout (the prerequisites role passes the plan's).
DEFAULT_CREDENTIALS = _credentials.patterns(_node_plan.NODE_PATHS)


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'gather': {'type': 'list', 'elements': 'str', 'choices': list(_snapshot.SECTIONS),
                   'default': list(_snapshot.SECTIONS)},  # a section with nothing asked of it costs nothing
        'features': {'type': 'list', 'elements': 'str', 'default': DEFAULT_FEATURES},
        'services': {'type': 'list', 'elements': 'str', 'default': DEFAULT_SERVICES},
        'files': {'type': 'list', 'elements': 'str', 'default': []},
        'contents': {'type': 'list', 'elements': 'str', 'default': DEFAULT_CONTENTS},
        'environment': {'type': 'list', 'elements': 'str', 'default': DEFAULT_ENVIRONMENT},
        'firewall_rules': {'type': 'list', 'elements': 'str', 'default': []},
        'credentials': {'type': 'list', 'elements': 'str', 'default': DEFAULT_CREDENTIALS},
        'registry_keys': {'type': 'list', 'elements': 'str', 'default': []},
        'folders': {'type': 'list', 'elements': 'str', 'default': []},
        'max_age': {'type': 'int', 'default': _snapshot.DEFAULT_MAX_AGE},
        'merge': {'type': 'bool', 'default': False},
        # The early-end decision in the same task (kubewin.node.node_converged's): a converged node's run is then
        # one task result, not two.
        'decide': {'type': 'bool', 'default': False},
        'early_end': {'type': 'bool', 'default': True},
    }

    def scope(self, args, live=False):
        # The convergence record is always read: with it, the snapshot decides whether the node can end early.
        contents = list(args['contents'])
        if _converged.RECORD_PATH not in contents:
            contents.append(_converged.RECORD_PATH)
        # And the collection's own folder, where the record and the log rotation task's files are written.
        folders = list(args['folders'])
        if _converged.RECORD_FOLDER not in folders:
            folders.append(_converged.RECORD_FOLDER)
        return {'features': args['features'], 'services': args['services'], 'files': args['files'],
                'contents': contents, 'environment': args['environment'], 'firewall': args['firewall_rules'],
                'credentials': args['credentials'], 'registry': args['registry_keys'], 'folders': folders}

    def read_state(self, args):
        # node_info is the query: it always reads the node.
        return self.query(args, sections=args['gather']), False

    def plan(self, args, state):
        return Plan()

    def report(self, args, state, plan):
        self._fresh_state = None  # the snapshot below is the whole fact
        # A full read replaces the snapshot; with merge, a partial read (a wait loop that only
        # looks at HNS) refreshes its sections and leaves the others, with their own age, alone.
        previous = _snapshot.from_task_vars(self._task_vars) if args['merge'] else None
        snapshot = _snapshot.merge(previous, state, max_age=args['max_age'])
        if not args['merge']:
            # A whole read is trusted in this run (_snapshot "Trust"); a partial one keeps the trust it had.
            snapshot = _snapshot.trust(snapshot, _snapshot.run_id(), self._task_vars.get('plan_paths'))
        # Returned once, as the fact: every host's result is copied several times per task by Ansible.
        result = {'ansible_facts': {_snapshot.FACT: snapshot}}
        if args['decide']:
            result.update(_converged.decision(snapshot, self._task_vars, self._templar.template,
                                              enabled=args['early_end']))
        return result
