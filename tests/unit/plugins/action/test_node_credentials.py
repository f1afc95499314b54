"""kubewin.node.node_credentials against a simulated node: files holding credentials that kubeadm and the kubelet left
with their folder's ACL get the secret one; check mode and the diff tell the truth and show no content."""

PLAY = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: wildcard folder
      kubewin.node.node_credentials:
        patterns: ['C:\\var\\lib\\*\\kubelet.key']
      ignore_errors: true
    - name: snapshot
      kubewin.node.node_info:
    - name: credentials
      kubewin.node.node_credentials:
        patterns: {patterns}
'''

# node_info's default patterns (the default node layout), so the snapshot covers them.
PATTERNS = ['C:\\etc\\kubernetes\\*.conf', 'C:\\var\\lib\\kubelet\\pki\\*.pem', 'C:\\var\\lib\\kubelet\\pki\\*.key']
KUBELET_CONF = 'C:\\etc\\kubernetes\\kubelet.conf'
CLIENT_PEM = 'C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem'
SERVING_KEY = 'C:\\var\\lib\\kubelet\\pki\\kubelet.key'
KUBE_PROXY_CONF = 'C:\\etc\\kubernetes\\kube-proxy.conf'
CA = 'C:\\etc\\kubernetes\\pki\\ca.crt'
SECRET_TEXT = 'client-key-data: c2VjcmV0LWtleQ=='


def joined_node(sim, one_node):
    """A node as kubeadm join leaves it (windows/kubeadm.py, scm.py): the kubelet's files inherit C:\\'s ACL."""
    inventory = one_node()
    with sim.edit_node('win1') as node:
        for path in (KUBELET_CONF, CLIENT_PEM, SERVING_KEY, CA):
            node.write_file(path, content=SECRET_TEXT)
        node.write_file(KUBE_PROXY_CONF, content=SECRET_TEXT, acl='secret')
    return inventory


def test_open_credential_files_get_the_secret_acl_once(sim, one_node):
    inventory = joined_node(sim, one_node)
    playbook = sim.write('c.yml', PLAY.format(patterns='[%s]' % ', '.join("'%s'" % p for p in PATTERNS)))

    check = sim.run(playbook, inventory, '--check', '--diff')
    assert check.rc == 0, check.output
    # Refused before the node is read (the run's calls are the snapshot's and the module's read below).
    refused = check.result('wildcard folder', 'win1')['result']
    assert 'is not an absolute Windows folder followed by a file name' in refused['msg']
    result = check.result('credentials', 'win1')['result']
    assert result['changed'] is True
    assert result['diff'] == {'before': {CLIENT_PEM: 'inherited', KUBELET_CONF: 'inherited', SERVING_KEY: 'inherited'},
                              'after': {CLIENT_PEM: 'secret', KUBELET_CONF: 'secret', SERVING_KEY: 'secret'}}
    assert result['restricted'] == [KUBELET_CONF, CLIENT_PEM, SERVING_KEY]
    assert sim.node('win1').file(KUBELET_CONF)['acl'] == 'inherited', 'check mode changes nothing'
    # The snapshot says something must change: the module reads the node again before deciding.
    assert check.calls['win1']['total'] == 2

    run = sim.run(playbook, inventory, '--diff', '-v')
    assert run.rc == 0, run.output
    assert 'c2VjcmV0' not in run.output, 'only names and ACL profiles, never content'
    assert run.result('credentials', 'win1')['changed'] is True
    node = sim.node('win1')
    assert {path: node.file(path)['acl'] for path in (KUBELET_CONF, CLIENT_PEM, SERVING_KEY, KUBE_PROXY_CONF, CA)} == {
        KUBELET_CONF: 'secret', CLIENT_PEM: 'secret', SERVING_KEY: 'secret', KUBE_PROXY_CONF: 'secret',
        CA: 'inherited'}
    assert node.file(KUBELET_CONF)['content'] == SECRET_TEXT, 'the content is left alone'
    assert run.calls['win1']['total'] == 3, 'the snapshot, the fresh read and one apply'

    again = sim.run(playbook, inventory)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'decided from the snapshot'
