"""Every value of the IP plan reaches the component on the node that must honour it.

The plan is sized for kubewin_max_pods pods per node, DNS at kubewin_dns_service_ip, and so on; a value
that only sized the plan and never reached the kubelet, the CNI config, flannel or kube-proxy would leave
the node running with its own defaults. The roles' own expressions are templated here (no node
involved), with the facts the plan role hands a node, for a plan whose every value differs from its
default.
"""

from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kubewin.node.plugins.plugin_utils import _ip_plan, _node_plan

ROOT = Path(__file__).resolve().parents[3]

# Every plan value set to something other than its default (overlay: flannel vxlan runs everywhere).
PLAN = {
    'topology': 'overlay',
    'cluster_cidr': '10.200.0.0/16',
    'service_cidr': '10.100.0.0/16',
    'dns_service_ip': '10.100.0.53',
    'management_cidr': '10.127.130.0/24',
    'extra_exceptions': ['172.30.0.0/16'],
    'node_prefix_length': 25,
    'max_pods': 60,
    'node_count': 40,
    'vxlan_vni': 4097,
    'vxlan_port': 4789,  # flannel on Windows accepts nothing else
    'network_name': 'vxlan-pods',
    'placeholder_cidr': '192.168.254.0/30',
    'cluster_domain': 'corp.example',
}
# The log rotation settings, not their defaults (kubewin_log_max_size_mb, kubewin_log_files_kept).
LOGS = {'max_size_mb': 7, 'files_kept': 3}
KUBERNETES_VERSION = '1.33.13'
NODE = {'name': 'win1', 'management_ip': '10.127.130.38', 'pod_cidr': None}
# Values the node never reads: they size or shape the plan on the controller. node_count and
# node_prefix_length size the cluster range; with flannel (kube-subnet-mgr) the node's pod subnet is the
# podCIDR the control plane assigns, and l2bridge_routing and topology pick the roles that run. calico_backend
# is read on the cluster side only (control_plane_calico_backend, tests/unit/roles/test_control_plane_calico.py)
# until the network_calico role is built (site.yml refuses calico until then); that role moves it to CONSUMERS.
# node_prefix_length_ipv6 sizes a dual-stack plan's IPv6 node subnets as node_prefix_length does the IPv4 ones: each
# node's IPv6 pod subnet is its kubewin_pod_cidr, which reaches the node (and the e2e fleet l2bridge-dualstack checks).
PLAN_ONLY = {'node_count', 'node_prefix_length', 'node_prefix_length_ipv6', 'l2bridge_routing', 'topology',
             'calico_backend'}


def facts(topology='overlay', runtime='containerd'):
    plan = dict(PLAN, topology=topology, nodes=[NODE])
    if topology != 'overlay':
        del plan['vxlan_vni'], plan['vxlan_port']
    cluster = _ip_plan.normalize_plan(plan)
    node = _node_plan.node_network(plan, {'win1': runtime})['win1']
    return {
        'plan_cluster': cluster, 'plan_node': node, 'plan_paths': _node_plan.node_paths({}),
        'plan_logs': _node_plan.node_logs(LOGS),
        'plan_versions': {'kubernetes_version': KUBERNETES_VERSION, 'control_plane_version': None, 'acknowledged_cves': []},
        'inventory_hostname': 'win1',
        'kubewin_node': {'os': {'build': 20348}},
        'prerequisites_versions': {'pause_image': 'registry.k8s.io/pause:3.10.1'},
        'kubernetes_binaries_paths': {'kube-log-runner': 'C:\\k\\kube-log-runner.exe'},
        'network_overlay_source_vip': '10.200.3.2',
        'network_overlay_placeholder_name': 'External', 'network_overlay_placeholder_vsid': 9999,
        'network_overlay_adapter': '', 'network_overlay_reconnect_timeout': 120,
    }


def role_defaults(role):
    return yaml.safe_load((ROOT / 'roles' / role / 'defaults' / 'main.yml').read_text(encoding='utf-8')) or {}


def task(role, name):
    """The task of that name in any of the role's task files."""
    tasks = [entry for path in sorted((ROOT / 'roles' / role / 'tasks').glob('*.yml'))
             for entry in yaml.safe_load(path.read_text(encoding='utf-8')) or []]
    found = [entry for entry in tasks if entry.get('name') == name]
    assert len(found) == 1, '%s has no task %r' % (role, name)
    return found[0]


