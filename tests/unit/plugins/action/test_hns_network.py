"""kubewin.node.hns_network against a simulated node: idempotence, check mode, the vSwitch drop."""

import time

import pytest

PLACEHOLDER = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: placeholder
      kubewin.node.hns_network:
        name: External
        type: L2Bridge
        address_prefix: 192.168.255.0/30
        gateway: 192.168.255.1
        reconnect_timeout: {timeout}
'''


def placeholder(sim, timeout=120):
    return sim.write('placeholder.yml', PLACEHOLDER.format(timeout=timeout))


def networks(sim, host='win1'):
    return sim.node(host).data['hns']['networks']


# Long (make unit-long): make test creates the network in check mode, converge and re-run through site.yml
# (tests/unit/playbooks/test_site_network.py, the dual-stack e2e fleet) and test_fresh_change_costs_query_apply_and_the_drop.
@pytest.mark.long
def test_check_apply_idempotent_check(sim, one_node):
    inventory, playbook = one_node(), placeholder(sim)

    check = sim.run(playbook, inventory, '--check', '--diff')
    assert check.rc == 0, check.output
    assert check.result('placeholder', 'win1')['changed'] is True
    assert check.result('placeholder', 'win1')['result']['diff']['after']['address_prefix'] == '192.168.255.0/30'
    assert networks(sim) == []

    apply = sim.run(playbook, inventory)
    assert apply.rc == 0, apply.output
    result = apply.result('placeholder', 'win1')['result']
    assert result['changed'] and result['disruptive'] and not result['ip_restored']
    assert [(n['name'], n['type'], n['adapter']) for n in networks(sim)] == [('External', 'L2Bridge', 'Ethernet')]
    assert result['network']['id'] == networks(sim)[0]['id']
    vnic = sim.node('win1').adapter('vEthernet (Ethernet)')
    assert vnic['ipv4'][0]['address'] == '10.127.130.38' and not vnic['dhcp']

    again = sim.run(playbook, inventory)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    # node_info is the only remote call: the module decided from the snapshot.
    assert again.calls['win1']['total'] == 1

    check_again = sim.run(playbook, inventory, '--check')
    assert check_again.rc == 0 and check_again.changed('win1') == 0


def test_fresh_change_costs_the_snapshot_the_drop_and_a_retake(sim, one_node):
    apply = sim.run(placeholder(sim), one_node())
    assert apply.rc == 0, apply.output
    # node_info (this run's snapshot, trusted: no query before the change) + detached start + the status probes + the
    # retake after the drop, which reads again all the snapshot held. The worker runs on after the start
    # (kubewin_sim/windows/processes.py): a probe that comes before it ran sees it running; the one after the drop has
    # its result.
    probes = apply.calls['win1']['by_kind']['win_powershell:detached_status']
    assert probes >= 1
    assert apply.calls['win1']['by_kind']['win_powershell:node_info'] == 2
    assert apply.calls['win1']['total'] == 3 + probes
    retaken = apply.results('placeholder')[0]['result']['ansible_facts']['kubewin_node']
    assert retaken['trusted']['sections'] == sorted(retaken['collected_at'])
    assert apply.calls['win1']['unreachable_attempts'] >= 1


def test_fifteen_second_drop_is_survived(sim, one_node):
    started = time.monotonic()
    run = sim.run(placeholder(sim), one_node(network_drop_seconds=15))
    assert run.rc == 0, run.output
    assert time.monotonic() - started >= 15
    assert run.result('placeholder', 'win1')['result']['disruptive'] is True
    assert run.calls['win1']['unreachable_attempts'] >= 2
    assert len(networks(sim)) == 1


def test_drop_longer_than_budget_fails_with_classified_message(sim, one_node):
    run = sim.run(placeholder(sim, timeout=4), one_node(network_drop_seconds=30))
    assert run.rc != 0
    result = run.result('placeholder', 'win1')
    assert result['status'] == 'failed'
    message = result['result']['msg']
    assert 'did not come back within 4 s' in message
    assert 'MAC address spoofing' in message and 'static IPv4' in message
    assert result['result']['reason'] == 'node_did_not_return'


def test_wiped_static_ip_is_restored_and_reported(sim, one_node):
    inventory = one_node(wipe_static_ip=True)
    run = sim.run(placeholder(sim), inventory)
    assert run.rc == 0, run.output
    assert run.result('placeholder', 'win1')['result']['ip_restored'] is True
    vnic = sim.node('win1').adapter('vEthernet (Ethernet)')
    assert [(a['address'], a['prefix_length']) for a in vnic['ipv4']] == [('10.127.130.38', 24)]
    assert vnic['gateway'] == '10.127.130.1' and not vnic['dhcp']
    assert sim.run(placeholder(sim), inventory).changed('win1') == 0


def test_static_ip_that_cannot_be_restored_fails_clearly(sim, one_node):
    run = sim.run(placeholder(sim, timeout=5), one_node(wipe_static_ip=True, static_ip_restore_fails=True))
    assert run.rc != 0
    message = run.result('placeholder', 'win1')['result']['msg']
    assert 'did not come back' in message and 'static IPv4 configuration' in message


def test_duplicate_networks_are_an_error_naming_their_ids(sim, one_node):
    inventory = one_node()
    assert sim.run(placeholder(sim), inventory).rc == 0
    with sim.edit_node('win1') as node:
        node.create_network({'name': 'external', 'type': 'L2Bridge', 'address_prefix': '192.168.254.0/30',
                             'gateway': '192.168.254.1', 'adapter': 'Ethernet', 'vsid': None})
        ids = sorted(n['id'] for n in node.data['hns']['networks'])
    run = sim.run(placeholder(sim), inventory)
    assert run.rc != 0
    message = run.result('placeholder', 'win1')['result']['msg']
    assert "2 HNS networks are named 'External'" in message
    assert all(network_id in message for network_id in ids)


def test_changed_settings_replace_the_network(sim, one_node):
    inventory = one_node()
    assert sim.run(placeholder(sim), inventory).rc == 0
    old_id = networks(sim)[0]['id']
    changed = sim.write('changed.yml', PLACEHOLDER.format(timeout=120).replace('192.168.255.0/30', '192.168.254.0/30')
                        .replace('192.168.255.1', '192.168.254.1'))
    run = sim.run(changed, inventory, '--diff')
    assert run.rc == 0, run.output
    diff = run.result('placeholder', 'win1')['result']['diff']
    assert diff['before']['address_prefix'] == '192.168.255.0/30'
    assert diff['after']['address_prefix'] == '192.168.254.0/30'
    assert [n['address_prefix'] for n in networks(sim) for n in n['subnets']] == ['192.168.254.0/30']
    assert networks(sim)[0]['id'] != old_id


def test_second_network_on_a_bound_adapter_does_not_drop_the_network(sim, one_node):
    inventory = one_node()
    assert sim.run(placeholder(sim), inventory).rc == 0
    overlay = sim.write('cbr0.yml', '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: pods
      kubewin.node.hns_network:
        name: cbr0
        type: L2Bridge
        address_prefix: 10.244.3.0/24
''')
    run = sim.run(overlay, inventory)
    assert run.rc == 0, run.output
    result = run.result('pods', 'win1')['result']
    assert result['disruptive'] is False and result['network']['gateway'] == '10.244.3.1'
    assert run.calls['win1']['unreachable_attempts'] == 0
    # no snapshot: one query, one apply (which returns the state it verifies)
    assert run.calls['win1']['total'] == 2


