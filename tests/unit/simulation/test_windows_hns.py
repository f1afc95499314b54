"""The Host Networking Service model (Add-Type's P/Invoke of vmcompute.dll's HNSCall, the HNS v1 JSON API)
and the real lib/hns.ps1 run through the PowerShell engine against simulated nodes.

Get-KubeWinHnsState's answer is compared with what the twins report (node.hns_view()) for several node
states. Get-Service and Set-NetIPInterface belong to other areas of the Windows model: until those are
modelled, these tests stand in for them with doubles that answer from the same node.
"""

import json
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh import run_command  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh.commands import Cmdlet  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh.values import PSCustomObject, PSError  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import WindowsHost  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import hns as hns_model  # noqa: E402  pylint: disable=wrong-import-position

SCRIPTS = os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts')


def _read(*parts):
    with open(os.path.join(SCRIPTS, *parts), encoding='utf-8') as handle:
        return handle.read()


HNS = _read('lib', 'hns.ps1')
ENDPOINT_APPLY = _read('hns_endpoint_apply.ps1')
CONNECT_HOST_ENDPOINT = re.search(r'^function Connect-HostEndpoint \{.*?^\}\n', ENDPOINT_APPLY, re.M | re.S).group(0)


# -- doubles for cmdlets of other areas --------------------------------------------------------------

def _get_service(ctx, params, input_items):
    # Stand-in for the services area: the hns service exists once Containers is installed.
    name = str(params['Name'][0] if isinstance(params['Name'], (list, tuple)) else params['Name'])
    if name.lower() == 'hns' and ctx.host.node.hns_available():
        return [PSCustomObject([('Name', 'hns'), ('Status', 'Running')])]
    ctx.write_error(PSError("Cannot find any service with service name '%s'." % name,
                            'Microsoft.PowerShell.Commands.ServiceCommandException', 'NoServiceFoundForGivenName',
                            'ObjectNotFound', target=name))
    return []


def _set_netipinterface(ctx, params, input_items):
    # Stand-in for the NetTCPIP write side: what the twin does (forwarding on the vNIC).
    alias = str(params['InterfaceAlias'][0] if isinstance(params['InterfaceAlias'], (list, tuple))
                else params['InterfaceAlias'])
    ctx.host.node.adapter(alias)['forwarding'] = str(params['Forwarding']) == 'Enabled'
    return []


def run(node, text):
    host = WindowsHost(node)
    commands = host.commands()
    commands.update({'get-service': Cmdlet('Get-Service', _get_service),
                     'set-netipinterface': Cmdlet('Set-NetIPInterface', _set_netipinterface)})
    return run_command(text, host=host, commands=commands)


def ok(node, text):
    outcome = run(node, text)
    assert (outcome.exit_code, outcome.errors, outcome.unsupported) == (0, [], None), outcome
    return outcome


def hns_node(**profile):
    node = SimNode(initial_state('win1', dict({'ip': '10.0.0.11'}, **profile)))
    node.data['features']['Containers'] = 'installed'
    return node


def state_of(node):
    # As lib/state.ps1 puts it into node_info's JSON.
    outcome = ok(node, HNS + '\n$state = [ordered]@{}\n$state.hns = Get-KubeWinHnsState\n'
                 'ConvertTo-Json -InputObject $state -Depth 10 -Compress\n')
    return json.loads(outcome.output[-1])['hns']


def call(node, method, path, body=None):
    """HNSCall straight, as the P/Invoke answers it."""
    return json.loads(hns_model.request(node, method, path, None if body is None else json.dumps(body)))


# -- Add-Type -MemberDefinition --------------------------------------------------------------------

def test_the_type_is_namespace_dot_name_and_exists_after_add_type():
    outcome = ok(hns_node(), "$before = 'KubeWin.Hns' -as [type]\n$null -eq $before\n" + HNS +
                 "\n('KubeWin.Hns' -as [type]).FullName\n[KubeWin.Hns].FullName")
    assert outcome.output == ['True', 'KubeWin.Hns', 'KubeWin.Hns']


