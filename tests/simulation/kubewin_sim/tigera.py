"""The Tigera operator on the simulated cluster: its custom resources and what its controllers make of them.

Absent by default, as on a cluster that runs flannel: the kinds below are unknown to the API (kubernetes.core
answers ``api_found: false``) until a test calls ``install``, which does what applying the operator's manifests,
an ``Installation`` and (optionally) the Calico API server does. What is modelled, and from where:

- the kinds and their API groups: ``Installation`` (operator.tigera.io/v1, cluster-scoped, the one named
  ``default``), and, served by the Calico API server, ``IPPool``, ``IPAMConfiguration`` and ``FelixConfiguration``
  (projectcalico.org/v3, cluster-scoped; the IPAMConfiguration is a singleton named ``default``, the
  FelixConfiguration ``default`` holds the global settings). Sources: tigera/operator api/v1/installation_types.go;
  tigera/docs calico/reference/resources/ippool.mdx, ipamconfig.mdx and felixconfig.mdx; without the API server
  ``kubectl patch ipamconfigurations`` fails (tigera/docs windows-calico/operator.mdx);
- custom resources take JSON merge patches, never strategic merge ones (the API server answers 415; the
  Kubernetes documentation "Update API Objects in Place Using kubectl patch": strategic merge patch is not
  supported for custom resources); the enforcement is in cluster.py;
- the operator's defaulting, which it writes back into the Installation's spec: ``cni`` Calico with Calico IPAM,
  ``calicoNetwork.bgp`` Enabled (Calico CNI, not EKS), ``windowsDataplane`` Disabled, ``linuxDataplane``
  Iptables (pkg/controller/installation/core_controller.go); ``ipPools`` when unset and no pool exists: one pool
  ``default-ipv4-ippool`` with kubeadm's podSubnet, else 192.168.0.0/16, and per IPv4 pool encapsulation IPIP,
  natOutgoing Enabled, nodeSelector all(), blockSize 26, and names for unnamed pools: default-ipv4-ippool (and
  default-ipv6-ippool for a dual-stack pair), else cidrToName's (pkg/controller/ippool/defaults.go, kubeadm.go);
- the IP pool controller: every pool of the Installation becomes an IPPool labelled as the operator's, updated
  when the Installation changes, and the operator's pools no longer listed are deleted, a changed CIDR being a
  new pool (pkg/controller/ippool/pool_controller.go); encapsulation maps to ipipMode/vxlanMode as its
  ToProjectCalicoV3 does. A changed blockSize is the API server's refusal ("IPPool BlockSize cannot be
  modified", projectcalico/calico libcalico-go/lib/clientv3/ippool.go; tigera/docs ippool.mdx: "can only be set
  when the pool is created"): the IPPool keeps its block size and the Installation is Degraded with that message
  (ResourceUpdateError; the real operator reports it on the ippools TigeraStatus, which is not modelled);
- the operator's FelixConfiguration defaults: it creates ``default`` when absent and writes back what is unset of
  healthPort 9099, vxlanVNI 4096 and vxlanPort 4789 (core_controller.go, setDefaultsOnFelixConfiguration, for a
  provider other than OpenShift and DockerEE; utils/felix_configuration.go creates the object); set values stay;
- the Windows checks that mark the Installation Degraded (status condition) instead of rendering the Windows
  DaemonSet: the ``kubernetes-services-endpoint`` ConfigMap in ``tigera-operator`` with host and port,
  ``serviceCIDRs``, an IPv4 pool encapsulated VXLAN or None (pkg/controller/installation/validation.go),
  IPAMConfiguration strictAffinity true (windows_controller.go).

- once the Windows checks pass with ``windowsDataplane: HNS``, the Windows component: the ``calico-node-windows``
  DaemonSet and its CNI ConfigMap (calico_windows.py, whose pods hostprocess.py runs on the Windows nodes).

Not modelled: the operator's Linux workloads (calico-node, typha), TigeraStatus, the crd.projectcalico.org/v1
storage behind the API server (so without the API server no FelixConfiguration is seen), the operator's other
FelixConfiguration settings, and a user's own blockSize edit of an IPPool.
"""

import copy
import ipaddress

import yaml

from kubewin_sim import calico_windows

OPERATOR_NAMESPACE = 'tigera-operator'
CALICO_NAMESPACE = 'calico-system'
SERVICES_ENDPOINT_CONFIGMAP = 'kubernetes-services-endpoint'

