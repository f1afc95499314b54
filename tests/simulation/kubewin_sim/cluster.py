"""A simulated Kubernetes API: a kubeadm cluster with a Linux control plane and flannel.

The cluster lives in ``<state dir>/cluster.json`` next to the simulated Windows
nodes and is created on first use (from the ``profile`` given to ``open_cluster``,
else the JSON object in ``$KUBEWIN_SIM_CLUSTER``, over ``DEFAULT_PROFILE``):
kube-system/kubeadm-config, kube-public/cluster-info with a real self-signed CA,
the kube-flannel-cfg ConfigMap and kube-flannel-ds DaemonSet, kubeadm's
kube-proxy DaemonSet, the kube-dns and kubernetes Services and one Linux
control-plane Node. Every access goes through ``open_cluster`` (an exclusive
file lock, load, save), like the nodes in node.py.

Controllers run on every access, so what a client reads is what the cluster
would have converged to: Windows Nodes register from the simulated Windows nodes
(``windows_nodes`` below), Deployments get Pods scheduled by nodeSelector,
affinity, taints and RuntimeClass, Services get Endpoints and EndpointSlices,
DaemonSets get their status, expired bootstrap tokens are deleted and
cluster-info is signed for every signing token (as kube-controller-manager's
tokencleaner and bootstrapsigner do). The Tigera operator's custom resources
exist only once a test installs them (tigera.py).

The cluster's clock is simulated as a node's is (node.py; tests/simulation/README.md, "Time"): ``clock_offset`` in
cluster.json is the simulated time the API server has lived through, moved on by every request of a client
(``count_call``: REQUEST_SECONDS) and by the waits of the fake kubernetes.core modules (k8s_modules.py: their
``wait_sleep`` per poll). The kubelets' back-off is measured on it (``elapsed``), so it ends after the same
requests and waits whatever the test machine's load. Its date (creationTimestamp, the tokencleaner's "now") is the
test machine's time when the access began plus that offset, as the controller's own clock is the one bootstrap
tokens' expirations are minted with (the control_plane role's bootstrap_token filter).

Dual-stack (kubernetes/website concepts/services-networking/dual-stack.md): a profile's ``pod_subnet`` and
``service_subnet`` may give one range per family, comma-separated as kubeadm's podSubnet and serviceSubnet take them.
Node IPAM then gives each Node a podCIDR of each family (--node-cidr-mask-size-ipv4 /24 and -ipv6 /64, the
defaults), ``spec.podCIDRs`` in the cluster ranges' order; a pod gets an address from each (``status.podIPs``); a
Service gets ``spec.ipFamilies`` (default: the first service range's family), ``ipFamilyPolicy`` (default
SingleStack; PreferDualStack and RequireDualStack allocate from both ranges) and its ``clusterIPs``; the endpointslice
controller writes a slice per family (addressType IPv4 or IPv6). A family the cluster does not have is refused as
kube-apiserver refuses it.
"""

import base64
import contextlib
import copy
import datetime
import fcntl
import hashlib
import hmac
import ipaddress
import json
import os
import secrets
import time
import uuid

import yaml

from kubewin_sim import gmsa
from kubewin_sim import hostprocess
from kubewin_sim import node as sim_node
from kubewin_sim import tigera
from kubewin_sim.k8s_objects import (
    ApiError, fields_match, fits_node, labels_match, parse_field_selector,
    parse_label_selector, strategic_merge, json_merge,
)

# The simulated time one request of a client takes on the cluster's clock: the least an Ansible task that makes
# it takes, so that a pod's back-off ends while a play polls with until/retries as it would in real time.
REQUEST_SECONDS = 1.0
CLUSTER_FILE = 'cluster.json'
LOCK_FILE = 'cluster.lock'
PROFILE_ENV = 'KUBEWIN_SIM_CLUSTER'

# Where the kubelet of a joined Windows node keeps its kubeconfig (kubeadm join writes
# /etc/kubernetes/kubelet.conf, which on Windows resolves on the system drive). A simulated
# Windows node registers as a Kubernetes Node once this file exists and its kubelet service runs.
KUBELET_KUBECONFIG = 'C:\\etc\\kubernetes\\kubelet.conf'
# Windows services whose state the simulated cluster reads from a node.
KUBELET_SERVICE = 'kubelet'
KUBE_PROXY_SERVICE = 'kube-proxy'
# The taint the node lifecycle controller puts on a cordoned Node.
UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable'

# Windows images: Microsoft's base images, and its HostProcess base image (microsoft/windows-host-process-containers-
# base-image), which a HostProcess container on any build runs (kubernetes.io, "Create a Windows HostProcess Pod").
WINDOWS_IMAGES = ('mcr.microsoft.com/windows', 'mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image')
# Process-isolated Windows containers run only on the build their image was made for.
WINDOWS_IMAGE_TAG_BUILDS = {'ltsc2019': 17763, '1809': 17763, 'ltsc2022': 20348, 'ltsc2025': 26100}

# kind: (group/version, namespaced)
KINDS = {
    'Namespace': ('v1', False),
    'Node': ('v1', False),
    'ConfigMap': ('v1', True),
    'Secret': ('v1', True),
    'ServiceAccount': ('v1', True),
    'Service': ('v1', True),
    'Endpoints': ('v1', True),
    'Pod': ('v1', True),
    'DaemonSet': ('apps/v1', True),
    'Deployment': ('apps/v1', True),
    'EndpointSlice': ('discovery.k8s.io/v1', True),
    'RuntimeClass': ('node.k8s.io/v1', False),
    'PodDisruptionBudget': ('policy/v1', True),
    # What gMSA reads and writes (kubewin_sim/gmsa.py): RBAC, CRDs and admission webhooks, built into every API server.
    'ClusterRole': ('rbac.authorization.k8s.io/v1', False),
    'RoleBinding': ('rbac.authorization.k8s.io/v1', True),
    'CustomResourceDefinition': ('apiextensions.k8s.io/v1', False),
    'MutatingWebhookConfiguration': ('admissionregistration.k8s.io/v1', False),
    'ValidatingWebhookConfiguration': ('admissionregistration.k8s.io/v1', False),
}
# Kinds whose metadata.generation counts changes of their spec.
GENERATION_KINDS = ('DaemonSet', 'Deployment')

DEFAULT_PROFILE = {
    'version': 'v1.31.4',
    'pod_subnet': '10.244.0.0/16',
    'service_subnet': '10.96.0.0/12',
    'dns_domain': 'cluster.local',
    'control_plane_name': 'cp1',
    'control_plane_ip': '10.127.130.10',
    # kubeadm-config controlPlaneEndpoint; cluster-info's server uses it when set.
    'control_plane_endpoint': None,
    # False: a cluster not made by kubeadm (no kube-system/kubeadm-config).
    'kubeadm': True,
    # None: a cluster without flannel (its network is Calico, below).
    'flannel_namespace': 'kube-flannel',
    'flannel_backend': {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789},
    # True: kube-flannel-ds and kube-proxy already keep to Linux nodes (today's manifests: node
    # affinity for flannel, a nodeSelector for kube-proxy); False: an install as the 1.14-era guide
    # found it, whose DaemonSets would land on Windows nodes.
    'daemonsets_select_linux': True,
    'container_runtime_version': 'containerd://1.7.24',
    # The Tigera operator as installed before kubewin.node: the keyword arguments of tigera.install (None: none).
    'tigera': None,
    # kubernetes-sigs/windows-gmsa's chart as installed before kubewin.node: the keyword arguments of gmsa.install
    # (None: none).
    'gmsa': None,
}


class SimulationError(Exception):
    """The simulation itself was misused."""


def rfc3339(timestamp):
    moment = datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc)
    return moment.strftime('%Y-%m-%dT%H:%M:%SZ')


def parse_rfc3339(text):
    return datetime.datetime.strptime(text, '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=datetime.timezone.utc).timestamp()


def b64(text):
    return base64.b64encode(text.encode('utf-8')).decode('ascii')


def unb64(text):
    return base64.b64decode(text).decode('utf-8')


def minor_of(version):
    major, minor = version.lstrip('v').split('.')[:2]
    return int(major), int(minor)


# -- the cluster as kubeadm init and the flannel manifest leave it -------------------------------

def _self_signed_ca(created):
    """The cluster CA certificate (PEM) as kubeadm makes it, ``created`` (epoch seconds) five minutes after it was
    issued: RSA 2048, CN=kubernetes, 10 years."""
    # Imported here: only cluster creation needs cryptography.
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, 'kubernetes')])
    issued = datetime.datetime.fromtimestamp(created, datetime.timezone.utc) - datetime.timedelta(minutes=5)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(issued)
                   .not_valid_after(issued + datetime.timedelta(days=3650))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, key_cert_sign=True,
                                                content_commitment=False, data_encipherment=False,
                                                key_agreement=False, crl_sign=False, encipher_only=False,
                                                decipher_only=False), critical=True)
                   .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
                   .sign(key, hashes.SHA256()))
    # The private key is dropped: nothing in the simulation signs with it.
    return certificate.public_bytes(serialization.Encoding.PEM).decode('ascii')


