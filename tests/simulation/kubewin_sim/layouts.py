"""Nodes that another tool set up before kubewin.node met them (issue 12, adoption): the state such a tool leaves.

A node's ``profile['layout']`` (an inventory's ``kubewin_sim: {layout: ...}``) applies one of LAYOUTS when the node
is created, so an e2e fleet can hold a node to take over; tests call the builders directly.

- ``sdn_start_ps1``: what Microsoft SDN ``Kubernetes/windows/start.ps1`` with ``helper.psm1`` (microsoft/SDN)
  registers: the programs, nssm.exe and ``config`` (the kubeconfig every service uses) in ``C:\\k``, and the services
  ``kubelet``, ``kube-proxy`` and ``flanneld`` running under nssm, each program and its flags under the service's
  nssm ``Parameters`` key. The Containers feature is installed (start.ps1 needs it).
- ``stale_volume_link``: what a kubelet that ran before leaves of a pod with a volume of host data: the pod's folder
  under ``C:\\var\\lib\\kubelet\\pods`` with the volume as a directory symbolic link (kubernetes/mount-utils
  mount_windows.go: ``mklink /D``) to ``C:\\data\\app``, which holds the application's log. Nothing runs.
"""

KUBERNETES_DIR = 'C:\\k'
NSSM = 'C:\\k\\nssm.exe'
KUBECONFIG = 'C:\\k\\config'


def sdn_services(hostname, address):
    """{service: (program, nssm AppParameters)} as start.ps1 registers them for the node."""
    return {
        'kubelet': ('C:\\k\\kubelet.exe', '--hostname-override=%s --kubeconfig=%s --v=6' % (hostname, KUBECONFIG)),
        'kube-proxy': ('C:\\k\\kube-proxy.exe',
                       '--v=4 --proxy-mode=kernelspace --hostname-override=%s --kubeconfig=%s' % (hostname, KUBECONFIG)),
        'flanneld': ('C:\\k\\flanneld.exe',
                     '--kubeconfig-file=%s --iface=%s --ip-masq=1 --kube-subnet-mgr=1' % (KUBECONFIG, address)),
    }


def sdn_start_ps1(node, hostname, address, services=None):
    """Leave ``node`` (a SimNode) as start.ps1 does; ``services`` replaces sdn_services() (e.g. another Node name)."""
    node.data['features']['Containers'] = 'installed'
    services = services or sdn_services(hostname, address)
    for path in [NSSM, KUBECONFIG] + [program for program, _flags in services.values()]:
        node.write_file(path, content='(start.ps1 copy of %s)\n' % path)
    for name, (program, flags) in services.items():
        node.data['services'][name] = {
            'name': name, 'exists': True, 'state': 'running', 'start_mode': 'auto', 'display_name': name,
            'command_line': NSSM, 'dependencies': [], 'environment': [],
            'nssm': {'application': program, 'app_parameters': flags, 'app_directory': KUBERNETES_DIR,
                     'app_stdout': None, 'app_stderr': None, 'app_rotate_bytes': None}}


STALE_POD = 'C:\\var\\lib\\kubelet\\pods\\6f1c2d3e-0000-4000-8000-00000000a1b2'
STALE_VOLUME = STALE_POD + '\\volumes\\kubernetes.io~local-volume\\app-data'
HOST_DATA = 'C:\\data\\app'


def stale_volume_link(node, hostname, address):
    """Leave ``node`` with a stale pod volume link under the kubelet's folder (the layout above)."""
    from kubewin_sim.windows import filesystem  # pylint: disable=import-outside-toplevel
    node.write_file(HOST_DATA + '\\logs\\app.log', content='the application data\n')
    node.write_file(STALE_POD + '\\etc-hosts', content='127.0.0.1 localhost\n')
    filesystem.make_directories(node, filesystem.parent_of(STALE_VOLUME))
    filesystem.make_link(node, STALE_VOLUME, HOST_DATA)


LAYOUTS = {'sdn_start_ps1': sdn_start_ps1, 'stale_volume_link': stale_volume_link}


def apply(node, layout, hostname):
    """The profile's layout on a new node: its Node name is the inventory name lowercased, as the collection
    registers it (so the takeover is not refused for another Node name)."""
    if layout not in LAYOUTS:
        raise ValueError('unknown node layout %r (known: %s)' % (layout, sorted(LAYOUTS)))
    address = node.data['adapters'][0]['ipv4'][0]['address']
    LAYOUTS[layout](node, hostname.lower(), address)