def trusted(value):
    """Role files are trusted templates; Ansible marks them so when it loads them."""
    if isinstance(value, str):
        return trust_as_template(value)
    if isinstance(value, dict):
        return {key: trusted(item) for key, item in value.items()}
    return value


def template(role, value, **more):
    variables = {key: trusted(item) for key, item in {**role_defaults(role), **facts(), **more}.items()}
    return Templar(loader=DataLoader(), variables=variables).template(trusted(value))


def kubelet_args():
    entry = task('kubelet', "Work out the kubelet's command line")
    return template('kubelet', entry['ansible.builtin.set_fact']['kubelet_command'], **(entry.get('vars') or {}))['args']


def kube_proxy_args():
    entry = task('kube_proxy', "Work out kube-proxy's command line")
    return template('kube_proxy', entry['ansible.builtin.set_fact']['kube_proxy_command'])


def kube_proxy_daemonset_env():
    """The container environment of the kube-proxy DaemonSet as the kube_proxy role and control_plane derive it."""
    vars_file = yaml.safe_load((ROOT / 'roles' / 'kube_proxy' / 'vars' / 'main.yml').read_text(encoding='utf-8'))
    daemon_set = template('kube_proxy', vars_file['kube_proxy_daemonset'])['objects'][1]
    return {item['name']: item.get('value') for item in daemon_set['spec']['template']['spec']['containers'][0]['env']}


def kubelet_config():
    text = (ROOT / 'roles' / 'join' / 'templates' / 'kubelet-config.yaml.j2').read_text(encoding='utf-8')
    return yaml.safe_load(template('join', text, join_ca_file='C:\\etc\\kubernetes\\pki\\ca.crt'))


def win_bridge_cni():
    """The CNI config of an l2bridge Docker node (win-bridge), which carries DNS and every exception itself;
    sdnbridge and sdnoverlay (containerd) take DNS from the runtime, which has it from the kubelet."""
    return facts('l2bridge', 'docker')['plan_node']['cni_config']


def exceptions(cni):
    return [policy['Value']['ExceptionList'] for policy in cni['delegate']['policies']
            if policy['Value']['Type'] == 'OutBoundNAT'][0]


def placeholder_network():
    return template('network_overlay', task('network_overlay', 'Create the vSwitch with the placeholder Overlay network')[
        'kubewin.node.hns_network'])


# Where each plan value must arrive, as (component, check); a check returns true when the value is there.
CONSUMERS = {
    'max_pods': [
        ('kubelet --max-pods', lambda: '--max-pods=60' in kubelet_args()),
        ('KubeletConfiguration maxPods (join without kubeadm)', lambda: kubelet_config()['maxPods'] == 60),
    ],
    'dns_service_ip': [
        ('kubelet --cluster-dns', lambda: '--cluster-dns=10.100.0.53' in kubelet_args()),
        ('KubeletConfiguration clusterDNS', lambda: kubelet_config()['clusterDNS'] == ['10.100.0.53']),
        ('CNI config dns.Nameservers', lambda: win_bridge_cni()['delegate']['dns']['Nameservers'] == ['10.100.0.53']),
    ],
    'cluster_domain': [
        ('kubelet --cluster-domain', lambda: '--cluster-domain=corp.example' in kubelet_args()),
        ('KubeletConfiguration clusterDomain', lambda: kubelet_config()['clusterDomain'] == 'corp.example'),
        ('CNI config dns.Search', lambda: win_bridge_cni()['delegate']['dns']['Search'] == ['svc.corp.example']),
    ],
    'cluster_cidr': [
        ('flannel net-conf Network', lambda: facts()['plan_node']['flannel_net_conf']['Network'] == '10.200.0.0/16'),
        ('kube-proxy --cluster-cidr', lambda: '--cluster-cidr=10.200.0.0/16' in kube_proxy_args()['args']),
        ('kube-proxy DaemonSet --cluster-cidr',
         lambda: '--cluster-cidr=10.200.0.0/16' in kube_proxy_daemonset_env()['KUBEWIN_KUBE_PROXY_ARGS'].split('\n')),
        ('CNI config OutBoundNAT exceptions', lambda: '10.200.0.0/16' in exceptions(win_bridge_cni())),
    ],
    'service_cidr': [
        ('CNI config OutBoundNAT exceptions', lambda: '10.100.0.0/16' in exceptions(win_bridge_cni())),
    ],
    'management_cidr': [
        ('CNI config OutBoundNAT exceptions (l2bridge)', lambda: '10.127.130.0/24' in exceptions(win_bridge_cni())),
    ],
    'extra_exceptions': [
        ('CNI config OutBoundNAT exceptions', lambda: '172.30.0.0/16' in exceptions(win_bridge_cni())),
    ],
    'vxlan_vni': [
        ('flannel net-conf Backend.VNI', lambda: facts()['plan_node']['flannel_net_conf']['Backend']['VNI'] == 4097),
        ('kube-proxy network name', lambda: 'KUBE_NETWORK' in kube_proxy_args()['env']),
    ],
    'vxlan_port': [
        ('flannel net-conf Backend.Port', lambda: facts()['plan_node']['flannel_net_conf']['Backend']['Port'] == 4789),
    ],
    'network_name': [
        ('flannel net-conf Backend.Name', lambda: facts()['plan_node']['flannel_net_conf']['Backend']['Name'] == 'vxlan-pods'),
        ('CNI config name', lambda: facts()['plan_node']['cni_config']['name'] == 'vxlan-pods'),
        ('kube-proxy --network-name', lambda: 'vxlan-pods' in ' '.join(kube_proxy_args()['args'])
         + ' '.join(str(value) for value in kube_proxy_args()['env'].values())),
        ('kube-proxy DaemonSet KUBE_NETWORK', lambda: kube_proxy_daemonset_env()['KUBE_NETWORK'] == 'vxlan-pods'),
    ],
    'placeholder_cidr': [
        ('placeholder HNS network', lambda: placeholder_network()['address_prefix'] == '192.168.254.0/30'),
    ],
}