def _host_address(cidr, offset):
    network = ipaddress.ip_network(cidr)
    return str(network.network_address + offset)


FAMILY_OF_VERSION = {4: 'IPv4', 6: 'IPv6'}
# kube-controller-manager's --node-cidr-mask-size-ipv4 and -ipv6 defaults (dual-stack.md).
NODE_CIDR_MASK_SIZES = {4: 24, 6: 64}


def ranges_by_family(text):
    """{'IPv4': network, 'IPv6': network} of a kubeadm subnet setting (one range per family, comma-separated), in
    the setting's order."""
    ranges = {}
    for part in (text or '').split(','):
        if part.strip():
            network = ipaddress.ip_network(part.strip())
            ranges[FAMILY_OF_VERSION[network.version]] = network
    return ranges


def _first_range(text):
    return (text or '').split(',')[0].strip()


def api_endpoint(profile):
    return profile.get('control_plane_endpoint') or '%s:6443' % profile['control_plane_ip']


def _cluster_configuration(profile):
    major, minor = minor_of(profile['version'])
    networking = {'dnsDomain': profile['dns_domain'], 'serviceSubnet': profile['service_subnet']}
    if profile.get('pod_subnet'):
        networking['podSubnet'] = profile['pod_subnet']
    document = {
        'apiServer': {},
        'apiVersion': 'kubeadm.k8s.io/v1beta4' if (major, minor) >= (1, 31) else 'kubeadm.k8s.io/v1beta3',
        'certificatesDir': '/etc/kubernetes/pki',
        'clusterName': 'kubernetes',
        'controllerManager': {},
        'dns': {},
        'etcd': {'local': {'dataDir': '/var/lib/etcd'}},
        'imageRepository': 'registry.k8s.io',
        'kind': 'ClusterConfiguration',
        'kubernetesVersion': profile['version'],
        'networking': networking,
        'proxy': {},
        'scheduler': {},
    }
    if profile.get('control_plane_endpoint'):
        document['controlPlaneEndpoint'] = profile['control_plane_endpoint']
    return yaml.safe_dump(document, default_flow_style=False)


def _cluster_info_kubeconfig(profile, ca_pem):
    return yaml.safe_dump({
        'apiVersion': 'v1',
        'clusters': [{'cluster': {'certificate-authority-data': b64(ca_pem),
                                  'server': 'https://%s' % api_endpoint(profile)}, 'name': ''}],
        'contexts': None,
        'current-context': '',
        'kind': 'Config',
        'preferences': {},
        'users': None,
    }, default_flow_style=False)


def _linux_only(select_linux, kind):
    if not select_linux:
        return {}
    if kind == 'affinity':
        return {'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {
            'nodeSelectorTerms': [{'matchExpressions': [
                {'key': 'kubernetes.io/os', 'operator': 'In', 'values': ['linux']}]}]}}}}
    return {'nodeSelector': {'kubernetes.io/os': 'linux'}}


def _flannel_objects(profile):
    namespace = profile['flannel_namespace']
    net_conf = {'Network': _first_range(profile['pod_subnet']) or '10.244.0.0/16', 'EnableNFTables': False,
                'Backend': dict(profile['flannel_backend'])}
    cni_conf = {'name': 'cbr0', 'cniVersion': '0.3.1', 'plugins': [
        {'type': 'flannel', 'delegate': {'hairpinMode': True, 'isDefaultGateway': True}},
        {'type': 'portmap', 'capabilities': {'portMappings': True}}]}
    labels = {'app': 'flannel', 'k8s-app': 'flannel', 'tier': 'node'}
    config_map = {
        'apiVersion': 'v1', 'kind': 'ConfigMap',
        'metadata': {'name': 'kube-flannel-cfg', 'namespace': namespace, 'labels': labels},
        'data': {'cni-conf.json': json.dumps(cni_conf, indent=2) + '\n',
                 'net-conf.json': json.dumps(net_conf, indent=2) + '\n'},
    }
    pod_spec = dict({
        'hostNetwork': True,
        'priorityClassName': 'system-node-critical',
        'serviceAccountName': 'flannel',
        'tolerations': [{'effect': 'NoSchedule', 'operator': 'Exists'}],
        'containers': [{
            'name': 'kube-flannel', 'image': 'ghcr.io/flannel-io/flannel:v0.26.1',
            'command': ['/opt/bin/flanneld'], 'args': ['--ip-masq', '--kube-subnet-mgr'],
            'volumeMounts': [{'name': 'run', 'mountPath': '/run/flannel'},
                             {'name': 'flannel-cfg', 'mountPath': '/etc/kube-flannel/'}],
        }],
        'volumes': [{'name': 'run', 'hostPath': {'path': '/run/flannel'}},
                    {'name': 'flannel-cfg', 'configMap': {'name': 'kube-flannel-cfg'}}],
    }, **_linux_only(profile['daemonsets_select_linux'], 'affinity'))
    daemon_set = {
        'apiVersion': 'apps/v1', 'kind': 'DaemonSet',
        'metadata': {'name': 'kube-flannel-ds', 'namespace': namespace, 'labels': labels},
        'spec': {'selector': {'matchLabels': {'app': 'flannel'}},
                 'template': {'metadata': {'labels': labels}, 'spec': pod_spec}},
    }
    return [config_map, daemon_set]


def _kube_proxy(profile):
    labels = {'k8s-app': 'kube-proxy'}
    pod_spec = dict({
        'hostNetwork': True,
        'priorityClassName': 'system-node-critical',
        'serviceAccountName': 'kube-proxy',
        'tolerations': [{'operator': 'Exists'}],
        'containers': [{
            'name': 'kube-proxy', 'image': 'registry.k8s.io/kube-proxy:%s' % profile['version'],
            'command': ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf',
                        '--hostname-override=$(NODE_NAME)'],
            'env': [{'name': 'NODE_NAME', 'valueFrom': {'fieldRef': {'fieldPath': 'spec.nodeName'}}}],
        }],
    }, **_linux_only(profile['daemonsets_select_linux'], 'nodeSelector'))
    return {
        'apiVersion': 'apps/v1', 'kind': 'DaemonSet',
        'metadata': {'name': 'kube-proxy', 'namespace': 'kube-system', 'labels': labels},
        'spec': {'selector': {'matchLabels': labels},
                 'template': {'metadata': {'labels': labels}, 'spec': pod_spec}},
    }


def _control_plane_node(profile):
    name = profile['control_plane_name']
    return {
        'apiVersion': 'v1', 'kind': 'Node',
        'metadata': {'name': name, 'labels': {
            'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux',
            'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux',
            'node-role.kubernetes.io/control-plane': '',
            'node.kubernetes.io/exclude-from-external-load-balancers': ''}},
        'spec': {'taints': [{'key': 'node-role.kubernetes.io/control-plane', 'effect': 'NoSchedule'}]},
        'status': {
            'addresses': [{'type': 'InternalIP', 'address': profile['control_plane_ip']},
                          {'type': 'Hostname', 'address': name}],
            'conditions': _node_conditions(True, 'KubeletReady', 'kubelet is posting ready status'),
            'nodeInfo': {'architecture': 'amd64', 'operatingSystem': 'linux', 'osImage': 'Ubuntu 24.04.1 LTS',
                         'kernelVersion': '6.8.0-51-generic', 'kubeletVersion': profile['version'],
                         'containerRuntimeVersion': profile['container_runtime_version']},
        },
    }


def _kubelet_address(node, kubelet):
    """The Node's InternalIP as the kubelet reports it: its --node-ip, else "the node's default IPv4 address" (the
    kubelet's --node-ip help), the address of the adapter whose default route Windows takes (windows/nettcpip.py)."""
    from kubewin_sim import programs  # pylint: disable=import-outside-toplevel  # programs imports cluster
    from kubewin_sim.windows import nettcpip  # pylint: disable=import-outside-toplevel
    argv = programs.split_command_line(kubelet.get('command_line') or '')
    nssm = programs.nssm_settings(kubelet) if kubelet else None
    if nssm:
        argv = argv + programs.split_command_line(nssm.get('app_parameters') or '')
    node_ip = programs.option(argv, '--node-ip')
    if node_ip:
        return node_ip
    adapter = nettcpip.default_route_adapter(node)
    if adapter is None:
        adapter = next((a for a in node.data['adapters'] if a['ipv4'] and nettcpip.has_ip_interface(node, a)), None)
    return adapter['ipv4'][0]['address'] if adapter else None


def _node_conditions(ready, reason, message, status=None):
    return [
        {'type': 'MemoryPressure', 'status': 'False', 'reason': 'KubeletHasSufficientMemory'},
        {'type': 'DiskPressure', 'status': 'False', 'reason': 'KubeletHasNoDiskPressure'},
        {'type': 'PIDPressure', 'status': 'False', 'reason': 'KubeletHasSufficientPID'},
        {'type': 'Ready', 'status': status or ('True' if ready else 'False'), 'reason': reason, 'message': message},
    ]


