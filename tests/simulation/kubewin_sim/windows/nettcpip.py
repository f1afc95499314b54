"""A node's adapters, IP interfaces, addresses, routes and DNS servers: NetAdapter, NetTCPIP and DnsClient cmdlets.

Objects and properties from the CIM classes behind the cmdlets (ROOT/StandardCimv2; the Windows Management
Instrumentation reference pages "MSFT_NetAdapter class", "MSFT_NetIPAddress class", "MSFT_NetIPInterface class",
"MSFT_NetRoute class", "MSFT_DNSClientServerAddress class") and the cmdlets' pages in MicrosoftDocs/windows-powershell-docs
(docset/winserver2022-ps: NetAdapter/Get-NetAdapter, NetTCPIP/Get-NetIPAddress, Get-NetIPInterface, Get-NetRoute,
New-NetRoute, Remove-NetRoute, New-NetIPAddress, Remove-NetIPAddress, Set-NetIPInterface,
DnsClient/Get-DnsClientServerAddress, Set-DnsClientServerAddress). The enum-valued properties are the generated enums
of the cmdletization layer, so [string] shows the name and ConvertTo-Json the number. A filter that matches nothing
writes a non-terminating ObjectNotFound error, as the CDXML cmdlets do.

What Windows shows by default, and the model with it:

- IP interfaces (Get-NetIPInterface's page: "including virtual interfaces and loopback interfaces"): one per address
  family for the loopback ("Loopback Pseudo-Interface 1", index 1) and for every adapter that is up and has the
  TCP/IP protocol bound. An adapter bound to an external vSwitch has not: the vSwitch protocol takes it and its
  configuration moves to the host vNIC "vEthernet (...)" (Get-NetAdapterBinding shows ms_tcpip off there), and a
  disabled adapter has none either. Such an adapter is still a network adapter (Get-NetAdapter lists it), but
  Get-NetIPInterface, Get-NetIPAddress, Get-NetRoute and Get-DnsClientServerAddress know nothing of it.
- The interface metric is the Automatic Metric's, from the link speed, unless set (the support article "An explanation
  of the Automatic Metric feature for IPv4 routes", KB 299540: Windows 10 and later, wired interfaces: 100 Gb 5,
  40 Gb 10, 10 Gb 15, 2 Gb 20, 200 Mb 25, 80 Mb 35, 20 Mb 45, 4 Mb 55, 500 Kb 65, below 75). The loopback's is 75
  (its Get-NetIPInterface line: NlMtu 4294967295, InterfaceMetric 75, Dhcp Disabled).
- Addresses: every IP interface has an IPv6 link-local address ``fe80::<id>%<ifIndex>``/64 (PrefixOrigin WellKnown,
  SuffixOrigin Link), the loopback 127.0.0.1/8 and ::1/128 (WellKnown, WellKnown); an APIPA address 169.254.x.y/16 is
  WellKnown/Link, a manual one Manual/Manual, a DHCP one Dhcp/Dhcp (the Get-NetIPAddress objects Windows prints). A
  static IPv6 address (a dual-stack node's, the node's ``ipv6`` profile key; an HNS host endpoint's /128) is
  Manual/Manual after the link-local one. IPv6 addresses from router advertisements or DHCPv6 are not modelled.
- Routes: Get-NetRoute's -RouteMetric: "To choose among multiple routes, the computer adds this value to the interface
  metric value. The computer selects the route with the lowest combined value." On-link routes (Protocol Local,
  RouteMetric 256, the active store only): per IPv4 address its subnet, the address itself /32 and the subnet's
  broadcast /32, per IPv4 interface 224.0.0.0/4 and 255.255.255.255/32 (the loopback's follow from 127.0.0.1/8:
  127.0.0.0/8, 127.0.0.1/32, 127.255.255.255/32); per IPv6 interface fe80::/64 and its link-local address /128
  (the loopback ::1/128), per static IPv6 address its prefix and the address /128 (IPv6 has no broadcast), and
  ff00::/8. An IPv6 on-link route's next hop is ``::``, as Get-NetRoute prints it. The default route of a gateway has RouteMetric 256 when it was set by hand
  (New-NetIPAddress -DefaultGateway makes it as New-NetRoute would: its page's default metric 256; kept in both
  stores) and 0 when DHCP gave it (Find-NetRoute's example: a Dhcp address whose default route has RouteMetric 0 and
  Protocol NetMgmt), unless the node says otherwise (``gateway_metric``). Find-NetRoute -RemoteIPAddress answers the
  source address and the route Windows takes: the longest prefix, then the lowest RouteMetric + InterfaceMetric;
  which of two equal routes Windows takes is not documented, so a tie is Unsupported. The order in which Windows enumerates routes, addresses and
  interfaces is not documented: the model lists IPv4 before IPv6 and the interfaces by index, a script must not
  depend on it.
- DNS servers (Get-DnsClientServerAddress): one entry per IP interface and family, the loopback's last; the IPv4
  entry holds the interface's servers, the IPv6 one none, or the three site-local defaults fec0:0:0:ffff::1..3 on
  an interface without any server (and always on the loopback), as Windows Server prints them. AddressFamily is the
  class's uint16 (2, 23), not an enum.
- Hidden adapters (Get-NetAdapter -IncludeHidden: "includes both visible and hidden network adapters"): each vSwitch's
  "vSwitch (<switch name>)" adapter, "Hyper-V Virtual Switch Extension Adapter" (then "#2"...), as Windows lists it.
  The other hidden adapters of a Windows installation (the WAN Miniports, the Teredo and kernel debug adapters) are
  not modelled. Two adapters of one device type get PnP's distinct descriptions (" #2"...).
"""

import ipaddress

from .. import ovs
from ..pwsh.commands import CDXML
from ..pwsh.types import enum_type
from ..pwsh.values import (Byte, PSArray, PSError, UInt16, UInt32, UInt64, Unsupported, enumerate_value, is_enumerable,
                           to_string)
from ..pwsh import operators as ops
from .cim import CimInstance