def test_a_second_add_type_of_the_same_definition_is_no_error():
    body = HNS.split('function Invoke-KubeWinHns')[0]
    add = re.search(r"Add-Type .*?'@\n", body, re.S).group(0)
    assert ok(hns_node(), add + add + "[KubeWin.Hns].FullName").output == ['KubeWin.Hns']


def test_another_definition_under_the_same_name_fails():
    body = HNS.split('function Invoke-KubeWinHns')[0]
    add = re.search(r"Add-Type .*?'@\n", body, re.S).group(0)
    other = add.replace('HNSCall(', 'HNSCall2(')
    outcome = run(hns_node(), add + other)
    assert outcome.errors == ["Cannot add type. The type name 'KubeWin.Hns' already exists."]


def test_the_default_namespace_and_passthru():
    outcome = ok(hns_node(), "$t = Add-Type -Name NativeMethods -PassThru -MemberDefinition '%s'\n$t.FullName"
                 % hns_model.HNSCALL_DEFINITION)
    assert outcome.output == ['Microsoft.PowerShell.Commands.AddType.AutoGeneratedTypes.NativeMethods']


def test_a_definition_the_model_does_not_know_is_an_engine_gap_naming_it():
    outcome = run(hns_node(), "Add-Type -Name X -Namespace Y -MemberDefinition 'public static int Z() { return 1; }'")
    assert outcome.exit_code == 2 and 'public static int Z() { return 1; }' in outcome.unsupported


def test_an_assembly_the_model_does_not_know_is_an_engine_gap_naming_it():
    outcome = run(hns_node(), 'Add-Type -AssemblyName System.IO.Compression.FileSystem')
    assert outcome.exit_code == 2 and 'System.IO.Compression.FileSystem' in outcome.unsupported


def test_types_live_in_their_session_only():
    node = hns_node()
    ok(node, HNS)
    assert ok(node, "$null -eq ('KubeWin.Hns' -as [type])").output == ['True']


# -- HNSCall ---------------------------------------------------------------------------------------

def test_hnscall_answers_json_through_its_out_parameter():
    outcome = ok(hns_node(), HNS + "\n$r = ''\n[KubeWin.Hns]::HNSCall('GET', '/networks/', '', [ref]$r)\n$r")
    assert json.loads(outcome.output[-1]) == {'Success': True, 'Output': []}


def test_without_the_containers_feature_vmcompute_dll_is_missing():
    # The scripts run with $ErrorActionPreference = 'Stop': the failed call stops them.
    node = SimNode(initial_state('win1', {}))
    outcome = run(node, "$ErrorActionPreference = 'Stop'\n" + HNS + "\nInvoke-KubeWinHns -Method GET -Path '/networks/'")
    assert outcome.exit_code == 1 and outcome.errors == [
        'Exception calling "HNSCall" with "4" argument(s): "Unable to load DLL \'vmcompute.dll\': The specified module '
        'could not be found. (Exception from HRESULT: 0x8007007E)"']


def test_a_network_as_hns_returns_it():
    node = hns_node()
    created = call(node, 'POST', '/networks/', {
        'Name': 'vxlan0', 'Type': 'Overlay', 'NetworkAdapterName': 'Ethernet', 'DNSServerList': '10.96.0.10',
        'Subnets': [{'AddressPrefix': '10.244.1.0/24', 'GatewayAddress': '10.244.1.1',
                     'Policies': [{'Type': 'VSID', 'VSID': 4096}]}]})
    network_id = node.data['hns']['networks'][0]['id']
    assert created == {'Success': True, 'Output': {
        'DNSServerList': '10.96.0.10', 'ID': network_id.upper(), 'IPv6': False, 'ManagementIP': '10.0.0.11',
        'Name': 'vxlan0', 'NetworkAdapterName': 'Ethernet', 'Policies': [], 'State': 1, 'Type': 'Overlay',
        'Subnets': [{'AddressPrefix': '10.244.1.0/24', 'GatewayAddress': '10.244.1.1',
                     'Policies': [{'Type': 'VSID', 'VSID': 4096}]}]}}
    assert call(node, 'GET', '/networks/' + network_id) == created
    assert call(node, 'GET', '/networks')['Output'] == [created['Output']]


