"""Calico for Windows on the simulated cluster: the Tigera operator's ``calico-node-windows`` DaemonSet and what the
programs of its HostProcess containers do on a Windows node.

These programs are Calico's, not the collection's: they are modelled at the program level, by their effects on the
node's Windows model (HNS through the node's operations, as windows/hns.py does; files; the registry), as
windows/kubeadm.py models kubeadm. What is modelled, and from where:

- The operator's Windows component (tigera/operator pkg/render/windows.go), rendered once the Installation has
  ``windowsDataplane: HNS`` and passes the Windows checks (tigera.windows_problem): the ConfigMap
  ``cni-config-windows`` (key ``config``: the conflist named ``Calico`` whose ``calico`` plugin has
  ``windows_use_single_network: true``, ``mode`` vxlan or windows-bgp, ``vxlan_vni``, the OutBoundNAT and
  SDNROUTE policies of ``serviceCIDRs``) and the DaemonSet ``calico-node-windows`` in ``calico-system`` (pods
  labelled ``k8s-app: calico-node-windows`` by pkg/controller/utils/component.go, nodeSelector
  ``kubernetes.io/os: windows``, every toleration, hostNetwork, HostProcess containers): init containers
  ``uninstall-calico`` and ``install-cni`` (``calico.exe component cni install``), containers ``felix`` and
  ``node`` and, with BGP, ``confd``. The Windows CNI directories default to /opt/cni/bin, /etc/cni/net.d and
  /var/log/calico/cni (render.DefaultWindowsCNIDirectories; the core controller's fillDefaults); the VXLAN VNI
  is FelixConfiguration's, 4096 by default (the operator reads it in windows_controller.go).
- ``install-cni`` (projectcalico/calico cni-plugin/pkg/install/install.go, install_windows.go): the binaries
  ``calico.exe`` and ``calico-ipam.exe`` into the CNI bin directory, ``calico-kubeconfig`` and the conflist
  (CNI_CONF_NAME ``10-calico.conflist``) into CNI_NET_DIR, with ``__KUBERNETES_NODE_NAME__``,
  ``__KUBECONFIG_FILEPATH__``, ``__NODENAME_FILE__`` (c:/var/run/calico/nodename) and ``"__DSR_SUPPORT__"``
  (true from build 18317 on) replaced.
- ``node`` (node/windows-packaging/CalicoWindows/node/node-service.ps1 and libs/calico/calico.psm1): when the boot
  time stored under HKLM\\Software\\Tigera\\Calico (value LastBootTime) is not the current one, every HNS
  network whose type is not NAT is removed; then, while there is no network named ``External``, it opens UDP
  4789 (firewall rule OverlayTraffic4789UDP, vxlan) and creates ``External``: vxlan an Overlay network
  192.168.255.0/30, gateway 192.168.255.1, VSID 9999, on VXLAN_ADAPTER (empty: HNS picks the adapter); bgp an
  L2Bridge network on the same prefix. The first external network binds the vSwitch (the node's connection
  drops: node.create_network). It then stores the boot time and, with windows-bgp, runs ``Restart-Service
  RemoteAccess``, which on a node without that service writes "Cannot find any service with service name
  'RemoteAccess'.", and where Install-RemoteAccess -VpnType RoutingOnly never ran (the service is disabled,
  windows/remoteaccess.py) writes that it cannot start the service; both are non-terminating errors: the script
  goes on, BGP is not served. Then
  ``calico.exe component node startup`` runs whenever the kubelet (re)starts: the container keeps running.
- ``calico.exe component node startup`` on Windows (node/pkg/lifecycle/startup/startup_windows.go,
  ensureNetworkForOS): IPAM's EnsureBlock gives the node its affine block (with the Windows reservations), and
  the network ``Calico`` is set up on it with its host endpoint ``Calico_ep`` (SetupVxlanNetwork for vxlan,
  SetupL2bridgeNetwork for windows-bgp, as below): so the network and endpoint exist once the node container
  ran on a node whose kubelet runs, before any pod. The block is the first of the first enabled IPv4 IPPool (its
  blockSize) that no other node holds, kept per node in the cluster (Linux nodes' blocks are not modelled).
- ``felix`` and ``confd`` wait for the node container (calico.psm1 Wait-ForCalicoInit loops, it does not exit)
  and run: running containers either way.
- HostProcess containers need the Containers feature (kubernetes.io, "Create a Windows HostProcess Pod",
  Prerequisites: HNS for the pod's network); without HNS the node container's first HNS call fails and the
  container exits (restarted with back-off by hostprocess.py). The message is the simulation's own.
- The network setup the node's start-up and the CNI ADD of a pod with a pod network share
  (cni-plugin/pkg/dataplane/windows/dataplane_windows.go, SetupVxlanNetwork / SetupL2bridgeNetwork, with
  ``windows_use_single_network``): the HNS network ``Calico`` (Overlay for vxlan with the VNI as its VSID,
  L2Bridge for bgp) on the node's IPAM block, gateway its first address, and its host endpoint ``Calico_ep``
  at the block's second address, when they do not exist yet: attached to the host for bgp, a remote endpoint
  with the management IP as its PA for vxlan (``ensure_network``). The HNS requests go through windows/hns.py's
  ``call``, as a script's do.

Not modelled: uninstall-calico's removal of a manual Calico for Windows install (there is none on these nodes),
Felix's HNS policies, confd's BGP sessions, IPAM blocks beyond one per node taken from the IP pool by node order.
"""