_GENERATED = 'Microsoft.PowerShell.Cmdletization.GeneratedTypes.'
ADDRESS_FAMILY = enum_type(_GENERATED + 'NetIPAddress.AddressFamily', {'IPv4': 2, 'IPv6': 23}).enum
ADDRESS_TYPE = enum_type(_GENERATED + 'NetIPAddress.Type', {'Unicast': 1, 'Anycast': 2}).enum
PREFIX_ORIGIN = enum_type(_GENERATED + 'NetIPAddress.PrefixOrigin',
                          {'Other': 0, 'Manual': 1, 'WellKnown': 2, 'Dhcp': 3, 'RouterAdvertisement': 4}).enum
SUFFIX_ORIGIN = enum_type(_GENERATED + 'NetIPAddress.SuffixOrigin',
                          {'Other': 0, 'Manual': 1, 'WellKnown': 2, 'Dhcp': 3, 'Link': 4, 'Random': 5}).enum
ADDRESS_STATE = enum_type(_GENERATED + 'NetIPAddress.AddressState',
                          {'Invalid': 0, 'Tentative': 1, 'Duplicate': 2, 'Deprecated': 3, 'Preferred': 4}).enum
DHCP = enum_type(_GENERATED + 'NetIPInterface.Dhcp', {'Disabled': 0, 'Enabled': 1}).enum
FORWARDING = enum_type(_GENERATED + 'NetIPInterface.Forwarding', {'Disabled': 0, 'Enabled': 1}).enum
AUTOMATIC_METRIC = enum_type(_GENERATED + 'NetIPInterface.AutomaticMetric', {'Disabled': 0, 'Enabled': 1}).enum
CONNECTION_STATE = enum_type(_GENERATED + 'NetIPInterface.ConnectionState', {'Disconnected': 0, 'Connected': 1}).enum
ROUTE_PROTOCOL = enum_type(_GENERATED + 'NetRoute.Protocol', {
    'Other': 1, 'Local': 2, 'NetMgmt': 3, 'Icmp': 4, 'Egp': 5, 'Ggp': 6, 'Hello': 7, 'Rip': 8, 'IsIs': 9, 'EsIs': 10,
    'Igrp': 11, 'Bbn': 12, 'Ospf': 13, 'Bgp': 14, 'Idpr': 15, 'Eigrp': 16, 'Dvmrp': 17, 'Rpl': 18, 'Dhcp': 19}).enum
# New-NetRoute's documented default RouteMetric; the on-link routes have it too.
DEFAULT_ROUTE_METRIC = 256
# A DHCP gateway's automatic metric: the route adds nothing to the interface metric.
DHCP_GATEWAY_METRIC = 0
TEN_GBPS = 10 ** 10
LOOPBACK_INDEX = 1
LOOPBACK_ALIAS = 'Loopback Pseudo-Interface 1'
LOOPBACK_METRIC = 75
LOOPBACK_MTU = 4294967295
ETHERNET_MTU = 1500
SITE_LOCAL_DNS = ('fec0:0:0:ffff::1', 'fec0:0:0:ffff::2', 'fec0:0:0:ffff::3')
# (link speed at least, metric): KB 299540's table for Windows 10 and later, interfaces other than wireless.
AUTOMATIC_METRICS = ((100 * 10 ** 9, 5), (40 * 10 ** 9, 10), (10 * 10 ** 9, 15), (2 * 10 ** 9, 20), (200 * 10 ** 6, 25),
                     (80 * 10 ** 6, 35), (20 * 10 ** 6, 45), (4 * 10 ** 6, 55), (500 * 10 ** 3, 65), (0, 75))
_CIM_EXCEPTION = 'Microsoft.Management.Infrastructure.CimException'
# Where an adapter keeps each family's interface Forwarding setting.
_FORWARDING_KEY = {'IPv4': 'forwarding', 'IPv6': 'forwarding_ipv6'}


class NetAdapter(CimInstance):
    """Get-NetAdapter's output (its page: CimInstance#ROOT/StandardCimv2/MSFT_NetAdapter): Status the text Windows
    prints (Up, Disabled), LinkSpeed the text of Speed (bits per second, 0 when the adapter is not up)."""
    CLASS = 'MSFT_NetAdapter'
    KEY = 'Name'
    PROPERTIES = ('Name', 'InterfaceDescription', 'ifIndex', 'Status', 'MacAddress', 'LinkSpeed', 'Speed',
                  'InterfaceAlias')


class NetIPAddress(CimInstance):
    """Get-NetIPAddress's and Find-NetRoute's first output (MSFT_NetIPAddress), the properties in the order of
    Find-NetRoute's example; ValidLifetime and PreferredLifetime are not modelled."""
    CLASS = 'MSFT_NetIPAddress'
    KEY = 'IPAddress'
    PROPERTIES = ('IPAddress', 'InterfaceIndex', 'InterfaceAlias', 'AddressFamily', 'Type', 'PrefixLength',
                  'PrefixOrigin', 'SuffixOrigin', 'AddressState', 'SkipAsSource', 'PolicyStore')


class NetIPInterface(CimInstance):
    """Get-NetIPInterface's output (MSFT_NetIPInterface; the enums of its page's parameters: Forwarding, Dhcp,
    AutomaticMetric, ConnectionState)."""
    CLASS = 'MSFT_NetIPInterface'
    KEY = 'InterfaceAlias'
    PROPERTIES = ('InterfaceIndex', 'InterfaceAlias', 'AddressFamily', 'Forwarding', 'NlMtu', 'AutomaticMetric',
                  'InterfaceMetric', 'Dhcp', 'ConnectionState', 'PolicyStore')


class NetRoute(CimInstance):
    """Get-NetRoute's and New-NetRoute's output, Find-NetRoute's second (MSFT_NetRoute, "MSFT_NetRoute class": RouteMetric
    uint16, InterfaceIndex uint32, AddressFamily 2/23; ifIndex as Find-NetRoute's example shows it). The class stores
    the policy store as Store (the example prints "Store : ActiveStore"); the model names it PolicyStore, the name
    Get-NetRoute's table and -PolicyStore use, and no script reads it from a route."""
    CLASS = 'MSFT_NetRoute'
    KEY = 'DestinationPrefix'
    PROPERTIES = ('DestinationPrefix', 'NextHop', 'InterfaceIndex', 'ifIndex', 'InterfaceAlias', 'RouteMetric',
                  'Protocol', 'AddressFamily', 'PolicyStore')


