"""kubewin.node.hns_endpoint against a simulated node."""

import pytest

ENDPOINT = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: pod network
      kubewin.node.hns_network:
        name: cbr0
        type: L2Bridge
        address_prefix: 10.244.3.0/24
    - name: host endpoint
      kubewin.node.hns_endpoint:
        name: cbr0_ep
        network: cbr0
        ip_address: {ip}
'''


def endpoints(sim):
    return sim.node('win1').data['hns']['endpoints']


# Long (make unit-long): make test creates and attaches the endpoint through site.yml on the dual-stack e2e fleet
# (check mode, converge, re-run) and replaces or re-attaches one in the tests below.
@pytest.mark.long
def test_create_attach_idempotent(sim, one_node):
    inventory, playbook = one_node(), sim.write('ep.yml', ENDPOINT.format(ip='10.244.3.2'))
    check = sim.run(playbook, inventory, '--check')
    assert check.rc == 0, check.output
    assert check.result('host endpoint', 'win1')['changed'] is True
    assert 'does not exist (yet)' in check.result('host endpoint', 'win1')['result']['notes'][0]
    assert endpoints(sim) == []

    run = sim.run(playbook, inventory)
    assert run.rc == 0, run.output
    endpoint = run.result('host endpoint', 'win1')['result']['endpoint']
    assert endpoint['ip_address'] == '10.244.3.2' and endpoint['host_attached'] is True
    vnic = sim.node('win1').adapter('vEthernet (cbr0_ep)')
    assert vnic is not None and vnic['forwarding'] is True

    again = sim.run(playbook, inventory)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1
    assert sim.run(playbook, inventory, '--check').changed('win1') == 0


def test_detached_endpoint_is_attached_without_recreating(sim, one_node):
    inventory, playbook = one_node(), sim.write('ep.yml', ENDPOINT.format(ip='10.244.3.2'))
    assert sim.run(playbook, inventory).rc == 0
    with sim.edit_node('win1') as node:
        node.data['adapters'] = [a for a in node.data['adapters'] if a['name'] != 'vEthernet (cbr0_ep)']
        endpoint_id = node.data['hns']['endpoints'][0]['id']
    run = sim.run(playbook, inventory)
    assert run.rc == 0 and run.result('host endpoint', 'win1')['changed'], run.output
    assert [e['id'] for e in endpoints(sim)] == [endpoint_id]
    assert sim.node('win1').adapter('vEthernet (cbr0_ep)') is not None


def test_already_attached_is_tolerated(sim, one_node):
    """A stale cbr0_ep vNIC left behind (a rejoin) must not make the attach fail."""
    inventory, playbook = one_node(), sim.write('ep.yml', ENDPOINT.format(ip='10.244.3.2'))
    assert sim.run(playbook, inventory).rc == 0
    with sim.edit_node('win1') as node:
        node.data['hns']['endpoints'] = []  # HNS lost the endpoint; the host vNIC remained
    run = sim.run(playbook, inventory)
    assert run.rc == 0, run.output
    assert len(endpoints(sim)) == 1


def test_new_ip_replaces_the_endpoint(sim, one_node):
    inventory = one_node()
    assert sim.run(sim.write('a.yml', ENDPOINT.format(ip='10.244.3.2')), inventory).rc == 0
    old = endpoints(sim)[0]['id']
    run = sim.run(sim.write('b.yml', ENDPOINT.format(ip='10.244.3.3')), inventory, '--diff')
    assert run.rc == 0, run.output
    diff = run.result('host endpoint', 'win1')['result']['diff']
    assert (diff['before']['ip_address'], diff['after']['ip_address']) == ('10.244.3.2', '10.244.3.3')
    assert [(e['ip_address'], e['id'] != old) for e in endpoints(sim)] == [('10.244.3.3', True)]


def test_missing_network_fails_in_a_real_run(sim, one_node):
    playbook = sim.write('missing.yml', '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: host endpoint
      kubewin.node.hns_endpoint:
        name: cbr0_ep
        network: nope
        ip_address: 10.244.3.2
''')
    run = sim.run(playbook, one_node())
    assert run.rc != 0
    assert "HNS network 'nope' does not exist" in run.result('host endpoint', 'win1')['result']['msg']
