"""kubewin_kube_proxy_mode on one converged overlay node: service -> daemonset -> service, with the control_plane and
kube_proxy roles against the simulated cluster and node (the HostProcess pod runs its start script in the engine,
kubewin_sim/hostprocess.py). The node's Service load balancers are there after every step, the service goes only once
the pod is Ready, and each mode's run is idempotent; check mode predicts the switch and changes nothing. In daemonset
mode doctor.yml's repair restarts kube-proxy's pod, not a service.

The rest of site.yml is left out (a fresh converge costs a minute): the node starts as a converged node is, with the
kube-proxy binary, the overlay network and its source VIP."""

import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _kube_proxy_daemonset  # noqa: E402
from kubewin_sim.cluster import KUBELET_KUBECONFIG  # noqa: E402

# One phase of the run: the plan, control-plane and node plays as site.yml runs them, then the node's snapshot and its
# kube-proxy pods are read for the test. The phases of a test run in one ansible-playbook run (a run's start costs
# more than a phase): the first takes the mode from the inventory through the plan role, a later one sets it where the
# plan role puts it (plan_inventory on localhost, plan_kube_proxy_mode on the nodes).
FIRST = '''
- name: Plan ({mode})
  hosts: localhost
  gather_facts: false
  roles:
    - role: kubewin.node.plan
      vars:
        plan_distribute: true
'''
LATER = '''
- name: Mode {mode}
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Set kubewin_kube_proxy_mode to {mode} where the plan role hands it out
      ansible.builtin.set_fact:
        plan_inventory: "{{{{ plan_inventory | combine({{'kube_proxy_mode': '{mode}'}}) }}}}"
    - name: Hand it to the nodes
      ansible.builtin.set_fact:
        plan_kube_proxy_mode: {mode}
      delegate_to: win1
      delegate_facts: true
'''
PHASE = '''
- name: Control plane ({mode})
  hosts: kube_control_plane
  gather_facts: false
  roles:
    - kubewin.node.control_plane

- name: kube-proxy ({mode})
  hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: Take the node state snapshot ({mode})
      kubewin.node.node_info:
    - name: What the binaries and network roles hand kube-proxy on a converged node
      ansible.builtin.set_fact:
        kubernetes_binaries_paths: {{kube-proxy: 'C:\\k\\kube-proxy.exe', kube-log-runner: 'C:\\k\\kube-log-runner.exe'}}
        kubernetes_binaries_changed: []
        network_overlay_source_vip: 10.244.1.2
    - name: Run kube-proxy
      ansible.builtin.include_role:
        name: kubewin.node.kube_proxy
    - name: The node after {mode}
      kubewin.node.node_info:
        gather: [services, hns]
        services: [kube-proxy]
    - name: The kube-proxy pods after {mode}
      kubernetes.core.k8s_info:
        kind: Pod
        namespace: kube-system
        label_selectors: [k8s-app=kube-proxy-windows]
      delegate_to: cp1
'''
GROUP_VARS = {'kubewin_topology': 'overlay', 'kubewin_cluster_cidr': '10.244.0.0/16', 'kubewin_service_cidr': '10.96.0.0/12',
              'kubewin_management_cidr': '10.127.130.0/24', 'kubewin_kubernetes_version': '1.31.14'}
SERVICE = {'exists': True, 'state': 'running', 'start_mode': 'auto', 'dependencies': [], 'environment': [], 'nssm': None}


def converged_node(sim):
    with sim.edit_node('win1', profile={'ip': '10.127.130.38', 'build': 20348,
                                        'features': {'Containers': 'installed'}}) as node:
        for name in ('containerd', 'kubelet'):
            node.data['services'][name] = dict(SERVICE, name=name, command_line='C:\\k\\%s.exe' % name)
        node.write_file(KUBELET_KUBECONFIG, content='apiVersion: v1\nkind: Config\n')
        for binary in ('kube-proxy.exe', 'kube-log-runner.exe'):
            node.write_file('C:\\k\\' + binary, content=binary)
        node.data['hns']['available'] = True
        node.data['hns']['networks'].append({'id': 'n1', 'name': 'flannel.4096', 'type': 'Overlay', 'adapter': 'Ethernet',
                                             'subnets': [{'address_prefix': '10.244.1.0/24', 'gateway': '10.244.1.1'}],
                                             'management_ip': '10.127.130.38', 'flags': 0})
        node.write_file('C:\\k\\SourceVip.json', content='{"cniVersion":"0.3.1","ips":[{"address":"10.244.1.2/24"}]}')