class DnsClientServerAddress(CimInstance):
    """Get-DnsClientServerAddress's output (MSFT_DNSClientServerAddress): AddressFamily the class's uint16."""
    CLASS = 'MSFT_DNSClientServerAddress'
    KEY = 'InterfaceAlias'
    PROPERTIES = ('InterfaceAlias', 'InterfaceIndex', 'AddressFamily', 'ServerAddresses')


def _not_found(class_name, detail):
    # The CDXML cmdlets' message when a filter matches no instance.
    return PSError('No matching %s objects found by CIM query for instances of the ROOT/StandardCimv2/%s class on the  '
                   'CIM server: %s. Verify query parameters and retry.' % (class_name, class_name, detail),
                   _CIM_EXCEPTION, 'CmdletizationQuery_NotFound', 'ObjectNotFound')


def _values(value):
    if value is None:
        return None
    return [to_string(item) for item in (enumerate_value(value) if is_enumerable(value) else [value])]


def _matches(value, patterns):
    """CDXML string filters take wildcards (the cmdlets' pages: 'Accept wildcard characters: True')."""
    return patterns is None or any(ops.wildcard(pattern).match(to_string(value)) for pattern in patterns)


def _index_filter(params):
    value = params.get('InterfaceIndex', params.get('ifIndex'))
    return None if value is None else {int(item) for item in (enumerate_value(value) if is_enumerable(value) else [value])}


def _families(params):
    """The address families -AddressFamily asks for (names or numbers), both when it is not given."""
    wanted = _values(params.get('AddressFamily'))
    if wanted is None:
        return ('IPv4', 'IPv6')
    names = {str(ADDRESS_FAMILY.parse(item)) if not item.isdigit() else str(ADDRESS_FAMILY(int(item)))
             for item in wanted}
    return tuple(family for family in ('IPv4', 'IPv6') if family in names)


def _refuse_unmodelled(ctx, params, modelled):
    unmodelled = sorted(set(params) - set(modelled))
    if unmodelled:
        raise Unsupported('%s -%s' % (ctx.cmdlet.name, unmodelled[0]))


# -- the node's adapters and IP interfaces --------------------------------------------------------------------------

def _adapters(node):
    return sorted(node.data['adapters'], key=lambda adapter: adapter['if_index'])


def has_ip_interface(node, adapter):
    """Whether TCP/IP is bound to ``adapter`` and it is up: not disabled, not taken by an external vSwitch."""
    return adapter['status'] == 'Up' and adapter['name'] not in ovs.vswitch_adapters(node)


def automatic_metric(link_speed):
    return next(metric for least, metric in AUTOMATIC_METRICS if link_speed >= least)


def interface_metric(adapter):
    if adapter.get('interface_metric') is not None:
        return int(adapter['interface_metric'])
    return automatic_metric(int(adapter.get('link_speed') or TEN_GBPS))


def _link_local(adapter):
    """A stable link-local address for the adapter: its MAC as a modified EUI-64 (RFC 4291 appendix A)."""
    octets = [int(part, 16) for part in adapter['mac_address'].split('-')]
    identifier = bytes([octets[0] ^ 0x02] + octets[1:3] + [0xFF, 0xFE] + octets[3:6])
    return str(ipaddress.IPv6Address(b'\xfe\x80' + bytes(6) + identifier))


class _Interface:  # pylint: disable=too-few-public-methods,too-many-instance-attributes
    """One IP interface as the NetTCPIP cmdlets see it: the loopback's, or an adapter's (``adapter`` its dict)."""

    def __init__(self, index, alias, adapter=None):
        self.index = index
        self.alias = alias
        self.adapter = adapter


def _loopback():
    return _Interface(LOOPBACK_INDEX, LOOPBACK_ALIAS)


def ip_interfaces(node):
    """The node's IP interfaces, by index (the loopback first)."""
    return [_loopback()] + [_Interface(adapter['if_index'], adapter['name'], adapter) for adapter in _adapters(node)
                            if has_ip_interface(node, adapter)]


def _selected_interfaces(ctx, params):
    indexes = _index_filter(params)
    aliases = _values(params.get('InterfaceAlias'))
    return [interface for interface in ip_interfaces(ctx.host.node)
            if (indexes is None or interface.index in indexes) and _matches(interface.alias, aliases)]


def _selected_adapters(ctx, params):
    """The adapters' IP interfaces a setting cmdlet selects; the loopback's is not modelled for them."""
    interfaces = _selected_interfaces(ctx, params)
    if any(interface.adapter is None for interface in interfaces):
        raise Unsupported('%s on the loopback interface' % ctx.cmdlet.name)
    return [interface.adapter for interface in interfaces]


# -- Get-NetAdapter -------------------------------------------------------------------------------------------------

def _link_speed_text(bits):
    """MSFT_NetAdapter's LinkSpeed text ("10 Gbps", "100 Mbps", "0 bps")."""
    for unit, size in (('Gbps', 10 ** 9), ('Mbps', 10 ** 6), ('Kbps', 10 ** 3)):
        if bits >= size:
            return '%s %s' % (('%.1f' % (bits / size)).rstrip('0').rstrip('.'), unit)
    return '%d bps' % bits


def _adapter_object(name, description, index, status, mac, speed):  # pylint: disable=too-many-arguments
    return NetAdapter(Name=name, InterfaceDescription=description, ifIndex=UInt32(index), Status=status,
                      MacAddress=mac, LinkSpeed=_link_speed_text(speed), Speed=UInt64(speed), InterfaceAlias=name)


def _visible_adapter(adapter):
    up = adapter['status'] == 'Up'
    speed = int(adapter.get('link_speed') or TEN_GBPS) if up else 0
    return _adapter_object(adapter['name'], adapter['description'], adapter['if_index'], adapter['status'],
                           adapter['mac_address'], speed)


