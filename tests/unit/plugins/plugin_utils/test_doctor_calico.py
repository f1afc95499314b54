"""The doctor's checks on a calico node (plugin_utils/_doctor.py), on snapshots shaped as node_info returns them.

What a healthy calico node has, from projectcalico/calico node/windows-packaging/CalicoWindows/node/node-service.ps1
(calico-node-windows makes External: Overlay, 192.168.255.0/30, VSID 9999 for VXLAN) and tigera/operator
pkg/render/windows.go (the conflist 10-calico.conflist named Calico with one plugin of type calico)."""

import copy
import json

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _doctor
from ansible_collections.kubewin.node.plugins.plugin_utils._node_plan import node_paths

PLAN_CLUSTER = {'topology': 'calico', 'network_name': 'Calico', 'l2bridge_routing': None}
# The plan hands a calico node no CNI config text: the operator writes it.
PLAN_NODE = {'container_runtime': 'containerd', 'pod_cidr': None, 'cni_config_text': None}
PLAN_PATHS = node_paths({})
CONFLIST = PLAN_PATHS['calico_cni_config_file']
CALICO_CNI = {'name': 'Calico', 'cniVersion': '0.3.1', 'plugins': [
    {'type': 'calico', 'name': 'Calico', 'windows_use_single_network': True, 'mode': 'vxlan', 'vxlan_vni': 4096,
     'ipam': {'type': 'calico-ipam'}, 'policies': [{'Name': 'EndpointPolicy', 'Value': {
         'Type': 'OutBoundNAT', 'ExceptionList': ['10.96.0.0/12']}}]}]}
EXTERNAL = {'id': 'n0', 'name': 'External', 'type': 'Overlay', 'subnets': [{'address_prefix': '192.168.255.0/30'}]}
# The node's Calico IPAM block: not the Node's podCIDR.
CALICO = {'id': 'n1', 'name': 'Calico', 'type': 'Overlay', 'subnets': [{'address_prefix': '10.244.7.64/26'}]}
# The CNI plugin makes the network's host endpoint with it (cni-plugin/pkg/dataplane/windows/dataplane_windows.go);
# its address is kube-proxy's source VIP.
CALICO_EP = {'id': 'e1', 'name': 'Calico_ep', 'network_id': 'n1', 'ip_address': '10.244.7.66'}


def service(name, state='running'):
    return {'name': name, 'exists': True, 'state': state, 'exit_code': 0, 'command_line': 'C:\\k\\%s.exe' % name,
            'nssm': None}


def snapshot(networks=(EXTERNAL, CALICO), cni=json.dumps(CALICO_CNI)):
    return {
        'hns': {'available': True, 'networks': [copy.deepcopy(n) for n in networks],
                'endpoints': [dict(CALICO_EP)] if CALICO in networks else [], 'policy_lists': []},
        'services': {'containerd': service('containerd'), 'kubelet': service('kubelet'),
                     'flanneld': {'name': 'flanneld', 'exists': False}, 'kube-proxy': {'name': 'kube-proxy', 'exists': False}},
        'contents': {CONFLIST: {'exists': cni is not None,
                                'text': (cni if isinstance(cni, str) else json.dumps(cni)) if cni is not None else None}},
    }


def findings(snap):
    return [(f['id'], f['what'], f['repair']) for f in _doctor.diagnose(
        'win1', snap, PLAN_NODE, PLAN_CLUSTER, PLAN_PATHS, node_vars={'plan_kube_proxy_mode': 'daemonset'})]


def test_a_healthy_calico_node_has_no_finding():
    assert findings(snapshot()) == []
    # calico-node-windows's start-up makes the pod network once the kubelet runs: a joined node without it is not well.
    assert [f[:2] for f in findings(snapshot(networks=(EXTERNAL,)))] == [
        ('hns-network-missing', 'HNS network Calico does not exist')]


def test_the_conflist_path_is_the_operators_in_the_plans_cni_folder():
    assert CONFLIST == 'C:\\etc\\cni\\net.d\\10-calico.conflist'
    assert node_paths({'cni_conf_dir': 'D:\\cni'})['calico_cni_config_file'] == 'D:\\cni\\10-calico.conflist'


def test_a_missing_external_network_is_calico_node_windows_to_make():
    [found] = _doctor.check_hns_networks(snapshot(networks=(CALICO,)), PLAN_CLUSTER, '10.244.7.0/24')
    assert found['id'] == 'hns-network-missing' and found['what'] == 'HNS network External does not exist'
    assert 'calico-node-windows' in found['cause'] and found['repair'] is None


@pytest.mark.parametrize('cni, finding_id, what', [
    (None, 'cni-config-missing', 'the CNI config %s does not exist' % CONFLIST),
    ('{"name": "Calico", ', 'cni-config-invalid', 'the CNI config %s is not a JSON object' % CONFLIST),
    ({'name': 'cbr0', 'cniVersion': '0.3.0', 'type': 'flannel'}, 'cni-config-differs',
     "the CNI config %s is not Calico's (name cbr0, plugin types none; expected name Calico with a plugin of type "
     "calico)" % CONFLIST),
    (dict(CALICO_CNI, plugins=[{'type': 'win-overlay'}]), 'cni-config-differs',
     "the CNI config %s is not Calico's (name Calico, plugin types win-overlay; expected name Calico with a plugin of "
     "type calico)" % CONFLIST),
])
def test_the_cni_config_must_be_calicos_and_is_not_repaired(cni, finding_id, what):
    # No repair: the collection does not write Calico's config; calico-node-windows writes it again.
    assert findings(snapshot(cni=cni)) == [(finding_id, what, None)]


def test_a_cni_config_not_read_is_not_a_finding():
    snap = snapshot()
    del snap['contents']
    assert findings(snap) == []


def test_a_flanneld_left_from_a_flannel_topology_is_an_error():
    snap = snapshot()
    snap['services']['flanneld'] = service('flanneld', state='stopped')
    assert findings(snap) == [('service-unexpected', 'service flanneld exists on a calico node (stopped)', None)]