@pytest.mark.parametrize('body, error', [
    ({'Name': 'x', 'Type': 'Bogus'}, 'Invalid network type. '),
    ({'Name': 'x', 'Type': 'L2Bridge', 'NetworkAdapterName': 'Ethernet 9',
      'Subnets': [{'AddressPrefix': '10.244.1.0/24'}]}, 'An adapter was not found. '),
    ({'Name': 'x', 'Type': 'L2Bridge', 'NetworkAdapterName': 'Ethernet'}, 'The provided network configuration is '
                                                                         'invalid or missing parameters. '),
])
def test_network_requests_hns_refuses(body, error):
    node = hns_node()
    assert call(node, 'POST', '/networks/', body)['Error'] == error
    assert node.data['hns']['networks'] == [] and len(node.data['adapters']) == 1


def test_an_external_network_binds_an_open_adapter_never_a_host_vnic():
    node = hns_node()
    subnets = [{'AddressPrefix': '10.244.1.0/24', 'GatewayAddress': '10.244.1.1'}]
    assert call(node, 'POST', '/networks/', {'Name': 'cbr0', 'Type': 'L2Bridge', 'Subnets': subnets})['Output'][
        'NetworkAdapterName'] == 'Ethernet'
    assert call(node, 'POST', '/networks/', {'Name': 'cbr1', 'Type': 'L2Bridge', 'Subnets': subnets,
                                             'NetworkAdapterName': 'vEthernet (Ethernet)'})['Error'] == \
        'An adapter was not found. '
    assert call(node, 'POST', '/networks/', {'Name': 'cbr1', 'Type': 'L2Bridge', 'Subnets': subnets})['Error'] == \
        'An adapter was not found. '


def test_a_second_network_of_the_same_name_is_refused():
    node = hns_node()
    body = {'Name': 'nat', 'Type': 'NAT', 'Subnets': [{'AddressPrefix': '172.20.0.0/16'}]}
    assert call(node, 'POST', '/networks/', body)['Success'] is True
    assert call(node, 'POST', '/networks/', body) == {
        'Success': False, 'Error': 'A network with this name already exists. ', 'ErrorCode': 0x803B0010}


def test_unknown_ids():
    node = hns_node()
    assert call(node, 'GET', '/networks/0B4B0A5B-0000-0000-0000-000000000000')['Error'] == 'The network was not found. '
    assert call(node, 'DELETE', '/endpoints/0B4B0A5B-0000-0000-0000-000000000000')['Error'] == \
        'The endpoint was not found. '
    assert call(node, 'DELETE', '/policylists/0B4B0A5B-0000-0000-0000-000000000000')['Error'] == 'Element not found. '


def test_endpoints_attach_and_policy_lists():
    node = hns_node()
    network = node.create_network({'name': 'cbr0', 'type': 'L2Bridge', 'address_prefix': '10.244.1.0/24',
                                   'gateway': '10.244.1.1', 'adapter': 'Ethernet'})
    assert call(node, 'POST', '/endpoints/', {'Name': 'x', 'VirtualNetwork': network['id'],
                                              'IPAddress': '10.9.9.9'})['Error'] == \
        'The network does not have a subnet for this endpoint. '
    endpoint = call(node, 'POST', '/endpoints/', {'Name': 'cbr0_ep', 'VirtualNetwork': network['id'].upper(),
                                                  'IPAddress': '10.244.1.2'})['Output']
    assert endpoint == {'ID': endpoint['ID'], 'IPAddress': '10.244.1.2', 'MacAddress': '00-15-5D-00-00-01',
                        'Name': 'cbr0_ep', 'Policies': [], 'State': 1, 'VirtualNetwork': network['id'].upper(),
                        'VirtualNetworkName': 'cbr0'}
    path = '/endpoints/%s/attach' % endpoint['ID']
    assert call(node, 'POST', path, {'SystemType': 'Host', 'CompartmentId': 1}) == {'Success': True}
    assert node.adapter('vEthernet (cbr0_ep)')['ipv4'][0]['address'] == '10.244.1.2'
    assert call(node, 'POST', path, {'SystemType': 'Host'})['Error'] == 'This endpoint is already attached to the switch. '
    assert call(node, 'GET', '/endpoints/' + endpoint['ID'])['Output']['State'] == 2
    policy_list = call(node, 'POST', '/policylists/', {
        'References': ['/endpoints/' + endpoint['ID']],
        'Policies': [{'Type': 'ELB', 'InternalPort': 53, 'ExternalPort': 53, 'Protocol': 17, 'VIPs': ['10.96.0.10']}]})
    assert policy_list['Output']['Policies'][0]['InternalPort'] == 53
    assert call(node, 'DELETE', '/endpoints/' + endpoint['ID'])['Error'] == 'The requested resource is in use. '
    assert call(node, 'DELETE', '/policylists/' + policy_list['Output']['ID']) == {'Success': True}
    assert call(node, 'DELETE', '/endpoints/' + endpoint['ID']) == {'Success': True}
    assert node.adapter('vEthernet (cbr0_ep)') is None and node.data['hns']['endpoints'] == []


