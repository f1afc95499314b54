# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How kube-proxy runs on the Windows nodes: a Windows service (``service``) or a HostProcess DaemonSet (``daemonset``).

Internal to kubewin.node, not a public API. The public interfaces are the inventory variable
``kubewin_kube_proxy_mode`` (checked by ``kubewin.node.preflight``) and the filter
``kubewin.node.kube_proxy_daemonset`` (the objects the ``control_plane`` role applies).

Facts this module relies on, with their sources:

- HostProcess containers are stable since Kubernetes 1.26; they need containerd 1.6 or later (the
  kubelet passes the flag through CRI), a pod of them has only HostProcess containers and must set
  ``hostNetwork: true``; they run as a host account named by ``runAsUserName`` (kubernetes.io,
  "Create a Windows HostProcess Pod", Before you begin and Limitations). Docker Engine (cri-dockerd)
  has no HostProcess support: the same page names containerd as the runtime that passes the flag.
- A HostProcess container sees the host's file system; the image's files and the pod's volumes are
  under ``$env:CONTAINER_SANDBOX_MOUNT_POINT`` (same page, "Volume mounts"). So the container can run
  the node's own kube-proxy binary, which the ``kubernetes_binaries`` role installs at
  ``kubewin_kubernetes_version`` after verifying its checksum: no third-party image carries a
  binary here, and the DaemonSet runs exactly the release the version policy accepted.
- kubernetes-sigs/sig-windows-tools ``hostprocess/flannel/kube-proxy`` (before #385 removed it) ran
  kube-proxy in such a DaemonSet as the ``kube-system/kube-proxy`` service account, with
  ``KUBE_NETWORK`` naming the HNS network and, for overlay, a source VIP reserved with host-local
  in the network's subnet. The collection reserves that VIP already (``kubewin.node.source_vip``,
  SourceVip.json); the start script reads it there.
- The image only has to exist for containerd to start the container: Microsoft's HostProcess base
  image (microsoft/windows-host-process-containers-base-image, v1.0.0), which holds no files, pinned
  by its digest (as Azure/azure-container-networking pins it), so a moved tag cannot change what runs.
