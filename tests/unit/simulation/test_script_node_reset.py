"""node_reset_apply.ps1, whole, run by the engine on the Windows model (the service control manager and sc.exe,
HNS, the file system, host-local's reservation files), compared with its twin (kubewin_sim/handlers/lifecycle.py
node_reset_apply) on copies of the same node."""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402
from kubewin_sim import handlers  # noqa: E402,F401  pylint: disable=unused-import
from kubewin_sim import registry as script_registry  # noqa: E402
from kubewin_sim.handlers import cni  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import WindowsHost, filesystem, hostlocal  # noqa: E402
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


def reset_node():
    """containerd, the kubelet and kube-proxy running (kube-proxy depends on the kubelet, the kubelet on
    containerd), an L2Bridge network with an endpoint a load balancer references, the programs and a kubeconfig
    in both file stores, and a host-local reservation in each one's store."""
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'features': {'Containers': 'installed'}}))
    for name, command_line in PROGRAMS.items():
        node.data['services'][name] = _service(name)
        program = command_line.split(' --')[0].strip('"')
        node.write_file(program, sha256='0' * 64, size=1)
    for path in [line.split(' --')[0].strip('"') for line in PROGRAMS.values()] + ['C:\\k\\kubelet.conf']:
        filesystem.make_directories(node, filesystem.parent_of(path))
        filesystem.write_file(node, path, b'binary')
    node.write_file('C:\\k\\kubelet.conf', content='binary')
    network = node.create_network({'name': 'cbr0', 'type': 'L2Bridge', 'address_prefix': '10.244.1.0/24',
                                   'gateway': '10.244.1.1', 'adapter': 'Ethernet'})
    endpoint = node.create_endpoint('cbr0_ep', network['id'], '10.244.1.2')
    node.add_policy_list(['10.96.0.1'], [endpoint['id']])
    # host-local's reservation: files of the program model for the real script, host_local state for the twin.
    assert hostlocal.host_local(WindowsHost(node), [], REQUEST.encode(), RESERVE).exit_code == 0
    cni.host_local(node, 'ADD', REQUEST, RESERVE)
    return node


def both(node, parameters):
    """The real script's answer and node, and the twin's, each on its own copy of the node."""
    real_node, twin_node = (SimNode(json.loads(json.dumps(node.data))) for _ in range(2))
    result = invoke(real_node, _pwsh.load_script('node_reset_apply'), parameters, error_action='stop')
    assert (result['failed'], result['error']) == (False, []), result['error']
    real = _contracts.check('node_reset_apply', json.loads(result['result']))
    twin = json.loads(json.dumps(script_registry.run(twin_node, _pwsh.load_script('node_reset_apply'),
                                                     dict(parameters), {})))
    assert real == twin
    assert {name: s['state'] for name, s in real_node.data['services'].items()} == \
        {name: s['state'] for name, s in twin_node.data['services'].items()}
    return real, real_node, twin_node


def _ids(node):
    hns = node.data['hns']
    return {'PolicyListIds': [p['id'] for p in hns['policy_lists']], 'EndpointIds': [e['id'] for e in hns['endpoints']]}


@pytest.mark.parametrize('case', ['everything', 'kubelet_only', 'nothing_there'])
def test_node_reset_apply_runs_whole_and_answers_as_its_twin(case):
    node = reset_node()
    parameters = {
        'everything': dict(_ids(node), Services=['kube-proxy', 'kubelet', 'containerd'],
                           Paths=['C:\\k', 'C:\\Program Files\\containerd', DATA_DIR, 'C:\\etc\\kubernetes'],
                           Forget=['C:\\k\\kubelet.conf']),
        # Stop-Service -Force stops kube-proxy too; it stays, stopped.
        'kubelet_only': {'Services': ['kubelet'], 'Paths': ['C:\\k\\kubelet.exe']},
        'nothing_there': {'Services': ['ghost'], 'Paths': ['C:\\nothing'], 'StopTimeoutSeconds': 5},
    }[case]
    real, real_node, twin_node = both(node, parameters)
    if case == 'everything':
        assert real['state']['hns']['endpoints'] == real['state']['hns']['policy_lists'] == []
        assert filesystem.lookup(real_node, DATA_DIR) is None and twin_node.data['host_local'] == {}
        assert sorted(real_node.data['services']) == []
    if case == 'kubelet_only':
        assert real_node.data['services']['kube-proxy']['state'] == 'stopped'
        assert filesystem.lookup(real_node, 'C:\\k\\kube-proxy.exe') is not None


def test_a_program_a_running_service_executes_stops_the_reset():
    # DeleteFile of a running program's image is access denied (windows/filesystem.py); Remove-Item's error under
    # Stop ends the script. The twin fails too, wording it as a sharing violation.
    node = reset_node()
    parameters = {'Services': [], 'Paths': ['C:\\Program Files\\containerd']}
    result = invoke(SimNode(json.loads(json.dumps(node.data))), _pwsh.load_script('node_reset_apply'), parameters,
                    error_action='stop')
    assert result['failed'] is True
    assert [e['exception']['message'] for e in result['error']] == [
        "Cannot remove item C:\\Program Files\\containerd\\containerd.exe: Access to the path 'containerd.exe' is denied."]
    with pytest.raises(Exception, match='Cannot remove item'):
        script_registry.run(SimNode(json.loads(json.dumps(node.data))), _pwsh.load_script('node_reset_apply'),
                            parameters, {})
