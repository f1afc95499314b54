"""playbooks/reset.yml against a simulated cluster and Windows nodes: converge with site.yml, reset (the Node is
drained and deleted, nothing of the collection is left on the node), reset again (no change), converge again (the
node rejoins with a new podCIDR and no stale lease, source VIP or host endpoint), converge again (no change)."""

import hashlib
import json
import os
import sys

import pytest

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import cluster as sim_cluster, web  # noqa: E402
from kubewin_sim.node import windows_state  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402

OPTIONS = {'join_method': 'bootstrap_kubeconfig'}
SERVICES = ('kubelet', 'kube-proxy', 'flanneld')
# What reset removes, as the roles lay it out on the node (plan paths).
STATE_PREFIXES = ('c:\\etc\\kubernetes\\', 'c:\\var\\lib\\kubelet\\', 'c:\\etc\\kube-flannel\\', 'c:\\run\\flannel\\',
                  'c:\\var\\lib\\cni\\', 'c:\\programdata\\kubewin\\log-rotation\\')
STATE_FILES = ('c:\\etc\\cni\\net.d\\10-kubewin.conf', 'c:\\k\\sourcevip.json', 'c:\\k\\sourcevip.requestjson')


def _fleet(sim, topology, **group):
    return sim.inventory(
        {'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology=topology, kubewin_kubernetes_version='1.31.14', **group),
        control_plane={'cp1': {}})


def _node_object(sim, name='win1'):
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        return cluster.get('Node', None, name)


def _pod_nodes(sim):
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        return [p['spec'].get('nodeName') for p in cluster.list('Pod', 'default')]


def _leftovers(node):
    """What the collection set up that is still on the node."""
    data = node.data
    files = [path for path in node.file_paths() if path.lower().startswith(STATE_PREFIXES) or path.lower() in STATE_FILES]
    managed = [path for path in node.managed_registry()['files'] if path.lower().startswith(STATE_PREFIXES)]
    return {
        'services': sorted(name for name in SERVICES if name in data['services']),
        'networks': sorted(n['name'] for n in data['hns']['networks']),
        'endpoints': sorted(e['name'] for e in data['hns']['endpoints']),
        'policy_lists': len(data['hns'].get('policy_lists') or []),
        'files': sorted(files),
        'managed': sorted(managed),
        'firewall': sorted(name for name in data['firewall_rules'] if name.startswith('kubewin-')),
        'vnics': sorted(a['name'] for a in data['adapters'] if a['name'].startswith('vEthernet')),
        'scheduled_tasks': sorted(data.get('scheduled_tasks') or {}),
    }


def _unchanging(node):
    """The node's Windows state, without what a run that changes nothing moves (its counters and clock)."""
    return json.dumps(windows_state(node.data), sort_keys=True)


NOTHING = {'services': [], 'networks': [], 'endpoints': [], 'policy_lists': 0, 'files': [], 'managed': [],
           'firewall': [], 'vnics': [], 'scheduled_tasks': []}


def _converge(sim, inventory, **extra):
    result = network_play.run(sim, 'playbooks/site.yml', inventory, **OPTIONS, **extra)
    assert result.rc == 0, result.output
    node = _node_object(sim)
    assert node is not None and sim.cluster().node_ready(node), 'win1 is Ready'
    return node


# Long (make unit-long): make test keeps the calico e2e fleet's reset and rejoin, tests/unit/playbooks/test_reset_daemonset.py
# and the engine runs of node_reset_apply.ps1 (tests/unit/simulation/test_script_node_reset.py).
@pytest.mark.long
def test_reset_overlay_then_rejoin(tmp_path):
    sim = Simulation(tmp_path)
    inventory = _fleet(sim, 'overlay')
    first = _converge(sim, inventory)
    old_cidr = first['spec']['podCIDR']
    assert _leftovers(sim.node('win1'))['policy_lists'] > 0, 'kube-proxy programmed its load balancers'
    # The log rotation task (role log_rotation) rotates the logs of the services this run set up.
    assert _leftovers(sim.node('win1'))['scheduled_tasks'] == ['\\kubewin\\log-rotation']
    config = json.loads(network_play.text(sim, 'win1', 'C:\\ProgramData\\kubewin\\log-rotation\\config.json'))
    assert config['logs'] == [{'path': 'C:\\ProgramData\\containerd\\containerd.log', 'copy_truncate': True},
                              {'path': 'C:\\var\\log\\kubelet\\kubelet.log', 'copy_truncate': True},
                              {'path': 'C:\\var\\log\\kube-proxy\\kube-proxy.log', 'copy_truncate': True},
                              {'path': 'C:\\var\\log\\flanneld\\flanneld.log', 'copy_truncate': False}]
    # A workload on the node: the drain evicts it and its Deployment runs it elsewhere (nowhere here).
    with sim.edit_cluster() as cluster:
        cluster.create({'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web', 'namespace': 'default'},
                        'spec': {'replicas': 1, 'selector': {'matchLabels': {'app': 'web'}},
                                 'template': {'metadata': {'labels': {'app': 'web'}}, 'spec': {
                                     'nodeSelector': {'kubernetes.io/os': 'windows'},
                                     'tolerations': [{'key': 'os', 'value': 'windows', 'effect': 'NoSchedule'}],
                                     'containers': [{'name': 'web', 'image': 'mcr.microsoft.com/windows/servercore:ltsc2022'}]}}}})
    assert _pod_nodes(sim) == ['win1']

    before = _unchanging(sim.node('win1'))
    check = network_play.run(sim, 'playbooks/reset.yml', inventory, '--check', '--diff')
    assert check.rc == 0, check.output
    predicted = check.result('Remove the services, kube-proxy\'s load balancers, the endpoints and the node\'s files',
                             'win1')['result']
    assert predicted['changed'] and sorted(predicted['removed']['services']) == sorted(SERVICES)
    networks = check.result('Remove the HNS networks', 'win1')['result']['results']
    assert [(r['item'], r['changed']) for r in networks] == [('flannel.4096', True), ('External', True)]
    assert _node_object(sim) is not None and _unchanging(sim.node('win1')) == before, 'check mode changed nothing'

    reset = network_play.run(sim, 'playbooks/reset.yml', inventory)
    assert reset.rc == 0, reset.output
    assert _node_object(sim) is None, 'the Node is deleted'
    assert reset.api_calls['by_kind'].get('k8s_drain:drain') == 1
    assert _pod_nodes(sim) == [None], 'the pod was evicted and has no node to go to'
    assert _leftovers(sim.node('win1')) == NOTHING
    adapter = sim.node('win1').data['adapters'][0]
    assert adapter['name'] == 'Ethernet' and adapter['ipv4'][0]['address'] == '10.127.130.38', 'the address is back'
    reset_calls = reset.calls['win1']['total']

    again = network_play.run(sim, 'playbooks/reset.yml', inventory)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'a reset node costs one remote call'

    rejoined = _converge(sim, inventory)
    new_cidr = rejoined['spec']['podCIDR']
    assert new_cidr != old_cidr, 'node IPAM gave the rejoined node another podCIDR'
    assert network_play.network(sim, 'win1', 'flannel.4096')['subnets'][0]['address_prefix'] == new_cidr
    subnet_env = network_play.text(sim, 'win1', 'C:\\run\\flannel\\subnet.env')
    assert 'FLANNEL_SUBNET=%s/24' % new_cidr.replace('.0/24', '.1') in subnet_env, 'no stale lease'
    vip = json.loads(network_play.text(sim, 'win1', 'C:\\k\\SourceVip.json'))['ips'][0]['address'].split('/')[0]
    assert vip == new_cidr.replace('.0/24', '.2'), 'no stale source VIP'
    assert '--source-vip=%s' % vip in sim.node('win1').data['services']['kube-proxy']['command_line']
    assert _pod_nodes(sim) == ['win1']

    steady = network_play.run(sim, 'playbooks/site.yml', inventory, **OPTIONS)
    assert steady.rc == 0 and steady.changed('win1') == 0, steady.output
    print('remote calls on win1: reset %d, second reset %d' % (reset_calls, again.calls['win1']['total']))


