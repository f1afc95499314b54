"""kubeadm.exe, as a program model: ``kubeadm join --config <file>`` on a Windows node.

What kubeadm does (kubernetes.io, "kubeadm join" reference and its phases): it reads the
JoinConfiguration file (``--config``), validates it (discovery needs a bootstrap token or a
kubeconfig file), runs its preflight checks, writes the kubelet's configuration
(``/var/lib/kubelet/config.yaml``, ``/var/lib/kubelet/kubeadm-flags.env`` with the node registration's
CRI socket), the TLS bootstrap kubeconfig (``/etc/kubernetes/bootstrap-kubelet.conf``) and the cluster CA
(``/etc/kubernetes/pki/ca.crt``), (re)starts the kubelet and waits for it to finish its TLS bootstrap
(the kubelet writes ``/etc/kubernetes/kubelet.conf``), and removes the bootstrap kubeconfig again when that phase
ends, joined or not (cmd/kubeadm/app/cmd/phases/join/kubelet.go, kubernetes/kubernetes). On Windows those paths are on the system drive
(C:\\etc\\kubernetes, C:\\var\\lib\\kubelet). Progress goes to standard output, a failure to standard error
("error execution phase ...", then the hint about --v=5) with exit code 1.

Token discovery (cmd/kubeadm/app/discovery/token/token.go, kubernetes/kubernetes; "Authenticating with Bootstrap
Tokens", kubernetes.io): kubeadm reads ``kube-public/cluster-info`` without credentials and trusts it only through
the signature ``jws-kubeconfig-<token id>`` that kube-controller-manager's bootstrapsigner adds for every bootstrap
token valid for signing. A token that expired (the tokencleaner deletes its Secret) or was deleted has no signature:
kubeadm retries until its discovery timeout and fails in preflight with "could not find a JWS signature in the
cluster-info ConfigMap for token ID"; a signature that the token's secret does not verify fails at once ("failed to
verify JWS signature of received cluster info object, can't trust this API Server"). With a simulated cluster
(kubewin_sim/cluster.py, whose controllers run on every read) the model does that discovery; without one there is
nothing to discover and the token is taken as valid.

What the simulation believes beyond that is its own: the node's
``profile['kubeadm_join_fails']`` makes the join fail with that message, a missing kubelet service fails
kubelet-start, and the kubelet's bootstrap is kubewin_sim/scm.py's.
"""

import ntpath
import os

import yaml

from .. import cluster as sim_cluster
from .. import scm
from ..node import SimulationError
from ..programs import option

KUBERNETES_DIR = 'C:\\etc\\kubernetes'
KUBELET_DIR = 'C:\\var\\lib\\kubelet'
KUBELET_KUBECONFIG = ntpath.join(KUBERNETES_DIR, 'kubelet.conf')
BOOTSTRAP_KUBECONFIG = ntpath.join(KUBERNETES_DIR, 'bootstrap-kubelet.conf')
HINT = 'To see the stack trace of this error execute with --v=5 or higher'


# How long token discovery retries before it gives up: JoinConfiguration's discovery.timeout, 5m0s by default
# (kubeadm configuration API reference, kubernetes.io).
DISCOVERY_TIMEOUT_SECONDS = 300


def _result(stdout=(), stderr=(), exit_code=0, seconds=5):
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    return ProgramResult(stdout, stderr, exit_code, seconds=seconds)


def _failed(stdout, message, seconds=5):
    return _result(stdout, [message, HINT], 1, seconds)


def _token(config):
    discovery = config.get('discovery') or {}
    return (discovery.get('bootstrapToken') or {}).get('token') or discovery.get('tlsBootstrapToken')


