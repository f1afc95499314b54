"""The Tigera operator on the simulated cluster (tigera.py): absent by default, its kinds, defaults and IP pools.

Sources are named in tigera.py: tigera/operator (installation_types.go, ippool/defaults.go, pool_controller.go,
installation/validation.go, windows_controller.go), tigera/docs (reference/resources/ippool.mdx, ipamconfig.mdx),
kubernetes.core's K8sService (find, update).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import k8s_modules, tigera  # noqa: E402
from kubewin_sim.cluster import open_cluster  # noqa: E402
from kubewin_sim.k8s_objects import ApiError  # noqa: E402


@pytest.fixture
def state(tmp_path):
    return str(tmp_path)


class Module:
    """What k8s_modules.perform reads of an AnsibleModule."""

    def __init__(self, **params):
        self.params = dict({'state': 'patched', 'merge_type': None}, **params)
        self._diff = False


def test_without_the_operator_its_kinds_are_unknown(state):
    with open_cluster(state) as cluster:
        for api_version, kind in (('operator.tigera.io/v1', 'Installation'), ('projectcalico.org/v3', 'IPPool')):
            with pytest.raises(ApiError, match='Failed to find exact match for %s.%s' % (api_version, kind)):
                cluster.resolve(api_version, kind)
        assert 'Installation' not in cluster.kinds()


def test_install_defaults_the_installation_and_makes_its_pool_from_kubeadm(state):
    with open_cluster(state) as cluster:
        tigera.install(cluster, installation={})
    with open_cluster(state) as cluster:
        installation = cluster.get('Installation', None, 'default')
        pools = cluster.list('IPPool')
    assert cluster.resolve('operator.tigera.io/v1', 'Installation') == ('operator.tigera.io/v1', False)
    network = installation['spec']['calicoNetwork']
    assert (network['bgp'], network['windowsDataplane'], network['linuxDataplane']) == ('Enabled', 'Disabled', 'Iptables')
    assert network['ipPools'] == [{
        'name': 'default-ipv4-ippool', 'cidr': '10.244.0.0/16', 'encapsulation': 'IPIP', 'natOutgoing': 'Enabled',
        'blockSize': 26, 'nodeSelector': 'all()', 'allowedUses': ['Workload', 'Tunnel'],
        'disableNewAllocations': False, 'assignmentMode': 'Automatic'}]
    assert [(p['metadata']['name'], p['spec']['cidr'], p['spec']['ipipMode'], p['spec']['vxlanMode'],
             p['metadata']['labels']) for p in pools] == [
        ('default-ipv4-ippool', '10.244.0.0/16', 'Always', 'Never', {'app.kubernetes.io/managed-by': 'tigera-operator'})]
    assert cluster.get('Namespace', None, 'tigera-operator') is not None
    assert cluster.get('IPAMConfiguration', None, 'default') is None
    # Windows is not enabled, so nothing is degraded.
    assert installation['status']['conditions'][0]['status'] == 'False'


def test_unnamed_pools_are_named_as_the_operator_names_them(state):
    with open_cluster(state) as cluster:
        tigera.install(cluster, installation={'calicoNetwork': {'ipPools': [
            {'cidr': '10.244.0.0/16'}, {'cidr': 'fd00:10:244::/56'}]}})
        assert sorted(p['metadata']['name'] for p in cluster.list('IPPool')) == [
            'default-ipv4-ippool', 'default-ipv6-ippool']
        v6 = cluster.get('IPPool', None, 'default-ipv6-ippool')['spec']
        cluster.patch('Installation', None, 'default', {'spec': {'calicoNetwork': {'ipPools': [
            {'cidr': '10.244.0.0/16'}, {'cidr': '10.245.0.0/16'}]}}}, 'merge')
        cluster.reconcile()
        # The pool of an unchanged CIDR keeps its name; two IPv4 pools are not a dual-stack pair.
        assert sorted(p['metadata']['name'] for p in cluster.list('IPPool')) == ['10.245.0.0-16', 'default-ipv4-ippool']
    assert (v6['blockSize'], v6['natOutgoing'], v6['vxlanMode'], v6['ipipMode']) == (122, False, 'Never', 'Never')
    assert tigera._cidr_to_name('fd00:10:244::/56') == 'fd00.0010.0244.0000.0000.0000.0000.0000-56'  # pylint: disable=protected-access


def test_a_changed_pool_cidr_replaces_the_pool(state):
    """Why the role refuses to patch a pool's CIDR: the operator deletes the pool pods got their addresses from."""
    with open_cluster(state) as cluster:
        tigera.install(cluster, installation={'calicoNetwork': {'ipPools': [
            {'name': 'pods', 'cidr': '192.168.0.0/16', 'encapsulation': 'VXLAN'}]}})
        before = cluster.get('IPPool', None, 'pods')
        cluster.patch('Installation', None, 'default', {'spec': {'calicoNetwork': {'ipPools': [
            {'name': 'pods-2', 'cidr': '10.244.0.0/16', 'encapsulation': 'VXLAN'}]}}}, 'merge')
        cluster.reconcile()
        assert [(p['metadata']['name'], p['spec']['cidr']) for p in cluster.list('IPPool')] == [
            ('pods-2', '10.244.0.0/16')]
    assert before['spec']['vxlanMode'] == 'Always'


