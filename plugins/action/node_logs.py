# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.node_logs: the logs and HNS state of a node, for troubleshooting, in one read-only call."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _ovs
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, Plan

DEFAULT_SERVICES = ['kubelet', 'kube-proxy', 'flanneld', 'containerd', 'docker', 'cri-dockerd'] + list(_ovs.ALL_SERVICES)


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'services': {'type': 'list', 'elements': 'str', 'default': DEFAULT_SERVICES},
        'paths': {'type': 'list', 'elements': 'str', 'default': []},
        'event_providers': {'type': 'list', 'elements': 'str', 'default': ['docker']},
        'event_logs': {'type': 'list', 'elements': 'str', 'default': []},
        'event_count': {'type': 'int', 'default': 200},
        'tail_bytes': {'type': 'int', 'default': 1048576},
    }

    def read_state(self, args):
        # Always read: logs are never in the snapshot, and the result is not node state to keep.
        return self.run_script('node_logs', {
            'Services': args['services'], 'Paths': args['paths'], 'EventProviders': args['event_providers'],
            'EventLogs': args['event_logs'],
            'EventCount': args['event_count'], 'TailBytes': args['tail_bytes']}), False

    def plan(self, args, state):
        return Plan()

    def report(self, args, state, plan):
        return {key: state[key] for key in ('hostname', 'collected_at', 'services', 'logs', 'events', 'event_logs', 'hns',
                                            'ovs')}
