"""Reading a node's adapters, IPv4 configuration and routes: NetAdapter, NetTCPIP and DnsClient cmdlets.

Objects and properties from the CIM classes behind the cmdlets (Windows Management Instrumentation
reference, ROOT/StandardCimv2: MSFT_NetAdapter, MSFT_NetIPAddress, MSFT_NetIPInterface, MSFT_NetRoute,
MSFT_DNSClientServerAddress) and the cmdlets' pages in MicrosoftDocs/windows-powershell-docs
(docset/winserver2022-ps: netadapter/Get-NetAdapter, nettcpip/Get-NetIPAddress, Get-NetIPInterface,
Get-NetRoute, New-NetRoute, Remove-NetRoute, New-NetIPAddress, Remove-NetIPAddress,
dnsclient/Get-DnsClientServerAddress, Set-DnsClientServerAddress). The enum-valued properties are the generated
enums of the cmdletization layer, so [string] shows the name and ConvertTo-Json the number. A filter
that matches nothing writes a non-terminating ObjectNotFound error, as the CDXML cmdlets do.
"""

import ipaddress

from ..pwsh.commands import CDXML
from ..pwsh.types import enum_type
from ..pwsh.values import (Byte, PSArray, PSError, UInt16, UInt32, Unsupported, enumerate_value, is_enumerable,
                           to_string)
from ..pwsh import operators as ops
from .cim import CimInstance

_GENERATED = 'Microsoft.PowerShell.Cmdletization.GeneratedTypes.'
ADDRESS_FAMILY = enum_type(_GENERATED + 'NetIPAddress.AddressFamily', {'IPv4': 2, 'IPv6': 23}).enum
PREFIX_ORIGIN = enum_type(_GENERATED + 'NetIPAddress.PrefixOrigin',
                          {'Other': 0, 'Manual': 1, 'WellKnown': 2, 'Dhcp': 3, 'RouterAdvertisement': 4}).enum
DHCP = enum_type(_GENERATED + 'NetIPInterface.Dhcp', {'Disabled': 0, 'Enabled': 1}).enum
ROUTE_PROTOCOL = enum_type(_GENERATED + 'NetRoute.Protocol', {
    'Other': 1, 'Local': 2, 'NetMgmt': 3, 'Icmp': 4, 'Egp': 5, 'Ggp': 6, 'Hello': 7, 'Rip': 8, 'IsIs': 9, 'EsIs': 10,
    'Igrp': 11, 'Bbn': 12, 'Ospf': 13, 'Bgp': 14, 'Idpr': 15, 'Eigrp': 16, 'Dvmrp': 17, 'Rpl': 18, 'Dhcp': 19}).enum
# New-NetRoute's documented default RouteMetric; the model gives every route it makes this metric.
DEFAULT_ROUTE_METRIC = 256


class NetAdapter(CimInstance):
    CLASS = 'MSFT_NetAdapter'
    KEY = 'Name'
    PROPERTIES = ('Name', 'InterfaceDescription', 'ifIndex', 'Status', 'MacAddress', 'LinkSpeed', 'InterfaceAlias')


class NetIPAddress(CimInstance):
    CLASS = 'MSFT_NetIPAddress'
    KEY = 'IPAddress'
    PROPERTIES = ('IPAddress', 'InterfaceIndex', 'InterfaceAlias', 'AddressFamily', 'PrefixLength', 'PrefixOrigin',
                  'PolicyStore')


class NetIPInterface(CimInstance):
    CLASS = 'MSFT_NetIPInterface'
    KEY = 'InterfaceAlias'
    PROPERTIES = ('InterfaceIndex', 'InterfaceAlias', 'AddressFamily', 'Dhcp', 'Forwarding', 'InterfaceMetric', 'PolicyStore')


class NetRoute(CimInstance):
    CLASS = 'MSFT_NetRoute'
    KEY = 'DestinationPrefix'
    PROPERTIES = ('DestinationPrefix', 'NextHop', 'InterfaceIndex', 'ifIndex', 'InterfaceAlias', 'RouteMetric',
                  'Protocol', 'AddressFamily', 'PolicyStore')


class DnsClientServerAddress(CimInstance):
    CLASS = 'MSFT_DNSClientServerAddress'
    KEY = 'InterfaceAlias'
    PROPERTIES = ('InterfaceAlias', 'InterfaceIndex', 'AddressFamily', 'ServerAddresses')


def _not_found(class_name, detail):
    # The CDXML cmdlets' message when a filter matches no instance.
    return PSError('No matching %s objects found by CIM query for instances of the ROOT/StandardCimv2/%s class on the  '
                   'CIM server: %s. Verify query parameters and retry.' % (class_name, class_name, detail),
                   'Microsoft.Management.Infrastructure.CimException', 'CmdletizationQuery_NotFound', 'ObjectNotFound')


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


