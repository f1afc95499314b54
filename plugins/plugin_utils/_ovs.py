# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Desired-state planning for Open vSwitch on a Windows node (pure functions).

Internal to kubewin.node, not a public API.

State comes from the ``ovs``, ``hns``, ``adapters`` and ``services`` sections
of ``node_info``; nothing here talks to a node. The steps follow the source
documents' OVN/OVS host setup: the MSI with the features asked for, the OVS
bridge on the vSwitch of the Transparent HNS network (the host vNIC as an
internal port, the physical adapter as a port, the Hyper-V switch extension
enabled), the OVN settings in the Open_vSwitch table's external_ids, and the
OVS/OVN services running.
"""

from __future__ import annotations

import re

from ansible_collections.kubewin.node.plugins.plugin_utils import _hns

EXTENSION = 'Cloudbase Open vSwitch Extension'
# The features of the Open vSwitch MSI (seed 002: ADDLOCAL="OpenvSwitchCLI,OpenvSwitchDriver,OVNHost").
DEFAULT_FEATURES = ('OpenvSwitchCLI', 'OpenvSwitchDriver', 'OVNHost')
BASE_SERVICES = ('ovsdb-server', 'ovs-vswitchd')
OVN_SERVICE = 'ovn-controller'
ALL_SERVICES = BASE_SERVICES + (OVN_SERVICE,)
# The Open_vSwitch external_ids that make a node an OVN chassis; state=absent removes them.
OVN_KEYS = ('system-id', 'ovn-remote', 'ovn-nb', 'ovn-encap-ip', 'ovn-encap-type')
# ovs-vsctl key names: letters, digits, dash, underscore, dot and colon.
_KEY = re.compile(r'^[A-Za-z0-9_.:-]+$')


class PlanError(Exception):
    """The node's state makes the request impossible; the message says why."""


def services_wanted(features):
    """The services the installed features run (OVNHost brings ovn-controller)."""
    return list(BASE_SERVICES) + ([OVN_SERVICE] if 'OVNHost' in features else [])


def check_external_ids(external_ids):
    """Raise PlanError for keys or values ovs-vsctl would misread."""
    for key, value in (external_ids or {}).items():
        if not _KEY.match(key):
            raise PlanError('external_ids key %r may only hold letters, digits and _ . : -' % key)
        if not isinstance(value, str) or not value or any(ch in value for ch in '"\r\n'):
            raise PlanError('external_ids[%s] must be a non-empty string without quotes or line breaks, got %r'
                            % (key, value))


def installed_product(ovs):
    """The Open vSwitch product the node reports, or None."""
    products = (ovs or {}).get('products') or []
    return products[0] if products else None


def product_ok(product, features, version):
    if not product:
        return False
    local = {name for name, state in (product.get('features') or {}).items() if state == 'local'}
    if not set(features) <= local:
        return False
    return not version or str(product.get('version') or '').startswith(version)


def describe_product(product):
    if not product:
        return {'installed': False}
    return {'installed': True, 'version': product.get('version'),
            'features': sorted(name for name, state in (product.get('features') or {}).items() if state == 'local')}


def network_adapter(args, state):
    """The physical adapter of the HNS network the bridge sits on (or, before it exists, the one it will use)."""
    hns = state.get('hns') or {}
    matches = _hns.networks_named(hns.get('networks') or [], args['network'])
    if len(matches) > 1:
        raise PlanError('%d HNS networks are named %r; remove the extra ones first' % (len(matches), args['network']))
    if matches:
        network = matches[0]
        if (network.get('type') or '').lower() != 'transparent':
            raise PlanError('HNS network %r is %s, not Transparent: OVS on Windows needs a Transparent network'
                            % (args['network'], network.get('type')))
        if not network.get('adapter'):
            raise PlanError('HNS network %r reports no adapter' % args['network'])
        return network['adapter'], True
    try:
        return _hns.management_adapter(state.get('adapters') or [], args.get('adapter')), False
    except _hns.PlanError as exc:
        raise PlanError(str(exc))