OPERATOR_KINDS = {'Installation': ('operator.tigera.io/v1', False)}
API_SERVER_KINDS = {'IPPool': ('projectcalico.org/v3', False), 'IPAMConfiguration': ('projectcalico.org/v3', False),
                    'FelixConfiguration': ('projectcalico.org/v3', False)}
# What setDefaultsOnFelixConfiguration writes into FelixConfiguration default when unset (core_controller.go).
FELIX_DEFAULTS = {'healthPort': 9099, 'vxlanVNI': 4096, 'vxlanPort': 4789}
BLOCK_SIZE_IMMUTABLE = 'IPPool BlockSize cannot be modified'

DEFAULT_POOL_NAME = 'default-ipv4-ippool'
DEFAULT_V6_POOL_NAME = 'default-ipv6-ippool'
DEFAULT_POOL_CIDR = '192.168.0.0/16'
# An IPv4 pool's blockSize when none is given: the operator's default, and the IPPool API's (libcalico-go).
DEFAULT_IPV4_BLOCK_SIZE = 26
MANAGED_BY = {'app.kubernetes.io/managed-by': 'tigera-operator'}

# Installation pool encapsulation -> projectcalico.org/v3 IPPool (ipipMode, vxlanMode).
ENCAPSULATION_MODES = {
    'IPIP': ('Always', 'Never'),
    'IPIPCrossSubnet': ('CrossSubnet', 'Never'),
    'VXLAN': ('Never', 'Always'),
    'VXLANCrossSubnet': ('Never', 'CrossSubnet'),
    'None': ('Never', 'Never'),
}


def installed(cluster):
    return 'Installation' in cluster.data.get('custom_kinds', {})


def install(cluster, installation=None, api_server=True, strict_affinity=None, services_endpoint=None,
            felix_configuration=None, calico_version='v3.30.3'):
    """Install the operator on ``cluster`` (a cluster.Cluster, e.g. from harness ``edit_cluster``).

    ``installation``: the spec of the Installation ``default`` as a user writes it (None: no Installation,
    only the operator and its CRDs). ``api_server``: whether the Calico API server serves projectcalico.org/v3.
    ``strict_affinity``: None leaves IPAMConfiguration ``default`` absent, else it is created with this value.
    ``services_endpoint``: data of the ``kubernetes-services-endpoint`` ConfigMap (None: absent).
    ``felix_configuration``: the spec of FelixConfiguration ``default`` as found before the operator (None: absent;
    the operator then creates it).
    ``calico_version``: the Calico release of the operator, the tag of the images it renders.
    """
    cluster.data['calico_version'] = calico_version
    kinds = cluster.data.setdefault('custom_kinds', {})
    kinds.update({kind: list(value) for kind, value in OPERATOR_KINDS.items()})
    if api_server:
        kinds.update({kind: list(value) for kind, value in API_SERVER_KINDS.items()})
    for namespace in (OPERATOR_NAMESPACE, CALICO_NAMESPACE):
        if cluster.get('Namespace', None, namespace) is None:
            cluster.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': namespace}})
    if services_endpoint is not None:
        cluster.create({'apiVersion': 'v1', 'kind': 'ConfigMap',
                        'metadata': {'name': SERVICES_ENDPOINT_CONFIGMAP, 'namespace': OPERATOR_NAMESPACE},
                        'data': dict(services_endpoint)})
    if strict_affinity is not None:
        cluster.create({'apiVersion': 'projectcalico.org/v3', 'kind': 'IPAMConfiguration',
                        'metadata': {'name': 'default'}, 'spec': {'strictAffinity': bool(strict_affinity)}})
    if felix_configuration is not None:
        cluster.create({'apiVersion': 'projectcalico.org/v3', 'kind': 'FelixConfiguration',
                        'metadata': {'name': 'default'}, 'spec': copy.deepcopy(felix_configuration)})
    if installation is not None:
        cluster.create({'apiVersion': 'operator.tigera.io/v1', 'kind': 'Installation',
                        'metadata': {'name': 'default'}, 'spec': copy.deepcopy(installation)})
    reconcile(cluster)


def _kubeadm_pod_subnet(cluster):
    config_map = cluster.get('ConfigMap', 'kube-system', 'kubeadm-config')
    if config_map is None:
        return None
    networking = (yaml.safe_load(config_map['data'].get('ClusterConfiguration') or '') or {}).get('networking') or {}
    subnets = [s.strip() for s in str(networking.get('podSubnet') or '').split(',') if s.strip()]
    return next((s for s in subnets if ipaddress.ip_network(s, strict=False).version == 4), None)


def _normalized(cidr):
    return str(ipaddress.ip_network(cidr, strict=False))