# Long (make unit-long): the calico e2e fleet's reset and rejoin is this lifecycle's part in make test.
@pytest.mark.long
def test_reset_l2bridge_with_the_runtime_then_rejoin(tmp_path):
    """l2bridge with flannel host-gw: the host endpoint cbr0_ep goes with its network, and with
    reset_container_runtime the runtime goes too; site.yml installs it again and the node rejoins."""
    sim = Simulation(tmp_path)
    with sim.edit_cluster(profile={'flannel_backend': {'Type': 'host-gw'}}):
        pass
    inventory = _fleet(sim, 'l2bridge')
    old_cidr = _converge(sim, inventory)['spec']['podCIDR']
    assert network_play.network(sim, 'win1', 'cbr0')
    assert [e['name'] for e in sim.node('win1').data['hns']['endpoints']] == ['cbr0_ep']

    reset = network_play.run(sim, 'playbooks/reset.yml', inventory, '-e', 'reset_container_runtime=true')
    assert reset.rc == 0, reset.output
    assert _node_object(sim) is None
    node = sim.node('win1')
    assert _leftovers(node) == NOTHING
    assert 'containerd' not in node.data['services']
    assert not [p for p in node.file_paths() if p.lower().startswith('c:\\program files\\containerd\\')]
    assert not [d for d in node.managed_registry()['artifacts'] if d.lower().startswith('c:\\program files\\containerd')], \
        'the artifact record goes with the runtime'

    rejoined = _converge(sim, inventory)
    assert rejoined['spec']['podCIDR'] != old_cidr
    assert sim.node('win1').data['services']['containerd']['state'] == 'running'
    endpoint = [e for e in sim.node('win1').data['hns']['endpoints'] if e['name'] == 'cbr0_ep']
    assert len(endpoint) == 1 and endpoint[0]['ip_address'] == rejoined['spec']['podCIDR'].replace('.0/24', '.2'), \
        'one host endpoint, in the new subnet'