def _hidden_adapters(node):
    """Each vSwitch's own adapter, kept with the physical adapter it is bound to (node.py)."""
    out = []
    for adapter in _adapters(node):
        hidden = adapter.get('vswitch_adapter')
        if hidden and adapter['name'] in ovs.vswitch_adapters(node):
            out.append(_adapter_object('vSwitch (%s)' % ovs.switch_name(node, adapter['name']), hidden['description'],
                                       hidden['if_index'], 'Up', '', TEN_GBPS))
    return out


def get_netadapter(ctx, params, input_items):
    _refuse_unmodelled(ctx, params, ('Name', 'InterfaceDescription', 'InterfaceIndex', 'IncludeHidden', 'Physical'))
    node = ctx.host.node
    candidates = [(_visible_adapter(adapter), not adapter['name'].startswith('vEthernet (')) for adapter in _adapters(node)]
    if params.get('IncludeHidden'):
        candidates += [(hidden, False) for hidden in _hidden_adapters(node)]
    if params.get('Physical'):
        candidates = [(item, physical) for item, physical in candidates if physical]
    adapters = sorted((item for item, _physical in candidates), key=lambda item: int(item.ifIndex))
    for key, prop in (('Name', 'Name'), ('InterfaceDescription', 'InterfaceDescription')):
        if params.get(key) is not None:
            adapters = _filtered(ctx, adapters, prop, _values(params[key]))
    if params.get('InterfaceIndex') is not None:
        adapters = _filtered(ctx, adapters, 'InterfaceIndex', sorted(str(index) for index in _index_filter(params)))
    return adapters


def _filtered(ctx, adapters, prop, patterns):
    """The adapters whose ``prop`` matches a pattern; each literal that matches none is an error."""
    value = (lambda item: str(int(item.ifIndex))) if prop == 'InterfaceIndex' else (lambda item: getattr(item, prop))
    out = []
    for pattern in patterns:
        found = [item for item in adapters if ops.wildcard(pattern).match(value(item))]
        if not found and not any(char in pattern for char in '*?['):
            ctx.write_error(PSError("No MSFT_NetAdapter objects found with property '%s' equal to '%s'.  Verify the "
                                    "value of the property and retry." % (prop, pattern), _CIM_EXCEPTION,
                                    'CmdletizationQuery_NotFound_%s,Get-NetAdapter' % prop, 'ObjectNotFound',
                                    target=pattern))
        out.extend(item for item in found if item not in out)
    return sorted(out, key=lambda item: int(item.ifIndex))


# -- Get-NetIPInterface ---------------------------------------------------------------------------------------------

def _interface_object(interface, family):
    adapter = interface.adapter
    if adapter is None:
        return NetIPInterface(InterfaceIndex=UInt32(LOOPBACK_INDEX), InterfaceAlias=LOOPBACK_ALIAS,
                              AddressFamily=ADDRESS_FAMILY.parse(family), Forwarding=FORWARDING(0),
                              NlMtu=UInt32(LOOPBACK_MTU), AutomaticMetric=AUTOMATIC_METRIC(1),
                              InterfaceMetric=UInt32(LOOPBACK_METRIC), Dhcp=DHCP(0), ConnectionState=CONNECTION_STATE(1),
                              PolicyStore='ActiveStore')
    ipv4 = family == 'IPv4'
    # The model keeps DHCP for IPv4 (an IPv6 interface shows DHCPv6 enabled) and forwarding per family.
    return NetIPInterface(InterfaceIndex=UInt32(interface.index), InterfaceAlias=interface.alias,
                          AddressFamily=ADDRESS_FAMILY.parse(family),
                          Forwarding=FORWARDING(1 if adapter.get(_FORWARDING_KEY[family]) else 0),
                          NlMtu=UInt32(ETHERNET_MTU),
                          AutomaticMetric=AUTOMATIC_METRIC(0 if adapter.get('interface_metric') is not None else 1),
                          InterfaceMetric=UInt32(interface_metric(adapter)),
                          Dhcp=DHCP(1 if adapter['dhcp'] or not ipv4 else 0), ConnectionState=CONNECTION_STATE(1),
                          PolicyStore='ActiveStore')


def get_netipinterface(ctx, params, input_items):
    _refuse_unmodelled(ctx, params, ('InterfaceIndex', 'InterfaceAlias', 'AddressFamily'))
    out = [_interface_object(interface, family) for family in _families(params)
           for interface in _selected_interfaces(ctx, params)]
    if not out:
        ctx.write_error(_not_found('MSFT_NetIPInterface', 'SELECT * FROM MSFT_NetIPInterface'))
    return out


# -- Get-NetIPAddress -----------------------------------------------------------------------------------------------

_SUFFIX_OF = {'Manual': 'Manual', 'Dhcp': 'Dhcp', 'WellKnown': 'Link'}


def _address_object(interface, address, prefix_length, prefix_origin, suffix_origin):  # pylint: disable=too-many-arguments
    family = 'IPv6' if ':' in address else 'IPv4'
    return NetIPAddress(IPAddress=address, InterfaceIndex=UInt32(interface.index), InterfaceAlias=interface.alias,
                        AddressFamily=ADDRESS_FAMILY.parse(family), Type=ADDRESS_TYPE(1), PrefixLength=Byte(prefix_length),
                        PrefixOrigin=PREFIX_ORIGIN.parse(prefix_origin), SuffixOrigin=SUFFIX_ORIGIN.parse(suffix_origin),
                        AddressState=ADDRESS_STATE(4), SkipAsSource=False, PolicyStore='ActiveStore')


def _addresses(interface, family):
    if interface.adapter is None:
        if family == 'IPv4':
            return [_address_object(interface, '127.0.0.1', 8, 'WellKnown', 'WellKnown')]
        return [_address_object(interface, '::1', 128, 'WellKnown', 'WellKnown')]
    if family == 'IPv6':
        return [_address_object(interface, '%s%%%d' % (_link_local(interface.adapter), interface.index), 64,
                                'WellKnown', 'Link')] + [
            _address_object(interface, entry['address'], entry['prefix_length'], entry['origin'],
                            _SUFFIX_OF[entry['origin']]) for entry in interface.adapter.get('ipv6') or []]
    return [_address_object(interface, entry['address'], entry['prefix_length'], entry['origin'],
                            _SUFFIX_OF[entry['origin']]) for entry in interface.adapter['ipv4']]


