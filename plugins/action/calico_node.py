# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.calico_node: wait until the Tigera operator's calico-node-windows pod has set up this node."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _hns, _reconnect
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan


def missing(args, state):
    """What the operator's pod has not done on the node yet, as the user reads it."""
    found = []
    if not state['files'][args['cni_config_file']]['exists']:
        found.append("the CNI config %s (the pod's install-cni container writes it)" % args['cni_config_file'])
    if not _hns.networks_named(state['hns'].get('networks') or [], args['network_name']):
        found.append("the HNS network '%s' (the pod's node container creates it with the vSwitch)" % args['network_name'])
    return found


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'cni_config_file': {'type': 'str', 'required': True},
        'network_name': {'type': 'str', 'default': 'External'},
        'timeout': {'type': 'int', 'default': 300},
        'pod_state': {'type': 'str', 'default': ''},
    }
    SECTIONS = ('files', 'hns')

    def scope(self, args, live=False):
        return {'files': [args['cni_config_file']]}

    def resource(self, args):
        return 'calico-node-windows'

    def validate(self, args):
        if args['timeout'] < 1:
            raise NodeActionError('timeout must be at least 1 second')

    def query(self, args, sections=None):
        # The pod's node container creates the node's first vSwitch, which drops the node's network for seconds
        # whenever it happens: every read of the node reconnects as hns_network's worker wait does.
        try:
            return _reconnect.wait_for(lambda: NodeAction.query(self, args, sections), args['timeout'],
                                       reset=self._connection.reset)
        except _reconnect.NodeDidNotReturn as exc:
            raise NodeActionError('The node did not answer within %d s (%s); the calico-node-windows pod creating '
                                  'the vSwitch drops its network for seconds.' % (args['timeout'], exc),
                                  reason='node_did_not_return')

    def plan(self, args, state):
        waiting = missing(args, state)
        if not waiting:
            return Plan()
        # Nothing this module does: the operator's pod changes the node (and drops its network once).
        return Plan([{'op': 'wait', 'missing': waiting}], before={'ready': False}, after={'ready': True},
                    notes=['the Tigera operator\'s calico-node-windows pod will create ' + '; '.join(waiting)])

    def apply(self, args, plan, state):
        def probe():
            fresh = NodeAction.query(self, args)
            return fresh if not missing(args, fresh) else None

        try:
            fresh = _reconnect.wait_for(probe, args['timeout'], reset=self._connection.reset)
        except _reconnect.NodeDidNotReturn as exc:
            last = self._fresh_state
            still = missing(args, last) if last else plan.operations[0]['missing']
            raise NodeActionError(
                'After %d s the node still lacks %s (%s). The pod: %s'
                % (args['timeout'], ' and '.join(still), exc.last_error,
                   args['pod_state'] or 'unknown (kubectl -n calico-system get pods -l k8s-app=calico-node-windows '
                   '-o wide)'), reason='calico_not_ready')
        return {'state': fresh}

    def check_applied(self, args, plan, state):
        waiting = missing(args, state)
        if waiting:
            raise NodeActionError('the node still lacks ' + ' and '.join(waiting))

    def report(self, args, state, plan):
        networks = _hns.networks_named(state['hns'].get('networks') or [], args['network_name'])
        return {'network': _hns.describe_network(networks[0]) if networks else {}}
