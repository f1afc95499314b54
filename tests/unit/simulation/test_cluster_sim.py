"""The simulated Kubernetes API behaves as the API server does where the roles depend on it."""

import base64
import hashlib
import hmac
import json
import os
import re
import sys
import time

import pytest
import yaml

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import cluster as sim_cluster, k8s_modules  # noqa: E402
from kubewin_sim.cluster import KUBELET_KUBECONFIG, open_cluster  # noqa: E402
from kubewin_sim.k8s_objects import ApiError, meaningful_diff, parse_label_selector, strategic_merge  # noqa: E402
from kubewin_sim.node import open_node  # noqa: E402


@pytest.fixture
def state(tmp_path):
    return str(tmp_path)


def join_node(state, host, build=20348, ip='10.127.130.38'):
    with open_node(state, host, profile={'ip': ip, 'build': build}) as node:
        node.data['services']['kubelet'] = {'name': 'kubelet', 'exists': True, 'state': 'running'}
        node.write_file(KUBELET_KUBECONFIG, content='apiVersion: v1\nkind: Config\n')


# -- objects -------------------------------------------------------------------------------------

def test_a_fresh_cluster_is_a_kubeadm_cluster_with_flannel(state):
    with open_cluster(state) as cluster:
        configuration = yaml.safe_load(cluster.get('ConfigMap', 'kube-system', 'kubeadm-config')['data'][
            'ClusterConfiguration'])
        net_conf = json.loads(cluster.get('ConfigMap', 'kube-flannel', 'kube-flannel-cfg')['data']['net-conf.json'])
        kubeconfig = yaml.safe_load(cluster.get('ConfigMap', 'kube-public', 'cluster-info')['data']['kubeconfig'])
        nodes = cluster.list('Node')
    assert configuration['kubernetesVersion'] == 'v1.31.4' and configuration['apiVersion'] == 'kubeadm.k8s.io/v1beta4'
    assert configuration['networking'] == {'dnsDomain': 'cluster.local', 'podSubnet': '10.244.0.0/16',
                                           'serviceSubnet': '10.96.0.0/12'}
    assert net_conf['Backend'] == {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789}
    assert kubeconfig['clusters'][0]['cluster']['server'] == 'https://10.127.130.10:6443'
    pem = base64.b64decode(kubeconfig['clusters'][0]['cluster']['certificate-authority-data'])
    assert pem.startswith(b'-----BEGIN CERTIFICATE-----')
    assert [n['metadata']['name'] for n in nodes] == ['cp1']


def test_profile_shapes_the_cluster(state):
    with open_cluster(state, profile={'version': 'v1.29.9', 'flannel_namespace': 'kube-system',
                                      'flannel_backend': {'Type': 'vxlan', 'VNI': 1}}) as cluster:
        configuration = yaml.safe_load(cluster.get('ConfigMap', 'kube-system', 'kubeadm-config')['data'][
            'ClusterConfiguration'])
        net_conf = json.loads(cluster.get('ConfigMap', 'kube-system', 'kube-flannel-cfg')['data']['net-conf.json'])
    assert configuration['apiVersion'] == 'kubeadm.k8s.io/v1beta3'
    assert net_conf['Backend'] == {'Type': 'vxlan', 'VNI': 1}
    with pytest.raises(sim_cluster.SimulationError, match='unknown cluster profile'):
        sim_cluster.initial_state({'vni': 1})


def test_a_patch_that_changes_nothing_writes_nothing(state):
    with open_cluster(state) as cluster:
        version = cluster.get('DaemonSet', 'kube-system', 'kube-proxy')['metadata']['resourceVersion']
        before, after = cluster.patch('DaemonSet', 'kube-system', 'kube-proxy', {
            'spec': {'template': {'spec': {'nodeSelector': {'kubernetes.io/os': 'linux'}}}}})
    assert before == after and after['metadata']['resourceVersion'] == version
    assert meaningful_diff(before, after) is None


