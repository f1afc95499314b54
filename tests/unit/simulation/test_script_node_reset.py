"""node_reset_apply.ps1, whole, run by the engine on the Windows model (the service control manager and sc.exe,
HNS, the file system, host-local's reservation files): its answer and the node after it, asserted."""

import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import WindowsHost, filesystem, hostlocal, registry, run_on_node  # noqa: E402
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402

DATA_DIR = 'C:\\var\\lib\\cni\\networks'
REQUEST = json.dumps({'cniVersion': '0.3.1', 'name': 'cbr0', 'ipam': {
    'type': 'host-local', 'ranges': [[{'subnet': '10.244.1.0/24'}]], 'dataDir': DATA_DIR}})
RESERVE = {'CNI_COMMAND': 'ADD', 'CNI_CONTAINERID': 'c1', 'CNI_NETNS': 'none', 'CNI_IFNAME': 'eth0',
           'CNI_PATH': 'C:\\opt\\cni\\bin'}
PROGRAMS = {'containerd': '"C:\\Program Files\\containerd\\containerd.exe" --run-service',
            'kubelet': 'C:\\k\\kubelet.exe --v=2', 'kube-proxy': 'C:\\k\\kube-proxy.exe --v=2'}
DEPENDS = {'containerd': [], 'kubelet': ['containerd'], 'kube-proxy': ['kubelet']}


def _service(name):
    return {'name': name, 'exists': True, 'display_name': name, 'description': name, 'state': 'running',
            'start_mode': 'auto', 'command_line': PROGRAMS[name], 'dependencies': DEPENDS[name], 'environment': [],
            'account': 'LocalSystem', 'recovery': None, 'exit_code': 0, 'nssm': None}


with open(os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts', 'lib', 'files.ps1'), encoding='utf-8') as _handle:
    FILES = _handle.read()
STORE = DATA_DIR + '\\cbr0'
# host-local's files for the reservation of c1 (disk/backend.go Reserve, lock.go), see test_windows_hostlocal.py.
RESERVATION = {'10.244.1.2': 'c1\r\neth0', 'last_reserved_ip.0': '10.244.1.2', 'lock': ''}


def reset_node():
    """containerd, the kubelet and kube-proxy running (kube-proxy depends on the kubelet, the kubelet on
    containerd), an L2Bridge network with an endpoint a load balancer references, the programs and a kubeconfig,
    the kubeconfig in the registry of managed files, and a host-local reservation in its data folder."""
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'features': {'Containers': 'installed'}}))
    for name in PROGRAMS:
        node.data['services'][name] = _service(name)
    for path in [line.split(' --')[0].strip('"') for line in PROGRAMS.values()] + ['C:\\k\\kubelet.conf']:
        filesystem.make_directories(node, filesystem.parent_of(path))
        filesystem.write_file(node, path, b'binary')
        # processes.py finds a service's program through node.file.
        node.write_file(path, content='binary')
    outcome = run_on_node(node, FILES + "Register-KubeWinFile -Path @('C:\\k\\kubelet.conf')")
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    assert managed(node) == ['C:\\k\\kubelet.conf']
    network = node.create_network({'name': 'cbr0', 'type': 'L2Bridge', 'address_prefix': '10.244.1.0/24',
                                   'gateway': '10.244.1.1', 'adapter': 'Ethernet'})
    endpoint = node.create_endpoint('cbr0_ep', network['id'], '10.244.1.2')
    node.add_policy_list(['10.96.0.1'], [endpoint['id']])
    # host-local's reservation, made by the program model as the CNI runtime would.
    assert hostlocal.host_local(WindowsHost(node), [], REQUEST.encode(), RESERVE).exit_code == 0
    assert reserved(node) == RESERVATION
    return node


def reserved(node):
    """host-local's store of cbr0 as files: {name: text}."""
    return {entry['path'].rsplit('\\', 1)[-1]: filesystem.content_bytes(entry).decode()
            for entry in filesystem.walk(node, STORE) if not entry['dir']}


