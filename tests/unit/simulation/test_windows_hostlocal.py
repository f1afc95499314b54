"""host-local.exe as a program model (kubewin_sim/windows/hostlocal.py), started as source_vip_apply.ps1 starts it
([Diagnostics.Process]::Start with the CNI variables in its environment and the configuration on standard
input), and source_vip_apply.ps1 run whole by the engine, its answer and host-local's reservation files asserted.

Behaviour from containernetworking/plugins v1.9.1 (plugins/ipam/host-local and the vendored
containernetworking/cni v1.3.0 pkg/skel, pkg/types, pkg/utils), named per test.
"""

import codecs
import hashlib
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import filesystem, run_on_node  # noqa: E402
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402

HOST_LOCAL = 'C:\\opt\\cni\\bin\\host-local.exe'
DATA_DIR = 'C:\\var\\lib\\cni\\networks'
REQUEST = 'C:\\k\\request.json'
STORE = DATA_DIR + '\\cbr0'
# How source_vip_apply.ps1 starts host-local; the environment variables to leave out are named in $Drop.
START = r'''
function Invoke-HostLocal {
    param([string]$Command, [string]$Id = 'c1', [string[]]$Drop = @())
    $start = New-Object -TypeName System.Diagnostics.ProcessStartInfo
    $start.FileName = 'C:\opt\cni\bin\host-local.exe'
    $start.UseShellExecute = $false
    $start.RedirectStandardInput = $true
    $start.RedirectStandardOutput = $true
    $start.RedirectStandardError = $true
    $variables = [ordered]@{ CNI_COMMAND = $Command; CNI_CONTAINERID = $Id; CNI_NETNS = 'none'; CNI_IFNAME = 'eth0'
        CNI_PATH = 'C:\opt\cni\bin' }
    foreach ($name in $variables.Keys) {
        if ($Drop -notcontains $name) { $start.EnvironmentVariables[$name] = $variables[$name] }
    }
    $process = [System.Diagnostics.Process]::Start($start)
    $bytes = [System.IO.File]::ReadAllBytes('C:\k\request.json')
    $process.StandardInput.BaseStream.Write($bytes, 0, $bytes.Length)
    $process.StandardInput.Close()
    $stderr = $process.StandardError.ReadToEndAsync()
    $output = $process.StandardOutput.ReadToEnd()
    $process.WaitForExit()
    ConvertTo-Json -Compress -InputObject @($process.ExitCode, $output, $stderr.Result)
}
'''


def fresh_node():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    node.data['features']['Containers'] = 'installed'
    # The program file, in the file system model and through node.write_file (processes.py finds a program with
    # node.file, which the lead is moving onto the same model).
    filesystem.make_directories(node, 'C:\\opt\\cni\\bin')
    filesystem.write_file(node, HOST_LOCAL, b'', stand_in={'sha256': '0' * 64, 'size': 1})
    node.write_file(HOST_LOCAL, sha256='0' * 64, size=1)
    filesystem.make_directories(node, 'C:\\k')
    return node


def config(subnet='10.244.1.0/24', version='0.3.1', **ipam):
    return {'cniVersion': version, 'name': 'cbr0',
            'ipam': dict({'type': 'host-local', 'ranges': [[{'subnet': subnet}]], 'dataDir': DATA_DIR}, **ipam)}


def host_local(node, command, request, **options):
    """Run host-local through the engine; (exit code, stdout, stderr)."""
    data = request if isinstance(request, bytes) else json.dumps(request).encode('utf-8')
    filesystem.write_file(node, REQUEST, data)
    arguments = ' '.join("-%s %s" % (key, "@(%s)" % ','.join("'%s'" % v for v in value) if isinstance(value, list)
                                     else "'%s'" % value) for key, value in options.items())
    outcome = run_on_node(node, START + 'Invoke-HostLocal -Command %s %s' % (command, arguments))
    assert (outcome.unsupported, outcome.errors) == (None, []), outcome
    return tuple(json.loads(outcome.output[-1]))


def reserved(node, store=STORE):
    """The store as files: {name: text}."""
    return {entry['path'].rsplit('\\', 1)[-1]: filesystem.content_bytes(entry).decode()
            for entry in filesystem.walk(node, store) if not entry['dir']}


# -- the program --------------------------------------------------------------------------------------

