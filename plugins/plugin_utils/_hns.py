# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Desired-state planning for HNS networks and endpoints (pure functions).

Internal to kubewin.node, not a public API.

State comes from the ``hns`` and ``adapters`` sections of ``node_info``;
nothing here talks to a node.
"""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import pod_gateways

NETWORK_TYPES = {'l2bridge': 'L2Bridge', 'overlay': 'Overlay', 'transparent': 'Transparent'}
# Network types that bind an external vSwitch to a physical adapter; the first
# of them on an adapter creates that vSwitch and drops the node's network.
EXTERNAL_TYPES = {'l2bridge', 'l2tunnel', 'overlay', 'transparent'}
# ipv6_address_prefix and ipv6_gateway: the IPv6 subnet of a dual-stack L2Bridge network (None elsewhere).
NETWORK_KEYS = ('name', 'type', 'address_prefix', 'gateway', 'ipv6_address_prefix', 'ipv6_gateway', 'adapter', 'vsid')


class PlanError(Exception):
    """The node's state makes the request impossible; the message says why."""


def same_name(a, b):
    # HNS compares names case-insensitively and flannel lower-cases them.
    return (a or '').lower() == (b or '').lower()


def networks_named(networks, name):
    return [network for network in networks if same_name(network.get('name'), name)]


def management_adapter(adapters, requested=None):
    """The physical adapter a network binds to: ``requested``, else the one behind the default route."""
    by_name = {adapter['name']: adapter for adapter in adapters}
    if requested:
        if requested not in by_name:
            raise PlanError('adapter %r does not exist on the node; it has: %s'
                            % (requested, ', '.join(sorted(by_name)) or 'no adapters'))
        return requested
    default = [adapter for adapter in adapters if adapter.get('default_route')]
    if not default:
        raise PlanError('no adapter holds the default route; set adapter_name (adapters: %s)'
                        % ', '.join(sorted(by_name)))
    adapter = default[0]
    # Once a vSwitch exists, the default route sits on its host vNIC "vEthernet (<adapter>)".
    return adapter.get('physical_adapter') or adapter['name']


def ip_configuration(adapters, adapter_name):
    """IPv4 configuration of an adapter as the node sees it now (on its host vNIC once bound)."""
    by_name = {adapter['name']: adapter for adapter in adapters}
    adapter = by_name.get('vEthernet (%s)' % adapter_name) or by_name.get(adapter_name)
    if adapter is None:
        return None
    usable = [entry for entry in adapter.get('ipv4') or [] if not entry['address'].startswith('169.254.')]
    first = usable[0] if usable else {'address': None, 'prefix_length': None}
    return {
        'adapter': adapter_name,
        'address': first['address'],
        'prefix_length': first['prefix_length'],
        'gateway': adapter.get('gateway'),
        'dns_servers': list(adapter.get('dns_servers') or []),
        'dhcp': bool(adapter.get('dhcp')),
    }


def _is_ipv6(subnet):
    return ':' in (subnet.get('address_prefix') or '')


def describe_network(network):
    """An HNS network in the shape of the module's options: its IPv4 subnet, and its IPv6 one when it has one."""
    subnets = [subnet for subnet in network.get('subnets') or [] if subnet]
    subnet = next((s for s in subnets if not _is_ipv6(s)), subnets[0] if subnets else {})
    subnet6 = next((s for s in subnets if _is_ipv6(s) and s is not subnet), {})
    return {
        'id': network.get('id'),
        'name': network.get('name'),
        'type': NETWORK_TYPES.get((network.get('type') or '').lower(), network.get('type')),
        'address_prefix': subnet.get('address_prefix'),
        'gateway': subnet.get('gateway'),
        'ipv6_address_prefix': subnet6.get('address_prefix'),
        'ipv6_gateway': subnet6.get('gateway'),
        'adapter': network.get('adapter'),
        'vsid': subnet.get('vsid'),
    }


def desired_network(args, adapter):
    gateway = args.get('gateway')
    if not gateway and args['type'].lower() != 'transparent':
        gateway = pod_gateways(args['address_prefix'])['bridge_gateway']
    ipv6_prefix = args.get('ipv6_address_prefix')
    ipv6_gateway = args.get('ipv6_gateway') or (pod_gateways(ipv6_prefix)['bridge_gateway'] if ipv6_prefix else None)
    return {
        'name': args['name'],
        'type': NETWORK_TYPES[args['type'].lower()],
        'address_prefix': args['address_prefix'],
        'gateway': gateway,
        'ipv6_address_prefix': ipv6_prefix,
        'ipv6_gateway': ipv6_gateway,
        'adapter': adapter,
        'vsid': args.get('vsid'),
    }