def managed(node):
    """The paths in the registry of managed files (lib/files.ps1's managed.json)."""
    entry = filesystem.lookup(node, 'C:\\ProgramData\\kubewin\\managed.json')
    return list(json.loads(filesystem.content_bytes(entry).decode('utf-8'))['files'])


def run_reset(node, parameters):
    """The real script's answer, checked against its contract, on the node."""
    result = invoke(node, _pwsh.load_script('node_reset_apply'), parameters, error_action='stop')
    assert (result['failed'], result['error']) == (False, []), result['error']
    return _contracts.check('node_reset_apply', json.loads(result['result']))


def hns_view(node, endpoints=True):
    """What Get-KubeWinNodeState reports of the node's HNS objects (the network, and the endpoint with its
    load balancer unless they were deleted), ids taken from the node's model."""
    hns = node.data['hns']
    network = hns['networks'][0]
    view = {'available': True, 'endpoints': [], 'policy_lists': [], 'networks': [{
        'adapter': 'Ethernet', 'id': network['id'], 'management_ip': '10.0.0.11', 'name': 'cbr0',
        'subnets': [{'address_prefix': '10.244.1.0/24', 'gateway': '10.244.1.1', 'vsid': None}], 'type': 'L2Bridge'}]}
    if endpoints:
        endpoint = hns['endpoints'][0]
        view['endpoints'] = [{'host_attached': False, 'id': endpoint['id'], 'ip_address': '10.244.1.2', 'ipv6_address': None,
                              'is_remote': False, 'mac_address': '00-15-5D-00-00-01', 'name': 'cbr0_ep',
                              'network_id': network['id'], 'network_name': 'cbr0'}]
        view['policy_lists'] = [{'endpoints': [endpoint['id']], 'id': hns['policy_lists'][0]['id'],
                                 'vips': ['10.96.0.1']}]
    return view


# The files section reports the files asked for and every file in the registry of managed files (lib/state.ps1).
KUBECONFIG_STATE = {'C:\\k\\kubelet.conf': {
    'exists': True, 'type': 'file', 'size': 6, 'sha256': hashlib.sha256(b'binary').hexdigest(), 'acl': 'inherited'}}


def gone(*names):
    return {name: {'exists': False, 'name': name} for name in names}


def _ids(node):
    hns = node.data['hns']
    return {'PolicyListIds': [p['id'] for p in hns['policy_lists']], 'EndpointIds': [e['id'] for e in hns['endpoints']]}


def test_node_reset_apply_removes_everything():
    node = reset_node()
    network_id = node.data['hns']['networks'][0]['id']
    paths = ['C:\\k', 'C:\\Program Files\\containerd', DATA_DIR, 'C:\\etc\\kubernetes']
    real = run_reset(node, dict(_ids(node), Services=['kube-proxy', 'kubelet', 'containerd'], Paths=paths,
                                Forget=['C:\\k\\kubelet.conf']))
    # HNS networks are left to hns_network.
    assert real == {'state': {'sections': ['services', 'hns', 'files', 'registry'],
                              'services': gone('kube-proxy', 'kubelet', 'containerd'),
                              'hns': hns_view(node, endpoints=False),
                              'files': {path: {'exists': False} for path in paths}, 'registry': {}}}
    assert [n['id'] for n in node.data['hns']['networks']] == [network_id]
    assert node.data['hns']['endpoints'] == node.data['hns']['policy_lists'] == []
    assert node.data['services'] == {}
    # host-local's reservations went with its data folder.
    assert filesystem.lookup(node, DATA_DIR) is None and filesystem.lookup(node, 'C:\\var\\lib\\cni') is not None
    assert [filesystem.lookup(node, path) for path in paths] == [None] * 4
    assert managed(node) == []