def test_add_prints_the_result_of_the_config_version_and_keeps_the_reservation_as_files():
    # main.go cmdAdd + types/040 Result.PrintTo (MarshalIndent, four spaces, no line end); disk/backend.go Reserve
    # (a file named by the address holding "<id>\r\n<ifname>", last_reserved_ip.0) and lock.go's lock file.
    node = fresh_node()
    code, out, err = host_local(node, 'ADD', config())
    assert (code, err) == (0, '')
    ips = [{'version': '4', 'address': '10.244.1.2/24', 'gateway': '10.244.1.1'}]
    assert out == json.dumps({'cniVersion': '0.3.1', 'ips': ips, 'dns': {}}, indent=4)
    assert reserved(node) == {'10.244.1.2': 'c1\r\neth0', 'last_reserved_ip.0': '10.244.1.2', 'lock': ''}


def test_a_1_0_result_has_no_ip_version():
    # types/100 ipConfig: interface, address, gateway.
    code, out, _stderr = host_local(fresh_node(), 'ADD', config(version='1.0.0'))
    expected = {'cniVersion': '1.0.0', 'ips': [{'address': '10.244.1.2/24', 'gateway': '10.244.1.1'}], 'dns': {}}
    assert code == 0 and json.loads(out) == expected


def test_a_second_add_for_the_same_container_is_refused():
    # allocator.Get: "duplicate allocation is not allowed in SPEC"; cmdAdd wraps it ("failed to allocate for
    # range 0: ...") as ErrInternal (999); skel prints the error document and exits 1.
    node = fresh_node()
    host_local(node, 'ADD', config())
    code, out, _stderr = host_local(node, 'ADD', config())
    expected = {'code': 999, 'msg': 'failed to allocate for range 0: 10.244.1.2 has been allocated to c1, duplicate '
                'allocation is not allowed'}
    assert code == 1 and json.loads(out) == expected


def test_del_releases_and_the_next_add_goes_round_robin():
    # RangeIter: from the last reserved address + 1, the gateway skipped; ReleaseByID removes the owner's files.
    node = fresh_node()
    host_local(node, 'ADD', config(), Id='c1')
    host_local(node, 'ADD', config(), Id='c2')
    assert host_local(node, 'DEL', config(), Id='c1') == (0, '', '')
    assert host_local(node, 'DEL', config(), Id='c1', Drop=['CNI_NETNS']) == (0, '', '')  # DEL needs no netns
    code, out, _stderr = host_local(node, 'ADD', config(), Id='c3')
    assert code == 0 and json.loads(out)['ips'][0]['address'] == '10.244.1.4/24'
    assert sorted(reserved(node)) == ['10.244.1.3', '10.244.1.4', 'last_reserved_ip.0', 'lock']


def test_the_range_wraps_and_runs_out():
    # Range.Canonicalize: start network + 1, end broadcast - 1, gateway network + 1; the iterator wraps once.
    node = fresh_node()
    assert json.loads(host_local(node, 'ADD', config('10.0.0.0/29'), Id='a')[1])['ips'][0]['address'] == '10.0.0.2/29'
    for name in 'bcde':
        host_local(node, 'ADD', config('10.0.0.0/29'), Id=name)
    host_local(node, 'DEL', config('10.0.0.0/29'), Id='b')
    assert json.loads(host_local(node, 'ADD', config('10.0.0.0/29'), Id='f')[1])['ips'][0]['address'] == '10.0.0.3/29'
    code, out, _stderr = host_local(node, 'ADD', config('10.0.0.0/29'), Id='g')
    assert code == 1 and json.loads(out)['msg'] == ('failed to allocate for range 0: no IP addresses available in '
                                                    'range set: 10.0.0.1-10.0.0.6')


@pytest.mark.parametrize('data, character', [
    (codecs.BOM_UTF8 + json.dumps(config()).encode(), '\u00ef'),
    (codecs.BOM_UTF16_LE + json.dumps(config()).encode('utf-16-le'), '\u00ff')], ids=['utf8_bom', 'utf16'])
def test_a_byte_order_mark_is_not_json(data, character):
    # skel validateConfig: json.Unmarshal fails -> ErrDecodingFailure (6) "error unmarshall network config: ...",
    # Go's encoding/json naming the first byte as a rune.
    code, out, _stderr = host_local(fresh_node(), 'ADD', data)
    assert code == 1 and json.loads(out) == {'code': 6, 'msg': "error unmarshall network config: invalid character "
                                             "'%s' looking for beginning of value" % character}


