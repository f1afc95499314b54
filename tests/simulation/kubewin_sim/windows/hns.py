"""The Host Networking Service v1 API: vmcompute.dll's HNSCall, JSON in and out, over the node's HNS state.

Scripts reach HNS through a P/Invoke of ``HNSCall(method, path, request, out response)`` in vmcompute.dll
declared with Add-Type -MemberDefinition (lib/hns.ps1; the same declaration as the HostNetworkingService
module, microsoft/SDN Kubernetes/windows/hns.psm1 ``Get-VmComputeNativeMethods``). The API, as its
clients use it (hns.psm1 ``Invoke-HNSRequest``; microsoft/hcsshim internal/hns hnsfuncs.go, hnsnetwork.go,
hnsendpoint.go, hnspolicylist.go):

- paths ``/networks/``, ``/endpoints/``, ``/policylists/`` (with or without the trailing slash), one object
  as ``/<collection>/<id>``, an action as ``/endpoints/<id>/attach``; methods GET, POST (create, or the
  action), DELETE;
- the response ``{"Success": true, "Output": ...}`` (a list for a collection, the object for one id or a
  create) or ``{"Success": false, "Error": "<message>", "ErrorCode": <HRESULT>}``;
- objects with HNS's field names: a network ``ID``, ``Name``, ``Type``, ``NetworkAdapterName``,
  ``ManagementIP``, ``DNSServerList``, ``Policies``, ``Subnets`` [{``AddressPrefix``, ``GatewayAddress``,
  ``Policies`` [{``Type``: "VSID", ``VSID``: n}]}]; an endpoint ``ID``, ``Name``, ``VirtualNetwork``,
  ``VirtualNetworkName``, ``IPAddress``, ``MacAddress``, ``IsRemoteEndpoint``, ``Policies``, ``State``
  (hcsshim EndpointState: 1 Created, 2 Attached); a policy list ``ID``, ``References``
  (``/endpoints/<id>``), ``Policies`` (an ELB policy carries ``VIPs``). IDs are upper-case GUIDs, keys in
  alphabetical order, fields without a value left out, as HNS answers (GET /networks/ answers quoted in
  microsoft/SDN#269, rancher/rke2#3517). Policies are opaque JSON to HNS's clients (hcsshim keeps them as
  json.RawMessage) and come back as JSON strings on some builds (lib/hns.ps1 handles both): the node
  profile's ``hns_policies_as_strings`` models those builds.

The error messages are the system messages of the HRESULTs HNS returns (Microsoft's HCN reference, "HCN
HRESULT" table: HCN_E_NETWORK_NOT_FOUND "The network was not found", HCN_E_ENDPOINT_NOT_FOUND,
HCN_E_ADAPTER_NOT_FOUND "An adapter was not found", HCN_E_SUBNET_NOT_FOUND, HCN_E_INVALID_NETWORK_TYPE,
HCN_E_NETWORK_ALREADY_EXISTS, HCN_E_ENDPOINT_ALREADY_ATTACHED "This endpoint is already attached to the
switch", HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION), with FormatMessage's ". " ending as HNS's Error field
has it (e.g. "The endpoint was not found. " in Azure/azure-container-networking#715). A malformed request is
E_INVALIDARG "The parameter is incorrect." (moby/moby#30280, microsoft/SDN#177). Which code HNS gives when
an endpoint still referenced by a policy list is deleted is not documented: the model refuses it with
ERROR_BUSY's message, as the node model (node.remove_endpoint) refuses it. The declaration's void return drops
HNSCall's HRESULT; the model always answers through the response (as HNS does alongside a failing HRESULT,
e.g. ocroz/wsl2-boot#3 "HRESULT: ... Result: {"Success":false,...}").

vmcompute.dll exists once the Containers feature is installed (and the node restarted): before that the
P/Invoke fails as .NET fails a missing DLL (DllNotFoundException).

A host endpoint attached to compartment 1 shows up as the vNIC ``vEthernet (<endpoint name>)``
(microsoft/SDN Kubernetes/windows/start-kubelet.ps1 and AddRoutes.ps1 name it so); State then reads 2.

The state is ``node.data['hns']`` through the node's operations (create_network, remove_network,
create_endpoint, remove_endpoint, attach_host_endpoint, add_policy_list, remove_policy_list), which move the
node's address to ``vEthernet (<adapter>)`` when the first external network binds a vSwitch; a request this
model does not know (another path, action or system type) is an engine gap (Unsupported).
"""

