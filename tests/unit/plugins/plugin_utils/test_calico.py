"""calico_cluster_compare: the Tigera operator's settings against what Windows nodes need."""

import copy

import pytest

from ansible_collections.kubewin.node.plugins.filter.cluster_checks import FilterModule
from ansible_collections.kubewin.node.plugins.plugin_utils._calico import calico_cluster_compare
from ansible_collections.kubewin.node.plugins.plugin_utils._cluster import ClusterCheckError

PLAN = {'topology': 'calico', 'cluster_cidr': '10.244.0.0/16', 'service_cidr': '10.96.0.0/12', 'node_prefix_length': 26,
        'vxlan_vni': 4096, 'vxlan_port': 4789}
SERVER = 'https://10.127.130.10:6443'
ENDPOINT = {'KUBERNETES_SERVICE_HOST': '10.127.130.10', 'KUBERNETES_SERVICE_PORT': '6443'}


def pool(cidr='10.244.0.0/16', encapsulation='VXLAN', name='default-ipv4-ippool'):
    return {'name': name, 'cidr': cidr, 'encapsulation': encapsulation, 'natOutgoing': 'Enabled',
            'nodeSelector': 'all()', 'blockSize': 26}


def ip_pool(cidr, name, operator=True, disabled=False, block_size=26):
    labels = {'app.kubernetes.io/managed-by': 'tigera-operator'} if operator else {}
    return {'apiVersion': 'projectcalico.org/v3', 'kind': 'IPPool', 'metadata': {'name': name, 'labels': labels},
            'spec': {'cidr': cidr, 'disabled': disabled, 'blockSize': block_size}}


def ready_cluster():
    """What a cluster made ready for Windows by hand, following Tigera's page, holds."""
    return {
        'installation': {'apiVersion': 'operator.tigera.io/v1', 'kind': 'Installation', 'metadata': {'name': 'default'},
                         'spec': {'serviceCIDRs': ['10.96.0.0/12'],
                                  'calicoNetwork': {'bgp': 'Disabled', 'windowsDataplane': 'HNS',
                                                    'ipPools': [pool()]}}},
        'ipam_configuration': {'metadata': {'name': 'default'}, 'spec': {'strictAffinity': True}},
        # As the operator leaves it (core_controller.go writes Felix's defaults back).
        'felix_configuration': {'metadata': {'name': 'default'},
                                'spec': {'healthPort': 9099, 'vxlanVNI': 4096, 'vxlanPort': 4789}},
        'ip_pools': [ip_pool('10.244.0.0/16', 'default-ipv4-ippool')],
        'services_endpoint': {'metadata': {'name': 'kubernetes-services-endpoint', 'namespace': 'tigera-operator'},
                              'data': dict(ENDPOINT)},
    }


def test_a_ready_cluster_has_no_differences():
    result = calico_cluster_compare(ready_cluster(), PLAN, SERVER)
    assert result == {'differences': [], 'refused': [], 'installation_patch': None, 'ipam_configuration': None,
                      'felix_configuration': None, 'services_endpoint': None}
    assert FilterModule().filters()['calico_cluster_compare'] is calico_cluster_compare


