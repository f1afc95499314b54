"""node_info.ps1, whole, run by the engine on the Windows model: every section answers what Windows answers for a
fresh node (kubewin_sim/node.py initial_state), and the answer holds its contract (plugins/plugin_utils/_contracts.py).
The ovs section on nodes with Open vSwitch installed is in test_windows_ovs.py."""

import datetime
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402  pylint: disable=wrong-import-position

SECTIONS = ['os', 'features', 'adapters', 'routes', 'hns', 'services', 'files', 'artifacts', 'firewall', 'environment',
            'contents', 'ovs', 'defender']

# A fresh Windows Server 2022 node with one static address (initial_state): its one adapter, the Containers feature
# not yet installed (so no HNS), no collection services, no Open vSwitch.
FRESH_NODE = {
    'sections': SECTIONS,
    'reboot_pending': False,
    'os': {'build': 20348, 'display_version': '21H2', 'edition': 'ServerDatacenter', 'hostname': 'WIN1',
           'installation_type': 'Server', 'product_name': 'Windows Server 2022 Datacenter',
           'system_drive_free_bytes': 107374182400, 'ubr': 2582, 'version': '10.0.20348',
           # The profile's 16 GiB of memory and 4 GiB of page file, in kilobytes (Win32_OperatingSystem).
           'memory_kb': 16777216, 'page_files_kb': 4194304, 'commit_limit_kb': 20971520,
           # No Group Policy, nothing set: a server's default, RemoteSigned, is in force (Get-ExecutionPolicy -List).
           'execution_policies': {'MachinePolicy': 'Undefined', 'UserPolicy': 'Undefined', 'Process': 'Undefined',
                                  'CurrentUser': 'Undefined', 'LocalMachine': 'Undefined'}},
    'features': {'Containers': 'available'},
    'adapters': [{'name': 'Ethernet', 'description': 'Microsoft Hyper-V Network Adapter', 'if_index': 4,
                  'mac_address': '00-15-5D-00-00-0B', 'status': 'Up', 'dhcp': False, 'default_route': True,
                  'ipv4': [{'address': '10.0.0.11', 'origin': 'Manual', 'prefix_length': 24}],
                  'gateway': '10.0.0.1', 'dns_servers': ['10.0.0.1'], 'physical_adapter': None, 'virtual': False,
                  'ipv6': []}],
    'routes': [],
    'hns': {'available': False, 'networks': [], 'endpoints': [], 'policy_lists': []},
    'services': {
        'kubelet': {'exists': False, 'name': 'kubelet'},
        # WinRM exists on every Windows Server (the service Ansible reaches the node through).
        'WinRM': {'exists': True, 'name': 'WinRM', 'display_name': 'Windows Remote Management (WS-Management)',
                  'description': None, 'state': 'running', 'start_mode': 'auto',
                  'command_line': 'C:\\Windows\\System32\\svchost.exe -k NetworkService -p',
                  'account': 'NT AUTHORITY\\NetworkService', 'dependencies': [], 'environment': [], 'exit_code': 0,
                  'recovery': None, 'nssm': None, 'preshutdown_timeout_ms': None, 'preshutdown_ordered': False}},
    'files': {},
    'artifacts': {},
    'firewall': {},
    'environment': {'NO_PROXY': None},
    'contents': {},
    'ovs': {'products': [], 'vsctl': None, 'database': None, 'database_error': None, 'switches': []},
    # Defender Antivirus is installed and functional on Windows Server by default, with no exclusions.
    'defender': {'installed': True, 'running': True, 'exclusion_path': [], 'exclusion_process': []},
}


def test_node_info_runs_whole_and_answers_for_a_fresh_node():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    parameters = {'Sections': SECTIONS, 'Features': ['Containers'], 'Services': ['kubelet', 'WinRM'],
                  'Environment': ['NO_PROXY']}
    result = invoke(node, _pwsh.load_script('node_info'), parameters, error_action='stop')
    assert (result['failed'], result['error']) == (False, [])
    real = _contracts.check('node_info', json.loads(result['result']))
    # The boot instant the node holds (seconds since the epoch), in .NET's round-trip format ('o': seven digits of
    # fraction, the model's last one 0 as Python keeps microseconds).
    assert datetime.datetime.fromisoformat(real['os'].pop('last_boot').replace('0Z', '+00:00')) == \
        datetime.datetime.fromtimestamp(node.data['os']['last_boot'], datetime.timezone.utc)
    # The node's clock (Get-Date), in the same format: the test machine's, as the model has it (windows/system.py).
    assert abs(datetime.datetime.fromisoformat(real['os'].pop('now').replace('0Z', '+00:00')).timestamp()
               - time.time()) < 60
    assert real == FRESH_NODE


CREDENTIALS = ['C:\\etc\\kubernetes\\*.conf', 'C:\\var\\lib\\kubelet\\pki\\*.pem', 'C:\\var\\lib\\kubelet\\pki\\*.key',
               'C:\\etc\\kube-flannel\\kubeconfig']


def test_the_credentials_section_reports_every_matching_file_with_its_acl_profile():
    # As kubeadm and the kubelet leave a node (windows/kubeadm.py, scm.py): their files inherit C:\'s ACL. The
    # collection's kube-proxy.conf is secret; the cluster CA and the kubelet's serving certificate match no pattern.
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    for path in ('C:\\etc\\kubernetes\\kubelet.conf', 'C:\\etc\\kubernetes\\pki\\ca.crt',
                 'C:\\var\\lib\\kubelet\\pki\\kubelet-client-2026-11-24-05-50-15.pem',
                 'C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem', 'C:\\var\\lib\\kubelet\\pki\\kubelet.crt',
                 'C:\\var\\lib\\kubelet\\pki\\kubelet.key'):
        node.write_file(path, content='x')
    node.write_file('C:\\etc\\kubernetes\\kube-proxy.conf', content='x', acl='secret')
    result = invoke(node, _pwsh.load_script('node_info'), {'Sections': ['credentials'], 'Credentials': CREDENTIALS},
                    error_action='stop')
    assert (result['failed'], result['error']) == (False, [])
    state = _contracts.check('node_info', json.loads(result['result']))
    assert state == {'sections': ['credentials'], 'credentials': {
        'C:\\etc\\kubernetes\\*.conf': {'C:\\etc\\kubernetes\\kube-proxy.conf': 'secret',
                                        'C:\\etc\\kubernetes\\kubelet.conf': 'inherited'},
        'C:\\var\\lib\\kubelet\\pki\\*.pem': {
            'C:\\var\\lib\\kubelet\\pki\\kubelet-client-2026-11-24-05-50-15.pem': 'inherited',
            'C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem': 'inherited'},
        'C:\\var\\lib\\kubelet\\pki\\*.key': {'C:\\var\\lib\\kubelet\\pki\\kubelet.key': 'inherited'},
        # A folder that does not exist: nothing, and no error.
        'C:\\etc\\kube-flannel\\kubeconfig': {}}}
