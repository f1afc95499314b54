"""The Host Networking Service v1 API: vmcompute.dll's HNSCall, JSON in and out, over the node's HNS state.

Scripts reach HNS through a P/Invoke of ``HNSCall(method, path, request, out response)`` in vmcompute.dll
declared with Add-Type -MemberDefinition (lib/hns.ps1; microsoft/SDN Kubernetes/windows/hns.psm1
``Get-VmComputeNativeMethods`` declares the same function with a void return). The API, as its clients use it
(hns.psm1 ``Invoke-HNSRequest``; microsoft/hcsshim internal/hns hnsfuncs.go, hnsnetwork.go, hnsendpoint.go,
hnspolicy.go, hnspolicylist.go at ``HCSSHIM_COMMIT``):

- paths ``/networks/``, ``/endpoints/``, ``/policylists/`` (with or without the trailing slash), one object
  as ``/<collection>/<id>``, an action as ``/endpoints/<id>/attach``; methods GET, POST (create, or the
  action), DELETE;
- HNSCall returns an HRESULT (hcsshim internal/hns/hns.go declares it ``(hr error) = vmcompute.HNSCall``; its
  hnsCallRawResponse reads no response when it fails). With S_OK the response is ``{"Success": true, "Output":
  ...}`` (a list for a collection, the object for one id or a create) or ``{"Success": false, "Error":
  "<message>", "ErrorCode": <HRESULT>}``;
- the request objects are hcsshim's structs (``V1_SCHEMAS``, from those files at ``HCSSHIM_COMMIT``) and the
  keys Microsoft's own hns.psm1 sends (IPv6, AdditionalParams): see "What HNS takes" below;
- the answers carry HNS's field names: a network ``ID``, ``Name``, ``Type``, ``NetworkAdapterName``,
  ``ManagementIP``, ``DNSServerList``, ``Flags``, ``IPv6``, ``Policies``, ``State``, ``Subnets``
  [{``AddressPrefix``, ``GatewayAddress``, ``Policies`` [{``Type``: "VSID", ``VSID``: n}]}]; an endpoint ``ID``,
  ``Name``, ``VirtualNetwork``, ``VirtualNetworkName``, ``IPAddress``, ``MacAddress``, ``IsRemoteEndpoint``,
  ``Policies``, ``State`` (hcsshim EndpointState: 1 Created, 2 Attached); a policy list ``ID``, ``References``
  (``/endpoints/<id>``), ``Policies`` (an ELB policy carries ``VIPs``). A real v1 network answer carries
  ``Flags``, ``IPv6`` and ``State`` although hcsshim's HNSNetwork struct does not (docker/for-win#8226 logs
  ``"Flags":0,...,"IPv6":false,...,"State":1`` in a GET /networks/<id> answer), and more that no script reads
  (ActivityId, Extensions, Health, LayeredOn, MacPools, the endpoint counts), which the model leaves out. IDs
  are upper-case GUIDs, keys in alphabetical order, fields without a value left out, as HNS answers (GET
  /networks/ answers quoted in microsoft/SDN#269, rancher/rke2#3517). Policies are opaque JSON to HNS's
  clients (hcsshim keeps them as json.RawMessage) and come back as JSON strings on some builds (lib/hns.ps1
  handles both): the node profile's ``hns_policies_as_strings`` models those builds.

What HNS takes (``decode``): a key of the request object is taken when hcsshim's struct (or hns.psm1) has it,
with the JSON type the Go field marshals to (string, number, bool, array, object). A key nothing knows is refused
by HNS's own JSON decoding with HCN_E_INVALID_JSON and the key named: ``Invalid JSON document string.
{{<key>,UnknownField}}`` (HcnCreateNamespace's answer quoted on tunbury.org, "Containerd on Windows",
2025-06-27; the service decodes v1 and v2 documents alike). A policy ``Type`` that is none of hcsshim's
PolicyType constants is HCN_E_INVALID_POLICY_TYPE. Network types are taken in any case: Docker sends them in
lower case (moby daemon/libnetwork/drivers/windows/windows.go passes its driver name, ``nat``, ``l2bridge``...,
as HNSNetwork.Type) and old builds answer them so (docker/for-win#2236, ``"Type" : "nat"``); the model answers
the canonical spelling. Whatever no source shows HNS answering is an engine gap (Unsupported), never a guess,
so a script can neither rely on it nor catch it: a known key in another case (``CompartmentID``; HNS's key
matching is not documented), a policy type or ``SystemType`` in another case, a JSON type other than the Go
field's (a VSID as a string, an IPAddress as a number), ``null``, an empty IPAddress (hcsshim omits an empty
net.IP), a subnet with ``AddressPrefix`` and no ``GatewayAddress`` (hcsshim's HNSNetwork.Create refuses to
send it since ebbed947, 2019), a key HNS knows whose effect the model does not implement (the v1 network's
``Flags``, ``State``, MacPools...: an HCN v2 network with flags goes through ``windows/hcn.py``).

The error messages are the system messages of the HRESULTs HNS returns (Microsoft's HCN reference, "HCN Error
Code" table, MicrosoftDocs/Virtualization-Documentation virtualization/api/hcn/Reference/HCNHResult.md: HCN_E_*),
with FormatMessage's ". " ending as HNS's Error field has it (e.g. "The endpoint was not found. " in
Azure/azure-container-networking#715). A request that is not JSON is E_INVALIDARG "The parameter is incorrect."
(moby/moby#30280, microsoft/SDN#177). Which code HNS gives when an endpoint still referenced by a policy list is
deleted is not documented: the model refuses it with ERROR_BUSY's message, as the node model (node.remove_endpoint)
refuses it.

vmcompute.dll exists once the Containers feature is installed (and the node restarted): before that the
P/Invoke fails as .NET fails a missing DLL (DllNotFoundException; moby/moby#28327 "Failed to load vmcompute.dll:
The specified module could not be found." on a server whose Containers feature was not in place). With the DLL
there, HNSCall can still fail with an HRESULT and no response while the Host Network Service is not answering:
"hnsCall failed in Win32: The service has not been started." (0x80070426, docker/for-win#8226), or 0x8007023E on
the first call after the feature was enabled and the node restarted (moby/moby#50093). The node profile's
``hnscall_failures`` lists such HRESULTs, one per call, from the node's first HNSCall on.

A host endpoint attached to compartment 1 shows up as the vNIC ``vEthernet (<endpoint name>)``
(microsoft/SDN Kubernetes/windows/start-kubelet.ps1 and AddRoutes.ps1 name it so); State then reads 2.

An external network without NetworkAdapterName goes on the node's vSwitch when there is one: microsoft/SDN
Kubernetes/windows/start-kubelet.ps1 creates ``External`` and then the pod network, both without an adapter name,
and flannel host-gw (hostgw_windows.go) and Calico's CNI plugin (cni-plugin/pkg/dataplane/windows, EnsureNetworkExists)
create theirs so on a node whose vSwitch a first network made. Without a vSwitch HNS takes an open adapter
(MicrosoftDocs/Virtualization-Documentation#595, review thread); with several vSwitches which one HNS takes is not
documented (Unsupported).

Dual-stack (an L2Bridge network with an IPv4 and an IPv6 subnet): hns.psm1 New-HnsNetwork sends one subnet per
-AddressPrefix/-Gateway pair and ``"IPv6": true`` with -IPv6; microsoft/windows-container-networking#61 supports it on
l2bridge only, "1 ipv4 and 1 ipv6 address per endpoint", which the endpoint carries as hcsshim's HNSEndpoint
``IPv6Address``. The model takes exactly that: ``IPv6`` true with one IPv4 and one IPv6 subnet on an L2Bridge
network, and an endpoint's IPv6Address inside the IPv6 subnet (else "The network does not have a subnet for this
endpoint", HCN_E_SUBNET_NOT_FOUND, as microsoft/Windows-Containers#82 quotes HNS refusing an IPv6 endpoint). Any other
combination (an IPv6 subnet without the flag, the flag on another type, two subnets of one family, IPv6 alone) is an
engine gap: what HNS answers to it is not documented.

The state is ``node.data['hns']`` through the node's operations (create_network, remove_network,
create_endpoint, remove_endpoint, attach_host_endpoint, add_policy_list, remove_policy_list), which move the
node's address to ``vEthernet (<adapter>)`` when the first external network binds a vSwitch; a request this
model does not know (another path, action or system type) is an engine gap (Unsupported). The program models
(flannel.py, calico_windows.py) send their programs' requests through ``call``, the same decoding.
"""