def _join(node, argv):
    config_path = option(argv, '--config')
    if config_path is None:
        return _failed([], 'error execution phase preflight: couldn\'t validate the identity of the API Server: '
                           'discovery: Invalid value: "": bootstrapToken or file must be set')
    entry = node.file(config_path)
    if entry is None or entry.get('content') is None:
        return _result([], ['unable to read config from "%s" : open %s: The system cannot find the file specified.'
                            % (config_path, config_path)], 1)
    try:
        config = yaml.safe_load(entry['content'].lstrip('\ufeff')) or {}
    except yaml.YAMLError as error:
        return _result([], ['error converting YAML to JSON: %s' % error], 1)
    if not isinstance(config, dict) or config.get('kind') != 'JoinConfiguration' \
            or not str(config.get('apiVersion', '')).startswith('kubeadm.k8s.io/'):
        return _result([], ['no JoinConfiguration in the config file %s' % config_path], 1)
    if not _token(config):
        return _result([], ['discovery.bootstrapToken: Invalid value: "": bootstrapToken or file must be set'], 1)
    out = ['[preflight] Running pre-flight checks']
    fault = node.profile.get('kubeadm_join_fails')
    if fault:
        return _failed(out, 'error execution phase preflight: %s' % fault)
    refused = _discovery_refusal(_token(config))
    if refused:
        return _failed(out, "error execution phase preflight: couldn't validate the identity of the API Server: "
                            + refused, seconds=DISCOVERY_TIMEOUT_SECONDS)
    try:
        return _kubelet_start(node, config, out)
    finally:
        # kubeadm removes the bootstrap kubeconfig when its kubelet-start phase ends, however it ends, "so the
        # credential used for TLS bootstrap is removed from disk" (cmd/kubeadm/app/cmd/phases/join/kubelet.go).
        node.remove_file(BOOTSTRAP_KUBECONFIG)


def _discovery_refusal(token):
    """Why token discovery does not trust the simulated cluster's cluster-info, or None (see the module docstring)."""
    state_dir = os.environ.get('KUBEWIN_SIM_STATE_DIR')
    if not state_dir or sim_cluster.peek(state_dir) is None:
        return None
    token_id, _dot, token_secret = str(token).partition('.')
    with sim_cluster.open_cluster(state_dir) as cluster:
        cluster_info = cluster.get('ConfigMap', 'kube-public', 'cluster-info') or {'data': {}}
    signature = cluster_info['data'].get('jws-kubeconfig-%s' % token_id)
    if signature is None:
        return 'could not find a JWS signature in the cluster-info ConfigMap for token ID "%s"' % token_id
    if signature != sim_cluster.detached_jws(cluster_info['data']['kubeconfig'], token_id, token_secret):
        return "failed to verify JWS signature of received cluster info object, can't trust this API Server"
    return None


def _kubelet_start(node, config, out):
    """The kubelet-start phase: the kubelet's files, then (re)start it and wait for its TLS bootstrap."""
    if 'kubelet' not in node.data['services']:
        return _failed(out, 'error execution phase kubelet-start: the kubelet service does not exist')
    registration = config.get('nodeRegistration') or {}
    node.write_file(ntpath.join(KUBELET_DIR, 'config.yaml'),
                    content='apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n')
    node.write_file(ntpath.join(KUBELET_DIR, 'kubeadm-flags.env'),
                    content='KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=%s"\n' % registration.get('criSocket', ''))
    node.write_file(BOOTSTRAP_KUBECONFIG, content='(bootstrap kubeconfig)\n')
    node.write_file(ntpath.join(KUBERNETES_DIR, 'pki', 'ca.crt'), content='(cluster CA)\n')
    out += ['[kubelet-start] Writing kubelet configuration to file "%s"' % ntpath.join(KUBELET_DIR, 'config.yaml'),
            '[kubelet-start] Writing kubelet environment file with flags to file "%s"'
            % ntpath.join(KUBELET_DIR, 'kubeadm-flags.env'),
            '[kubelet-start] Starting the kubelet',
            '[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap']
    try:
        scm.stop(node, 'kubelet')
        scm.start(node, 'kubelet')
    except SimulationError as error:
        return _failed(out, 'error execution phase kubelet-start: %s' % error)
    if node.file(KUBELET_KUBECONFIG) is None:
        return _failed(out, 'error execution phase kubelet-start: timed out waiting for the condition')
    node.data['joined_as'] = registration.get('name')
    return _result(out + ['', 'This node has joined the cluster:',
                          '* Certificate signing request was sent to apiserver and a response was received.',
                          '* The Kubelet was informed of the new secure connection details.', '',
                          "Run 'kubectl get nodes' on the control-plane to see this node join the cluster.", ''])


def kubeadm(host, words, input_items, environment=None):  # pylint: disable=unused-argument
    if words[:1] == ['join']:
        return _join(host.node, words[1:])
    return _result([], ['unknown command "%s" for "kubeadm"' % (words[0] if words else ''),
                        'Run \'kubeadm --help\' for usage.'], 1)


PROGRAMS = {'kubeadm.exe': kubeadm}
