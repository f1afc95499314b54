"""The Host Compute Network (HCN) v2 API of computenetwork.dll, as far as the node's programs use it: HcnCreateNetwork.

A v2 network is the same HNS object a v1 client sees (windows/hns.py answers it under GET /networks/), created from
a HostComputeNetwork document. Sources: Microsoft's "Host Compute Network (HCN) service API" reference
(MicrosoftDocs/Virtualization-Documentation virtualization/api/hcn/Reference/HcnCreateNetwork.md: the settings are a
JSON document, the result document is filled on failure; HNS_Schema.md: HostComputeNetwork, Ipam, Subnet,
SubnetPolicy, NetworkFlags, NetworkPolicy) and hcsshim hcn/hcnnetwork.go, hcn/hcnpolicy.go, hcn/hcnerrors.go at
``hns.HCSSHIM_COMMIT`` (the Go structs the document marshals from, the flag values: EnableNonPersistent 8).

The only program that creates a v2 network here is flanneld's vxlan backend (flannel
pkg/backend/vxlan/device_windows.go newVXLANDevice): Type Overlay, one Static Ipam with one subnet (its prefix, a
VSID subnet policy with the VNI as IsolationId, the default route to the subnet's first address), the
NetAdapterName network policy when it knows its interface, Flags EnableNonPersistent, SchemaVersion 2.0, and the
empty MacPool, Dns and Health that Go's encoding/json writes for struct fields (omitempty leaves structs in).

HNS decodes the document strictly: a key the schema does not have is HCN_E_INVALID_JSON ``Invalid JSON document
string. {{<key>,UnknownField}}`` with the HRESULT returned and the same error in the result document
(HcnCreateNamespace's answer quoted on tunbury.org, "Containerd on Windows", 2025-06-27). As in windows/hns.py,
what no source shows HNS answering (another JSON type, a key in another case, a field the model does not implement, flags other than
EnableNonPersistent, several Ipams or subnets, a subnet without its default route: hcsshim's Create refuses that
since ebbed947) is an engine gap (Unsupported). Not modelled: HcnModifyNetwork (flannel's HostRoute policy, which
it only logs when it fails), the other HCN objects.
"""

import json

from ..pwsh.values import Unsupported
from . import hns

NON_PERSISTENT = 8  # hcn NetworkFlags EnableNonPersistent
# hcn/hcnnetwork.go HostComputeNetwork and the structs under it; None: a field HNS has that the model does not
# implement (Unsupported when it carries anything but the empty value Go writes for it).
NETWORK = {'ID': None, 'Name': 'string', 'Type': 'string', 'Policies': 'policies', 'MacPool': 'object',
           'Dns': 'object', 'Ipams': 'array', 'Flags': 'uint32', 'Health': 'object', 'SchemaVersion': 'object'}
IPAM = {'Type': 'string', 'Subnets': 'array'}
SUBNET = {'IpAddressPrefix': 'prefix', 'Policies': 'array', 'Routes': 'array', 'Flags': None}
ROUTE = {'NextHop': 'ip', 'DestinationPrefix': 'prefix', 'Metric': None}
SCHEMA_VERSION = {'Major': 'uint32', 'Minor': 'uint32'}
# hcn NetworkPolicy / SubnetPolicy: a Type and its Settings object; the settings the model implements.
POLICY = {'Type': 'string', 'Settings': 'object'}
NETWORK_POLICY_SETTINGS = {'NetAdapterName': {'NetworkAdapterName': 'string'}}
SUBNET_POLICY_SETTINGS = {'VSID': {'IsolationId': 'uint32'}}
# Empty structs Go writes for HostComputeNetwork's struct fields (MacPool{}, Dns{}, Health{Extra: ExtraParams{}}).
EMPTY_STRUCTS = {'MacPool': ({},), 'Dns': ({},), 'Health': ({}, {'Extra': {}})}


class HcnFailure(Exception):
    """HcnCreateNetwork's failing HRESULT and its result document."""

    def __init__(self, failure):
        super().__init__(failure.message)
        self.code = failure.code
        self.result = json.dumps({'Success': False, 'Error': failure.message, 'ErrorCode': failure.code})


def _one(items, what):
    if len(items) != 1:
        raise Unsupported('HCN network with %d %s (the node model keeps one)' % (len(items), what))
    return items[0]


def _policy(policy, settings_schemas, where):
    hns.decode(policy, POLICY, where)
    name = policy.get('Type')
    if name not in settings_schemas:
        raise Unsupported('HCN %s %r (not modelled)' % (where, name))
    return name, hns.decode(policy.get('Settings') or {}, settings_schemas[name], '%s %s settings' % (where, name))


