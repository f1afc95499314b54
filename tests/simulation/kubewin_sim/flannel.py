"""What flanneld does on a Windows node when its service starts (flannel with --kube-subnet-mgr).

Not a script simulation: ``scm.start`` calls ``run`` when the program a
service runs (directly, or as nssm's Application) is ``flanneld.exe``. flanneld

1. reads its kubeconfig (``--kubeconfig-file``) and its net-conf
   (``--net-config-path``) and finds its node through the ``NODE_NAME``
   environment variable; a missing kubeconfig or net-conf, a net-conf that is
   not JSON or has no ``Network``, an unknown backend, a VNI below 4096 or a
   port other than 4789 (vxlan on Windows), or a missing ``NODE_NAME`` make it
   log the error and exit: the service (nssm) keeps running, nothing else
   happens;
2. gets the node's lease: with a simulated cluster (kubewin_sim/cluster.py) the
   Node's ``spec.podCIDR``, and while the kubelet has not registered the node
   flanneld waits (no network, no subnet.env); without one, a subnet of
   ``Network`` from the lease file (see ``lease``);
3. creates the HNS network ``Backend.Name`` through the APIs the backends use,
   with the requests they send (windows/hns.py ``call``, windows/hcn.py): host-gw
   an L2Bridge HNS v1 network on the lease with gateway lease + 1 and no adapter
   name (HNS puts it on the vSwitch there is), and the endpoint ``<name>_ep`` at
   lease + 2 attached to the host (hostgw_windows.go; default name ``cbr0``);
   vxlan an HCN v2 Overlay network on the lease with the VNI as VSID, named
   after the interface holding the ``--iface`` address (the host vNIC once a
   vSwitch is bound), non-persistent (device_windows.go; default name
   ``flannel.<VNI>``). A network of that name with the same type and subnet is
   kept; another one is removed and created again. Creating the first vSwitch
   of the adapter drops the node's network;
4. writes ``--subnet-file`` (``FLANNEL_NETWORK``, ``FLANNEL_SUBNET`` = lease
   + 1 with the lease's prefix length, ``FLANNEL_MTU`` 1500, or 1450 for
   vxlan, ``FLANNEL_IPMASQ``).

It logs to nssm's AppStdout file (the service's ``log_file``) and in
``node.data['flanneld_log']``. The fault ``flannel_never_creates_network``
(node profile) stops it after the lease: no network, no subnet.env - what
"Waiting for the Network to be created" looks like from outside.

flanneld creates its network only when it starts (the backends' ``RegisterNetwork``,
pkg/backend/vxlan/device_windows.go ``newVXLANDevice``, hostgw_windows.go). While it
runs it only adds the other nodes' routes to the network it finds by name
(vxlan_network_windows.go ``handleSubnetEvents``: when ``hcn.GetNetworkByName`` fails it
logs "Unable to find network" and goes on): a running flanneld whose network went away
(HNS lost it, someone removed it) does not create it again until it is restarted - here
nothing runs at all until the next start. The fault ``flannel_stuck_starts`` (node
profile, a count) is the start after which flanneld does not get its network although
nothing is wrong, as reported after reboots (flannel-io/flannel#1272,
kubernetes-sigs/sig-windows-tools#89; the workaround there is restarting flanneld): that
many starts of flanneld behave as ``flannel_never_creates_network``, later ones work.
The starts it has spent are ``node.data['flannel_stuck_starts_spent']``.
"""

import contextlib
import fcntl
import hashlib
import ipaddress
import json
import ntpath
import os

from kubewin_sim import cluster as sim_cluster
from kubewin_sim.node import SimulationError
from kubewin_sim.programs import nssm_settings, split_command_line

LEASES = 'flannel-leases.json'
LEASES_LOCK = 'flannel-leases.lock'
WINDOWS_MIN_VNI = 4096
WINDOWS_VXLAN_PORT = 4789


def _flags(arguments):
    flags = {}
    for argument in arguments:
        if argument.startswith('--'):
            name, value = (argument[2:].split('=', 1) + [''])[:2]
            flags[name] = value
    return flags


