"""The state of one simulated Windows node, persisted as JSON between tasks and runs.

A node lives in ``<state dir>/<inventory hostname>.json``. Every access goes
through ``open_node`` (an exclusive file lock, load, save), so forks that touch
the same node never interleave. The model keeps what the collection's scripts
read and change: OS build, features and pending reboot, adapters and their IPv4
configuration, HNS networks and endpoints, services, files (the file system of
windows/filesystem.py), machine environment variables, firewall rules, and the
counters of remote calls the tests assert on.
"""

import contextlib
import copy
import fcntl
import hashlib
import ipaddress
import json
import os
import time
import uuid

from kubewin_sim import layouts

EXTERNAL_TYPES = {'l2bridge', 'l2tunnel', 'overlay', 'transparent'}

PRODUCT_NAMES = {
    17763: 'Windows Server 2019 Datacenter',
    20348: 'Windows Server 2022 Datacenter',
    25398: 'Windows Server Datacenter',
    26100: 'Windows Server 2025 Datacenter',
}
DISPLAY_VERSIONS = {17763: '1809', 20348: '21H2', 25398: '23H2', 26100: '24H2'}

DEFAULT_PROFILE = {
    'build': 20348,
    'ubr': 2582,
    'adapter': 'Ethernet',
    'prefix_length': 24,
    'dhcp': False,
    'features': {'Containers': 'available', 'Hyper-V': 'available', 'Hyper-V-PowerShell': 'available',
                 'RemoteAccess': 'available', 'Routing': 'available', 'RSAT-RemoteAccess-PowerShell': 'available'},
    'free_disk_bytes': 100 * 1024 ** 3,
    # Seconds the node is unreachable after a vSwitch is created or removed.
    'network_drop_seconds': 2,
    # The host vNIC comes up with an APIPA address instead of the static configuration.
    'wipe_static_ip': False,
    # ... and re-applying it fails, so the node never returns at its address.
    'static_ip_restore_fails': False,
    # The first adapter's link speed in bits per second: its automatic interface metric (windows/nettcpip.py).
    'link_speed': 10 ** 10,
    # More adapters, after the first: each {name, ip, prefix_length, gateway, dns_servers, dhcp, link_speed,
    # interface_metric, gateway_metric, status ('Up' or 'Disabled')}; a disabled one needs no address.
    'extra_adapters': [],
    # Entries appended to the machine Path as real servers have them (a folder on a drive that is not there, one
    # in quotes, an empty entry): the folders installers and administrators added.
    'path_entries': [],
    # The DNS name of the Active Directory domain the server joined (Win32_ComputerSystem, windows/computersystem.py);
    # None: the workgroup WORKGROUP, as Windows Setup leaves a server.
    'domain': None,
}


class SimulationError(Exception):
    """The simulation itself was misused (not a simulated Windows failure)."""


def sha256_text(text):
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def new_guid():
    return str(uuid.uuid4())


def initial_state(hostname, profile):
    profile = dict(DEFAULT_PROFILE, **(profile or {}))
    address = profile.get('ip') or '10.0.0.10'
    interface = ipaddress.ip_interface('%s/%s' % (address, profile['prefix_length']))
    gateway = profile.get('gateway') or str(interface.network.network_address + 1)
    build = int(profile['build'])
    return {
        'hostname': hostname.split('.')[0].upper()[:15],
        'profile': profile,
        'os': {
            'build': build,
            'ubr': int(profile['ubr']),
            'product_name': PRODUCT_NAMES.get(build, 'Windows Server Datacenter'),
            'display_version': DISPLAY_VERSIONS.get(build, ''),
            'edition': 'ServerDatacenter',
            'installation_type': 'Server',
            'last_boot': time.time() - 3600,
        },
        'features': dict(profile['features']),
        'reboot_pending': False,
        'adapters': _initial_adapters(profile, address, gateway),
        # Static IPv4 routes: destination, next_hop, interface_index, metric, and whether the route
        # is in the routing table in use (active) and in the one restored at boot (persistent).
        'routes': [],
        # HNS v1 objects; policy lists are the load balancers kube-proxy (winkernel) programs.
        'hns': {'networks': [], 'endpoints': [], 'policy_lists': []},
        'services': {},
        # Files and folders as windows/filesystem.py keeps them: a fresh installation's folders.
        'fs': _fresh_file_system(),
        'environment': _initial_environment(profile),
        'firewall_rules': {},
        'operations': {},
        'unreachable_until': 0,
        'calls': {'total': 0, 'by_kind': {}},
        'unreachable_attempts': 0,
        'log': [],
    }