def test_the_deleted_services_leave_the_pre_shutdown_order():
    # Where the kubelet put itself and its runtime for its graceful shutdown (kubewin_sim/kubelet_shutdown.py).
    node = reset_node()
    registry.set_preshutdown_order(node, list(registry.DEFAULT_PRESHUTDOWN_ORDER) + ['kubelet', 'containerd'])
    run_reset(node, {'Services': ['kube-proxy', 'kubelet', 'containerd']})
    assert registry.preshutdown_order(node) == list(registry.DEFAULT_PRESHUTDOWN_ORDER), "Windows' own entries stay"
    run_reset(node, {'Services': ['kubelet']})
    assert registry.preshutdown_order(node) == list(registry.DEFAULT_PRESHUTDOWN_ORDER)


def test_stopping_the_kubelet_stops_kube_proxy_which_stays():
    # Stop-Service -Force stops the services that depend on it too; only the kubelet is deleted.
    node = reset_node()
    real = run_reset(node, {'Services': ['kubelet'], 'Paths': ['C:\\k\\kubelet.exe']})
    assert real == {'state': {'sections': ['services', 'hns', 'files', 'registry'], 'services': gone('kubelet'),
                              'hns': hns_view(node), 'files': dict({'C:\\k\\kubelet.exe': {'exists': False}}, **KUBECONFIG_STATE),
                              'registry': {}}}
    assert {name: s['state'] for name, s in node.data['services'].items()} == {
        'containerd': 'running', 'kube-proxy': 'stopped'}
    assert filesystem.lookup(node, 'C:\\k\\kubelet.exe') is None
    assert filesystem.lookup(node, 'C:\\k\\kube-proxy.exe') is not None
    assert reserved(node) == RESERVATION
    assert managed(node) == ['C:\\k\\kubelet.conf']


def test_what_is_not_there_is_left_alone():
    node = reset_node()
    before = json.loads(json.dumps(node.data))
    real = run_reset(node, {'Services': ['ghost'], 'Paths': ['C:\\nothing'], 'StopTimeoutSeconds': 5})
    assert real == {'state': {'sections': ['services', 'hns', 'files', 'registry'], 'services': gone('ghost'),
                              'hns': hns_view(node), 'files': dict({'C:\\nothing': {'exists': False}}, **KUBECONFIG_STATE),
                              'registry': {}}}
    assert node.data['services'] == before['services'] and node.data['hns'] == before['hns']
    assert {name: s['state'] for name, s in node.data['services'].items()} == dict.fromkeys(PROGRAMS, 'running')
    assert reserved(node) == RESERVATION


def test_a_program_a_running_service_executes_stops_the_reset():
    # DeleteFile of a running program's image is access denied (windows/filesystem.py); Remove-Item's error under
    # Stop ends the script.
    node = reset_node()
    parameters = {'Services': [], 'Paths': ['C:\\Program Files\\containerd']}
    result = invoke(node, _pwsh.load_script('node_reset_apply'), parameters, error_action='stop')
    assert result['failed'] is True
    assert [e['exception']['message'] for e in result['error']] == [
        "Cannot remove item C:\\Program Files\\containerd\\containerd.exe: Access to the path 'containerd.exe' is denied."]
    assert filesystem.lookup(node, 'C:\\Program Files\\containerd\\containerd.exe') is not None
    assert node.data['services']['containerd']['state'] == 'running'


# calico: what the Tigera operator's calico-node-windows pods leave on a node, built here in the Windows model
# directly (the simulated operator's pods are another part of the simulation). The networks External (the vSwitch,
# Overlay with VSID 9999 for VXLAN: projectcalico/calico node/windows-packaging/CalicoWindows/node/node-service.ps1)
# and Calico with its host endpoint Calico_ep and a pod's endpoint (cni-plugin/pkg/dataplane/windows); the CNI config
# with the CNI plugin's kubeconfig, and the binaries (tigera/operator pkg/render/windows.go, libs/calico/calico.psm1); the node state in C:\var\lib\calico
# and C:\var\run\calico (the pods' hostPath volumes); the boot calico-node-windows initialised the node in
# (calico.psm1 Set-StoredLastBootTime: the value LastBootTime of HKLM:\Software\Tigera\Calico).
CALICO_KEY = 'HKLM:\\SOFTWARE\\Tigera\\Calico'
CALICO_FILES = ('C:\\etc\\cni\\net.d\\10-calico.conflist', 'C:\\etc\\cni\\net.d\\calico-kubeconfig',
                'C:\\opt\\cni\\bin\\calico.exe',
                'C:\\opt\\cni\\bin\\calico-ipam.exe', 'C:\\var\\lib\\calico\\nodename', 'C:\\var\\run\\calico\\felix.pid')
