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


def db_running(node):
    service = node.data['services'].get('ovsdb-server')
    return bool(service) and service.get('state') == 'running'


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