def test_custom_resources_take_merge_patches_only_and_the_module_falls_back(state):
    with open_cluster(state) as cluster:
        tigera.install(cluster, installation={}, strict_affinity=False)
        with pytest.raises(ApiError) as refused:
            cluster.patch('IPAMConfiguration', None, 'default', {'spec': {'strictAffinity': True}})
        assert refused.value.status == 415
        definition = {'apiVersion': 'projectcalico.org/v3', 'kind': 'IPAMConfiguration',
                      'metadata': {'name': 'default'}, 'spec': {'strictAffinity': True}}
        result = k8s_modules.perform(Module(state='present'), cluster, definition)
        assert result['changed'] is True
        assert cluster.get('IPAMConfiguration', None, 'default')['spec'] == {'strictAffinity': True}
        with pytest.raises(ApiError):
            k8s_modules.perform(Module(merge_type=['strategic-merge']), cluster, definition)


def test_the_operator_reports_what_windows_lacks_until_everything_is_in_place(state):
    with open_cluster(state) as cluster:
        tigera.install(cluster, installation={'calicoNetwork': {'windowsDataplane': 'HNS', 'ipPools': [
            {'cidr': '10.244.0.0/16', 'encapsulation': 'VXLANCrossSubnet'}]}})

    def degraded():
        with open_cluster(state) as current:
            return current.get('Installation', None, 'default')['status']['conditions'][0]['message']

    assert degraded() == ("services endpoint configmap 'kubernetes-services-endpoint' does not have all required "
                          "information for Calico Windows daemonset configuration")
    with open_cluster(state) as cluster:
        cluster.create({'apiVersion': 'v1', 'kind': 'ConfigMap',
                        'metadata': {'name': 'kubernetes-services-endpoint', 'namespace': 'tigera-operator'},
                        'data': {'KUBERNETES_SERVICE_HOST': '10.127.130.10', 'KUBERNETES_SERVICE_PORT': '6443'}})
    assert degraded() == 'installation spec.ServiceCIDRs must be provided when using Calico CNI on Windows'
    with open_cluster(state) as cluster:
        cluster.patch('Installation', None, 'default', {'spec': {'serviceCIDRs': ['10.96.0.0/12']}}, 'merge')
    assert degraded() == 'IPv4 IPPool encapsulation VXLANCrossSubnet is not supported by Calico for Windows'
    with open_cluster(state) as cluster:
        pools = cluster.get('Installation', None, 'default')['spec']['calicoNetwork']['ipPools']
        pools[0]['encapsulation'] = 'VXLAN'
        cluster.patch('Installation', None, 'default', {'spec': {'calicoNetwork': {'ipPools': pools}}}, 'merge')
    assert degraded().startswith('StrictAffinity is false')
    with open_cluster(state) as cluster:
        cluster.create({'apiVersion': 'projectcalico.org/v3', 'kind': 'IPAMConfiguration',
                        'metadata': {'name': 'default'}, 'spec': {'strictAffinity': True}})
    assert degraded() == ''


def test_the_operator_writes_felix_defaults_and_keeps_what_is_set(state):
    """core_controller.go setDefaultsOnFelixConfiguration: healthPort 9099, vxlanVNI 4096, vxlanPort 4789 when unset."""
    with open_cluster(state) as cluster:
        tigera.install(cluster, installation={})
        assert cluster.get('FelixConfiguration', None, 'default')['spec'] == {
            'healthPort': 9099, 'vxlanVNI': 4096, 'vxlanPort': 4789}
    # A FelixConfiguration found before the operator (flannel's migration controller copies flannel's VNI and port).
    other = os.path.join(state, 'migrated')
    os.mkdir(other)
    with open_cluster(other) as cluster:
        found = {'vxlanVNI': 1, 'vxlanPort': 8472, 'vxlanEnabled': False}
        tigera.install(cluster, installation={}, felix_configuration=found)
        assert cluster.get('FelixConfiguration', None, 'default')['spec'] == {
            'healthPort': 9099, 'vxlanVNI': 1, 'vxlanPort': 8472, 'vxlanEnabled': False}
        # A JSON merge patch's null removes a field (RFC 7386), and the operator does not put vxlanEnabled back.
        cluster.patch('FelixConfiguration', None, 'default', {'spec': {'vxlanEnabled': None}}, 'merge')
        cluster.reconcile()
        assert 'vxlanEnabled' not in cluster.get('FelixConfiguration', None, 'default')['spec']
    # Without the Calico API server projectcalico.org/v3 is not served (its crd.projectcalico.org storage is not modelled).
    bare = os.path.join(state, 'bare')
    os.mkdir(bare)
    with open_cluster(bare) as cluster:
        tigera.install(cluster, installation={}, api_server=False)
        with pytest.raises(ApiError, match='projectcalico.org/v3.FelixConfiguration'):
            cluster.resolve('projectcalico.org/v3', 'FelixConfiguration')


def test_a_changed_block_size_is_refused_and_the_pool_keeps_its_own(state):
    """libcalico-go clientv3/ippool.go: "IPPool BlockSize cannot be modified"; ippool.mdx: set only at creation."""
    with open_cluster(state) as cluster:
        tigera.install(cluster, installation={'calicoNetwork': {'ipPools': [{'cidr': '10.244.0.0/16'}]}})
        pools = cluster.get('Installation', None, 'default')['spec']['calicoNetwork']['ipPools']
        pools[0].update(blockSize=24, encapsulation='VXLAN')
        cluster.patch('Installation', None, 'default', {'spec': {'calicoNetwork': {'ipPools': pools}}}, 'merge')
        cluster.reconcile()
        pool = cluster.get('IPPool', None, 'default-ipv4-ippool')['spec']
        condition = cluster.get('Installation', None, 'default')['status']['conditions'][0]
    assert (pool['blockSize'], pool['vxlanMode']) == (26, 'Never')
    assert (condition['status'], condition['reason'], condition['message']) == (
        'True', 'ResourceUpdateError', 'IPPool.projectcalico.org "default-ipv4-ippool" is invalid: IPPool BlockSize '
        'cannot be modified')