import datetime
import ipaddress
import json
import ntpath

DAEMONSET = 'calico-node-windows'
NAMESPACE = 'calico-system'
CNI_CONFIG_MAP = 'cni-config-windows'
CNI_CONF_NAME = '10-calico.conflist'
POD_LABELS = {'k8s-app': DAEMONSET}
NODE_IMAGE = 'calico/node-windows'
CNI_IMAGE = 'calico/cni-windows'
DEFAULT_DIRECTORIES = {'cniBinDir': '/opt/cni/bin', 'cniConfigDir': '/etc/cni/net.d', 'cniLogDir': '/var/log/calico/cni'}
# FelixConfiguration's default VXLANVNI (projectcalico/calico felix/config/config_params.go).
DEFAULT_VNI = 4096
# Relative to HKEY_LOCAL_MACHINE, as windows/registry.py keys are.
REGISTRY_KEY = 'SOFTWARE\\Tigera\\Calico'
EXTERNAL = {'name': 'External', 'address_prefix': '192.168.255.0/30', 'gateway': '192.168.255.1'}
EXTERNAL_VSID = 9999
SINGLE_NETWORK, HOST_ENDPOINT = 'Calico', 'Calico_ep'
HOSTPROCESS = {'windowsOptions': {'hostProcess': True, 'runAsUserName': 'NT AUTHORITY\\system'}}
# Where Calico's scripts are in the node image and what each container runs, in the operator's order (windows.go).
NODE_SCRIPTS = {'felix': 'CalicoWindows/felix-service.ps1', 'node': 'CalicoWindows/node-service.ps1',
                'confd': 'CalicoWindows/confd/confd-service.ps1'}


def backend(spec):
    """getWindowsBackend: windows-bgp when BGP is enabled, else vxlan."""
    return 'windows-bgp' if spec['calicoNetwork'].get('bgp') == 'Enabled' else 'vxlan'


def host_path(path):
    """A path of the Installation (/etc/cni/net.d) as the HostProcess container resolves it on drive C:."""
    return path if ':' in path else 'C:' + path.replace('/', '\\')


def _conflist(cluster, spec):
    endpoint = cluster.get('ConfigMap', 'tigera-operator', 'kubernetes-services-endpoint')['data']
    service_cidrs = list(spec.get('serviceCIDRs') or [])
    dns = cluster.get('Service', 'kube-system', 'kube-dns')
    plugin = {
        'type': 'calico', 'name': 'Calico', 'windows_use_single_network': True, 'mode': backend(spec),
        'vxlan_mac_prefix': '0E-2A', 'vxlan_vni': DEFAULT_VNI, 'mtu': 0, 'policy': {'type': 'k8s'},
        'log_file_path': 'c:/var/log/calico/cni/cni.log', 'windows_loopback_DSR': '__DSR_SUPPORT__',
        'capabilities': {'dns': True}, 'nodename': '__KUBERNETES_NODE_NAME__', 'nodename_file': '__NODENAME_FILE__',
        'nodename_file_optional': True, 'datastore_type': 'kubernetes',
        'ipam': {'type': 'calico-ipam', 'subnet': 'usePodCidr'},
        'kubernetes': {'kubeconfig': 'c:' + spec['windowsNodes']['cniConfigDir'] + '/calico-kubeconfig',
                       'k8s_api_root': 'https://%s:%s' % (endpoint['KUBERNETES_SERVICE_HOST'],
                                                          endpoint['KUBERNETES_SERVICE_PORT'])},
        'DNS': {'Nameservers': [dns['spec']['clusterIP']] if dns else [], 'Search': ['svc.cluster.local']},
        'policies': [{'Name': 'EndpointPolicy', 'Value': {'Type': 'OutBoundNAT', 'ExceptionList': service_cidrs}}]
        + [{'Name': 'EndpointPolicy', 'Value': {'Type': 'SDNROUTE', 'DestinationPrefix': cidr, 'NeedEncap': True}}
           for cidr in service_cidrs],
    }
    return json.dumps({'name': 'Calico', 'cniVersion': '0.3.1', 'plugins': [plugin]}, indent=2)