import ipaddress
import json

from ..pwsh.values import AUTOMATION_NULL, PSError, PSReference, Unsupported, to_string
from ..node import EXTERNAL_TYPES
from .addtype import known_definition

# The hcsshim commit the request schemas below were read from (internal/hns/*.go), and microsoft/SDN's (hns.psm1).
HCSSHIM_COMMIT = '7c9ff7f481383ff47524bade75d1b25d631b49ce'
SDN_COMMIT = '242fb0c3190dbb08d7f9406727be18322218e537'

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
    'invalid_policy_type': (0x803B000E, 'Invalid policy type. '),
    'invalid_remote_endpoint_operation': (0x803B000F, 'This requested operation is invalid for a remote endpoint. '),
    'network_already_exists': (0x803B0010, 'A network with this name already exists. '),
    'endpoint_already_attached': (0x803B0014, 'This endpoint is already attached to the switch. '),
    'invalid_json': (0x803B001B, 'Invalid JSON document string. '),
    'not_found': (0x80070490, 'Element not found. '),
    'busy': (0x800700AA, 'The requested resource is in use. '),
    'invalid_argument': (0x80070057, 'The parameter is incorrect. '),
}

# -- the request objects --------------------------------------------------------------------------------------
# Each schema maps a key to its kind: the JSON type of the Go field hcsshim marshals (internal/hns at
# HCSSHIM_COMMIT), or None for a key HNS knows whose effect the model does not implement (Unsupported when sent).
# Kinds: 'string', 'guid', 'ip', 'prefix' (strings), 'uint8'/'uint16'/'uint32' (numbers), 'bool', 'strings' and
# 'ips' (arrays of strings), 'policies' (array of policy objects), 'subnets' (array of Subnet objects), and for the
# HCN v2 documents of windows/hcn.py 'array' and 'object' (checked further by the caller).
V1_SCHEMAS = {
    # hnsnetwork.go HNSNetwork; IPv6 and AdditionalParams as hns.psm1 New-HnsNetwork sends them; Flags and State
    # are in HNS's own v1 answers (docker/for-win#8226) and so known to it.
    'network': {'ID': 'guid', 'Name': 'string', 'Type': 'string', 'NetworkAdapterName': 'string', 'SourceMac': None,
                'Policies': 'policies', 'MacPools': None, 'Subnets': 'subnets', 'DNSSuffix': None,
                'DNSServerList': 'string', 'DNSServerCompartment': None, 'ManagementIP': None, 'AutomaticDNS': None,
                'IPv6': 'bool', 'AdditionalParams': None, 'Flags': None, 'State': None},
    # hnsnetwork.go Subnet
    'subnet': {'AddressPrefix': 'prefix', 'GatewayAddress': 'ip', 'Policies': 'policies'},
    # hnsendpoint.go HNSEndpoint
    'endpoint': {'ID': 'guid', 'Name': 'string', 'VirtualNetwork': 'guid', 'VirtualNetworkName': None,
                 'Policies': 'policies', 'MacAddress': 'string', 'IPAddress': 'ip', 'IPv6Address': 'ip',
                 'DNSSuffix': None, 'DNSServerList': None, 'DNSDomain': None, 'GatewayAddress': None,
                 'GatewayAddressV6': None, 'EnableInternalDNS': None, 'DisableICC': None, 'PrefixLength': None,
                 'IPv6PrefixLength': None, 'IsRemoteEndpoint': 'bool', 'EnableLowMetric': None, 'Namespace': None,
                 'EncapOverhead': None, 'SharedContainers': None, 'State': None},
    # hnsendpoint.go EndpointAttachDetachRequest (SystemType has no omitempty: always sent)
    'attach': {'ContainerId': None, 'SystemType': 'string', 'CompartmentId': 'uint16', 'VirtualNicName': None},
    # hnspolicylist.go PolicyList
    'policylist': {'ID': None, 'References': 'strings', 'Policies': 'policies'},
}
# hnspolicy.go PolicyType constants, as hcsshim spells them.
POLICY_TYPES = ('NAT', 'ACL', 'PA', 'VLAN', 'VSID', 'VNET', 'L2Driver', 'Isolation', 'QOS', 'OutBoundNAT', 'ELB',
                'ROUTE', 'PROXY')
