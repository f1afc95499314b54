"""Adoption (issue 12): which layout a node's snapshot shows, and what site.yml takes over, replaces, leaves or
refuses on it. Snapshots in the shape node_info returns, built as the SDN scripts (microsoft/SDN Kubernetes/flannel/
start.ps1, register-svc.ps1, windows/helper.psm1) and sig-windows-tools (hostprocess/PrepareNode.ps1,
Install-Containerd.ps1) leave a node; no playbook."""

import copy

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.filter import adopt
from ansible_collections.kubewin.node.plugins.plugin_utils import _adopt, _converged, _fleet_report, _node_plan

PATHS = _node_plan.node_paths(None)
OVERLAY = {'topology': 'overlay', 'l2bridge_routing': 'flannel', 'network_name': 'vxlan0',
           'placeholder_cidr': '192.168.255.0/30', 'vxlan_vni': 4096}
L2BRIDGE_STATIC = {'topology': 'l2bridge', 'l2bridge_routing': 'static_routes', 'network_name': 'cbr0',
                   'placeholder_cidr': '192.168.255.0/30'}
NODE = {'container_runtime': 'containerd', 'pod_cidr': None, 'management_ip': '10.127.130.38'}
ADAPTERS = [{'name': 'vEthernet (Ethernet)', 'default_route': True, 'physical_adapter': 'Ethernet', 'virtual': True},
            {'name': 'Ethernet', 'default_route': False, 'virtual': False}]


def nssm_service(name, program, flags, nssm_exe='C:\\k\\nssm.exe', state='running'):
    return {'name': name, 'exists': True, 'state': state, 'start_mode': 'auto', 'command_line': nssm_exe,
            'nssm': {'application': program, 'app_parameters': flags, 'app_directory': 'C:\\k'}}


def network(name, kind, prefix, vsid=None, net_id=None):
    return {'id': net_id or name + '-id', 'name': name, 'type': kind, 'adapter': 'Ethernet',
            'subnets': [{'address_prefix': prefix, 'gateway': str(prefix).rsplit('.', 1)[0] + '.1', 'vsid': vsid}]}


def present(*paths):
    return {path: {'exists': True, 'type': 'file', 'size': 10, 'sha256': '0' * 64} for path in paths}


def sdn_snapshot(hostname='WIN1', network_name='vxlan0'):
    """start.ps1 -NetworkMode overlay: register-svc.ps1's three services under C:\\k\\nssm.exe, helper.psm1's External
    placeholder (192.168.255.0/30, VSID 9999), flannel's vxlan0 on the old lease with pods on it, Docker's nat."""
    return {
        'os': {'hostname': hostname},
        'services': {
            'kubelet': nssm_service('kubelet', 'C:\\k\\kubelet.exe', '--hostname-override=win1 --kubeconfig=c:\\k\\config'),
            'kube-proxy': nssm_service('kube-proxy', 'C:\\k\\kube-proxy.exe',
                                       '--v=4 --proxy-mode=kernelspace --hostname-override=win1 --network-name=vxlan0'),
            'flanneld': nssm_service('flanneld', 'C:\\flannel\\flanneld.exe', '--kubeconfig-file=c:\\k\\config'),
            'docker': {'name': 'docker', 'exists': True, 'state': 'running', 'nssm': None,
                       'command_line': 'C:\\Program Files\\docker\\dockerd.exe --run-service'},
            'containerd': {'name': 'containerd', 'exists': False},
        },
        'hns': {'available': True,
                'networks': [network('External', 'Overlay', '192.168.255.0/30', 9999),
                             network(network_name, 'Overlay', '10.244.7.0/24', 4096),
                             network('nat', 'NAT', '172.29.16.0/20')],
                'endpoints': [{'id': 'e%d' % i, 'network_name': network_name} for i in range(3)]},
        'adapters': copy.deepcopy(ADAPTERS),
        'files': present('C:\\k\\kubelet.exe', 'C:\\k\\kube-proxy.exe', 'C:\\k\\nssm.exe', 'C:\\k\\config',
                         'C:\\k\\sourceVip.json', 'C:\\flannel\\flanneld.exe'),
        'contents': {},
        'artifacts': {},
    }


START_KUBELET = ('$FileContent = Get-Content -Path "/var/lib/kubelet/kubeadm-flags.env"\n'
                 '$cmd = "C:\\k\\kubelet.exe  $global:KubeletArgs  --cert-dir=$env:SYSTEMDRIVE\\var\\lib\\kubelet\\pki '
                 '--hostname-override=%s  --enable-debugging-handlers"\nInvoke-Expression $cmd\n')