def test_a_fresh_operator_install_lists_every_difference_and_patches_the_windows_side():
    """The Installation as the quickstart's custom-resources.yaml leaves it once the operator defaulted it."""
    cluster = {'installation': {'spec': {'calicoNetwork': {'ipPools': [pool(encapsulation='VXLANCrossSubnet')]}}},
               'ipam_configuration': None, 'ip_pools': [], 'services_endpoint': None}
    result = calico_cluster_compare(cluster, PLAN, SERVER, 'vxlan', True)
    assert result['differences'] == [
        "Installation spec.calicoNetwork.bgp: cluster has Enabled (the operator's default; the Installation does "
        "not set it), Windows nodes need Disabled (vxlan backend)",
        'Installation IP pool default-ipv4-ippool encapsulation: cluster has VXLANCrossSubnet, Windows nodes need VXLAN',
        "Installation spec.calicoNetwork.windowsDataplane: cluster has Disabled (the operator's default; the "
        "Installation does not set it), Windows nodes need HNS",
        'Installation spec.serviceCIDRs: cluster has none, Windows nodes need 10.96.0.0/12 (kubewin_service_cidr)',
        "IPAMConfiguration default strictAffinity: cluster has no IPAMConfiguration default (Calico's default, "
        "false), Windows nodes need true",
        'ConfigMap tigera-operator/kubernetes-services-endpoint: absent, Windows nodes need '
        'KUBERNETES_SERVICE_HOST=10.127.130.10, KUBERNETES_SERVICE_PORT=6443 (the API server\'s address in '
        'kube-public/cluster-info)',
    ]
    assert result['refused'] == []
    # A JSON merge patch replaces lists: the whole ipPools list goes, with only the encapsulation changed.
    assert result['installation_patch']['spec'] == {
        'serviceCIDRs': ['10.96.0.0/12'],
        'calicoNetwork': {'bgp': 'Disabled', 'ipPools': [pool()], 'windowsDataplane': 'HNS'}}
    assert {k: v for k, v in result['installation_patch'].items() if k != 'spec'} == {
        'apiVersion': 'operator.tigera.io/v1', 'kind': 'Installation', 'metadata': {'name': 'default'}}
    assert result['ipam_configuration'] == {'apiVersion': 'projectcalico.org/v3', 'kind': 'IPAMConfiguration',
                                            'metadata': {'name': 'default'}, 'spec': {'strictAffinity': True}}
    assert result['services_endpoint'] == {
        'apiVersion': 'v1', 'kind': 'ConfigMap',
        'metadata': {'name': 'kubernetes-services-endpoint', 'namespace': 'tigera-operator'}, 'data': ENDPOINT}
    assert cluster['installation']['spec']['calicoNetwork']['ipPools'][0]['encapsulation'] == 'VXLANCrossSubnet'


def test_network_changes_are_refused_unless_allowed():
    cluster = ready_cluster()
    cluster['installation']['spec']['calicoNetwork'].update(bgp='Enabled', ipPools=[pool(encapsulation='IPIP')])
    result = calico_cluster_compare(cluster, PLAN, SERVER)
    assert result['refused'] == result['differences'] == [
        'Installation spec.calicoNetwork.bgp: cluster has Enabled, Windows nodes need Disabled (vxlan backend) '
        '(set control_plane_patch_calico_network to true to have it patched)',
        'Installation IP pool default-ipv4-ippool encapsulation: cluster has IPIP, Windows nodes need VXLAN '
        '(set control_plane_patch_calico_network to true to have it patched)',
    ]
    assert result['installation_patch'] is None


def test_the_bgp_backend_needs_bgp_and_no_encapsulation():
    cluster = ready_cluster()
    result = calico_cluster_compare(cluster, PLAN, SERVER, 'bgp', True)
    assert result['installation_patch']['spec'] == {'calicoNetwork': {
        'bgp': 'Enabled', 'ipPools': [pool(encapsulation='None')]}}
    cluster['installation']['spec']['calicoNetwork'].update(bgp='Enabled', ipPools=[pool(encapsulation='None')])
    assert calico_cluster_compare(cluster, PLAN, SERVER, 'bgp')['differences'] == []


def test_a_pool_that_contradicts_the_plan_is_refused_never_patched():
    cluster = ready_cluster()
    cluster['installation']['spec']['calicoNetwork']['ipPools'] = [pool('192.168.0.0/16')]
    cluster['ip_pools'] = [ip_pool('192.168.0.0/16', 'default-ipv4-ippool')]
    result = calico_cluster_compare(cluster, PLAN, SERVER, 'vxlan', True)
    assert result['refused'] == [
        'Installation IP pool default-ipv4-ippool: cluster has 192.168.0.0/16, Windows nodes need 10.244.0.0/16 '
        '(kubewin_cluster_cidr); not patched: the operator would replace the pool under running pods, see '
        "Calico's 'Migrate from one IP pool to another' (networking/ipam/migrate-pools), or change the plan",
    ]
    assert result['installation_patch'] is None