# The policies the model implements, where it implements them: hnspolicy.go VsidPolicy and PaPolicy,
# hnspolicylist.go ELBPolicy (LBPolicy embedded: Protocol, InternalPort, ExternalPort).
POLICY_SCHEMAS = {
    'VSID': {'Type': 'string', 'VSID': 'uint32'},
    'PA': {'Type': 'string', 'PA': 'ip'},
    'ELB': {'Type': 'string', 'Protocol': 'uint16', 'InternalPort': 'uint16', 'ExternalPort': 'uint16',
            'SourceVIP': 'ip', 'VIPs': 'ips', 'ILB': 'bool', 'IsDSR': 'bool'},
}
# Where each policy type is modelled: the subnet's VSID, a remote endpoint's PA (Calico's VXLAN host endpoint,
# cni-plugin/pkg/dataplane/windows createAndAttachVxlanHostEP), a policy list's ELB (kube-proxy's load balancers).
POLICY_PLACES = {'subnet': ('VSID',), 'endpoint': ('PA',), 'policylist': ('ELB',), 'network': ()}
_UINT_BITS = {'uint8': 8, 'uint16': 16, 'uint32': 32}


class HnsFailure(Exception):
    """HNS answers Success false with this HRESULT's message (and, for a JSON decoding failure, its detail)."""

    def __init__(self, key, detail=''):
        super().__init__(key)
        self.code, self.message = HRESULTS[key]
        self.message += detail


