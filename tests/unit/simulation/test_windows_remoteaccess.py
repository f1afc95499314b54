"""Remote Access as a LAN router (windows/remoteaccess.py), and the REAL remote_access_routing_apply.ps1 and the
remote_access section of lib/state.ps1 run by the engine against a node.

Calico's bgp backend needs the features RemoteAccess, RSAT-RemoteAccess-PowerShell and Routing, a restart, then
``Install-RemoteAccess -VpnType RoutingOnly`` and the service RemoteAccess running (tigera/docs CalicoWindowsInstall.js).
"""

import json

from test_windows_scm import STATE, compose, ok, run

from kubewin_sim.node import SimNode, initial_state
from kubewin_sim.windows import win_powershell

APPLY = compose('remote_access_routing_apply.ps1')
BGP_FEATURES = {'Containers': 'installed', 'RemoteAccess': 'installed', 'Routing': 'installed',
                'RSAT-RemoteAccess-PowerShell': 'installed'}


def bgp_node(**features):
    return SimNode(initial_state('win1', {'features': dict(BGP_FEATURES, **features)}))


def remote_access_section(node):
    return json.loads(ok(node, STATE + "\nConvertTo-Json -Compress -InputObject (Get-KubeWinNodeState -Sections remote_access)")[-1])


def test_the_cmdlets_exist_with_the_remoteaccess_module_only():
    node = bgp_node(**{'RSAT-RemoteAccess-PowerShell': 'available'})
    outcome = run(node, 'Get-RemoteAccess')
    assert outcome.errors and outcome.errors[0].startswith("The term 'Get-RemoteAccess' is not recognized")
    assert remote_access_section(node)['remote_access'] == {
        'module': False, 'routing': None, 'service': 'Stopped', 'start_type': 'Disabled'}


def test_a_disabled_service_does_not_start():
    node = bgp_node()
    outcome = run(node, 'Start-Service -Name RemoteAccess')
    assert outcome.errors == ["Service 'Routing and Remote Access (RemoteAccess)' cannot be started due to the following "
                              "error: Cannot start service RemoteAccess on computer '.'."]
    assert ok(node, '(Get-Service RemoteAccess).Status') == ['Stopped']


def test_install_remoteaccess_binds_to_the_vpn_set_and_needs_the_role_installed():
    node = bgp_node(Routing='installpending')
    outcome = run(node, 'Install-RemoteAccess -VpnType RoutingOnly')
    assert len(outcome.errors) == 1 and 'not ready: Routing' in outcome.errors[0]
    assert ok(node, '(Get-RemoteAccess).RoutingStatus') == ['Uninstalled']
    # -VpnType takes only the values of its ValidateSet (the page's Accepted values), in any case.
    assert run(node, 'Install-RemoteAccess -VpnType Router').errors == [
        'Cannot validate argument on parameter \'VpnType\'. The argument "Router" does not belong to the set '
        '"Vpn,VpnS2S,SstpProxy,RoutingOnly" specified by the ValidateSet attribute. Supply an argument that is in the '
        'set and then try the command again.']
    node.data['features']['Routing'] = 'installed'
    ok(node, 'Install-RemoteAccess -VpnType routingonly')
    assert ok(node, '(Get-RemoteAccess).RoutingStatus') == ['Installed']


def test_apply_installs_the_router_starts_the_service_and_a_second_run_installs_nothing():
    node = bgp_node()
    result = win_powershell.invoke(node, APPLY)
    assert (result['failed'], result['error']) == (False, []), result
    assert json.loads(result['result'])['state']['remote_access'] == {
        'module': True, 'routing': 'Installed', 'service': 'Running', 'start_type': 'Automatic'}
    assert node.data['log'].count('Install-RemoteAccess -VpnType RoutingOnly') == 1
    # The service stopped (by hand, or a restart of RemoteAccess that failed): the script starts it, and only that.
    ok(node, 'Stop-Service -Name RemoteAccess')
    again = win_powershell.invoke(node, APPLY)
    assert (again['failed'], again['error']) == (False, []), again
    assert json.loads(again['result'])['state']['remote_access']['service'] == 'Running'
    assert node.data['log'].count('Install-RemoteAccess -VpnType RoutingOnly') == 1


def test_apply_without_the_module_fails_at_the_first_cmdlet():
    result = win_powershell.invoke(bgp_node(**{'RSAT-RemoteAccess-PowerShell': 'available'}), APPLY)
    assert result['failed'] and "'Get-RemoteAccess' is not recognized" in result['error'][0]['exception']['message']
