"""kubewin.node.remote_access_routing against simulated nodes: one with Calico's bgp features installed and one
without them."""

from conftest import CONTAINERS_READY

ROUTING = '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: predict
      kubewin.node.remote_access_routing:
      check_mode: true
      diff: true
    - name: install
      kubewin.node.remote_access_routing:
      ignore_errors: true
    - name: again
      kubewin.node.remote_access_routing:
'''
BGP_FEATURES = {'RemoteAccess': 'installed', 'Routing': 'installed', 'RSAT-RemoteAccess-PowerShell': 'installed'}


def test_installs_the_router_once_and_refuses_a_node_without_the_features(sim):
    ready = dict(CONTAINERS_READY, features=dict(CONTAINERS_READY['features'], **BGP_FEATURES))
    inventory = sim.inventory({'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': ready},
                               'win2': {'ansible_host': '10.127.130.39', 'kubewin_sim': CONTAINERS_READY}})
    run = sim.run(sim.write('routing.yml', ROUTING), inventory)
    predicted = run.result('predict', 'win1')['result']
    assert predicted['changed'] is True and predicted['diff'] == {
        'before': {'routing': 'Uninstalled', 'service': 'Stopped'}, 'after': {'routing': 'Installed', 'service': 'Running'}}
    installed = run.result('install', 'win1')['result']
    assert installed['changed'] is True and installed['remote_access'] == {
        'module': True, 'routing': 'Installed', 'service': 'Running', 'start_type': 'Automatic'}
    again = run.result('again', 'win1')['result']
    assert again['changed'] is False
    assert sim.node('win1').data['log'].count('Install-RemoteAccess -VpnType RoutingOnly') == 1, 'check mode installed nothing'
    # The snapshot; the prediction with --diff reads the node live (a diff never trusts the snapshot); the install
    # plans from this run's snapshot, trusted, with no query first; the last task decides from the state the install
    # returned.
    assert run.calls['win1']['total'] == 3
    refused = run.result('install', 'win2')['result']
    assert run.result('install', 'win2')['status'] == 'ignored' and 'RemoteAccess, RSAT-RemoteAccess-PowerShell and Routing' in refused['msg']
    assert sim.node('win2').data.get('remote_access') is None