"""

from __future__ import annotations

import ntpath
import re
import typing as t
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible_collections.kubewin.node.plugins.plugin_utils import _flags, _pwsh, _versions

# The default (daemonset on calico, service elsewhere) is _node_plan's (plan_input hands out the mode).
MODES = ('service', 'daemonset')
VARIABLE = 'kubewin_kube_proxy_mode'
# The topologies whose Windows nodes run kube-proxy at all (ovn load-balances Services in OVN itself).
TOPOLOGIES = _flags.KUBE_PROXY_TOPOLOGIES
# The topologies whose kube-proxy cannot be a Windows service, and why. Calico: on VXLAN the source VIP is the address
# of the HNS endpoint Calico_ep, which calico-node-windows creates (and recreates with its network) after the node
# joined (projectcalico/calico cni-plugin/pkg/dataplane/windows/dataplane_windows.go), so the flags a service is
# registered with cannot carry it; upstream runs kube-proxy for Calico in a HostProcess DaemonSet whose start script
# waits for the network and reads the endpoint (kubernetes-sigs/sig-windows-tools hostprocess/calico/kube-proxy,
# before #383, which tigera/docs' Windows install links). One mode for both backends keeps a backend change from
# also changing how kube-proxy runs.
SERVICE_REFUSED = {
    'calico': ('its source VIP is the address of the HNS endpoint Calico_ep, which Calico creates on the node only after '
               'it joined, so kube-proxy runs in the kube-proxy-windows DaemonSet, whose start script waits for it'),
}
# containerd 1.6 is the first release with HostProcess containers (kubernetes.io, "Create a Windows HostProcess Pod").
HOSTPROCESS_CONTAINERD = (1, 6)

NAMESPACE = 'kube-system'
NAME = 'kube-proxy-windows'
# The service account kubeadm creates for kube-proxy and binds to system:node-proxier (kubeadm's kube-proxy
# addon); the Windows nodes' kubeconfig carries its token (control_plane role), so no new RBAC is needed.
SERVICE_ACCOUNT = 'kube-proxy'
# What the collection owns; service mode removes exactly these objects.
OWNER_LABELS = {'app.kubernetes.io/managed-by': 'kubewin.node', 'app.kubernetes.io/component': 'kube-proxy-windows'}
POD_LABELS = {'k8s-app': NAME}
# Where a HostProcess container finds the ConfigMap's volume: under its sandbox mount point.
SCRIPT_MOUNT = '/kubewin'
START_SCRIPT_KEY = 'kube_proxy_start.ps1'
# microsoft/windows-host-process-containers-base-image v1.0.0, by digest.
DEFAULT_IMAGE = ('mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0'
                 '@sha256:b4c9637e032f667c52d1eccfa31ad8c63f1b035e8639f3f48a510536bf34032b')
_DIGEST = re.compile(r'@sha256:[0-9a-f]{64}$')


class KubeProxyModeError(AnsibleFilterError):
    """A kube-proxy mode that does not fit the fleet; the message names the variable and the fix."""


def containerd_release(value: t.Any) -> tuple[int, int] | None:
    found = re.match(r'^v?(\d+)\.(\d+)', str(value or ''))
    return (int(found.group(1)), int(found.group(2))) if found else None


def mode_problems(mode: t.Any, topology: t.Any, runtimes: Mapping[str, t.Any],
                  containerd_versions: Mapping[str, t.Any]) -> list[str]:
    """Why ``mode`` does not fit the fleet, one line each (empty when it does).

    ``runtimes`` and ``containerd_versions`` are by host (the containerd version the node's
    container_runtime role installs).
    """
    if mode is None:
        return []
    if mode not in MODES:
        return ['%s: %r must be one of %s' % (VARIABLE, mode, ', '.join(MODES))]
    if mode == 'service' and topology in SERVICE_REFUSED:
        return ['%s: service does not work with the topology %s: %s; leave %s unset (daemonset is its default)'
                % (VARIABLE, topology, SERVICE_REFUSED[topology], VARIABLE)]
    if mode != 'daemonset':
        return []
    problems = []
    if topology not in TOPOLOGIES:
        problems.append('%s: daemonset does not apply to the topology %s: kube-proxy runs on the Windows nodes of %s '
                        'only (with ovn, OVN load-balances Services itself); leave %s unset'
                        % (VARIABLE, topology, ', '.join(TOPOLOGIES[:-1]) + ' and ' + TOPOLOGIES[-1], VARIABLE))
    docker = sorted(host for host, runtime in runtimes.items() if runtime == 'docker')
    if docker:
        # Calico has no service mode to fall back on (SERVICE_REFUSED).
        fallback = '' if topology in SERVICE_REFUSED else ', or keep %s: service' % VARIABLE
        problems.append('%s: daemonset runs kube-proxy in a HostProcess container, which needs containerd; %s use '
                        'docker (kubewin_container_runtime): use containerd there%s'
                        % (VARIABLE, ', '.join(docker[:3]) + (' and %d more' % (len(docker) - 3) if len(docker) > 3 else ''),
                           fallback))
    old: dict[str, list[str]] = {}
    for host, runtime in runtimes.items():
        if runtime != 'containerd':
            continue
        release = containerd_release(containerd_versions.get(host))
        if release is None or release < HOSTPROCESS_CONTAINERD:
            old.setdefault(str(containerd_versions.get(host)), []).append(host)
    for version, hosts in old.items():
        problems.append('%s: daemonset needs containerd 1.6 or later for HostProcess containers, but '
                        'container_runtime_containerd_version is %s on %s' % (VARIABLE, version, ', '.join(sorted(hosts)[:3])))
    return problems


# The inputs of the filter.
KEYS = ('kubernetes_version', 'topology', 'cluster_cidr', 'network_name', 'vxlan_vni', 'paths', 'image', 'verbosity')
REQUIRED = ('kubernetes_version', 'topology', 'cluster_cidr', 'paths')
# The container's entry point, a script of the collection like every other (run in the test engine).
START_SCRIPT = 'kube_proxy_start'
# Calico: the HNS host endpoint whose address is kube-proxy's source VIP on a VXLAN (Overlay) network; calico-node-windows
# creates it with the network (projectcalico/calico cni-plugin/pkg/dataplane/windows/dataplane_windows.go) and
# sig-windows-tools' Calico kube-proxy start.ps1 (hostprocess/calico/kube-proxy, before #383) reads it there.
CALICO_SOURCE_VIP_ENDPOINT = 'Calico_ep'


def node_files(paths: Mapping[str, t.Any]) -> dict[str, str]:
    """The files of a node the pod uses, in the node layout (plan_paths): the kube-proxy binary and kubeconfig the
    kubernetes_binaries and kube_proxy roles write, and the source VIP record of network_overlay, by their defaults."""
    try:
        kubernetes_dir, config_dir = str(paths['kubernetes_dir']), str(paths['kubernetes_config_dir'])
    except (KeyError, TypeError) as error:
        raise KubeProxyModeError('kube_proxy_daemonset: paths must be the node layout (plan_paths), got %r' % (paths,)) from error
    return {'kube_proxy': ntpath.join(kubernetes_dir, 'kube-proxy.exe'),
            'kubeconfig': ntpath.join(config_dir, 'kube-proxy.conf'),
            'source_vip_file': ntpath.join(kubernetes_dir, 'SourceVip.json')}


def kube_proxy_daemonset(data: t.Any) -> dict[str, t.Any]:
    """The objects of kube-proxy on the Windows nodes and what the node side needs to know of them; see
    kube_proxy_daemonset.yml."""
    if not isinstance(data, Mapping):
        raise KubeProxyModeError('kube_proxy_daemonset: the input must be a dictionary, got %r' % (data,))
    unknown = sorted(str(key) for key in data if key not in KEYS)
    if unknown:
        raise KubeProxyModeError('kube_proxy_daemonset: unknown key(s) %s; known keys are %s'
                                 % (', '.join(unknown), ', '.join(KEYS)))
    missing = [key for key in REQUIRED if data.get(key) in (None, '')]
    if missing:
        raise KubeProxyModeError('kube_proxy_daemonset: the input needs %s' % ', '.join(missing))
    files = node_files(data['paths'])
    return {'objects': manifests(data, files), 'files': files, 'namespace': NAMESPACE, 'name': NAME,
            'owner_labels': dict(OWNER_LABELS), 'pod_selector': pod_selector()}


def pod_selector() -> str:
    """The label selector of the DaemonSet's pods (one a Windows node)."""
    return ','.join('%s=%s' % item for item in sorted(POD_LABELS.items()))


