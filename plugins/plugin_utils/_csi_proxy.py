# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""csi-proxy on the Windows nodes: none, a Windows service (``service``) or a HostProcess DaemonSet (``hostprocess``).

Internal to kubewin.node, not a public API. The public interfaces are the inventory variable ``kubewin_csi_proxy``
(checked by ``kubewin.node.preflight``), the filter ``kubewin.node.csi_proxy_daemonset`` (the objects the
``control_plane`` role applies) and the ``csi_proxy`` role.

Facts this module relies on, with their sources:

- csi-proxy is a binary that serves storage operations to CSI node plugins over named pipes, one per API group and
  version, named ``\\\\.\\pipe\\csi-proxy-<group>-<version>`` (kubernetes-csi/csi-proxy README.md and
  ``client/utils.go`` PipePath). Release 1.x serves the groups disk, filesystem, volume, smb (v1alpha1 to v1),
  system (v1alpha1) and iscsi (v1alpha1, v1alpha2); v1 of disk, filesystem, smb and volume is what the drivers of
  today call (``pkg/server/<group>/api_group_generated.go`` at v1.3.0).
- As a service it runs with ``-windows-service`` (it then reports to the service control manager, ``cmd/csi-proxy/
  main.go`` initService), logs with klog's ``-log_file`` and ``-logtostderr=false`` (README "Installation"; AKS's
  Windows CSE ``New-CsiProxyService`` and the SMB driver's Windows guide register it the same way). The upstream
  README names the service ``csiproxy``, as kube-up's Windows node setup does. AKS registers it before the kubelet
  starts and the EKS Windows AMIs run it as a service too; here the kubelet service depends on it, so the service
  control manager starts it first, and a node never runs a kubelet whose CSI node plugins find no pipes.