def _json_type(value):
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, (int, float)):
        return 'number'
    return {str: 'string', list: 'array', dict: 'object'}[type(value)]


def _gap(what):
    return Unsupported('HNS request: %s (what HNS answers to it is not documented; hcsshim %s)'
                       % (what, HCSSHIM_COMMIT[:10]))


def _check_kind(value, kind, where):
    """A value of the JSON type hcsshim's Go field marshals to; anything else is an engine gap."""
    expected = {'string': 'string', 'guid': 'string', 'ip': 'string', 'prefix': 'string', 'bool': 'boolean',
                'strings': 'array', 'ips': 'array', 'policies': 'array', 'subnets': 'array', 'array': 'array',
                'object': 'object'}.get(kind, 'number')
    if _json_type(value) != expected:
        raise _gap('%s as a JSON %s (hcsshim marshals a %s)' % (where, _json_type(value), expected))
    if kind in _UINT_BITS and (not isinstance(value, int) or not 0 <= value < 2 ** _UINT_BITS[kind]):
        raise _gap('%s %r outside a %s' % (where, value, kind))
    if kind in ('strings', 'ips'):
        for item in value:
            _check_kind(item, 'ip' if kind == 'ips' else 'string', where + '[]')
    if kind == 'ip' and value == '':
        raise _gap('%s as an empty string (hcsshim omits an empty net.IP)' % where)