ADAPTER_DESCRIPTION = 'Microsoft Hyper-V Network Adapter'
VNIC_DESCRIPTION = 'Hyper-V Virtual Ethernet Adapter'
VSWITCH_DESCRIPTION = 'Hyper-V Virtual Switch Extension Adapter'
FIRST_ADAPTER_INDEX = 4


def _initial_adapters(profile, address, gateway):
    """The node's adapters: the profile's first (Ethernet at ``address``), then its ``extra_adapters``."""
    specs = [{'name': profile['adapter'], 'ip': address, 'prefix_length': profile['prefix_length'], 'gateway': gateway,
              'dns_servers': profile.get('dns_servers') or [gateway], 'dhcp': profile['dhcp'],
              'link_speed': profile['link_speed'], 'interface_metric': profile.get('interface_metric'),
              'gateway_metric': profile.get('gateway_metric')}] + list(profile['extra_adapters'])
    adapters = []
    for offset, spec in enumerate(specs):
        adapters.append(_adapter_from(spec, FIRST_ADAPTER_INDEX + offset, unique_description(adapters, ADAPTER_DESCRIPTION)))
    return adapters


def _adapter_from(spec, if_index, description):
    """One adapter of the profile: a MAC from its address (or its index when it has none), its IPv4 configuration."""
    if spec.get('status', 'Up') not in ('Up', 'Disabled'):
        raise SimulationError('adapter %s: status %r is not modelled (Up, Disabled)' % (spec['name'], spec['status']))
    address = spec.get('ip')
    octets = [int(octet) for octet in address.split('.')[1:]] if address else [0xFE, 0, if_index]
    entry = {
        'name': spec['name'], 'description': description, 'if_index': if_index,
        'mac_address': '00-15-5D-%02X-%02X-%02X' % tuple(octets), 'status': spec.get('status', 'Up'),
        'link_speed': int(spec.get('link_speed') or 10 ** 10),
        'ipv4': [], 'gateway': spec.get('gateway'), 'dns_servers': list(spec.get('dns_servers') or []),
        'dhcp': bool(spec.get('dhcp')),
    }
    if address:
        entry['ipv4'] = [{'address': address, 'prefix_length': int(spec.get('prefix_length') or 24),
                          'origin': 'Dhcp' if spec.get('dhcp') else 'Manual'}]
    for optional in ('interface_metric', 'gateway_metric'):
        if spec.get(optional) is not None:
            entry[optional] = int(spec[optional])
    return entry


def unique_description(adapters, base):
    """PnP's device description for one more device of a kind: "<base>", then "<base> #2", "#3"..."""
    taken = {adapter['description'] for adapter in adapters}
    taken.update(adapter['vswitch_adapter']['description'] for adapter in adapters if adapter.get('vswitch_adapter'))
    if base not in taken:
        return base
    return next('%s #%d' % (base, number) for number in range(2, len(taken) + 3) if '%s #%d' % (base, number) not in taken)


def _initial_environment(profile):
    """Machine variables set over a fresh installation's: the profile's ``path_entries`` appended to the Path."""
    if not profile['path_entries']:
        return {}
    from kubewin_sim.windows import registry  # pylint: disable=import-outside-toplevel  # windows imports node
    default = registry.DEFAULT_MACHINE_VARIABLES['Path'][1]
    expanded = default.replace('%SystemRoot%', 'C:\\Windows').replace('%SYSTEMROOT%', 'C:\\Windows')
    return {'Path': ';'.join([expanded] + list(profile['path_entries']))}


def _fresh_file_system():
    from kubewin_sim.windows import filesystem  # pylint: disable=import-outside-toplevel  # windows imports node
    return filesystem.fresh_tree()


