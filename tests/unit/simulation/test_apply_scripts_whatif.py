"""No *_apply script changes a node in check mode.

win_powershell runs a script whose [CmdletBinding()] has SupportsShouldProcess in check mode with -WhatIf
(plugins/modules/win_powershell.ps1 of ansible.windows); every *_apply script declares it. Under -WhatIf a compiled
cmdlet that supports ShouldProcess does not act; a CDXML cmdlet does not act only when it sees $WhatIfPreference,
which it reads in the global scope (pwsh/commands.py): there when the module runs script text (dot-sourced), not
when it runs a script file of the node (``path`` with ``remote_src``: a scope of its own). Nothing else knows of
-WhatIf: .NET methods, native programs, cmdlets without ShouldProcess (Register-ScheduledTask) and HNS calls change the
node unless the script asks $PSCmdlet.ShouldProcess first. Each case below is a state in which the script changes the
node when it runs for real (checked first, so the case cannot pass by doing nothing), with parameters taken from the
script's own tests; run in check mode on the same state, both ways, the node's model must stay exactly as it was.
Only the node's clock may move (time passes whatever a script does).
"""

import copy
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import filesystem, win_powershell  # noqa: E402

import test_script_node_reset  # noqa: E402
import test_windows_gmsa  # noqa: E402
import test_windows_hostlocal  # noqa: E402
import test_windows_scm  # noqa: E402


def _plain_node(**profile):
    return SimNode(initial_state('win1', dict({'ip': '10.0.0.11'}, **profile)))


def _hns_node():
    return _plain_node(features={'Containers': 'installed'})


def _l2bridge(node):
    return node.create_network({'name': 'cbr0', 'type': 'L2Bridge', 'address_prefix': '10.244.1.0/24',
                                'gateway': '10.244.1.1', 'adapter': 'Ethernet'})


def defender_apply():
    # Defender running with one exclusion of each kind: one path and one process added, the others removed.
    node = _plain_node()
    node.data['defender'] = {'exclusion_path': ['C:\\etc\\kubernetes'], 'exclusion_process': ['C:\\k\\kubelet.exe']}
    return node, {'AddPaths': ['C:\\var\\lib\\kubelet'], 'AddProcesses': ['C:\\k\\kube-proxy.exe'],
                  'RemovePaths': ['C:\\etc\\kubernetes'], 'RemoveProcesses': ['C:\\k\\kubelet.exe']}


def firewall_rule_apply():
    return _plain_node(), {'Name': 'kubewin-vxlan', 'DisplayName': 'VXLAN', 'Protocol': 'udp', 'LocalPort': ['4789'],
                           'Direction': 'inbound', 'Action': 'allow'}


def gmsa_apply():
    # A node that is not domain-joined: HNS's value and the CCG plugin's registration (take-over of CCG\COMClasses,
    # reg.exe import, wevtutil.exe im), from the plugin's own files.
    return test_windows_gmsa.gmsa_node(), {'CompartmentNamespace': True, 'PluginClsid': test_windows_gmsa.CLSID,
                                           'RegistrationPath': test_windows_gmsa.REG,
                                           'ManifestPath': test_windows_gmsa.MAN}


def hns_endpoint_apply():
    node = _hns_node()
    network = _l2bridge(node)
    return node, {'Name': 'cbr0_ep', 'NetworkId': network['id'], 'IPAddress': '10.244.1.2', 'AttachHost': True}


def hns_network_apply():
    return _hns_node(), {'Name': 'vxlan0', 'Type': 'Overlay', 'AddressPrefix': '10.244.2.0/24',
                         'Gateway': '10.244.2.1', 'AdapterName': 'Ethernet', 'Vsid': 4096}


def node_credentials_apply():
    node = _plain_node()
    path = 'C:\\etc\\kubernetes\\kubelet.conf'
    filesystem.make_directories(node, 'C:\\etc\\kubernetes')
    filesystem.write_file(node, path, b'apiVersion: v1\n')
    return node, {'Paths': [path], 'Credentials': [path]}


def node_repair_apply():
    node = test_script_node_reset.reset_node()
    stale = node.add_policy_list(['10.96.0.99'], [])
    node.data['services']['kube-proxy']['state'] = 'stopped'
    return node, {'PolicyListIds': [stale['id']], 'Start': ['kube-proxy'], 'Restart': ['kubelet']}


def node_reset_apply():
    node = test_script_node_reset.reset_node()
    hns = node.data['hns']
    return node, {'Services': ['kube-proxy', 'kubelet', 'containerd'],
                  'PolicyListIds': [entry['id'] for entry in hns['policy_lists']],
                  'EndpointIds': [entry['id'] for entry in hns['endpoints']],
                  'Paths': ['C:\\k', 'C:\\Program Files\\containerd', test_script_node_reset.DATA_DIR],
                  'Forget': ['C:\\k\\kubelet.conf']}