def _container(name, image, env, args=None, command=None):
    container = {'name': name, 'image': image, 'env': env, 'securityContext': HOSTPROCESS}
    if args:
        container['args'] = args
    if command:
        container['command'] = command
    return container


def render(cluster, spec, version):
    """The operator's Windows objects for a defaulted Installation ``spec`` that passed the Windows checks."""
    directories = dict(DEFAULT_DIRECTORIES, **(spec.get('windowsNodes') or {}))
    spec = dict(spec, windowsNodes=directories)
    endpoint = cluster.get('ConfigMap', 'tigera-operator', 'kubernetes-services-endpoint')['data']
    service_env = [{'name': 'KUBERNETES_SERVICE_HOST', 'value': endpoint['KUBERNETES_SERVICE_HOST']},
                   {'name': 'KUBERNETES_SERVICE_PORT', 'value': endpoint['KUBERNETES_SERVICE_PORT']}]
    config_map = {'apiVersion': 'v1', 'kind': 'ConfigMap',
                  'metadata': {'name': CNI_CONFIG_MAP, 'namespace': NAMESPACE},
                  'data': {'config': _conflist(cluster, spec)}}
    node_env = [{'name': 'CNI_PLUGIN_TYPE', 'value': 'Calico'}, {'name': 'DATASTORE_TYPE', 'value': 'kubernetes'},
                {'name': 'NODENAME', 'valueFrom': {'fieldRef': {'fieldPath': 'spec.nodeName'}}},
                {'name': 'VXLAN_VNI', 'value': str(DEFAULT_VNI)}, {'name': 'VXLAN_ADAPTER', 'value': ''},
                {'name': 'KUBE_NETWORK', 'value': 'Calico.*'},
                {'name': 'CALICO_NETWORKING_BACKEND', 'value': backend(spec)}] + service_env
    cni_env = [{'name': 'CNI_BIN_DIR', 'value': '/host/opt/cni/bin'}, {'name': 'CNI_CONF_NAME', 'value': CNI_CONF_NAME},
               {'name': 'CNI_NET_DIR', 'value': directories['cniConfigDir']},
               {'name': 'VXLAN_VNI', 'value': str(DEFAULT_VNI)},
               {'name': 'KUBERNETES_NODE_NAME', 'valueFrom': {'fieldRef': {'fieldPath': 'spec.nodeName'}}},
               {'name': 'CNI_NETWORK_CONFIG',
                'valueFrom': {'configMapKeyRef': {'name': CNI_CONFIG_MAP, 'key': 'config'}}}] + service_env
    node_image, cni_image = '%s:%s' % (NODE_IMAGE, version), '%s:%s' % (CNI_IMAGE, version)
    containers = [_container(name, node_image, node_env, args=['$env:CONTAINER_SANDBOX_MOUNT_POINT/' + script])
                  for name, script in NODE_SCRIPTS.items() if name != 'confd' or backend(spec) == 'windows-bgp']
    volumes = [{'name': 'cni-bin-dir', 'hostPath': {'path': directories['cniBinDir'], 'type': 'DirectoryOrCreate'}},
               {'name': 'cni-net-dir', 'hostPath': {'path': directories['cniConfigDir']}},
               {'name': 'cni-log-dir', 'hostPath': {'path': directories['cniLogDir'], 'type': 'DirectoryOrCreate'}}]
    mounts = [{'name': 'cni-bin-dir', 'mountPath': '/host/opt/cni/bin'},
              {'name': 'cni-net-dir', 'mountPath': '/host/etc/cni/net.d'}]
    init = [_container('uninstall-calico', node_image, [{'name': 'SLEEP', 'value': 'false'}],
                       args=['$env:CONTAINER_SANDBOX_MOUNT_POINT/uninstall-calico.ps1']),
            dict(_container('install-cni', cni_image, cni_env,
                            command=['$env:CONTAINER_SANDBOX_MOUNT_POINT/opt/cni/bin/calico.exe', 'component', 'cni',
                                     'install']), volumeMounts=mounts)]
    daemon_set = {'apiVersion': 'apps/v1', 'kind': 'DaemonSet',
                  'metadata': {'name': DAEMONSET, 'namespace': NAMESPACE, 'labels': dict(POD_LABELS)},
                  'spec': {'selector': {'matchLabels': dict(POD_LABELS)},
                           'template': {'metadata': {'labels': dict(POD_LABELS)},
                                        'spec': {'nodeSelector': {'kubernetes.io/os': 'windows'},
                                                 'tolerations': [{'operator': 'Exists'}], 'hostNetwork': True,
                                                 'serviceAccountName': 'calico-node', 'initContainers': init,
                                                 'containers': containers, 'volumes': volumes}}}}
    for wanted in (config_map, daemon_set):
        existing = cluster.get(wanted['kind'], NAMESPACE, wanted['metadata']['name'])
        if existing is None:
            cluster.create(wanted)
        elif {k: existing.get(k) for k in ('data', 'spec')} != {k: wanted.get(k) for k in ('data', 'spec')}:
            updated = dict(existing, **{k: wanted[k] for k in ('data', 'spec') if k in wanted})
            cluster._write_status(wanted['kind'], '%s/%s' % (NAMESPACE, wanted['metadata']['name']),  # pylint: disable=protected-access
                                  updated)


