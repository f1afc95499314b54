"""The doctor's checks (plugin_utils/_doctor.py), one by one, on snapshots shaped as node_info returns them."""

import copy
import datetime
import json

import pytest

from ansible_collections.kubewin.node.plugins.filter.doctor import doctor_findings
from ansible_collections.kubewin.node.plugins.plugin_utils import _doctor, _host_settings

PLAN_CLUSTER = {'topology': 'overlay', 'network_name': 'flannel.4096', 'l2bridge_routing': None}
CNI = {'cniVersion': '0.3.0', 'name': 'flannel.4096', 'type': 'flannel', 'delegate': {'type': 'win-overlay', 'Policies': [
    {'Name': 'EndpointPolicy', 'Value': {'Type': 'OutBoundNAT', 'ExceptionList': ['10.244.0.0/16', '10.96.0.0/12']}}]}}
PLAN_NODE = {'container_runtime': 'containerd', 'pod_cidr': None, 'cni_config_text': json.dumps(CNI, indent=2) + '\n'}
PLAN_PATHS = {'cni_config_file': 'C:\\etc\\cni\\net.d\\10-kubewin.conf'}
NOW = datetime.datetime(2026, 3, 4, 12, 0, 0, tzinfo=datetime.timezone.utc)
EP_LOCAL = 'aaaaaaaa-0000-0000-0000-000000000001'
# The labels the kubelet gives a Windows Node (the build of the snapshot's os section).
LABELS = {'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348'}


def service(name, state='running', command_line=None):
    return {'name': name, 'exists': True, 'state': state, 'exit_code': 0,
            'command_line': command_line or 'C:\\k\\%s.exe' % name, 'nssm': None}


def snapshot():
    return {
        'collected_at': {'os': 1000.0},
        'os': {'hostname': 'WIN1', 'build': 20348, 'system_drive_free_bytes': 50 * 1024 ** 3,
               'now': NOW.isoformat().replace('+00:00', 'Z')},
        'reboot_pending': False,
        'hns': {'available': True,
                'networks': [{'id': 'n1', 'name': 'flannel.4096', 'type': 'Overlay',
                              'subnets': [{'address_prefix': '10.244.1.0/24'}]},
                             # The placeholder network_overlay makes to hold the vSwitch (its default name).
                             {'id': 'n0', 'name': 'External', 'type': 'Overlay',
                              'subnets': [{'address_prefix': '192.168.255.0/30'}]}],
                'endpoints': [{'id': EP_LOCAL, 'ip_address': '10.244.1.5'}],
                'policy_lists': [{'id': 'p1', 'vips': ['10.96.0.1'], 'endpoints': []},
                                 {'id': 'p2', 'vips': ['10.96.0.10'], 'endpoints': [EP_LOCAL]}]},
        'services': {'containerd': service('containerd'), 'kubelet': service('kubelet'), 'flanneld': service('flanneld'),
                     'kube-proxy': service('kube-proxy', command_line='C:\\k\\kube-proxy.exe --source-vip=10.244.1.2')},
        'contents': {PLAN_PATHS['cni_config_file']: {'exists': True, 'text': PLAN_NODE['cni_config_text']}},
        'credentials': {'C:\\etc\\kubernetes\\*.conf': {'C:\\etc\\kubernetes\\kubelet.conf': 'secret'}},
    }


def cluster():
    return {'services': [{'metadata': {'namespace': 'default', 'name': 'kubernetes'}, 'spec': {'clusterIP': '10.96.0.1'}},
                         {'metadata': {'namespace': 'kube-system', 'name': 'kube-dns'}, 'spec': {'clusterIP': '10.96.0.10'}}],
            'endpoint_slices': [
                {'metadata': {'namespace': 'default', 'labels': {'kubernetes.io/service-name': 'kubernetes'}},
                 'endpoints': [{'addresses': ['10.127.130.10'], 'conditions': {'ready': True}}]},
                {'metadata': {'namespace': 'kube-system', 'labels': {'kubernetes.io/service-name': 'kube-dns'}},
                 'endpoints': [{'addresses': ['10.244.1.5'], 'conditions': {'ready': True}}]}],
            'nodes': [{'metadata': {'name': 'win1', 'labels': LABELS}, 'spec': {'podCIDR': '10.244.1.0/24'},
                       'status': {'conditions': [{'type': 'Ready', 'status': 'True'}]}}]}


CONTROL_PLANE = {'now': NOW.timestamp() + 5, 'read_at': 1005.0}


def diagnose(snap=None, clu=None, logs=None, control_plane=None, plan_cluster=None, node_vars=None):
    return _doctor.diagnose('win1', snap or snapshot(), PLAN_NODE, plan_cluster or PLAN_CLUSTER, PLAN_PATHS,
                            cluster() if clu is None else clu, logs, CONTROL_PLANE if control_plane is None else control_plane,
                            node_vars=node_vars)


def ids(findings):
    return sorted(f['id'] for f in findings)


def test_a_healthy_node_has_no_findings():
    assert diagnose() == []


def test_a_missing_network_and_a_subnet_other_than_the_nodes():
    snap = snapshot()
    snap['hns']['networks'][0]['subnets'][0]['address_prefix'] = '10.244.7.0/24'
    found = diagnose(snap)
    assert ids(found) == ['hns-network-subnet']
    assert '10.244.7.0/24' in found[0]['what'] and '10.244.1.0/24' in found[0]['what']
    snap['hns']['networks'] = []
    assert [f['what'] for f in diagnose(snap)] == ['HNS network External does not exist',
                                                   'HNS network flannel.4096 does not exist']