def test_spec_changes_bump_generation_and_resource_version(state):
    with open_cluster(state) as cluster:
        before, after = cluster.patch('DaemonSet', 'kube-flannel', 'kube-flannel-ds', {
            'spec': {'template': {'metadata': {'annotations': {'kubectl.kubernetes.io/restartedAt': 'now'}}}}})
    assert after['metadata']['generation'] == before['metadata']['generation'] + 1
    assert int(after['metadata']['resourceVersion']) > int(before['metadata']['resourceVersion'])
    assert meaningful_diff(before, after)['after'] == {
        'metadata': {'generation': 2, 'resourceVersion': after['metadata']['resourceVersion']},
        'spec': {'template': {'metadata': {'annotations': {'kubectl.kubernetes.io/restartedAt': 'now'}}}}}


def test_strategic_merge_merges_keyed_lists_and_replaces_others():
    original = {'spec': {'template': {'spec': {
        'containers': [{'name': 'a', 'image': 'x:1', 'env': [{'name': 'A', 'value': '1'}]}, {'name': 'b'}],
        'tolerations': [{'operator': 'Exists'}],
        'nodeSelector': {'keep': 'me', 'drop': 'me'}}}}}
    patch = {'spec': {'template': {'spec': {
        'containers': [{'name': 'a', 'env': [{'name': 'B', 'value': '2'}]}],
        'tolerations': [{'key': 'os', 'operator': 'Equal', 'value': 'windows'}],
        'nodeSelector': {'drop': None, 'new': 'one'}}}}}
    merged = strategic_merge(original, patch)['spec']['template']['spec']
    assert merged['containers'] == [{'name': 'a', 'image': 'x:1', 'env': [{'name': 'A', 'value': '1'},
                                                                          {'name': 'B', 'value': '2'}]}, {'name': 'b'}]
    assert merged['tolerations'] == [{'key': 'os', 'operator': 'Equal', 'value': 'windows'}]
    assert merged['nodeSelector'] == {'keep': 'me', 'new': 'one'}
    service = strategic_merge({'spec': {'ports': [{'port': 80, 'name': 'http', 'protocol': 'TCP'}]}},
                              {'spec': {'ports': [{'port': 80, 'name': 'http'}]}})
    assert service == {'spec': {'ports': [{'port': 80, 'name': 'http', 'protocol': 'TCP'}]}}