def get_netipaddress(ctx, params, input_items):
    _refuse_unmodelled(ctx, params, ('InterfaceIndex', 'InterfaceAlias', 'AddressFamily', 'IPAddress'))
    wanted = _values(params.get('IPAddress'))
    out = [address for family in reversed(_families(params)) for interface in _selected_interfaces(ctx, params)
           for address in _addresses(interface, family) if _matches(address.IPAddress, wanted)]
    if not out:
        ctx.write_error(_not_found('MSFT_NetIPAddress', 'SELECT * FROM MSFT_NetIPAddress'))
    return out


# -- Get-NetRoute ---------------------------------------------------------------------------------------------------

def _on_link_routes(interface):
    """(destination, family) of the routes Windows makes for an IP interface's own addresses."""
    v4 = [('127.0.0.1', 8)] if interface.adapter is None else [
        (entry['address'], entry['prefix_length']) for entry in interface.adapter['ipv4']]
    out = []
    for address, length in v4:
        network = ipaddress.ip_interface('%s/%s' % (address, length)).network
        for destination in (str(network), '%s/32' % address, '%s/32' % network.broadcast_address):
            if (destination, 'IPv4') not in out:
                out.append((destination, 'IPv4'))
    if v4:
        out += [('224.0.0.0/4', 'IPv4'), ('255.255.255.255/32', 'IPv4')]
    if interface.adapter is None:
        out += [('::1/128', 'IPv6')]
    else:
        out += [('fe80::/64', 'IPv6'), ('%s/128' % _link_local(interface.adapter), 'IPv6')]
        for entry in interface.adapter.get('ipv6') or []:
            network = ipaddress.ip_interface('%s/%s' % (entry['address'], entry['prefix_length'])).network
            for destination in (str(network), '%s/128' % entry['address']):
                if (destination, 'IPv6') not in out:
                    out.append((destination, 'IPv6'))
    return out + [('ff00::/8', 'IPv6')]


def _gateway_metric(adapter):
    if adapter.get('gateway_metric') is not None:
        return int(adapter['gateway_metric'])
    return DHCP_GATEWAY_METRIC if adapter['dhcp'] else DEFAULT_ROUTE_METRIC


def _routes(node):
    """Every route of the node: (destination, next hop, interface index, metric, protocol, store, alias, family)."""
    routes = []
    interfaces = ip_interfaces(node)
    for interface in interfaces:
        for destination, family in _on_link_routes(interface):
            next_hop = '0.0.0.0' if family == 'IPv4' else '::'
            routes.append((destination, next_hop, interface.index, DEFAULT_ROUTE_METRIC, 'Local', ('ActiveStore',)))
        adapter = interface.adapter
        if adapter is not None and adapter.get('gateway'):
            stores = ('ActiveStore',) if adapter['dhcp'] else ('ActiveStore', 'PersistentStore')
            # Protocol NetMgmt for a DHCP gateway too (Find-NetRoute's example: a Dhcp address, its default route
            # RouteMetric 0, Protocol NetMgmt).
            routes.append(('0.0.0.0/0', adapter['gateway'], interface.index, _gateway_metric(adapter), 'NetMgmt',
                           stores))
    for route in node.data.get('routes', []):
        stores = tuple(store for store, present in (('ActiveStore', route['active']),
                                                    ('PersistentStore', route['persistent'])) if present)
        routes.append((route['destination'], route['next_hop'], route['interface_index'], route['metric'], 'NetMgmt',
                       stores))
    aliases = {interface.index: interface.alias for interface in interfaces}
    aliases.update((adapter['if_index'], adapter['name']) for adapter in node.data['adapters'])
    out = [(destination, next_hop, index, metric, protocol, store, aliases.get(index, ''),
            'IPv6' if ':' in destination else 'IPv4')
           for destination, next_hop, index, metric, protocol, stores in routes for store in stores]
    return sorted(out, key=lambda route: route[7] != 'IPv4')


def get_netroute(ctx, params, input_items):
    _refuse_unmodelled(ctx, params, ('DestinationPrefix', 'InterfaceIndex', 'InterfaceAlias', 'AddressFamily',
                                     'Protocol', 'PolicyStore', 'NextHop'))
    store_wanted = to_string(params.get('PolicyStore', 'ActiveStore'))
    indexes = _index_filter(params)
    families = _families(params)
    filters = {key: _values(params.get(key)) for key in ('DestinationPrefix', 'InterfaceAlias', 'NextHop', 'Protocol')}
    out = []
    for destination, next_hop, index, metric, protocol, store, alias, family in _routes(ctx.host.node):
        if store.lower() != store_wanted.lower() or family not in families or (indexes is not None and index not in indexes):
            continue
        if not (_matches(destination, filters['DestinationPrefix']) and _matches(alias, filters['InterfaceAlias'])
                and _matches(next_hop, filters['NextHop'])):
            continue
        if filters['Protocol'] is not None and protocol.lower() not in [item.lower() for item in filters['Protocol']]:
            continue
        out.append(NetRoute(DestinationPrefix=destination, NextHop=next_hop, InterfaceIndex=UInt32(index),
                            ifIndex=UInt32(index), InterfaceAlias=alias, RouteMetric=UInt16(metric),
                            Protocol=ROUTE_PROTOCOL.parse(protocol), AddressFamily=ADDRESS_FAMILY.parse(family),
                            PolicyStore=store))
    if not out:
        ctx.write_error(_not_found('MSFT_NetRoute', 'SELECT * FROM MSFT_NetRoute'))
    return out