def test_a_pool_being_retired_is_left_alone():
    """Calico's migration: the new pool added, the old one no longer allocating, until its pods are re-created."""
    cluster = ready_cluster()
    retired = dict(pool('192.168.0.0/16', 'IPIP', 'old'), disableNewAllocations=True)
    cluster['installation']['spec']['calicoNetwork']['ipPools'].append(retired)
    cluster['ip_pools'].append(ip_pool('192.168.0.0/16', 'old', disabled=True))
    assert calico_cluster_compare(cluster, PLAN, SERVER)['differences'] == []
    cluster['installation']['spec']['calicoNetwork']['ipPools'] = [retired]
    cluster['ip_pools'] = [ip_pool('192.168.0.0/16', 'old', disabled=True)]
    assert calico_cluster_compare(cluster, PLAN, SERVER)['refused'][-1].startswith('no IPv4 IP pool')
    cluster['installation']['spec']['calicoNetwork']['ipPools'] = ['10.244.0.0/16']
    with pytest.raises(ClusterCheckError, match=r"ipPools\[0\] must be an object, got '10.244.0.0/16'"):
        calico_cluster_compare(cluster, PLAN, SERVER)


def test_pools_made_out_of_band_ipv6_pools_and_no_pool_are_refused():
    cluster = ready_cluster()
    cluster['ip_pools'].append(ip_pool('10.250.0.0/16', 'extra', operator=False))
    cluster['ip_pools'].append(ip_pool('10.251.0.0/16', 'retired', operator=False, disabled=True))
    cluster['installation']['spec']['calicoNetwork']['ipPools'].append(pool('fd00:10:244::/56', name='v6'))
    refused = calico_cluster_compare(cluster, PLAN, SERVER)['refused']
    assert refused == [
        'Installation IP pool v6: fd00:10:244::/56 is not an IPv4 range; Calico for Windows supports IPv4 only '
        '(no IPv6, no dual stack)',
        'IPPool extra: cluster has 10.250.0.0/16, Windows nodes need 10.244.0.0/16 (kubewin_cluster_cidr); Calico '
        "may give Windows pods addresses from any enabled pool: disable or remove it (Calico's 'Migrate from one "
        "IP pool to another' (networking/ipam/migrate-pools))",
    ]
    cluster = ready_cluster()
    cluster['installation']['spec']['calicoNetwork']['ipPools'] = []
    cluster['ip_pools'] = []
    assert calico_cluster_compare(cluster, PLAN, SERVER)['refused'] == [
        "no IPv4 IP pool: Windows nodes need one with 10.244.0.0/16 (kubewin_cluster_cidr) in the Installation's "
        'spec.calicoNetwork.ipPools']
    # Pools managed out of band (ipPools: []) are fine when they agree with the plan.
    cluster['ip_pools'] = [ip_pool('10.244.0.0/16', 'mine', operator=False)]
    assert calico_cluster_compare(cluster, PLAN, SERVER)['differences'] == []


def test_service_cidrs_keep_ipv6_entries_and_strict_affinity_false_is_patched():
    cluster = ready_cluster()
    cluster['installation']['spec']['serviceCIDRs'] = ['10.112.0.0/12', 'fd00:10:96::/112']
    cluster['ipam_configuration']['spec']['strictAffinity'] = False
    result = calico_cluster_compare(cluster, PLAN, SERVER)
    assert result['differences'] == [
        'Installation spec.serviceCIDRs: cluster has 10.112.0.0/12, fd00:10:96::/112, Windows nodes need '
        '10.96.0.0/12 (kubewin_service_cidr)',
        'IPAMConfiguration default strictAffinity: cluster has false, Windows nodes need true',
    ]
    assert result['installation_patch']['spec'] == {'serviceCIDRs': ['10.96.0.0/12', 'fd00:10:96::/112']}
    assert result['ipam_configuration']['spec'] == {'strictAffinity': True}