class SimNode:
    """One node's state with the operations the simulated scripts perform on it."""

    def __init__(self, data):
        self.data = data

    # -- bookkeeping ------------------------------------------------------------------

    @property
    def profile(self):
        return self.data['profile']

    def count_call(self, kind):
        calls = self.data['calls']
        calls['total'] += 1
        calls['by_kind'][kind] = calls['by_kind'].get(kind, 0) + 1

    def record(self, message):
        self.data['log'].append(message)
        del self.data['log'][:-200]

    def reachable(self, now=None):
        return (now or time.time()) >= self.data['unreachable_until']

    def drop_network(self, seconds):
        self.data['unreachable_until'] = max(self.data['unreachable_until'], time.time() + seconds)

    # -- features and reboots ---------------------------------------------------------

    def hns_available(self):
        return self.data['features'].get('Containers') == 'installed'

    def reboot(self):
        """A restart of Windows (windows/boot.py): what HNS keeps, the routes, the services that start again."""
        from kubewin_sim.windows import boot  # pylint: disable=import-outside-toplevel  # windows imports node
        boot.restart(self)

    # -- adapters -----------------------------------------------------------------------

    def adapter(self, name):
        for adapter in self.data['adapters']:
            if adapter['name'] == name:
                return adapter
        return None

    def _next_if_index(self):
        """An interface index no adapter, visible or hidden, holds."""
        taken = [a['if_index'] for a in self.data['adapters']]
        taken += [a['vswitch_adapter']['if_index'] for a in self.data['adapters'] if a.get('vswitch_adapter')]
        return max(taken) + 1

    def _vswitch_adapters(self):
        return {n['adapter'] for n in self.data['hns']['networks']
                if n['type'].lower() in EXTERNAL_TYPES and n.get('adapter')}

    def _bind_vswitch(self, adapter_name):
        """Creating the first external network on an adapter: its IP moves to a host vNIC."""
        physical = self.adapter(adapter_name)
        vnic = copy.deepcopy(physical)
        vnic['name'] = 'vEthernet (%s)' % adapter_name
        vnic['description'] = unique_description(self.data['adapters'], VNIC_DESCRIPTION)
        vnic['if_index'] = self._next_if_index()
        # The vSwitch's own hidden adapter (Get-NetAdapter -IncludeHidden), gone with the vSwitch.
        physical['vswitch_adapter'] = {'if_index': vnic['if_index'] + 1,
                                       'description': unique_description(self.data['adapters'], VSWITCH_DESCRIPTION)}
        if self.profile.get('wipe_static_ip') and not physical['dhcp']:
            vnic['ipv4'] = [{'address': '169.254.%d.%d' % (vnic['if_index'], 17), 'prefix_length': 16,
                             'origin': 'WellKnown'}]
            vnic['gateway'] = None
            vnic['dns_servers'] = []
            vnic['dhcp'] = True
        physical.update(ipv4=[], gateway=None, dns_servers=[])
        # Active routes through the physical adapter go with its address.
        for route in self.data.get('routes', []):
            if route['interface_index'] == physical['if_index']:
                route['active'] = False
        self.data['adapters'].append(vnic)
        self.drop_network(self.profile['network_drop_seconds'])
        self.record('vSwitch created on %s' % adapter_name)

    def _unbind_vswitch(self, adapter_name):
        vnic = self.adapter('vEthernet (%s)' % adapter_name)
        physical = self.adapter(adapter_name)
        if vnic and physical:
            physical.update(ipv4=vnic['ipv4'], gateway=vnic['gateway'], dns_servers=vnic['dns_servers'],
                            dhcp=vnic['dhcp'])
            self.data['adapters'].remove(vnic)
        if physical:
            physical.pop('vswitch_adapter', None)
        # The switch extensions' state (lib/ovs) goes with the vSwitch.
        self.data.get('ovs', {}).get('extensions', {}).pop(adapter_name, None)
        self.drop_network(self.profile['network_drop_seconds'])
        self.record('vSwitch removed from %s' % adapter_name)

    # -- routes ---------------------------------------------------------------------------

    def add_route(self, destination, next_hop, interface_alias, metric, active=True, persistent=True):
        """New-NetRoute: in both stores unless told otherwise."""
        adapter = self.adapter(interface_alias)
        if adapter is None:
            raise SimulationError("New-NetRoute : No MSFT_NetIPInterface objects found with property 'InterfaceAlias' "
                                  "equal to '%s'." % interface_alias)
        key = (destination, next_hop, adapter['if_index'])
        if any((r['destination'], r['next_hop'], r['interface_index']) == key for r in self.data.setdefault('routes', [])):
            raise SimulationError('New-NetRoute : The object already exists.')
        self.data['routes'].append({'destination': destination, 'next_hop': next_hop,
                                    'interface_index': adapter['if_index'], 'metric': int(metric),
                                    'active': active, 'persistent': persistent})

    def remove_route(self, destination, next_hop, interface_index):
        """Remove-NetRoute from both stores (no error when it is not there)."""
        self.data['routes'] = [r for r in self.data.setdefault('routes', [])
                               if (r['destination'], r['next_hop'], r['interface_index'])
                               != (destination, next_hop, int(interface_index))]

    # -- HNS ------------------------------------------------------------------------------

    def add_policy_list(self, vips, endpoint_ids):
        """POST /policylists/: a load balancer over these endpoints."""
        policy_list = {'id': new_guid(), 'vips': list(vips), 'endpoints': [e.lower() for e in endpoint_ids]}
        self.data['hns'].setdefault('policy_lists', []).append(policy_list)
        return policy_list

    def remove_policy_list(self, policy_list_id):
        lists = self.data['hns'].setdefault('policy_lists', [])
        match = [p for p in lists if p['id'] == (policy_list_id or '').lower()]
        if not match:
            raise SimulationError('HNS failed with error : Element not found.')
        lists.remove(match[0])

    def create_network(self, spec):
        adapter_name = spec.get('adapter')
        if spec['type'].lower() in EXTERNAL_TYPES:
            if not adapter_name or self.adapter(adapter_name) is None:
                raise SimulationError("HNS failed with error : The network adapter '%s' was not found" % adapter_name)
        if adapter_name and adapter_name not in self._vswitch_adapters() and spec['type'].lower() in EXTERNAL_TYPES:
            self._bind_vswitch(adapter_name)
        vnic = self.adapter('vEthernet (%s)' % adapter_name) if adapter_name else None
        network = {
            'id': new_guid(),
            'name': spec['name'],
            'type': spec['type'],
            'subnets': [{'address_prefix': spec['address_prefix'], 'gateway': spec.get('gateway') or None,
                         'vsid': spec.get('vsid')}],
            'adapter': adapter_name,
            'management_ip': (vnic['ipv4'][0]['address'] if vnic and vnic['ipv4'] else None),
            # HCN network flags (hcsshim hcn NetworkFlags); 8, EnableNonPersistent, does not survive a reboot.
            'flags': int(spec.get('flags') or 0),
        }
        self.data['hns']['networks'].append(network)
        # A program waiting for this network goes on (kube-proxy: programs.network_created).
        from kubewin_sim import programs  # pylint: disable=import-outside-toplevel  # programs imports cluster
        programs.network_created(self, network['name'])
        return copy.deepcopy(network)

    def remove_network(self, network_id):
        networks = self.data['hns']['networks']
        match = [n for n in networks if n['id'] == network_id.lower()]
        if not match:
            raise SimulationError('HNS failed with error : Element not found.')
        network = match[0]
        networks.remove(network)
        self.data['hns']['endpoints'] = [e for e in self.data['hns']['endpoints'] if e['network_id'] != network['id']]
        adapter_name = network.get('adapter')
        if adapter_name and network['type'].lower() in EXTERNAL_TYPES and adapter_name not in self._vswitch_adapters():
            self._unbind_vswitch(adapter_name)

    def create_endpoint(self, name, network_id, ip_address):
        networks = [n for n in self.data['hns']['networks'] if n['id'] == (network_id or '').lower()]
        if not networks:
            raise SimulationError('HNS failed with error : Element not found.')
        endpoint = {'id': new_guid(), 'name': name, 'network_id': networks[0]['id'],
                    'network_name': networks[0]['name'], 'ip_address': ip_address,
                    'mac_address': '00-15-5D-00-00-%02X' % (len(self.data['hns']['endpoints']) + 1),
                    'is_remote': False}
        self.data['hns']['endpoints'].append(endpoint)
        return endpoint

    def endpoint(self, endpoint_id):
        for endpoint in self.data['hns']['endpoints']:
            if endpoint['id'] == (endpoint_id or '').lower():
                return endpoint
        raise SimulationError('HNS failed with error : Element not found.')

    def remove_endpoint(self, endpoint_id):
        endpoint = self.endpoint(endpoint_id)
        if any(endpoint['id'] in p['endpoints'] for p in self.data['hns'].get('policy_lists') or []):
            # HNS refuses to delete an endpoint a load balancer still references.
            raise SimulationError('HNS failed with error : The object is in use.')
        self.data['hns']['endpoints'].remove(endpoint)
        vnic = self.adapter('vEthernet (%s)' % endpoint['name'])
        if vnic:
            self.data['adapters'].remove(vnic)

    def attach_host_endpoint(self, endpoint_id):
        endpoint = self.endpoint(endpoint_id)
        alias = 'vEthernet (%s)' % endpoint['name']
        if self.adapter(alias):
            raise SimulationError('HNS failed with error : The endpoint is already attached.')
        self.data['adapters'].append({
            'name': alias, 'description': unique_description(self.data['adapters'], VNIC_DESCRIPTION),
            'if_index': self._next_if_index(),
            'mac_address': endpoint['mac_address'], 'status': 'Up',
            'ipv4': [{'address': endpoint['ip_address'], 'prefix_length': 32, 'origin': 'Manual'}],
            'gateway': None, 'dns_servers': [], 'dhcp': False, 'forwarding': False,
        })

    # -- files -------------------------------------------------------------------------------
    # Views of the Windows model's file system (windows/filesystem.py, ``node.data['fs']``), for the program
    # models and the tests; scripts reach the same files through the FileSystem provider cmdlets.

    def file(self, path):
        """A file's ``sha256``, ``size``, ``content`` (its text when it is UTF-8, else None) and ``acl``
        profile, or None when there is no such file."""
        from kubewin_sim.windows import filesystem  # pylint: disable=import-outside-toplevel
        entry = filesystem.lookup(self, path)
        if entry is None or entry['dir']:
            return None
        if entry.get('stand_in'):
            return dict(entry['stand_in'], content=None, acl=acl_profile(entry))
        data = filesystem.content_bytes(entry)
        try:
            text = data.decode('utf-8')
        except UnicodeDecodeError:
            text = None
        return {'sha256': hashlib.sha256(data).hexdigest(), 'size': len(data), 'content': text,
                'acl': acl_profile(entry)}

    def write_file(self, path, content=None, sha256=None, size=None, acl='inherited', data=None):
        """Write a file as a program or the test set-up would (missing folders made, no sharing checks): text
        ``content`` (UTF-8 without a byte order mark), bytes ``data``, or a stand-in binary known by its
        ``sha256`` and ``size``; ``acl`` a profile of lib/files.ps1 (protected, secret) or inherited."""
        from kubewin_sim.windows import filesystem  # pylint: disable=import-outside-toplevel
        filesystem.make_directories(self, filesystem.parent_of(filesystem.normalize(path)))
        if content is not None:
            data = content.encode('utf-8')
        stand_in = {'sha256': sha256, 'size': size} if data is None else None
        entry = filesystem.create(self, path, False, data or b'', stand_in=stand_in)
        if acl != 'inherited':
            set_acl_profile(entry, acl)
        return self.file(path)

    def remove_file(self, path):
        from kubewin_sim.windows import filesystem  # pylint: disable=import-outside-toplevel
        entry = filesystem.lookup(self, path)
        if entry is not None and not entry['dir']:
            del filesystem.tree(self)[entry['path'].lower()]

    def content_view(self, path):
        entry = self.file(path)
        if entry is None:
            return {'exists': False, 'text': None}
        if entry['content'] is None:
            raise SimulationError('%s holds binary content in the simulation; not read as text' % path)
        # ReadAllText drops a byte order mark.
        return {'exists': True, 'text': entry['content'].lstrip('\ufeff')}

    def is_directory(self, path):
        from kubewin_sim.windows import filesystem  # pylint: disable=import-outside-toplevel
        entry = filesystem.lookup(self, path)
        return entry is not None and entry['dir']

    def file_paths(self):
        """The full path of every file on the node."""
        return [entry['path'] for entry in self.data.get('fs', {}).values() if not entry['dir']]

    def managed_registry(self):
        """C:\\ProgramData\\kubewin\\managed.json, the registry lib/files.ps1 keeps: ``{files, artifacts}``."""
        entry = self.file(MANAGED_REGISTRY)
        if entry is None:
            return {'files': {}, 'artifacts': {}}
        document = json.loads(entry['content'].lstrip('\ufeff'))
        return {'files': document.get('files') or {}, 'artifacts': document.get('artifacts') or {}}

    def set_artifact_record(self, destination, record):
        """Set up a node as if artifact_fetch.ps1 had recorded ``record`` for ``destination`` (tests)."""
        registry = self.managed_registry()
        registry['artifacts'][destination] = record
        self.write_file(MANAGED_REGISTRY, content=json.dumps(registry, separators=(',', ':')))