def switch_of(ovs, adapter):
    for switch in (ovs or {}).get('switches') or []:
        if switch.get('adapter') == adapter:
            return switch
    return None


def describe_bridge(ovs, bridge, adapter):
    database = (ovs or {}).get('database') or {}
    current = (database.get('bridges') or {}).get(bridge)
    switch = switch_of(ovs, adapter)
    extension = (switch or {}).get('extension') or {}
    return {
        'name': bridge,
        'exists': current is not None,
        'ports': {name: {'type': port.get('type') or 'system', 'error': port.get('error')}
                  for name, port in sorted(((current or {}).get('ports') or {}).items())},
        'switch': (switch or {}).get('name'),
        'extension_enabled': bool(extension.get('enabled')),
    }


def bridge_ok(described, internal_port, physical_port):
    ports = described['ports']
    return (described['exists'] and described['extension_enabled']
            and ports.get(internal_port) == {'type': 'internal', 'error': None}
            and ports.get(physical_port) == {'type': 'system', 'error': None})


def plan(args, state):
    """Return (operations, before, after, notes, context) for the openvswitch module.

    Operations, in the order the worker performs them: {'op': 'install'},
    {'op': 'rebuild_bridge'}, {'op': 'set_external_ids', 'values': {...}},
    {'op': 'start_services', 'names': [...]}.
    """
    check_external_ids(args['external_ids'])
    ovs = state.get('ovs') or {}
    services = state.get('services') or {}
    features = list(args['features'])
    notes = []

    product = installed_product(ovs)
    install = not product_ok(product, features, args.get('version'))
    if install and not args.get('msi'):
        raise PlanError('Open vSwitch is not installed with the features %s%s and no msi was given to install it'
                        % (', '.join(features), ' at version %s' % args['version'] if args.get('version') else ''))

    adapter, network_exists = network_adapter(args, state)
    if not network_exists:
        notes.append('HNS network %r does not exist (yet); the bridge will use adapter %r' % (args['network'], adapter))
    internal_port = args.get('internal_port') or 'vEthernet (%s)' % adapter
    bridge = describe_bridge(ovs, args['bridge'], adapter)
    rebuild = install or not bridge_ok(bridge, internal_port, adapter)

    database = ovs.get('database')
    current_ids = dict((database or {}).get('external_ids') or {})
    if database is None and not install and ovs.get('database_error'):
        notes.append('the OVS database could not be read: %s' % ovs['database_error'])
    wanted_ids = dict(args['external_ids'])
    changed_ids = {key: value for key, value in sorted(wanted_ids.items()) if current_ids.get(key) != value}

    wanted_services = services_wanted(features)
    stopped = [name for name in wanted_services if (services.get(name) or {}).get('state') != 'running']

    operations = []
    if install:
        operations.append({'op': 'install'})
    if rebuild:
        operations.append({'op': 'rebuild_bridge'})
    if changed_ids:
        operations.append({'op': 'set_external_ids', 'values': changed_ids})
    if stopped:
        operations.append({'op': 'start_services', 'names': stopped})

    before = {
        'product': describe_product(product),
        'bridge': bridge,
        'external_ids': {key: current_ids.get(key) for key in sorted(wanted_ids)},
        'services': {name: (services.get(name) or {}).get('state') or 'absent' for name in wanted_services},
    }
    after = {
        'product': ({'installed': True, 'version': args.get('version') or before['product'].get('version'),
                     'features': sorted(set(features) | set(before['product'].get('features') or []))}
                    if install else before['product']),
        'bridge': {'name': args['bridge'], 'exists': True,
                   'ports': dict(({} if rebuild else bridge['ports']),
                                 **{internal_port: {'type': 'internal', 'error': None},
                                    adapter: {'type': 'system', 'error': None}}),
                   'switch': bridge['switch'], 'extension_enabled': True},
        'external_ids': {key: wanted_ids[key] for key in sorted(wanted_ids)},
        'services': {name: 'running' for name in wanted_services},
    }
    if rebuild:
        after['bridge']['ports'] = dict(sorted(after['bridge']['ports'].items()))
    context = {'adapter': adapter, 'internal_port': internal_port, 'network_exists': network_exists}
    return operations, before, after, notes, context


