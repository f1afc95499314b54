"""Open vSwitch on a simulated Windows node: the MSI product, the OVS database, the Hyper-V switch extension.

What lib/ovs.ps1 reads and openvswitch_worker.ps1 changes, kept in ``node.data['ovs']``:

- ``products``: the installed Open vSwitch MSI (product code, version, feature states). Installing
  OpenvSwitchCLI puts ``ovs-vsctl.exe`` on the machine PATH, OpenvSwitchDriver registers the switch
  extension on every vSwitch (disabled), and the services ovsdb-server and ovs-vswitchd (plus
  ovn-controller with OVNHost) are created with start mode auto and started.
- ``db``: what ovsdb-server keeps (it outlives vSwitches and reboots): bridges with their ports and
  interface types, and the Open_vSwitch row's external_ids. ovs-vsctl fails while ovsdb-server is
  not running.
- ``extensions``: whether the extension is enabled, per adapter whose vSwitch it sits on. A vSwitch
  that is removed takes its state with it; a new one starts disabled.
- An interface's ``error`` is what ovs-vswitchd reports: an internal port needs a host vNIC of
  the same name, a system port an adapter bound to a vSwitch.
"""

import copy

from kubewin_sim.node import SimulationError

EXTENSION = 'Cloudbase Open vSwitch Extension'
PRODUCT_CODE = '{7A4E3A9C-6B1E-4B53-9F0C-2D1A6C0E8B11}'
PRODUCT_NAME = 'Cloudbase Open vSwitch for Hyper-V'
FEATURES = ('OpenvSwitchCLI', 'OpenvSwitchDriver', 'OVNHost')
BIN_DIR = 'C:\\Program Files\\Cloudbase Solutions\\Open vSwitch\\bin'
# service -> (program, dependencies, feature that installs it)
SERVICES = {
    'ovsdb-server': ('ovsdb-server.exe', [], 'OpenvSwitchCLI'),
    'ovs-vswitchd': ('ovs-vswitchd.exe', ['ovsdb-server'], 'OpenvSwitchCLI'),
    'ovn-controller': ('ovn-controller.exe', ['ovsdb-server'], 'OVNHost'),
}


def model(node):
    """The OVS state to change (created on first change)."""
    return node.data.setdefault('ovs', {'products': [], 'db': None, 'extensions': {}})


def _read(node):
    return node.data.get('ovs') or {'products': [], 'db': None, 'extensions': {}}


def product(node):
    products = _read(node)['products']
    return products[0] if products else None


def has_feature(node, feature):
    found = product(node)
    return bool(found) and found['features'].get(feature) == 'local'


def vsctl_path(node):
    return BIN_DIR + '\\ovs-vsctl.exe' if has_feature(node, 'OpenvSwitchCLI') else None


def db_running(node):
    service = node.data['services'].get('ovsdb-server')
    return bool(service) and service.get('state') == 'running'


def require_db(node):
    """ovs-vsctl without a running ovsdb-server."""
    if not vsctl_path(node):
        raise SimulationError("The term 'ovs-vsctl.exe' is not recognized as the name of a cmdlet, function, "
                              'script file, or operable program.')
    if not db_running(node):
        raise SimulationError('ovs-vsctl: unix:C:\\ProgramData\\openvswitch\\db.sock: database connection failed '
                              '(No such file or directory)')
    db = model(node)
    if db['db'] is None:
        db['db'] = {'bridges': {}, 'external_ids': {}}
    return db['db']


def vswitch_adapters(node):
    return sorted({n['adapter'] for n in node.data['hns']['networks']
                   if n['type'].lower() in ('l2bridge', 'l2tunnel', 'overlay', 'transparent') and n.get('adapter')})


def switch_name(node, adapter):
    for network in node.data['hns']['networks']:
        if network.get('adapter') == adapter:
            return network['name']
    return None


def interface_error(node, name, kind):
    if kind == 'internal':
        if node.adapter(name) is None:
            return 'could not open network device %s (No such device)' % name
        return None
    if node.adapter(name) is None or name not in vswitch_adapters(node):
        return 'could not add network device %s to ofproto (No such device)' % name
    return None


def database_view(node):
    db = _read(node)['db'] or {'bridges': {}, 'external_ids': {}}
    bridges = {}
    for bridge, entry in db['bridges'].items():
        ports = {}
        for port, kind in entry['ports'].items():
            ports[port] = {'type': kind, 'error': interface_error(node, port, kind)}
        bridges[bridge] = {'ports': ports}
    return {'bridges': bridges, 'external_ids': dict(db['external_ids'])}


def view(node):
    """lib/ovs.ps1 Get-KubeWinOvsState."""
    found = product(node)
    products = []
    if found:
        products.append({'product_code': found['product_code'], 'name': found['name'], 'version': found['version'],
                         'install_location': BIN_DIR.rsplit('\\', 1)[0] + '\\', 'features': dict(found['features'])})
    running = bool(vsctl_path(node)) and db_running(node)
    switches = []
    if node.data['features'].get('Hyper-V-PowerShell') == 'installed':
        for adapter in vswitch_adapters(node):
            extension = None
            if has_feature(node, 'OpenvSwitchDriver'):
                extension = {'enabled': bool(_read(node)['extensions'].get(adapter))}
            switches.append({'name': switch_name(node, adapter), 'adapter': adapter, 'extension': extension})
    return {'products': products, 'vsctl': vsctl_path(node), 'database': database_view(node) if running else None,
            'database_error': None, 'switches': copy.deepcopy(switches)}