# -- the pod's programs on the node ---------------------------------------------------------------------------------

def is_calico_pod(pod):
    return pod['metadata'].get('labels', {}).get('k8s-app') == DAEMONSET


class ContainerExit(Exception):
    """A container's program exited with an error; the message is its last log line."""


def _environment(environment, name):
    return environment.get(name) or ''


def install_cni(sim, environment, mounts):
    """calico.exe component cni install, in the install-cni init container."""
    bin_dir = mounts['/host/opt/cni/bin']
    for binary in ('calico.exe', 'calico-ipam.exe'):
        sim.write_file(ntpath.join(bin_dir, binary), content='calico CNI plugin %s' % binary)
    net_dir = host_path(_environment(environment, 'CNI_NET_DIR'))
    kubeconfig = net_dir.replace('\\', '/') + '/calico-kubeconfig'
    sim.write_file(ntpath.join(net_dir, 'calico-kubeconfig'),
                   content='apiVersion: v1\nkind: Config\nclusters:\n- name: local\n  cluster:\n    server: https://%s:%s\n'
                   % (environment.get('KUBERNETES_SERVICE_HOST'), environment.get('KUBERNETES_SERVICE_PORT')))
    text = _environment(environment, 'CNI_NETWORK_CONFIG')
    for placeholder, value in (('__KUBERNETES_NODE_NAME__', environment.get('KUBERNETES_NODE_NAME', '')),
                               ('__KUBECONFIG_FILEPATH__', kubeconfig),
                               ('__NODENAME_FILE__', 'c:/var/run/calico/nodename')):
        text = text.replace(placeholder, value)
    text = text.replace('"__DSR_SUPPORT__"', 'true' if sim.data['os']['build'] >= 18317 else 'false')
    json.loads(text)  # "CNI config is not valid JSON" is fatal in install.go
    sim.write_file(ntpath.join(net_dir, _environment(environment, 'CNI_CONF_NAME') or CNI_CONF_NAME), content=text)


def _boot_time(sim):
    """Get-LastBootTime: Win32_OperatingSystem.LastBootUpTime as ToString("G") (en-US)."""
    boot = datetime.datetime.fromtimestamp(sim.data['os']['last_boot'], datetime.timezone.utc)
    return '%d/%d/%d %s' % (boot.month, boot.day, boot.year, boot.strftime('%I:%M:%S %p').lstrip('0'))