def differences(args, state, context):
    """What still differs from the request in a freshly read state (empty when applied)."""
    ovs = state.get('ovs') or {}
    found = []
    if not product_ok(installed_product(ovs), args['features'], args.get('version')):
        product = describe_product(installed_product(ovs))
        found.append('Open vSwitch is not installed with %s%s (found %s)' % (
            ', '.join(args['features']), ' %s' % args['version'] if args.get('version') else '', product))
    bridge = describe_bridge(ovs, args['bridge'], context['adapter'])
    if not bridge_ok(bridge, context['internal_port'], context['adapter']):
        found.append('bridge %s is not as requested: %s' % (args['bridge'], bridge))
    current_ids = ((ovs.get('database') or {}).get('external_ids') or {})
    wrong = sorted(key for key, value in args['external_ids'].items() if current_ids.get(key) != value)
    if wrong:
        found.append('external_ids %s are not set' % ', '.join(wrong))
    services = state.get('services') or {}
    stopped = [name for name in services_wanted(args['features']) if (services.get(name) or {}).get('state') != 'running']
    if stopped:
        found.append('services not running: %s' % ', '.join(stopped))
    return found


def plan_absent(args, state):
    """Return (operations, before, after, notes) to take the node out of OVN for state=absent.

    Open vSwitch stays installed. Operations, in the order the worker performs them:
    {'op': 'stop_services', 'names': [...]} (ovn-controller, so the node stops acting as a chassis),
    {'op': 'remove_bridge', 'disable_extension_on': [...]} (the extension is disabled first on every
    vSwitch whose adapter is a port of the bridge, because a vSwitch whose extension forwards through
    a bridge that is gone carries nothing), {'op': 'remove_external_ids', 'keys': [...]}.
    """
    ovs = state.get('ovs') or {}
    services = state.get('services') or {}
    notes = []
    product = installed_product(ovs)
    database = ovs.get('database')
    if product and database is None and ovs.get('database_error'):
        notes.append('the OVS database could not be read: %s' % ovs['database_error'])
    bridge = ((database or {}).get('bridges') or {}).get(args['bridge'])
    current_ids = (database or {}).get('external_ids') or {}
    keys = [key for key in sorted(set(OVN_KEYS) | set(args['external_ids'])) if key in current_ids]
    running = [name for name in (OVN_SERVICE,) if (services.get(name) or {}).get('state') == 'running']
    extension_on = sorted(
        name for name, port in ((bridge or {}).get('ports') or {}).items()
        if (port.get('type') or 'system') == 'system'
        and ((switch_of(ovs, name) or {}).get('extension') or {}).get('enabled'))

    operations = []
    if running:
        operations.append({'op': 'stop_services', 'names': running})
    if bridge is not None:
        operations.append({'op': 'remove_bridge', 'disable_extension_on': extension_on})
    if keys:
        operations.append({'op': 'remove_external_ids', 'keys': keys})
    before = {
        'product': describe_product(product),
        'bridge': {'name': args['bridge'], 'exists': bridge is not None},
        'external_ids': {key: current_ids.get(key) for key in sorted(set(OVN_KEYS) | set(args['external_ids']))},
        'services': {OVN_SERVICE: (services.get(OVN_SERVICE) or {}).get('state') or 'absent'},
    }
    after = {
        'product': before['product'],
        'bridge': {'name': args['bridge'], 'exists': False},
        'external_ids': {key: None for key in before['external_ids']},
        'services': {OVN_SERVICE: 'stopped' if running else before['services'][OVN_SERVICE]},
    }
    return operations, before, after, notes


def absent_differences(args, state):
    """What still makes the node an OVN chassis in a freshly read state (empty when removed)."""
    operations = plan_absent(args, state)[0]
    return ['%s: %s' % (op['op'], op.get('names') or op.get('keys') or args['bridge']) for op in operations]