def test_api_server_rejections(state):
    with open_cluster(state) as cluster:
        with pytest.raises(ApiError, match='cannot unmarshal number into Go struct field data'):
            cluster.create({'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'x'}, 'data': {'a': 1}})
        with pytest.raises(ApiError, match='Failed to find exact match for extensions/v1beta1.Deployment'):
            cluster.create({'apiVersion': 'extensions/v1beta1', 'kind': 'Deployment', 'metadata': {'name': 'x'}})
        with pytest.raises(ApiError, match='namespaces "nowhere" not found'):
            cluster.create({'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'x', 'namespace': 'nowhere'}})
        cluster.create({'apiVersion': 'node.k8s.io/v1', 'kind': 'RuntimeClass', 'metadata': {'name': 'w'},
                        'handler': 'runhcs-wcow-process'})
        with pytest.raises(ApiError, match='handler: Invalid value: "docker": field is immutable'):
            cluster.patch('RuntimeClass', None, 'w', {'handler': 'docker'})
        with pytest.raises(ApiError, match='already exists'):
            cluster.create({'apiVersion': 'node.k8s.io/v1', 'kind': 'RuntimeClass', 'metadata': {'name': 'w'},
                            'handler': 'runhcs-wcow-process'})


def test_secret_string_data_is_stored_base64_in_data(state):
    with open_cluster(state) as cluster:
        created = cluster.create({'apiVersion': 'v1', 'kind': 'Secret', 'metadata': {'name': 's'},
                                  'stringData': {'a': 'b'}})
        before, after = cluster.patch('Secret', 'default', 's', {'stringData': {'a': 'b'}})
    assert 'stringData' not in created and created['data'] == {'a': base64.b64encode(b'b').decode()}
    assert created['type'] == 'Opaque' and before == after


def test_selectors(state):
    assert parse_label_selector('a=b,c in (d, e),!f,g') == [
        ('a', '=', ['b']), ('c', 'in', ['d', 'e']), ('f', '!', []), ('g', 'exists', [])]
    with open_cluster(state) as cluster:
        assert [s['metadata']['name'] for s in cluster.list('Service', label_selectors=['k8s-app=kube-dns'])] == [
            'kube-dns']
        assert cluster.list('Service', 'default', label_selectors=['k8s-app']) == []
        assert [n['metadata']['name'] for n in cluster.list('Node', field_selectors=['metadata.name=cp1'])] == ['cp1']
        with pytest.raises(ApiError, match='field label not supported: spec.clusterIP'):
            cluster.list('Service', field_selectors=['spec.clusterIP=10.96.0.10'])


# -- controllers ------------------------------------------------------------------------------------

def test_windows_nodes_register_from_the_simulated_nodes(state):
    with open_node(state, 'Win-A', profile={'ip': '10.127.130.38', 'build': 17763}):
        pass
    with open_cluster(state) as cluster:
        assert cluster.get('Node', None, 'win-a') is None
    join_node(state, 'Win-A', build=17763)
    with open_cluster(state) as cluster:
        node = cluster.get('Node', None, 'win-a')
        cluster.faults['not_ready'].append('win-a')
    assert node['metadata']['labels']['node.kubernetes.io/windows-build'] == '10.0.17763'
    assert node['metadata']['labels']['kubernetes.io/os'] == 'windows'
    assert node['status']['addresses'][0] == {'type': 'InternalIP', 'address': '10.127.130.38'}
    assert cluster.node_ready(node) and node['spec']['podCIDR'] == '10.244.1.0/24'
    with open_cluster(state) as cluster:
        faulted = cluster.get('Node', None, 'win-a')
    assert not cluster.node_ready(faulted)
    assert {'key': 'node.kubernetes.io/not-ready', 'effect': 'NoSchedule'} in faulted['spec']['taints']
    with open_node(state, 'Win-A') as windows:
        windows.data['services']['kubelet']['state'] = 'stopped'
    with open_cluster(state) as cluster:
        stopped = cluster.get('Node', None, 'win-a')
    assert [c['status'] for c in stopped['status']['conditions'] if c['type'] == 'Ready'] == ['Unknown']


def deployment(name, image, build, runtime_class=None):
    spec = {'nodeSelector': {'kubernetes.io/os': 'windows'}, 'containers': [{'name': 'web', 'image': image}]}
    if build:
        spec['nodeSelector']['node.kubernetes.io/windows-build'] = '10.0.%d' % build
    if runtime_class:
        spec = {'runtimeClassName': runtime_class, 'containers': spec['containers']}
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': name},
            'spec': {'replicas': 1, 'selector': {'matchLabels': {'app': name}},
                     'template': {'metadata': {'labels': {'app': name}}, 'spec': spec}}}


def test_pods_run_only_where_image_and_node_build_match(state):
    join_node(state, 'win-a', build=20348)
    with open_cluster(state) as cluster:
        cluster.create(deployment('good', 'mcr.microsoft.com/windows/servercore:ltsc2022', 20348))
        cluster.create(deployment('wrong-image', 'mcr.microsoft.com/windows/servercore:ltsc2019', None))
        cluster.create(deployment('no-node', 'mcr.microsoft.com/windows/servercore:ltsc2019', 17763))
    with open_cluster(state) as cluster:
        status = {d['metadata']['name']: d['status'] for d in cluster.list('Deployment')}
        pods = {p['metadata']['labels']['app']: p for p in cluster.list('Pod')}
    assert status['good']['availableReplicas'] == 1
    assert pods['good']['spec']['nodeName'] == 'win-a' and pods['good']['status']['podIP'].startswith('10.244.1.')
    assert 'availableReplicas' not in status['wrong-image']
    assert pods['wrong-image']['status']['containerStatuses'][0]['state']['waiting']['reason'] == \
        'CreateContainerError'
    assert pods['no-node']['status']['conditions'][0]['reason'] == 'Unschedulable'


def test_runtime_class_scheduling_is_merged_into_pods(state):
    join_node(state, 'win-a', build=20348)
    with open_cluster(state) as cluster:
        cluster.create(deployment('rc', 'mcr.microsoft.com/windows/servercore:ltsc2022', None, 'windows-2022'))
    with open_cluster(state) as cluster:
        rejected = cluster.get('Deployment', 'default', 'rc')['status']['conditions']
        cluster.create({'apiVersion': 'node.k8s.io/v1', 'kind': 'RuntimeClass', 'metadata': {'name': 'windows-2022'},
                        'handler': 'runhcs-wcow-process', 'scheduling': {'nodeSelector': {
                            'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348'}}})
    with open_cluster(state) as cluster:
        pod = cluster.list('Pod')[0]
    assert 'RuntimeClass "windows-2022" not found' in rejected[-1]['message']
    assert pod['spec']['nodeSelector']['node.kubernetes.io/windows-build'] == '10.0.20348'
    assert pod['spec']['nodeName'] == 'win-a'


def test_services_get_endpoint_slices_of_ready_pods(state):
    join_node(state, 'win-a', build=20348)
    with open_cluster(state) as cluster:
        cluster.create(deployment('web', 'mcr.microsoft.com/windows/servercore:ltsc2022', 20348))
        service = cluster.create({'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': 'web'},
                                  'spec': {'selector': {'app': 'web'}, 'ports': [{'port': 80}]}})
    with open_cluster(state) as cluster:
        slices = cluster.list('EndpointSlice', 'default', label_selectors=['kubernetes.io/service-name=web'])
        endpoints = cluster.get('Endpoints', 'default', 'web')
        backends = cluster.service_backends(service['spec']['clusterIP'], 80)[1]
    assert service['spec']['clusterIP'] == '10.96.0.101'
    assert [e['conditions']['ready'] for e in slices[0]['endpoints']] == [True]
    assert endpoints['subsets'][0]['addresses'][0]['nodeName'] == 'win-a'
    assert [b['nodeName'] for b in backends] == ['win-a']


def test_token_cleaner_and_bootstrap_signer(state):
    future = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(time.time() + 3600))
    past = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(time.time() - 1))
    with open_cluster(state) as cluster:
        for token_id, expiration in (('aaaaaa', future), ('bbbbbb', past)):
            cluster.create({'apiVersion': 'v1', 'kind': 'Secret', 'type': 'bootstrap.kubernetes.io/token',
                            'metadata': {'name': 'bootstrap-token-%s' % token_id, 'namespace': 'kube-system'},
                            'stringData': {'token-id': token_id, 'token-secret': '0123456789abcdef',
                                           'expiration': expiration, 'usage-bootstrap-signing': 'true'}})
    with open_cluster(state) as cluster:
        names = [s['metadata']['name'] for s in cluster.list('Secret', 'kube-system')]
        data = cluster.get('ConfigMap', 'kube-public', 'cluster-info')['data']
    assert names == ['bootstrap-token-aaaaaa']
    assert sorted(data) == ['jws-kubeconfig-aaaaaa', 'kubeconfig']
    header, payload, signature = data['jws-kubeconfig-aaaaaa'].split('.')
    assert payload == ''
    encoded = base64.urlsafe_b64encode(data['kubeconfig'].encode()).rstrip(b'=')
    expected = hmac.new(b'0123456789abcdef', header.encode() + b'.' + encoded, hashlib.sha256).digest()
    assert base64.urlsafe_b64encode(expected).rstrip(b'=').decode() == signature


