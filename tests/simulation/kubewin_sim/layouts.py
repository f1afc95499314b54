"""Nodes that another tool set up before kubewin.node met them (issue 12, adoption): the state such a tool leaves.

A node's ``profile['layout']`` (an inventory's ``kubewin_sim: {layout: ...}``) applies one of LAYOUTS when the node
is created, so an e2e fleet can hold a node to take over; tests call the builders directly.

- ``sdn_start_ps1``: what Microsoft SDN ``Kubernetes/windows/start.ps1`` with ``helper.psm1`` (microsoft/SDN)
  registers: the programs, nssm.exe and ``config`` (the kubeconfig every service uses) in ``C:\\k``, and the services
  ``kubelet``, ``kube-proxy`` and ``flanneld`` running under nssm, each program and its flags under the service's
  nssm ``Parameters`` key. The Containers feature is installed (start.ps1 needs it).
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


LAYOUTS = {'sdn_start_ps1': sdn_start_ps1}


def apply(node, layout, hostname):
    """The profile's layout on a new node: its Node name is the inventory name lowercased, as the collection
    registers it (so the takeover is not refused for another Node name)."""
    if layout not in LAYOUTS:
        raise ValueError('unknown node layout %r (known: %s)' % (layout, sorted(LAYOUTS)))
    address = node.data['adapters'][0]['ipv4'][0]['address']
    LAYOUTS[layout](node, hostname.lower(), address)