@contextlib.contextmanager
def _leases(state_dir):
    path = os.path.join(state_dir, LEASES)
    # Not <file>.json.lock: that pair marks a node's state in the state directory.
    with open(os.path.join(state_dir, LEASES_LOCK), 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = {}
        if os.path.exists(path):
            with open(path, encoding='utf-8') as handle:
                data = json.load(handle)
        yield data
        with open(path, 'w', encoding='utf-8') as handle:
            json.dump(data, handle, indent=1, sort_keys=True)


def leases(state_dir):
    """{Network: {node name: subnet}} as the simulated cluster allocated them."""
    with _leases(state_dir) as data:
        return json.loads(json.dumps(data))


def lease(state_dir, network, node_name, prefix_length=24, preferred=None):
    """The node's subnet of ``network``: what the cluster allocated it, allocated on first use.

    Like the node's podCIDR, a lease stays with the node while the Network stays. A new
    one is the subnet at index ``preferred`` (node profile ``flannel_subnet_index``), else
    at sha256(node name) modulo the number of subnets, or the next free one after it -
    deterministic and distinct per node.
    """
    network = ipaddress.IPv4Network(network)
    subnets = list(network.subnets(new_prefix=prefix_length))
    with _leases(state_dir) as data:
        taken = data.setdefault(str(network), {})
        if node_name in taken:
            return ipaddress.IPv4Network(taken[node_name])
        used = set(taken.values())
        start = preferred if preferred is not None else int(hashlib.sha256(node_name.encode()).hexdigest(), 16)
        for offset in range(len(subnets)):
            candidate = str(subnets[(start + offset) % len(subnets)])
            if candidate not in used:
                taken[node_name] = candidate
                return subnets[(start + offset) % len(subnets)]
    raise SimulationError('no free subnet left in %s' % network)


def release(state_dir, node_name):
    """The node was deleted from the cluster: its leases are free again (it gets new ones when it comes back)."""
    with _leases(state_dir) as data:
        for taken in data.values():
            taken.pop(node_name, None)


def _program(service):
    nssm = nssm_settings(service) or {}
    return nssm.get('application') or split_command_line(service.get('command_line') or '')[0]


def is_flanneld(service):
    return ntpath.basename(_program(service) or '').lower() == 'flanneld.exe'


class _Exit(Exception):
    """flanneld logged an error and exited."""


def _log(node, service, line):
    node.data.setdefault('flanneld_log', []).append(line)
    del node.data['flanneld_log'][:-200]
    log_file = (nssm_settings(service) or {}).get('app_stdout')
    if log_file:
        previous = (node.file(log_file) or {}).get('content') or ''
        node.write_file(log_file, content=previous + line + '\n')


def _read(node, path, what):
    entry = node.file(path) if path else None
    if entry is None or entry.get('content') is None:
        raise _Exit('failed to %s: open %s: The system cannot find the file specified.' % (what, path))
    return entry['content'].lstrip('\ufeff')


def _net_conf(text):
    try:
        conf = json.loads(text)
        network = ipaddress.IPv4Network(conf['Network'])
    except (ValueError, KeyError, TypeError) as exc:
        raise _Exit('failed to parse net conf: %s' % exc)
    backend = conf.get('Backend') or {}
    kind = str(backend.get('Type', '')).lower()
    if kind == 'host-gw':
        return network, 'L2Bridge', backend.get('Name') or 'cbr0', None
    if kind == 'vxlan':
        vni = int(backend.get('VNI', WINDOWS_MIN_VNI))
        if vni < WINDOWS_MIN_VNI:
            raise _Exit('failed to create backend: vxlan: VNI %d is below %d, the minimum on Windows'
                        % (vni, WINDOWS_MIN_VNI))
        if int(backend.get('Port', WINDOWS_VXLAN_PORT)) != WINDOWS_VXLAN_PORT:
            raise _Exit('failed to create backend: vxlan: Windows only supports port %d' % WINDOWS_VXLAN_PORT)
        return network, 'Overlay', backend.get('Name') or 'flannel.%d' % vni, vni
    raise _Exit('failed to create backend: unknown backend type: %s' % backend.get('Type'))


def _interface_for(node, address):
    """The interface holding the --iface address, by the name Go's net.Interface gives it (the host vNIC once a
    vSwitch is bound: flannel's extIface.Iface.Name)."""
    for adapter in node.data['adapters']:
        if any(entry['address'] == address for entry in adapter['ipv4']):
            return adapter['name']
    raise _Exit('failed to find the interface with IP address %s (--iface)' % address)


def _physical(interface):
    return interface[11:-1] if interface.startswith('vEthernet (') else interface


def _vxlan_document(name, subnet, vni, interface):
    """The HostComputeNetwork newVXLANDevice creates (pkg/backend/vxlan/device_windows.go), as hcsshim's
    json.Marshal writes it: the fields in struct order, omitempty leaving the empty MacPool, Dns and Health structs."""
    return {'Name': name, 'Type': 'Overlay',
            'Policies': [{'Type': 'NetAdapterName', 'Settings': {'NetworkAdapterName': interface}}],
            'MacPool': {}, 'Dns': {},
            'Ipams': [{'Type': 'Static', 'Subnets': [{
                'IpAddressPrefix': str(subnet),
                'Policies': [{'Type': 'VSID', 'Settings': {'IsolationId': vni}}],
                'Routes': [{'NextHop': str(subnet.network_address + 1), 'DestinationPrefix': '0.0.0.0/0'}]}]}],
            # The vxlan backend creates its network non-persistent (hcn.EnableNonPersistent, 8): a reboot removes it.
            'Flags': 8, 'Health': {'Extra': {}}, 'SchemaVersion': {'Major': 2, 'Minor': 0}}


def _create_network(node, name, kind, subnet, vni, interface):
    """vxlan through HCN v2 (hcn HostComputeNetwork.Create); host-gw through HNS v1 (hostgw_windows.go: an L2Bridge
    HNSNetwork with the lease's subnet and gateway lease + 1, no adapter name)."""
    from kubewin_sim.windows import hcn, hns  # pylint: disable=import-outside-toplevel  # windows imports scm, scm this
    try:
        if vni:
            created = hcn.create_network(node, json.dumps(_vxlan_document(name, subnet, vni, interface)))
        else:
            created = hns.call(node, 'POST', '/networks/', {'Name': name, 'Type': kind, 'Subnets': [
                {'AddressPrefix': str(subnet), 'GatewayAddress': str(subnet.network_address + 1)}]})
    except (hcn.HcnFailure, hns.HnsFailure) as failure:
        raise _Exit('failed to create HostComputeNetwork %s: %s' % (name, failure)) from None
    return next(n for n in node.data['hns']['networks'] if n['id'] == created['ID'].lower())


def _ensure_network(node, name, kind, subnet, vni, interface):
    from kubewin_sim.windows import hns  # pylint: disable=import-outside-toplevel  # windows imports scm, scm this
    existing = [n for n in node.data['hns']['networks'] if n['name'].lower() == name.lower()]
    for network in existing:
        current = network['subnets'][0]
        if network['type'].lower() == kind.lower() and current['address_prefix'] == str(subnet):
            return network
        hns.call(node, 'DELETE', '/networks/%s' % network['id'])
    return _create_network(node, name, kind, subnet, vni, interface)


def _ensure_bridge_endpoint(node, network, subnet):
    """The bridge endpoint <name>_ep at lease + 2, attached to the host (hostgw_windows.go: HNSEndpoint Create, then
    HostAttach(1), taking "already attached" as done)."""
    from kubewin_sim.windows import hns  # pylint: disable=import-outside-toplevel  # windows imports scm, scm this
    name = '%s_ep' % network['name']
    address = str(subnet.network_address + 2)
    endpoints = [e for e in node.data['hns']['endpoints'] if e['name'].lower() == name.lower()]
    if endpoints and endpoints[0]['ip_address'] == address and endpoints[0]['network_id'] == network['id']:
        endpoint_id = endpoints[0]['id']
    else:
        for stale in endpoints:
            hns.call(node, 'DELETE', '/endpoints/%s' % stale['id'])
        endpoint_id = hns.call(node, 'POST', '/endpoints/', {'Name': name, 'IPAddress': address,
                                                             'VirtualNetwork': network['id'].upper()})['ID']
    try:
        hns.call(node, 'POST', '/endpoints/%s/attach' % endpoint_id, {'SystemType': 'Host', 'CompartmentId': 1})
    except hns.HnsFailure as failure:
        if 'This endpoint is already attached to the switch.' not in failure.message:
            raise _Exit('failed to hot attach bridge HNSEndpoint %s to host compartment: %s'
                        % (name, failure)) from None


def _node_subnet(node, network, node_name):
    """The node's lease: its podCIDR when a simulated cluster exists, else one of the lease file."""
    state_dir = os.environ['KUBEWIN_SIM_STATE_DIR']
    if sim_cluster.peek(state_dir) is None:
        return lease(state_dir, str(network), node_name, int(node.profile.get('flannel_subnet_length', 24)),
                     node.profile.get('flannel_subnet_index'))
    # With --kube-subnet-mgr the lease is the Node's spec.podCIDR; a node the kubelet has not
    # registered yet has none, and flanneld waits for it.
    with sim_cluster.open_cluster(state_dir) as cluster:
        registered = cluster.get('Node', None, node_name)
    cidr = ((registered or {}).get('spec') or {}).get('podCIDR')
    if not cidr:
        return None
    subnet = ipaddress.IPv4Network(cidr)
    if not subnet.subnet_of(network):
        raise _Exit('the podCIDR %s of node %s is outside the net-conf Network %s' % (subnet, node_name, network))
    return subnet


def _stuck_start(node):
    """Whether this start is one of the profile's ``flannel_stuck_starts`` (counted on the node)."""
    spent = node.data.get('flannel_stuck_starts_spent', 0)
    if spent >= int(node.profile.get('flannel_stuck_starts', 0)):
        return False
    node.data['flannel_stuck_starts_spent'] = spent + 1
    return True


def run(node, service):
    """flanneld has started under the service; do what it does, or log why it exits."""
    nssm = nssm_settings(service)
    flags = _flags(split_command_line(nssm.get('app_parameters') or '')
                   if nssm else split_command_line(service.get('command_line') or '')[1:])
    environment = dict(entry.split('=', 1) for entry in service.get('environment') or [] if '=' in entry)
    try:
        node_name = environment.get('NODE_NAME')
        if not node_name:
            raise _Exit('failed to create SubnetManager: NODE_NAME is not set, and flanneld does not run in a pod')
        _read(node, flags.get('kubeconfig-file'), 'create SubnetManager: fail to create kubernetes config')
        network, kind, name, vni = _net_conf(_read(node, flags.get('net-config-path'), 'read net conf'))
        interface = _interface_for(node, flags.get('iface'))
        if not node.hns_available():
            raise _Exit('failed to create backend: the Host Networking Service is not available')
        subnet = _node_subnet(node, network, node_name)
        if subnet is None:
            _log(node, service, 'Waiting for node %s to be registered with a podCIDR (kube-subnet-mgr)' % node_name)
            return
        _log(node, service, 'Acquired lease %s of network %s for node %s' % (subnet, network, node_name))
        if node.profile.get('flannel_never_creates_network') or _stuck_start(node):
            _log(node, service, 'Waiting for the HNS network %s to be created (management IP not found)' % name)
            return
        hns_network = _ensure_network(node, name, kind, subnet, vni, interface)
        if kind == 'L2Bridge':
            _ensure_bridge_endpoint(node, hns_network, subnet)
        masquerade = flags.get('ip-masq', 'false').lower() in ('1', 'true')
        node.write_file(flags.get('subnet-file') or 'C:\\run\\flannel\\subnet.env', content=(
            'FLANNEL_NETWORK=%s\nFLANNEL_SUBNET=%s/%d\nFLANNEL_MTU=%d\nFLANNEL_IPMASQ=%s\n'
            % (network, subnet.network_address + 1, subnet.prefixlen, 1450 if vni else 1500,
               'true' if masquerade else 'false')))
        _log(node, service, 'Running backend: HNS network %s (%s) on %s' % (name, subnet, _physical(interface)))
    except _Exit as exc:
        service['exit_code'] = 1
        _log(node, service, 'E main.go] %s' % exc)
