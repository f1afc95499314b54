"""Simulations of the lifecycle scripts: node_reset_apply.ps1 (reset) and node_logs.ps1 (collect_logs)."""

import datetime

from kubewin_sim import ovs
from kubewin_sim import programs as program_model
from kubewin_sim import scm
from kubewin_sim.handlers.core import node_state, service_view
from kubewin_sim.node import SimulationError
from kubewin_sim.registry import ScriptFailure, script


@script('node_reset_apply')
def node_reset_apply(node, p, context):
    services = node.data['services']
    for name in p['Services']:
        if name.lower() not in services:
            continue
        scm.stop(node, name)
        services.pop(name.lower())
    if p['PolicyListIds'] or p['EndpointIds']:
        node.require_hns()
    for policy_list_id in p['PolicyListIds']:
        node.remove_policy_list(policy_list_id)
    for endpoint_id in p['EndpointIds']:
        node.remove_endpoint(endpoint_id)
    for path in p['Paths']:
        in_use = scm.programs_in_use(node)
        busy = [program for program in in_use if program == path.lower() or program.startswith(path.lower().rstrip('\\') + '\\')]
        if busy:
            # Remove-Item cannot delete a program a running service executes.
            raise ScriptFailure("Cannot remove item %s: The process cannot access the file because it is being "
                                'used by another process.' % busy[0])
        node.remove_tree(path)
    if p['Forget']:
        node.register(forget=p['Forget'])
    return {'state': node_state(node, ['services', 'hns', 'files'], services=p['Services'], files=p['Paths'])}


def _raw_network(network):
    """An HNS v1 network as GET /networks/ returns it."""
    subnets = [{'AddressPrefix': s['address_prefix'], 'GatewayAddress': s.get('gateway'),
                'Policies': [{'Type': 'VSID', 'VSID': s['vsid']}] if s.get('vsid') is not None else []}
               for s in network['subnets']]
    return {'ID': network['id'].upper(), 'Name': network['name'], 'Type': network['type'], 'Subnets': subnets,
            'NetworkAdapterName': network.get('adapter'), 'ManagementIP': network.get('management_ip')}


def _raw_endpoint(endpoint):
    return {'ID': endpoint['id'].upper(), 'Name': endpoint['name'], 'VirtualNetwork': endpoint['network_id'].upper(),
            'VirtualNetworkName': endpoint['network_name'], 'IPAddress': endpoint['ip_address'],
            'MacAddress': endpoint['mac_address'], 'IsRemoteEndpoint': bool(endpoint.get('is_remote'))}


def _raw_policy_list(policy_list):
    return {'ID': policy_list['id'].upper(), 'Policies': [{'Type': 'ELB', 'VIPs': policy_list['vips']}],
            'References': ['/endpoints/%s' % e for e in policy_list['endpoints']]}


def _tail(node, path, tail_bytes):
    entry = node.file(path)
    if entry is None:
        return {'exists': False}
    if entry.get('content') is None:
        raise SimulationError('%s holds binary content in the simulation; not a log' % path)
    data = entry['content'].encode('utf-8')
    start = max(0, len(data) - tail_bytes)
    return {'exists': True, 'size': len(data), 'truncated': start > 0,
            'text': data[start:].decode('utf-8', errors='replace')}


@script('node_logs')
def node_logs(node, p, context):
    services, logs = {}, {}
    for name in p['Services']:
        view = service_view(node, name)
        service = node.data['services'].get(name.lower())
        files = []
        if service is not None:
            if service.get('nssm'):
                files = sorted({service['nssm'].get('app_stdout'), service['nssm'].get('app_stderr')} - {None, ''})
            else:
                log_file = program_model.log_file_of(service)
                files = [log_file] if log_file else []
        view['log_files'] = files
        services[name] = view
        for path in files:
            logs.setdefault(path, _tail(node, path, p['TailBytes']))
    for path in p['Paths']:
        logs.setdefault(path, _tail(node, path, p['TailBytes']))
    events = {provider: list(node.data.get('event_log', {}).get(provider, []))[-p['EventCount']:]
              for provider in p['EventProviders']}
    hns = {'available': False, 'networks': [], 'endpoints': [], 'policy_lists': []}
    if node.hns_available():
        hns = {'available': True,
               'networks': [_raw_network(n) for n in node.data['hns']['networks']],
               'endpoints': [_raw_endpoint(e) for e in node.data['hns']['endpoints']],
               'policy_lists': [_raw_policy_list(pl) for pl in node.data['hns'].get('policy_lists') or []]}
    return {'hostname': node.data['hostname'],
            'collected_at': datetime.datetime.now(datetime.timezone.utc).isoformat(),
            'services': services, 'logs': logs, 'events': events, 'hns': hns, 'ovs': ovs.view(node)}