def objects(sim, kind):
    return {key: obj for key, obj in sim.cluster().data['objects'][kind].items() if key.endswith('kube-proxy-windows')
            or key.startswith('kube-system/kube-proxy-windows-')}


def load_balancers(sim):
    return sorted(vip for p in sim.node('win1').data['hns'].get('policy_lists', []) for vip in p['vips'])


def service_vips(sim):
    return sorted(s['spec']['clusterIP'] for s in sim.cluster().data['objects']['Service'].values())


def run(sim, modes, *args):
    book = sim.write('kube_proxy.yml', ''.join((LATER if index else FIRST).format(mode=mode) + PHASE.format(mode=mode)
                                               for index, mode in enumerate(modes)))
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38'}}, control_plane={'cp1': {}},
                              group_vars=dict(GROUP_VARS, kubewin_kube_proxy_mode=modes[0]))
    result = sim.run(book, inventory, *args)
    assert result.rc == 0, result.output
    return result


def after(result, mode, index=0):
    """The node's services and HNS load balancers, and the kube-proxy pods, after the phase ``mode``."""
    node = result.results('The node after %s' % mode, 'win1')[index]['result']['ansible_facts']['kubewin_node']
    pods = result.results('The kube-proxy pods after %s' % mode, 'win1')[index]['result']['resources']
    balanced = sorted(vip for p in node['hns']['policy_lists'] for vip in p['vips'])
    return node['services'], balanced, pods


def to_daemonset_and_back(sim, check_and_repeat=False):
    """The switch both ways on a node that runs the kube-proxy service (as a service-mode run left it)."""
    with sim.edit_node('win1') as node:
        node.data['services']['kube-proxy'] = dict(SERVICE, name='kube-proxy', dependencies=['kubelet'],
                                                   command_line='C:\\k\\kube-proxy.exe --network-name=flannel.4096')
        node.add_policy_list(['10.96.0.1'], [])
    assert load_balancers(sim) == ['10.96.0.1'], 'the service routes the kubernetes Service before the switch'

    if check_and_repeat:
        check = run(sim, ['daemonset'], '--check')
        # kube-proxy's kubeconfig (new on this node) would be written and the service would go; the objects would come.
        assert check.changed('win1') == 2, check.output
        assert check.result("Apply kube-proxy's HostProcess DaemonSet and its start script", 'cp1')['changed']
        assert sim.node('win1').data['services']['kube-proxy']['state'] == 'running' and objects(sim, 'DaemonSet') == {}

    modes = ['daemonset', 'daemonset', 'service'] if check_and_repeat else ['daemonset', 'service']
    result = run(sim, modes)
    services, balanced, pods = after(result, 'daemonset')
    [pod] = pods
    assert pod['spec']['nodeName'] == 'win1' and pod['status']['phase'] == 'Running'
    assert pod['metadata']['labels']['app.kubernetes.io/version'] == 'v1.31.14'
    assert not services['kube-proxy']['exists'], 'the service is gone'
    # The pod's kube-proxy programmed every Service (kube-dns too); the service's load balancer stayed.
    assert balanced == service_vips(sim)
    names = [t['task'].split(' : ')[-1] for t in result.tasks if t['host'] == 'win1' and t['status'] != 'skipped']
    assert names.index("Wait for kube-proxy's pod to run on the node") < names.index(
        "Remove the kube-proxy service now that the DaemonSet's pod routes the node's Services")

    if check_and_repeat:
        repeat = [t for t in result.tasks if t['host'] in ('win1', 'cp1') and t['changed']
                  and t['task'].endswith(('kube_proxy : Remove the kube-proxy service now that the DaemonSet\'s pod '
                                          'routes the node\'s Services', "Apply kube-proxy's HostProcess DaemonSet and "
                                          'its start script'))]
        assert len(repeat) == 2, 'the second daemonset phase changes nothing: %s' % repeat
        assert after(result, 'daemonset', 1)[2][0]['metadata']['name'] == pod['metadata']['name'], 'not restarted'

    services, balanced, pods = after(result, 'service')
    assert pods == [] and objects(sim, 'DaemonSet') == {} and objects(sim, 'ConfigMap') == {}
    assert services['kube-proxy']['state'] == 'running'
    assert balanced == service_vips(sim) == load_balancers(sim)
    # kubeadm's own kube-proxy DaemonSet is not the collection's: it stays.
    assert 'kube-system/kube-proxy' in sim.cluster().data['objects']['DaemonSet']