def network_differences(current, desired):
    """Names of settings in which an existing network differs from the desired one."""
    differences = [] if (current['type'] or '').lower() == desired['type'].lower() else ['type']
    differences += [key for key in ('address_prefix', 'gateway', 'ipv6_address_prefix', 'ipv6_gateway', 'vsid')
                    if current.get(key) != desired.get(key)]
    # Networks flannel creates do not always report their adapter; compare when known.
    if current.get('adapter') and desired.get('adapter') and current['adapter'] != desired['adapter']:
        differences.append('adapter')
    return differences


def has_vswitch(networks, adapter, ignoring=()):
    return any((network.get('type') or '').lower() in EXTERNAL_TYPES
               and network.get('adapter') == adapter and network.get('id') not in ignoring
               for network in networks)


def plan_network(args, hns, adapters):
    """Return (operations, before, after, disruptive) for the hns_network module.

    Operations: {'op': 'remove', 'id': ...} and {'op': 'create', 'network': {...}}.
    """
    networks = hns.get('networks') or []
    matches = networks_named(networks, args['name'])
    if len(matches) > 1:
        raise PlanError('%d HNS networks are named %r (ids: %s); remove the extra ones before managing it'
                        % (len(matches), args['name'], ', '.join(sorted(n['id'] for n in matches))))
    current = describe_network(matches[0]) if matches else None
    before = {key: current[key] for key in NETWORK_KEYS} if current else {}

    if args['state'] == 'absent':
        if not current:
            return [], before, {}, False
        # Removing the last external network of an adapter removes its vSwitch, which drops the
        # node's network as creating it did.
        adapter = current.get('adapter')
        disruptive = bool(adapter) and (current.get('type') or '').lower() in EXTERNAL_TYPES and not has_vswitch(
            networks, adapter, ignoring={current['id']})
        return [{'op': 'remove', 'id': current['id']}], before, {}, disruptive

    adapter = management_adapter(adapters, args.get('adapter_name'))
    desired = desired_network(args, adapter)
    if current and not network_differences(current, desired):
        return [], before, before, False
    operations = [{'op': 'remove', 'id': current['id']}] if current else []
    operations.append({'op': 'create', 'network': desired})
    removed = {op['id'] for op in operations if op['op'] == 'remove'}
    disruptive = not has_vswitch(networks, adapter, ignoring=removed)
    return operations, before, dict(desired), disruptive


def describe_endpoint(endpoint):
    return {
        'id': endpoint.get('id'),
        'name': endpoint.get('name'),
        'network': endpoint.get('network_name'),
        'ip_address': endpoint.get('ip_address'),
        'ipv6_address': endpoint.get('ipv6_address'),
        'host_attached': bool(endpoint.get('host_attached')),
    }


def plan_endpoint(args, hns):
    """Return (operations, before, after, notes) for the hns_endpoint module.

    Operations: {'op': 'remove', 'id'}, {'op': 'create', ...}, {'op': 'attach', 'id'}.
    """
    networks = networks_named(hns.get('networks') or [], args['network'])
    endpoints = [e for e in hns.get('endpoints') or [] if same_name(e.get('name'), args['name'])]
    current = describe_endpoint(endpoints[0]) if endpoints else None
    keys = ('name', 'network', 'ip_address', 'ipv6_address', 'host_attached')
    before = {key: current[key] for key in keys} if current else {}

    if args['state'] == 'absent':
        return [{'op': 'remove', 'id': e['id']} for e in endpoints], before, {}, []

    if len(networks) > 1:
        raise PlanError('%d HNS networks are named %r (ids: %s)' % (
            len(networks), args['network'], ', '.join(sorted(n['id'] for n in networks))))
    desired = {'name': args['name'], 'network': args['network'], 'ip_address': args['ip_address'],
               'ipv6_address': args.get('ipv6_address'), 'host_attached': args['attach_host']}
    if not networks:
        # In check mode the network may be created by an earlier task that did not run.
        return ([{'op': 'create', 'network_id': None, **desired}], before, desired,
                ['HNS network %r does not exist (yet)' % args['network']])
    network_id = networks[0]['id']
    stale = [e for e in endpoints
             if e['network_id'] != network_id or e.get('ip_address') != args['ip_address']
             or e.get('ipv6_address') != args.get('ipv6_address')]
    keep = [e for e in endpoints if e not in stale]
    operations = [{'op': 'remove', 'id': e['id']} for e in stale + keep[1:]]
    if keep:
        if args['attach_host'] and not keep[0].get('host_attached'):
            operations.append({'op': 'attach', 'id': keep[0]['id']})
    else:
        operations.append({'op': 'create', 'network_id': network_id, **desired})
    return operations, before, desired, []