import ipaddress
import json

from ..pwsh.values import AUTOMATION_NULL, PSError, PSReference, Unsupported, to_string
from ..node import EXTERNAL_TYPES
from .addtype import known_definition

# The network types HNS v1 knows (hns.psm1 New-HnsNetwork's ValidateSet), by lower-case name.
NETWORK_TYPES = {name.lower(): name for name in
                 ('ICS', 'Internal', 'Transparent', 'NAT', 'Overlay', 'L2Bridge', 'L2Tunnel', 'Layered', 'Private')}

HRESULTS = {
    'network_not_found': (0x803B0001, 'The network was not found. '),
    'endpoint_not_found': (0x803B0002, 'The endpoint was not found. '),
    'subnet_not_found': (0x803B0005, 'The network does not have a subnet for this endpoint. '),
    'adapter_not_found': (0x803B0006, 'An adapter was not found. '),
    'invalid_network': (0x803B000A, 'The provided network configuration is invalid or missing parameters. '),
    'invalid_network_type': (0x803B000B, 'Invalid network type. '),
    'invalid_remote_endpoint_operation': (0x803B000F, 'This requested operation is invalid for a remote endpoint. '),
    'network_already_exists': (0x803B0010, 'A network with this name already exists. '),
    'endpoint_already_attached': (0x803B0014, 'This endpoint is already attached to the switch. '),
    'not_found': (0x80070490, 'Element not found. '),
    'busy': (0x800700AA, 'The requested resource is in use. '),
    'invalid_argument': (0x80070057, 'The parameter is incorrect. '),
}


class HnsFailure(Exception):
    """HNS answers Success false with this HRESULT's message."""

    def __init__(self, key):
        super().__init__(key)
        self.code, self.message = HRESULTS[key]


def _guid(value):
    return to_string(value or '').strip().strip('{}').lower()


def _policy(node, policy):
    """A policy as this build returns it: an object, or (hns_policies_as_strings) its JSON text."""
    if node.profile.get('hns_policies_as_strings'):
        return json.dumps(policy, sort_keys=True, separators=(',', ':'))
    return policy


def _sorted(obj):
    return {key: obj[key] for key in sorted(obj) if obj[key] is not None}


def network_json(node, network):
    subnets = []
    for subnet in network['subnets']:
        policies = [] if subnet.get('vsid') is None else [_policy(node, {'Type': 'VSID', 'VSID': subnet['vsid']})]
        subnets.append(_sorted({'AddressPrefix': subnet['address_prefix'], 'GatewayAddress': subnet.get('gateway'),
                                'Policies': policies}))
    extra = node.data['hns'].get('v1_networks', {}).get(network['id'], {})
    return _sorted({'ID': network['id'].upper(), 'Name': network['name'], 'Type': network['type'],
                    'NetworkAdapterName': network.get('adapter'), 'ManagementIP': network.get('management_ip'),
                    'DNSServerList': extra.get('DNSServerList'), 'IPv6': False, 'Policies': [], 'State': 1,
                    'Subnets': subnets})


def endpoint_json(node, endpoint):
    attached = node.adapter('vEthernet (%s)' % endpoint['name']) is not None
    return _sorted({'ID': endpoint['id'].upper(), 'Name': endpoint['name'],
                    'VirtualNetwork': endpoint['network_id'].upper(), 'VirtualNetworkName': endpoint['network_name'],
                    'IPAddress': endpoint.get('ip_address'), 'MacAddress': endpoint['mac_address'],
                    'IsRemoteEndpoint': True if endpoint.get('is_remote') else None, 'Policies': [],
                    'State': 2 if attached else 1})


def policy_list_json(node, policy_list):
    policies = node.data['hns'].get('v1_policy_lists', {}).get(policy_list['id'])
    if policies is None:
        policies = [{'Type': 'ELB', 'VIPs': list(policy_list['vips'])}]
    return _sorted({'ID': policy_list['id'].upper(), 'Policies': [_policy(node, p) for p in policies],
                    'References': ['/endpoints/%s' % endpoint_id for endpoint_id in policy_list['endpoints']]})


def _find(items, object_id, missing):
    for item in items:
        if item['id'] == _guid(object_id):
            return item
    raise HnsFailure(missing)


