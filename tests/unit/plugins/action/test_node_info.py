"""kubewin.node.node_info against a simulated node."""

INFO = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: info
      kubewin.node.node_info:
        files: ['C:\\k\\kubelet.exe', 'C:\\k']
        folders: ['C:\\k', 'C:\\etc\\cni\\net.d']
    - name: partial
      kubewin.node.node_info:
        gather: [os]
'''


def test_snapshot_in_one_call_per_invocation(sim):
    inventory = sim.inventory({'win1': {'ansible_host': '10.1.2.3', 'kubewin_sim': {'build': 17763}}})
    with sim.edit_node('win1', profile={'build': 17763, 'ip': '10.1.2.3'}) as node:
        node.write_file('C:\\k\\kubelet.exe', sha256='ab' * 32, size=120)
    run = sim.run(sim.write('info.yml', INFO), inventory, '--check')
    assert run.rc == 0, run.output
    assert run.changed('win1') == 0
    facts = run.result('info', 'win1')['result']['ansible_facts']['kubewin_node']
    assert facts['os']['build'] == 17763
    assert (facts['os']['product'], facts['os']['release']) == ('Windows Server 2019', '1809')
    assert facts['features']['Containers'] == 'available' and facts['reboot_pending'] is False
    [adapter] = facts['adapters']
    assert adapter['name'] == 'Ethernet' and adapter['default_route'] is True
    assert adapter['ipv4'] == [{'address': '10.1.2.3', 'prefix_length': 24, 'origin': 'Manual'}]
    assert facts['hns'] == {'available': False, 'networks': [], 'endpoints': [], 'policy_lists': []}
    assert facts['services']['kubelet'] == {'name': 'kubelet', 'exists': False}
    assert facts['files']['C:\\k\\kubelet.exe'] == {
        'exists': True, 'type': 'file', 'size': 120, 'sha256': 'ab' * 32, 'acl': 'inherited'}
    # The set-up wrote the file into a folder nobody protected: it inherits from C:\.
    assert facts['files']['C:\\k'] == {'exists': True, 'type': 'directory', 'acl': 'inherited'}
    assert set(facts['collected_at']) == {
        'os', 'features', 'adapters', 'routes', 'hns', 'services', 'files', 'artifacts', 'contents', 'environment',
        'firewall', 'ovs', 'credentials', 'scheduled_tasks', 'registry', 'remote_access', 'gmsa', 'csi_proxy',
        'folders', 'ports', 'defender'}
    # The names in the folders asked for and the collection's own (null: missing): a file not listed is known absent
    # without a read of its own.
    assert facts['folders'] == {'C:\\k': ['kubelet.exe'], 'C:\\etc\\cni\\net.d': None,
                                'C:\\ProgramData\\kubewin': None}
    # A whole read is trusted in the run that took it, for every section it read; nothing runs on the node yet.
    assert facts['trusted']['sections'] == sorted(facts['collected_at']) and facts['trusted']['distrusted'] == {}
    assert facts['routes'] == []
    # Windows' default dynamic range (KB 929851), nothing excluded.
    assert facts['ports']['udp'] == {'dynamic_start': 49152, 'dynamic_count': 16384, 'excluded': []}
    # No task in the collection's task folder yet.
    assert facts['scheduled_tasks'] == {}
    # No kubeconfig, certificate or key yet: every default pattern matches nothing.
    assert facts['credentials'] == {pattern: {} for pattern in (
        'C:\\etc\\kubernetes\\*.conf', 'C:\\var\\lib\\kubelet\\pki\\*.pem', 'C:\\var\\lib\\kubelet\\pki\\*.key',
        'C:\\etc\\kube-flannel\\kubeconfig')}
    # No Open vSwitch on a fresh node (and no Hyper-V tools to list vSwitches with).
    assert facts['ovs'] == {'products': [], 'vsctl': None, 'database': None, 'database_error': None, 'switches': []}
    partial = run.result('partial', 'win1')['result']['ansible_facts']['kubewin_node']
    assert set(partial['collected_at']) == {'os'} and 'adapters' not in partial
    assert run.calls['win1']['total'] == 2


def test_unknown_build_is_named(sim):
    inventory = sim.inventory({'win1': {'ansible_host': '10.1.2.3', 'kubewin_sim': {'build': 99999}}})
    run = sim.run(sim.write('info.yml', INFO), inventory)
    assert run.rc == 0, run.output
    assert run.result('info', 'win1')['result']['ansible_facts']['kubewin_node']['os']['product'] == 'unknown Windows build 99999'


MERGE = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: info
      kubewin.node.node_info:
    - name: hns only
      kubewin.node.node_info:
        gather: [hns]
        merge: true
    - name: replace
      kubewin.node.node_info:
        gather: [hns]
'''


def test_a_partial_read_can_refresh_the_snapshot_without_discarding_it(sim):
    inventory = sim.inventory({'win1': {'ansible_host': '10.1.2.3'}})
    run = sim.run(sim.write('merge.yml', MERGE), inventory)
    assert run.rc == 0, run.output
    full = run.result('info', 'win1')['result']['ansible_facts']['kubewin_node']
    merged = run.result('hns only', 'win1')['result']['ansible_facts']['kubewin_node']
    assert set(merged['collected_at']) == set(full['collected_at'])
    assert merged['collected_at']['hns'] >= full['collected_at']['hns']
    assert merged['collected_at']['os'] == full['collected_at']['os'] and merged['os'] == full['os']
    replaced = run.result('replace', 'win1')['result']['ansible_facts']['kubewin_node']
    assert set(replaced['collected_at']) == {'hns'}