def decode(obj, schema_name, where=None):
    """The keys of a request object HNS takes, checked against its schema (see the module's docstring)."""
    schema = V1_SCHEMAS[schema_name] if isinstance(schema_name, str) else schema_name
    where = where or schema_name
    if not isinstance(obj, dict):
        raise _gap('%s as a JSON %s' % (where, _json_type(obj)))
    known = {key.lower(): key for key in schema}
    for key, value in obj.items():
        if key not in schema:
            if key.lower() in known:
                raise _gap('%s key %r, which hcsshim spells %r' % (where, key, known[key.lower()]))
            raise HnsFailure('invalid_json', '{{%s,UnknownField}}' % key)
        if schema[key] is None:
            raise _gap('%s.%s (a field HNS knows; the model does not implement it)' % (where, key))
        _check_kind(value, schema[key], '%s.%s' % (where, key))
    return obj


def _policy_type(policy, where):
    if not isinstance(policy, dict):
        raise _gap('%s policy as a JSON %s (hcsshim sends a JSON object)' % (where, _json_type(policy)))
    if _json_type(policy.get('Type')) != 'string':
        raise _gap('%s policy without a string Type' % where)
    name = policy['Type']
    if name not in POLICY_TYPES:
        if name.lower() in [t.lower() for t in POLICY_TYPES]:
            raise _gap('%s policy type %r in another case than hcsshim\'s' % (where, name))
        raise HnsFailure('invalid_policy_type')
    return name


def decode_policies(policies, place):
    """The policies of a request object where the model implements them (POLICY_PLACES)."""
    decoded = []
    for policy in policies:
        name = _policy_type(policy, place)
        if name not in POLICY_PLACES[place]:
            raise _gap('a %s policy on a %s (not modelled there)' % (name, place))
        decoded.append(decode(policy, POLICY_SCHEMAS[name], '%s policy %s' % (place, name)))
    return decoded


def _policy(node, policy):
    """A policy as this build returns it: an object, or (hns_policies_as_strings) its JSON text."""
    if node.profile.get('hns_policies_as_strings'):
        return json.dumps(policy, sort_keys=True, separators=(',', ':'))
    return policy


def _sorted(obj):
    return {key: obj[key] for key in sorted(obj) if obj[key] is not None}


def _guid(value):
    return to_string(value or '').strip().strip('{}').lower()


# -- the answers ----------------------------------------------------------------------------------------------

def network_json(node, network):
    subnets = []
    for subnet in network['subnets']:
        policies = [] if subnet.get('vsid') is None else [_policy(node, {'Type': 'VSID', 'VSID': subnet['vsid']})]
        subnets.append(_sorted({'AddressPrefix': subnet['address_prefix'], 'GatewayAddress': subnet.get('gateway'),
                                'Policies': policies}))
    extra = node.data['hns'].get('v1_networks', {}).get(network['id'], {})
    return _sorted({'ID': network['id'].upper(), 'Name': network['name'], 'Type': network['type'],
                    'NetworkAdapterName': network.get('adapter'), 'ManagementIP': network.get('management_ip'),
                    'DNSServerList': extra.get('DNSServerList'), 'Flags': int(network.get('flags') or 0),
                    'IPv6': bool(network.get('ipv6')), 'Policies': [], 'State': 1, 'Subnets': subnets})


def endpoint_json(node, endpoint):
    attached = node.adapter('vEthernet (%s)' % endpoint['name']) is not None
    return _sorted({'ID': endpoint['id'].upper(), 'Name': endpoint['name'],
                    'VirtualNetwork': endpoint['network_id'].upper(), 'VirtualNetworkName': endpoint['network_name'],
                    'IPAddress': endpoint.get('ip_address'), 'IPv6Address': endpoint.get('ipv6_address'),
                    'MacAddress': endpoint['mac_address'],
                    'IsRemoteEndpoint': True if endpoint.get('is_remote') else None,
                    'Policies': [_policy(node, p) for p in endpoint.get('policies') or []],
                    'State': 2 if attached else 1})