def test_the_placeholder_network_is_named_by_the_nodes_variables_or_the_roles_default():
    snap = snapshot()
    snap['hns']['networks'][1]['name'] = 'vSwitch'
    assert [f['what'] for f in diagnose(snap)] == ['HNS network External does not exist']
    assert diagnose(snap, node_vars={'network_overlay_placeholder_name': 'vSwitch'}) == []
    l2bridge = {'topology': 'l2bridge', 'network_name': 'flannel.4096', 'l2bridge_routing': 'flannel'}
    assert diagnose(snap, plan_cluster=l2bridge, node_vars={'network_l2bridge_placeholder_name': 'vSwitch'}) == []


def test_an_ovn_node_needs_its_network_open_vswitch_and_ovn_controller_and_no_kube_proxy():
    ovn = {'topology': 'ovn', 'network_name': None, 'l2bridge_routing': None}
    snap = snapshot()
    snap['hns']['networks'] = [{'id': 'n0', 'name': 'external', 'type': 'Transparent', 'subnets': []}]
    snap['hns']['policy_lists'] = []
    del snap['services']['flanneld'], snap['services']['kube-proxy']
    for name in _doctor.OVN_SERVICES:
        snap['services'][name] = service(name)
    snap['ovs'] = {'database': {'bridges': {'br-ex': {'ports': {}}}, 'external_ids': {}}, 'database_error': None}
    assert diagnose(snap, plan_cluster=ovn) == []
    snap['services']['ovn-controller']['state'] = 'stopped'
    snap['ovs']['database']['bridges'] = {}
    found = diagnose(snap, plan_cluster=ovn)
    assert [(f['id'], f['what']) for f in found] == [
        ('service-stopped', 'service ovn-controller is stopped (exit code 0)'),
        ('ovs-bridge-missing', 'the Open vSwitch bridge br-ex does not exist')]
    assert _doctor.repair_plan(found)['start_services'] == ['ovn-controller']
    assert ids(diagnose(snap, plan_cluster=ovn, node_vars={'network_ovn_bridge': 'br-int'})) == [
        'ovs-bridge-missing', 'service-stopped']
    snap['ovs'] = {'database': None, 'database_error': 'ovsdb-server is not running'}
    snap['hns']['networks'] = []
    found = diagnose(snap, plan_cluster=ovn)
    assert [f['what'] for f in found if f['id'] != 'service-stopped'] == [
        'HNS network external does not exist', 'the Open vSwitch database cannot be read: ovsdb-server is not running']
    # calico: calico-node-windows makes External, which every calico node has (test_doctor_calico.py); kube-proxy runs
    # as a HostProcess pod (whose load balancers are here), and the ovn services are not looked at.
    del snap['ovs']
    snap['hns']['policy_lists'] = snapshot()['hns']['policy_lists']
    assert [f['what'] for f in diagnose(snap, plan_cluster={'topology': 'calico', 'network_name': 'Calico'})] == [
        'HNS network External does not exist', 'HNS network Calico does not exist']


def test_the_cni_config_missing_edited_invalid_or_only_reformatted():
    snap = snapshot()
    path = PLAN_PATHS['cni_config_file']
    snap['contents'][path] = {'exists': False, 'text': None}
    assert [(f['id'], f['repair']) for f in diagnose(snap)] == [('cni-config-missing', 'rewrite_cni_config')]
    snap['contents'][path] = {'exists': True, 'text': '{"cniVersion": '}
    assert ids(diagnose(snap)) == ['cni-config-invalid']
    edited = copy.deepcopy(CNI)
    edited['delegate']['Policies'][0]['Value']['ExceptionList'] = ['10.96.0.0/12', '192.168.0.0/16']
    snap['contents'][path] = {'exists': True, 'text': json.dumps(edited)}
    found = diagnose(snap)
    assert ids(found) == ['cni-exception-list']
    assert '(missing: 10.244.0.0/16; not planned: 192.168.0.0/16)' in found[0]['what']
    edited = copy.deepcopy(CNI)
    edited['name'] = 'cbr0'
    snap['contents'][path] = {'exists': True, 'text': json.dumps(edited)}
    assert ids(diagnose(snap)) == ['cni-config-differs']
    snap['contents'][path] = {'exists': True, 'text': json.dumps(CNI)}  # the same document, on one line
    assert diagnose(snap) == []


def test_the_source_vip_missing_or_outside_the_pod_subnet():
    snap = snapshot()
    snap['services']['kube-proxy']['command_line'] = 'C:\\k\\kube-proxy.exe --source-vip 10.244.9.2'
    assert ids(diagnose(snap)) == ['source-vip-subnet']
    snap['services']['kube-proxy']['command_line'] = 'C:\\k\\kube-proxy.exe --v=2'
    assert ids(diagnose(snap)) == ['source-vip-missing']


