"""The state of one simulated Windows node, persisted as JSON between tasks and runs.

A node lives in ``<state dir>/<inventory hostname>.json``. Every access goes
through ``open_node`` (an exclusive file lock, load, save), so forks that touch
the same node never interleave. The model keeps what the collection's scripts
read and change: OS build, features and pending reboot, adapters and their IPv4
configuration, HNS networks and endpoints, services, files (the file system of
windows/filesystem.py), machine environment variables, firewall rules, and the
counters of remote calls the tests assert on.

The node's clock (tests/simulation/README.md, "Time"): ``clock_offset`` is the simulated time the node has
lived through, in seconds: what takes time on Windows (a sleep, a download, a service's start, a wait for a
reboot, the wait of a client that could not connect) moves it on at once, by what it takes; nothing else does.
It is the node's performance counter (Stopwatch) and the clock a network drop is measured on, so a run's outcome
does not depend on how fast the test machine runs it. The node's date (Get-Date, file times, the last boot) is the
test machine's time when the call reached the node (``SimNode.reached_at``, fixed for the whole call) plus that
offset: a date read inside a call moves with simulated time only, and the node stays as far ahead of the
controller's clock as the simulated time it lived through (what doctor.yml's clock-skew check measures).
"""

import contextlib
import copy
import datetime
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
    # The first adapter's static IPv6 address with its prefix length (a dual-stack node), e.g. "fd00:127:130::41/64";
    # None: the link-local address only.
    'ipv6': None,
    # More adapters, after the first: each {name, ip, prefix_length, gateway, dns_servers, dhcp, link_speed,
    # interface_metric, gateway_metric, status ('Up' or 'Disabled')}; a disabled one needs no address.
    'extra_adapters': [],
    # Entries appended to the machine Path as real servers have them (a folder on a drive that is not there, one
    # in quotes, an empty entry): the folders installers and administrators added.
    'path_entries': [],
    # The proxy the node's network lets it out through (None: it reaches the web directly): windows/downloads.py.
    'web_proxy': None,
    # Behind web_proxy, the hosts of the node's own network it reaches directly (and the proxy does not).
    'web_direct_hosts': [],
    # The proxy in the Internet settings of the account WinRM runs scripts as (None: none set): windows/downloads.py.
    'user_proxy': None,
    # The DNS name of the Active Directory domain the server joined (Win32_ComputerSystem, windows/computersystem.py);
    # None: the workgroup WORKGROUP, as Windows Setup leaves a server.
    'domain': None,
    # Microsoft Defender Antivirus (windows/defender.py): 'running', as Windows Server has it by default, 'stopped'
    # (its service WinDefend is not running) or 'removed' (the feature Windows-Defender and its module uninstalled).
    'defender': 'running',
    # The physical memory the operating system sees and what its page files hold, in MiB (Win32_OperatingSystem,
    # windows/system.py): their sum is the commit limit. A page file Windows manages on a 16 GiB server.
    'memory_mb': 16384,
    'page_file_mb': 4096,
    # Keys that a Group Policy or the image left below HKLM, as windows/registry.py keeps the keys scripts create:
    # {'SOFTWARE\\Policies\\...': {value name: [kind (REG_DWORD...), data]}}.
    'registry': {},
}


class SimulationError(Exception):
    """The simulation itself was misused (not a simulated Windows failure)."""


def sha256_text(text):
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def new_guid():
    return str(uuid.uuid4())


def initial_state(hostname, profile):
    profile = dict(DEFAULT_PROFILE, **(profile or {}))
    # The node's date when it is created: the test machine's (its clock_offset is 0).
    created = time.time()
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
            'last_boot': created - 3600,
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
        'fs': _fresh_file_system(created),
        # The machine environment variables an operator set (Session Manager\Environment).
        'environment': _initial_environment(profile),
        'firewall_rules': {},
        'registry': {key.lower(): {'path': key, 'values': {name: list(value) for name, value in values.items()}}
                     for key, values in profile['registry'].items()},
        'operations': {},
        # The simulated seconds the node has lived through (its clock; see the module docstring).
        'clock_offset': 0.0,
        # The clock_offset from which the node answers again, and the refused attempts since the drop began.
        'unreachable_until': 0,
        'refused_in_drop': 0,
        'calls': {'total': 0, 'by_kind': {}},
        'unreachable_attempts': 0,
        'log': [],
    }