def prepare_node_snapshot(hostname_override='win1'):
    """Install-Containerd.ps1 then PrepareNode.ps1: containerd registered by containerd.exe --register-service, the
    kubelet under C:\\Program Files\\nssm\\nssm.exe running powershell.exe with StartKubelet.ps1."""
    powershell = 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe'
    return {
        'os': {'hostname': 'WIN1'},
        'services': {
            'kubelet': nssm_service('kubelet', powershell, '-ExecutionPolicy Bypass -NoProfile C:\\k\\StartKubelet.ps1',
                                    nssm_exe='C:\\Program Files\\nssm\\nssm.exe'),
            'containerd': {'name': 'containerd', 'exists': True, 'state': 'running', 'nssm': None,
                           'command_line': '"C:\\Program Files\\containerd\\containerd.exe" --run-service'},
            'kube-proxy': {'name': 'kube-proxy', 'exists': False},
        },
        'hns': {'available': True, 'networks': [], 'endpoints': []},
        'adapters': [dict(ADAPTERS[1], default_route=True)],
        'files': present('C:\\k\\kubelet.exe', 'C:\\k\\kubeadm.exe', 'C:\\k\\StartKubelet.ps1',
                         'C:\\Program Files\\nssm\\nssm.exe', 'C:\\Program Files\\containerd\\containerd.exe'),
        'contents': {'C:\\k\\StartKubelet.ps1': {'exists': True, 'text': START_KUBELET % hostname_override}},
        'artifacts': {},
    }


def plan_of(snapshot, cluster=None, host='win1', node=None, **options):
    # The plan role hands each node its Node name (no kubewin_node_name here: the inventory name lower-cased).
    node = dict(node or NODE, node_name=host.lower())
    return adopt.takeover(snapshot, host, node, cluster or OVERLAY, PATHS, **options)


def by_what(plan):
    return {item['what']: item for item in plan['items']}


def test_sdn_overlay_node_is_taken_over_part_by_part():
    plan = plan_of(sdn_snapshot())
    assert plan['layout'] == 'sdn'
    assert plan['refusals'] == []
    items = by_what(plan)
    assert items['service kubelet']['action'] == 'replace'
    assert "nssm's settings (the service's Parameters key) are removed" in items['service kubelet']['detail']
    assert 'NotReady until the join' in items['service kubelet']['detail']
    assert 'stays under nssm' in items['service flanneld']['detail']
    assert items['service docker']['action'] == 'leave'
    # helper.psm1's placeholder is the one the overlay role wants: taken over as it is.
    assert items['HNS network External']['action'] == 'take over'
    assert items['HNS network vxlan0']['action'] == 'take over'
    assert '3 endpoints' in items['HNS network vxlan0']['detail']
    assert items['HNS network nat']['action'] == 'leave'
    assert items['C:\\k\\kubelet.exe']['action'] == 'replace'
    assert items['C:\\k\\config']['action'] == 'leave' and 'credential' in items['C:\\k\\config']['detail']
    assert items['C:\\k\\sourceVip.json']['action'] == 'take over'
    assert items['C:\\flannel\\flanneld.exe']['action'] == 'leave'
    assert plan['lines'][0].startswith('layout: Microsoft SDN start.ps1')
    assert 'replace: service kubelet - ' in '\n'.join(plan['lines'])


def test_a_placeholder_of_other_settings_is_replaced_and_the_drop_announced():
    snapshot = sdn_snapshot()
    snapshot['hns']['networks'][0] = network('External', 'Overlay', '192.168.254.0/30', 9999)
    item = by_what(plan_of(snapshot))['HNS network External']
    assert item['action'] == 'replace'
    assert item['detail'].startswith('differs from the plan in address_prefix, gateway;')
    # vxlan0 stays on the vSwitch, so re-creating the placeholder does not drop the node's network.
    assert 'drops' not in item['detail']


def test_the_pod_network_on_the_planned_podcidr_is_kept():
    item = by_what(plan_of(sdn_snapshot(), node=dict(NODE, pod_cidr='10.244.7.0/24')))['HNS network vxlan0']
    assert item['action'] == 'take over' and 'kept' in item['detail']


def test_a_pod_network_of_another_name_is_refused_with_the_way_out():
    plan = plan_of(sdn_snapshot(), cluster=dict(OVERLAY, network_name='flannel.4096'))
    assert len(plan['refusals']) == 1
    assert plan['refusals'][0].startswith('win1: HNS network vxlan0 (Overlay 10.244.7.0/24, 3 endpoints) is a pod '
                                          "network of another name than the plan's (flannel.4096)")
    assert 'Set kubewin_network_name: vxlan0' in plan['refusals'][0]
    assert plan['message'] == plan['refusals'][0]