# The representative part in make test: the switch both ways (one run of two phases). Its long variant below adds
# check mode and an idempotent second daemonset phase.
def test_service_to_daemonset_to_service_keeps_the_services_routed(sim):
    converged_node(sim)
    to_daemonset_and_back(sim)


@pytest.mark.long
def test_the_switch_is_predicted_by_check_mode_and_daemonset_mode_is_idempotent(sim):
    converged_node(sim)
    to_daemonset_and_back(sim, check_and_repeat=True)


def test_the_doctor_restarts_kube_proxys_pod_not_a_service_in_daemonset_mode(sim):
    """doctor.yml with doctor_repair=true on a daemonset node: the stale load balancer goes (node_repair), then the
    node's kube-proxy pod is deleted through the Kubernetes API and the DaemonSet creates it again; no kube-proxy
    service is restarted (there is none)."""
    converged_node(sim)
    # The node as a daemonset run leaves it (test_service_to_daemonset_to_service... runs the roles): kube-proxy's
    # kubeconfig on the node, the collection's DaemonSet and its running pod; built here to save that run.
    with sim.edit_node('win1') as node:
        node.write_file('C:\\etc\\kubernetes\\kube-proxy.conf', content='apiVersion: v1\nkind: Config\n')
    built = _kube_proxy_daemonset.kube_proxy_daemonset({
        'kubernetes_version': GROUP_VARS['kubewin_kubernetes_version'], 'topology': 'overlay',
        'cluster_cidr': GROUP_VARS['kubewin_cluster_cidr'],
        'paths': {'kubernetes_dir': 'C:\\k', 'kubernetes_config_dir': 'C:\\etc\\kubernetes'}})
    with sim.edit_cluster() as cluster:
        for obj in built['objects']:
            cluster.create(obj)
        cluster.reconcile()
    [pod] = [p for key, p in objects(sim, 'Pod').items() if key.startswith('kube-system/')]
    assert pod['status']['phase'] == 'Running'
    with sim.edit_node('win1') as node:
        node.add_policy_list(['10.96.0.99'], [])  # no such Service: stale
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38'}}, control_plane={'cp1': {}},
                              group_vars=dict(GROUP_VARS, kubewin_kube_proxy_mode='daemonset'))
    repair = sim.run('playbooks/doctor.yml', inventory, '-e', 'doctor_repair=true')
    assert repair.rc == 0, repair.output
    row = repair.report_row('win1')
    assert 'load-balancer-stale' in [f['id'] for f in row['findings']], row
    assert "kube-proxy's pod restarted" in row['repaired'] and 'kube-proxy restarted' not in row['repaired'], row
    deleted = repair.results("Delete kube-proxy's pod; the DaemonSet creates it again", 'win1')
    assert [r['item']['metadata']['name'] for r in deleted[0]['result']['results']] == [pod['metadata']['name']]
    assert '10.96.0.99' not in load_balancers(sim)
    assert not sim.node('win1').data['services'].get('kube-proxy', {}).get('exists')
    [again] = [p for key, p in objects(sim, 'Pod').items() if key.startswith('kube-system/')]
    assert again['status']['phase'] == 'Running'