# What moves on a node without a change of its Windows state: the simulation's counters and log, its network drop's
# bookkeeping and its clock (a read-only run still takes time: the module's temporary folder is written and removed).
VOLATILE = ('calls', 'log', 'unreachable_attempts', 'unreachable_until', 'refused_in_drop', 'clock_offset')


def windows_state(data):
    """A node's state without VOLATILE: what a run that changes nothing leaves as it found it."""
    return {key: value for key, value in data.items() if key not in VOLATILE}


ADAPTER_DESCRIPTION = 'Microsoft Hyper-V Network Adapter'
VNIC_DESCRIPTION = 'Hyper-V Virtual Ethernet Adapter'
VSWITCH_DESCRIPTION = 'Hyper-V Virtual Switch Extension Adapter'
FIRST_ADAPTER_INDEX = 4


def _initial_adapters(profile, address, gateway):
    """The node's adapters: the profile's first (Ethernet at ``address``), then its ``extra_adapters``."""
    specs = [{'name': profile['adapter'], 'ip': address, 'ipv6': profile.get('ipv6'),
              'prefix_length': profile['prefix_length'], 'gateway': gateway,
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
    if spec.get('ipv6'):
        interface = ipaddress.IPv6Interface(spec['ipv6'])
        entry['ipv6'] = [{'address': str(interface.ip), 'prefix_length': interface.network.prefixlen, 'origin': 'Manual'}]
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
    """Machine variables set over a fresh installation's: the profile's ``environment`` (what an operator set: a
    proxy's HTTPS_PROXY...), and its ``path_entries`` appended to the Path."""
    environment = dict(profile.get('environment') or {})
    if not profile['path_entries']:
        return environment
    from kubewin_sim.windows import registry  # pylint: disable=import-outside-toplevel  # windows imports node
    default = registry.DEFAULT_MACHINE_VARIABLES['Path'][1]
    expanded = default.replace('%SystemRoot%', 'C:\\Windows').replace('%SYSTEMROOT%', 'C:\\Windows')
    environment['Path'] = ';'.join([environment.get('Path') or expanded] + list(profile['path_entries']))
    return environment


def _fresh_file_system(created):
    from kubewin_sim.windows import filesystem  # pylint: disable=import-outside-toplevel  # windows imports node
    return filesystem.fresh_tree(created)


class SimNode:
    """One node's state with the operations the simulated scripts perform on it."""

    def __init__(self, data):
        self.data = data
        # The test machine's time when this call reached the node (the base of the node's date, see the docstring).
        self.reached_at = time.time()

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

    # -- the clock ----------------------------------------------------------------------

    def elapsed(self):
        """The node's performance counter: the simulated seconds it has lived through."""
        return self.data.get('clock_offset', 0.0)

    def date(self):
        """The node's date, in seconds since the epoch (UTC)."""
        return self.reached_at + self.elapsed()

    def date_iso(self):
        """The node's date in ISO 8601 with its UTC offset, as the program models stamp their log lines."""
        return datetime.datetime.fromtimestamp(self.date(), datetime.timezone.utc).isoformat()

    def pass_time(self, seconds):
        """Let ``seconds`` pass on the node at once (a sleep, a transfer that takes that long)."""
        self.data['clock_offset'] = self.elapsed() + max(0.0, float(seconds))

    @contextlib.contextmanager
    def alongside(self):
        """Run something that runs alongside the node's calls (a process started outside the session, a pod's
        container): it lives through its own time from now, and the node's clock, as the next call finds it, has
        not moved for it. A network drop it causes is measured from the moment it happens in it."""
        before = self.elapsed()
        try:
            yield self
        finally:
            self.data['clock_offset'] = before

    # -- the network ----------------------------------------------------------------------

    def reachable(self):
        return self.elapsed() >= self.data['unreachable_until']

    def drop_network(self, seconds):
        """The node is cut off for ``seconds`` of its clock from now."""
        self.data['unreachable_until'] = max(self.data['unreachable_until'], self.elapsed() + seconds)
        self.data['refused_in_drop'] = 0

    def refuse_connection(self, waits):
        """A connection attempt while the node is cut off: refused. The client waits before it tries again, and
        the node lives through that wait: ``waits(n)`` is how long a client waits after its n-th refused attempt
        (0 the first) of this drop, so the drop ends after the attempts whose waits add up to its length,
        however long the test machine takes for them."""
        refused = self.data.get('refused_in_drop', 0)
        self.data['refused_in_drop'] = refused + 1
        self.data['unreachable_attempts'] += 1
        self.pass_time(waits(refused))

    def wait_until_reachable(self, timeout):
        """Wait for the node to answer, for at most ``timeout`` seconds of its clock: the seconds waited, or None
        when it stays cut off longer (a reboot that does not come back in time)."""
        remaining = self.data['unreachable_until'] - self.elapsed()
        if remaining > timeout:
            self.pass_time(timeout)
            return None
        self.pass_time(remaining)
        return max(0.0, remaining)

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
        physical.update(ipv4=[], ipv6=[], gateway=None, dns_servers=[])
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
            physical.update(ipv4=vnic['ipv4'], ipv6=vnic.get('ipv6') or [], gateway=vnic['gateway'],
                            dns_servers=vnic['dns_servers'], dhcp=vnic['dhcp'])
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
            # A dual-stack network: a second, IPv6 subnet, created with HNS's IPv6 flag (windows/hns.py).
            'ipv6': bool(spec.get('ipv6_subnet')),
            'adapter': adapter_name,
            'management_ip': (vnic['ipv4'][0]['address'] if vnic and vnic['ipv4'] else None),
            # HCN network flags (hcsshim hcn NetworkFlags); 8, EnableNonPersistent, does not survive a reboot.
            'flags': int(spec.get('flags') or 0),
        }
        if spec.get('ipv6_subnet'):
            network['subnets'].append({'address_prefix': spec['ipv6_subnet']['address_prefix'],
                                       'gateway': spec['ipv6_subnet']['gateway'], 'vsid': None})
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

    def create_endpoint(self, name, network_id, ip_address, ipv6_address=None):
        networks = [n for n in self.data['hns']['networks'] if n['id'] == (network_id or '').lower()]
        if not networks:
            raise SimulationError('HNS failed with error : Element not found.')
        endpoint = {'id': new_guid(), 'name': name, 'network_id': networks[0]['id'],
                    'network_name': networks[0]['name'], 'ip_address': ip_address, 'ipv6_address': ipv6_address,
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
            'ipv6': ([{'address': endpoint['ipv6_address'], 'prefix_length': 128, 'origin': 'Manual'}]
                     if endpoint.get('ipv6_address') else []),
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
            # Its Group Policy, applied at its start (windows/powershell_exe.py).
            from kubewin_sim.windows import powershell_exe  # pylint: disable=import-outside-toplevel
            powershell_exe.apply_group_policy(SimNode(data))
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
    # A dual-stack node's kubewin_management_ip has an address per family (a list, or comma-separated): the IPv4 one
    # is the adapter's ``ip``, the IPv6 one its ``ipv6`` (prefix 64 unless the profile gives ``ipv6`` itself).
    members = address if isinstance(address, (list, tuple)) else str(address or '').split(',')
    members = [str(member).strip() for member in members if str(member).strip()]
    ipv6 = [member for member in members if ':' in member]
    profile.setdefault('ip', next((member for member in members if ':' not in member), None))
    if ipv6:
        profile.setdefault('ipv6', '%s/64' % ipv6[0])
    with open_node(state_dir, host, profile=profile):
        pass


def peek(state_dir, host):
    """Read a node without locking it for long (None when it does not exist yet)."""
    path = state_path(state_dir, host)
    if not os.path.exists(path):
        return None
    with open(path, encoding='utf-8') as handle:
        return SimNode(json.load(handle))
