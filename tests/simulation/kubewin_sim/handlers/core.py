"""Simulations of the core scripts: node state, detached operations, HNS networks and endpoints."""

import datetime
import json

from kubewin_sim import ovs
from kubewin_sim import params as param_binding
from kubewin_sim.node import SimulationError
from kubewin_sim.registry import WORKERS, marker_of, script

OPERATIONS_DIR = 'C:\\ProgramData\\kubewin\\operations'


def _operation_path(operation_id, suffix):
    return '%s\\%s%s' % (OPERATIONS_DIR, operation_id, suffix)


# -- node_info -----------------------------------------------------------------------------

@script('node_info')
def node_info(node, p, context):
    return node_state(node, p['Sections'], p['Features'], p['Services'], p['Files'], p['Contents'],
                      p['Environment'], p['FirewallRules'])


def node_state(node, sections, features=(), services=(), files=(), contents=(), environment=(), firewall=()):
    """lib/state.ps1 Get-KubeWinNodeState."""
    state = {'sections': list(sections)}
    data = node.data
    if 'os' in sections:
        build = data['os']['build']
        state['os'] = {
            'hostname': data['hostname'],
            'version': '10.0.%d' % build,
            'build': build,
            'ubr': data['os']['ubr'],
            'product_name': data['os']['product_name'],
            'edition': data['os']['edition'],
            'display_version': data['os']['display_version'],
            'installation_type': data['os']['installation_type'],
            'last_boot': datetime.datetime.fromtimestamp(data['os']['last_boot'], datetime.timezone.utc).isoformat(),
            'system_drive_free_bytes': node.profile['free_disk_bytes'],
        }
    if 'features' in sections:
        state['features'] = {name: data['features'][name] for name in features if name in data['features']}
        state['reboot_pending'] = bool(data['reboot_pending'])
    if 'adapters' in sections:
        state['adapters'] = node.adapters_view()
    if 'routes' in sections:
        state['routes'] = node.routes_view()
    if 'hns' in sections:
        state['hns'] = node.hns_view()
    if 'services' in sections:
        state['services'] = {name: service_view(node, name) for name in services}
    if 'files' in sections:
        # The files asked for and every file the collection manages (lib/files registry).
        state['files'] = {path: node.file_view(path) for path in list(files) + node.data['managed']}
    if 'artifacts' in sections:
        state['artifacts'] = dict(node.data['artifacts'])
    if 'contents' in sections:
        # The files asked for and every managed file registered with -TrackContent (lib/state.ps1).
        tracked = node.data.get('tracked_contents', [])
        state['contents'] = {path: node.content_view(path) for path in list(contents) + tracked}
    if 'environment' in sections:
        state['environment'] = {name: node.data['environment'].get(name) for name in environment}
    if 'firewall' in sections:
        # The rules asked for and every rule whose name starts with kubewin- (lib/state.ps1).
        managed = sorted(name for name in node.data['firewall_rules'] if name.startswith('kubewin-'))
        state['firewall'] = {name: firewall_view(node, name) for name in list(firewall) + managed}
    if 'ovs' in sections:
        state['ovs'] = ovs.view(node)
    return state


def firewall_view(node, name):
    rule = node.data['firewall_rules'].get(name)
    if rule is None:
        return {'name': name, 'exists': False}
    return dict(rule, name=name, exists=True)


def service_view(node, name):
    service = node.data['services'].get(name.lower())
    if service is None:
        return {'name': name, 'exists': False}
    view = {key: service.get(key) for key in (
        'name', 'exists', 'display_name', 'description', 'state', 'start_mode', 'command_line',
        'dependencies', 'environment', 'account', 'recovery', 'exit_code', 'nssm')}
    # The script reports a registry value that is not there (a service seeded without it) as @().
    for key in ('dependencies', 'environment'):
        view[key] = list(view[key] or [])
    return view


# -- detached operations -------------------------------------------------------------------

@script('detached_start')
def detached_start(node, p, context):
    worker_name = marker_of(p['WorkerScript'])
    worker = WORKERS.get(worker_name)
    if worker is None:
        raise SimulationError('no simulation for detached worker %r' % worker_name)
    operation_id = p['OperationId']
    param_binding.bind(p['WorkerScript'], {'OperationId': operation_id})
    node.write_file(_operation_path(operation_id, '.ps1'), content=p['WorkerScript'])
    node.write_file(_operation_path(operation_id, '.args.json'), content=p['ArgumentsJson'])
    node.write_file(_operation_path(operation_id, '.pid'), content='4242')
    if node.profile.get('worker_vanishes'):
        node.record('worker %s for %s died without a result' % (worker_name, operation_id))
    else:
        # The real worker runs on after this call returns; its effects (and the
        # network drop they cause) are applied now and the node stays
        # unreachable for the drop's duration.
        outcome = worker(node, json.loads(p['ArgumentsJson']), operation_id)
        node.write_file(_operation_path(operation_id, '.result.json'), content=json.dumps(outcome))
    return {'operation_id': operation_id, 'process_id': 4242}