@pytest.mark.parametrize('data, patched', [
    ({'KUBERNETES_SERVICE_HOST': '10.96.0.1', 'KUBERNETES_SERVICE_PORT': '443'},
     'cluster has KUBERNETES_SERVICE_HOST=10.96.0.1, KUBERNETES_SERVICE_PORT=443 (a Service IP, which Windows '
     'nodes cannot reach before Calico runs)'),
    ({'KUBERNETES_SERVICE_HOST': '10.127.130.10'},
     'cluster has KUBERNETES_SERVICE_HOST=10.127.130.10, KUBERNETES_SERVICE_PORT=(unset) (incomplete)'),
])
def test_a_service_ip_or_an_incomplete_services_endpoint_is_patched(data, patched):
    cluster = ready_cluster()
    cluster['services_endpoint']['data'] = data
    result = calico_cluster_compare(cluster, PLAN, SERVER)
    assert result['differences'] == [
        'ConfigMap tigera-operator/kubernetes-services-endpoint: %s, Windows nodes need '
        'KUBERNETES_SERVICE_HOST=10.127.130.10, KUBERNETES_SERVICE_PORT=6443' % patched]
    assert result['services_endpoint']['data'] == ENDPOINT


def test_another_real_api_server_address_is_refused():
    cluster = ready_cluster()
    cluster['services_endpoint']['data'] = {'KUBERNETES_SERVICE_HOST': 'api.example.internal',
                                            'KUBERNETES_SERVICE_PORT': '6443'}
    result = calico_cluster_compare(cluster, PLAN, SERVER)
    assert result['refused'] == [
        'ConfigMap tigera-operator/kubernetes-services-endpoint: cluster has KUBERNETES_SERVICE_HOST='
        'api.example.internal, KUBERNETES_SERVICE_PORT=6443, another address than the API server\'s in '
        'kube-public/cluster-info (KUBERNETES_SERVICE_HOST=10.127.130.10, KUBERNETES_SERVICE_PORT=6443); not '
        'overwritten: set it to that address, or make cluster-info name the same one']
    # A URL without a port means 443; a DNS name is compared as given.
    cluster['services_endpoint']['data']['KUBERNETES_SERVICE_PORT'] = '443'
    assert calico_cluster_compare(cluster, PLAN, 'https://api.example.internal')['differences'] == []


def test_bad_input_is_an_error_that_names_it():
    with pytest.raises(ClusterCheckError, match="the Installation object as 'installation'"):
        calico_cluster_compare({'installation': None}, PLAN, SERVER)
    with pytest.raises(ClusterCheckError, match='normalized IP plan'):
        calico_cluster_compare(ready_cluster(), {'cluster_cidr': '10.244.0.0/16'}, SERVER)
    with pytest.raises(ClusterCheckError, match="backend must be one of vxlan, bgp, got 'ipip'"):
        calico_cluster_compare(ready_cluster(), PLAN, SERVER, 'ipip')
    with pytest.raises(ClusterCheckError, match="api_server must be an https URL, got '10.127.130.10:6443'"):
        calico_cluster_compare(ready_cluster(), PLAN, '10.127.130.10:6443')
    broken = copy.deepcopy(ready_cluster())
    broken['installation']['spec']['calicoNetwork']['ipPools'] = {'cidr': '10.244.0.0/16'}
    with pytest.raises(ClusterCheckError, match='ipPools must be a list'):
        calico_cluster_compare(broken, PLAN, SERVER)


def felix(**spec):
    return {'apiVersion': 'projectcalico.org/v3', 'kind': 'FelixConfiguration', 'metadata': {'name': 'default'},
            'spec': spec}


def test_felix_defaults_count_as_the_windows_values():
    """Felix uses VNI 4096 and port 4789 when the FelixConfiguration does not set them (felixconfig.mdx)."""
    for absent in (None, felix()):
        cluster = dict(ready_cluster(), felix_configuration=absent)
        assert calico_cluster_compare(cluster, PLAN, SERVER)['differences'] == []