def policy_list_json(node, policy_list):
    policies = node.data['hns'].get('v1_policy_lists', {}).get(policy_list['id'])
    if policies is None:
        policies = [{'Type': 'ELB', 'VIPs': list(policy_list['vips'])}]
    return _sorted({'ID': policy_list['id'].upper(), 'Policies': [_policy(node, p) for p in policies],
                    'References': ['/endpoints/%s' % endpoint_id for endpoint_id in policy_list['endpoints']]})


# -- the requests ---------------------------------------------------------------------------------------------

def _find(items, object_id, missing):
    for item in items:
        if item['id'] == _guid(object_id):
            return item
    raise HnsFailure(missing)


def _open_adapter(node):
    """No NetworkAdapterName and no vSwitch yet: HNS takes an adapter not yet bound to an external vSwitch."""
    bound = node._vswitch_adapters()  # pylint: disable=protected-access
    for adapter in sorted(node.data['adapters'], key=lambda a: a['if_index']):
        if not adapter['name'].startswith('vEthernet (') and adapter['status'] == 'Up' and adapter['name'] not in bound:
            return adapter['name']
    raise HnsFailure('adapter_not_found')


def default_adapter(node):
    """The adapter of an external network created without NetworkAdapterName (see the module's docstring)."""
    switches = sorted(node._vswitch_adapters())  # pylint: disable=protected-access
    if len(switches) > 1:
        raise _gap('an external network without NetworkAdapterName on a node with vSwitches on %s' % switches)
    return switches[0] if switches else _open_adapter(node)


def _network_type(value):
    network_type = NETWORK_TYPES.get(value.lower())
    if network_type is None:
        raise HnsFailure('invalid_network_type')
    return network_type


def _version(prefix):
    try:
        return ipaddress.ip_network(prefix, strict=False).version
    except ValueError:
        raise HnsFailure('invalid_argument') from None


def _subnets(body):
    """The IPv4 subnet (with its VSID) and, on a dual-stack L2Bridge network, the IPv6 one (see the docstring)."""
    subnets = [decode(subnet, 'subnet') for subnet in body.get('Subnets') or []]
    for subnet in subnets:
        if subnet.get('AddressPrefix') and not subnet.get('GatewayAddress'):
            raise _gap('a subnet with AddressPrefix and no GatewayAddress (hcsshim HNSNetwork.Create refuses to send it)')
    versions = [_version(subnet['AddressPrefix']) for subnet in subnets if subnet.get('AddressPrefix')]
    dual = body.get('IPv6') is True
    if dual != (6 in versions) or sorted(versions) not in ([], [4], [4, 6]) or (len(subnets) > 1 and
                                                                                sorted(versions) != [4, 6]):
        raise _gap('a network with subnets of IP versions %s and IPv6 %r' % (versions, body.get('IPv6')))
    if dual and (body.get('Type') or '').lower() != 'l2bridge':
        raise _gap('an IPv6 subnet on a %s network (microsoft/windows-container-networking#61: l2bridge only)'
                   % body.get('Type'))
    subnet = next((s for s in subnets if s.get('AddressPrefix') and _version(s['AddressPrefix']) == 4),
                  subnets[0] if subnets else {})
    subnet6 = next((s for s in subnets if s.get('AddressPrefix') and _version(s['AddressPrefix']) == 6), None)
    if subnet6 is not None and subnet6.get('Policies'):
        raise _gap('policies on an IPv6 subnet')
    vsids = [p['VSID'] for p in decode_policies(subnet.get('Policies') or [], 'subnet')]
    return subnet, (vsids[-1] if vsids else None), subnet6


def _check_adapter(node, network_type, adapter):
    """The adapter an external network binds: HNS refuses a "vEthernet (...)" name (Azure/azure-container-networking
    #813, review thread) or one that does not exist."""
    if network_type.lower() not in EXTERNAL_TYPES:
        return adapter or None
    if not adapter:
        return default_adapter(node)
    if node.adapter(adapter) is None or adapter.startswith('vEthernet ('):
        raise HnsFailure('adapter_not_found')
    return adapter