def test_stale_and_missing_load_balancers_and_the_repairs_they_call_for():
    snap = snapshot()
    snap['hns']['policy_lists'].append({'id': 'p3', 'vips': ['10.96.0.99'], 'endpoints': []})  # a deleted Service
    snap['hns']['policy_lists'].append({'id': 'p4', 'vips': ['10.96.0.1'], 'endpoints': ['gone']})  # endpoint removed
    clu = cluster()
    clu['services'].append({'metadata': {'namespace': 'default', 'name': 'web'}, 'spec': {'clusterIP': '10.96.0.50'}})
    clu['endpoint_slices'].append({'metadata': {'namespace': 'default', 'labels': {'kubernetes.io/service-name': 'web'}},
                                   'endpoints': [{'addresses': ['10.244.2.9'], 'conditions': {'ready': True}}]})
    # A Service without a ready endpoint gets no load balancer from winkernel: nothing is missing for it.
    clu['services'].append({'metadata': {'namespace': 'default', 'name': 'idle'}, 'spec': {'clusterIP': '10.96.0.60'}})
    found = {f['id']: f for f in diagnose(snap, clu)}
    assert sorted(found) == ['load-balancer-missing', 'load-balancer-stale']
    assert found['load-balancer-stale']['targets'] == ['p3', 'p4']
    assert '10.96.0.99 (no such Service)' in found['load-balancer-stale']['what']
    assert '10.96.0.1 (endpoints gone: gone)' in found['load-balancer-stale']['what']
    assert found['load-balancer-missing']['what'] == 'no HNS load balancer for 10.96.0.50 (default/web)'
    assert _doctor.repair_plan(list(found.values())) == {
        'policy_lists': ['p3', 'p4'], 'start_services': [], 'restart_kube_proxy': True, 'restart_kube_proxy_pod': False,
        'kube_proxy_pods': {'namespace': 'kube-system', 'label_selector': 'k8s-app=kube-proxy-windows'},
        'rewrite_cni_config': False}


def test_a_load_balancer_to_an_endpoint_no_longer_behind_its_service_is_stale():
    clu = cluster()
    clu['endpoint_slices'][1]['endpoints'][0]['addresses'] = ['10.244.1.6']
    found = diagnose(clu=clu)
    assert ids(found) == ['load-balancer-stale']
    assert 'endpoints no longer in the Service: 10.244.1.5' in found[0]['what']


def test_stopped_and_missing_services_by_topology():
    snap = snapshot()
    snap['services']['kube-proxy']['state'] = 'stopped'
    snap['services']['flanneld'] = {'name': 'flanneld', 'exists': False}
    found = diagnose(snap)
    assert sorted((f['id'], f['targets']) for f in found) == [('service-missing', []), ('service-stopped', ['kube-proxy'])]
    assert _doctor.repair_plan(found)['restart_kube_proxy'] is True
    assert _doctor.expected_services({'container_runtime': 'docker'}, {'topology': 'l2bridge',
                                                                       'l2bridge_routing': 'static_routes'}) == \
        ['docker', 'cri-dockerd', 'kubelet', 'kube-proxy']
    assert _doctor.expected_services({}, {'topology': 'ovn'}) == [
        'containerd', 'kubelet', 'ovsdb-server', 'ovs-vswitchd', 'ovn-controller']
    assert _doctor.expected_services({}, {'topology': 'calico'}) == ['containerd', 'kubelet']


def test_with_the_kube_proxy_daemonset_the_node_needs_no_kube_proxy_service():
    # kubewin_kube_proxy_mode daemonset: kube-proxy is a HostProcess pod, and the role removed the service.
    snap = snapshot()
    snap['services']['kube-proxy'] = {'name': 'kube-proxy', 'exists': False}
    assert 'service-missing' not in ids(diagnose(snap, node_vars={'plan_kube_proxy_mode': 'daemonset'}))
    assert 'service-missing' in ids(diagnose(snap, node_vars={'plan_kube_proxy_mode': 'service'}))


def test_a_service_configuration_other_than_the_record_of_the_last_run():
    # The record's services digest is of the services as site.yml left them; a stop alone is no configuration change.
    from ansible_collections.kubewin.node.plugins.plugin_utils import _converged
    snap = snapshot()
    record = {'version': _converged.RECORD_VERSION, 'sections': _converged.section_digests(snap)}
    snap['contents'][_converged.RECORD_PATH] = {'exists': True, 'text': json.dumps(record)}
    assert diagnose(snap) == []
    snap['services']['kubelet']['state'] = 'stopped'
    assert ids(diagnose(snap)) == ['service-stopped']
    snap['services']['kubelet']['command_line'] += ' --v=6'
    assert ids(diagnose(snap)) == ['service-config-changed', 'service-stopped']


def test_node_conditions_reboot_disk_and_credentials():
    clu = cluster()
    clu['nodes'][0]['status']['conditions'] = [{'type': 'Ready', 'status': 'False', 'message': 'network not ready'},
                                               {'type': 'DiskPressure', 'status': 'True'}]
    found = diagnose(clu=clu)
    assert [(f['id'], f['severity']) for f in found] == [('node-condition', 'error'), ('node-condition', 'warning')]
    clu['nodes'] = []
    assert ids(diagnose(clu=clu)) == ['node-not-registered']
    clu = cluster()
    clu['nodes'][0]['metadata']['labels'] = {'kubernetes.io/os': 'linux', 'node.kubernetes.io/windows-build': '10.0.17763'}
    assert [(f['id'], f['severity'], f['what']) for f in diagnose(clu=clu)] == [(
        'node-labels', 'error', 'Node win1 lacks label kubernetes.io/os=windows (has kubernetes.io/os=linux); lacks '
        'label node.kubernetes.io/windows-build=10.0.20348 (has 10.0.17763)')]
    snap = snapshot()
    snap['reboot_pending'] = True
    snap['os']['system_drive_free_bytes'] = 2 * 1024 ** 3
    snap['credentials']['C:\\etc\\kubernetes\\*.conf']['C:\\etc\\kubernetes\\kubelet.conf'] = 'inherited'
    found = diagnose(snap)
    assert ids(found) == ['credentials-open', 'disk-space', 'reboot-pending']
    assert 'the system drive has 2.0 GiB free (less than 10.0 GiB)' in [f['what'] for f in found]