CALICO_PATHS = ['C:\\etc\\cni\\net.d\\10-calico.conflist', 'C:\\etc\\cni\\net.d\\calico-kubeconfig',
                'C:\\opt\\cni\\bin\\calico.exe',
                'C:\\opt\\cni\\bin\\calico-ipam.exe', 'C:\\var\\lib\\calico', 'C:\\var\\run\\calico']


def calico_node():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'features': {'Containers': 'installed'}}))
    external = node.create_network({'name': 'External', 'type': 'Overlay', 'address_prefix': '192.168.255.0/30',
                                    'gateway': '192.168.255.1', 'adapter': 'Ethernet', 'vsid': 9999})
    calico = node.create_network({'name': 'Calico', 'type': 'Overlay', 'address_prefix': '10.244.5.0/26',
                                  'gateway': '10.244.5.1', 'adapter': 'Ethernet', 'vsid': 4096})
    node.create_endpoint('Calico_ep', calico['id'], '10.244.5.2')
    node.create_endpoint('c0ffee-eth0', calico['id'], '10.244.5.3')
    for path in CALICO_FILES:
        filesystem.make_directories(node, filesystem.parent_of(path))
        filesystem.write_file(node, path, b'calico')
    # node-service.ps1's rule for VXLAN, made as it makes it.
    outcome = run_on_node(node, "New-NetFirewallRule -Name OverlayTraffic4789UDP -Description 'Overlay network traffic "
                                "UDP' -Action Allow -LocalPort 4789 -Enabled True -DisplayName 'Overlay Traffic 4789 UDP' "
                                "-Protocol UDP | Out-Null")
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    # calico.psm1 ensureRegistryKey: HKLM:\Software\Tigera, then its Calico subkey.
    for key in ('HKLM:\\SOFTWARE\\Tigera', CALICO_KEY):
        registry.create_key(node, registry.parse_path(key))
    assert registry.set_value(node, registry.parse_path(CALICO_KEY), 'LastBootTime', 'REG_SZ', '11/24/2026 06:00:00')
    assert sorted(node.data['registry']) == ['software\\tigera', 'software\\tigera\\calico']
    return node, external, calico


def test_node_reset_apply_removes_what_calico_left():
    node, external, calico = calico_node()
    endpoints = [e['id'] for e in node.data['hns']['endpoints']]
    real = run_reset(node, {'EndpointIds': endpoints, 'Paths': CALICO_PATHS, 'RegistryKeys': [CALICO_KEY]})
    assert real['state']['sections'] == ['services', 'hns', 'files', 'registry']
    assert real['state']['files'] == {path: {'exists': False} for path in CALICO_PATHS}
    assert real['state']['registry'] == {CALICO_KEY: {'exists': False}}
    assert real['state']['hns']['endpoints'] == []
    # The networks are hns_network's: External last, since it holds the vSwitch.
    assert [n['id'] for n in node.data['hns']['networks']] == [external['id'], calico['id']]
    assert [path for path in CALICO_FILES if filesystem.lookup(node, path)] == []
    assert filesystem.lookup(node, 'C:\\opt\\cni\\bin') is not None, 'the other CNI binaries stay'
    assert not registry.key_exists(node, registry.parse_path(CALICO_KEY))
    assert registry.key_exists(node, registry.parse_path('HKLM:\\SOFTWARE\\Tigera')), 'the vendor key stays'