def test_every_plan_value_has_a_consumer_or_is_only_sizing():
    keys = set(_ip_plan.PLAN_KEYS) - {'nodes'}
    assert set(CONSUMERS) | PLAN_ONLY == keys, 'a new plan value needs a consumer here (or a reason in PLAN_ONLY)'
    assert not set(CONSUMERS) & PLAN_ONLY
    # Every value of the test plan is not its default: a check cannot pass by the default alone.
    for key, value in _ip_plan.PLAN_DEFAULTS.items():
        if key in CONSUMERS and key != 'vxlan_port':
            assert PLAN[key] not in (value, list(value) if isinstance(value, tuple) else value), key


@pytest.mark.parametrize('key, component, check', [(key, component, check) for key, checks in CONSUMERS.items()
                                                   for component, check in checks],
                         ids=lambda value: value if isinstance(value, str) else '')
def test_plan_value_reaches_its_component(key, component, check):
    assert check(), '%s (kubewin_%s) does not reach %s' % (PLAN[key], key, component)


def service_rotate_bytes(role, name, **more):
    entry = task(role, name)
    return int(template(role, entry['kubewin.node.node_service']['log_rotate_bytes'], **dict(entry.get('vars') or {}, **more)))


def test_log_max_size_reaches_every_rotating_component():
    assert LOGS['max_size_mb'] != _node_plan.LOG_DEFAULTS['max_size_mb']
    # nssm rotates at AppRotateBytes (flanneld always; the kubelet and kube-proxy with service_manager nssm).
    for role, name in (('kubelet', 'Register the kubelet service'), ('kube_proxy', 'Register the kube-proxy service'),
                       ('flannel', 'Run flanneld as a service under nssm')):
        assert service_rotate_bytes(role, name) == 7 * 1048576, role
    # kube-log-runner rotates itself from 1.34 (-log-file-size); 1.33's has no such flag.
    assert KUBERNETES_VERSION.startswith('1.33.')
    assert not [word for word in wrapper('kubelet', "Work out the kubelet's command line", 'kubelet_command')
                if word.startswith('-log-file-size')]
    newer = {'plan_versions': {'kubernetes_version': '1.34.2', 'control_plane_version': None, 'acknowledged_cves': []}}
    assert '-log-file-size=7Mi' in wrapper('kubelet', "Work out the kubelet's command line", 'kubelet_command', **newer)
    assert '-log-file-size=7Mi' in wrapper('kube_proxy', "Work out kube-proxy's command line", 'kube_proxy_command', **newer)


def wrapper(role, name, fact, **more):
    entry = task(role, name)
    return template(role, entry['ansible.builtin.set_fact'][fact], **dict(entry.get('vars') or {}, **more))['wrapper']