def _open_adapter(node):
    """No NetworkAdapterName: HNS takes an adapter not yet bound to an external vSwitch."""
    bound = node._vswitch_adapters()  # pylint: disable=protected-access
    for adapter in sorted(node.data['adapters'], key=lambda a: a['if_index']):
        if not adapter['name'].startswith('vEthernet (') and adapter['status'] == 'Up' and adapter['name'] not in bound:
            return adapter['name']
    raise HnsFailure('adapter_not_found')


def _create_network(node, body):
    network_type = NETWORK_TYPES.get(to_string(body.get('Type') or '').lower())
    if network_type is None:
        raise HnsFailure('invalid_network_type')
    name = body.get('Name') or ''
    if any(n['name'].lower() == name.lower() for n in node.data['hns']['networks']):
        raise HnsFailure('network_already_exists')
    subnets = body.get('Subnets') or []
    if len(subnets) > 1:
        raise Unsupported('HNS network with %d subnets (the node model keeps one)' % len(subnets))
    subnet = subnets[0] if subnets else {}
    if network_type.lower() in ('l2bridge', 'l2tunnel', 'overlay') and not subnet.get('AddressPrefix'):
        raise HnsFailure('invalid_network')
    vsid = None
    for policy in subnet.get('Policies') or []:
        policy = json.loads(policy) if isinstance(policy, str) else policy
        if str(policy.get('Type', '')).upper() == 'VSID':
            vsid = int(policy['VSID'])
    adapter = body.get('NetworkAdapterName')
    if network_type.lower() in EXTERNAL_TYPES:
        # A host vNIC is no adapter to bind a vSwitch to: HNS refuses a "vEthernet (...)" name
        # (Azure/azure-container-networking#813, review thread), and without a name takes an open adapter
        # (MicrosoftDocs/Virtualization-Documentation#595, review thread).
        if adapter:
            found = node.adapter(adapter)
            if found is None or adapter.startswith('vEthernet ('):
                raise HnsFailure('adapter_not_found')
        else:
            adapter = _open_adapter(node)
    network = node.create_network({'name': name, 'type': network_type, 'address_prefix': subnet.get('AddressPrefix'),
                                   'gateway': subnet.get('GatewayAddress'), 'adapter': adapter or None, 'vsid': vsid,
                                   # HCN's network flags (hcsshim hcn NetworkFlags): 8 makes it non-persistent.
                                   'flags': int(body.get('Flags') or 0)})
    if body.get('DNSServerList'):
        node.data['hns'].setdefault('v1_networks', {})[network['id']] = {'DNSServerList': body['DNSServerList']}
    return network_json(node, _find(node.data['hns']['networks'], network['id'], 'network_not_found'))


def _create_endpoint(node, body):
    network = _find(node.data['hns']['networks'], body.get('VirtualNetwork'), 'network_not_found')
    address = body.get('IPAddress') or None
    if address:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            raise HnsFailure('invalid_argument') from None
        if not any(s.get('address_prefix') and ip in ipaddress.ip_network(s['address_prefix'], strict=False)
                   for s in network['subnets']):
            raise HnsFailure('subnet_not_found')
    endpoint = node.create_endpoint(body.get('Name') or '', network['id'], address)
    if body.get('ID'):
        endpoint['id'] = _guid(body['ID'])
    if body.get('MacAddress'):
        endpoint['mac_address'] = body['MacAddress']
    if body.get('IsRemoteEndpoint'):
        endpoint['is_remote'] = True
    return endpoint_json(node, endpoint)


def _attach(node, endpoint_id, body):
    endpoint = _find(node.data['hns']['endpoints'], endpoint_id, 'endpoint_not_found')
    if str(body.get('SystemType', '')).lower() != 'host':
        raise Unsupported('HNS attach with SystemType %r (only Host is modelled)' % body.get('SystemType'))
    if endpoint.get('is_remote'):
        raise HnsFailure('invalid_remote_endpoint_operation')
    if node.adapter('vEthernet (%s)' % endpoint['name']) is not None:
        raise HnsFailure('endpoint_already_attached')
    node.attach_host_endpoint(endpoint['id'])


def _remove_endpoint(node, endpoint_id):
    endpoint = _find(node.data['hns']['endpoints'], endpoint_id, 'endpoint_not_found')
    if any(endpoint['id'] in p['endpoints'] for p in node.data['hns'].get('policy_lists') or []):
        raise HnsFailure('busy')
    node.remove_endpoint(endpoint['id'])