@pytest.mark.parametrize('node_ahead, expected', [(0, []), (25, []), (45, ['clock-skew']), (-300, ['clock-skew'])])
def test_the_clock_against_the_control_planes(node_ahead, expected):
    # The node read at controller time 1000, the control plane at 1005 (5 s later by both clocks when in step).
    control_plane = {'now': NOW.timestamp() + 5 - node_ahead, 'read_at': 1005.0}
    found = diagnose(control_plane=control_plane)
    assert ids(found) == expected
    if expected:
        assert ('ahead of' if node_ahead > 0 else 'behind') in found[0]['what']


def test_recent_errors_of_the_logs_and_not_older_ones():
    logs = {'kube-proxy': '\n'.join([
        'I0304 11:59:00.000001    4242 proxier.go:100] sync',
        'E0304 11:30:00.000001    4242 proxier.go:200] Policy creation failed: hcnCreateLoadBalancer failed',
        'E0304 09:00:00.000001    4242 proxier.go:200] an old error',
        'F0304 11:59:59.000000    4242 server.go:1] fatal',
    ])}
    found = diagnose(logs=logs)
    assert ids(found) == ['log-errors']
    assert 'hcnCreateLoadBalancer failed' in found[0]['what'] and 'fatal' in found[0]['what']
    assert 'an old error' not in found[0]['what']
    # A date after today is last year's.
    assert _doctor.recent_errors('E1231 23:59:00.0 1 a.go:1] x', NOW, 3600, 5) == []


def test_the_filter_reads_the_node_logs_result_and_refuses_bad_input():
    logs = {'services': {'kubelet': {'log_files': ['C:\\var\\log\\kubelet\\kubelet.log']}},
            'logs': {'C:\\var\\log\\kubelet\\kubelet.log': {'exists': True,
                                                            'text': 'E0304 11:59:00.0 1 a.go:1] no route\n'}}}
    found = doctor_findings(snapshot(), 'win1', PLAN_NODE, PLAN_CLUSTER, PLAN_PATHS, cluster(), logs, CONTROL_PLANE)
    assert ids(found) == ['log-errors'] and 'kubelet logged errors' in found[0]['what']
    with pytest.raises(Exception, match='needs the node state snapshot'):
        doctor_findings(None, 'win1')
    with pytest.raises(Exception, match='unknown limits nope'):
        doctor_findings(snapshot(), 'win1', limits={'nope': 1})
    with pytest.raises(Exception, match=r'node_vars must be the node\'s variables'):
        doctor_findings(snapshot(), 'win1', node_vars=['network_overlay_placeholder_name'])


# --- kubewin_kube_proxy_mode daemonset: kube-proxy is the pod of kube-system/kube-proxy-windows ----------------------
DAEMONSET = {'plan_kube_proxy_mode': 'daemonset'}
NODE_LAYOUT = dict(PLAN_PATHS, kubernetes_dir='C:\\k', kubernetes_config_dir='C:\\etc\\kubernetes')
SOURCE_VIP_FILE = 'C:\\k\\SourceVip.json'


def daemonset_snapshot(record='{"cniVersion":"0.3.1","ips":[{"version":"4","address":"10.244.1.2/24"}]}'):
    """An overlay node in daemonset mode: no kube-proxy service, the source VIP record the pod's start script reads."""
    snap = snapshot()
    snap['services']['kube-proxy'] = {'name': 'kube-proxy', 'exists': False}
    snap['contents'][SOURCE_VIP_FILE] = {'exists': record is not None, 'text': record}
    return snap


def diagnose_daemonset(snap, plan_cluster=None):
    return _doctor.diagnose('win1', snap, PLAN_NODE, plan_cluster or PLAN_CLUSTER, NODE_LAYOUT, cluster(), None,
                            CONTROL_PLANE, node_vars=DAEMONSET)


def test_daemonset_overlay_source_vip_is_the_record_the_pods_start_script_reads():
    assert diagnose_daemonset(daemonset_snapshot()) == []
    # A kube-proxy service a service-mode run left behind (stopped, flags without --source-vip) is not what runs.
    snap = daemonset_snapshot()
    snap['services']['kube-proxy'] = service('kube-proxy', state='stopped', command_line='C:\\k\\kube-proxy.exe')
    assert diagnose_daemonset(snap) == []
    found = diagnose_daemonset(daemonset_snapshot(record=None))
    assert [(f['id'], f['what']) for f in found] == [
        ('source-vip-missing', "kube-proxy's pod has no source VIP: C:\\k\\SourceVip.json does not exist")]
    assert ids(diagnose_daemonset(daemonset_snapshot(record='{}'))) == ['source-vip-missing']
    found = diagnose_daemonset(daemonset_snapshot(record='{"ip4":{"ip":"10.244.9.2/24"}}'))
    assert [(f['id'], f['fix']) for f in found] == [
        ('source-vip-subnet', "run site.yml on the node: it reserves a new source VIP and restarts kube-proxy's pod")]


CALICO_CLUSTER = {'topology': 'calico', 'network_name': 'Calico', 'l2bridge_routing': None}