def test_a_registry_key_that_is_not_there_is_left_alone():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    real = run_reset(node, {'RegistryKeys': [CALICO_KEY]})
    assert real['state']['registry'] == {CALICO_KEY: {'exists': False}}
    assert not registry.key_exists(node, registry.parse_path('HKLM:\\SOFTWARE\\Tigera'))


def test_node_info_reports_whether_registry_keys_exist_and_their_values():
    node, _external, _calico = calico_node()
    parameters = {'Sections': ['registry'], 'RegistryKeys': [CALICO_KEY, 'HKLM:\\SOFTWARE\\Nobody\\Here']}
    result = invoke(node, _pwsh.load_script('node_info'), parameters)
    assert (result['failed'], result['error']) == (False, []), result['error']
    state = _contracts.check('node_info', json.loads(result['result']))
    assert state == {'sections': ['registry'],
                     'registry': {CALICO_KEY: {'exists': True, 'values': {
                         'LastBootTime': {'kind': 'String', 'data': '11/24/2026 06:00:00'}}},
                         'HKLM:\\SOFTWARE\\Nobody\\Here': {'exists': False}}}


# The kubelet's volumes: a pod's volume is a directory symbolic link under C:\var\lib\kubelet\pods\<uid>\volumes to
# the folder that holds its data (kubernetes/mount-utils mount_windows.go: mklink /D), here a host folder; a junction
# (mklink /J) as another program may leave one. Windows PowerShell 5.1's Remove-Item -Recurse -Force deletes a
# junction but stops at a symbolic link (PowerShell/PowerShell#621, windows/filesystem.py).
KUBELET = 'C:\\var\\lib\\kubelet'
VOLUME = KUBELET + '\\pods\\6f1c\\volumes\\kubernetes.io~local-volume\\data'
HOST_DATA = 'C:\\data\\app'


def kubelet_node(kind='SymbolicLink'):
    node = reset_node()
    filesystem.make_directories(node, HOST_DATA + '\\logs')
    filesystem.write_file(node, HOST_DATA + '\\logs\\app.log', b'the application data')
    filesystem.make_directories(node, KUBELET + '\\pki')
    filesystem.write_file(node, KUBELET + '\\pki\\kubelet.crt', b'certificate')
    filesystem.make_directories(node, filesystem.parent_of(VOLUME))
    filesystem.write_file(node, KUBELET + '\\pods\\6f1c\\etc-hosts', b'127.0.0.1 localhost')
    filesystem.make_link(node, VOLUME, HOST_DATA, kind)
    return node


def test_the_kubelet_folder_with_a_volume_link_is_removed_without_its_target():
    node = kubelet_node()
    for _run in range(2):
        real = run_reset(node, {'Paths': [KUBELET]})
        assert real['state']['files'][KUBELET] == {'exists': False}
        assert filesystem.lookup(node, KUBELET) is None
        # The link went, its target and what it holds stayed.
        assert filesystem.content_bytes(filesystem.lookup(node, HOST_DATA + '\\logs\\app.log')) == b'the application data'


def test_a_junction_under_the_kubelet_folder_is_removed_without_its_target():
    node = kubelet_node('Junction')
    real = run_reset(node, {'Paths': [KUBELET]})
    assert real['state']['files'][KUBELET] == {'exists': False}
    assert filesystem.content_bytes(filesystem.lookup(node, HOST_DATA + '\\logs\\app.log')) == b'the application data'


def test_a_volume_link_given_itself_is_removed_without_its_target():
    node = kubelet_node()
    real = run_reset(node, {'Paths': [VOLUME]})
    assert real['state']['files'][VOLUME] == {'exists': False}
    assert filesystem.lookup(node, VOLUME) is None and filesystem.lookup(node, KUBELET + '\\pods\\6f1c') is not None
    assert [entry['path'] for entry in filesystem.walk(node, HOST_DATA)] == [HOST_DATA + '\\logs',
                                                                             HOST_DATA + '\\logs\\app.log']