def best_routes(node, remote):
    """The active IPv4 routes Windows may take to ``remote`` (an IPv4Address): the longest prefix, then the lowest
    RouteMetric + InterfaceMetric; more than one when they tie."""
    interfaces = {interface.index: interface for interface in ip_interfaces(node)}
    candidates = [route for route in _routes(node) if route[5] == 'ActiveStore' and route[7] == 'IPv4'
                  and route[2] in interfaces and remote in ipaddress.IPv4Network(route[0])]
    if not candidates:
        return []
    longest = max(ipaddress.IPv4Network(route[0]).prefixlen for route in candidates)
    candidates = [route for route in candidates if ipaddress.IPv4Network(route[0]).prefixlen == longest]

    def cost(route):
        interface = interfaces[route[2]]
        return route[3] + (LOOPBACK_METRIC if interface.adapter is None else interface_metric(interface.adapter))
    best = min(cost(route) for route in candidates)
    return [route for route in candidates if cost(route) == best]


def default_route_adapter(node):
    """The adapter whose default route Windows takes (the lowest interface index of a tie), or None."""
    routes = [route for route in best_routes(node, ipaddress.IPv4Address('0.0.0.0')) if route[0] == '0.0.0.0/0']
    indexes = sorted(route[2] for route in routes)
    return next((adapter for adapter in node.data['adapters'] if indexes and adapter['if_index'] == indexes[0]), None)


def find_netroute(ctx, params, input_items):
    """Find-NetRoute -RemoteIPAddress (IPv4): the local address, then the route (its page: 'The command returns two
    objects. The first object is the local IP address. The second object is the local route')."""
    _refuse_unmodelled(ctx, params, ('RemoteIPAddress',))
    node = ctx.host.node
    try:
        remote = ipaddress.IPv4Address(to_string(params['RemoteIPAddress']))
    except ValueError:
        raise Unsupported('Find-NetRoute -RemoteIPAddress %s (IPv4 only)' % to_string(params['RemoteIPAddress'])) from None
    interfaces = {interface.index: interface for interface in ip_interfaces(node)}
    chosen = best_routes(node, remote)
    if not chosen:
        raise Unsupported('Find-NetRoute to %s, which no route reaches (the error is not modelled)' % remote)
    if len(chosen) > 1:
        raise Unsupported('Find-NetRoute between routes of equal metric to %s (which one Windows takes is not '
                          'documented)' % remote)
    destination, next_hop, index, metric, protocol, store, alias, family = chosen[0]
    sources = _addresses(interfaces[index], 'IPv4')
    if len(sources) != 1:
        raise Unsupported('Find-NetRoute\'s source address among %d addresses (RFC 6724 selection)' % len(sources))
    return [sources[0], NetRoute(DestinationPrefix=destination, NextHop=next_hop, InterfaceIndex=UInt32(index),
                                 ifIndex=UInt32(index), InterfaceAlias=alias, RouteMetric=UInt16(metric),
                                 Protocol=ROUTE_PROTOCOL.parse(protocol), AddressFamily=ADDRESS_FAMILY.parse(family),
                                 PolicyStore=store)]


# -- Get-DnsClientServerAddress -------------------------------------------------------------------------------------

def _dns_servers(interface, family):
    if interface.adapter is None:
        return list(SITE_LOCAL_DNS) if family == 'IPv6' else []
    servers = list(interface.adapter['dns_servers'])
    if family == 'IPv4':
        return servers
    return [] if servers else list(SITE_LOCAL_DNS)


def get_dnsclientserveraddress(ctx, params, input_items):
    _refuse_unmodelled(ctx, params, ('InterfaceIndex', 'InterfaceAlias', 'AddressFamily'))
    interfaces = _selected_interfaces(ctx, params)
    interfaces = [i for i in interfaces if i.adapter is not None] + [i for i in interfaces if i.adapter is None]
    out = [DnsClientServerAddress(InterfaceAlias=interface.alias, InterfaceIndex=UInt32(interface.index),
                                  AddressFamily=UInt16(ADDRESS_FAMILY.parse(family).value),
                                  ServerAddresses=PSArray(_dns_servers(interface, family), 'System.String'))
           for interface in interfaces for family in _families(params)]
    if not out:
        ctx.write_error(_not_found('MSFT_DNSClientServerAddress', 'SELECT * FROM MSFT_DNSClientServerAddress'))
    return out


def set_netipinterface(ctx, params, input_items):
    """Set-NetIPInterface: -Forwarding and -Dhcp of the IP interfaces selected by alias or index, in one family (the
    page's -AddressFamily; each family's interface has its own Forwarding). -Dhcp of an IPv6 interface (DHCPv6) is
    not modelled."""
    _refuse_unmodelled(ctx, params, ('InterfaceAlias', 'InterfaceIndex', 'AddressFamily', 'Forwarding', 'Dhcp'))
    families = _families(params)
    if len(families) != 1:
        raise Unsupported('Set-NetIPInterface of both families at once (without -AddressFamily)')
    if families == ('IPv6',) and 'Dhcp' in params:
        raise Unsupported('Set-NetIPInterface -Dhcp of an IPv6 interface')
    adapters = _selected_adapters(ctx, params)
    if not adapters:
        raise _not_found('MSFT_NetIPInterface', 'SELECT * FROM MSFT_NetIPInterface')
    for adapter in adapters:
        if 'Forwarding' in params:
            adapter[_FORWARDING_KEY[families[0]]] = FORWARDING.parse(to_string(params['Forwarding'])).value == 1
        if 'Dhcp' in params:
            adapter['dhcp'] = DHCP.parse(to_string(params['Dhcp'])).value == 1
    return []


# -- the setting cmdlets --------------------------------------------------------------------------------------------