def test_a_create_another_client_won_meanwhile_is_a_warning_without_change(state):
    """The fault created_meanwhile (a second AWX job slice): kubernetes.core.k8s read no object, another client
    created it, and the module's create gets 409 Conflict, which the real module (K8sService.create) turns into a
    warning, changed false and an empty result; the next try finds the object and changes nothing."""
    class Module:  # what perform() reads of an AnsibleModule
        params = {'state': 'present', 'merge_type': None}
        _diff = False

    definition = {'apiVersion': 'node.k8s.io/v1', 'kind': 'RuntimeClass', 'metadata': {'name': 'windows-2022'},
                  'handler': 'runhcs-wcow-process'}
    with open_cluster(state) as cluster:
        cluster.faults['created_meanwhile'] = [['RuntimeClass', 'windows-2022']]
        lost = k8s_modules.perform(Module(), cluster, json.loads(json.dumps(definition)))
        assert lost == {'changed': False, 'result': {}, 'method': 'create',
                        'warnings': ['windows-2022 was not found, but creating it returned a 409 Conflict error']}
        assert cluster.faults['created_meanwhile'] == [] and cluster.get('RuntimeClass', None, 'windows-2022')
        again = k8s_modules.perform(Module(), cluster, json.loads(json.dumps(definition)))
        assert again['changed'] is False and again['method'] == 'update'
        assert again['result']['metadata']['name'] == 'windows-2022'