def calico_snapshot(network_type='Overlay', endpoint=True):
    """A calico node as Calico's pods leave it (network Calico on the node's block, host endpoint Calico_ep)."""
    snap = snapshot()
    snap['services'] = {name: snap['services'][name] for name in ('containerd', 'kubelet')}
    snap['hns']['networks'] = [{'id': 'c1', 'name': 'Calico', 'type': network_type,
                                'subnets': [{'address_prefix': '192.168.0.0/26'}]},
                               {'id': 'c0', 'name': 'External', 'type': network_type,
                                'subnets': [{'address_prefix': '192.168.255.0/30'}]}]
    snap['hns']['endpoints'] = [{'id': EP_LOCAL, 'network_id': 'c1', 'ip_address': '10.244.1.5'}]
    if endpoint:
        snap['hns']['endpoints'].append({'id': 'e2', 'name': 'Calico_ep', 'network_id': 'c1', 'ip_address': '192.168.0.2'})
    # An endpoint of that name on another network is not the source VIP.
    snap['hns']['endpoints'].append({'id': 'e3', 'name': 'Calico_ep', 'network_id': 'c0', 'ip_address': '192.168.255.2'})
    return snap


def test_daemonset_calico_vxlan_needs_calico_ep_on_the_network_calico_and_bgp_does_not():
    assert diagnose_daemonset(calico_snapshot(), CALICO_CLUSTER) == []
    found = diagnose_daemonset(calico_snapshot(endpoint=False), CALICO_CLUSTER)
    assert [(f['id'], f['what'], f['repair']) for f in found] == [
        ('source-vip-missing', "HNS network Calico has no host endpoint Calico_ep, whose address is kube-proxy's source VIP",
         None)]
    assert diagnose_daemonset(calico_snapshot('L2Bridge', endpoint=False), CALICO_CLUSTER) == []


def test_calico_bgp_needs_remote_access_as_a_running_lan_router():
    # Read by node_info's remote_access section (remote_access_routing); vxlan nodes and snapshots without the
    # section are not judged.
    bgp = dict(CALICO_CLUSTER, calico_backend='bgp')
    ready = {'module': True, 'routing': 'Installed', 'service': 'Running', 'start_type': 'Automatic'}
    snap = calico_snapshot('L2Bridge', endpoint=False)
    assert diagnose_daemonset(snap, bgp) == []
    snap['remote_access'] = ready
    assert diagnose_daemonset(snap, bgp) == []
    snap['remote_access'] = dict(ready, service='Stopped')
    assert [(f['id'], f['what']) for f in diagnose_daemonset(snap, bgp)] == [
        ('bgp-router-stopped', 'the service RemoteAccess is Stopped')]
    snap['remote_access'] = {'module': False, 'routing': None, 'service': 'Stopped', 'start_type': 'Disabled'}
    found = diagnose_daemonset(snap, bgp)
    assert [(f['id'], f['what'], f['fix']) for f in found] == [
        ('bgp-router-missing', 'Remote Access is not installed as a LAN router (RoutingStatus unknown: no RemoteAccess '
         'module)', 'run site.yml on the node: its prerequisites install Remote Access as a LAN router and start its '
         'service')]
    assert diagnose_daemonset(snap, dict(CALICO_CLUSTER, calico_backend='vxlan')) == []


def test_daemonset_calico_load_balancers_are_kube_proxys_as_on_the_other_topologies():
    snap = calico_snapshot()
    snap['hns']['policy_lists'] = snap['hns']['policy_lists'][1:]
    found = diagnose_daemonset(snap, CALICO_CLUSTER)
    assert [(f['id'], f['repair']) for f in found] == [('load-balancer-missing', 'restart_kube_proxy')]


def test_daemonset_repair_restarts_kube_proxys_pod_not_a_service():
    snap = daemonset_snapshot()
    snap['hns']['policy_lists'].append({'id': 'p3', 'vips': ['10.96.0.99'], 'endpoints': []})
    found = diagnose_daemonset(snap)
    assert ids(found) == ['load-balancer-stale']
    assert _doctor.repair_plan(found, 'daemonset') == {
        'policy_lists': ['p3'], 'start_services': [], 'restart_kube_proxy': False, 'restart_kube_proxy_pod': True,
        'kube_proxy_pods': {'namespace': 'kube-system', 'label_selector': 'k8s-app=kube-proxy-windows'},
        'rewrite_cni_config': False}
    assert _doctor.repair_plan(found)['restart_kube_proxy'] is True
    assert _doctor.repair_plan(found)['restart_kube_proxy_pod'] is False


def test_graceful_shutdown_needs_the_kubelet_as_its_own_service_with_its_dropin_folder():
    snap = snapshot()
    on = {'kubelet_shutdown_grace_period': 60}
    assert _doctor.check_graceful_shutdown(snap, {}) == [], 'off by default: nothing to check'
    [found] = _doctor.check_graceful_shutdown(snap, on)
    assert found['id'] == 'graceful-shutdown-off' and '--windows-service and --config-dir' in found['what']
    snap['services']['kubelet']['command_line'] = (
        'C:\\k\\kube-log-runner.exe -log-file=C:\\var\\log\\kubelet\\kubelet.log C:\\k\\kubelet.exe --windows-service '
        '--config-dir=C:\\etc\\kubernetes\\kubelet.conf.d')
    assert _doctor.check_graceful_shutdown(snap, on) == []
    # Under nssm the kubelet is nssm's child, which the SCM does not tell of a shutdown.
    snap['services']['kubelet'].update(command_line='C:\\k\\nssm.exe', nssm={
        'application': 'C:\\k\\kubelet.exe', 'app_parameters': '--config-dir=C:\\etc\\kubernetes\\kubelet.conf.d'})
    [found] = _doctor.check_graceful_shutdown(snap, on)
    assert 'without --windows-service:' in found['what']