def _create_policy_list(node, body):
    endpoint_ids = []
    for reference in body.get('References') or []:
        endpoint_id = _guid(reference.rsplit('/', 1)[-1])
        _find(node.data['hns']['endpoints'], endpoint_id, 'endpoint_not_found')
        endpoint_ids.append(endpoint_id)
    policies = [json.loads(p) if isinstance(p, str) else p for p in body.get('Policies') or []]
    vips = [vip for p in policies if str(p.get('Type', '')).upper() == 'ELB' for vip in p.get('VIPs') or []]
    policy_list = node.add_policy_list(vips, endpoint_ids)
    node.data['hns'].setdefault('v1_policy_lists', {})[policy_list['id']] = policies
    return policy_list_json(node, policy_list)


def _remove_policy_list(node, policy_list_id):
    policy_list = _find(node.data['hns'].setdefault('policy_lists', []), policy_list_id, 'not_found')
    node.remove_policy_list(policy_list['id'])
    node.data['hns'].get('v1_policy_lists', {}).pop(policy_list['id'], None)


def _views(node):
    hns = node.data['hns']
    return {'networks': (hns['networks'], network_json, 'network_not_found'),
            'endpoints': (hns['endpoints'], endpoint_json, 'endpoint_not_found'),
            'policylists': (hns.setdefault('policy_lists', []), policy_list_json, 'not_found')}


def request(node, method, path, body_text):
    """One HNSCall: the JSON text HNS answers."""
    try:
        output = _dispatch(node, method.upper(), path, body_text)
    except HnsFailure as failure:
        return json.dumps({'Error': failure.message, 'ErrorCode': failure.code, 'Success': False})
    answer = {'Success': True}
    if output is not None:
        answer['Output'] = output
    return json.dumps(answer)


def _dispatch(node, method, path, body_text):
    parts = [part for part in to_string(path or '').split('?', 1)[0].split('/') if part]
    views = _views(node)
    if not parts or parts[0].lower() not in views:
        raise Unsupported('HNS request %s %s (not modelled)' % (method, path))
    collection, as_json, missing = views[parts[0].lower()]
    kind = parts[0].lower()
    body = {}
    if body_text:
        try:
            body = json.loads(body_text)
        except ValueError:
            raise HnsFailure('invalid_argument') from None
        if not isinstance(body, dict):
            raise HnsFailure('invalid_argument')
    if method == 'GET' and len(parts) == 1:
        return [as_json(node, item) for item in collection]
    if method == 'GET' and len(parts) == 2:
        return as_json(node, _find(collection, parts[1], missing))
    if method == 'POST' and len(parts) == 1:
        create = {'networks': _create_network, 'endpoints': _create_endpoint, 'policylists': _create_policy_list}
        return create[kind](node, body)
    if method == 'POST' and len(parts) == 3 and kind == 'endpoints' and parts[2].lower() == 'attach':
        _attach(node, parts[1], body)
        return None
    if method == 'DELETE' and len(parts) == 2:
        if kind == 'networks':
            node.remove_network(_find(collection, parts[1], missing)['id'])
        elif kind == 'endpoints':
            _remove_endpoint(node, parts[1])
        else:
            _remove_policy_list(node, parts[1])
        return None
    raise Unsupported('HNS request %s %s (not modelled)' % (method, path))


# -- the P/Invoke declaration scripts compile ------------------------------------------------------

HNSCALL_DEFINITION = '''
[DllImport("vmcompute.dll")]
public static extern void HNSCall([MarshalAs(UnmanagedType.LPWStr)] string method,
    [MarshalAs(UnmanagedType.LPWStr)] string path, [MarshalAs(UnmanagedType.LPWStr)] string request,
    [MarshalAs(UnmanagedType.LPWStr)] out string response);
'''


def _hnscall_statics(host):
    def hnscall(method, path, request_text, response):
        if not isinstance(response, PSReference):
            # PowerShell binds an out parameter only to a [ref] (about_Ref).
            raise PSError("Argument: '4' should be a System.Management.Automation.PSReference. Use [ref].",
                          'System.Management.Automation.MethodException', 'NonRefArgumentToRefParameterMsg')
        node = host.node
        if not node.hns_available():
            raise PSError("Unable to load DLL 'vmcompute.dll': The specified module could not be found. "
                          "(Exception from HRESULT: 0x8007007E)", 'System.DllNotFoundException', 'DllNotFoundException')
        response.Value = request(node, to_string(method), to_string(path),
                                 None if request_text is None else to_string(request_text))
        return AUTOMATION_NULL

    return {'HNSCall': hnscall}


known_definition(HNSCALL_DEFINITION, _hnscall_statics)
