"""kubewin.node.node_file against a simulated node."""

from kubewin_sim.windows import filesystem

FILE = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: cni config
      kubewin.node.node_file:
        path: C:\\etc\\cni\\net.d\\10-flannel.conf
        content: "{content}"
    - name: kubeconfig
      kubewin.node.node_file:
        path: C:\\etc\\kubernetes\\kubelet.conf
        secret_content: "token: {secret}"
      no_log: true
'''

CNI = 'C:\\etc\\cni\\net.d\\10-flannel.conf'
KUBECONFIG = 'C:\\etc\\kubernetes\\kubelet.conf'


def test_write_idempotent_and_secret_never_shown(sim, one_node):
    inventory = one_node()
    playbook = sim.write('f.yml', FILE.format(content='{\\"a\\": 1}', secret='s3cr3t-value'))
    check = sim.run(playbook, inventory, '--check', '--diff')
    assert check.rc == 0, check.output
    assert check.changed('win1') == 2 and sim.node('win1').file(CNI) is None

    run = sim.run(playbook, inventory, '--diff', '-vvv')
    assert run.rc == 0, run.output
    assert 's3cr3t-value' not in run.output
    node = sim.node('win1')
    assert node.file(CNI)['content'] == '{"a": 1}' and node.file(CNI)['acl'] == 'protected'
    assert node.file(KUBECONFIG)['content'] == 'token: s3cr3t-value' and node.file(KUBECONFIG)['acl'] == 'secret'
    assert sorted(node.managed_registry()['files']) == [CNI, KUBECONFIG]

    again = sim.run(playbook, inventory)
    assert again.rc == 0 and again.changed('win1') == 0
    assert again.calls['win1']['total'] == 1, 'both files come from the registry in the snapshot'


def test_changed_content_shows_a_text_diff_and_bom_files_are_rewritten(sim, one_node):
    inventory = one_node()
    assert sim.run(sim.write('a.yml', FILE.format(content='one', secret='x')), inventory).rc == 0
    run = sim.run(sim.write('b.yml', FILE.format(content='two', secret='x')), inventory, '--diff')
    assert run.rc == 0, run.output
    diff = run.result('cni config', 'win1')['result']['diff']
    assert (diff['before'], diff['after'], diff['after_header']) == ('one', 'two', CNI)
    with sim.edit_node('win1') as node:
        node.write_file(CNI, content='\ufefftwo', acl='protected')
    fixed = sim.run(sim.write('b.yml', FILE.format(content='two', secret='x')), inventory)
    assert fixed.result('cni config', 'win1')['changed'] is True
    assert sim.node('win1').file(CNI)['content'] == 'two'


def test_acl_drift_is_repaired(sim, one_node):
    inventory, playbook = one_node(), sim.write('a.yml', FILE.format(content='one', secret='x'))
    assert sim.run(playbook, inventory).rc == 0
    with sim.edit_node('win1') as node:
        # Someone gave the file back the folder's inherited ACL.
        filesystem.lookup(node, KUBECONFIG).update(protected=False, rules=[])
    run = sim.run(playbook, inventory)
    assert run.result('kubeconfig', 'win1')['changed'] is True
    assert sim.node('win1').file(KUBECONFIG)['acl'] == 'secret'


def test_absent(sim, one_node):
    inventory = one_node()
    assert sim.run(sim.write('a.yml', FILE.format(content='one', secret='x')), inventory).rc == 0
    absent = sim.write('absent.yml', '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: remove
      kubewin.node.node_file:
        path: C:\\etc\\cni\\net.d\\10-flannel.conf
        state: absent
''')
    run = sim.run(absent, inventory)
    assert run.rc == 0 and run.changed('win1') == 1, run.output
    assert sim.node('win1').file(CNI) is None and CNI not in sim.node('win1').managed_registry()['files']
    assert sim.run(absent, inventory).changed('win1') == 0