def _cidr_to_name(cidr):
    """The operator's cidrToName: the expanded network address, ':' as '.', then '-<prefix length>'."""
    network = ipaddress.ip_network(cidr, strict=False)
    return '%s-%d' % (network.network_address.exploded.replace(':', '.'), network.prefixlen)


def _fill_defaults(cluster, spec, existing_names):
    """The operator's defaulting of an Installation spec (in place); ``existing_names``: {CIDR: name} of the IPPools."""
    pools_exist = bool(existing_names)
    cni = spec.setdefault('cni', {})
    cni.setdefault('type', 'Calico')
    cni.setdefault('ipam', {}).setdefault('type', 'Calico' if cni['type'] == 'Calico' else 'HostLocal')
    network = spec.setdefault('calicoNetwork', {})
    network.setdefault('linuxDataplane', 'Iptables')
    network.setdefault('windowsDataplane', 'Disabled')
    if network.get('bgp') is None:
        network['bgp'] = 'Enabled' if cni['type'] == 'Calico' and spec.get('kubernetesProvider') != 'EKS' else 'Disabled'
    if network.get('ipPools') is None:
        if pools_exist:
            network['ipPools'] = []
        elif cni['ipam']['type'] == 'Calico':
            network['ipPools'] = [{'name': DEFAULT_POOL_NAME,
                                   'cidr': _kubeadm_pod_subnet(cluster) or DEFAULT_POOL_CIDR}]
    for pool in network.get('ipPools') or []:
        pool.setdefault('allowedUses', ['Workload', 'Tunnel'])
        if ipaddress.ip_network(pool['cidr'], strict=False).version == 4:
            pool.setdefault('encapsulation', 'IPIP' if cni['type'] == 'Calico' else 'None')
            pool.setdefault('natOutgoing', 'Enabled')
            pool.setdefault('blockSize', DEFAULT_IPV4_BLOCK_SIZE)
        else:
            pool.setdefault('encapsulation', 'None')
            pool.setdefault('natOutgoing', 'Disabled')
            pool.setdefault('blockSize', 122)
        pool.setdefault('nodeSelector', 'all()')
        pool.setdefault('disableNewAllocations', False)
        pool.setdefault('assignmentMode', 'Automatic')
        if not pool.get('name') and _normalized(pool['cidr']) in existing_names:
            # An existing pool of the same CIDR keeps its name: the operator takes it over.
            pool['name'] = existing_names[_normalized(pool['cidr'])]
        elif not pool.get('name'):
            version = ipaddress.ip_network(pool['cidr'], strict=False).version
            versions = {ipaddress.ip_network(p['cidr'], strict=False).version for p in network['ipPools']}
            if len(network['ipPools']) == 1 or (len(network['ipPools']) == 2 and versions == {4, 6}):
                pool['name'] = DEFAULT_POOL_NAME if version == 4 else DEFAULT_V6_POOL_NAME
            else:
                pool['name'] = _cidr_to_name(pool['cidr'])


def _ip_pool(pool):
    ipip, vxlan = ENCAPSULATION_MODES[pool['encapsulation']]
    return {
        'apiVersion': 'projectcalico.org/v3', 'kind': 'IPPool',
        'metadata': {'name': pool['name'], 'labels': dict(MANAGED_BY)},
        'spec': {'cidr': _normalized(pool['cidr']), 'blockSize': pool['blockSize'], 'ipipMode': ipip,
                 'vxlanMode': vxlan, 'natOutgoing': pool['natOutgoing'] == 'Enabled',
                 'nodeSelector': pool['nodeSelector'], 'allowedUses': list(pool['allowedUses']),
                 'disableBGPExport': False, 'assignmentMode': pool['assignmentMode'],
                 'disabled': bool(pool['disableNewAllocations'])},
    }


def _reconcile_pools(cluster, spec):
    """Make the Installation's pools IPPools; returns the API server's refusal, if any, else None."""
    refusal = None
    wanted = {_normalized(p['cidr']): _ip_pool(p) for p in spec['calicoNetwork'].get('ipPools') or []}
    for pool in cluster.list('IPPool'):
        ours = (pool['metadata'].get('labels') or {}).get('app.kubernetes.io/managed-by') == 'tigera-operator'
        cidr = _normalized(pool['spec']['cidr'])
        if ours and cidr not in wanted:
            cluster.delete('IPPool', None, pool['metadata']['name'])
        elif not ours and cidr in wanted:
            # A pool made out of band with the same CIDR: the operator refuses to touch it (Degraded).
            del wanted[cidr]
    for cidr, pool in wanted.items():
        existing = cluster.get('IPPool', None, pool['metadata']['name'])
        if existing is None:
            cluster.create(pool)
        elif existing['spec'].get('blockSize') != pool['spec']['blockSize']:
            refusal = 'IPPool.projectcalico.org "%s" is invalid: %s' % (pool['metadata']['name'], BLOCK_SIZE_IMMUTABLE)
        elif existing['spec'] != pool['spec'] or existing['metadata'].get('labels') != pool['metadata']['labels']:
            cluster.patch('IPPool', None, pool['metadata']['name'],
                          {'metadata': {'labels': pool['metadata']['labels']}, 'spec': pool['spec']}, 'merge')
    return refusal