# -- the cluster's clock (tests/simulation/README.md, "Time") -------------------------------------------

def test_a_wait_polls_on_the_clusters_clock(state, monkeypatch):
    # kubernetes.core's waiter: read, sleep wait_sleep, until wait_timeout. Here the sleeps pass on the cluster's
    # simulated clock at once: 600 s of waiting are 121 polls, whatever the test machine does meanwhile.
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', state)
    polls = []

    def read(cluster):
        polls.append(cluster.elapsed())
        return False, None

    started = time.monotonic()
    done, _value, waited = k8s_modules.poll({'wait_timeout': 600, 'wait_sleep': 5}, read)
    assert (done, waited, len(polls)) == (False, 600, 121)
    assert polls == [5.0 * n for n in range(121)]
    assert time.monotonic() - started < 60, 'no sleep on the test machine'


def test_a_wait_ends_at_the_poll_that_finds_the_condition(state, monkeypatch):
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', state)
    done, value, waited = k8s_modules.poll({'wait_timeout': 120, 'wait_sleep': 2},
                                           lambda cluster: (cluster.elapsed() >= 7, cluster.elapsed()))
    assert (done, value, waited) == (True, 8.0, 8)


def test_a_request_takes_a_second_of_the_clusters_clock(state):
    with open_cluster(state) as cluster:
        before = cluster.elapsed()
        cluster.count_call('k8s_info:Node')
        assert cluster.elapsed() == before + sim_cluster.REQUEST_SECONDS


def test_a_token_expires_when_the_clusters_time_reaches_it(state):
    with open_cluster(state) as cluster:
        # RFC 3339 in whole seconds: an expiration from the whole second before the cluster's date.
        expiration = sim_cluster.rfc3339(int(cluster.date()) + 60)
        cluster.create({'apiVersion': 'v1', 'kind': 'Secret', 'type': 'bootstrap.kubernetes.io/token',
                        'metadata': {'name': 'bootstrap-token-cccccc', 'namespace': 'kube-system'},
                        'stringData': {'token-id': 'cccccc', 'token-secret': '0123456789abcdef',
                                       'expiration': expiration, 'usage-bootstrap-authentication': 'true'}})
        cluster.pass_time(58)
    with open_cluster(state) as cluster:
        assert cluster.get('Secret', 'kube-system', 'bootstrap-token-cccccc') is not None
        cluster.pass_time(3)
    with open_cluster(state) as cluster:
        assert cluster.get('Secret', 'kube-system', 'bootstrap-token-cccccc') is None


# -- dual-stack (kubernetes/website dual-stack.md) ---------------------------------------------------------------

DUAL_PROFILE = {'pod_subnet': '10.244.0.0/16,fd00:10:244::/56', 'service_subnet': '10.96.0.0/12,fd00:10:96::/112'}


def _service(name, **spec):
    return {'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': name},
            'spec': dict({'selector': {'app': 'web'}, 'ports': [{'port': 80}]}, **spec)}


def test_a_dual_stack_cluster_gives_each_node_a_pod_cidr_of_each_family_and_each_pod_an_address_of_each(state):
    join_node(state, 'win-a', build=20348)
    with open_cluster(state, profile=DUAL_PROFILE) as cluster:
        configuration = yaml.safe_load(cluster.get('ConfigMap', 'kube-system', 'kubeadm-config')['data'][
            'ClusterConfiguration'])
        cluster.create(deployment('web', 'mcr.microsoft.com/windows/servercore:ltsc2022', 20348))
    with open_cluster(state) as cluster:
        node = cluster.get('Node', None, 'win-a')
        pod = cluster.list('Pod')[0]
    # kubeadm's podSubnet and serviceSubnet as dual-stack clusters have them.
    assert configuration['networking']['podSubnet'] == '10.244.0.0/16,fd00:10:244::/56'
    # The control-plane Node took the first subnet of each family.
    assert node['spec']['podCIDRs'] == ['10.244.1.0/24', 'fd00:10:244:1::/64']
    assert node['spec']['podCIDR'] == '10.244.1.0/24'
    addresses = [entry['ip'] for entry in pod['status']['podIPs']]
    assert addresses[0].startswith('10.244.1.') and addresses[1].startswith('fd00:10:244:1::')
    assert pod['status']['podIP'] == addresses[0]