def node_service(cluster, sim, environment):
    """node-service.ps1 up to its kubelet watch loop, in the node container, and the start-up it runs once the
    kubelet runs."""
    from kubewin_sim.windows import hns, registry, remoteaccess, services  # pylint: disable=import-outside-toplevel  # windows imports node
    if not sim.hns_available():
        raise ContainerExit('Get-HNSNetwork: the Host Networking Service is not available (the Containers feature '
                            'is not installed, or the node was not restarted since)')
    networking = _environment(environment, 'CALICO_NETWORKING_BACKEND')
    if networking not in ('vxlan', 'windows-bgp'):
        return
    boot = _boot_time(sim)
    stored = (registry.read_key(sim, REGISTRY_KEY) or {}).get('LastBootTime', (None, None))[1]
    if stored != boot:
        for network in [n for n in sim.data['hns']['networks'] if n['type'].lower() != 'nat']:
            sim.remove_network(network['id'])
            sim.record('calico node: removed HNS network %s (first run since boot)' % network['name'])
    if not any(n['name'] == EXTERNAL['name'] for n in sim.data['hns']['networks']):
        adapter = _environment(environment, 'VXLAN_ADAPTER')
        if networking == 'vxlan':
            sim.data['firewall_rules'].setdefault('OverlayTraffic4789UDP', {
                'display_name': 'Overlay Traffic 4789 UDP', 'enabled': True, 'direction': 'inbound', 'action': 'allow',
                'protocol': 'udp', 'local_port': ['4789']})
        try:
            hns.call(sim, 'POST', '/networks/', external_request(networking == 'vxlan', adapter))
        except hns.HnsFailure as failure:
            raise ContainerExit('New-HNSNetwork External: %s' % failure.message.strip()) from None
    registry.create_key(sim, 'SOFTWARE\\Tigera')
    registry.create_key(sim, REGISTRY_KEY)
    registry.set_value(sim, REGISTRY_KEY, 'LastBootTime', 'REG_SZ', boot)
    # The service comes with the RemoteAccess feature (windows/registry.py); Get-Service names are case-insensitive.
    if networking == 'windows-bgp':
        if 'remoteaccess' not in [name.lower() for name in services.all_services(sim)]:
            sim.record("calico node: Restart-Service : Cannot find any service with service name 'RemoteAccess'.")
        elif remoteaccess.service_state(sim)['start_mode'] == 'disabled':
            sim.record("calico node: Restart-Service : Service 'Routing and Remote Access (RemoteAccess)' cannot be "
                       "started due to the following error: Cannot start service RemoteAccess on computer '.'.")
        else:
            remoteaccess.set_service_state(sim, state='running')
    if (sim.data['services'].get('kubelet') or {}).get('state') == 'running':
        block = node_block(cluster, _environment(environment, 'NODENAME'))
        ensure_network(sim, block, networking == 'vxlan', int(_environment(environment, 'VXLAN_VNI') or DEFAULT_VNI))


def node_block(cluster, node_name):
    """IPAM EnsureBlock for the node: its affine block, else the first free block of the first enabled IPv4 pool."""
    blocks = cluster.data.setdefault('calico_blocks', {})
    if node_name not in blocks:
        pools = [p['spec'] for p in cluster.list('IPPool') if not p['spec'].get('disabled')
                 and ipaddress.ip_network(p['spec']['cidr']).version == 4]
        if not pools:
            raise ContainerExit('calico.exe component node startup: no enabled IPv4 IP pool to take a block from')
        taken = set(blocks.values())
        pool = ipaddress.ip_network(pools[0]['cidr'])
        from kubewin_sim import tigera  # pylint: disable=import-outside-toplevel  # tigera imports this module
        size = int(pools[0].get('blockSize') or tigera.DEFAULT_IPV4_BLOCK_SIZE)
        blocks[node_name] = next(str(b) for b in pool.subnets(new_prefix=size) if str(b) not in taken)
    return blocks[node_name]


def run_container(cluster, sim, container, environment, mounts):
    """Run one of the pod's containers on the node; raise ContainerExit when it fails."""
    words = list(container.get('command') or []) + list(container.get('args') or [])
    program = words[0].replace('$env:CONTAINER_SANDBOX_MOUNT_POINT/', '') if words else ''
    if program == 'uninstall-calico.ps1':
        return  # nothing of a manual Calico for Windows install on these nodes
    if program == 'opt/cni/bin/calico.exe' and words[1:] == ['component', 'cni', 'install']:
        install_cni(sim, environment, mounts)
    elif program == NODE_SCRIPTS['node']:
        node_service(cluster, sim, environment)
    elif program in (NODE_SCRIPTS['felix'], NODE_SCRIPTS['confd']):
        return  # Wait-ForCalicoInit loops until the node container stored the boot time, then the program runs
    else:
        raise ValueError('no model of %r in %s' % (words, container['name']))