def test_an_unmodelled_request_is_an_engine_gap():
    outcome = run(hns_node(), HNS + "\nInvoke-KubeWinHns -Method GET -Path '/activities/'")
    assert outcome.exit_code == 2 and 'GET /activities/' in outcome.unsupported


# -- lib/hns.ps1 against the twins' view ---------------------------------------------------------------

def _l2bridge(node, vsid=None):
    return node.create_network({'name': 'cbr0', 'type': 'L2Bridge', 'address_prefix': '10.244.1.0/24',
                                'gateway': '10.244.1.1', 'adapter': 'Ethernet', 'vsid': vsid})


def _overlay(node):
    return node.create_network({'name': 'vxlan0', 'type': 'Overlay', 'address_prefix': '10.244.2.0/24',
                                'gateway': '10.244.2.1', 'adapter': 'Ethernet', 'vsid': 4096})


def _no_hns(node):
    node.data['features']['Containers'] = 'available'


def _endpoints(node):
    network = _l2bridge(node)
    first = node.create_endpoint('cbr0_ep', network['id'], '10.244.1.2')
    node.attach_host_endpoint(first['id'])
    second = node.create_endpoint('remote', network['id'], '10.244.1.3')
    second['is_remote'] = True


def _one_endpoint(node):
    node.create_endpoint('cbr0_ep', _l2bridge(node)['id'], '10.244.1.2')


def _policy_lists(node):
    endpoint = node.create_endpoint('cbr0_ep', _l2bridge(node)['id'], '10.244.1.2')
    node.add_policy_list(['10.96.0.1'], [endpoint['id']])
    node.add_policy_list(['10.96.0.10'], [])


def _one_policy_list(node):
    node.add_policy_list(['10.96.0.1'], [])


def _two_networks(node):
    _l2bridge(node)
    node.create_network({'name': 'nat', 'type': 'NAT', 'address_prefix': '172.20.0.0/16'})


STATES = {
    'no_hns': _no_hns,
    'no_network': lambda node: None,
    'l2bridge_without_vsid': _l2bridge,
    'overlay_with_vsid': _overlay,
    'two_networks': _two_networks,
    'one_endpoint': _one_endpoint,
    'endpoints': _endpoints,
    'one_policy_list': _one_policy_list,
    'policy_lists': _policy_lists,
}


@pytest.mark.parametrize('strings', [False, True], ids=['policy_objects', 'policy_strings'])
@pytest.mark.parametrize('name', sorted(STATES))
def test_get_kubewin_hns_state_matches_the_twins_view(name, strings):
    node = hns_node(hns_policies_as_strings=strings)
    STATES[name](node)
    assert state_of(node) == node.hns_view()