# Long (make unit-long): the calico e2e fleet's reset and rejoin is this lifecycle's part in make test.
@pytest.mark.long
def test_reset_ovn_then_rejoin(tmp_path):
    """ovn: collect_logs fetches the Open vSwitch state; the reset removes the Transparent network and takes the
    node out of OVN (its bridge and chassis settings, ovn-controller stopped); Open vSwitch stays installed.
    site.yml rebuilds the bridge on the new vSwitch and the node rejoins."""
    sim = Simulation(tmp_path)
    msi = 'https://cloudbase.it/downloads/openvswitch-hyperv-2.7.0-certified.msi'
    inventory = sim.inventory(
        {'win1': {'ansible_host': '10.127.130.38', 'kubewin_pod_cidr': '10.244.11.0/24',
                  'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='ovn', kubewin_kubernetes_version='1.31.14'),
        control_plane={'cp1': {}})
    pins = {'artifacts_checksum_overrides': {
        'openvswitch': {'2.7.0': 'sha256:' + hashlib.sha256(web.body(msi)).hexdigest()}}}
    _converge(sim, inventory, **pins)
    assert sim.node('win1').data['ovs']['db']['external_ids']['system-id'] == 'win1'

    # Open vSwitch logging to its default folder: collect_logs_paths fetches the file.
    ovs_log = 'C:\\ProgramData\\openvswitch\\logs\\ovs-vswitchd.log'
    with sim.edit_node('win1') as node:
        node.write_file(ovs_log, content='bridge br-ex: added interface Ethernet\n')
    target = tmp_path / 'collected'
    collect = sim.run('playbooks/collect_logs.yml', inventory, '-e', 'collect_logs_dir=%s' % target,
                      '-e', '{"collect_logs_paths": ["%s"]}' % ovs_log.replace('\\', '\\\\'))
    assert collect.rc == 0, collect.output
    folder = tmp_path / 'collected' / 'win1'
    state = json.loads((folder / 'ovs.json').read_text())
    # An ordinary port's type is empty in the database (vswitch.xml: a synonym for system).
    assert state['database']['bridges']['br-ex']['ports']['Ethernet'] == {'type': '', 'error': None}
    assert state['switches'] == [{'name': 'external', 'adapter': 'Ethernet', 'extension': {'enabled': True}}]
    services = json.loads((folder / 'services.json').read_text())
    assert services['ovn-controller']['state'] == 'running' and services['kube-proxy']['exists'] is False
    assert (folder / 'ovs-vswitchd.log').read_text() == 'bridge br-ex: added interface Ethernet\n'

    reset = network_play.run(sim, 'playbooks/reset.yml', inventory)
    assert reset.rc == 0, reset.output
    assert _node_object(sim) is None
    node = sim.node('win1')
    assert _leftovers(node) == NOTHING
    ovs = node.data['ovs']
    assert ovs['db'] == {'bridges': {}, 'external_ids': {}} and ovs['products'], 'out of OVN, Open vSwitch kept'
    assert {name: node.data['services'][name]['state'] for name in ('ovsdb-server', 'ovs-vswitchd', 'ovn-controller')} \
        == {'ovsdb-server': 'running', 'ovs-vswitchd': 'running', 'ovn-controller': 'stopped'}

    again = network_play.run(sim, 'playbooks/reset.yml', inventory)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'a reset node costs one remote call'

    _converge(sim, inventory, **pins)
    node = sim.node('win1')
    assert node.data['ovs']['db']['bridges']['br-ex']['ports'] == {'vEthernet (Ethernet)': 'internal',
                                                                   'Ethernet': 'system'}
    assert node.data['ovs']['db']['external_ids']['ovn-encap-ip'] == '10.127.130.38'
    assert node.data['services']['ovn-controller']['state'] == 'running'
    steady = network_play.run(sim, 'playbooks/site.yml', inventory, **OPTIONS, **pins)
    assert steady.rc == 0 and steady.changed('win1') == 0, steady.output
