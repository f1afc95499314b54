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


SCOPED = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: rule
      kubewin.node.firewall_rule:
        name: kubewin-metrics
        local_port: ['9182']
        remote_addresses: {sources}
'''


def test_remote_addresses_limit_the_rule_and_read_back_as_windows_writes_them(sim, one_node):
    inventory = one_node()
    book = sim.write('a.yml', SCOPED.format(sources="['10.20.0.0/16', 'fd00:20::/64', '192.0.2.7/32']"))
    run = sim.run(book, inventory)
    assert run.rc == 0, run.output
    # Windows keeps an IPv4 subnet in its mask form (netsecurity.py); the module compares networks, not text.
    assert sim.node('win1').data['firewall_rules']['kubewin-metrics']['remote_address'] == [
        '10.20.0.0/255.255.0.0', '192.0.2.7/255.255.255.255', 'fd00:20::/64']
    again = sim.run(book, inventory)
    assert again.changed('win1') == 0 and again.calls['win1']['total'] == 1, again.output
    narrowed = sim.run(sim.write('b.yml', SCOPED.format(sources="['10.20.1.0/24']")), inventory, '--diff')
    diff = narrowed.result('rule', 'win1')['result']['diff']
    assert diff['before']['remote_addresses'] == ['10.20.0.0/16', '192.0.2.7/32', 'fd00:20::/64']
    assert diff['after']['remote_addresses'] == ['10.20.1.0/24']
    # No source range again: the rule takes any remote address (the keyword Any), not the old limit.
    opened = sim.run(sim.write('c.yml', SCOPED.format(sources='[]')), inventory)
    assert opened.changed('win1') == 1
    assert sim.node('win1').data['firewall_rules']['kubewin-metrics']['remote_address'] == []


def test_a_remote_address_that_is_no_cidr_is_refused_before_the_node_is_asked(sim, one_node):
    run = sim.run(sim.write('a.yml', SCOPED.format(sources="['10.20.0.1/16']")), one_node())
    assert run.rc != 0 and 'host bits' in run.result('rule', 'win1')['result']['msg']
    assert sim.node('win1').data['firewall_rules'] == {}
