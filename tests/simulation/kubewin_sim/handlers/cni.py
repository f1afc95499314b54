"""Simulation of source_vip_apply.ps1 and of the host-local CNI IPAM plugin it runs.

host-local keeps its reservations on disk, one directory per network under its
``dataDir``; the model keeps them in ``node.data['host_local']`` keyed by that
directory: ``{'reserved': {ip: '<container id>/<ifname>'}, 'last_reserved': ip}``.
Like host-local it hands out the next free address after the last one it
reserved (starting at network + 2, the gateway being network + 1), refuses a
second reservation for the same container id and interface, and releases by
container id and interface on DEL.
"""

import ipaddress
import json
import ntpath

from kubewin_sim.handlers.core import node_state
from kubewin_sim.node import SimulationError
from kubewin_sim.registry import ScriptFailure, script


def _failure(code, message):
    # host-local prints a CNI error document and exits 1; the script puts it into its exception.
    return ScriptFailure('host-local failed (exit code 1): %s ' % json.dumps({'code': code, 'msg': message}))


def host_local(node, command, request_text, environment):
    """Run host-local with the request on stdin; return what it prints on success."""
    if request_text.startswith('\ufeff') or '\x00' in request_text:
        raise _failure(100, "error parsing configuration: invalid character 'ï' looking for beginning of value")
    try:
        request = json.loads(request_text)
        ipam = request['ipam']
        subnet = ipaddress.IPv4Network(ipam['ranges'][0][0]['subnet'])
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise _failure(100, 'error parsing configuration: %s' % exc)
    store_key = ntpath.join(ipam.get('dataDir') or 'C:\\var\\lib\\cni\\networks', request['name']).lower()
    store = node.data.setdefault('host_local', {}).setdefault(store_key, {'reserved': {}, 'last_reserved': None})
    owner = '%s/%s' % (environment['CNI_CONTAINERID'], environment['CNI_IFNAME'])
    if command == 'DEL':
        store['reserved'] = {ip: who for ip, who in store['reserved'].items() if who != owner}
        return ''
    if owner in store['reserved'].values():
        raise _failure(999, '%s has been allocated to %s, duplicate allocation is not allowed'
                       % ([ip for ip, who in store['reserved'].items() if who == owner][0], environment['CNI_CONTAINERID']))
    gateway = subnet.network_address + 1
    candidates = [ip for ip in subnet.hosts() if ip != gateway]
    last = store['last_reserved']
    start = 0
    if last and ipaddress.IPv4Address(last) in candidates:
        start = candidates.index(ipaddress.IPv4Address(last)) + 1
    for ip in candidates[start:] + candidates[:start]:
        if str(ip) not in store['reserved']:
            store['reserved'][str(ip)] = owner
            store['last_reserved'] = str(ip)
            return json.dumps({'cniVersion': request.get('cniVersion', '0.3.1'),
                               'ips': [{'version': '4', 'address': '%s/%d' % (ip, subnet.prefixlen),
                                        'gateway': str(gateway)}],
                               'dns': {}}, indent=4)
    raise _failure(999, 'no IP addresses available in range set: %s' % subnet)


def _request(p, subnet):
    return json.dumps({'cniVersion': '0.3.1', 'name': p['Network'],
                       'ipam': {'type': 'host-local', 'ranges': [[{'subnet': subnet}]], 'dataDir': p['DataDir']}},
                      separators=(',', ':'))


@script('source_vip_apply')
def source_vip_apply(node, p, context):
    if node.file(p['HostLocal']) is None:
        raise SimulationError('Exception calling "Start" with "1" argument(s): "The system cannot find the file '
                              'specified" (%s)' % p['HostLocal'])
    environment = {'CNI_CONTAINERID': p['ContainerId'], 'CNI_IFNAME': 'source-vip'}
    for command, subnet in (('DEL', p['ReleaseSubnet']), ('ADD', p['Subnet'])):
        text = _request(p, subnet)
        node.write_file(p['RequestPath'], content=text)
        answer = host_local(node, command, text, environment)
    node.write_file(p['Path'], content=answer.strip(), acl='protected')
    node.register([p['Path']], track_content=True)
    return {'state': node_state(node, ['hns', 'files', 'contents'], files=[p['Path']], contents=[p['Path']])}