def test_new_and_remove_network_bind_and_unbind_the_vswitch():
    node = hns_node()
    outcome = ok(node, HNS + '''
$n = New-KubeWinHnsNetwork -Spec ([ordered]@{ name = 'vxlan0'; type = 'Overlay'; address_prefix = '10.244.2.0/24'
    gateway = '10.244.2.1'; adapter = 'Ethernet'; vsid = 4096 })
ConvertTo-Json -InputObject $n -Depth 10 -Compress
''')
    created = json.loads(outcome.output[-1])
    assert created == node.hns_view()['networks'][0]
    assert created['subnets'] == [{'address_prefix': '10.244.2.0/24', 'gateway': '10.244.2.1', 'vsid': 4096}]
    assert created['management_ip'] == '10.0.0.11'
    assert node.adapter('Ethernet')['ipv4'] == [] and node.adapter('vEthernet (Ethernet)')['ipv4'][0]['address'] == \
        '10.0.0.11'
    ok(node, HNS + "\nRemove-KubeWinHnsNetwork -Id '%s'" % created['id'])
    assert node.data['hns']['networks'] == [] and node.adapter('vEthernet (Ethernet)') is None
    assert node.adapter('Ethernet')['ipv4'][0]['address'] == '10.0.0.11'


def test_a_network_without_gateway_or_vsid():
    node = hns_node()
    outcome = ok(node, HNS + '''
$n = New-KubeWinHnsNetwork -Spec ([ordered]@{ name = 'nat'; type = 'NAT'; address_prefix = '172.20.0.0/16'
    gateway = $null; adapter = $null; vsid = $null })
ConvertTo-Json -InputObject $n -Depth 10 -Compress
''')
    assert json.loads(outcome.output[-1]) == node.hns_view()['networks'][0] == {
        'id': node.data['hns']['networks'][0]['id'], 'name': 'nat', 'type': 'NAT', 'adapter': None,
        'management_ip': None, 'subnets': [{'address_prefix': '172.20.0.0/16', 'gateway': None, 'vsid': None}]}


def test_a_failure_is_a_terminating_error_with_hns_message():
    node = hns_node()
    _policy_lists(node)
    endpoint_id = node.data['hns']['endpoints'][0]['id']
    outcome = run(node, HNS + "\nInvoke-KubeWinHns -Method DELETE -Path '/endpoints/%s'\n'after'" % endpoint_id)
    assert outcome.exit_code == 1 and outcome.output == []
    assert outcome.errors == ['HNS DELETE /endpoints/%s failed: The requested resource is in use. ' % endpoint_id]


def test_connect_host_endpoint_attaches_once_and_enables_forwarding():
    node = hns_node()
    endpoint = node.create_endpoint('cbr0_ep', _l2bridge(node)['id'], '10.244.1.2')
    text = HNS + '\n' + CONNECT_HOST_ENDPOINT + "\nConnect-HostEndpoint -Id '%s' -EndpointName cbr0_ep\n" % endpoint['id']
    ok(node, text)
    vnic = node.adapter('vEthernet (cbr0_ep)')
    assert vnic['forwarding'] is True and vnic['ipv4'][0]['address'] == '10.244.1.2'
    # A second attach fails in HNS; the function takes the existing vNIC as the state it wants.
    ok(node, text)
    assert [a['name'] for a in node.data['adapters']].count('vEthernet (cbr0_ep)') == 1


# -- the apply scripts, whole ------------------------------------------------------------------------

def run_script(node, name, parameters):
    """A script as win_powershell runs it: its includes expanded, $Ansible.Result its JSON answer."""
    from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh  # pylint: disable=import-outside-toplevel
    from kubewin_sim.pwsh import new_interpreter  # pylint: disable=import-outside-toplevel
    host = WindowsHost(node)
    commands = host.commands()
    commands.update({'get-service': Cmdlet('Get-Service', _get_service),
                     'set-netipinterface': Cmdlet('Set-NetIPInterface', _set_netipinterface)})
    interpreter = new_interpreter(host, commands)
    ansible = PSCustomObject([('Result', None)])
    interpreter.global_scope.vars['ansible'] = ansible
    interpreter.run(_pwsh.load_script(name), parameters)
    assert [str(record) for record in interpreter.errors] == []
    return json.loads(ansible.props['Result'])