def test_absent_removes_and_unbinds(sim, one_node):
    inventory = one_node()
    assert sim.run(placeholder(sim), inventory).rc == 0
    absent = sim.write('absent.yml', '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: remove
      kubewin.node.hns_network:
        name: External
        state: absent
''')
    run = sim.run(absent, inventory)
    assert run.rc == 0 and run.changed('win1') == 1, run.output
    assert networks(sim) == []
    assert sim.node('win1').adapter('vEthernet (Ethernet)') is None
    # The last vSwitch of the adapter goes: the removal drops the network and runs detached.
    assert run.result('remove', 'win1')['result']['disruptive'] is True
    assert run.calls['win1']['by_kind'].get('win_powershell:detached_start') == 1
    assert sim.node('win1').adapter('Ethernet')['ipv4'][0]['address'] == '10.127.130.38', 'the address is back'
    assert sim.run(absent, inventory).changed('win1') == 0


def test_without_containers_feature_check_mode_predicts_and_real_run_explains(sim):
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38'}})
    check = sim.run(placeholder(sim), inventory, '--check')
    assert check.rc == 0, check.output
    assert check.result('placeholder', 'win1')['changed'] is True
    real = sim.run(placeholder(sim), inventory)
    assert real.rc != 0
    assert 'install the Containers feature and reboot' in real.result('placeholder', 'win1')['result']['msg']


def test_bad_arguments_fail_before_touching_the_node(sim, one_node):
    inventory = one_node()
    bad = sim.write('bad.yml', '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: bad prefix
      kubewin.node.hns_network:
        name: External
        type: L2Bridge
        address_prefix: 192.168.255.1/30
''')
    run = sim.run(bad, inventory)
    assert run.rc != 0
    assert '192.168.255.0/30' in run.result('bad prefix', 'win1')['result']['msg']
    assert sim.node('win1') is None, 'the node was never contacted'
