"""kubewin.node.kubeadm_join against a simulated node: what the snapshot held of the folders kubeadm writes under is
forgotten after the join and answered by the join's own listings, so a later task about a file kubeadm wrote reads
the node instead of trusting a listing taken before the join (_snapshot.forget)."""

PLAY = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
        folders: ['C:\\etc\\kubernetes', 'C:\\var\\lib\\kubelet']
    - name: join
      kubewin.node.kubeadm_join:
        api_endpoint: 10.0.0.1:6443
        token: abcdef.0123456789abcdef
        ca_cert_hash: sha256:{hash}
        node_name: win1
        cri_socket: npipe:////./pipe/containerd-containerd
        kubernetes_version: 1.33.4
    - name: a file kubeadm wrote, which the listing before the join did not have
      kubewin.node.node_file:
        path: C:\\etc\\kubernetes\\pki\\ca.crt
        state: absent
    - name: a file nothing wrote
      kubewin.node.node_file:
        path: C:\\etc\\kubernetes\\other.conf
        state: absent
'''
KUBELET = {'name': 'kubelet', 'exists': True, 'display_name': 'kubelet', 'description': '', 'state': 'stopped',
           'start_mode': 'auto', 'dependencies': [], 'environment': {}, 'account': 'LocalSystem', 'recovery': None,
           'exit_code': 0, 'nssm': None,
           'command_line': 'C:\\k\\kubelet.exe --kubeconfig=C:\\etc\\kubernetes\\kubelet.conf '
                           '--bootstrap-kubeconfig=C:\\etc\\kubernetes\\bootstrap-kubelet.conf '
                           '--config=C:\\var\\lib\\kubelet\\config.yaml'}


def test_after_the_join_a_file_it_wrote_is_read_and_one_nothing_wrote_is_known_absent(sim, one_node):
    inventory = one_node()
    with sim.edit_node('win1') as node:
        node.write_file('C:\\k\\kubeadm.exe', sha256='0' * 64, size=48 * 1024 ** 2)
        node.write_file('C:\\k\\kubelet.exe', sha256='1' * 64, size=48 * 1024 ** 2)
        node.data['services']['kubelet'] = dict(KUBELET)
    playbook = sim.write('join.yml', PLAY.format(hash='a' * 64))
    run = sim.run(playbook, inventory)
    assert run.rc == 0, run.output
    assert run.result('join', 'win1')['changed'] is True
    # The listing taken before the join called ca.crt absent; the join's listing has pki, so the module asked.
    assert run.result('a file kubeadm wrote, which the listing before the join did not have', 'win1')['changed'] is True
    assert sim.node('win1').file('C:\\etc\\kubernetes\\pki\\ca.crt') is None
    assert run.result('a file nothing wrote', 'win1')['changed'] is False
    # The snapshot, the join, a read and a removal for ca.crt; other.conf is answered by the join's listing.
    assert run.calls['win1']['total'] == 4, run.calls['win1']