def _default_felix_configuration(cluster):
    existing = cluster.get('FelixConfiguration', None, 'default')
    if existing is None:
        cluster.create({'apiVersion': 'projectcalico.org/v3', 'kind': 'FelixConfiguration',
                        'metadata': {'name': 'default'}, 'spec': dict(FELIX_DEFAULTS)})
        return
    unset = {key: value for key, value in FELIX_DEFAULTS.items() if (existing.get('spec') or {}).get(key) is None}
    if unset:
        cluster.patch('FelixConfiguration', None, 'default', {'spec': unset}, 'merge')


def windows_problem(cluster, spec):
    """Why the operator would not render Calico for Windows for this (defaulted) spec, or None."""
    if spec['calicoNetwork'].get('windowsDataplane') != 'HNS':
        return None
    endpoint = cluster.get('ConfigMap', OPERATOR_NAMESPACE, SERVICES_ENDPOINT_CONFIGMAP)
    data = (endpoint or {}).get('data') or {}
    if not data.get('KUBERNETES_SERVICE_HOST') or not data.get('KUBERNETES_SERVICE_PORT'):
        return ("services endpoint configmap '%s' does not have all required information for Calico Windows "
                "daemonset configuration" % SERVICES_ENDPOINT_CONFIGMAP)
    if spec['cni']['type'] == 'Calico':
        if not spec.get('serviceCIDRs'):
            return 'installation spec.ServiceCIDRs must be provided when using Calico CNI on Windows'
        v4 = [p for p in spec['calicoNetwork'].get('ipPools') or []
              if ipaddress.ip_network(p['cidr'], strict=False).version == 4]
        if v4 and v4[0]['encapsulation'] not in ('VXLAN', 'None'):
            return 'IPv4 IPPool encapsulation %s is not supported by Calico for Windows' % v4[0]['encapsulation']
    if spec['cni']['ipam']['type'] == 'Calico' and 'IPAMConfiguration' in cluster.data['custom_kinds']:
        ipam = cluster.get('IPAMConfiguration', None, 'default')
        if not ((ipam or {}).get('spec') or {}).get('strictAffinity'):
            return ("StrictAffinity is false, it must be set to 'true' in the default IPAMConfiguration when using "
                    "Calico IPAM on Windows")
    return None


def reconcile(cluster):
    """The operator's controllers, once (called from Cluster.reconcile)."""
    if not installed(cluster):
        return
    installation = cluster.get('Installation', None, 'default')
    if installation is None:
        return
    spec = copy.deepcopy(installation.get('spec') or {})
    serves_pools = 'IPPool' in cluster.data['custom_kinds']
    existing = cluster.list('IPPool') if serves_pools else []
    _fill_defaults(cluster, spec, {_normalized(p['spec']['cidr']): p['metadata']['name'] for p in existing})
    refusal = None
    if serves_pools:
        refusal = _reconcile_pools(cluster, spec)
    if 'FelixConfiguration' in cluster.data['custom_kinds']:
        _default_felix_configuration(cluster)
    # The pool controller reports a write the API server refused as ResourceUpdateError (pool_controller.go) on its
    # own TigeraStatus, which is not modelled: the Installation's condition stands for it.
    problem = refusal or windows_problem(cluster, spec)
    reason = 'ResourceUpdateError' if refusal else 'InvalidConfigurationError'
    condition = {'type': 'Degraded', 'status': 'True' if problem else 'False',
                 'reason': reason if problem else 'AllObjectsAvailable',
                 'message': problem or ''}
    updated = dict(copy.deepcopy(installation), spec=spec,
                   status=dict(installation.get('status') or {}, conditions=[condition]))
    cluster._write_status('Installation', 'default', updated)  # pylint: disable=protected-access
    if problem is None and spec['calicoNetwork'].get('windowsDataplane') == 'HNS':
        calico_windows.render(cluster, spec, cluster.data.get('calico_version') or 'v3.30.3')