def create_network(node, spec):
    """A network HNS creates from a decoded request (v1 here, HCN v2 in windows/hcn.py): the node's operation after
    HNS's checks. ``spec``: name, type (as sent), address_prefix, gateway, adapter, vsid, flags."""
    network_type = _network_type(spec['type'])
    name = spec['name'] or ''
    if any(n['name'].lower() == name.lower() for n in node.data['hns']['networks']):
        raise HnsFailure('network_already_exists')
    if network_type.lower() in ('l2bridge', 'l2tunnel', 'overlay') and not spec.get('address_prefix'):
        raise HnsFailure('invalid_network')
    adapter = _check_adapter(node, network_type, spec.get('adapter'))
    return node.create_network(dict(spec, type=network_type, adapter=adapter))


def _create_network(node, body):
    decode(body, 'network')
    if body.get('Policies'):
        decode_policies(body['Policies'], 'network')
    subnet, vsid, subnet6 = _subnets(body)
    network = create_network(node, {'name': body.get('Name') or '', 'type': body.get('Type') or '',
                                    'address_prefix': subnet.get('AddressPrefix'),
                                    'gateway': subnet.get('GatewayAddress'),
                                    'ipv6_subnet': subnet6 and {'address_prefix': subnet6['AddressPrefix'],
                                                                'gateway': subnet6['GatewayAddress']},
                                    'adapter': body.get('NetworkAdapterName'), 'vsid': vsid, 'flags': 0})
    if body.get('DNSServerList'):
        node.data['hns'].setdefault('v1_networks', {})[network['id']] = {'DNSServerList': body['DNSServerList']}
    return network_json(node, _find(node.data['hns']['networks'], network['id'], 'network_not_found'))


def _create_endpoint(node, body):
    decode(body, 'endpoint')
    policies = decode_policies(body.get('Policies') or [], 'endpoint')
    if policies and not body.get('IsRemoteEndpoint'):
        raise _gap('a PA policy on a local endpoint (modelled on remote ones only)')
    network = _find(node.data['hns']['networks'], body.get('VirtualNetwork'), 'network_not_found')
    address, address6 = body.get('IPAddress'), body.get('IPv6Address')
    for given, version in ((address, 4), (address6, 6)):
        if not given:
            continue
        try:
            ip = ipaddress.ip_address(given)
        except ValueError:
            raise HnsFailure('invalid_argument') from None
        if ip.version != version:
            raise _gap('an IPv%d address in the endpoint\'s IPv%s field' % (ip.version, '6Address' if version == 6 else
                                                                            'Address (IPv4)'))
        if not any(s.get('address_prefix') and ip in ipaddress.ip_network(s['address_prefix'], strict=False)
                   for s in network['subnets']):
            raise HnsFailure('subnet_not_found')
    if address6 and not address:
        raise _gap('an endpoint with an IPv6Address and no IPAddress (IPv6 alone)')
    endpoint = node.create_endpoint(body.get('Name') or '', network['id'], address, address6)
    if body.get('ID'):
        endpoint['id'] = _guid(body['ID'])
    if body.get('MacAddress'):
        endpoint['mac_address'] = body['MacAddress']
    if body.get('IsRemoteEndpoint'):
        endpoint['is_remote'] = True
    if policies:
        endpoint['policies'] = policies
    return endpoint_json(node, endpoint)