def test_missing_variables_and_a_bad_network_name():
    # skel getCmdArgsFromEnv: CNI_NETNS is required for ADD (ErrInvalidEnvironmentVariables, 4); utils
    # ValidateNetworkName (ErrInvalidNetworkConfig, 7, the name as details).
    node = fresh_node()
    assert json.loads(host_local(node, 'ADD', config(), Drop=['CNI_NETNS', 'CNI_PATH'])[1]) == {
        'code': 4, 'msg': 'required env variables [CNI_NETNS,CNI_PATH] missing'}
    assert json.loads(host_local(node, 'ADD', dict(config(), name='cbr 0'))[1]) == {
        'code': 7, 'msg': 'invalid characters found in network name', 'details': 'cbr 0'}


def test_check_needs_0_4_0_and_an_address():
    # skel CHECK: "config version does not allow CHECK" before 0.4.0; main.go cmdCheck: FindByID.
    node = fresh_node()
    assert json.loads(host_local(node, 'CHECK', config())[1]) == {'code': 1, 'msg': 'config version does not allow CHECK'}
    assert json.loads(host_local(node, 'CHECK', config(version='0.4.0'))[1]) == {
        'code': 999, 'msg': 'host-local: Failed to find address added by container c1'}
    host_local(node, 'ADD', config(version='0.4.0'))
    assert host_local(node, 'CHECK', config(version='0.4.0')) == (0, '', '')


def test_a_subnet_with_host_bits_and_an_unknown_version():
    # Range.Canonicalize and LoadIPAMConfig's "invalid range set %d: %s"; version.Reconciler's details.
    node = fresh_node()
    assert json.loads(host_local(node, 'ADD', config('10.244.1.7/24'))[1])['msg'] == (
        'invalid range set 0: Network has host bits set. For a subnet mask of length 24 the network address is '
        '10.244.1.0')
    assert json.loads(host_local(node, 'ADD', config(version='9.9.9'))[1]) == {
        'code': 1, 'msg': 'incompatible CNI versions', 'details': 'config is "9.9.9", plugin supports ["0.1.0" '
        '"0.2.0" "0.3.0" "0.3.1" "0.4.0" "1.0.0" "1.1.0"]'}


def test_removing_the_data_folder_releases_everything():
    node = fresh_node()
    host_local(node, 'ADD', config())
    outcome = run_on_node(node, "Remove-Item -LiteralPath '%s' -Recurse -Force" % DATA_DIR)
    assert outcome.errors == []
    code, out, _stderr = host_local(node, 'ADD', config())
    assert code == 0 and json.loads(out)['ips'][0]['address'] == '10.244.1.2/24'


def test_output_is_not_read_before_the_input_is_closed():
    # The program reads its input to the end first (skel: io.ReadAll(os.Stdin)); a script that reads its output
    # before closing its input would hang on Windows: an engine gap, not an answer.
    node = fresh_node()
    filesystem.write_file(node, REQUEST, b'{}')
    text = START.replace('    $process.StandardInput.Close()\n', '').replace(
        '    $stderr = $process.StandardError.ReadToEndAsync()\n', '')
    outcome = run_on_node(node, text + 'Invoke-HostLocal -Command ADD')
    assert 'would hang' in outcome.unsupported


# -- source_vip_apply.ps1, whole ---------------------------------------------------------------------

PARAMETERS = {'Network': 'flannel.4096', 'Subnet': '10.244.1.0/24', 'ReleaseSubnet': '10.244.1.0/24',
              'Path': 'C:\\ProgramData\\kubewin\\SourceVip.json',
              'RequestPath': 'C:\\ProgramData\\kubewin\\source-vip-request.json', 'HostLocal': HOST_LOCAL,
              'DataDir': DATA_DIR}
STORE_OF_SOURCE_VIP = DATA_DIR + '\\flannel.4096'


def source_vip_answer(address, gateway):
    """What source_vip_apply.ps1 reports once host-local reserved ``address``: its answer (PrintTo's
    four-space MarshalIndent, trimmed) recorded in SourceVip.json, a protected file, and that file in the state."""
    text = json.dumps({'cniVersion': '0.3.1', 'ips': [{'version': '4', 'address': address + '/24', 'gateway': gateway}],
                       'dns': {}}, indent=4)
    data = text.encode('utf-8')
    path = PARAMETERS['Path']
    return {'state': {
        'sections': ['hns', 'files', 'contents'],
        'hns': {'available': True, 'networks': [], 'endpoints': [], 'policy_lists': []},
        'files': {path: {'exists': True, 'type': 'file', 'size': len(data), 'sha256': hashlib.sha256(data).hexdigest(),
                         'acl': 'protected'}},
        'contents': {path: {'exists': True, 'text': text}}}}


