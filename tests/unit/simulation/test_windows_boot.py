"""A restart of Windows (kubewin_sim/windows/boot.py): which HNS objects persist, the routes, and the services that start
again doing what their programs do at start. Each case names its source (boot.py's docstring has them all)."""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from kubewin_sim import programs  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import hcn  # noqa: E402
from kubewin_sim.windows import hns as hns_model  # noqa: E402
from kubewin_sim.windows import run_on_node  # noqa: E402

with open(os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts', 'lib', 'hns.ps1'), encoding='utf-8') as _handle:
    HNS = _handle.read()


def hns_node(**profile):
    node = SimNode(initial_state('win1', dict({'ip': '10.0.0.11'}, **profile)))
    node.data['features']['Containers'] = 'installed'
    return node


def post_network(node, body):
    answer = json.loads(hns_model.request(node, 'POST', '/networks/', json.dumps(body)))
    assert answer['Success'], answer
    return answer['Output']['ID'].lower()


def names(node):
    return sorted(n['name'] for n in node.data['hns']['networks'])


def test_a_network_lib_hns_creates_survives_a_restart_with_its_vswitch():
    # lib/hns.ps1 sets no flag: HCN networks persist unless EnableNonPersistent (hcsshim hcn NetworkFlags;
    # Azure/azure-container-networking#4355).
    node = hns_node()
    outcome = run_on_node(node, HNS + '''
New-KubeWinHnsNetwork -Spec ([ordered]@{ name = 'External'; type = 'Overlay'; address_prefix = '192.168.255.0/30'
    gateway = '192.168.255.1'; adapter = 'Ethernet'; vsid = 9999 }) | Out-Null
''')
    assert (outcome.exit_code, outcome.errors) == (0, [])
    node.reboot()
    assert names(node) == ['External']
    assert node.adapter('vEthernet (Ethernet)')['ipv4'][0]['address'] == '10.0.0.11'


def test_a_non_persistent_network_goes_with_its_endpoints_and_the_vswitch_it_alone_held():
    # flanneld's vxlan backend: Flags EnableNonPersistent (flannel pkg/backend/vxlan/device_windows.go), an HCN v2
    # field, through HcnCreateNetwork.
    node = hns_node()
    network_id = hcn.create_network(node, json.dumps({
        'Name': 'flannel.4096', 'Type': 'Overlay', 'Flags': 8, 'SchemaVersion': {'Major': 2, 'Minor': 0},
        'Policies': [{'Type': 'NetAdapterName', 'Settings': {'NetworkAdapterName': 'Ethernet'}}],
        'Ipams': [{'Type': 'Static', 'Subnets': [{'IpAddressPrefix': '10.244.2.0/24', 'Routes': [
            {'NextHop': '10.244.2.1', 'DestinationPrefix': '0.0.0.0/0'}]}]}]}))['ID'].lower()
    node.create_endpoint('pod', network_id, '10.244.2.5')
    node.add_policy_list(['10.96.0.1'], [])
    node.reboot()
    assert node.data['hns'] == {'networks': [], 'endpoints': [], 'policy_lists': []}
    assert node.adapter('vEthernet (Ethernet)') is None
    assert node.adapter('Ethernet')['ipv4'][0]['address'] == '10.0.0.11'
    assert 'boot: HNS network flannel.4096 (Overlay) did not persist' in node.data['log']


def test_endpoints_of_a_network_that_stays_are_kept_and_policy_lists_are_not():
    node = hns_node()
    network_id = post_network(node, {'Name': 'cbr0', 'Type': 'L2Bridge', 'NetworkAdapterName': 'Ethernet',
                                     'Subnets': [{'AddressPrefix': '10.244.3.0/24', 'GatewayAddress': '10.244.3.1'}]})
    endpoint = node.create_endpoint('cbr0_ep', network_id, '10.244.3.2')
    node.attach_host_endpoint(endpoint['id'])
    node.add_policy_list(['10.96.0.10'], [endpoint['id']])
    node.reboot()
    assert [e['name'] for e in node.data['hns']['endpoints']] == ['cbr0_ep']
    assert node.adapter('vEthernet (cbr0_ep)') is not None
    assert node.data['hns']['policy_lists'] == []


def test_windows_server_2019_before_kb4482887_keeps_no_external_network():
    # ovn-kubernetes/ovn-kubernetes#429: without KB4482887 (17763.348) external HNS networks do not persist.
    for ubr, kept in ((347, []), (348, ['cbr0'])):
        node = hns_node(build=17763, ubr=ubr)
        post_network(node, {'Name': 'cbr0', 'Type': 'L2Bridge', 'NetworkAdapterName': 'Ethernet',
                            'Subnets': [{'AddressPrefix': '10.244.3.0/24', 'GatewayAddress': '10.244.3.1'}]})
        node.reboot()
        assert names(node) == kept, ubr


def _service(command_line, start_mode='auto', dependencies=(), environment=()):
    return {'command_line': command_line, 'start_mode': start_mode, 'dependencies': list(dependencies),
            'environment': list(environment), 'state': 'running', 'exit_code': 0}


def _node_with_services():
    node = hns_node()
    for program in ('C:\\k\\kubelet.exe', 'C:\\k\\kube-proxy.exe', 'C:\\k\\tool.exe'):
        node.write_file(program, sha256='0' * 64, size=1)
    node.data['services'] = {
        'kube-proxy': _service('C:\\k\\kube-proxy.exe --network-name=vxlan0', dependencies=['kubelet']),
        'kubelet': _service('C:\\k\\kubelet.exe --v=2'),
        'tool': _service('C:\\k\\tool.exe', start_mode='demand'),
    }
    return node


def test_automatic_services_start_again_after_their_dependencies_and_others_stay_stopped():
    node = _node_with_services()
    node.reboot()
    services = node.data['services']
    assert {name: s['state'] for name, s in services.items()} == {
        'kube-proxy': 'running', 'kubelet': 'running', 'tool': 'stopped'}
    assert services['kubelet']['starts'] == services['kube-proxy']['starts'] == 1


def test_kube_proxy_waits_for_its_network_and_goes_on_when_it_appears():
    # pkg/proxy/winkernel getNetworkInfo: "Unable to find HNS Network specified", looked for again every second.
    node = _node_with_services()
    node.reboot()
    assert node.data['services']['kube-proxy']['waiting_for_network'] == 'vxlan0'
    assert any('Unable to find HNS Network specified' in line for line in node.data['log'])
    node.create_network({'name': 'vxlan0', 'type': 'Overlay', 'address_prefix': '10.244.2.0/24',
                         'gateway': '10.244.2.1', 'adapter': 'Ethernet', 'vsid': 4096})
    assert 'waiting_for_network' not in node.data['services']['kube-proxy']


def test_the_network_name_comes_from_kube_network_without_the_flag():
    service = _service('C:\\k\\kube-proxy.exe', environment=['KUBE_NETWORK=cbr0'])
    assert programs._network_name(service) == 'cbr0'  # pylint: disable=protected-access