def _attach(node, endpoint_id, body):
    decode(body, 'attach')
    endpoint = _find(node.data['hns']['endpoints'], endpoint_id, 'endpoint_not_found')
    if body.get('SystemType') != 'Host':
        raise Unsupported('HNS attach with SystemType %r (only Host, as hcsshim spells it, is modelled)'
                          % body.get('SystemType'))
    if body.get('CompartmentId', 1) != 1:
        raise Unsupported('HNS host attach to compartment %r (only the host compartment 1 is modelled)'
                          % body['CompartmentId'])
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
    decode(body, 'policylist')
    endpoint_ids = []
    for reference in body.get('References') or []:
        endpoint_id = _guid(reference.rsplit('/', 1)[-1])
        _find(node.data['hns']['endpoints'], endpoint_id, 'endpoint_not_found')
        endpoint_ids.append(endpoint_id)
    policies = decode_policies(body.get('Policies') or [], 'policylist')
    vips = [vip for p in policies for vip in p.get('VIPs') or []]
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
    """One HNSCall that HNS answers: the JSON text of its response."""
    try:
        output = _dispatch(node, method.upper(), path, body_text)
    except HnsFailure as failure:
        return json.dumps({'Error': failure.message, 'ErrorCode': failure.code, 'Success': False})
    answer = {'Success': True}
    if output is not None:
        answer['Output'] = output
    return json.dumps(answer)


def call(node, method, path, body=None):
    """A program model's HNS v1 call (hcsshim's hnsCall): the Output of the answer, or HnsFailure with HNS's message.
    The body goes through the same JSON text and decoding as a script's."""
    answer = json.loads(request(node, method, path, None if body is None else json.dumps(body)))
    if not answer['Success']:
        failure = HnsFailure('invalid_argument')
        failure.code, failure.message = answer['ErrorCode'], answer['Error']
        raise failure
    return answer.get('Output')


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


# -- the P/Invoke declarations scripts compile ----------------------------------------------------------------
# hcsshim's (internal/hns/hns.go): HNSCall returns an HRESULT, which lib/hns.ps1 checks. hns.psm1's declares a void
# return and so drops it; its response then stays null when the call fails.

HNSCALL_DEFINITION = '''
[DllImport("vmcompute.dll")]
public static extern int HNSCall([MarshalAs(UnmanagedType.LPWStr)] string method,
    [MarshalAs(UnmanagedType.LPWStr)] string path, [MarshalAs(UnmanagedType.LPWStr)] string request,
    [MarshalAs(UnmanagedType.LPWStr)] out string response);
'''
HNSCALL_VOID_DEFINITION = HNSCALL_DEFINITION.replace('extern int', 'extern void')


def _next_failure(node):
    """The profile's next ``hnscall_failures`` HRESULT, or 0 (S_OK)."""
    failures = list(node.profile.get('hnscall_failures') or [])
    spent = node.data.get('hnscall_failures_spent', 0)
    if spent >= len(failures):
        return 0
    node.data['hnscall_failures_spent'] = spent + 1
    return int(failures[spent])


def _hnscall(host, method, path, request_text, response):
    """The native call: its HRESULT (as an Int32), the response through the out parameter."""
    if not isinstance(response, PSReference):
        # PowerShell binds an out parameter only to a [ref] (about_Ref).
        raise PSError("Argument: '4' should be a System.Management.Automation.PSReference. Use [ref].",
                      'System.Management.Automation.MethodException', 'NonRefArgumentToRefParameterMsg')
    node = host.node
    if not node.hns_available():
        raise PSError("Unable to load DLL 'vmcompute.dll': The specified module could not be found. "
                      "(Exception from HRESULT: 0x8007007E)", 'System.DllNotFoundException', 'DllNotFoundException')
    hresult = _next_failure(node)
    if hresult:
        # No response comes with a failing HRESULT: the marshaller gives the out string null.
        response.Value = None
        return hresult - 2 ** 32 if hresult >= 2 ** 31 else hresult
    response.Value = request(node, to_string(method), to_string(path),
                             None if request_text is None else to_string(request_text))
    return 0


def _hnscall_statics(host):
    return {'HNSCall': lambda method, path, request_text, response: _hnscall(host, method, path, request_text,
                                                                             response)}


def _hnscall_void_statics(host):
    def hnscall(method, path, request_text, response):
        _hnscall(host, method, path, request_text, response)
        return AUTOMATION_NULL
    return {'HNSCall': hnscall}


known_definition(HNSCALL_DEFINITION, _hnscall_statics)
known_definition(HNSCALL_VOID_DEFINITION, _hnscall_void_statics)