def _subnet(ipam):
    hns.decode(ipam, IPAM, 'Ipam')
    if ipam.get('Type') != 'Static':
        raise Unsupported('HCN Ipam of type %r (Static is modelled)' % ipam.get('Type'))
    subnet = hns.decode(_one(ipam.get('Subnets') or [], 'subnets'), SUBNET, 'Subnet')
    routes = [hns.decode(route, ROUTE, 'Route') for route in subnet.get('Routes') or []]
    gateways = [r.get('NextHop') for r in routes if r.get('DestinationPrefix') == '0.0.0.0/0' and r.get('NextHop')]
    if subnet.get('IpAddressPrefix') and len(gateways) != 1 or len(routes) != len(gateways):
        raise Unsupported('HCN subnet routes %r (one default route is modelled; hcsshim refuses a subnet without it)'
                          % routes)
    vsids = [settings['IsolationId'] for _kind, settings in
             (_policy(p, SUBNET_POLICY_SETTINGS, 'subnet policy') for p in subnet.get('Policies') or [])]
    return subnet.get('IpAddressPrefix'), gateways[0] if gateways else None, (vsids[-1] if vsids else None)


def _settings(document):
    """The network spec (as windows/hns.create_network takes it) of a HostComputeNetwork document."""
    hns.decode(document, NETWORK, 'HostComputeNetwork')
    for key, empties in EMPTY_STRUCTS.items():
        if key in document and document[key] not in empties:
            raise Unsupported('HCN network %s %r (not modelled)' % (key, document[key]))
    if hns.decode(document.get('SchemaVersion') or {}, SCHEMA_VERSION, 'SchemaVersion') != {'Major': 2, 'Minor': 0}:
        raise Unsupported('HCN schema version %r (2.0 is modelled)' % document.get('SchemaVersion'))
    flags = document.get('Flags', 0)
    if flags not in (0, NON_PERSISTENT):
        raise Unsupported('HCN network flags %r (EnableNonPersistent is modelled)' % flags)
    adapters = [settings['NetworkAdapterName'] for _kind, settings in
                (_policy(p, NETWORK_POLICY_SETTINGS, 'network policy') for p in document.get('Policies') or [])]
    prefix, gateway, vsid = _subnet(_one(document.get('Ipams') or [], 'Ipams'))
    return {'name': document.get('Name') or '', 'type': document.get('Type') or '', 'address_prefix': prefix,
            'gateway': gateway, 'adapter': adapters[-1] if adapters else None, 'vsid': vsid, 'flags': flags}


def properties(network):
    """HcnQueryNetworkProperties' answer for a network: its HostComputeNetwork document (the fields flannel reads:
    the management IP as the ProviderAddress network policy, hcn ProviderAddressEndpointPolicySetting)."""
    subnet = network['subnets'][0]
    policies = [{'Type': 'VSID', 'Settings': {'IsolationId': subnet['vsid']}}] if subnet.get('vsid') else []
    answer = {'ID': network['id'].upper(), 'Name': network['name'], 'Type': network['type'],
              'Flags': int(network.get('flags') or 0), 'SchemaVersion': {'Major': 2, 'Minor': 0},
              'Ipams': [{'Type': 'Static', 'Subnets': [{
                  'IpAddressPrefix': subnet['address_prefix'], 'Policies': policies,
                  'Routes': [{'NextHop': subnet['gateway'], 'DestinationPrefix': '0.0.0.0/0'}]}]}]}
    if network.get('management_ip'):
        answer['Policies'] = [{'Type': 'ProviderAddress', 'Settings': {'ProviderAddress': network['management_ip']}}]
    return answer


def create_network(node, settings_text):
    """HcnCreateNetwork with a null ID (HNS picks one) and HcnQueryNetworkProperties of the network it made, as
    hcsshim's HostComputeNetwork.Create does: the network's document, or HcnFailure."""
    if not node.hns_available():
        raise Unsupported('HcnCreateNetwork without the Containers feature (computenetwork.dll is not modelled then)')
    try:
        try:
            document = json.loads(settings_text)
        except ValueError:
            raise hns.HnsFailure('invalid_json') from None
        spec = _settings(document)
        # flannel names the interface that holds its address (extIface.Iface.Name), the host vNIC once a vSwitch is
        # bound; its vxlan network is created so on nodes whose vSwitch an earlier network made (sig-windows-tools'
        # overlay set-up creates External first): HNS takes the vSwitch behind that vNIC.
        adapter = spec['adapter'] or ''
        bound = node._vswitch_adapters()  # pylint: disable=protected-access
        if adapter.startswith('vEthernet (') and adapter[11:-1] in bound:
            spec['adapter'] = adapter[11:-1]
        network = hns.create_network(node, spec)
    except hns.HnsFailure as failure:
        raise HcnFailure(failure) from None
    return properties(network)
