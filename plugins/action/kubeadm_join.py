# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.kubeadm_join: join the node with kubeadm, once."""

from __future__ import annotations

import json
import re

import yaml

from ansible_collections.kubewin.node.plugins.plugin_utils import _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan
from ansible_collections.kubewin.node.plugins.plugin_utils._pwsh import ScriptError
from ansible_collections.kubewin.node.plugins.plugin_utils._versions import parse_version

TOKEN = re.compile(r'^[a-z0-9]{6}\.[a-z0-9]{16}$')
CA_HASH = re.compile(r'^sha256:[0-9a-f]{64}$')
# How kubeadm's token discovery says the cluster signs cluster-info for no such token: the token expired (the
# tokencleaner of kube-controller-manager deleted it) or was deleted (cmd/kubeadm/app/discovery/token/token.go).
TOKEN_REFUSED = re.compile(r'could not find a JWS signature in the cluster-info ConfigMap for token ID')


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'api_endpoint': {'type': 'str', 'required': True},
        'token': {'type': 'str', 'required': True, 'no_log': True},
        'ca_cert_hash': {'type': 'str', 'required': True},
        'node_name': {'type': 'str', 'required': True},
        'cri_socket': {'type': 'str', 'required': True},
        'kubernetes_version': {'type': 'str', 'required': True},
        'kubeadm_path': {'type': 'str', 'default': 'C:\\k\\kubeadm.exe'},
        'kubelet_kubeconfig': {'type': 'str', 'default': 'C:\\etc\\kubernetes\\kubelet.conf'},
        'kubeadm_flags_file': {'type': 'str', 'default': 'C:\\var\\lib\\kubelet\\kubeadm-flags.env'},
        'ignore_preflight_errors': {'type': 'list', 'elements': 'str', 'default': []},
        'timeout': {'type': 'int', 'default': 600},
    }
    SECTIONS = ('files',)

    def validate(self, args):
        if not TOKEN.match(args['token']):
            raise NodeActionError('token is not a bootstrap token (six and sixteen characters [a-z0-9] joined by a dot)')
        if not CA_HASH.match(args['ca_cert_hash']):
            raise NodeActionError('ca_cert_hash %r is not sha256:<64 hex digits>; kubeadm needs it to trust the API '
                                  'server it discovers (never skip CA verification)' % args['ca_cert_hash'])
        if args['node_name'] != args['node_name'].lower():
            raise NodeActionError('node_name %r must be lower case, as the kubelet registers it' % args['node_name'])
        if 'all' in [item.lower() for item in args['ignore_preflight_errors']]:
            raise NodeActionError('ignore_preflight_errors: all would hide every problem kubeadm checks for; '
                                  'name the checks to ignore')

    def scope(self, args, live=False):
        return {'files': [args['kubelet_kubeconfig']]}

    def written_folders(self, args, plan):
        # kubeadm writes the kubelet's kubeconfig, certificates, configuration and flags in their folders (and
        # removes the bootstrap kubeconfig); the apply re-reads the folders' listings and two of the files.
        return _snapshot.folders([args['kubelet_kubeconfig'], args['kubeadm_flags_file']])

    def side_effects(self, args, plan):
        # What kubeadm wrote, and the kubelet it (re)started (whose service the apply re-reads), whose program then
        # runs.
        effects = _snapshot.written_under(self.written_folders(args, plan))
        kubelet = _snapshot.program_effects('kubelet', self._task_vars.get('plan_paths'))
        return _snapshot.combine(effects, kubelet)

    def plan(self, args, state):
        # A node with a kubelet kubeconfig has joined; kubeadm refuses to join it again.
        if state['files'][args['kubelet_kubeconfig']]['exists']:
            return Plan(before={'joined': True}, after={'joined': True})
        return Plan([{'op': 'join'}], before={'joined': False},
                    after={'joined': True, 'api_endpoint': args['api_endpoint'], 'node_name': args['node_name']})

    def join_configuration(self, args):
        """kubeadm's JoinConfiguration, in the API version the kubeadm release reads."""
        version = parse_version(args['kubernetes_version'])
        # v1beta4 arrived with kubeadm 1.31; older releases read only v1beta3.
        api_version = 'kubeadm.k8s.io/v1beta4' if version.minor_key >= (1, 31) else 'kubeadm.k8s.io/v1beta3'
        registration = {'name': args['node_name'], 'criSocket': args['cri_socket']}
        if args['ignore_preflight_errors']:
            registration['ignorePreflightErrors'] = args['ignore_preflight_errors']
        # Arguments templated from facts are str subclasses PyYAML's safe dumper refuses; a JSON
        # round trip makes them plain strings.
        return yaml.safe_dump(json.loads(json.dumps({
            'apiVersion': api_version,
            'kind': 'JoinConfiguration',
            'discovery': {'bootstrapToken': {'apiServerEndpoint': args['api_endpoint'], 'token': args['token'],
                                             'caCertHashes': [args['ca_cert_hash']]}},
            'nodeRegistration': registration,
        })), sort_keys=False)

    def apply(self, args, plan, state):
        try:
            applied = self.run_script('kubeadm_join', {
                'KubeadmPath': args['kubeadm_path'], 'KubeletKubeconfig': args['kubelet_kubeconfig'],
                'KubeadmFlagsFile': args['kubeadm_flags_file'], 'TimeoutSeconds': args['timeout'],
                'Folders': [folder.rstrip('\\') for folder in self.written_folders(args, plan)],
            }, secrets={'JoinConfiguration': self.join_configuration(args)})
        except ScriptError as exc:
            if TOKEN_REFUSED.search(exc.reason):
                raise NodeActionError(
                    'the bootstrap token %s is no longer valid: it expired or was deleted before this node joined '
                    '(%s). kubeadm refused it in its preflight discovery, before it changed the node. Run site.yml '
                    'again: the control-plane play mints a fresh token (control_plane_token_ttl sets how long one '
                    'lasts).' % (args['token'].split('.')[0], exc.reason)) from exc
            raise
        return {'state': applied['state']}

    def check_applied(self, args, plan, state):
        if not state['files'][args['kubelet_kubeconfig']]['exists']:
            raise NodeActionError('kubeadm join finished but %s does not exist: the kubelet did not complete its TLS '
                                  'bootstrap (is the kubelet service registered and its log clean?)'
                                  % args['kubelet_kubeconfig'])

    def report(self, args, state, plan):
        return {'joined': state['files'][args['kubelet_kubeconfig']]['exists'] or bool(plan.changed)}