def both(node, name, parameters, monkeypatch):
    """The real script's answer and the twin's, each on its own copy of the node, with the same GUIDs."""
    from kubewin_sim import handlers, registry  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh  # pylint: disable=import-outside-toplevel
    answers = []
    for runner in (run_script, lambda n, s, p: registry.run(n, _pwsh.load_script(s), p, {})):
        counter = iter(range(1, 1000))
        monkeypatch.setattr('kubewin_sim.node.new_guid', lambda: '00000000-0000-0000-0000-%012d' % next(counter))
        copy = SimNode(json.loads(json.dumps(node.data)))
        answers.append((runner(copy, name, dict(parameters)), copy))
    (real, real_node), (twin, twin_node) = answers
    assert json.loads(json.dumps(twin)) == real
    real_node.data['log'] = twin_node.data['log'] = []
    real_node.data['unreachable_until'] = twin_node.data['unreachable_until'] = 0
    assert real_node.data == twin_node.data
    return real, real_node


def test_hns_endpoint_apply_creates_and_attaches_as_the_twin_does(monkeypatch):
    node = hns_node()
    network = _l2bridge(node)
    result, after = both(node, 'hns_endpoint_apply', {'Name': 'cbr0_ep', 'NetworkId': network['id'],
                                                      'IPAddress': '10.244.1.2', 'AttachHost': True}, monkeypatch)
    assert result['endpoint']['host_attached'] is True
    assert after.adapter('vEthernet (cbr0_ep)')['forwarding'] is True


def test_hns_endpoint_apply_attaching_again_and_removing(monkeypatch):
    node = hns_node()
    endpoint = node.create_endpoint('cbr0_ep', _l2bridge(node)['id'], '10.244.1.2')
    node.attach_host_endpoint(endpoint['id'])
    result, _ = both(node, 'hns_endpoint_apply', {'Name': 'cbr0_ep', 'AttachId': endpoint['id'], 'AttachHost': True},
                     monkeypatch)
    assert result['endpoint']['id'] == endpoint['id']
    result, after = both(node, 'hns_endpoint_apply', {'RemoveIds': [endpoint['id']]}, monkeypatch)
    assert result['removed'] == [endpoint['id']] and result['endpoint'] is None
    assert after.data['hns']['endpoints'] == []


def test_hns_network_apply_adds_and_removes_networks_as_the_twin_does(monkeypatch):
    node = hns_node()
    first = _l2bridge(node)
    result, after = both(node, 'hns_network_apply', {
        'Name': 'vxlan0', 'Type': 'Overlay', 'AddressPrefix': '10.244.2.0/24', 'Gateway': '10.244.2.1',
        'AdapterName': 'Ethernet', 'Vsid': 4096}, monkeypatch)
    assert result['created']['subnets'] == [{'address_prefix': '10.244.2.0/24', 'gateway': '10.244.2.1', 'vsid': 4096}]
    assert [a['name'] for a in result['state']['adapters']] == ['Ethernet', 'vEthernet (Ethernet)']
    result, after = both(after, 'hns_network_apply', {'RemoveIds': [first['id'], result['created']['id']]},
                         monkeypatch)
    assert result['state']['hns']['networks'] == [] and [a['name'] for a in result['state']['adapters']] == ['Ethernet']
    assert after.adapter('Ethernet')['ipv4'][0]['address'] == '10.0.0.11'


def test_node_logs_dumps_the_objects_hns_returns():
    # node_logs.ps1 keeps HNS's own objects (ConvertFrom-Json's, written back with ConvertTo-Json).
    logs = _read('node_logs.ps1')
    section = logs[logs.index('$hns = [ordered]@{ available = $false'):logs.index('$Ansible.Changed')]
    node = hns_node(hns_policies_as_strings=True)
    _policy_lists(node)
    outcome = ok(node, HNS + '\n' + section + '\nConvertTo-Json -Depth 12 -Compress -InputObject $hns\n')
    dumped = json.loads(outcome.output[-1])
    assert dumped == {'available': True,
                      'networks': [hns_model.network_json(node, n) for n in node.data['hns']['networks']],
                      'endpoints': [hns_model.endpoint_json(node, e) for e in node.data['hns']['endpoints']],
                      'policy_lists': [hns_model.policy_list_json(node, p) for p in node.data['hns']['policy_lists']]}
    assert [json.loads(p['Policies'][0])['VIPs'] for p in dumped['policy_lists']] == [['10.96.0.1'], ['10.96.0.10']]