def test_services_get_the_families_their_policy_asks_for_and_a_slice_per_family(state):
    join_node(state, 'win-a', build=20348)
    with open_cluster(state, profile=DUAL_PROFILE) as cluster:
        cluster.create(deployment('web', 'mcr.microsoft.com/windows/servercore:ltsc2022', 20348))
        default = cluster.create(_service('web4'))
        six = cluster.create(_service('web6', ipFamilies=['IPv6']))
        both = cluster.create(_service('web46', ipFamilyPolicy='PreferDualStack'))
    with open_cluster(state) as cluster:
        slices = cluster.list('EndpointSlice', 'default', label_selectors=['kubernetes.io/service-name=web46'])
        backends6 = cluster.service_backends(six['spec']['clusterIP'], 80)[1]
    assert (default['spec']['ipFamilies'], default['spec']['ipFamilyPolicy']) == (['IPv4'], 'SingleStack')
    assert six['spec']['ipFamilies'] == ['IPv6'] and six['spec']['clusterIP'].startswith('fd00:10:96::')
    assert both['spec']['ipFamilies'] == ['IPv4', 'IPv6'] and [ip[:3] for ip in both['spec']['clusterIPs']] == ['10.', 'fd0']
    assert sorted(s['addressType'] for s in slices) == ['IPv4', 'IPv6']
    assert [b['nodeName'] for b in backends6] == ['win-a'] and ':' in backends6[0]['addresses'][0]


@pytest.mark.parametrize(('spec', 'message'), [
    ({'ipFamilies': ['IPv6']}, 'spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster'),
    ({'ipFamilyPolicy': 'RequireDualStack'}, 'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is '
                                             'not configured for dual-stack services'),
])
def test_a_single_stack_cluster_refuses_ipv6_services_as_kube_apiserver_does(state, spec, message):
    with open_cluster(state) as cluster:
        with pytest.raises(ApiError, match=re.escape(message)):
            cluster.create(_service('web', **spec))


def test_kube_proxy_programs_each_family_its_hns_network_carries(state):
    from kubewin_sim import programs  # pylint: disable=import-outside-toplevel
    with open_cluster(state, profile=DUAL_PROFILE) as cluster:
        six = cluster.create(_service('web6', ipFamilies=['IPv6']))
        four = cluster.create(_service('web4'))
    with open_node(state, 'win-a', profile={'ip': '10.127.130.38', 'ipv6': 'fd00:127:130::38/64'}) as node:
        node.data['hns']['networks'].append({'id': 'n1', 'name': 'cbr0', 'type': 'L2Bridge', 'adapter': 'Ethernet',
                                             'subnets': [{'address_prefix': '10.244.1.0/24'},
                                                         {'address_prefix': 'fd00:10:244:1::/64'}]})
        node.data['hns']['networks'].append({'id': 'n2', 'name': 'v4only', 'type': 'L2Bridge', 'adapter': 'Ethernet',
                                             'subnets': [{'address_prefix': '10.244.2.0/24'}]})
        with open_cluster(state) as cluster:
            assert programs.network_families(node, 'cbr0') == ('IPv4', 'IPv6')
            assert six['spec']['clusterIP'] in programs.service_vips(cluster, programs.network_families(node, 'cbr0'))
            assert programs.service_vips(cluster, programs.network_families(node, 'v4only')) == sorted(
                ip for ip in programs.service_vips(cluster, ('IPv4',)))
            assert four['spec']['clusterIP'] in programs.service_vips(cluster, ('IPv4',))
