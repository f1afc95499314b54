"""kubewin.node.port_ranges against simulated nodes: one whose dynamic TCP range reaches into the NodePort range
(1025-65535, a widened image), one with Windows' default range (KB 929851), one whose NodePorts a program holds."""

from conftest import CONTAINERS_READY

from kubewin_sim.windows import netsh

PORTS = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: check
      kubewin.node.port_ranges:
        state: checked
      ignore_errors: true
    - name: predict
      kubewin.node.port_ranges:
      check_mode: true
      diff: true
    - name: exclude
      kubewin.node.port_ranges:
      ignore_errors: true
    - name: again
      kubewin.node.port_ranges:
      ignore_errors: true
    - name: checked
      kubewin.node.port_ranges:
        state: checked
      ignore_errors: true
    - name: reset
      kubewin.node.port_ranges:
        state: absent
      ignore_errors: true
    - name: reset again
      kubewin.node.port_ranges:
        state: absent
      ignore_errors: true
'''
# A Hyper-V reservation inside the NodePort range: the exclusion leaves it alone and covers the rest.
RESERVED = {'start': 31000, 'end': 31099, 'administered': False, 'persistent': True}


def node(**ports):
    return dict(CONTAINERS_READY, tcpip_ports=ports)


def test_excludes_the_node_ports_where_the_dynamic_range_reaches_them(sim):
    inventory = sim.inventory({
        'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': node(dynamic={'tcp': [1025, 64511]}, excluded={'tcp': [RESERVED]})},
        'win2': {'ansible_host': '10.127.130.39', 'kubewin_sim': CONTAINERS_READY},
        'win3': {'ansible_host': '10.127.130.40', 'kubewin_sim': node(dynamic={'udp': [10000, 55536]}, in_use={'udp': [30053]})},
    })
    run = sim.run(sim.write('ports.yml', PORTS), inventory)
    refused = run.result('check', 'win1')['result']
    assert run.result('check', 'win1')['status'] == 'ignored'
    assert 'tcp 30000-30999 31100-32767' in refused['msg'] and refused['exposed'] == {
        'tcp': [[30000, 30999], [31100, 32767]], 'udp': []}
    predicted = run.result('predict', 'win1')['result']
    assert predicted['changed'] is True and predicted['diff'] == {
        'before': {'tcp': {'dynamic': '1025-65535', 'excluded': ['31000-31099 (reserved by Windows)']},
                   'udp': {'dynamic': '49152-65535', 'excluded': []}},
        'after': {'tcp': {'dynamic': '1025-65535',
                          'excluded': ['30000-30999', '31000-31099 (reserved by Windows)', '31100-32767']},
                  'udp': {'dynamic': '49152-65535', 'excluded': []}}}
    excluded = run.result('exclude', 'win1')['result']
    assert excluded['changed'] is True and excluded['operations'] == ['tcp 30000-30999', 'tcp 31100-32767']
    assert excluded['ports']['tcp']['excluded'] == [
        {'start': 30000, 'end': 30999, 'administered': True}, {'start': 31000, 'end': 31099, 'administered': False},
        {'start': 31100, 'end': 32767, 'administered': True}]
    assert run.result('again', 'win1')['result']['changed'] is False
    assert run.result('checked', 'win1')['result']['changed'] is False
    reset = run.result('reset', 'win1')['result']
    assert reset['changed'] is True and reset['operations'] == ['tcp 30000-30999', 'tcp 31100-32767']
    assert netsh.state(sim.node('win1'))['excluded']['tcp'] == [RESERVED], 'the reservation stays'
    assert run.result('reset again', 'win1')['result']['changed'] is False
    # The snapshot; the prediction with --diff reads the node live; the exclusion and the reset, one call each,
    # planned from the trusted snapshot and what the exclusion returned.
    assert run.calls['win1']['total'] == 4

    # Windows' default range holds no NodePort: nothing to do, no call beyond the snapshot.
    for task in ('check', 'predict', 'exclude', 'again', 'checked', 'reset'):
        assert run.result(task, 'win2')['result']['changed'] is False, task
    assert run.calls['win2']['total'] == 1

    # A program holds UDP 30053: netsh refuses the exclusion, and the module says so.
    failed = run.result('exclude', 'win3')['result']
    assert run.result('exclude', 'win3')['status'] == 'ignored'
    assert 'because it is being used by another process' in failed['msg'] and 'protocol=udp' in failed['msg']
    assert netsh.state(sim.node('win3'))['excluded']['udp'] == []


def test_a_malformed_range_is_refused_before_the_node_is_read(sim):
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': CONTAINERS_READY}})
    run = sim.run(sim.write('bad.yml', '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: bad
      kubewin.node.port_ranges:
        node_port_range: 32767-30000
      ignore_errors: true
'''), inventory)
    assert 'node_port_range' in run.result('bad', 'win1')['result']['msg']
    assert run.calls.get('win1', {}).get('total', 0) == 0
