"""kubewin.node.registry_values against a simulated node: Windows Update's policy values set, predicted, left alone
when right (no remote call beyond the snapshot), drift put back, and removed (only those values)."""

from conftest import CONTAINERS_READY

AU = 'HKLM:\\SOFTWARE\\Policies\\Microsoft\\Windows\\WindowsUpdate\\AU'
VALUES = '[{name: NoAutoUpdate, data: 0}, {name: AUOptions, data: 2}]'
PLAY = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
        registry_keys: ['%(key)s']
    - name: predict
      kubewin.node.registry_values:
        key: '%(key)s'
        values: %(values)s
      check_mode: true
      diff: true
    - name: set
      kubewin.node.registry_values:
        key: '%(key)s'
        values: %(values)s
    - name: again
      kubewin.node.registry_values:
        key: '%(key)s'
        values: %(values)s
    - name: snapshot again
      kubewin.node.node_info:
        registry_keys: ['%(key)s']
    - name: converged
      kubewin.node.registry_values:
        key: '%(key)s'
        values: %(values)s
    - name: remove
      kubewin.node.registry_values:
        key: '%(key)s'
        values: %(values)s
        state: absent
''' % {'key': AU, 'values': VALUES}


def test_sets_the_values_once_and_removes_only_those(sim):
    # A policy a GPO left: AUOptions 4 (download and schedule the install) and a value the module does not own.
    left = {'AUOptions': ['REG_DWORD', 4], 'ScheduledInstallDay': ['REG_DWORD', 0]}
    node = dict(CONTAINERS_READY, registry={AU[len('HKLM:\\'):]: left})
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': node}})
    run = sim.run(sim.write('registry.yml', PLAY), inventory)
    snapshot = run.result('snapshot', 'win1')['result']['ansible_facts']['kubewin_node']['registry'][AU]
    assert snapshot == {'exists': True, 'values': {'AUOptions': {'kind': 'DWord', 'data': 4},
                                                   'ScheduledInstallDay': {'kind': 'DWord', 'data': 0}}}
    predicted = run.result('predict', 'win1')['result']
    assert predicted['changed'] is True and predicted['diff'] == {
        'before': {'AUOptions': {'kind': 'DWord', 'data': 4}},
        'after': {'NoAutoUpdate': {'kind': 'DWord', 'data': 0}, 'AUOptions': {'kind': 'DWord', 'data': 2}}}
    assert run.result('set', 'win1')['result']['changed'] is True
    assert run.result('again', 'win1')['result']['changed'] is False
    assert run.result('converged', 'win1')['result']['changed'] is False
    removed = run.result('remove', 'win1')['result']
    assert removed['changed'] is True and removed['values'] == {}
    stored = sim.node('win1').data['registry'][AU[len('HKLM:\\'):].lower()]['values']
    assert stored == {'ScheduledInstallDay': ['REG_DWORD', 0]}, 'only the values it names are removed'
    # snapshot; predict with --diff reads live; set plans from the trusted snapshot (one apply); again from the state
    # the apply returned; snapshot again; converged from it (no call); remove (one apply).
    assert run.calls['win1']['total'] == 5


def test_creates_the_key_on_a_node_without_the_policy(sim):
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': CONTAINERS_READY}})
    run = sim.run(sim.write('registry.yml', PLAY), inventory)
    assert run.result('snapshot', 'win1')['result']['ansible_facts']['kubewin_node']['registry'][AU] == {'exists': False}
    assert run.result('set', 'win1')['result']['values'] == {
        'NoAutoUpdate': {'kind': 'DWord', 'data': 0}, 'AUOptions': {'kind': 'DWord', 'data': 2}}
    # The last task removed both values; the key it created stays, empty (a policy key without values sets nothing).
    assert sim.node('win1').data['registry'][AU[len('HKLM:\\'):].lower()]['values'] == {}