@pytest.mark.parametrize('runs, addresses', [
    ([PARAMETERS], [('10.244.1.2', '10.244.1.1')]),
    # DEL releases the owner's address first; ADD then goes on from last_reserved_ip.0 (round robin).
    ([PARAMETERS, PARAMETERS], [('10.244.1.2', '10.244.1.1'), ('10.244.1.3', '10.244.1.1')]),
    ([PARAMETERS, dict(PARAMETERS, Subnet='10.244.7.0/24')], [('10.244.1.2', '10.244.1.1'), ('10.244.7.2', '10.244.7.1')]),
], ids=['first', 'again', 'new_pod_subnet'])
def test_source_vip_apply_runs_whole_and_keeps_one_reservation(runs, addresses):
    node = fresh_node()
    for parameters, (address, gateway) in zip(runs, addresses):
        result = invoke(node, _pwsh.load_script('source_vip_apply'), parameters, error_action='stop')
        assert (result['failed'], result['error']) == (False, [])
        real = _contracts.check('source_vip_apply', json.loads(result['result']))
        assert real == source_vip_answer(address, gateway)
        # The record on disk is the text reported.
        record = filesystem.lookup(node, PARAMETERS['Path'])
        assert filesystem.content_bytes(record).decode('utf-8') == real['state']['contents'][PARAMETERS['Path']]['text']
    # host-local's store (disk/backend.go): only the last address, owned by "<ContainerId>\r\n<CNI_IFNAME>".
    assert reserved(node, STORE_OF_SOURCE_VIP) == {
        address: 'kubewin-source-vip\r\nsource-vip', 'last_reserved_ip.0': address, 'lock': ''}


def test_source_vip_apply_fails_with_host_locals_error():
    node = fresh_node()
    parameters = dict(PARAMETERS, Subnet='10.244.1.0/31')
    result = invoke(node, _pwsh.load_script('source_vip_apply'), parameters, error_action='stop')
    assert result['failed'] is True
    message = result['error'][0]['exception']['message']
    assert message.startswith('host-local ADD failed (exit code 1): {\n    "code": 999,\n    "msg": "invalid range set 0: '
                              'Network 10.244.1.0/31 too small to allocate from"\n}')


def test_a_dual_stack_configuration_gets_one_address_of_each_family_and_its_routes():
    # sdnbridge's dual-stack configuration as the collection writes it (_ip_plan._dual_stack_ipam): a range set per
    # family, the host endpoints as gateways and default routes, copied into the result (main.go cmdAdd).
    ranges = [[{'subnet': '10.244.10.0/24', 'rangeStart': '10.244.10.3', 'gateway': '10.244.10.2'}],
              [{'subnet': 'fd00:10:244:10::/64', 'rangeStart': 'fd00:10:244:10::3', 'gateway': 'fd00:10:244:10::2'}]]
    routes = [{'dst': '0.0.0.0/0', 'gw': '10.244.10.2'}, {'dst': '::/0', 'gw': 'fd00:10:244:10::2'}]
    node = fresh_node()
    code, out, err = host_local(node, 'ADD', config(version='0.3.0', ranges=ranges, routes=routes))
    assert (code, err) == (0, '')
    assert json.loads(out) == {
        'cniVersion': '0.3.0',
        'ips': [{'version': '4', 'address': '10.244.10.3/24', 'gateway': '10.244.10.2'},
                {'version': '6', 'address': 'fd00:10:244:10::3/64', 'gateway': 'fd00:10:244:10::2'}],
        'routes': routes, 'dns': {}}
    assert sorted(reserved(node)) == ['10.244.10.3', 'fd00:10:244:10::3', 'last_reserved_ip.0', 'last_reserved_ip.1',
                                      'lock']


def test_an_ipv6_range_of_a_127_prefix_is_too_small():
    code, out, _errors = host_local(fresh_node(), 'ADD', config(subnet='fd00::/127'))
    assert (code, json.loads(out)['msg']) == (1, 'invalid range set 0: Network fd00::/127 too small to allocate from')