def test_graceful_shutdown_needs_the_running_kubelet_registered_for_the_pre_shutdown_notification():
    snap = snapshot()
    on = {'kubelet_shutdown_grace_period': 60}
    # What the kubelet leaves at its start with a 60 s grace period: its time-out raised, itself before containerd.
    snap['services']['kubelet'].update(
        command_line='C:\\k\\kubelet.exe --windows-service --config-dir=C:\\etc\\kubernetes\\kubelet.conf.d',
        dependencies=['containerd'], preshutdown_timeout_ms=60000, preshutdown_ordered=True)
    assert _doctor.check_graceful_shutdown(snap, on) == []
    # A kubelet that did not take it (the gate off, an older kubelet): the default time-out, not in the order.
    snap['services']['kubelet'].update(preshutdown_timeout_ms=None, preshutdown_ordered=False)
    [found] = _doctor.check_graceful_shutdown(snap, on)
    assert (found['id'], found['severity'], found['repair']) == ('graceful-shutdown-not-registered', 'warning', None)
    assert 'pre-shutdown time-out is 10 s, shorter than the grace period of 60 s' in found['what']
    assert 'not in the pre-shutdown order' in found['what'] and 'containerd may stop' in found['what']
    assert 'WindowsGracefulNodeShutdown' in found['cause'] and 'Restart-Service kubelet' in found['fix']
    # Each alone is a finding: a time-out lowered by hand, or the kubelet taken out of the order.
    snap['services']['kubelet'].update(preshutdown_timeout_ms=30000, preshutdown_ordered=True)
    [found] = _doctor.check_graceful_shutdown(snap, on)
    assert 'is 30 s' in found['what'] and 'order' not in found['what']
    snap['services']['kubelet'].update(preshutdown_timeout_ms=90000, preshutdown_ordered=False)
    [found] = _doctor.check_graceful_shutdown(snap, on)
    assert 'time-out' not in found['what'] and 'not in the pre-shutdown order' in found['what']
    # Without dependencies the kubelet puts itself in no order (addToExistingOrder): nothing to miss.
    snap['services']['kubelet']['dependencies'] = []
    assert _doctor.check_graceful_shutdown(snap, on) == []
    # No finding with the grace period 0 (the default), nor while the kubelet does not run (service-stopped names it).
    snap['services']['kubelet'].update(dependencies=['containerd'], preshutdown_timeout_ms=None)
    assert _doctor.check_graceful_shutdown(snap, {'kubelet_shutdown_grace_period': 0}) == []
    assert _doctor.check_graceful_shutdown(snap, {}) == []
    snap['services']['kubelet'].update(state='stopped', exit_code=1)
    assert _doctor.check_graceful_shutdown(snap, on) == []
    assert [f['id'] for f in diagnose(snap, node_vars=on)] == ['service-stopped']


def test_dynamic_ports_over_the_node_ports_are_a_finding_while_the_guard_is_on():
    snap = snapshot()
    widened = {'dynamic_start': 1025, 'dynamic_count': 64511, 'excluded': []}
    snap['ports'] = {'tcp': widened, 'udp': {'dynamic_start': 49152, 'dynamic_count': 16384, 'excluded': []}}
    features = {'plan_features': {'node_port_range': '30000-32767'}}
    assert diagnose(snap, node_vars=features) == [], 'prerequisites_node_port_guard is off by default'
    [found] = diagnose(snap, node_vars=dict(features, prerequisites_node_port_guard='exclude'))
    assert found['id'] == 'dynamic-ports-overlap-nodeports' and found['severity'] == 'warning'
    assert '30000-32767 (tcp 30000-32767)' in found['what'] and found['repair'] is None
    # The exclusion the guard adds covers it; one of them deleted since is found again.
    snap['ports']['tcp']['excluded'] = [{'start': 30000, 'end': 32767, 'administered': True}]
    assert diagnose(snap, node_vars=dict(features, prerequisites_node_port_guard='check')) == []
    snap['ports']['tcp']['excluded'] = [{'start': 30000, 'end': 30999, 'administered': True}]
    [found] = diagnose(snap, node_vars=dict(features, prerequisites_node_port_guard='check'))
    assert '(tcp 31000-32767)' in found['what']
    # A snapshot without the ports section (an older node_info) finds nothing.
    del snap['ports']
    assert diagnose(snap, node_vars=dict(features, prerequisites_node_port_guard='check')) == []


def test_defender_exclusions_missing_where_defender_runs_and_the_option_is_on():
    from ansible_collections.kubewin.node.plugins.plugin_utils import _defender, _node_plan  # pylint: disable=import-outside-toplevel
    paths = _node_plan.node_paths({})
    wanted = _defender.exclusions(paths, 'containerd')
    on = {'prerequisites_defender_exclusions': True}
    running = {'defender': {'installed': True, 'running': True, 'exclusion_path': [], 'exclusion_process': []}}
    node = {'container_runtime': 'containerd'}
    assert _doctor.check_defender_exclusions(running, node, paths, {}) == [], 'off by default: nothing to check'
    [found] = _doctor.check_defender_exclusions(running, node, paths, on)
    assert found['id'] == 'defender-exclusions-missing' and found['severity'] == 'warning' and found['repair'] is None
    assert 'C:\\var\\lib\\kubelet' in found['what'] and 'C:\\k\\kubelet.exe' in found['what']
    # Held in another case: Defender compares paths without regard to case.
    held = {'defender': dict(running['defender'], exclusion_path=[p.upper() for p in wanted['paths']],
                             exclusion_process=wanted['processes'])}
    assert _doctor.check_defender_exclusions(held, node, paths, on) == []
    # One missing is named alone.
    drifted = copy.deepcopy(held)
    drifted['defender']['exclusion_process'].remove('C:\\k\\kube-proxy.exe')
    [found] = _doctor.check_defender_exclusions(drifted, node, paths, on)
    assert 'scans C:\\k\\kube-proxy.exe, which' in found['what']
    # Nothing scans: no finding, installed or not; a snapshot without the section says nothing either.
    for defender in ({'installed': True, 'running': False}, {'installed': False, 'running': False}):
        stopped = {'defender': dict(defender, exclusion_path=[], exclusion_process=[])}
        assert _doctor.check_defender_exclusions(stopped, node, paths, on) == []
    assert _doctor.check_defender_exclusions({}, node, paths, on) == []
    # Docker Engine's data folder and program instead of containerd's.
    [found] = _doctor.check_defender_exclusions(held, {'container_runtime': 'docker'}, paths, on)
    assert 'C:\\ProgramData\\docker' in found['what'] and 'containerd' not in found['what']