def new_netroute(ctx, params, input_items):
    """New-NetRoute: a static route (protocol NetMgmt) on one interface, in both stores unless -PolicyStore ActiveStore.

    Its page: NextHop 0.0.0.0 is on-link, RouteMetric defaults to 256, "By default, a route is saved in both
    stores", PersistentStore alone "Cannot be used"; -DestinationPrefix "consists of an IP address prefix and a prefix
    length" of either family, -AddressFamily IPv4 or IPv6 (given, it must be the prefix's and the next hop's family;
    the IPv6 on-link next hop is ::). It returns the route it made, one instance per store. A
    failed CIM method call is written as a non-terminating error, as the CDXML cmdlets do.
    """
    for unmodelled in ('Protocol', 'Publish', 'ValidLifetime', 'PreferredLifetime', 'CompartmentId', 'CimSession',
                       'AsJob'):
        if params.get(unmodelled) is not None:
            raise Unsupported('New-NetRoute -%s' % unmodelled)
    family = to_string(params['AddressFamily']) if params.get('AddressFamily') is not None else None
    if family is not None and family.lower() not in ('ipv4', 'ipv6'):
        raise Unsupported('New-NetRoute -AddressFamily %s' % family)
    store = params.get('PolicyStore')
    if store is None:
        stores = ('ActiveStore', 'PersistentStore')
    elif to_string(store).lower() == 'activestore':
        stores = ('ActiveStore',)
    else:
        raise Unsupported('New-NetRoute -PolicyStore %s (its page: PersistentStore alone cannot be used)'
                          % to_string(store))
    node = ctx.host.node
    adapters = _selected_adapters(ctx, params)
    if not adapters:
        ctx.write_error(_not_found('MSFT_NetIPInterface', 'SELECT * FROM MSFT_NetIPInterface'))
        return []
    index = adapters[0]['if_index']
    destination = to_string(params['DestinationPrefix'])
    try:
        network = ipaddress.ip_network(destination)
        # The on-link next hop of each family: 0.0.0.0, or :: for IPv6 (Get-NetRoute prints them so).
        next_hop = to_string(params.get('NextHop') or ('0.0.0.0' if network.version == 4 else '::'))
        if ipaddress.ip_address(next_hop).version != network.version:
            raise ValueError('family')
        if family is not None and family.lower() != 'ipv%d' % network.version:
            raise ValueError('family')
    except ValueError:
        # Win32 error 87, ERROR_INVALID_PARAMETER, as the CIM provider reports a malformed prefix or address.
        ctx.write_error(PSError('The parameter is incorrect.', _CIM_EXCEPTION, 'Windows System Error 87,New-NetRoute',
                                'InvalidArgument'))
        return []
    if any((route[0], route[1], route[2]) == (destination, next_hop, index) and route[5] in stores
           for route in _routes(node)):
        # Win32 error 5010, ERROR_OBJECT_ALREADY_EXISTS: the route is in a store it is to be added to.
        ctx.write_error(PSError('Instance MSFT_NetRoute already exists', _CIM_EXCEPTION,
                                'Windows System Error 5010,New-NetRoute', 'ResourceExists'))
        return []
    metric = int(params['RouteMetric']) if params.get('RouteMetric') is not None else DEFAULT_ROUTE_METRIC
    if ctx.what_if():
        return []
    node.data.setdefault('routes', []).append({'destination': destination, 'next_hop': next_hop, 'interface_index': index,
                                               'metric': metric, 'active': True,
                                               'persistent': 'PersistentStore' in stores})
    return [NetRoute(DestinationPrefix=destination, NextHop=next_hop, InterfaceIndex=UInt32(index), ifIndex=UInt32(index),
                     InterfaceAlias=adapters[0]['name'], RouteMetric=UInt16(metric), Protocol=ROUTE_PROTOCOL.parse('NetMgmt'),
                     AddressFamily=ADDRESS_FAMILY.parse('IPv%d' % network.version), PolicyStore=store_name)
            for store_name in stores]


def remove_netroute(ctx, params, input_items):
    """Remove-NetRoute -InputObject (MSFT_NetRoute instances, piped or given): each leaves the store it was read from.

    A static route left in neither store is gone. Removing a route the model derives from an adapter (its
    subnet, its gateway), and the ByName parameter set, are not modelled.
    """
    # A piped MSFT_NetRoute binds to InputObject (by value; AssociatedIPInterface takes MSFT_NetIPInterface only).
    selection = set(params) - {'PassThru', 'InputObject'}
    if selection or (params.get('InputObject') is None and input_items is None):
        raise Unsupported('Remove-NetRoute -%s (only the InputObject parameter set is modelled)'
                          % (sorted(selection) or ['DestinationPrefix'])[0])
    items = enumerate_value(params['InputObject']) if params.get('InputObject') is not None else input_items
    routes = ctx.host.node.data.setdefault('routes', [])
    out = []
    for item in items:
        if not isinstance(item, NetRoute):
            raise Unsupported('Remove-NetRoute -InputObject of %s' % type(item).__name__)
        key = (item.DestinationPrefix, item.NextHop, int(item.InterfaceIndex))
        store = 'active' if item.PolicyStore == 'ActiveStore' else 'persistent'
        found = [route for route in routes if (route['destination'], route['next_hop'], route['interface_index']) == key]
        if not found:
            if any(route[:3] == key for route in _routes(ctx.host.node)):
                raise Unsupported('Remove-NetRoute of %s via %s: a route of an adapter\'s configuration' % key[:2])
            ctx.write_error(_not_found('MSFT_NetRoute', 'SELECT * FROM MSFT_NetRoute'))
            continue
        if not found[0][store]:
            ctx.write_error(_not_found('MSFT_NetRoute', 'SELECT * FROM MSFT_NetRoute'))
            continue
        if ctx.what_if():
            continue
        found[0][store] = False
        if not (found[0]['active'] or found[0]['persistent']):
            routes.remove(found[0])
        if params.get('PassThru'):
            out.append(item)
    return out


def _one_adapter(ctx, params, class_name):
    adapters = _selected_adapters(ctx, params)
    if not adapters:
        ctx.write_error(_not_found(class_name, 'SELECT * FROM %s' % class_name))
        return None
    return adapters[0]