def _family_ok(params, family='IPv4'):
    wanted = params.get('AddressFamily')
    return wanted is None or family in _values(wanted) or str(ADDRESS_FAMILY.parse(family).value) in _values(wanted)


def _adapters(node):
    return sorted(node.data['adapters'], key=lambda adapter: adapter['if_index'])


def get_netadapter(ctx, params, input_items):
    names = _values(params.get('Name'))
    out = [NetAdapter(Name=adapter['name'], InterfaceDescription=adapter['description'],
                      ifIndex=UInt32(adapter['if_index']), Status=adapter['status'], MacAddress=adapter['mac_address'],
                      LinkSpeed='10 Gbps', InterfaceAlias=adapter['name'])
           for adapter in _adapters(ctx.host.node) if _matches(adapter['name'], names)
           and (_index_filter(params) is None or adapter['if_index'] in _index_filter(params))]
    if not out and names:
        for name in names:
            ctx.write_error(PSError("No MSFT_NetAdapter objects found with property 'Name' equal to '%s'.  Verify the "
                                    "value of the property and retry." % name,
                                    'Microsoft.Management.Infrastructure.CimException',
                                    'CmdletizationQuery_NotFound_Name,Get-NetAdapter', 'ObjectNotFound', target=name))
    return out


def _selected_adapters(ctx, params):
    indexes = _index_filter(params)
    aliases = _values(params.get('InterfaceAlias'))
    return [adapter for adapter in _adapters(ctx.host.node)
            if (indexes is None or adapter['if_index'] in indexes) and _matches(adapter['name'], aliases)]


def get_netipaddress(ctx, params, input_items):
    out = []
    if _family_ok(params):
        for adapter in _selected_adapters(ctx, params):
            for address in adapter['ipv4']:
                out.append(NetIPAddress(IPAddress=address['address'], InterfaceIndex=UInt32(adapter['if_index']),
                                        InterfaceAlias=adapter['name'], AddressFamily=ADDRESS_FAMILY(2),
                                        PrefixLength=Byte(address['prefix_length']),
                                        PrefixOrigin=PREFIX_ORIGIN.parse(address['origin']), PolicyStore='ActiveStore'))
    if not out:
        ctx.write_error(_not_found('MSFT_NetIPAddress', 'SELECT * FROM MSFT_NetIPAddress'))
    return out


def get_netipinterface(ctx, params, input_items):
    out = []
    if _family_ok(params):
        out = [NetIPInterface(InterfaceIndex=UInt32(adapter['if_index']), InterfaceAlias=adapter['name'],
                              AddressFamily=ADDRESS_FAMILY(2), Dhcp=DHCP(1 if adapter['dhcp'] else 0),
                              Forwarding=FORWARDING(1 if adapter.get('forwarding') else 0),
                              InterfaceMetric=UInt32(15), PolicyStore='ActiveStore')
               for adapter in _selected_adapters(ctx, params)]
    if not out:
        ctx.write_error(_not_found('MSFT_NetIPInterface', 'SELECT * FROM MSFT_NetIPInterface'))
    return out


def _routes(node):
    """Every IPv4 route of the node with its stores: connected subnets, default gateways, static routes."""
    aliases = {adapter['if_index']: adapter['name'] for adapter in node.data['adapters']}
    routes = []
    for adapter in _adapters(node):
        for address in adapter['ipv4']:
            network = ipaddress.ip_interface('%s/%s' % (address['address'], address['prefix_length'])).network
            routes.append((str(network), '0.0.0.0', adapter['if_index'], DEFAULT_ROUTE_METRIC, 'Local', ('ActiveStore',)))
        if adapter.get('gateway'):
            stores = ('ActiveStore',) if adapter['dhcp'] else ('ActiveStore', 'PersistentStore')
            routes.append(('0.0.0.0/0', adapter['gateway'], adapter['if_index'], DEFAULT_ROUTE_METRIC,
                           'Dhcp' if adapter['dhcp'] else 'NetMgmt', stores))
    for route in node.data.get('routes', []):
        stores = tuple(store for store, present in (('ActiveStore', route['active']),
                                                    ('PersistentStore', route['persistent'])) if present)
        routes.append((route['destination'], route['next_hop'], route['interface_index'], route['metric'], 'NetMgmt',
                       stores))
    return [(destination, next_hop, index, metric, protocol, store, aliases.get(index, ''))
            for destination, next_hop, index, metric, protocol, stores in routes for store in stores]


