"""An upgrade in kubewin_kube_proxy_mode daemonset: the node's kube-proxy.exe is replaced (kubernetes_binaries, in the
drained node's play) and the DaemonSet's pod must not keep running the old binary. A drain leaves DaemonSet pods, and
the pod's process keeps the binary it started from (Windows lets a running program's file be renamed, which is how
artifact_fetch.ps1 replaces it), so the kube_proxy role restarts the node's pod when the binary changed: the
DaemonSet controller starts a new one, which runs the new file. The control-plane play's DaemonSet carries the
version as a label (test_kube_proxy_mode.py checks it).

Long (make unit-long, two runs): test_kube_proxy_mode.py's make test part runs the same role in daemonset mode."""

import pytest

import test_kube_proxy_mode as mode

REPLACED = "kubernetes_binaries_changed: []"


@pytest.mark.long
def test_a_replaced_kube_proxy_binary_restarts_the_nodes_pod(sim):
    mode.converged_node(sim)
    mode.run(sim, ['daemonset'])
    [before] = mode.objects(sim, 'Pod').values()

    # The upgrade's binaries step: a new kube-proxy.exe on the node, reported as replaced.
    with sim.edit_node('win1') as node:
        node.write_file('C:\\k\\kube-proxy.exe', content='kube-proxy.exe v1.31.15')
    book = sim.write('upgrade.yml', (mode.FIRST + mode.PHASE).format(mode='daemonset').replace(
        REPLACED, "kubernetes_binaries_changed: ['kube-proxy']", 1))
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38'}}, control_plane={'cp1': {}},
                              group_vars=dict(mode.GROUP_VARS, kubewin_kube_proxy_mode='daemonset'))
    result = sim.run(book, inventory)
    assert result.rc == 0, result.output
    restart = result.result("Restart kube-proxy's pod when its binary or kubeconfig changed, or it is not running", 'win1')
    assert restart['changed']
    [after] = mode.objects(sim, 'Pod').values()
    assert after['metadata']['uid'] != before['metadata']['uid'], 'a new pod, started after the binary was replaced'
    assert after['spec']['nodeName'] == 'win1' and after['status']['phase'] == 'Running'