@script('detached_status')
def detached_status(node, p, context):
    operation_id = p['OperationId']
    status = {'operation_id': operation_id, 'state': 'unknown', 'result': None}
    result = node.file(_operation_path(operation_id, '.result.json'))
    if result is not None:
        status['result'] = json.loads(result['content'])
        status['state'] = status['result']['state']
    # The simulated worker finishes within detached_start, so a pid without a
    # result means the process is gone: state stays 'unknown'.
    return status


# -- HNS networks --------------------------------------------------------------------------

def _network_spec(create):
    return {'name': create['name'], 'type': create['type'], 'address_prefix': create['address_prefix'],
            'gateway': create.get('gateway'), 'adapter': create.get('adapter'), 'vsid': create.get('vsid')}


@script('hns_network_apply')
def hns_network_apply(node, p, context):
    node.require_hns()
    for network_id in p['RemoveIds']:
        node.remove_network(network_id)
    created = None
    if p['Name']:
        created = node.create_network(_network_spec({
            'name': p['Name'], 'type': p['Type'], 'address_prefix': p['AddressPrefix'], 'gateway': p['Gateway'],
            'adapter': p['AdapterName'], 'vsid': p['Vsid'] if p['Vsid'] is not None else None}))
    return {'removed': list(p['RemoveIds']), 'created': created,
            'state': node_state(node, sections=['adapters', 'hns'])}


def _usable(adapter):
    return any(not entry['address'].startswith('169.254.') for entry in (adapter or {}).get('ipv4') or [])


@script('hns_network_worker', worker=True)
def hns_network_worker(node, spec, operation_id):
    outcome = {'operation_id': operation_id, 'state': 'failed', 'created': None, 'removed': [],
               'ip_restored': False, 'error': None}
    try:
        node.require_hns()
        for network_id in spec.get('remove_ids') or []:
            node.remove_network(network_id)
            outcome['removed'].append(network_id)
        if spec.get('create'):
            outcome['created'] = node.create_network(_network_spec(spec['create']))
        management = spec.get('management')
        if management:
            alias = 'vEthernet (%s)' % management['adapter']
            vnic = node.adapter(alias)
            if vnic is None:
                raise SimulationError("the host vNIC '%s' did not appear within %s s" % (alias, spec['settle_seconds']))
            same = (not vnic['dhcp'] and vnic['gateway'] == management['gateway']
                    and vnic['dns_servers'] == management['dns_servers']
                    and [(e['address'], e['prefix_length']) for e in vnic['ipv4']]
                    == [(management['address'], management['prefix_length'])])
            if not management['dhcp'] and not same:
                if node.profile.get('static_ip_restore_fails'):
                    node.data['unreachable_until'] = 1e18  # never returns at its address
                    raise SimulationError("New-NetIPAddress : The object already exists (on '%s')" % alias)
                node.set_static_ip(alias, management['address'], management['prefix_length'],
                                   management['gateway'], management['dns_servers'])
                outcome['ip_restored'] = True
            elif management['dhcp'] and not _usable(vnic):
                raise SimulationError("the host vNIC '%s' got no usable IPv4 address" % alias)
        outcome['state'] = 'done'
    except SimulationError as exc:
        outcome['error'] = str(exc)
    return outcome


# -- HNS endpoints -------------------------------------------------------------------------

@script('hns_endpoint_apply')
def hns_endpoint_apply(node, p, context):
    node.require_hns()
    for endpoint_id in p['RemoveIds']:
        node.remove_endpoint(endpoint_id)
    attach_id = p['AttachId']
    if p['Name'] and not attach_id:
        attach_id = node.create_endpoint(p['Name'], p['NetworkId'], p['IPAddress'])['id']
    if attach_id and p['AttachHost']:
        try:
            node.attach_host_endpoint(attach_id)
        except SimulationError:
            if node.adapter('vEthernet (%s)' % p['Name']) is None:
                raise
        node.adapter('vEthernet (%s)' % p['Name'])['forwarding'] = True
    endpoint = None
    if attach_id:
        endpoint = dict(node.endpoint(attach_id))
        endpoint['host_attached'] = node.adapter('vEthernet (%s)' % endpoint['name']) is not None
    return {'removed': list(p['RemoveIds']), 'endpoint': endpoint, 'state': node_state(node, sections=['hns'])}