def test_a_pod_network_of_another_type_is_refused():
    snapshot = sdn_snapshot(network_name='cbr0')
    snapshot['hns']['networks'][1] = network('cbr0', 'L2Bridge', '10.244.7.0/24')
    plan = plan_of(snapshot, cluster=dict(OVERLAY, network_name='cbr0'))
    assert [r for r in plan['refusals'] if 'HNS network cbr0 is L2Bridge' in r and 'of type Overlay' in r]


def test_a_kubelet_registered_under_another_node_name_is_refused():
    snapshot = sdn_snapshot()
    snapshot['services']['kubelet']['nssm']['app_parameters'] = '--hostname-override=old-win-7 --v=6'
    plan = plan_of(snapshot)
    assert plan['refusals'][0].startswith("win1: the kubelet set up by Microsoft SDN start.ps1 (C:\\k, services "
                                          "under nssm) registers this node as Node 'old-win-7', and site.yml "
                                          "registers it as 'win1'")


def test_without_a_hostname_override_the_kubelet_is_the_computer_name():
    snapshot = sdn_snapshot(hostname='WIN-OTHER')
    snapshot['services']['kubelet']['nssm']['app_parameters'] = '--kubeconfig=c:\\k\\config'
    assert _adopt.node_name_of_kubelet(snapshot, PATHS) == 'win-other'
    assert plan_of(snapshot)['refusals']
    assert plan_of(snapshot, host='WIN-OTHER')['refusals'] == []


def test_flanneld_running_where_the_plan_has_no_flannel_is_refused():
    snapshot = sdn_snapshot(network_name='cbr0')
    snapshot['hns']['networks'] = [network('cbr0', 'L2Bridge', '10.244.7.0/24')]
    plan = plan_of(snapshot, cluster=L2BRIDGE_STATIC)
    assert any(r.startswith('win1: service flanneld runs C:\\flannel\\flanneld.exe') and 'routing static_routes' in r
               and 'sc.exe delete flanneld' in r for r in plan['refusals'])
    snapshot['services']['flanneld']['state'] = 'stopped'
    plan = plan_of(snapshot, cluster=L2BRIDGE_STATIC)
    assert plan['refusals'] == []
    assert by_what(plan)['service flanneld']['action'] == 'leave'
    assert by_what(plan)['C:\\k\\sourceVip.json']['action'] == 'leave'


def test_prepare_node_is_refused_until_the_hostprocess_daemonsets_are_gone():
    plan = plan_of(prepare_node_snapshot())
    assert plan['layout'] == 'sig_windows_tools'
    assert any('HostProcess DaemonSets' in r and 'prerequisites_adopt_hostprocess_removed: true' in r
               for r in plan['refusals'])
    plan = plan_of(prepare_node_snapshot(), hostprocess_removed=True)
    assert plan['refusals'] == []
    items = by_what(plan)
    assert items['service kubelet']['action'] == 'replace'
    assert 'StartKubelet.ps1' in items['service kubelet']['detail']
    assert items['service containerd']['action'] == 'replace'
    assert items['C:\\Program Files\\containerd']['action'] == 'replace'
    assert items['C:\\k\\StartKubelet.ps1']['action'] == 'leave'
    assert items['C:\\Program Files\\nssm\\nssm.exe']['action'] == 'leave'


def test_prepare_node_kubelet_name_comes_from_start_kubelet():
    snapshot = prepare_node_snapshot(hostname_override='node-a')
    assert _adopt.node_name_of_kubelet(snapshot, PATHS) == 'node-a'
    assert any("as Node 'node-a'" in r for r in plan_of(snapshot, hostprocess_removed=True)['refusals'])


def test_a_node_set_up_by_hand():
    kubelet = {'name': 'kubelet', 'exists': True, 'state': 'stopped', 'nssm': None,
               'command_line': 'D:\\bin\\kubelet.exe --hostname-override=win1'}
    snapshot = {'os': {'hostname': 'WIN1'}, 'services': {'kubelet': kubelet}, 'hns': {'networks': [], 'endpoints': []},
                'adapters': ADAPTERS, 'files': {}, 'artifacts': {}}
    plan = plan_of(snapshot)
    assert plan['layout'] == 'by_hand' and plan['evidence'] == ['service kubelet exists']
    assert by_what(plan)['service kubelet']['detail'].startswith('runs D:\\bin\\kubelet.exe --hostname-override=win1; '
                                                                 'is registered again')


@pytest.mark.parametrize('snapshot, layout', [
    ({'services': {'kubelet': {'exists': False}}, 'hns': {'networks': []}, 'files': {}}, 'none'),
    ({'services': {}, 'artifacts': {'C:\\k\\kubelet.exe': {'version': '1.31.14'}}}, 'kubewin'),
    ({'services': {}, 'contents': {_converged.RECORD_PATH: {'exists': True, 'text': '{}'}}}, 'kubewin'),
])
def test_nothing_to_take_over(snapshot, layout):
    plan = plan_of(snapshot)
    assert (plan['layout'], plan['items'], plan['refusals']) == (layout, [], [])
    assert plan['lines'][0].endswith('nothing to take over')


