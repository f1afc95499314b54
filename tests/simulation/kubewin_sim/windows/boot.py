"""What a restart of Windows does to the state the collection relies on (``SimNode.reboot``: win_reboot, an
unplanned reboot, Windows Update). Sources, one per behaviour:

- **HNS networks** survive a restart unless they were created non-persistent: the HCN schema's network flag
  ``EnableNonPersistent`` (8) (microsoft/hcsshim hcn/hcnnetwork.go ``NetworkFlags``) makes HNS drop a network at the
  next boot ("ensures networks are automatically removed after host reboot", Azure/azure-container-networking#4355;
  a network left from before a reboot is found again, Siemens-Healthineers/K2s#1468: "A network with this name
  already exists" after a reboot on Windows Server 2022). flanneld's vxlan backend creates its Overlay network
  with that flag (flannel-io/flannel pkg/backend/vxlan/device_windows.go, ``newVXLANDevice``); its host-gw backend
  (hostgw_windows.go), the collection's scripts (lib/hns.ps1) and HNS v1 clients set none, so theirs persist. On
  Windows Server 2019 before KB4482887 (17763.348) external networks were not persistent at all
  (ovn-kubernetes/ovn-kubernetes#429, a Microsoft OVS maintainer: "If you do not [apply it], external HNS networks
  are not persistent across reboots"; moby/moby#38358 on 17763.1). A network that goes takes its endpoints, and
  its adapter's vSwitch when it was the adapter's last external network (the address returns to the adapter).
- **Endpoints** of a network that stays are kept with their host attachment: no source says HNS drops them, and
  flanneld's host-gw backend looks for its existing bridge endpoint when it starts (hostgw_windows.go step 5),
  which only makes sense if one can be there. A modelling assumption, named as one.
- **Policy lists** (kube-proxy's load balancers) are not kept: the load balancers are VFP rules of the running
  switch, and kube-proxy programs them again when it starts in any case (kubernetes pkg/proxy/winkernel:
  ``deleteAllHnsLoadBalancerPolicy`` "Cleaning up old HNS policy lists" in NewProxier of the HNS v1 proxier, stale
  load balancers removed on the first sync of the v2 one). Clearing them is the assumption whose outcome both
  proxiers agree on.
- **Routes**: the active store is rebuilt from the persistent one (``New-NetRoute`` page, -PolicyStore).
- **Services**: the service control manager starts every service whose start type is Automatic (or delayed
  Automatic) at boot, each after the services it depends on ("Service Startup", Windows services documentation:
  auto-start services and their dependencies); the others stay stopped. Each start is what a start by a script is
  (``scm.start``): the program file and dependency checks, then what the program does in its first second
  (programs.py: containerd, the kubelet's registration, kube-proxy's load balancers; flannel.py: flanneld's lease,
  network and subnet.env). A service that fails to start stays Stopped, and the reason goes to the node's log,
  as the System event log would hold it.
- **Features** whose install or removal is pending complete, and the pending-reboot markers go; the file renames
  scheduled for the boot (PendingFileRenameOperations, windows/registry.py) are carried out, and the page files
  PagingFiles names are opened at the sizes it gives (windows/registry.py): the commit limit changes here.
- **The time a restart takes** is the node profile's ``reboot_seconds`` (2 by default) of its simulated clock
  (node.py): the last boot time (Win32_OperatingSystem.LastBootUpTime) is the node's date at the end of it.
"""

# A restart's length on the node's clock when its profile does not say (node.py DEFAULT_PROFILE has no entry for it).
DEFAULT_REBOOT_SECONDS = 2

# KB4482887 (March 2019) is the first Windows Server 2019 update whose external HNS networks persist.
PERSISTENT_FROM = {17763: 348}
NON_PERSISTENT = 8  # hcn.EnableNonPersistent


def network_persists(node, network):
    if int(network.get('flags') or 0) & NON_PERSISTENT:
        return False
    build, ubr = node.data['os']['build'], node.data['os']['ubr']
    external = network['type'].lower() in ('l2bridge', 'l2tunnel', 'overlay', 'transparent')
    return not (external and ubr < PERSISTENT_FROM.get(build, 0))


def _start_order(services):
    """Automatic services, each after its dependencies (ties by name, so a run is reproducible)."""
    ordered, seen = [], set()

    def visit(name, trail=()):
        if name in seen or name in trail or name not in services:
            return
        for dependency in services[name].get('dependencies') or []:
            visit(dependency.lower(), trail + (name,))
        seen.add(name)
        ordered.append(name)

    for name in sorted(services):
        if services[name].get('start_mode') in ('auto', 'delayed'):
            visit(name)
    return ordered


def restart(node):
    """Shut the node down and boot it: what goes, what comes back, and what the services redo when they start."""
    from kubewin_sim import scm  # pylint: disable=import-outside-toplevel  # scm imports node, node imports this
    from kubewin_sim.node import SimulationError  # pylint: disable=import-outside-toplevel
    from kubewin_sim.programs import ProgramFailure  # pylint: disable=import-outside-toplevel

    for name, state in node.data['features'].items():
        if state == 'installpending':
            node.data['features'][name] = 'installed'
        elif state == 'removepending':
            node.data['features'][name] = 'available'
    node.data['reboot_pending'] = False
    # The session manager carries out the renames MoveFileEx scheduled for this boot (registry.py).
    from . import registry  # pylint: disable=import-outside-toplevel
    registry.complete_file_renames(node)
    # The session manager opens the page files PagingFiles names (registry.py): a changed size is in force from now.
    registry.boot_paging_files(node)
    # Port exclusions added with store=active last until this boot (netsh.py).
    from . import netsh  # pylint: disable=import-outside-toplevel
    netsh.boot(node)
    node.pass_time(node.profile.get('reboot_seconds', DEFAULT_REBOOT_SECONDS))
    node.data['os']['last_boot'] = node.date()

    hns = node.data['hns']
    hns['policy_lists'] = []
    for network in [n for n in hns['networks'] if not network_persists(node, n)]:
        for endpoint in [e for e in hns['endpoints'] if e['network_id'] == network['id']]:
            node.remove_endpoint(endpoint['id'])
        node.remove_network(network['id'])
        node.record('boot: HNS network %s (%s) did not persist' % (network['name'], network['type']))

    indexes = {adapter['if_index'] for adapter in node.data['adapters']}
    node.data['routes'] = [dict(route, active=route['interface_index'] in indexes)
                           for route in node.data.get('routes', []) if route['persistent']]

    for service in node.data['services'].values():
        service['state'] = 'stopped'
        service.pop('waiting_for_network', None)
    for name in _start_order(node.data['services']):
        service = node.data['services'][name]
        if service['state'] == 'running':  # started already as a dependency
            continue
        try:
            scm.start(node, name)
        except (SimulationError, ProgramFailure) as exc:
            node.record('boot: service %s did not start: %s' % (name, exc))