def test_windows_exporter_and_the_metrics_rules_as_the_inventory_configures_them():
    snap = snapshot()
    on = {'monitoring_windows_exporter': True, 'monitoring_allowed_sources': ['10.20.0.0/16'],
          'container_runtime_containerd_metrics_address': '0.0.0.0:10257'}
    snap['services']['windows_exporter'] = {'name': 'windows_exporter', 'exists': False}
    snap['firewall'] = {}
    assert _doctor.check_monitoring(snap, {}) == [], 'off by default: nothing to check'
    found = _doctor.check_monitoring(snap, on)
    assert [f['id'] for f in found] == ['windows-exporter-stopped', 'metrics-rule-changed', 'metrics-rule-changed']
    assert found[0]['repair'] is None and 'does not exist' in found[0]['what']
    snap['services']['windows_exporter'] = {'name': 'windows_exporter', 'exists': True, 'state': 'stopped',
                                            'exit_code': 1}
    rule = {'exists': True, 'enabled': True, 'direction': 'inbound', 'action': 'allow', 'protocol': 'tcp'}
    # Windows reads the IPv4 network back with its mask: the same network.
    snap['firewall'] = {'kubewin-windows-exporter': dict(rule, local_port=['9182'],
                                                         remote_address=['10.20.0.0/255.255.0.0']),
                        'kubewin-containerd-metrics': dict(rule, local_port=['10257'], remote_address=[])}
    found = _doctor.check_monitoring(snap, on)
    assert [f['id'] for f in found] == ['windows-exporter-stopped', 'metrics-rule-changed']
    assert (found[0]['repair'], found[0]['targets']) == ('start_services', ['windows_exporter'])
    assert 'kubewin-containerd-metrics admits every address' in found[1]['what']
    snap['services']['windows_exporter']['state'] = 'running'
    snap['firewall']['kubewin-containerd-metrics']['remote_address'] = ['10.20.0.0/255.255.0.0']
    assert _doctor.check_monitoring(snap, on) == []
    # containerd's metrics on the loopback address need no rule.
    del snap['firewall']['kubewin-containerd-metrics']
    assert _doctor.check_monitoring(snap, dict(on, container_runtime_containerd_metrics_address='127.0.0.1:1338')) == []


def test_windows_update_installing_by_itself_is_a_finding_when_patch_yml_owns_the_updates():
    key = _host_settings.WINDOWS_UPDATE_KEY
    managed = {'plan_features': {'patch_managed': True}}
    right = {'exists': True, 'values': {'NoAutoUpdate': {'kind': 'DWord', 'data': 0},
                                        'AUOptions': {'kind': 'DWord', 'data': 2}}}
    assert not [f for f in _doctor.diagnose('win1', {'registry': {key: right}}, node_vars=managed)
                if f['id'] == 'windows-update-auto-install']
    # A Group Policy put back "download and schedule the install" (AUOptions 4).
    drifted = {'exists': True, 'values': {'NoAutoUpdate': {'kind': 'DWord', 'data': 0},
                                          'AUOptions': {'kind': 'DWord', 'data': 4}}}
    [found] = [f for f in _doctor.diagnose('win1', {'registry': {key: drifted}}, node_vars=managed)
               if f['id'] == 'windows-update-auto-install']
    assert found['severity'] == 'warning' and 'AUOptions=4' in found['what'] and 'NoAutoUpdate' not in found['what']
    # The key gone, or a value of the right number but another kind: the policy is not what site.yml set.
    [gone] = _host_settings.check_windows_update({'registry': {key: {'exists': False}}}, {'patch_managed': True},
                                                 _doctor.finding)
    assert 'NoAutoUpdate=unset, AUOptions=unset' in gone['what']
    as_text = {'exists': True, 'values': dict(right['values'], AUOptions={'kind': 'String', 'data': 2})}
    assert len(_host_settings.check_windows_update({'registry': {key: as_text}}, {'patch_managed': True},
                                                   _doctor.finding)) == 1
    # Without kubewin_patch_managed the policy is the operator's; a snapshot that did not read the key says nothing.
    assert _host_settings.check_windows_update({'registry': {key: drifted}}, {}, _doctor.finding) == []
    assert _host_settings.check_windows_update({'registry': {}}, {'patch_managed': True}, _doctor.finding) == []