# The ACL profiles of lib/files.ps1 ($KubeWinAclProfiles) as the model stores the rules Set-KubeWinAcl adds
# (an Allow rule gains Synchronize: FileSystemAccessRule's AccessMaskFromRights, windows/acl.py).
MANAGED_REGISTRY = 'C:\\ProgramData\\kubewin\\managed.json'
_SYSTEM, _ADMINISTRATORS, _USERS = 'S-1-5-18', 'S-1-5-32-544', 'S-1-5-32-545'
_FULL_CONTROL, _READ_AND_EXECUTE, _SYNCHRONIZE = 0x1F01FF, 0x1200A9, 0x100000
ACL_PROFILES = {
    'secret': {_SYSTEM: _FULL_CONTROL, _ADMINISTRATORS: _FULL_CONTROL},
    'protected': {_SYSTEM: _FULL_CONTROL, _ADMINISTRATORS: _FULL_CONTROL, _USERS: _READ_AND_EXECUTE},
}


def acl_profile(entry):
    """Which profile an item's ACL is (inherited, secret, protected or custom), read as Get-KubeWinAclProfile reads it."""
    if not entry['protected']:
        return 'inherited'
    found = sorted({(rule[0], rule[1] & ~_SYNCHRONIZE) for rule in entry['rules']})
    for name, rules in ACL_PROFILES.items():
        if found == sorted((sid, mask & ~_SYNCHRONIZE) for sid, mask in rules.items()):
            return name
    return 'custom'