def test_containerd_installed_ahead_alone_is_no_layout_to_take_over():
    snapshot = prepare_node_snapshot()
    del snapshot['services']['kubelet']
    snapshot['files'] = present('C:\\Program Files\\containerd\\containerd.exe')
    assert plan_of(snapshot)['layout'] == 'none'


def test_the_collections_own_node_is_not_adopted_even_with_sdn_leftovers():
    snapshot = sdn_snapshot()
    snapshot['artifacts'] = {'C:\\k\\kubelet.exe': {'version': '1.31.14'}}
    assert plan_of(snapshot)['layout'] == 'kubewin'


def test_adoption_reads_and_bad_input():
    reads = adopt.adoption_reads(PATHS)
    assert 'C:\\k\\config' in reads['files'] and 'C:\\Program Files\\nssm\\nssm.exe' in reads['files']
    assert reads['contents'] == ['C:\\k\\StartKubelet.ps1']
    with pytest.raises(AnsibleFilterError, match='needs plan_paths'):
        adopt.adoption_reads(None)
    with pytest.raises(AnsibleFilterError, match='node state snapshot'):
        adopt.takeover(None, 'win1', NODE, OVERLAY, PATHS)
    with pytest.raises(AnsibleFilterError, match='plan_cluster'):
        adopt.takeover({}, 'win1', NODE, None, PATHS)


def test_the_fleet_report_says_what_was_taken_over_and_refused():
    refused = plan_of(sdn_snapshot(), cluster=dict(OVERLAY, network_name='flannel.4096'), host='win2')
    taken = plan_of(sdn_snapshot())
    rows = [_fleet_report.node_row('win1', {'prerequisites_takeover': taken}),
            _fleet_report.node_row('win2', {'prerequisites_takeover': refused}, status=_fleet_report.FAILED),
            _fleet_report.node_row('win3', {'prerequisites_takeover': plan_of({'services': {}})})]
    assert rows[2]['takeover'] is None
    assert rows[0]['takeover']['layout'] == 'sdn'
    text = _fleet_report.text(_fleet_report.report('site', rows))
    assert ('win1 was set up by Microsoft SDN start.ps1 (C:\\k, services under nssm): take over HNS network External, '
            'HNS network vxlan0, C:\\k\\sourceVip.json; replace service flanneld, service kube-proxy, service kubelet, '
            'C:\\k\\kubelet.exe, C:\\k\\kube-proxy.exe, C:\\k\\nssm.exe; leave service docker, HNS network nat, '
            'C:\\k\\config, C:\\flannel\\flanneld.exe\n') in text
    assert '\nrefused: win2: HNS network vxlan0 (Overlay 10.244.7.0/24, 3 endpoints)' in text
    assert 'win3 was set up' not in text


def test_service_settings_register_an_nssm_service_again_as_it_was():
    # The kubelet start.ps1 registered (register-svc.ps1): nssm's Application and AppParameters, no output file.
    service = dict(nssm_service('kubelet', 'C:\\k\\kubelet.exe', '--hostname-override=win1 "--v=6" --root-dir="C:\\x y"'),
                   display_name='kubelet', dependencies=['docker'], environment=['A=1=2'])
    assert adopt.service_settings(service) == {
        'path': 'C:\\k\\kubelet.exe', 'args': ['--hostname-override=win1', '--v=6', '--root-dir=C:\\x y'],
        'display_name': 'kubelet', 'description': '', 'start_mode': 'auto', 'dependencies': ['docker'],
        'env': {'A': '1=2'}, 'recovery': {'restart_delays': [], 'reset_period': 0}, 'wrapper': 'nssm',
        'nssm_path': 'C:\\k\\nssm.exe', 'log_file': None, 'log_rotate_bytes': None}


def test_service_settings_of_a_native_service_and_bad_input():
    service = {'name': 'kubelet', 'exists': True, 'state': 'running', 'start_mode': 'delayed', 'nssm': None,
               'command_line': '"C:\\Program Files\\k\\kubelet.exe" --v=2',
               'recovery': {'reset_period_seconds': 86400, 'actions': [{'type': 'restart', 'delay_ms': 10000}]}}
    settings = adopt.service_settings(service)
    assert (settings['path'], settings['args'], settings['wrapper'], settings['nssm_path']) == (
        'C:\\Program Files\\k\\kubelet.exe', ['--v=2'], 'native', None)
    assert settings['recovery'] == {'restart_delays': [10], 'reset_period': 86400}
    with pytest.raises(AnsibleFilterError, match='needs an existing service'):
        adopt.service_settings({'name': 'kubelet', 'exists': False})