def test_felix_vxlan_settings_of_a_cluster_migrated_from_flannel_are_refused_unless_allowed():
    """Calico's flannel migration controller copies flannel's VNI 1 and port 8472 into FelixConfiguration default."""
    cluster = dict(ready_cluster(), felix_configuration=felix(vxlanVNI=1, vxlanPort=8472, vxlanEnabled=False))
    result = calico_cluster_compare(cluster, PLAN, SERVER)
    hint = ' (set control_plane_patch_calico_network to true to have it patched)'
    assert result['refused'] == result['differences'] == [
        'FelixConfiguration default vxlanVNI: cluster has 1, Windows nodes need 4096 (kubewin_vxlan_vni)' + hint,
        'FelixConfiguration default vxlanPort: cluster has 8472, Windows nodes need 4789 (kubewin_vxlan_port)' + hint,
        'FelixConfiguration default vxlanEnabled: cluster has false, which keeps Felix from making its VXLAN device; '
        'Windows nodes need it unset (Felix then follows the VXLAN IP pool)' + hint,
    ]
    assert result['felix_configuration'] is None
    allowed = calico_cluster_compare(cluster, PLAN, SERVER, 'vxlan', True)
    assert allowed['refused'] == []
    assert allowed['differences'] == [message[:-len(hint)] for message in result['differences']]
    assert allowed['felix_configuration'] == felix(vxlanVNI=4096, vxlanPort=4789, vxlanEnabled=None)
    # The BGP backend does not encapsulate, so Felix's VXLAN settings do not matter to it.
    cluster['installation']['spec']['calicoNetwork'].update(bgp='Enabled', ipPools=[pool(encapsulation='None')])
    assert calico_cluster_compare(cluster, PLAN, SERVER, 'bgp') == dict(
        calico_cluster_compare(ready_cluster(), PLAN, SERVER), felix_configuration=None)


def test_a_block_size_other_than_the_plans_is_refused_even_when_network_changes_are_allowed():
    """A pool's blockSize can only be set when it is created (ippool.mdx; the API server refuses a change)."""
    cluster = ready_cluster()
    cluster['installation']['spec']['calicoNetwork']['ipPools'] = [dict(pool(), blockSize=24)]
    cluster['ip_pools'] = [ip_pool('10.244.0.0/16', 'default-ipv4-ippool', block_size=24)]
    result = calico_cluster_compare(cluster, PLAN, SERVER, 'vxlan', True)
    assert result['refused'] == result['differences'] == [
        "Installation IP pool default-ipv4-ippool blockSize: cluster has 24, Windows nodes need 26 (the plan's "
        'node_prefix_length, from which max_pods is derived); not patched: a pool\'s block size is fixed when the '
        "pool is created, see Calico's 'Migrate from one IP pool to another' (networking/ipam/migrate-pools), or "
        'set kubewin_node_prefix_length to 24']
    assert result['installation_patch'] is None
    # Unset is the operator's default, 26: a plan of /24 blocks is refused then.
    cluster = ready_cluster()
    del cluster['installation']['spec']['calicoNetwork']['ipPools'][0]['blockSize']
    refused = calico_cluster_compare(cluster, dict(PLAN, node_prefix_length=24), SERVER)['refused']
    assert refused == [
        "Installation IP pool default-ipv4-ippool blockSize: cluster has 26 (the operator's default; the "
        "Installation does not set it), Windows nodes need 24 (the plan's node_prefix_length, from which max_pods "
        "is derived); not patched: a pool's block size is fixed when the pool is created, see Calico's 'Migrate "
        "from one IP pool to another' (networking/ipam/migrate-pools), or set kubewin_node_prefix_length to 26"]
    # A pool made outside the operator with the plan's CIDR is held to the same rule; a disabled one is not.
    cluster = ready_cluster()
    cluster['installation']['spec']['calicoNetwork']['ipPools'] = []
    cluster['ip_pools'] = [ip_pool('10.244.0.0/16', 'mine', operator=False, block_size=28),
                           ip_pool('10.244.0.0/16', 'old', operator=False, disabled=True, block_size=24)]
    assert [m.split(':')[0] for m in calico_cluster_compare(cluster, PLAN, SERVER)['refused']] == [
        'IPPool mine blockSize']