def node_routes_apply():
    node = _plain_node()
    node.add_route('10.244.1.0/24', '10.0.0.21', 'Ethernet', 256)
    return node, {'Remove': [{'destination': '10.244.1.0/24', 'next_hop': '10.0.0.21', 'interface_index': 4}],
                  'Add': [{'destination': '10.244.4.0/24', 'next_hop': '10.0.0.24', 'interface_alias': 'Ethernet',
                           'metric': 100}]}


def node_service_apply():
    node = test_windows_scm.fresh_node()
    del node.data['services']['kube-proxy']
    del node.data['services']['kubelet']
    return node, dict(test_windows_scm.KUBELET)


def port_ranges_apply():
    # A node whose TCP dynamic range was widened over the NodePorts (windows/netsh.py): their exclusion added.
    return _plain_node(tcpip_ports={'dynamic': {'tcp': [1025, 64511]}}), {'Changes': ['add:tcp:30000:2768']}


def registry_values_apply():
    # Windows Update's policy values (kubewin_patch_managed): the key created with two values, a third removed.
    node = _plain_node(registry={'SOFTWARE\\Policies\\Microsoft\\Windows\\WindowsUpdate\\AU': {
        'ScheduledInstallDay': ['REG_DWORD', 0]}})
    return node, {'Key': 'HKLM:\\SOFTWARE\\Policies\\Microsoft\\Windows\\WindowsUpdate\\AU',
                  'Names': ['NoAutoUpdate', 'AUOptions'], 'Kinds': ['DWord', 'DWord'], 'Data': [0, 2],
                  'Remove': ['ScheduledInstallDay']}


def remote_access_routing_apply():
    return _plain_node(features={'Containers': 'installed', 'RemoteAccess': 'installed', 'Routing': 'installed',
                                 'RSAT-RemoteAccess-PowerShell': 'installed'}), {}


def scheduled_task_apply():
    return _plain_node(), {'Name': 'log-rotation', 'Description': 'rotates logs', 'Execute': 'powershell.exe',
                           'Arguments': '-NoProfile -File "C:\\ProgramData\\kubewin\\log_rotate.ps1"',
                           'IntervalMinutes': 90}


def source_vip_apply():
    return test_windows_hostlocal.fresh_node(), dict(test_windows_hostlocal.PARAMETERS)


CASES = {function.__name__: function for function in (
    defender_apply, firewall_rule_apply, gmsa_apply, hns_endpoint_apply, hns_network_apply, node_credentials_apply, node_repair_apply,
    node_reset_apply, node_routes_apply, node_service_apply, port_ranges_apply, registry_values_apply, remote_access_routing_apply, scheduled_task_apply,
    source_vip_apply)}


def test_every_apply_script_has_a_case():
    scripts = sorted(name[:-len('.ps1')] for name in os.listdir(_pwsh.SCRIPT_DIR) if name.endswith('_apply.ps1'))
    assert sorted(CASES) == scripts


def _model(node):
    data = copy.deepcopy(node.data)
    data.pop('clock_offset', None)
    return json.loads(json.dumps(data, sort_keys=True))


SCRIPT_FILE = 'C:\\ProgramData\\kubewin\\check-mode.ps1'


def _run(name, check_mode, as_file=False):
    """The script on a fresh case, as win_powershell runs it: its text, or (``as_file``) the same text as a script
    file of the node (written before the model is read, so the file is no change of the script's)."""
    node, parameters = CASES[name]()
    script = _pwsh.load_script(name)
    options = {}
    if as_file:
        filesystem.make_directories(node, 'C:\\ProgramData\\kubewin')
        filesystem.write_file(node, SCRIPT_FILE, script.encode('utf-8'))
        script, options = None, {'path': SCRIPT_FILE, 'remote_src': True}
    before = _model(node)
    result = win_powershell.invoke(node, script, parameters, check_mode=check_mode, error_action='stop', **options)
    return before, _model(node), result


@pytest.mark.parametrize('as_file', [False, True], ids=['script', 'remote_path'])
@pytest.mark.parametrize('name', sorted(CASES))
def test_an_apply_script_changes_nothing_in_check_mode(name, as_file, tmp_path, monkeypatch):
    # kube-proxy's model reads its Services from a simulated cluster (node_repair_apply restarts it).
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', str(tmp_path))
    before, after, result = _run(name, False, as_file)
    assert (result['failed'], result['error']) == (False, []), result['error']
    assert after != before, 'the case must be one in which %s changes the node' % name
    before, after, result = _run(name, True, as_file)
    assert after == before
    assert (result['failed'], result['error']) == (False, []), result['error']