def get_netroute(ctx, params, input_items):
    store_wanted = to_string(params.get('PolicyStore', 'ActiveStore'))
    indexes = _index_filter(params)
    prefixes = _values(params.get('DestinationPrefix'))
    protocols = _values(params.get('Protocol'))
    out = []
    if _family_ok(params):
        for destination, next_hop, index, metric, protocol, store, alias in _routes(ctx.host.node):
            if store.lower() != store_wanted.lower() or (indexes is not None and index not in indexes):
                continue
            if not _matches(destination, prefixes) or (protocols is not None and protocol.lower() not in
                                                       [item.lower() for item in protocols]):
                continue
            out.append(NetRoute(DestinationPrefix=destination, NextHop=next_hop, InterfaceIndex=UInt32(index),
                                ifIndex=UInt32(index), InterfaceAlias=alias, RouteMetric=UInt16(metric),
                                Protocol=ROUTE_PROTOCOL.parse(protocol), AddressFamily=ADDRESS_FAMILY(2),
                                PolicyStore=store))
    if not out:
        ctx.write_error(_not_found('MSFT_NetRoute', 'SELECT * FROM MSFT_NetRoute'))
    return out


def get_dnsclientserveraddress(ctx, params, input_items):
    out = []
    if _family_ok(params):
        out = [DnsClientServerAddress(InterfaceAlias=adapter['name'], InterfaceIndex=UInt32(adapter['if_index']),
                                      AddressFamily=UInt16(2),
                                      ServerAddresses=PSArray(adapter['dns_servers'], 'System.String'))
               for adapter in _selected_adapters(ctx, params)]
    if not out:
        ctx.write_error(_not_found('MSFT_DNSClientServerAddress', 'SELECT * FROM MSFT_DNSClientServerAddress'))
    return out


FORWARDING = enum_type(_GENERATED + 'NetIPInterface.Forwarding', {'Disabled': 0, 'Enabled': 1}).enum


def set_netipinterface(ctx, params, input_items):
    """Set-NetIPInterface: -Forwarding and -Dhcp of the interfaces selected by alias or index (IPv4 only here)."""
    adapters = _selected_adapters(ctx, params)
    if not adapters:
        raise _not_found('MSFT_NetIPInterface', 'SELECT * FROM MSFT_NetIPInterface')
    unmodelled = set(params) - {'InterfaceAlias', 'InterfaceIndex', 'AddressFamily', 'Forwarding', 'Dhcp'}
    if unmodelled:
        raise PSError('Set-NetIPInterface -%s is not modelled' % sorted(unmodelled)[0])
    for adapter in adapters:
        if 'Forwarding' in params:
            adapter['forwarding'] = FORWARDING.parse(to_string(params['Forwarding'])).value == 1
        if 'Dhcp' in params:
            adapter['dhcp'] = DHCP.parse(to_string(params['Dhcp'])).value == 1
    return []


_CIM_EXCEPTION = 'Microsoft.Management.Infrastructure.CimException'


def new_netroute(ctx, params, input_items):
    """New-NetRoute: a static route (protocol NetMgmt) on one interface, in both stores unless -PolicyStore ActiveStore.

    Its page: NextHop 0.0.0.0 is on-link, RouteMetric defaults to 256, "By default, a route is saved in both
    stores", PersistentStore alone "Cannot be used". It returns the route it made, one instance per store. A
    failed CIM method call is written as a non-terminating error, as the CDXML cmdlets do.
    """
    for unmodelled in ('Protocol', 'Publish', 'ValidLifetime', 'PreferredLifetime', 'CompartmentId', 'CimSession',
                       'AsJob'):
        if params.get(unmodelled) is not None:
            raise Unsupported('New-NetRoute -%s' % unmodelled)
    if not _family_ok(params):
        raise Unsupported('New-NetRoute -AddressFamily IPv6')
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
    next_hop = to_string(params.get('NextHop') or '0.0.0.0')
    try:
        ipaddress.IPv4Network(destination)
        ipaddress.IPv4Address(next_hop)
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
                     AddressFamily=ADDRESS_FAMILY(2), PolicyStore=store_name) for store_name in stores]


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
    if not _family_ok(params):
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
    return [NetIPAddress(IPAddress=address, InterfaceIndex=UInt32(adapter['if_index']), InterfaceAlias=adapter['name'],
                         AddressFamily=ADDRESS_FAMILY(2), PrefixLength=Byte(prefix_length),
                         PrefixOrigin=PREFIX_ORIGIN.parse('Manual'), PolicyStore=store)
            for store in ('ActiveStore', 'PersistentStore')]


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