def set_acl_profile(entry, profile):
    """Set-KubeWinAcl: a protected ACL holding only the profile's rules (inherited by a folder's items)."""
    inheritance = 3 if entry['dir'] else 0  # ContainerInherit, ObjectInherit
    entry['protected'] = True
    entry['rules'] = [[sid, mask, inheritance, 0, 0] for sid, mask in ACL_PROFILES[profile].items()]


def state_path(state_dir, host):
    return os.path.join(state_dir, '%s.json' % host)


@contextlib.contextmanager
def open_node(state_dir, host, profile=None, create=True):
    """Lock, load (creating from ``profile`` when new) and, on success, save a node."""
    os.makedirs(state_dir, exist_ok=True)
    path = state_path(state_dir, host)
    with open(path + '.lock', 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(path):
            with open(path, encoding='utf-8') as handle:
                data = json.load(handle)
        elif create:
            data = initial_state(host, profile)
            if data['profile'].get('layout'):
                # A node another tool set up before the collection met it (kubewin_sim/layouts.py).
                layouts.apply(SimNode(data), data['profile']['layout'], host)
        else:
            raise SimulationError('no simulated node %r in %s' % (host, state_dir))
        node = SimNode(data)
        yield node
        temporary = path + '.tmp'
        with open(temporary, 'w', encoding='utf-8') as handle:
            json.dump(node.data, handle, indent=1, sort_keys=True)
        os.replace(temporary, path)


@contextlib.contextmanager
def open_node_if_free(state_dir, host):
    """open_node without waiting: yields None (and saves nothing) while another holder has the node's lock, such as a
    module run on it, or this process itself (a controller of the cluster running inside that run)."""
    path = state_path(state_dir, host)
    if not os.path.exists(path):
        yield None
        return
    with open(path + '.lock', 'a') as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield None
            return
        with open(path, encoding='utf-8') as handle:
            node = SimNode(json.load(handle))
        yield node
        temporary = path + '.tmp'
        with open(temporary, 'w', encoding='utf-8') as handle:
            json.dump(node.data, handle, indent=1, sort_keys=True)
        os.replace(temporary, path)


def create_on_first_contact(state_dir, host, profile, address):
    """Create the node of ``host`` as its inventory describes it, unless it exists: from its ``kubewin_sim`` profile,
    at ``address`` (``kubewin_management_ip`` or ``ansible_host``) unless the profile names an ``ip``. What the
    connection plugin kubewin_simnode does on a host's first contact, and the e2e harness for a whole fleet."""
    if os.path.exists(state_path(state_dir, host)):
        return
    profile = dict(profile or {})
    profile.setdefault('ip', address)
    with open_node(state_dir, host, profile=profile):
        pass


def peek(state_dir, host):
    """Read a node without locking it for long (None when it does not exist yet)."""
    path = state_path(state_dir, host)
    if not os.path.exists(path):
        return None
    with open(path, encoding='utf-8') as handle:
        return SimNode(json.load(handle))