def new_netipaddress(ctx, params, input_items):
    """New-NetIPAddress -IPAddress -PrefixLength [-DefaultGateway] on one interface (IPv4), in both stores.

    Its page: adding an address to an interface with DHCP enabled disables DHCP; the default gateway must be in the
    address's subnet. An address the interface already has is Win32 error 5010 (ERROR_OBJECT_ALREADY_EXISTS),
    written as New-NetRoute writes it. The node profile's ``static_ip_restore_fails`` makes adding an address to a
    host vNIC fail so and leaves the node unreachable for good.
    """
    for unmodelled in ('PolicyStore', 'Type', 'SkipAsSource', 'ValidLifetime', 'PreferredLifetime', 'CimSession',
                       'AsJob'):
        if params.get(unmodelled) is not None:
            raise Unsupported('New-NetIPAddress -%s' % unmodelled)
    if _families(params) != ('IPv4',) and params.get('AddressFamily') is not None:
        raise Unsupported('New-NetIPAddress -AddressFamily IPv6')
    node = ctx.host.node
    adapter = _one_adapter(ctx, params, 'MSFT_NetIPInterface')
    if adapter is None:
        return []
    address = to_string(params['IPAddress'])
    prefix_length = int(params['PrefixLength']) if params.get('PrefixLength') is not None else 32
    interface = ipaddress.IPv4Interface('%s/%d' % (address, prefix_length))
    gateway = to_string(params['DefaultGateway']) if params.get('DefaultGateway') is not None else None
    if gateway is not None and ipaddress.IPv4Address(gateway) not in interface.network:
        raise Unsupported('New-NetIPAddress -DefaultGateway %s outside %s (the error is not modelled)'
                          % (gateway, interface.network))
    if gateway is not None and adapter.get('gateway') not in (None, gateway):
        raise Unsupported('New-NetIPAddress -DefaultGateway on an interface that has another default gateway')
    exists = any(entry['address'] == address for entry in adapter['ipv4'])
    if exists or (node.profile.get('static_ip_restore_fails') and adapter['name'].startswith('vEthernet (')):
        if not exists:
            node.data['unreachable_until'] = 1e18  # never returns at its address
        ctx.write_error(PSError('Instance MSFT_NetIPAddress already exists', _CIM_EXCEPTION,
                                'Windows System Error 5010,New-NetIPAddress', 'ResourceExists'))
        return []
    if ctx.what_if():
        return []
    adapter['ipv4'].append({'address': address, 'prefix_length': prefix_length, 'origin': 'Manual'})
    adapter['dhcp'] = False
    if gateway is not None:
        adapter['gateway'] = gateway
    created = _address_object(_Interface(adapter['if_index'], adapter['name'], adapter), address, prefix_length,
                              'Manual', 'Manual')
    persistent = NetIPAddress(**{name: getattr(created, name) for name in NetIPAddress.PROPERTIES})
    persistent.PolicyStore = 'PersistentStore'
    return [created, persistent]


def remove_netipaddress(ctx, params, input_items):
    """Remove-NetIPAddress -InputObject (MSFT_NetIPAddress instances, piped or given): "removes an IP address and its
    configuration" (its page). The model keeps an interface's addresses in one list, not per store: it removes an
    address held by the active store only (a DHCP or link-local one, as Get-NetIPAddress shows them); removing a
    manual address, held by both stores, or the Query parameter set, is not modelled."""
    selection = set(params) - {'PassThru', 'InputObject'}
    if selection or (params.get('InputObject') is None and input_items is None):
        raise Unsupported('Remove-NetIPAddress -%s (only the InputObject parameter set is modelled)'
                          % (sorted(selection) or ['IPAddress'])[0])
    items = enumerate_value(params['InputObject']) if params.get('InputObject') is not None else input_items
    out = []
    for item in items:
        if not isinstance(item, NetIPAddress):
            raise Unsupported('Remove-NetIPAddress -InputObject of %s' % type(item).__name__)
        adapter = next((a for a in _adapters(ctx.host.node) if a['if_index'] == int(item.InterfaceIndex)), None)
        entry = next((e for e in (adapter or {}).get('ipv4') or [] if e['address'] == item.IPAddress), None)
        if entry is None:
            ctx.write_error(_not_found('MSFT_NetIPAddress', 'SELECT * FROM MSFT_NetIPAddress'))
            continue
        if entry['origin'] == 'Manual':
            raise Unsupported('Remove-NetIPAddress of the manual address %s (held by both stores)' % item.IPAddress)
        if ctx.what_if():
            continue
        adapter['ipv4'].remove(entry)
        if params.get('PassThru'):
            out.append(item)
    return out


def set_dnsclientserveraddress(ctx, params, input_items):
    """Set-DnsClientServerAddress -InterfaceAlias|-InterfaceIndex -ServerAddresses: the interface's DNS servers, set
    statically ("the DNS servers will override any DHCP configuration for that interface", its page)."""
    for unmodelled in ('InputObject', 'ResetServerAddresses', 'Validate', 'CimSession', 'AsJob'):
        if params.get(unmodelled) is not None:
            raise Unsupported('Set-DnsClientServerAddress -%s' % unmodelled)
    adapters = _selected_adapters(ctx, params)
    if not adapters:
        ctx.write_error(_not_found('MSFT_DNSClientServerAddress', 'SELECT * FROM MSFT_DNSClientServerAddress'))
        return []
    servers = _values(params.get('ServerAddresses')) or []
    if ctx.what_if():
        return []
    for adapter in adapters:
        adapter['dns_servers'] = list(servers)
    return []


CMDLETS = {
    'Find-NetRoute': find_netroute,
    'New-NetIPAddress': new_netipaddress,
    'Remove-NetIPAddress': remove_netipaddress,
    'Set-DnsClientServerAddress': set_dnsclientserveraddress,
    'Set-NetIPInterface': set_netipinterface,
    'Get-NetAdapter': get_netadapter,
    'Get-NetIPAddress': get_netipaddress,
    'Get-NetIPInterface': get_netipinterface,
    'Get-NetRoute': get_netroute,
    'New-NetRoute': new_netroute,
    'Remove-NetRoute': remove_netroute,
    'Get-DnsClientServerAddress': get_dnsclientserveraddress,
}
# NetTCPIP, NetAdapter and DnsClient are CDXML modules (their reference pages list CimSession, ThrottleLimit and AsJob):
# where these cmdlets read preference variables, pwsh/commands.py. The ones listed decide -WhatIf themselves.
CMDLET_KIND = CDXML
WHATIF_MODELLED = ('New-NetIPAddress', 'Remove-NetIPAddress', 'Set-DnsClientServerAddress', 'New-NetRoute',
                   'Remove-NetRoute')