def initial_objects(profile, ca_pem):
    service_subnet = _first_range(profile['service_subnet'])
    flannel = profile['flannel_namespace'] is not None
    objects = [{'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': name}}
               for name in sorted({'default', 'kube-system', 'kube-public', 'kube-node-lease'}
                                  | ({profile['flannel_namespace']} if flannel else set()))]
    objects.append({'apiVersion': 'v1', 'kind': 'ConfigMap',
                    'metadata': {'name': 'cluster-info', 'namespace': 'kube-public'},
                    'data': {'kubeconfig': _cluster_info_kubeconfig(profile, ca_pem)}})
    if profile['kubeadm']:
        objects.append({'apiVersion': 'v1', 'kind': 'ConfigMap',
                        'metadata': {'name': 'kubeadm-config', 'namespace': 'kube-system'},
                        'data': {'ClusterConfiguration': _cluster_configuration(profile)}})
    if flannel:
        objects.extend(_flannel_objects(profile))
    objects.append(_kube_proxy(profile))
    # The accounts the flannel and kube-proxy manifests run as (and their RBAC, which the
    # simulation does not check).
    if flannel:
        objects.append({'apiVersion': 'v1', 'kind': 'ServiceAccount',
                        'metadata': {'name': 'flannel', 'namespace': profile['flannel_namespace']}})
    objects.append({'apiVersion': 'v1', 'kind': 'ServiceAccount',
                    'metadata': {'name': 'kube-proxy', 'namespace': 'kube-system'}})
    objects.append({'apiVersion': 'v1', 'kind': 'Service',
                    'metadata': {'name': 'kubernetes', 'namespace': 'default', 'labels': {'component': 'apiserver'}},
                    'spec': {'clusterIP': _host_address(service_subnet, 1),
                             'ports': [{'name': 'https', 'port': 443, 'targetPort': 6443}]}})
    objects.append({'apiVersion': 'v1', 'kind': 'Service',
                    'metadata': {'name': 'kube-dns', 'namespace': 'kube-system', 'labels': {'k8s-app': 'kube-dns'}},
                    'spec': {'clusterIP': _host_address(service_subnet, 10),
                             'ports': [{'name': 'dns', 'port': 53, 'protocol': 'UDP', 'targetPort': 53},
                                       {'name': 'dns-tcp', 'port': 53, 'protocol': 'TCP', 'targetPort': 53}]}})
    objects.append(_control_plane_node(profile))
    return objects


def initial_state(profile):
    unknown = set(profile or {}) - set(DEFAULT_PROFILE)
    if unknown:
        raise SimulationError('unknown cluster profile key(s): %s' % ', '.join(sorted(unknown)))
    profile = dict(DEFAULT_PROFILE, **(profile or {}))
    data = {
        'profile': profile,
        'resource_version': 1000,
        'objects': {kind: {} for kind in KINDS},
        'registered_nodes': [],
        'node_cidrs': {},
        'counters': {'pods': 0, 'service_ips': 100},
        'faults': {'not_ready': [], 'drop_labels': {}, 'created_meanwhile': []},
        'calls': {'total': 0, 'by_kind': {}},
        'clock_offset': 0.0,
    }
    cluster = Cluster(data, None)
    for obj in initial_objects(profile, _self_signed_ca(cluster.date())):
        if obj['kind'] == 'Node':
            cidrs = cluster._pod_cidrs(obj['metadata']['name'])  # pylint: disable=protected-access
            if cidrs:
                obj['spec'].update(podCIDR=cidrs[0], podCIDRs=cidrs)
        cluster.create(obj)
    if profile['tigera'] is not None:
        tigera.install(cluster, **profile['tigera'])
    if profile['gmsa'] is not None:
        gmsa.install(cluster, **profile['gmsa'])
    return data


# -- the API ------------------------------------------------------------------------------------------