def test_a_page_file_size_that_drifted_or_waits_for_a_restart_is_a_finding():
    key = _host_settings.MEMORY_MANAGEMENT_KEY
    asked = {'prerequisites_page_file': {'initial_mb': 4096, 'maximum_mb': 8192}}

    def snapshot(paging_files, in_force_mb=4096, kind='MultiString'):
        return {'registry': {key: {'exists': True, 'values': {'PagingFiles': {'kind': kind, 'data': paging_files}}}},
                'os': {'page_files_kb': in_force_mb * 1024}}

    def ids(found):
        return [f['id'] for f in found if f['id'].startswith('page-file')]

    # Set and in force: the page file holds between its initial and its maximum size (it may have grown).
    assert ids(_doctor.diagnose('win1', snapshot(['C:\\pagefile.sys 4096 8192']), node_vars=asked)) == []
    assert ids(_doctor.diagnose('win1', snapshot(['c:\\PageFile.sys 4096 8192'], 6000), node_vars=asked)) == []
    # Windows manages it again (an administrator), or another size: the setting drifted.
    [found] = [f for f in _doctor.diagnose('win1', snapshot(['?:\\pagefile.sys']), node_vars=asked)
               if f['id'].startswith('page-file')]
    assert (found['id'], found['severity']) == ('page-file-size-changed', 'warning')
    assert "['?:\\\\pagefile.sys']" in found['what'] and 'C:\\\\pagefile.sys 4096 8192' in found['what']
    assert ids(_doctor.diagnose('win1', snapshot(['C:\\pagefile.sys 4096 8192'], kind='String'), node_vars=asked)) == [
        'page-file-size-changed']
    # Set, but the node booted with another page file: it waits for a restart.
    assert ids(_doctor.diagnose('win1', snapshot(['C:\\pagefile.sys 4096 8192'], 1024), node_vars=asked)) == [
        'page-file-restart-pending']
    # Off, or a snapshot that did not read the key: nothing to say.
    assert ids(_doctor.diagnose('win1', snapshot(['?:\\pagefile.sys'], 1024), node_vars={})) == []
    assert _host_settings.check_page_file({'registry': {}}, asked, _doctor.finding) == []


def test_the_page_file_setting_is_a_registry_setting_written_back_to_automatic_by_a_reset():
    assert _host_settings.registry_settings({}, {}) == []
    [setting] = _host_settings.registry_settings({}, {'prerequisites_page_file': {'initial_mb': 4096, 'maximum_mb': 8192,
                                                                                  'drive': 'd:'}})
    assert setting == {'key': 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management',
                       'restart': True,
                       'values': [{'name': 'PagingFiles', 'type': 'multistring', 'data': ['D:\\pagefile.sys 4096 8192']}],
                       'reset_values': [{'name': 'PagingFiles', 'type': 'multistring', 'data': ['?:\\pagefile.sys']}]}
    assert [item['key'] for item in _host_settings.registry_settings(
        {'patch_managed': True}, {'prerequisites_page_file': {'initial_mb': 1, 'maximum_mb': 1}})] == [
        _host_settings.WINDOWS_UPDATE_KEY, _host_settings.MEMORY_MANAGEMENT_KEY]
    # What is in force since the boot, against the size asked for.
    asked = {'prerequisites_page_file': {'initial_mb': 4096, 'maximum_mb': 8192}}
    assert _host_settings.page_file_restart({'page_files_kb': 1024 * 1024}, asked) is True
    assert _host_settings.page_file_restart({'page_files_kb': 9000 * 1024}, asked) is True
    assert _host_settings.page_file_restart({'page_files_kb': 8192 * 1024}, asked) is False
    assert _host_settings.page_file_restart({'page_files_kb': 1024}, {}) is False
    assert _host_settings.page_file_restart({}, asked) is False


def test_a_commit_limit_short_of_the_pods_the_node_may_run_is_a_finding():
    # 4 GiB of memory and a 1 GiB page file: 5 GiB of commit for 4 GiB + 110 pods x 64 MiB.
    small = {'os': {'memory_kb': 4 * 1024 ** 2, 'page_files_kb': 1024 ** 2, 'commit_limit_kb': 5 * 1024 ** 2}}
    cluster = {'max_pods': 110}
    [found] = [f for f in _doctor.diagnose('win1', small, plan_cluster=cluster,
                                           node_vars={'prerequisites_commit_limit_pod_mb': 64})
               if f['id'] == 'commit-limit-low']
    assert found['severity'] == 'warning'
    assert '(physical memory 4.0 GiB + page files 1.0 GiB = 5.0 GiB)' in found['what'] and '10.9 GiB' in found['what']
    assert '110 pods x 64 MiB' in found['what'] and 'at least 5.9 GiB more' in found['what']
    # 30 pods at 32 MiB (the default) fit in 5 GiB (4 GiB + 0.9 GiB); the check off, or a snapshot without the
    # figures: nothing.
    assert _host_settings.check_commit_limit(small, 'win1', 30, {}, _doctor.finding) == []
    assert len(_host_settings.check_commit_limit(small, 'win1', 110, {}, _doctor.finding)) == 1
    assert _host_settings.check_commit_limit(small, 'win1', 110, {'prerequisites_commit_limit_check': 'off'},
                                             _doctor.finding) == []
    assert _host_settings.check_commit_limit({'os': {}}, 'win1', 110, {}, _doctor.finding) == []
    # A reservation larger than the memory is what the system may commit: 2 GiB of memory, 4 GiB reserved.
    need = _host_settings.commit_limit_need({'memory_kb': 2 * 1024 ** 2, 'commit_limit_kb': 3 * 1024 ** 2}, 0,
                                            {'kubelet_system_reserved': {'memory': '4Gi'}})
    assert need['need'] == 4 * 1024 ** 3 + 500 * 1024 ** 2
