"""playbooks/reset.yml with kubewin_kube_proxy_mode daemonset: kube-proxy runs in the HostProcess pod of the
collection's DaemonSet (kube-system/kube-proxy-windows), not as a service.

- The drain leaves the pod (DaemonSet pods are not evicted: reset_drain_options ignore_daemonsets, as kubectl drain
  --ignore-daemonsets); the Node's deletion takes it from the cluster (the DaemonSet controller only runs pods on
  nodes that exist).
- The node's files of that mode (kube-proxy's kubeconfig, the source VIP) go as in service mode.
- A reset of some Windows nodes leaves the DaemonSet and its ConfigMap to the others; a reset of every Windows node of
  the inventory removes them, predicted by check mode, and a second run changes nothing.

The node starts as tests/unit/roles/test_kube_proxy_mode.py leaves it in daemonset mode (one run of its phase)."""

import os
import sys

import pytest

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))

# pylint: disable=wrong-import-position
import test_kube_proxy_mode as mode  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402
from ansible_collections.kubewin.node.plugins.plugin_utils._kube_proxy_daemonset import kube_proxy_daemonset  # noqa: E402
from ansible_collections.kubewin.node.plugins.plugin_utils._node_plan import NODE_PATHS  # noqa: E402

FLEET_TASK = "Remove the collection's DaemonSets and kube-proxy's ConfigMap"
NODES = {'win1': {'ansible_host': '10.127.130.38'}, 'win2': {'ansible_host': '10.127.130.39'}}


def _reset(sim, *args):
    inventory = sim.inventory(NODES, control_plane={'cp1': {}}, name='fleet.yml',
                              group_vars=dict(mode.GROUP_VARS, kubewin_kube_proxy_mode='daemonset'))
    result = sim.run('playbooks/reset.yml', inventory, *args)
    assert result.rc == 0, result.output
    return result


def _removed(result):
    return sorted(r['item']['kind'] for r in result.result(FLEET_TASK, 'win1')['result'].get('results') or []
                  if r.get('changed'))


def _daemonset_mode_node(sim, by_the_roles=True):
    """win1 with kube-proxy in the DaemonSet's pod: put there by the control_plane and kube_proxy roles (one run of
    test_kube_proxy_mode's daemonset phase), or, cheaper, with the DaemonSet the kube_proxy_daemonset filter makes
    applied to the cluster directly and the node's files of that mode written."""
    mode.converged_node(sim)
    if by_the_roles:
        mode.run(sim, ['daemonset'])
    else:
        made = kube_proxy_daemonset({'kubernetes_version': mode.GROUP_VARS['kubewin_kubernetes_version'],
                                     'topology': 'overlay', 'cluster_cidr': mode.GROUP_VARS['kubewin_cluster_cidr'],
                                     'network_name': 'flannel.4096', 'vxlan_vni': 4096, 'paths': NODE_PATHS})
        with sim.edit_node('win1') as node:
            node.write_file(made['files']['kubeconfig'], content='apiVersion: v1\nkind: Config\n')
        with sim.edit_cluster() as cluster:
            for definition in made['objects']:
                cluster.create(definition)
            cluster.reconcile()
    [pod] = mode.objects(sim, 'Pod').values()
    assert pod['spec']['nodeName'] == 'win1' and pod['status']['phase'] == 'Running'
    assert sorted(mode.objects(sim, 'DaemonSet')) == sorted(mode.objects(sim, 'ConfigMap')) \
        == ['kube-system/kube-proxy-windows']
    assert sim.node('win1').file('C:\\etc\\kubernetes\\kube-proxy.conf') is not None


def _reset_node_files_gone(sim):
    # The drain left the pod, the Node's deletion took it; the node's files of the mode went as in service mode.
    assert mode.objects(sim, 'Pod') == {}
    node = sim.node('win1')
    assert [p for p in ('C:\\etc\\kubernetes\\kube-proxy.conf', 'C:\\k\\SourceVip.json') if node.file(p)] == []
    assert node.data['hns'].get('policy_lists') == [] and node.data['hns']['networks'] == []


# The representative part in make test: the whole fleet's reset (one run). The long variant below adds a partial reset
# first, check mode and a second run.
def test_the_reset_of_every_windows_node_removes_the_daemonset(tmp_path):
    sim = Simulation(tmp_path)
    _daemonset_mode_node(sim, by_the_roles=False)
    whole = _reset(sim)
    assert whole.result('Delete the Node', 'win1')['changed']
    _reset_node_files_gone(sim)
    assert _removed(whole) == ['ConfigMap', 'DaemonSet']
    assert mode.objects(sim, 'DaemonSet') == {} and mode.objects(sim, 'ConfigMap') == {}
    # kubeadm's own kube-proxy DaemonSet is not the collection's: it stays.
    assert 'kube-system/kube-proxy' in sim.cluster().data['objects']['DaemonSet']


@pytest.mark.long
def test_a_partial_reset_keeps_the_daemonset_and_the_fleet_reset_is_predicted_and_idempotent(tmp_path):
    sim = Simulation(tmp_path)
    _daemonset_mode_node(sim)
    partial = _reset(sim, '--limit', 'win1,localhost')
    assert partial.result('Delete the Node', 'win1')['changed']
    _reset_node_files_gone(sim)
    assert sorted(mode.objects(sim, 'DaemonSet')) == ['kube-system/kube-proxy-windows'], 'win2 still uses it'
    assert sorted(mode.objects(sim, 'ConfigMap')) == ['kube-system/kube-proxy-windows']

    check = _reset(sim, '--check')
    assert _removed(check) == ['ConfigMap', 'DaemonSet'], 'check mode predicts the removal'
    assert sorted(mode.objects(sim, 'DaemonSet')) == ['kube-system/kube-proxy-windows'], 'and removes nothing'

    whole = _reset(sim)
    assert _removed(whole) == ['ConfigMap', 'DaemonSet']
    assert mode.objects(sim, 'DaemonSet') == {} and mode.objects(sim, 'ConfigMap') == {}

    again = _reset(sim)
    assert not again.result(FLEET_TASK, 'win1')['changed']
    assert again.changed('win1') == 0 and again.changed('win2') == 0, again.output


def test_the_reset_role_removes_what_the_filter_labels():
    """The reset role's copy of the labels and namespace (a role cannot read another's variables) is the filter's."""
    import yaml  # pylint: disable=import-outside-toplevel
    with open(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'roles', 'reset', 'defaults', 'main.yml'),
              encoding='utf-8') as handle:
        defaults = yaml.safe_load(handle)
    made = kube_proxy_daemonset({'kubernetes_version': '1.31.14', 'topology': 'overlay', 'cluster_cidr': '10.244.0.0/16',
                                 'network_name': 'flannel.4096', 'vxlan_vni': 4096, 'paths': NODE_PATHS})
    assert defaults['reset_kube_proxy_owner_labels'] == made['owner_labels']
    assert defaults['reset_kube_proxy_namespace'] == made['namespace']