class Cluster:
    """The objects of one simulated cluster and the verbs of its API server."""

    def __init__(self, data, state_dir):
        self.data = data
        self.state_dir = state_dir
        # The test machine's time when this access began (the base of the cluster's date, see the docstring).
        self.reached_at = time.time()
        # Simulated Windows nodes whose kubelet could not act in this access: another holder had the node's lock.
        self.held_nodes = set()

    # -- the clock --------------------------------------------------------------------------------

    def elapsed(self):
        """The simulated seconds the cluster has lived through."""
        return self.data.get('clock_offset', 0.0)

    def date(self):
        """The cluster's date, in seconds since the epoch (UTC)."""
        return self.reached_at + self.elapsed()

    def pass_time(self, seconds):
        self.data['clock_offset'] = self.elapsed() + max(0.0, float(seconds))

    @property
    def profile(self):
        return self.data['profile']

    @property
    def faults(self):
        return self.data['faults']

    def create_meanwhile(self, kind, name, definition):
        """The fault ``created_meanwhile`` (``[[kind, name], ...]``, each once): another client, such as a second AWX
        job slice, creates the object between a module's read and its own create."""
        pending = self.faults.get('created_meanwhile') or []
        if [kind, name] in pending:
            pending.remove([kind, name])
            self.create(definition)

    def count_call(self, kind):
        """One request of a client (a kubernetes.core module run): counted, and it takes REQUEST_SECONDS."""
        calls = self.data['calls']
        calls['total'] += 1
        calls['by_kind'][kind] = calls['by_kind'].get(kind, 0) + 1
        self.pass_time(REQUEST_SECONDS)

    # -- kinds and keys -------------------------------------------------------------------------

    def kinds(self):
        """{kind: (group/version, namespaced)}: the built-in kinds and the custom ones installed (tigera.py)."""
        return dict(KINDS, **{kind: tuple(value) for kind, value in self.data.get('custom_kinds', {}).items()})

    def resolve(self, api_version, kind):
        """(group/version, namespaced) of a kind, failing as kubernetes.core does for an unknown one."""
        known = self.kinds().get(kind)
        if known is None or (api_version and api_version != known[0]):
            raise ApiError(404, 'NotFound', 'Failed to find exact match for %s.%s by [kind, name, singularName, '
                                            'shortNames]' % (api_version or '', kind))
        return known

    def _store(self, kind):
        return self.data['objects'].setdefault(kind, {})

    @staticmethod
    def _key(namespaced, namespace, name):
        return '%s/%s' % (namespace, name) if namespaced else name

    def _next_version(self):
        self.data['resource_version'] += 1
        return str(self.data['resource_version'])

    # -- reads ------------------------------------------------------------------------------------

    def get(self, kind, namespace, name):
        namespaced = self.resolve(None, kind)[1]
        found = self._store(kind).get(self._key(namespaced, namespace or 'default', name))
        return copy.deepcopy(found)

    def list(self, kind, namespace=None, label_selectors=(), field_selectors=()):
        namespaced = self.resolve(None, kind)[1]
        labels = [r for selector in label_selectors or () for r in parse_label_selector(selector)]
        fields = [r for selector in field_selectors or () for r in parse_field_selector(kind, selector)]
        items = []
        for obj in self._store(kind).values():
            if namespaced and namespace and obj['metadata']['namespace'] != namespace:
                continue
            if labels_match(obj['metadata'].get('labels'), labels) and fields_match(obj, fields):
                items.append(copy.deepcopy(obj))
        return sorted(items, key=lambda o: (o['metadata'].get('namespace', ''), o['metadata']['name']))

    # -- writes -----------------------------------------------------------------------------------

    def create(self, definition):
        obj = copy.deepcopy(definition)
        kind = obj.get('kind')
        api_version, namespaced = self.resolve(obj.get('apiVersion'), kind)
        metadata = obj.setdefault('metadata', {})
        name = metadata.get('name')
        if not name:
            raise ApiError(422, 'Invalid', '%s "" is invalid: metadata.name: Required value: name or generateName '
                                           'is required' % kind)
        if namespaced:
            metadata.setdefault('namespace', 'default')
            if self.get('Namespace', None, metadata['namespace']) is None:
                raise ApiError(404, 'NotFound', 'namespaces "%s" not found' % metadata['namespace'])
        else:
            metadata.pop('namespace', None)
        key = self._key(namespaced, metadata.get('namespace'), name)
        if key in self._store(kind):
            raise ApiError(409, 'AlreadyExists', '%s "%s" already exists' % (_plural(kind), name))
        obj['apiVersion'] = api_version
        _normalize_secret(obj)
        self._validate(obj, None)
        self._default(obj)
        metadata.update(uid=str(uuid.uuid4()), creationTimestamp=rfc3339(self.date()), resourceVersion=self._next_version())
        if kind in GENERATION_KINDS:
            metadata['generation'] = 1
        self._store(kind)[key] = obj
        return copy.deepcopy(obj)

    def patch(self, kind, namespace, name, patch, merge_type='strategic-merge'):
        """Patch an object; returns (before, after). A patch that changes nothing writes nothing."""
        namespaced = self.resolve(None, kind)[1]
        key = self._key(namespaced, namespace or 'default', name)
        existing = self._store(kind).get(key)
        if existing is None:
            raise ApiError(404, 'NotFound', '%s "%s" not found' % (_plural(kind), name))
        patch = copy.deepcopy(patch)
        for field in ('apiVersion', 'kind'):
            patch.pop(field, None)
        patch.get('metadata', {}).pop('namespace', None)
        if merge_type == 'strategic-merge' and kind not in KINDS:
            # Custom resources have no patch strategy: the API server refuses the content type (kubernetes.core
            # then tries a JSON merge patch, as k8s_modules.py does).
            raise ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted '
                           'media types include: application/json-patch+json, application/merge-patch+json, '
                           'application/apply-patch+yaml')
        merged = strategic_merge(existing, patch) if merge_type == 'strategic-merge' else json_merge(existing, patch)
        _normalize_secret(merged)
        self._validate(merged, existing)
        self._default(merged)
        if merged == existing:
            return copy.deepcopy(existing), copy.deepcopy(existing)
        if kind in GENERATION_KINDS and merged.get('spec') != existing.get('spec'):
            merged['metadata']['generation'] = existing['metadata'].get('generation', 1) + 1
        merged['metadata']['resourceVersion'] = self._next_version()
        self._store(kind)[key] = merged
        return copy.deepcopy(existing), copy.deepcopy(merged)

    def delete(self, kind, namespace, name):
        namespaced = self.resolve(None, kind)[1]
        removed = self._store(kind).pop(self._key(namespaced, namespace or 'default', name), None)
        if removed is None:
            raise ApiError(404, 'NotFound', '%s "%s" not found' % (_plural(kind), name))
        if kind == 'Node' and name in self.data['registered_nodes']:
            self._forget_windows_node(name)
        if kind == 'Namespace':
            for other, (_group_version, other_namespaced) in self.kinds().items():
                if other_namespaced:
                    store = self._store(other)
                    for key in [k for k, o in store.items() if o['metadata']['namespace'] == name]:
                        del store[key]
        return removed

    def _validate(self, obj, existing):
        kind = obj['kind']
        _require_string_map(obj['metadata'].get('labels'), 'metadata.labels')
        _require_string_map(obj['metadata'].get('annotations'), 'metadata.annotations')
        if kind == 'ConfigMap':
            _require_string_map(obj.get('data'), 'data')
        if kind == 'Secret':
            _require_string_map(obj.get('data'), 'data')
            if existing is not None and obj.get('type') != existing.get('type'):
                raise ApiError(422, 'Invalid', 'Secret "%s" is invalid: type: Invalid value: "%s": field is '
                                               'immutable' % (obj['metadata']['name'], obj.get('type')))
        if kind == 'RuntimeClass':
            if not obj.get('handler'):
                raise ApiError(422, 'Invalid', 'RuntimeClass "%s" is invalid: handler: Required value'
                               % obj['metadata']['name'])
            if existing is not None and obj['handler'] != existing['handler']:
                raise ApiError(422, 'Invalid', 'RuntimeClass.node.k8s.io "%s" is invalid: handler: Invalid value: '
                                               '"%s": field is immutable' % (obj['metadata']['name'], obj['handler']))
            _require_string_map((obj.get('scheduling') or {}).get('nodeSelector'), 'scheduling.nodeSelector')
        if kind in ('Deployment', 'DaemonSet'):
            spec = obj.get('spec') or {}
            selector = (spec.get('selector') or {}).get('matchLabels')
            template_labels = ((spec.get('template') or {}).get('metadata') or {}).get('labels') or {}
            if not selector or not isinstance(spec.get('template'), dict):
                raise ApiError(422, 'Invalid', '%s.apps "%s" is invalid: spec.selector, spec.template: Required value'
                               % (kind, obj['metadata']['name']))
            spec['template'].setdefault('metadata', {})
            if any(template_labels.get(k) != v for k, v in selector.items()):
                raise ApiError(422, 'Invalid', '%s.apps "%s" is invalid: spec.template.metadata.labels: Invalid '
                                               'value: %s: `selector` does not match template `labels`'
                               % (kind, obj['metadata']['name'], json.dumps(template_labels, sort_keys=True)))
            if existing is not None and spec.get('selector') != existing['spec'].get('selector'):
                raise ApiError(422, 'Invalid', '%s.apps "%s" is invalid: spec.selector: Invalid value: field is '
                                               'immutable' % (kind, obj['metadata']['name']))
            _require_string_map((spec['template'].get('spec') or {}).get('nodeSelector'),
                                'spec.template.spec.nodeSelector')
            _require_string_map(spec['template']['metadata'].get('annotations'),
                                'spec.template.metadata.annotations')
        if kind == 'PodDisruptionBudget':
            spec = obj.get('spec') or {}
            budget = [field for field in ('minAvailable', 'maxUnavailable') if field in spec]
            # policy/v1 validation: one of the two at most. A percentage is not modelled (the simulation refuses it).
            if len(budget) > 1 or any(not isinstance(spec[field], int) for field in budget) \
                    or not (spec.get('selector') or {}).get('matchLabels'):
                raise SimulationError('the simulated PodDisruptionBudget takes spec.selector.matchLabels and one of '
                                      'minAvailable or maxUnavailable as an integer')
        if kind == 'Service':
            for port in (obj.get('spec') or {}).get('ports') or []:
                if not isinstance(port.get('port'), int):
                    raise ApiError(422, 'Invalid', 'Service "%s" is invalid: spec.ports.port: Required value'
                                   % obj['metadata']['name'])

    def _default(self, obj):
        """Fill the defaults the API server fills (only what is missing: defaulting is idempotent)."""
        kind = obj['kind']
        if kind == 'Service':
            spec = obj.setdefault('spec', {})
            spec.setdefault('type', 'ClusterIP')
            spec.setdefault('sessionAffinity', 'None')
            self._service_families(obj)
            if not spec.get('clusterIP'):
                spec['clusterIPs'] = [self._allocate_service_ip(family) for family in spec['ipFamilies']]
                spec['clusterIP'] = spec['clusterIPs'][0]
            spec.setdefault('clusterIPs', [spec['clusterIP']])
            spec.setdefault('internalTrafficPolicy', 'Cluster')
            for port in spec.get('ports') or []:
                port.setdefault('protocol', 'TCP')
                port.setdefault('targetPort', port.get('port'))
        if kind in ('Deployment', 'DaemonSet'):
            spec = obj['spec']
            if kind == 'Deployment':
                spec.setdefault('replicas', 1)
                spec.setdefault('progressDeadlineSeconds', 600)
                spec.setdefault('strategy', {'type': 'RollingUpdate',
                                             'rollingUpdate': {'maxSurge': '25%', 'maxUnavailable': '25%'}})
            else:
                spec.setdefault('updateStrategy', {'type': 'RollingUpdate',
                                                   'rollingUpdate': {'maxSurge': 0, 'maxUnavailable': 1}})
            spec.setdefault('revisionHistoryLimit', 10)
            pod = spec['template'].setdefault('spec', {})
            pod.setdefault('restartPolicy', 'Always')
            pod.setdefault('dnsPolicy', 'ClusterFirst')
            pod.setdefault('schedulerName', 'default-scheduler')
            pod.setdefault('terminationGracePeriodSeconds', 30)
            pod.setdefault('securityContext', {})
            for container in pod.get('containers') or []:
                image = container.get('image', '')
                latest = ':' not in image.rsplit('/', 1)[-1] or image.endswith(':latest')
                container.setdefault('imagePullPolicy', 'Always' if latest else 'IfNotPresent')
                container.setdefault('terminationMessagePath', '/dev/termination-log')
                container.setdefault('terminationMessagePolicy', 'File')
                container.setdefault('resources', {})

    def _service_families(self, service):
        """spec.ipFamilyPolicy and spec.ipFamilies as kube-apiserver defaults and checks them (dual-stack.md,
        "Services"): SingleStack in the first service range's family unless given; PreferDualStack takes every family
        the cluster has, RequireDualStack needs two."""
        spec = service['spec']
        configured = list(ranges_by_family(self.profile['service_subnet']))
        policy = spec.setdefault('ipFamilyPolicy', 'SingleStack')
        name = service['metadata']['name']
        if policy not in ('SingleStack', 'PreferDualStack', 'RequireDualStack'):
            raise ApiError(422, 'Invalid', 'Service "%s" is invalid: spec.ipFamilyPolicy: Unsupported value: "%s"'
                           % (name, policy))
        if policy == 'RequireDualStack' and len(configured) < 2:
            raise ApiError(422, 'Invalid', 'Service "%s" is invalid: spec.ipFamilyPolicy: Invalid value: '
                           '"RequireDualStack": this cluster is not configured for dual-stack services' % name)
        given = list(spec.get('ipFamilies') or [])
        for index, family in enumerate(given):
            if family not in configured:
                raise ApiError(422, 'Invalid', 'Service "%s" is invalid: spec.ipFamilies[%d]: Invalid value: "%s": '
                               'not configured on this cluster' % (name, index, family))
        wanted = given or configured[:1]
        if policy != 'SingleStack':
            wanted += [family for family in configured if family not in wanted]
        spec['ipFamilies'] = wanted[:1] if policy == 'SingleStack' else wanted

    def _allocate_service_ip(self, family='IPv4'):
        used = {ip for s in self._store('Service').values() for ip in s['spec'].get('clusterIPs') or []}
        network = str(ranges_by_family(self.profile['service_subnet'])[family])
        while True:
            self.data['counters']['service_ips'] += 1
            address = _host_address(network, self.data['counters']['service_ips'])
            if address not in used:
                return address

    def _write_status(self, kind, key, obj):
        """Store an object a controller computed; bump resourceVersion only when it changed."""
        store = self._store(kind)
        existing = store.get(key)
        metadata = obj['metadata']
        if existing is not None:
            for field in ('uid', 'creationTimestamp', 'generation', 'resourceVersion'):
                if field in existing['metadata']:
                    metadata[field] = existing['metadata'][field]
            if obj == existing:
                return
        else:
            metadata.setdefault('uid', str(uuid.uuid4()))
            metadata.setdefault('creationTimestamp', rfc3339(self.date()))
        metadata['resourceVersion'] = self._next_version()
        store[key] = obj

    # -- controllers ------------------------------------------------------------------------------

    def reconcile(self):
        """Run the controllers once: what a client reads is the converged cluster."""
        self._clean_tokens()
        self._service_account_tokens()
        self._sign_cluster_info()
        self._sync_windows_nodes()
        self._node_lifecycle()
        self._reconcile_deployments()
        # The operator renders its DaemonSets before the DaemonSet controller runs them.
        tigera.reconcile(self)
        self._reconcile_daemonsets()
        self._reconcile_endpoints()
        self.reconcile_disruption_budgets()

    def _bootstrap_tokens(self):
        for key, secret in self._store('Secret').items():
            if secret.get('type') == 'bootstrap.kubernetes.io/token' and secret['metadata']['namespace'] == 'kube-system':
                yield key, {k: unb64(v) for k, v in (secret.get('data') or {}).items()}

    def _clean_tokens(self):
        """kube-controller-manager's tokencleaner: expired bootstrap tokens are deleted."""
        now = self.date()
        for key, data in list(self._bootstrap_tokens()):
            expiration = data.get('expiration')
            if expiration:
                try:
                    expired = parse_rfc3339(expiration) <= now
                except ValueError:
                    expired = False
                if expired:
                    del self._store('Secret')[key]

    def expire_bootstrap_tokens(self):
        """The fault ``expire_tokens`` (kubewin_sim/fake.py): every bootstrap token reaches its expiration now, as one
        minted early in a long run does; the tokencleaner deletes them on the next reconcile."""
        past = rfc3339(self.date() - 1)
        for key, _data in list(self._bootstrap_tokens()):
            secret = copy.deepcopy(self._store('Secret')[key])
            secret['data']['expiration'] = b64(past)
            self._write_status('Secret', key, secret)

    def _service_account_tokens(self):
        """kube-controller-manager's token controller: a service-account-token Secret gets a token, the CA and
        the namespace; one whose ServiceAccount does not exist is deleted."""
        for key, secret in list(self._store('Secret').items()):
            if secret.get('type') != 'kubernetes.io/service-account-token':
                continue
            namespace = secret['metadata']['namespace']
            account = (secret['metadata'].get('annotations') or {}).get('kubernetes.io/service-account.name')
            if not account or self._store('ServiceAccount').get('%s/%s' % (namespace, account)) is None:
                del self._store('Secret')[key]
                continue
            if (secret.get('data') or {}).get('token'):
                continue
            ca_data = yaml.safe_load(self._store('ConfigMap')['kube-public/cluster-info']['data']['kubeconfig'])
            updated = copy.deepcopy(secret)
            updated['data'] = dict(secret.get('data') or {}, **{
                'token': b64('sim-sa-token.%s.%s.%s' % (namespace, account, secrets.token_hex(16))),
                'ca.crt': ca_data['clusters'][0]['cluster']['certificate-authority-data'],
                'namespace': b64(namespace)})
            self._write_status('Secret', key, updated)

    def _sign_cluster_info(self):
        """kube-controller-manager's bootstrapsigner: a JWS of cluster-info's kubeconfig per signing token."""
        key = 'kube-public/cluster-info'
        cluster_info = self._store('ConfigMap').get(key)
        if cluster_info is None:
            return
        kubeconfig = cluster_info['data']['kubeconfig']
        signatures = {}
        for _key, data in self._bootstrap_tokens():
            if data.get('usage-bootstrap-signing') == 'true' and data.get('token-id') and data.get('token-secret'):
                signatures['jws-kubeconfig-%s' % data['token-id']] = detached_jws(
                    kubeconfig, data['token-id'], data['token-secret'])
        wanted = dict({k: v for k, v in cluster_info['data'].items() if not k.startswith('jws-kubeconfig-')},
                      **signatures)
        if wanted != cluster_info['data']:
            updated = copy.deepcopy(cluster_info)
            updated['data'] = wanted
            self._write_status('ConfigMap', key, updated)

    # -- nodes ------------------------------------------------------------------------------------

    def windows_nodes(self):
        """{node name: SimNode} of the simulated Windows nodes in the state directory."""
        found = {}
        if not self.state_dir or not os.path.isdir(self.state_dir):
            return found
        for entry in sorted(os.listdir(self.state_dir)):
            if entry.endswith('.json') and os.path.exists(os.path.join(self.state_dir, entry + '.lock')):
                host = entry[:-5]
                node = sim_node.peek(self.state_dir, host)
                # Other shared models (web.json) keep their lock the same way; a node has services.
                if node is not None and 'services' in node.data:
                    found[host.lower()] = node
        return found

    @staticmethod
    def kubelet_joined(node):
        kubelet = node.data['services'].get(KUBELET_SERVICE)
        running = bool(kubelet) and kubelet.get('state') == 'running'
        return running and node.file(KUBELET_KUBECONFIG) is not None

    @staticmethod
    def kubelet_starts(node):
        return (node.data['services'].get(KUBELET_SERVICE) or {}).get('starts', 0)

    def _sync_windows_nodes(self):
        deleted = self.data.setdefault('deleted_nodes', {})
        for name, node in self.windows_nodes().items():
            joined = self.kubelet_joined(node)
            if name not in self.data['registered_nodes']:
                # The kubelet registers its Node once per start: a kubelet that was running when its
                # Node was deleted does not register it again until it is started again.
                if not joined or self.kubelet_starts(node) <= deleted.get(name, -1):
                    continue
                self.data['registered_nodes'].append(name)
                deleted.pop(name, None)
            self._write_status('Node', name, self._windows_node(name, node, joined))

    def _forget_windows_node(self, name):
        """A deleted Windows Node: node IPAM releases its podCIDR; its kubelet registers it again when it next starts."""
        self.data['registered_nodes'].remove(name)
        self.data['node_cidrs'].pop(name, None)
        self.data.get('node_cidrs_ipv6', {}).pop(name, None)
        node = self.windows_nodes().get(name)
        self.data.setdefault('deleted_nodes', {})[name] = self.kubelet_starts(node) if node else 0

    def _node_lifecycle(self):
        """The node lifecycle controller's taint for a cordoned Node (spec.unschedulable, which
        kubectl cordon and drain set), so that the scheduler keeps new pods off it."""
        for key, node in list(self._store('Node').items()):
            spec = node.get('spec') or {}
            cordoned = bool(spec.get('unschedulable'))
            taints = [t for t in spec.get('taints') or [] if t.get('key') != UNSCHEDULABLE_TAINT]
            if cordoned:
                taints.append({'key': UNSCHEDULABLE_TAINT, 'effect': 'NoSchedule'})
            updated = copy.deepcopy(node)
            # The API server does not keep a false unschedulable (omitempty).
            updated['spec'] = {k: v for k, v in spec.items() if k not in ('taints', 'unschedulable')}
            if cordoned:
                updated['spec']['unschedulable'] = True
            if taints:
                updated['spec']['taints'] = taints
            self._write_status('Node', key, updated)

    def _pod_cidr(self, name):
        """kube-controller-manager's node IPAM: a /24 of podSubnet per node (flannel leases it)."""
        cidrs = self._pod_cidrs(name)
        return cidrs[0] if cidrs else None

    def _pod_cidrs(self, name):
        """A node's podCIDRs, one of each family of podSubnet in its order (spec.podCIDRs)."""
        ranges = ranges_by_family(self.profile.get('pod_subnet'))
        stores = {'IPv4': 'node_cidrs', 'IPv6': 'node_cidrs_ipv6'}
        out = []
        for family, network in ranges.items():
            cidr = self._allocate_node_cidr(self.data.setdefault(stores[family], {}), name, network,
                                            'next_cidr_index' if family == 'IPv4' else 'next_cidr_index_ipv6')
            if cidr:
                out.append(cidr)
        return out

    def _allocate_node_cidr(self, cidrs, name, network, counter):
        if name not in cidrs:
            # The range allocator goes on from the CIDR after the last one it handed out, so a Node
            # deleted and registered again gets another podCIDR (hence flannel's stale leases).
            taken = set(cidrs.values())
            prefix = NODE_CIDR_MASK_SIZES[network.version]
            count = 2 ** (prefix - network.prefixlen)
            start = self.data.get(counter, 0)
            for offset in range(count):
                index = (start + offset) % count
                subnet = str(ipaddress.ip_network((int(network.network_address) + index * 2 ** (network.max_prefixlen - prefix),
                                                   prefix)))
                if subnet not in taken:
                    cidrs[name] = subnet
                    self.data[counter] = index + 1
                    break
        return cidrs.get(name)

    def _windows_node(self, name, node, joined):
        build = node.data['os']['build']
        labels = {
            'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'windows',
            'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'windows',
            'node.kubernetes.io/windows-build': '10.0.%d' % build,
        }
        for label in self.faults['drop_labels'].get(name, []):
            labels.pop(label, None)
        if not joined:
            conditions = _node_conditions(False, 'NodeStatusUnknown', 'Kubelet stopped posting node status.',
                                          status='Unknown')
            taints = [{'key': 'node.kubernetes.io/unreachable', 'effect': 'NoSchedule'},
                      {'key': 'node.kubernetes.io/unreachable', 'effect': 'NoExecute'}]
        elif name in self.faults['not_ready']:
            conditions = _node_conditions(False, 'KubeletNotReady', 'container runtime network not ready: '
                                          'NetworkReady=false reason:NetworkPluginNotReady message:Network plugin '
                                          'returns error: cni plugin not initialized')
            taints = [{'key': 'node.kubernetes.io/not-ready', 'effect': 'NoSchedule'},
                      {'key': 'node.kubernetes.io/not-ready', 'effect': 'NoExecute'}]
        else:
            conditions = _node_conditions(True, 'KubeletReady', 'kubelet is posting ready status')
            taints = []
        kubelet = node.data['services'].get(KUBELET_SERVICE) or {}
        address = _kubelet_address(node, kubelet)
        # spec.unschedulable belongs to whoever cordoned the Node, not to the kubelet; the node
        # lifecycle controller taints a cordoned Node (_node_lifecycle).
        existing = self._store('Node').get(name)
        cordoned = existing is not None and bool((existing.get('spec') or {}).get('unschedulable'))
        if cordoned:
            taints.append({'key': UNSCHEDULABLE_TAINT, 'effect': 'NoSchedule'})
        spec = {'taints': taints} if taints else {}
        if cordoned:
            spec['unschedulable'] = True
        cidrs = self._pod_cidrs(name)
        if cidrs:
            spec.update(podCIDR=cidrs[0], podCIDRs=cidrs)
        # The kubelet patches its Node's status and its own labels; annotations others set stay.
        metadata = {'name': name, 'labels': labels}
        if existing is not None and existing['metadata'].get('annotations'):
            metadata['annotations'] = copy.deepcopy(existing['metadata']['annotations'])
        return {
            'apiVersion': 'v1', 'kind': 'Node',
            'metadata': metadata,
            'spec': spec,
            'status': {
                'addresses': [{'type': 'InternalIP', 'address': address}, {'type': 'Hostname', 'address': name}],
                'conditions': conditions,
                'nodeInfo': {'architecture': 'amd64', 'operatingSystem': 'windows',
                             'osImage': node.data['os']['product_name'],
                             'kernelVersion': '10.0.%d.%d' % (build, node.data['os']['ubr']),
                             'kubeletVersion': kubelet.get('version') or self.profile['version'],
                             'kubeProxyVersion': '',
                             'containerRuntimeVersion': self._runtime_version(node)},
            },
        }

    # The runtimes a Windows kubelet talks to, by service name, which is also the name CRI's Version reports
    # (cri-dockerd answers for Docker Engine, whose service is "docker", as "docker").
    RUNTIME_SERVICES = ('containerd', 'docker')

    def _runtime_version(self, node):
        """containerRuntimeVersion as the kubelet writes it: "<runtime>://<version>" from the CRI Version call
        (kubernetes pkg/kubelet/nodestatus/setters.go, VersionInfo), here the release of the runtime service's
        running binary; the profile's value for a runtime the simulation did not install."""
        for runtime in self.RUNTIME_SERVICES:
            service = node.data['services'].get(runtime) or {}
            if service.get('state') == 'running' and service.get('version'):
                return '%s://%s' % (runtime, service['version'].lstrip('v'))
        return self.profile['container_runtime_version']

    def node_ready(self, node):
        return any(c['type'] == 'Ready' and c['status'] == 'True' for c in node['status']['conditions'])

    # -- workloads --------------------------------------------------------------------------------

    def _pod_spec_with_runtime_class(self, pod_spec):
        """The pod spec as admission leaves it: a RuntimeClass adds its nodeSelector and tolerations."""
        name = pod_spec.get('runtimeClassName')
        if not name:
            return pod_spec, None
        runtime_class = self.get('RuntimeClass', None, name)
        if runtime_class is None:
            return None, 'pod rejected: RuntimeClass "%s" not found' % name
        scheduling = runtime_class.get('scheduling') or {}
        spec = copy.deepcopy(pod_spec)
        selector = dict(spec.get('nodeSelector') or {})
        for key, value in (scheduling.get('nodeSelector') or {}).items():
            if key in selector and selector[key] != value:
                return None, ('pod rejected: conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; '
                              'pod.spec.nodeSelector[%s] = %s' % (key, value, key, selector[key]))
            selector[key] = value
        spec['nodeSelector'] = selector
        spec['tolerations'] = list(spec.get('tolerations') or []) + list(scheduling.get('tolerations') or [])
        return spec, None

    def _reconcile_deployments(self):
        nodes = list(self._store('Node').values())
        pods = self._store('Pod')
        live_owners = set()
        for deployment in list(self._store('Deployment').values()):
            uid = deployment['metadata']['uid']
            live_owners.add(uid)
            namespace = deployment['metadata']['namespace']
            template = deployment['spec']['template']
            template_hash = hashlib.sha256(json.dumps(template, sort_keys=True).encode()).hexdigest()[:10]
            owned = {k: p for k, p in pods.items() if _owner_uid(p) == uid}
            for key, pod in owned.items():
                if pod['metadata']['labels'].get('pod-template-hash') != template_hash:
                    del pods[key]
            owned = {k: p for k, p in pods.items() if _owner_uid(p) == uid}
            spec, rejected = self._pod_spec_with_runtime_class(template.get('spec') or {})
            replicas = deployment['spec'].get('replicas', 1)
            if rejected:
                for key in owned:
                    del pods[key]
                owned = {}
            while spec is not None and len(owned) < replicas:
                self.data['counters']['pods'] += 1
                suffix = hashlib.sha256(('%s-%d' % (uid, self.data['counters']['pods'])).encode()).hexdigest()[:5]
                name = '%s-%s-%s' % (deployment['metadata']['name'], template_hash, suffix)
                pod = {'apiVersion': 'v1', 'kind': 'Pod',
                       'metadata': {'name': name, 'namespace': namespace,
                                    'labels': dict(template['metadata'].get('labels') or {},
                                                   **{'pod-template-hash': template_hash}),
                                    'ownerReferences': [{'apiVersion': 'apps/v1', 'kind': 'ReplicaSet',
                                                         'name': '%s-%s' % (deployment['metadata']['name'],
                                                                            template_hash),
                                                         'uid': uid, 'controller': True}]},
                       'spec': copy.deepcopy(spec), 'status': {'phase': 'Pending'}}
                key = '%s/%s' % (namespace, name)
                self._write_status('Pod', key, pod)
                owned[key] = pods[key]
            for key in sorted(owned)[replicas:]:
                del pods[key]
                owned.pop(key)
            for key, pod in owned.items():
                self._run_pod(key, copy.deepcopy(pod), nodes)
            self._deployment_status(deployment, [pods[k] for k in owned], rejected)
        # The garbage collector removes pods whose owner is gone; DaemonSets own pods too.
        live_owners.update(d['metadata']['uid'] for d in self._store('DaemonSet').values())
        for key in [k for k, p in pods.items() if _owner_uid(p) and _owner_uid(p) not in live_owners]:
            del pods[key]

    def _run_pod(self, key, pod, nodes):
        """Schedule a pod and set its status from its node (readiness, image OS and build)."""
        spec = pod['spec']
        by_name = {n['metadata']['name']: n for n in nodes}
        if not spec.get('nodeName') or spec['nodeName'] not in by_name:
            spec.pop('nodeName', None)
            candidates = [n for n in nodes if fits_node(spec, n)]
            if not candidates:
                pod['status'] = {'phase': 'Pending', 'conditions': [{
                    'type': 'PodScheduled', 'status': 'False', 'reason': 'Unschedulable',
                    'message': '0/%d nodes are available: %d node(s) didn\'t match Pod\'s node affinity/selector or '
                               'had untolerated taints.' % (len(nodes), len(nodes))}]}
                self._write_status('Pod', key, pod)
                return
            load = {}
            for other in self._store('Pod').values():
                load[other['spec'].get('nodeName')] = load.get(other['spec'].get('nodeName'), 0) + 1
            chosen = min(candidates, key=lambda n: (load.get(n['metadata']['name'], 0), n['metadata']['name']))
            spec['nodeName'] = chosen['metadata']['name']
        node = by_name[spec['nodeName']]
        problem = _image_problem(spec, node)
        ready = self.node_ready(node) and problem is None
        statuses = [{'name': c['name'], 'image': c.get('image'), 'ready': ready, 'restartCount': 0,
                     'state': ({'running': {}} if problem is None else
                               {'waiting': {'reason': problem[0], 'message': problem[1]}})}
                    for c in spec.get('containers') or []]
        pod_ips = pod['status'].get('podIPs') or self._pod_ips(node)
        pod['status'] = {
            'phase': 'Running' if problem is None else 'Pending',
            'hostIP': node['status']['addresses'][0]['address'],
            # podIP is the first of podIPs, the address of the node's first podCIDR's family.
            'podIP': pod_ips[0]['ip'] if pod_ips else None,
            'conditions': [{'type': 'PodScheduled', 'status': 'True'},
                           {'type': 'Ready', 'status': 'True' if ready else 'False'},
                           {'type': 'ContainersReady', 'status': 'True' if ready else 'False'}],
            'containerStatuses': statuses,
        }
        if pod_ips:
            pod['status']['podIPs'] = pod_ips
        self._write_status('Pod', key, pod)

    def _pod_ips(self, node):
        """status.podIPs: an address from each of the node's podCIDRs (one per family on a dual-stack node)."""
        cidrs = (node.get('spec') or {}).get('podCIDRs') or []
        if not cidrs:
            return []
        self.data['counters']['pods'] += 1
        out = []
        for cidr in cidrs:
            network = ipaddress.ip_network(cidr)
            span = min(network.num_addresses - 12, 2 ** 16)
            out.append({'ip': str(network.network_address + 10 + self.data['counters']['pods'] % span)})
        return out

    def _deployment_status(self, deployment, pods, rejected):
        replicas = deployment['spec'].get('replicas', 1)
        ready = sum(1 for p in pods if _pod_ready(p))
        status = {'observedGeneration': deployment['metadata'].get('generation', 1),
                  'replicas': len(pods), 'updatedReplicas': len(pods), 'readyReplicas': ready,
                  'availableReplicas': ready}
        if len(pods) - ready:
            status['unavailableReplicas'] = len(pods) - ready
        status = {k: v for k, v in status.items() if v or k == 'observedGeneration'}
        available = ready >= replicas
        conditions = [{'type': 'Available', 'status': 'True' if available else 'False',
                       'reason': 'MinimumReplicasAvailable' if available else 'MinimumReplicasUnavailable',
                       'message': 'Deployment has minimum availability.' if available
                       else 'Deployment does not have minimum availability.'}]
        if rejected:
            conditions.append({'type': 'ReplicaFailure', 'status': 'True', 'reason': 'FailedCreate',
                               'message': 'pods "%s-" is forbidden: %s' % (deployment['metadata']['name'], rejected)})
        status['conditions'] = conditions
        key = '%s/%s' % (deployment['metadata']['namespace'], deployment['metadata']['name'])
        updated = copy.deepcopy(self._store('Deployment')[key])
        updated['status'] = status
        self._write_status('Deployment', key, updated)

    # -- disruption budgets (Kubernetes docs, "Disruptions" and "Specifying a Disruption Budget for your Application";
    # the policy/v1 PodDisruptionBudgetStatus fields) -------------------------------------------------------------

    def _budget_pods(self, budget):
        namespace = budget['metadata']['namespace']
        selector = budget['spec']['selector']['matchLabels']
        return [pod for pod in self._store('Pod').values() if pod['metadata']['namespace'] == namespace
                and all((pod['metadata'].get('labels') or {}).get(k) == v for k, v in selector.items())]

    def reconcile_disruption_budgets(self):
        """The disruption controller: each budget's expectedPods (the pods its selector picks, which the simulated
        controllers keep at their replicas), currentHealthy (those Ready), desiredHealthy (minAvailable, or expectedPods
        less maxUnavailable; neither: 0) and disruptionsAllowed (currentHealthy less desiredHealthy, at least 0)."""
        for key, budget in list(self._store('PodDisruptionBudget').items()):
            pods = self._budget_pods(budget)
            spec = budget['spec']
            healthy = sum(1 for pod in pods if _pod_ready(pod))
            if 'minAvailable' in spec:
                desired = spec['minAvailable']
            else:
                desired = max(0, len(pods) - spec.get('maxUnavailable', len(pods)))
            updated = copy.deepcopy(budget)
            updated['status'] = {'observedGeneration': budget['metadata'].get('generation', 1),
                                 'expectedPods': len(pods), 'currentHealthy': healthy, 'desiredHealthy': desired,
                                 'disruptionsAllowed': max(0, healthy - desired)}
            self._write_status('PodDisruptionBudget', key, updated)

    def eviction_refusal(self, namespace, name):
        """Why the Eviction API refuses to evict a pod now (None: it evicts): with a budget that selects the pod and
        allows no disruption it answers 429 TooManyRequests, its Status naming the budget in a DisruptionBudget cause
        (Kubernetes docs, "API-initiated eviction"). An unready pod may go while the budget has its desired healthy
        pods (unhealthyPodEvictionPolicy IfHealthyBudget, the default). Returns (message, cause)."""
        pod = self._store('Pod').get('%s/%s' % (namespace, name))
        if pod is None:
            return None
        self.reconcile_disruption_budgets()
        for budget in sorted(self._store('PodDisruptionBudget').values(), key=lambda b: b['metadata']['name']):
            if pod not in self._budget_pods(budget):
                continue
            status = budget['status']
            if status['disruptionsAllowed'] > 0 or (not _pod_ready(pod) and status['currentHealthy'] >= status['desiredHealthy']):
                continue
            return ("Cannot evict pod as it would violate the pod's disruption budget.",
                    'The disruption budget %s needs %d healthy pods and has %d currently'
                    % (budget['metadata']['name'], status['desiredHealthy'], status['currentHealthy']))
        return None

    def _reconcile_daemonsets(self):
        if self.state_dir is not None:
            # The pods the garbage collector removed with their DaemonSet: their HostProcess processes end.
            hostprocess.stop_gone(self)
        nodes = list(self._store('Node').values())
        for key, daemon_set in list(self._store('DaemonSet').items()):
            pod_spec = daemon_set['spec']['template'].get('spec') or {}
            # The DaemonSet controller tolerates the node lifecycle taints itself.
            spec = dict(pod_spec, tolerations=list(pod_spec.get('tolerations') or []) + [
                {'key': 'node.kubernetes.io/not-ready', 'operator': 'Exists'},
                {'key': 'node.kubernetes.io/unreachable', 'operator': 'Exists'},
                {'key': 'node.kubernetes.io/unschedulable', 'operator': 'Exists', 'effect': 'NoSchedule'}])
            eligible = [n for n in nodes if fits_node(spec, n)]
            ready = [n for n in eligible if self.node_ready(n) and _image_problem(spec, n) is None]
            if hostprocess.is_hostprocess(pod_spec):
                # Its pods are run on the Windows nodes (hostprocess.py); the others' pods are not modelled.
                pods = hostprocess.reconcile(self, daemon_set, spec, nodes)
                ready = [n for n in eligible if _pod_ready(pods[n['metadata']['name']])]
            status = {'currentNumberScheduled': len(eligible), 'desiredNumberScheduled': len(eligible),
                      'numberAvailable': len(ready), 'numberMisscheduled': 0, 'numberReady': len(ready),
                      'observedGeneration': daemon_set['metadata'].get('generation', 1),
                      'updatedNumberScheduled': len(eligible)}
            if len(eligible) - len(ready):
                status['numberUnavailable'] = len(eligible) - len(ready)
            updated = copy.deepcopy(daemon_set)
            updated['status'] = status
            self._write_status('DaemonSet', key, updated)

    def _reconcile_endpoints(self):
        pods = [p for p in self._store('Pod').values() if p['status'].get('podIP')]
        wanted_endpoints, wanted_slices = {}, {}
        for service in self._store('Service').values():
            selector = service['spec'].get('selector')
            if not selector:
                continue
            namespace, name = service['metadata']['namespace'], service['metadata']['name']
            members = [p for p in pods if p['metadata']['namespace'] == namespace
                       and all(p['metadata'].get('labels', {}).get(k) == v for k, v in selector.items())]
            ports = [{'name': port.get('name'), 'port': _target_port(port, members), 'protocol': port['protocol']}
                     for port in service['spec'].get('ports') or []]
            ports = [{k: v for k, v in port.items() if v is not None} for port in ports]
            ready = [p for p in members if _pod_ready(p)]
            not_ready = [p for p in members if not _pod_ready(p)]
            subset = {}
            if ready:
                subset['addresses'] = [_endpoint_address(p) for p in ready]
            if not_ready:
                subset['notReadyAddresses'] = [_endpoint_address(p) for p in not_ready]
            endpoints = {'apiVersion': 'v1', 'kind': 'Endpoints',
                         'metadata': {'name': name, 'namespace': namespace,
                                      'labels': dict(service['metadata'].get('labels') or {})}}
            if subset:
                subset['ports'] = ports
                endpoints['subsets'] = [subset]
            wanted_endpoints['%s/%s' % (namespace, name)] = endpoints
            # One slice per family of the Service (addressType), each with the members' address of that family.
            for family in service['spec'].get('ipFamilies') or ['IPv4']:
                suffix = '' if family == 'IPv4' else '-ipv6'
                slice_name = '%s-%s%s' % (name, hashlib.sha256(service['metadata']['uid'].encode()).hexdigest()[:5],
                                          suffix)
                wanted_slices['%s/%s' % (namespace, slice_name)] = {
                    'apiVersion': 'discovery.k8s.io/v1', 'kind': 'EndpointSlice', 'addressType': family,
                    'metadata': {'name': slice_name, 'namespace': namespace, 'labels': {
                        'kubernetes.io/service-name': name,
                        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'},
                        'ownerReferences': [{'apiVersion': 'v1', 'kind': 'Service', 'name': name,
                                             'uid': service['metadata']['uid'], 'controller': True}]},
                    'endpoints': [{'addresses': [_pod_address(p, family)],
                                   'conditions': {'ready': _pod_ready(p), 'serving': _pod_ready(p),
                                                  'terminating': False},
                                   'nodeName': p['spec'].get('nodeName'),
                                   'targetRef': {'kind': 'Pod', 'name': p['metadata']['name'], 'namespace': namespace}}
                                  for p in members if _pod_address(p, family)],
                    'ports': ports,
                }
        for kind, wanted in (('Endpoints', wanted_endpoints), ('EndpointSlice', wanted_slices)):
            store = self._store(kind)
            for key in [k for k in store if k not in wanted]:
                del store[key]
            for key, obj in wanted.items():
                self._write_status(kind, key, obj)

    # -- what a client on a Windows node reaches ---------------------------------------------------

    def service_backends(self, cluster_ip, port):
        """(service, ready pods behind it on Windows nodes) for a ClusterIP and port, or (None, [])."""
        for service in self._store('Service').values():
            if cluster_ip not in (service['spec'].get('clusterIPs') or [service['spec'].get('clusterIP')]):
                continue
            family = FAMILY_OF_VERSION[ipaddress.ip_address(cluster_ip).version]
            if not any(p['port'] == port for p in service['spec'].get('ports') or []):
                return service, []
            nodes = self._store('Node')
            slices = [s for s in self._store('EndpointSlice').values()
                      if s['metadata']['labels'].get('kubernetes.io/service-name') == service['metadata']['name']
                      and s['metadata']['namespace'] == service['metadata']['namespace']
                      and s.get('addressType', 'IPv4') == family]
            backends = [e for s in slices for e in s['endpoints'] if e['conditions']['ready']
                        and (nodes.get(e.get('nodeName')) or {}).get('metadata', {}).get('labels', {})
                        .get('kubernetes.io/os') == 'windows']
            return service, backends
        return None, []


def _plural(kind):
    return kind.lower() + ('es' if kind.endswith('s') else 's')


def _require_string_map(mapping, field):
    if mapping is None:
        return
    if not isinstance(mapping, dict):
        raise ApiError(400, 'BadRequest', 'json: cannot unmarshal %s into Go struct field %s of type map[string]string'
                       % (type(mapping).__name__, field))
    for key, value in mapping.items():
        if not isinstance(value, str):
            raise ApiError(400, 'BadRequest', 'json: cannot unmarshal %s into Go struct field %s[%s] of type string'
                           % ('number' if isinstance(value, (int, float)) and not isinstance(value, bool)
                              else type(value).__name__, field, key))


def _normalize_secret(obj):
    """The API server stores a Secret's stringData base64-encoded in data and drops stringData."""
    if obj.get('kind') != 'Secret' or 'stringData' not in obj:
        return
    string_data = obj.pop('stringData') or {}
    _require_string_map(string_data, 'stringData')
    obj['data'] = dict(obj.get('data') or {}, **{k: b64(v) for k, v in string_data.items()})
    obj.setdefault('type', 'Opaque')


def detached_jws(payload, token_id, token_secret):
    """A compact JWS with detached payload, HS256 keyed with the token secret (bootstrapsigner's format)."""
    def encode(raw):
        return base64.urlsafe_b64encode(raw).rstrip(b'=').decode('ascii')
    header = encode(json.dumps({'alg': 'HS256', 'kid': token_id}, separators=(',', ':')).encode())
    signing_input = ('%s.%s' % (header, encode(payload.encode()))).encode()
    signature = encode(hmac.new(token_secret.encode(), signing_input, hashlib.sha256).digest())
    return '%s..%s' % (header, signature)


def _owner_uid(obj):
    for reference in obj['metadata'].get('ownerReferences') or []:
        return reference.get('uid')
    return None


def _pod_ready(pod):
    return any(c['type'] == 'Ready' and c['status'] == 'True' for c in pod['status'].get('conditions') or [])


def _pod_address(pod, family):
    """The pod's address of a family (status.podIPs), or None."""
    for entry in pod['status'].get('podIPs') or [{'ip': pod['status'].get('podIP')}]:
        if entry.get('ip') and FAMILY_OF_VERSION[ipaddress.ip_address(entry['ip']).version] == family:
            return entry['ip']
    return None


def _endpoint_address(pod):
    return {'ip': pod['status']['podIP'], 'nodeName': pod['spec'].get('nodeName'),
            'targetRef': {'kind': 'Pod', 'name': pod['metadata']['name'], 'namespace': pod['metadata']['namespace']}}


def _target_port(port, pods):
    target = port.get('targetPort', port['port'])
    if isinstance(target, int):
        return target
    for pod in pods:
        for container in pod['spec'].get('containers') or []:
            for container_port in container.get('ports') or []:
                if container_port.get('name') == target:
                    return container_port['containerPort']
    return None


def _image_problem(pod_spec, node):
    """(reason, message) when the pod's images cannot run on the node, else None."""
    node_os = node['metadata']['labels'].get('kubernetes.io/os')
    build_label = node['metadata']['labels'].get('node.kubernetes.io/windows-build', '')
    for container in pod_spec.get('containers') or []:
        image = container.get('image', '')
        windows_image = image.startswith(WINDOWS_IMAGES)
        if windows_image and node_os != 'windows':
            return 'ErrImagePull', 'no matching manifest for linux/amd64 in the manifest list entries'
        if not windows_image and node_os == 'windows':
            return 'ErrImagePull', 'no matching manifest for windows/amd64 %s in the manifest list entries' % (
                build_label)
        tag = image.rsplit(':', 1)[-1] if ':' in image.rsplit('/', 1)[-1] else ''
        image_build = WINDOWS_IMAGE_TAG_BUILDS.get(tag)
        if windows_image and image_build and build_label and build_label != '10.0.%d' % image_build:
            return 'CreateContainerError', ('hcs::CreateComputeSystem: The container operating system does not '
                                            'match the host operating system.')
    return None


# -- storage ----------------------------------------------------------------------------------------

def _profile_from_environment():
    text = os.environ.get(PROFILE_ENV)
    if not text:
        return {}
    try:
        profile = json.loads(text)
    except ValueError as error:
        raise SimulationError('%s is not a JSON object: %s' % (PROFILE_ENV, error)) from error
    if not isinstance(profile, dict):
        raise SimulationError('%s is not a JSON object' % PROFILE_ENV)
    return profile


@contextlib.contextmanager
def open_cluster(state_dir, profile=None, reconcile=True):
    """Lock, load (creating it from ``profile`` when new), reconcile and, on success, save the cluster."""
    os.makedirs(state_dir, exist_ok=True)
    path = os.path.join(state_dir, CLUSTER_FILE)
    with open(os.path.join(state_dir, LOCK_FILE), 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(path):
            with open(path, encoding='utf-8') as handle:
                data = json.load(handle)
        else:
            data = initial_state(profile if profile is not None else _profile_from_environment())
        cluster = Cluster(data, state_dir)
        if reconcile:
            cluster.reconcile()
        yield cluster
        temporary = path + '.tmp'
        with open(temporary, 'w', encoding='utf-8') as handle:
            json.dump(cluster.data, handle, indent=1, sort_keys=True)
        os.replace(temporary, path)


def peek(state_dir):
    """Read the cluster without locking it for long (None when it does not exist yet)."""
    path = os.path.join(state_dir, CLUSTER_FILE)
    if not os.path.exists(path):
        return None
    with open(path, encoding='utf-8') as handle:
        return Cluster(json.load(handle), state_dir)
