"""kubewin.node.calico_node against a simulated node without Calico: check mode predicts, a run times out naming what
the operator's pod has not done. The node the pod has set up is converged in tests/unit/playbooks/test_network_calico.py."""

CALICO_NODE = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: predict
      kubewin.node.calico_node:
        cni_config_file: C:\\etc\\cni\\net.d\\10-calico.conflist
      check_mode: true
    - name: wait
      kubewin.node.calico_node:
        cni_config_file: C:\\etc\\cni\\net.d\\10-calico.conflist
        timeout: 2
        pod_state: calico-node-windows-abcde Pending, container felix waiting CreateContainerError
      ignore_errors: true
'''


def test_check_mode_predicts_and_a_run_times_out_naming_what_is_missing(sim, one_node):
    run = sim.run(sim.write('calico.yml', CALICO_NODE), one_node())
    assert run.rc == 0, run.output
    predicted = run.result('predict', 'win1')
    assert predicted['changed'] is True and predicted['result']['network'] == {}
    assert predicted['result']['notes'] == [
        "the Tigera operator's calico-node-windows pod will create the CNI config C:\\etc\\cni\\net.d\\10-calico.conflist "
        "(the pod's install-cni container writes it); the HNS network 'External' (the pod's node container creates it "
        "with the vSwitch)"]
    assert run.result('wait', 'win1')['status'] == 'ignored', 'it failed (and the play ignored that)'
    failed = run.result('wait', 'win1')['result']
    assert failed['reason'] == 'calico_not_ready'
    assert failed['msg'].startswith('After 2 s the node still lacks the CNI config C:\\etc\\cni\\net.d\\10-calico.conflist')
    assert failed['msg'].endswith('The pod: calico-node-windows-abcde Pending, container felix waiting CreateContainerError')
    assert sim.node('win1').data['hns']['networks'] == [], 'the module creates nothing itself'