def manifests(data: Mapping[str, t.Any], files: Mapping[str, str]) -> list[dict[str, t.Any]]:
    """The ConfigMap (the start script) and the DaemonSet."""
    topology = data['topology']
    image = data.get('image') or DEFAULT_IMAGE
    if not _DIGEST.search(image):
        raise KubeProxyModeError('kube_proxy_daemonset: image %r must be pinned by digest (<name>@sha256:<64 hex>) so '
                                 'that a moved tag cannot change what runs on every Windows node' % (image,))
    version = _versions.parse_version(data['kubernetes_version'], 'kubernetes_version')
    # The flags the kube-proxy service gets, from the one filter that makes them, without the per-node ones (node
    # name, source VIP): the start script adds those on the node. No kube-log-runner: a pod's output goes to its log.
    computed = _flags.kube_proxy_args({
        'kubernetes_version': str(version), 'per_node': False, 'cluster_cidr': data['cluster_cidr'],
        'kubeconfig': files['kubeconfig'], 'topology': topology, 'network_name': data.get('network_name'),
        'vxlan_vni': data.get('vxlan_vni'), 'service_manager': 'nssm', 'verbosity': data.get('verbosity')})
    network = computed['env']['KUBE_NETWORK']
    labels = dict(OWNER_LABELS, **{'app.kubernetes.io/version': 'v%s' % version})
    env = [
        {'name': 'KUBE_NETWORK', 'value': network},
        {'name': 'KUBEWIN_KUBE_PROXY', 'value': files['kube_proxy']},
        {'name': 'KUBEWIN_KUBE_PROXY_ARGS', 'value': '\n'.join(computed['args'])},
        {'name': 'KUBEWIN_SOURCE_VIP_FILE', 'value': files['source_vip_file'] if topology == 'overlay' else ''},
        {'name': 'KUBEWIN_SOURCE_VIP_ENDPOINT', 'value': CALICO_SOURCE_VIP_ENDPOINT if topology == 'calico' else ''},
        {'name': 'NODE_NAME', 'valueFrom': {'fieldRef': {'apiVersion': 'v1', 'fieldPath': 'spec.nodeName'}}},
    ]
    config_map = {
        'apiVersion': 'v1', 'kind': 'ConfigMap',
        'metadata': {'name': NAME, 'namespace': NAMESPACE, 'labels': dict(OWNER_LABELS)},
        'data': {START_SCRIPT_KEY: _pwsh.load_script(START_SCRIPT)},
    }
    daemon_set = {
        'apiVersion': 'apps/v1', 'kind': 'DaemonSet',
        'metadata': {'name': NAME, 'namespace': NAMESPACE, 'labels': labels},
        'spec': {
            'selector': {'matchLabels': dict(POD_LABELS)},
            # One node at a time: the old pod's load balancers stay until the new kube-proxy programs its own.
            'updateStrategy': {'type': 'RollingUpdate', 'rollingUpdate': {'maxUnavailable': 1}},
            'template': {
                'metadata': {'labels': dict(POD_LABELS, **labels)},
                'spec': {
                    'serviceAccountName': SERVICE_ACCOUNT,
                    # kube-proxy authenticates with the node's kubeconfig (the same service account's token),
                    # so the pod needs no token of its own.
                    'automountServiceAccountToken': False,
                    'hostNetwork': True,
                    'priorityClassName': 'system-node-critical',
                    'securityContext': {'windowsOptions': {'hostProcess': True,
                                                           'runAsUserName': 'NT AUTHORITY\\SYSTEM'}},
                    'nodeSelector': {'kubernetes.io/os': 'windows'},
                    # Every Windows node, tainted or not, needs its Service routing.
                    'tolerations': [{'operator': 'Exists'}],
                    'containers': [{
                        'name': 'kube-proxy',
                        'image': image,
                        'imagePullPolicy': 'IfNotPresent',
                        # PowerShell expands the sandbox mount point; the kubelet would not. Under -Command the
                        # process exit code is 1 for a script that set any code but 0 or 1, unless the command text
                        # ends with `exit $LASTEXITCODE` (about_PowerShell_exe): with it the pod reports kube-proxy's.
                        'command': ['powershell.exe', '-NoLogo', '-NoProfile', '-ExecutionPolicy', 'Bypass',
                                    '-Command', "& (Join-Path $env:CONTAINER_SANDBOX_MOUNT_POINT '%s/%s'); "
                                    "exit $LASTEXITCODE" % (SCRIPT_MOUNT.lstrip('/'), START_SCRIPT_KEY)],
                        'env': env,
                        'volumeMounts': [{'name': 'start-script', 'mountPath': SCRIPT_MOUNT, 'readOnly': True}],
                    }],
                    'volumes': [{'name': 'start-script', 'configMap': {'name': NAME}}],
                },
            },
        },
    }
    return [config_map, daemon_set]
