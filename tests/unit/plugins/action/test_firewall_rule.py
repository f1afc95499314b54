"""kubewin.node.firewall_rule against a simulated node."""

RULE = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: rule
      kubewin.node.firewall_rule:
        name: kubewin-vxlan
        protocol: udp
        local_port: [{ports}]
        state: {state}
'''


def test_create_update_idempotent_remove(sim, one_node):
    inventory = one_node()
    book = sim.write('a.yml', RULE.format(ports="'4789'", state='present'))
    assert sim.run(book, inventory, '--check').changed('win1') == 1
    assert sim.node('win1').data['firewall_rules'] == {}
    run = sim.run(book, inventory)
    assert run.rc == 0, run.output
    assert sim.node('win1').data['firewall_rules']['kubewin-vxlan']['local_port'] == ['4789']
    again = sim.run(book, inventory)
    assert again.changed('win1') == 0 and again.calls['win1']['total'] == 1
    updated = sim.run(sim.write('b.yml', RULE.format(ports="'4789', '4790'", state='present')), inventory, '--diff')
    assert updated.result('rule', 'win1')['result']['diff']['before']['local_port'] == ['4789']
    removed = sim.run(sim.write('c.yml', RULE.format(ports='', state='absent')), inventory)
    assert removed.changed('win1') == 1 and sim.node('win1').data['firewall_rules'] == {}


def test_bad_port_is_refused(sim, one_node):
    run = sim.run(sim.write('a.yml', RULE.format(ports="'70000'", state='present')), one_node())
    assert run.rc != 0 and '70000' in run.result('rule', 'win1')['result']['msg']