# -- the CNI ADD --------------------------------------------------------------------------------------------------

def cni_config(sim, conf_dir='C:\\etc\\cni\\net.d'):
    """The Calico conflist containerd would load on the node, parsed, or None."""
    found = sim.file(ntpath.join(conf_dir, CNI_CONF_NAME))
    return json.loads(found['content']) if found and found.get('content') else None


def cni_add(sim, block):
    """The Calico CNI plugin's ADD for a pod with a pod network on the node, its IPAM block ``block`` (a CIDR): the
    network setup, with the conflist's mode and VNI. Returns the network."""
    config = cni_config(sim)
    if config is None:
        raise ValueError('no Calico CNI config on the node')
    plugin = config['plugins'][0]
    return ensure_network(sim, block, plugin['mode'] == 'vxlan', plugin.get('vxlan_vni'))


def external_request(vxlan, adapter):
    """The network calico.psm1 asks hns.psm1's New-HNSNetwork for (microsoft/SDN Kubernetes/windows/hns.psm1: the
    subnet with its gateway, the VSID subnet policy, NetworkAdapterName when an adapter is named)."""
    subnet = {'AddressPrefix': EXTERNAL['address_prefix'], 'GatewayAddress': EXTERNAL['gateway']}
    if vxlan:
        subnet['Policies'] = [{'Type': 'VSID', 'VSID': EXTERNAL_VSID}]
    request = {'Type': 'Overlay' if vxlan else 'L2Bridge', 'Name': EXTERNAL['name'], 'Subnets': [subnet]}
    if adapter:
        request['NetworkAdapterName'] = adapter
    return request


def ensure_network(sim, block, vxlan, vni):
    """The single network ``Calico`` on ``block`` and its host endpoint ``Calico_ep``, each when absent, with the
    requests cni-plugin/pkg/dataplane/windows/dataplane_windows.go sends (hcsshim v1): the network without an adapter
    name (on the External network's vSwitch), an L2Bridge one's ``Calico_ep`` attached to the host compartment
    (CreateAndAttachHostEP), a VXLAN one's a remote endpoint with the management IP as its PA policy and the MAC of
    the interface holding that IP in Go's net.HardwareAddr form (createAndAttachVxlanHostEP, GetMacAddr)."""
    from kubewin_sim.windows import hns  # pylint: disable=import-outside-toplevel  # windows imports node
    network = next((n for n in sim.data['hns']['networks'] if n['name'] == SINGLE_NETWORK), None)
    if network is None:
        if not any(n['name'] == EXTERNAL['name'] for n in sim.data['hns']['networks']):
            raise ValueError('the External network does not exist yet (the node container has not run)')
        subnet = ipaddress.ip_network(block)
        request = {'Name': SINGLE_NETWORK, 'Type': 'Overlay' if vxlan else 'L2Bridge', 'Subnets': [
            {'AddressPrefix': str(subnet), 'GatewayAddress': str(subnet.network_address + 1)}]}
        if vxlan:
            request['Subnets'][0]['Policies'] = [{'Type': 'VSID', 'VSID': int(vni or DEFAULT_VNI)}]
        created = hns.call(sim, 'POST', '/networks/', request)
        network = next(n for n in sim.data['hns']['networks'] if n['id'] == created['ID'].lower())
    if not any(e['name'] == HOST_ENDPOINT for e in sim.data['hns']['endpoints']):
        address = str(ipaddress.ip_network(network['subnets'][0]['address_prefix']).network_address + 2)
        request = {'Name': HOST_ENDPOINT, 'IPAddress': address, 'VirtualNetwork': network['id'].upper()}
        if vxlan:
            management = network['management_ip']
            holder = next(a for a in sim.data['adapters'] if any(e['address'] == management for e in a['ipv4']))
            request.update(MacAddress=holder['mac_address'].replace('-', ':').lower(), IsRemoteEndpoint=True,
                           Policies=[{'Type': 'PA', 'PA': management}])
        endpoint = hns.call(sim, 'POST', '/endpoints/', request)
        if not vxlan:
            hns.call(sim, 'POST', '/endpoints/%s/attach' % endpoint['ID'], {'SystemType': 'Host', 'CompartmentId': 1})
    return network