- csi-proxy publishes no binaries of its own (kubernetes-csi/csi-proxy#83, "community binary is missing"); the
  artifact catalog takes AKS's build, the tarball ``csi-proxy-v<version>.tar.gz`` holding ``bin/csi-proxy.exe``
  (Azure/AgentBaker: the Windows CSE's ``New-CsiProxyService`` unpacks it so; its VHD cache list names
  ``packages.aks.azure.com/csi-proxy/v1.1.3/binaries/csi-proxy-v1.1.3.tar.gz``), for which nobody publishes a hash
  file: a site pins it in ``artifacts_checksum_overrides``.
- ``hostprocess``: kubernetes-sigs/sig-windows-tools ships csi-proxy as a HostProcess DaemonSet
  (``hostprocess/csi-proxy/csi-proxy.yaml``: DaemonSet ``kube-system/csi-proxy``, label ``name: csi-proxy``, the
  Windows nodes, ``hostProcess`` as ``NT AUTHORITY\\SYSTEM``, ``hostNetwork``), its image
  ``ghcr.io/kubernetes-sigs/sig-windows/csi-proxy:v1.1.3`` built from the csi-proxy tag with ``csi-proxy.exe -v 4``
  as entry point, for Windows 1809 and ltsc2022 (``Dockerfile.windows``, ``build.sh``). HostProcess containers need
  containerd 1.6 or later (kubernetes.io, "Create a Windows HostProcess Pod").
- KEP-3636 (sig-storage, "CSI Drivers in Windows as HostProcess Pods") turns csi-proxy into a library that a driver
  running as a HostProcess pod links itself; the SMB driver (kubernetes-csi/csi-driver-smb) and the AWS EBS driver
  have such a HostProcess mode and then need no csi-proxy on the node. docs/docsite/rst/csi.rst says which drivers
  still need it.
"""

from __future__ import annotations

import ntpath
import re
import typing as t
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible_collections.kubewin.node.plugins.plugin_utils import _flags, _kube_proxy_daemonset, _versions

VARIABLE = 'kubewin_csi_proxy'
MODES = ('none', 'service', 'hostprocess')
DEFAULT_MODE = 'none'
# The service the upstream README registers (and kube-up's Windows node setup); the kubelet depends on it.
SERVICE_NAME = 'csiproxy'
BINARY = 'csi-proxy.exe'
# The catalog component and the csi_proxy role's version variable.
COMPONENT = 'csi-proxy'
VERSION_VARIABLE = 'csi_proxy_version'
PIPE_FOLDER = '\\\\.\\pipe\\'
PIPE_PREFIX = 'csi-proxy-'
# The pipes of the API groups that are v1 in csi-proxy 1.x: what the doctor expects while csi-proxy runs.
V1_PIPES = tuple(PIPE_PREFIX + group + '-v1' for group in ('disk', 'filesystem', 'smb', 'volume'))

NAMESPACE = 'kube-system'
NAME = 'csi-proxy'
POD_LABELS = {'name': 'csi-proxy'}
OWNER_LABELS = {'app.kubernetes.io/managed-by': 'kubewin.node', 'app.kubernetes.io/component': 'csi-proxy'}
# sig-windows-tools hostprocess/csi-proxy/csi-proxy.yaml's image (built for 1809 and ltsc2022).
DEFAULT_IMAGE = 'ghcr.io/kubernetes-sigs/sig-windows/csi-proxy:v1.1.3'


class CsiProxyError(AnsibleFilterError):
    """A csi-proxy setting that does not fit; the message names the variable and the fix."""


def mode_problems(mode: t.Any, runtimes: Mapping[str, t.Any], containerd_versions: Mapping[str, t.Any]) -> list[str]:
    """Why ``mode`` does not fit the fleet, one line each (empty when it does); ``runtimes`` and
    ``containerd_versions`` by host, as _kube_proxy_daemonset.mode_problems takes them."""
    if mode not in MODES:
        return ['%s: %r must be one of %s (default %s)' % (VARIABLE, mode, ', '.join(MODES), DEFAULT_MODE)]
    if mode != 'hostprocess':
        return []
    problems = []
    docker = sorted(host for host, runtime in runtimes.items() if runtime == 'docker')
    if docker:
        problems.append('%s: hostprocess runs csi-proxy in a HostProcess container, which needs containerd; %s use '
                        'docker (kubewin_container_runtime): use containerd there, or %s: service'
                        % (VARIABLE, ', '.join(docker[:3]) + (' and %d more' % (len(docker) - 3) if len(docker) > 3 else ''),
                           VARIABLE))
    old: dict[str, list[str]] = {}
    for host, runtime in runtimes.items():
        release = _kube_proxy_daemonset.containerd_release(containerd_versions.get(host))
        if runtime == 'containerd' and (release is None or release < _kube_proxy_daemonset.HOSTPROCESS_CONTAINERD):
            old.setdefault(str(containerd_versions.get(host)), []).append(host)
    for version, hosts in old.items():
        problems.append('%s: hostprocess needs containerd 1.6 or later for HostProcess containers, but '
                        'container_runtime_containerd_version is %s on %s' % (VARIABLE, version, ', '.join(sorted(hosts)[:3])))
    return problems


def binary_path(paths: Mapping[str, t.Any]) -> str:
    """Where the csi_proxy role installs csi-proxy.exe: the node layout's kubernetes_dir, beside the kubelet."""
    return ntpath.join(str(paths['kubernetes_dir']), BINARY)


SERVICE_KEYS = ('kubernetes_version', 'paths', 'log_max_size_mb', 'verbosity')


def csi_proxy_service(data: t.Any) -> dict[str, t.Any]:
    """The csiproxy service's program and arguments: csi-proxy under kube-log-runner, as the kubelet and kube-proxy
    run (_flags.service_wrapper: the runner writes the output to ``<log_dir>\\csi-proxy\\csi-proxy.log`` and rotates
    it from 1.34 on), csi-proxy itself with ``-windows-service`` (it connects to the service control manager as the
    service) and its klog verbosity; ``log_file`` for the log rotation role."""
    if not isinstance(data, Mapping) or sorted(data) != sorted(SERVICE_KEYS):
        raise CsiProxyError('csi_proxy_service needs exactly %s, got %r' % (', '.join(SERVICE_KEYS), data))
    paths = data['paths']
    version = _versions.parse_version(data['kubernetes_version'], 'kubernetes_version')
    runner = ntpath.join(str(paths['kubernetes_dir']), 'kube-log-runner.exe')
    _windows_service, log_file, wrapper = _flags.service_wrapper(
        {'service_manager': 'scm', 'log_dir': ntpath.join(str(paths['log_dir']), 'csi-proxy'),
         'kube_log_runner': runner, 'log_max_size_mb': data['log_max_size_mb']}, 'csi-proxy', version)
    verbosity = data['verbosity']
    if isinstance(verbosity, bool) or not isinstance(verbosity, int) or not 0 <= verbosity <= 10:
        raise CsiProxyError('csi_proxy_service: verbosity must be a whole number from 0 to 10, got %r' % (verbosity,))
    return {'path': wrapper[0], 'args': wrapper[1:] + [binary_path(paths), '-windows-service', '-v=%d' % verbosity],
            'log_file': log_file, 'binary': binary_path(paths), 'name': SERVICE_NAME}


def pipes_of(names: t.Iterable[str]) -> list[str]:
    """Of the named pipes of a node (their names, without \\\\.\\pipe\\), csi-proxy's, sorted."""
    return sorted(name for name in names if name.startswith(PIPE_PREFIX))


_IMAGE = re.compile(r'^[a-z0-9.\-/:_]+(@sha256:[0-9a-f]{64})?$')


def daemonset(image: t.Any = None) -> list[dict[str, t.Any]]:
    """The objects of csi-proxy's HostProcess DaemonSet: sig-windows-tools' csi-proxy.yaml, with the collection's
    owner labels (the removal in the other modes finds it by them) and a toleration of every taint (csi-proxy serves
    every Windows node a CSI node plugin may land on, tainted or not)."""
    image = image or DEFAULT_IMAGE
    if not isinstance(image, str) or not _IMAGE.match(image):
        raise CsiProxyError('csi_proxy_daemonset: image %r must be an image reference such as %s' % (image, DEFAULT_IMAGE))
    labels = dict(OWNER_LABELS)
    return [{
        'apiVersion': 'apps/v1', 'kind': 'DaemonSet',
        'metadata': {'name': NAME, 'namespace': NAMESPACE, 'labels': labels},
        'spec': {
            'selector': {'matchLabels': dict(POD_LABELS)},
            'template': {
                'metadata': {'labels': dict(POD_LABELS, **labels)},
                'spec': {
                    'nodeSelector': {'kubernetes.io/os': 'windows'},
                    'securityContext': {'windowsOptions': {'hostProcess': True,
                                                           'runAsUserName': 'NT AUTHORITY\\SYSTEM'}},
                    'hostNetwork': True,
                    'tolerations': [{'operator': 'Exists'}],
                    'containers': [{'name': 'csi-proxy', 'image': image}],
                },
            },
        },
    }]
