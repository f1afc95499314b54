"""The service control manager, the registry, CIM and features of the Windows model, and the real scripts over them.

The cmdlets' documented behaviour (Get-Service and its ServiceController objects, Set-Service's validation,
sc.exe's output and exit codes, the registry provider's value types), then the REAL lib/services.ps1, the
os/features/services/environment sections of lib/state.ps1 and node_service_apply.ps1 run by the engine
against a node, each answer compared with what Windows reports for the node's services as set up here.
"""

import datetime
import json
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import filesystem, registry, run_on_node, win_powershell  # noqa: E402
from kubewin_sim.windows import services as service_api  # noqa: E402
from kubewin_sim.windows.registry import failure_actions_blob  # noqa: E402

SCRIPTS = os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts')


def _read(path):
    with open(os.path.join(SCRIPTS, path), encoding='utf-8') as handle:
        return handle.read()


def compose(name):
    """The script as the collection sends it: each `# kubewin-include: <lib>` line replaced by the lib."""
    return re.sub(r'^# kubewin-include: (\S+)$', lambda match: _read('lib/%s.ps1' % match.group(1)), _read(name),
                  flags=re.MULTILINE)


SERVICES = _read('lib/services.ps1')
# lib/state.ps1's own functions; the libs it includes (hns, netconfig, files, ovs) are other areas.
STATE = re.sub(r'^# kubewin-include: .*$', '', _read('lib/state.ps1'), flags=re.MULTILINE)


def service(name, **values):
    record = {'name': name, 'exists': True, 'display_name': name, 'description': '%s (kubewin.node)' % name,
              'state': 'running', 'start_mode': 'auto', 'command_line': 'C:\\k\\%s.exe --v=2' % name,
              'dependencies': [], 'environment': [], 'account': 'LocalSystem', 'recovery': None, 'exit_code': 0,
              'nssm': None, 'preshutdown_timeout_ms': None, 'preshutdown_ordered': False}
    record.update(values)
    return record


def fresh_services():
    """The services of fresh_node: containerd, the kubelet depending on it, and kube-proxy (never started)."""
    return {
        'containerd': service('containerd', command_line='"C:\\Program Files\\containerd\\containerd.exe" --run-service',
                              recovery={'reset_period_seconds': 86400, 'actions': [
                                  {'type': 'restart', 'delay_ms': 10000}, {'type': 'restart', 'delay_ms': 30000}]}),
        'kubelet': service('kubelet', start_mode='delayed', dependencies=['containerd'],
                           environment=['KUBE_NETWORK=cbr0', 'NODE_NAME=win1']),
        'kube-proxy': service('kube-proxy', dependencies=['kubelet'], start_mode='manual', state='stopped', exit_code=1077)}


def fresh_node(**profile):
    node = SimNode(initial_state('win1', dict({'features': {'Containers': 'installed', 'Hyper-V': 'available'}},
                                              **profile)))
    services = node.data['services']
    services.update(fresh_services())
    for record in services.values():
        node.write_file(record['command_line'].split(' --')[0].strip('"'), sha256='0' * 64, size=1)
    return node


def run(node, text, parameters=None):
    if '& $sc' in text:
        # node_service_apply.ps1 runs sc.exe by its full path.
        text = "$sc = Join-Path $env:SystemRoot 'System32\\sc.exe'\n" + text
    outcome = run_on_node(node, text, parameters)
    assert outcome.unsupported is None, outcome.unsupported
    return outcome


def ok(node, text):
    outcome = run(node, text)
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    return outcome.output


def as_json(node, text, lib=''):
    return json.loads(ok(node, lib + '\nConvertTo-Json -Depth 8 -Compress -InputObject (%s)' % text)[-1])


# -- Get-Service and ServiceController --------------------------------------------------------------

def test_get_service_returns_service_controllers():
    node = fresh_node()
    assert ok(node, "$s = Get-Service -Name kubelet; $s.GetType().FullName; $s.Name; $s.Status; $s.Status.GetType().FullName; "
                    "$s.StartType; $s.DisplayName; [int]$s.Status") == [
        'System.ServiceProcess.ServiceController', 'kubelet', 'Running', 'System.ServiceProcess.ServiceControllerStatus',
        'Automatic', 'kubelet', '4']


def test_get_service_status_compares_with_a_string_and_is_read_once():
    node = fresh_node()
    assert ok(node, "$s = Get-Service kube-proxy; $s.Status -eq 'Stopped'; $s.Status -ne 'Running'") == ['True', 'True']
    # ServiceController.Status is the status when the object was made, until Refresh().
    assert ok(node, "$s = Get-Service kubelet; Stop-Service kubelet -Force; $s.Status; $s.Refresh(); $s.Status") == [
        'Running', 'Stopped']


def test_dependent_services_are_direct_and_indirect():
    node = fresh_node()
    # EnumDependentServices: in the reverse of the start order.
    assert ok(node, "(Get-Service containerd).DependentServices | ForEach-Object { $_.Name }") == ['kube-proxy', 'kubelet']
    assert ok(node, "(Get-Service kubelet).ServicesDependedOn.Name; (Get-Service kubelet).RequiredServices.Count") == [
        'containerd', '1']


def test_get_service_missing_is_a_non_terminating_error():
    outcome = run(fresh_node(), "Get-Service -Name nosuch; 'after'")
    assert outcome.output == ['after']
    assert outcome.errors == ["Cannot find any service with service name 'nosuch'."]
    assert ok(fresh_node(), "$null -eq (Get-Service -Name nosuch -ErrorAction SilentlyContinue)") == ['True']


def test_get_service_wildcards_and_builtin_services():
    node = fresh_node()
    assert ok(node, "Get-Service -Name kube* | ForEach-Object Name") == ['kube-proxy', 'kubelet']
    # Every Windows Server runs WinRM; hns and vmcompute come with the Containers feature.
    assert ok(node, "(Get-Service winrm).Name; (Get-Service hns).Status") == ['WinRM', 'Running']
    bare = SimNode(initial_state('win2', {}))
    assert run(bare, "Get-Service hns").errors == ["Cannot find any service with service name 'hns'."]
    # Tcpip is a kernel driver: it has a service key, Get-Service does not list drivers.
    assert ok(bare, r"Test-Path HKLM:\SYSTEM\CurrentControlSet\Services\Tcpip; "
                    "$null -eq (Get-Service Tcpip -ErrorAction SilentlyContinue)") == ['True', 'True']


def test_stop_service_with_running_dependents_needs_force():
    node = fresh_node()
    outcome = run(node, "Stop-Service -Name containerd")
    assert outcome.errors == ["Cannot stop service 'containerd (containerd)' because it has dependent services. It can "
                              "only be stopped if the Force flag is set."]
    assert node.data['services']['containerd']['state'] == 'running'
    ok(node, "Stop-Service -Name containerd -Force")
    assert [node.data['services'][name]['state'] for name in ('containerd', 'kubelet')] == ['stopped', 'stopped']


def test_restart_service_starts_again_the_dependents_it_stopped():
    # Service.cs (RestartServiceCommand): the running dependents DoStopService stopped are started again, first.
    node = fresh_node()
    node.data['services']['kubelet']['starts'] = 0
    ok(node, "Restart-Service -Name containerd -Force")
    assert [node.data['services'][name]['state'] for name in ('containerd', 'kubelet')] == ['running', 'running']
    assert node.data['services']['kubelet']['starts'] == 1


def test_restart_service_starts_no_dependent_that_was_stopped():
    node = fresh_node()
    ok(node, "Stop-Service -Name kubelet")
    ok(node, "Restart-Service -Name containerd -Force")
    assert [node.data['services'][name]['state'] for name in ('containerd', 'kubelet')] == ['running', 'stopped']


def test_start_service_that_fails_is_could_not_start_service():
    node = fresh_node()
    node.data['services']['kubelet']['state'] = 'stopped'
    node.remove_file('C:\\k\\kubelet.exe')
    outcome = run(node, "Start-Service -Name kubelet; (Get-Service kubelet).Status")
    assert outcome.output == ['Stopped']
    assert outcome.errors == ["Service 'kubelet (kubelet)' cannot be started due to the following error: Cannot start "
                              "service kubelet on computer '.'."]


def test_set_service_rejects_an_empty_description():
    # Service.cs (SetServiceCommand): [ValidateNotNullOrEmpty] on -Description, a parameter-binding error.
    # A parameter-binding error ends the statement, not the script.
    outcome = run(fresh_node(), "Set-Service -Name kubelet -Description ''; 'next'")
    assert outcome.output == ['next']
    assert outcome.errors == ["Cannot validate argument on parameter 'Description'. The argument is null or empty. Provide "
                              "an argument that is not null or empty, and then try the command again."]


def test_set_service_description_and_startup_type_show_in_the_registry():
    node = fresh_node()
    ok(node, "Set-Service -Name kube-proxy -Description 'proxy' -StartupType Disabled -DisplayName 'Kube Proxy'")
    key = r"(Get-ItemProperty -LiteralPath HKLM:\SYSTEM\CurrentControlSet\Services\kube-proxy)"
    assert ok(node, "%s.Description; %s.Start; %s.DisplayName; (Get-Service kube-proxy).StartType" % (key, key, key)) == [
        'proxy', '4', 'Kube Proxy', 'Disabled']


def test_new_service_creates_a_stopped_service():
    node = fresh_node()
    assert ok(node, r"$s = New-Service -Name flanneld -BinaryPathName 'C:\k\flanneld.exe' -DisplayName flanneld "
                    "-StartupType Manual; $s.Status; $s.StartType; "
                    "(Get-CimInstance -ClassName Win32_Service -Filter \"Name='flanneld'\").ExitCode") == [
        'Stopped', 'Manual', '1077']
    outcome = run(node, r"New-Service -Name flanneld -BinaryPathName 'C:\k\flanneld.exe'")
    assert outcome.errors == ["Service 'flanneld' cannot be created due to the following error: The specified service "
                              "already exists"]


# -- sc.exe ---------------------------------------------------------------------------------------

def test_sc_missing_service_prints_1060_on_stdout():
    outcome = run(fresh_node(), r"$out = & $sc config nosuch start= auto; $LASTEXITCODE; $out")
    assert outcome.output == ['1060', '[SC] OpenService FAILED 1060:', '', 'The specified service does not exist as an '
                              'installed service.', '']
    assert outcome.errors == []


def test_sc_create_existing_is_1073():
    outcome = run(fresh_node(), r"& $sc create kubelet binPath= C:\k\kubelet.exe; $LASTEXITCODE")
    assert outcome.output[-1] == '1073' and outcome.output[0] == '[SC] CreateService FAILED 1073:'


def test_sc_config_changes_what_get_service_and_the_key_show():
    node = fresh_node()
    ok(node, r"& $sc config kube-proxy start= delayed-auto depend= kubelet/containerd")
    key = r"(Get-ItemProperty -LiteralPath HKLM:\SYSTEM\CurrentControlSet\Services\kube-proxy)"
    assert ok(node, "%s.Start; %s.DelayedAutostart; %s.DependOnService -join ','; "
                    "(Get-Service kube-proxy).ServicesDependedOn.Count" % (key, key, key)) == [
        '2', '1', 'kubelet,containerd', '2']
    ok(node, r"& $sc config kube-proxy start= demand depend= /")
    assert node.data['services']['kube-proxy']['start_mode'] == 'manual'
    assert node.data['services']['kube-proxy']['dependencies'] == []


def test_sc_failure_writes_the_failure_actions_blob():
    node = fresh_node()
    ok(node, "& $sc failure kube-proxy reset= 3600 actions= restart/5000/restart/60000")
    blob = ok(node, r"(Get-ItemProperty HKLM:\SYSTEM\CurrentControlSet\Services\kube-proxy).FailureActions -join ','")
    expected = failure_actions_blob({'reset_period_seconds': 3600, 'actions': [
        {'type': 'restart', 'delay_ms': 5000}, {'type': 'restart', 'delay_ms': 60000}]})
    assert blob == [','.join(str(byte) for byte in expected)]
    # actions= "" (written '""' in Windows PowerShell 5.1, which drops an empty string argument) clears them.
    ok(node, """& $sc failure kube-proxy reset= 0 actions= '""'""")
    assert node.data['services']['kube-proxy']['recovery'] is None


def test_sc_with_2_and_1_under_stop_is_not_an_error():
    # node_service_apply's Invoke-Sc: sc.exe prints its failures on stdout, so under
    # $ErrorActionPreference = 'Stop' `2>&1` brings no NativeCommandError; the exit code tells.
    outcome = run(fresh_node(), "$ErrorActionPreference = 'Stop'; $output = & $sc delete nosuch 2>&1; "
                                "$LASTEXITCODE; $output.Count")
    assert (outcome.exit_code, outcome.output, outcome.errors) == (0, ['1060', '4'], [])


@pytest.mark.parametrize('redirection', ['2>&1', '2>$null'])
def test_redirected_stderr_under_stop_ends_the_script(monkeypatch, redirection):
    # The other side of the sc.exe case: a program that writes to stderr. Windows PowerShell 5.1 turns each
    # redirected stderr line into a NativeCommandError record, and under 'Stop' the first one ends the script
    # (PowerShell 7 changed this: PSNotApplyErrorActionToStderr). lib/ovs.ps1's ovs-vsctl wrapper meets it.
    from kubewin_sim.windows import ProgramResult, services  # pylint: disable=import-outside-toplevel
    monkeypatch.setitem(services.PROGRAMS, 'noisy.exe',
                        lambda host, words, items: ProgramResult(['out'], ['warning: on stderr'], 0))
    outcome = run(fresh_node(), "$ErrorActionPreference = 'Stop'; $o = & noisy.exe %s; 'not reached'" % redirection)
    assert (outcome.exit_code, outcome.output, outcome.errors) == (1, [], ['warning: on stderr'])
    outcome = run(fresh_node(), "$o = & noisy.exe 2>&1; $o.Count; $o[1].FullyQualifiedErrorId; $LASTEXITCODE")
    assert (outcome.exit_code, outcome.output, outcome.errors) == (0, ['2', 'NativeCommandError', '0'], [])


# -- the registry ---------------------------------------------------------------------------------

def test_service_key_value_types():
    node = fresh_node()
    key = r"$k = Get-ItemProperty -LiteralPath HKLM:\SYSTEM\CurrentControlSet\Services\kubelet; "
    assert ok(node, key + "$k.Start.GetType().Name; $k.ImagePath.GetType().Name; $k.DependOnService.GetType().Name; "
                          "$k.Environment.GetType().Name; $k.DelayedAutostart; $k.ObjectName; $k.PSChildName; $k.PSPath; "
                          "[string]$k.PSProvider; [string]$k.PSDrive") == [
        'Int32', 'String', 'String[]', 'String[]', '1', 'LocalSystem', 'kubelet',
        r'Microsoft.PowerShell.Core\Registry::HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Services\kubelet',
        r'Microsoft.PowerShell.Core\Registry', 'HKLM']
    assert ok(node, r"(Get-ItemProperty HKLM:\SYSTEM\CurrentControlSet\Services\containerd).FailureActions.GetType().Name") \
        == ['Byte[]']


def test_os_key_value_types():
    node = fresh_node()
    assert ok(node, r"$v = Get-ItemProperty -LiteralPath 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion'; "
                    "$v.CurrentBuildNumber.GetType().Name; $v.CurrentBuildNumber; $v.UBR.GetType().Name; $v.UBR; "
                    "$v.ProductName; $v.DisplayVersion; $v.InstallationType") == [
        'String', '20348', 'Int32', '2582', 'Windows Server 2022 Datacenter', '21H2', 'Server']
    # Windows Server 2019 has ReleaseId and no DisplayVersion.
    old = SimNode(initial_state('win3', {'build': 17763}))
    assert ok(old, r"$v = Get-ItemProperty 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion'; "
                   "$null -eq $v.DisplayVersion; $v.ReleaseId") == ['True', '1809']


def test_missing_key_and_missing_value():
    node = fresh_node()
    outcome = run(node, r"Get-ItemProperty -LiteralPath HKLM:\SYSTEM\CurrentControlSet\Services\nosuch")
    assert outcome.errors == [r"Cannot find path 'HKLM:\SYSTEM\CurrentControlSet\Services\nosuch' because it does not "
                              "exist."]
    outcome = run(node, r"Remove-ItemProperty -LiteralPath HKLM:\SYSTEM\CurrentControlSet\Services\kube-proxy "
                        "-Name Environment")
    assert outcome.errors == [r"Property Environment does not exist at path HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet"
                              r"\Services\kube-proxy."]


def test_reboot_pending_keys_follow_the_node():
    node = fresh_node()
    test = r"Test-Path -LiteralPath 'HKLM:\SOFTWARE\Microsoft\Windows\CurrentVersion\Component Based Servicing\RebootPending'"
    assert ok(node, test) == ['False']
    node.data['reboot_pending'] = True
    assert ok(node, test) == ['True']
    node.reboot()
    assert ok(node, test) == ['False']


SESSION_MANAGER = r"HKLM:\SYSTEM\CurrentControlSet\Control\Session Manager"


def test_pending_file_renames_show_in_the_session_manager_key_until_the_boot_carries_them_out():
    # MoveFileEx(MOVEFILE_DELAY_UNTIL_REBOOT): what an installer does with a file in use (windows/registry.py).
    node = fresh_node()
    read = ("(Get-ItemProperty -LiteralPath '%s' -Name PendingFileRenameOperations -ErrorAction SilentlyContinue)"
            ".PendingFileRenameOperations.Count" % SESSION_MANAGER)
    assert ok(node, read) == ['0']
    node.write_file('C:\\Program Files\\OVS\\ovs.dll.new', content='v2')
    node.write_file('C:\\Program Files\\OVS\\ovs.dll', content='v1')
    registry.schedule_file_rename(node, 'C:\\Program Files\\OVS\\ovs.dll.new', 'C:\\Program Files\\OVS\\ovs.dll')
    assert ok(node, "$v = (Get-ItemProperty -LiteralPath '%s' -Name PendingFileRenameOperations).PendingFileRenameOperations; "
                    "$v.GetType().FullName; $v" % SESSION_MANAGER) == [
        'System.String[]', '\\??\\C:\\Program Files\\OVS\\ovs.dll.new', '\\??\\C:\\Program Files\\OVS\\ovs.dll']
    node.reboot()
    assert ok(node, read) == ['0']
    assert node.file('C:\\Program Files\\OVS\\ovs.dll')['content'] == 'v2'
    assert node.file('C:\\Program Files\\OVS\\ovs.dll.new') is None


CONTROL = r"HKLM:\SYSTEM\CurrentControlSet\Control"


def test_the_control_keys_preshutdown_order_and_a_services_preshutdown_timeout_are_the_scm_view():
    # PreshutdownOrder (Service Control Handler Function) and SERVICE_PRESHUTDOWN_INFO as the SCM keeps it.
    node = fresh_node()
    read = "(Get-ItemProperty -LiteralPath '%s' -Name PreshutdownOrder).PreshutdownOrder" % CONTROL
    assert ok(node, read) == list(registry.DEFAULT_PRESHUTDOWN_ORDER)
    ok(node, "New-ItemProperty -LiteralPath '%s' -Name PreshutdownOrder -PropertyType MultiString "
             "-Value @('kubelet','containerd') -Force | Out-Null" % CONTROL)
    assert registry.preshutdown_order(node) == ['kubelet', 'containerd']
    # The key's other values are not modelled: reading them all is an engine gap, not an empty answer.
    assert run_on_node(node, "Get-ItemProperty -LiteralPath '%s'" % CONTROL).unsupported
    key = r"HKLM:\SYSTEM\CurrentControlSet\Services\kubelet"
    assert ok(node, "$null -eq (Get-ItemProperty -LiteralPath '%s').PreshutdownTimeout" % key) == ['True']
    assert service_api.query_preshutdown_timeout(node, 'kubelet') == 10000, 'the default from build 15063 on'
    ok(node, "New-ItemProperty -LiteralPath '%s' -Name PreshutdownTimeout -PropertyType DWord -Value 90000 -Force "
             "| Out-Null" % key)
    assert service_api.query_preshutdown_timeout(node, 'kubelet') == 90000
    service_api.change_preshutdown_timeout(node, 'kubelet', 120000)
    assert ok(node, "(Get-ItemProperty -LiteralPath '%s').PreshutdownTimeout" % key) == ['120000']


def test_a_pending_file_rename_is_a_pending_reboot():
    node = fresh_node()
    pending = 'Test-KubeWinRebootPending'
    assert ok(node, STATE + pending) == ['False']
    registry.schedule_file_rename(node, 'C:\\Windows\\Temp\\old.dll')
    assert ok(node, STATE + pending) == ['True']
    node.reboot()
    assert ok(node, STATE + pending) == ['False']


def test_new_itemproperty_on_a_service_key_is_the_scm_view():
    node = fresh_node()
    key = r"HKLM:\SYSTEM\CurrentControlSet\Services\kube-proxy"
    ok(node, "New-ItemProperty -LiteralPath %s -Name Environment -PropertyType MultiString -Value @('A=1','B=2') -Force "
             "| Out-Null" % key)
    assert node.data['services']['kube-proxy']['environment'] == ['A=1', 'B=2']
    outcome = run(node, "New-ItemProperty -LiteralPath %s -Name Environment -PropertyType MultiString -Value 'C=3'" % key)
    assert outcome.errors == ['The property already exists.']
    ok(node, "Remove-ItemProperty -LiteralPath %s -Name Environment" % key)
    assert node.data['services']['kube-proxy']['environment'] == []


def test_machine_environment_variables():
    node = fresh_node()
    ok(node, "[Environment]::SetEnvironmentVariable('KUBECONFIG', 'C:\\k\\config', 'Machine')")
    assert node.data['environment'] == {'KUBECONFIG': 'C:\\k\\config'}
    assert ok(node, "[Environment]::GetEnvironmentVariable('kubeconfig', 'Machine'); "
                    r"(Get-ItemProperty 'HKLM:\SYSTEM\CurrentControlSet\Control\Session Manager\Environment').KUBECONFIG; "
                    "$env:SystemRoot; $env:COMPUTERNAME; $null -eq [Environment]::GetEnvironmentVariable('NOPE', 'Machine')") \
        == ['C:\\k\\config', 'C:\\k\\config', 'C:\\Windows', 'WIN1', 'True']
    ok(node, "[Environment]::SetEnvironmentVariable('KUBECONFIG', $null, 'Machine')")
    assert node.data['environment'] == {}
    # Every Windows Server has a machine Path (REG_EXPAND_SZ, returned expanded).
    assert ok(node, "[Environment]::GetEnvironmentVariable('Path', 'Machine').Split(';')[0]") == ['C:\\Windows\\system32']


# -- CIM and features -----------------------------------------------------------------------------

def test_cim_instances():
    node = fresh_node()
    assert ok(node, "$os = Get-CimInstance -ClassName Win32_OperatingSystem; $os.Version; $os.BuildNumber; "
                    "$os.LastBootUpTime.GetType().FullName; "
                    "$d = Get-CimInstance -ClassName Win32_LogicalDisk | Where-Object { $_.DeviceID -eq $env:SystemDrive }; "
                    "$d.FreeSpace.GetType().Name; $d.FreeSpace") == [
        # The profile's room for files, less the files the node holds (windows/filesystem.py).
        '10.0.20348', '20348', 'System.DateTime', 'UInt64', str(100 * 1024 ** 3 - filesystem.used_bytes(node))]
    assert ok(node, "$s = Get-CimInstance -ClassName Win32_Service -Filter \"Name='kube-proxy'\"; $s.ExitCode; "
                    "$s.ExitCode.GetType().Name; $s.State; $s.StartMode; @(Get-CimInstance Win32_Service -Filter "
                    "\"Name='nosuch'\").Count") == ['1077', 'UInt32', 'Stopped', 'Manual', '0']


def test_get_windowsfeature_install_state():
    node = fresh_node()
    node.data['features'].update({'Hyper-V': 'installpending', 'Hyper-V-PowerShell': 'removepending'})
    assert ok(node, "Get-WindowsFeature -Name Containers, Hyper-V, Hyper-V-PowerShell, NoSuch | ForEach-Object { "
                    "'{0} {1} {2} {3}' -f $_.Name, $_.InstallState, $_.Installed, $_.InstallState.GetType().FullName }") == [
        'Containers Installed True Microsoft.Windows.ServerManager.Commands.InstallState',
        'Hyper-V InstallPending False Microsoft.Windows.ServerManager.Commands.InstallState',
        'Hyper-V-PowerShell UninstallPending False Microsoft.Windows.ServerManager.Commands.InstallState']


def test_the_remoteaccess_feature_brings_the_routing_and_remote_access_service():
    # Calico's BGP features (tigera/docs CalicoWindowsInstall.js) and the service the RemoteAccess role registers.
    node = SimNode(initial_state('win1', {}))  # the default profile: every modelled feature available
    assert ok(node, "Get-WindowsFeature -Name RemoteAccess, Routing, RSAT-RemoteAccess-PowerShell | ForEach-Object { "
                    "'{0}|{1}|{2}' -f $_.Name, $_.DisplayName, $_.InstallState }") == [
        'RemoteAccess|Remote Access|Available', 'Routing|Routing|Available',
        'RSAT-RemoteAccess-PowerShell|Remote Access module for Windows PowerShell|Available']
    assert run(node, "Get-Service RemoteAccess").errors == ["Cannot find any service with service name 'RemoteAccess'."]
    node.data['features']['RemoteAccess'] = 'installed'
    # Installed Disabled and stopped (windows/remoteaccess.py); Install-RemoteAccess starts it.
    assert ok(node, "$s = Get-Service remoteaccess; '{0}|{1}|{2}|{3}' -f $s.Name, $s.DisplayName, $s.Status, "
                    "$s.StartType") == ['RemoteAccess|Routing and Remote Access|Stopped|Disabled']


# -- lib/services.ps1 -------------------------------------------------------------------------------

def absent(name):
    return {'name': name, 'exists': False}


@pytest.mark.parametrize('name', ['containerd', 'kubelet', 'kube-proxy', 'nosuch'])
def test_get_kubewinservice_reports_the_service_as_set_up(name):
    node = fresh_node()
    real = as_json(node, "Get-KubeWinService -Name %s" % name, SERVICES)
    assert real == fresh_services().get(name, absent(name))


def test_get_kubewinservice_nssm_settings():
    node = fresh_node()
    flanneld = service('flanneld', command_line='C:\\k\\nssm.exe', nssm={
        'application': 'C:\\k\\flanneld.exe', 'app_parameters': '--kube-subnet-mgr', 'app_directory': 'C:\\k',
        'app_stdout': 'C:\\k\\logs\\flanneld.log', 'app_stderr': 'C:\\k\\logs\\flanneld.log', 'app_rotate_bytes': 10485760})
    node.data['services']['flanneld'] = dict(flanneld)
    real = as_json(node, "Get-KubeWinService -Name flanneld", SERVICES)
    assert real == flanneld
    assert ok(node, r"(Get-ItemProperty HKLM:\SYSTEM\CurrentControlSet\Services\flanneld\Parameters).AppRotateBytes"
                    ".GetType().Name") == ['Int32']


def test_get_kubewinservice_of_a_service_without_description_reports_null():
    node = fresh_node()
    node.data['services']['kube-proxy']['description'] = None
    assert ok(node, SERVICES + "\n$null -eq (Get-KubeWinService -Name kube-proxy).description") == ['True']


# -- lib/state.ps1 sections -------------------------------------------------------------------------

def test_state_sections_report_os_features_services_and_environment():
    node = fresh_node()
    node.data['features']['Hyper-V'] = 'installpending'
    node.data['reboot_pending'] = True
    node.data['environment']['KUBECONFIG'] = 'C:\\k\\config'
    real = as_json(node, "Get-KubeWinNodeState -Sections os, features, services, environment -Features Containers, "
                   "Hyper-V -Services kubelet, kube-proxy, nosuch -Environment KUBECONFIG, NOPE", SERVICES + STATE)
    # The round-trip format ("o") of a UTC DateTime: seven fraction digits and Z. The instant is the node's boot.
    last_boot = real['os'].pop('last_boot')
    assert re.fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z', real['os'].pop('now'))
    assert re.fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z', last_boot), last_boot
    assert datetime.datetime.fromisoformat(last_boot[:-2] + '+00:00') == \
        datetime.datetime.fromtimestamp(node.data['os']['last_boot'], datetime.timezone.utc)
    services = fresh_services()
    # initial_state's Windows Server 2022 Datacenter (build 20348.2582) with 100 GiB on C: for its files.
    assert real == {
        'sections': ['os', 'features', 'services', 'environment'],
        'os': {'hostname': 'WIN1', 'version': '10.0.20348', 'build': 20348, 'ubr': 2582,
               'product_name': 'Windows Server 2022 Datacenter', 'edition': 'ServerDatacenter', 'display_version': '21H2',
               'installation_type': 'Server', 'system_drive_free_bytes': 100 * 1024 ** 3 - filesystem.used_bytes(node),
               'memory_kb': 16 * 1024 ** 2, 'page_files_kb': 4 * 1024 ** 2, 'commit_limit_kb': 20 * 1024 ** 2,
               'execution_policies': {scope: 'Undefined' for scope in ('MachinePolicy', 'UserPolicy', 'Process',
                                                                       'CurrentUser', 'LocalMachine')}},
        'features': {'Containers': 'installed', 'Hyper-V': 'installpending'}, 'reboot_pending': True,
        'services': {'kubelet': services['kubelet'], 'kube-proxy': services['kube-proxy'], 'nosuch': absent('nosuch')},
        'environment': {'KUBECONFIG': 'C:\\k\\config', 'NOPE': None}}


# -- node_service_apply.ps1 -----------------------------------------------------------------------

APPLY = compose('node_service_apply.ps1')


def apply(node, **parameters):
    """Run node_service_apply.ps1 in the engine the way win_powershell runs it; its result document."""
    result = win_powershell.invoke(node, APPLY, parameters)
    assert (result['failed'], result['error']) == (False, []), result
    return json.loads(result['result'])


def reported(*views):
    """node_service_apply's answer: the services section with these services."""
    return {'state': {'sections': ['services'], 'services': {view['name']: view for view in views}}}


KUBELET = {'Name': 'kubelet', 'CommandLine': 'C:\\k\\kubelet.exe --v=4', 'DisplayName': 'kubelet',
           'Description': 'Kubernetes node agent', 'StartMode': 'delayed', 'Dependencies': ['containerd'],
           'Environment': ['NODE_NAME=win1'], 'FailureActions': 'restart/10000/restart/30000', 'ResetPeriodSeconds': 3600}
# KUBELET's FailureActions and ResetPeriodSeconds as the service's recovery settings.
KUBELET_RECOVERY = {'reset_period_seconds': 3600, 'actions': [{'type': 'restart', 'delay_ms': 10000},
                                                              {'type': 'restart', 'delay_ms': 30000}]}


def test_apply_creates_a_service():
    node = fresh_node()
    del node.data['services']['kube-proxy']
    del node.data['services']['kubelet']
    real = apply(node, **KUBELET)
    kubelet = service('kubelet', description='Kubernetes node agent', start_mode='delayed', command_line='C:\\k\\kubelet.exe --v=4',
                      dependencies=['containerd'], environment=['NODE_NAME=win1'], recovery=KUBELET_RECOVERY)
    assert real == reported(kubelet)
    # The model's record has no pre-shutdown fields: those are the snapshot's reading of the registry.
    stored = {key: value for key, value in kubelet.items() if not key.startswith('preshutdown_')}
    assert node.data['services']['kubelet'] == dict(stored, starts=1)


def test_apply_reconfigures_and_restarts_with_the_dependents():
    node = fresh_node()
    node.data['services']['kube-proxy']['state'] = 'running'
    parameters = dict(KUBELET)
    parameters.update(Name='containerd', DisplayName='containerd', StartMode='auto', Dependencies=[], Environment=[],
                      Restart=True, CommandLine='"C:\\Program Files\\containerd\\containerd.exe" --run-service --log-level=debug')
    real = apply(node, **parameters)
    services = fresh_services()
    # Restarted with containerd: the dependents, in the order EnumDependentServices gives them.
    assert list(real['state']['services']) == ['containerd', 'kube-proxy', 'kubelet']
    assert real == reported(
        service('containerd', description='Kubernetes node agent', recovery=KUBELET_RECOVERY,
                command_line='"C:\\Program Files\\containerd\\containerd.exe" --run-service --log-level=debug'),
        dict(services['kube-proxy'], state='running', exit_code=0), services['kubelet'])
    assert [node.data['services'][name]['state'] for name in ('containerd', 'kubelet', 'kube-proxy')] == ['running'] * 3


def test_apply_stops_and_removes():
    node = fresh_node()
    real = apply(node, Name='kube-proxy', CommandLine='C:\\k\\kube-proxy.exe', DisplayName='kube-proxy',
                 Description='proxy', Ensure='stopped')
    # Never started: Win32_Service's ExitCode stays 1077 (ERROR_SERVICE_NEVER_STARTED).
    assert real == reported(service('kube-proxy', description='proxy', state='stopped', command_line='C:\\k\\kube-proxy.exe',
                                    exit_code=1077))
    real = apply(node, Name='kube-proxy', Ensure='absent')
    assert real == reported(absent('kube-proxy'))
    assert 'kube-proxy' not in node.data['services']


def test_apply_without_description():
    # node_service's description defaults to ''; Set-Service -Description '' fails its
    # [ValidateNotNullOrEmpty] on Windows PowerShell 5.1, after New-Service had created the service.
    node = fresh_node()
    parameters = dict(KUBELET)
    parameters.update(Name='kube-proxy', Description='', CommandLine='C:\\k\\kube-proxy.exe')
    real = apply(node, **parameters)
    assert real == reported(service('kube-proxy', display_name='kubelet', description=None, start_mode='delayed',
                                    command_line='C:\\k\\kube-proxy.exe', dependencies=['containerd'],
                                    environment=['NODE_NAME=win1'], recovery=KUBELET_RECOVERY))


def test_apply_an_nssm_service():
    # Output files left empty: no folder to create (New-KubeWinDirectory is the file system model's).
    node = fresh_node()
    for path in ('C:\\k\\nssm.exe', 'C:\\k\\flanneld.exe'):
        node.write_file(path, sha256='0' * 64, size=1)
    nssm = {'Application': 'C:\\k\\flanneld.exe', 'AppParameters': '--kube-subnet-mgr', 'AppDirectory': 'C:\\k',
            'AppStdout': '', 'AppStderr': '', 'AppRotateFiles': 1, 'AppRotateOnline': 1, 'AppRotateBytes': 0}
    real = apply(node, Name='flanneld', CommandLine='C:\\k\\nssm.exe', DisplayName='flanneld',
                 Description='flannel', NssmJson=json.dumps(nssm))
    # nssm keeps running; flanneld, given no kubeconfig, exits 1, and the model reports that as the running
    # service's exit code (the flanneld program model's answer, kept as it is).
    assert real == reported(service('flanneld', description='flannel', command_line='C:\\k\\nssm.exe', exit_code=1, nssm={
        'application': 'C:\\k\\flanneld.exe', 'app_parameters': '--kube-subnet-mgr', 'app_directory': 'C:\\k',
        'app_stdout': '', 'app_stderr': '', 'app_rotate_bytes': 0}))
    assert ok(node, r"$p = Get-ItemProperty HKLM:\SYSTEM\CurrentControlSet\Services\flanneld\Parameters; "
                    "$p.AppRotateFiles.GetType().Name; $p.AppParameters.GetType().Name") == ['Int32', 'String']


def test_apply_of_a_service_that_does_not_start_fails_the_script():
    node = fresh_node(service_start_failures=['kube-proxy'])
    parameters = dict(Name='kube-proxy', CommandLine='C:\\k\\kube-proxy.exe', DisplayName='kube-proxy', Description='p')
    result = win_powershell.invoke(node, APPLY, parameters)
    # ServiceController.Start's InvalidOperationException and the SCM's Win32 error, in lib/services' own words.
    assert result['failed'] and [error['exception']['message'] for error in result['error']] == [
        "service kube-proxy did not start: Cannot start service kube-proxy on computer '.'. (The process terminated "
        "unexpectedly.)"]
    # The service was created and configured before the start failed; it stays, stopped, with the program's exit code.
    assert as_json(node, "Get-KubeWinService -Name kube-proxy", SERVICES) == service(
        'kube-proxy', description='p', state='stopped', command_line='C:\\k\\kube-proxy.exe', exit_code=1)


def test_other_keys_live_in_the_node():
    node = fresh_node()
    key = r"HKLM:\SOFTWARE\kubewin\node"
    outcome = run(node, "New-Item -Path %s" % key)
    assert outcome.errors == [r"Cannot find path 'HKLM:\SOFTWARE\kubewin\node' because it does not exist."]
    ok(node, "$null = New-Item -Path %s -Force; New-ItemProperty -LiteralPath %s -Name Count -PropertyType DWord "
             "-Value 0xFFFFFFFF | Out-Null; New-ItemProperty -LiteralPath %s -Name Blob -PropertyType Binary "
             "-Value ([byte[]](1, 2)) | Out-Null" % (key, key, key))
    assert ok(node, "Test-Path %s; (Get-ItemProperty %s).Count; (Get-ItemProperty %s -Name Blob).Blob -join ','; "
                    "@(Get-ItemProperty %s -Name Nope -ErrorAction SilentlyContinue).Count" % (key, key, key, key)) == [
        'True', '-1', '1,2', '0']
    # A key without values gives no object.
    assert ok(node, r"@(Get-ItemProperty HKLM:\SOFTWARE\kubewin).Count") == ['0']


# -- node_service_apply.ps1: no running service stopped for a replacement that cannot start --------------------

def failure(node, **parameters):
    """Run node_service_apply.ps1 expecting it to fail; the failure's message."""
    result = win_powershell.invoke(node, APPLY, parameters)
    assert result['failed'], result
    return result['error'][-1]['exception']['message']


def fresh_parameters(name):
    """node_service_apply's parameters for a service of fresh_services as it is configured."""
    record = fresh_services()[name]
    return {'Name': name, 'CommandLine': record['command_line'], 'DisplayName': record['display_name'],
            'Description': record['description'], 'StartMode': record['start_mode'],
            'Dependencies': record['dependencies'], 'Environment': record['environment']}


def running_kubelet():
    """A node whose kubelet and kube-proxy run C:\\k\\kubelet.exe and kube-proxy.exe (SHA-256 0...0)."""
    node = fresh_node()
    for name in ('containerd', 'kubelet', 'kube-proxy'):
        node.data['services'][name].update(state='running', exit_code=0)
    return node


def test_a_replacement_whose_program_is_missing_leaves_the_running_service_as_it_was():
    node = running_kubelet()
    before = json.loads(json.dumps(node.data['services']))
    parameters = {**fresh_parameters('kubelet'), 'CommandLine': 'C:\\k\\v2\\kubelet.exe --v=4', 'Restart': True}
    assert failure(node, **parameters) == 'service kubelet was not changed: its program C:\\k\\v2\\kubelet.exe does not exist'
    assert node.data['services'] == before


def test_a_new_binary_that_does_not_start_is_replaced_by_the_previous_one_which_runs_again():
    node = running_kubelet()
    # What artifact_fetch.ps1 (Install-KubeWinFile) leaves: the running binary renamed aside, the new one in place.
    ok(node, "Move-Item C:\\k\\kubelet.exe C:\\k\\kubelet.exe.kubewin-old-1")
    node.write_file('C:\\k\\kubelet.exe', sha256='b' * 64, size=2)
    node.profile['program_start_failures'] = ['b' * 64]
    parameters = dict(fresh_parameters('kubelet'), Restart=True)
    # The kubelet's own failure, not that of its dependent kube-proxy (which Restart-Service would start first).
    assert failure(node, **parameters) == (
        "service kubelet did not start with the new C:\\k\\kubelet.exe (service kubelet did not start: Cannot start "
        "service kubelet on computer '.'. (The process terminated unexpectedly.)); the previous binary was put back "
        'and the service runs it again')
    assert node.file('C:\\k\\kubelet.exe')['sha256'] == '0' * 64
    assert [p for p in node.file_paths() if p.lower().startswith('c:\\k\\kubelet.exe')] == ['C:\\k\\kubelet.exe']
    # kube-proxy, stopped with the kubelet, runs again too.
    assert [node.data['services'][name]['state'] for name in ('kubelet', 'kube-proxy')] == ['running', 'running']


def test_a_previous_binary_that_does_not_start_either_is_said_so():
    node = running_kubelet()
    ok(node, "Move-Item C:\\k\\kubelet.exe C:\\k\\kubelet.exe.kubewin-old-1")
    node.write_file('C:\\k\\kubelet.exe', sha256='b' * 64, size=2)
    node.profile['program_start_failures'] = ['b' * 64, '0' * 64]
    message = failure(node, **dict(fresh_parameters('kubelet'), Restart=True))
    assert message.endswith("the previous binary was put back but did not start either: service kubelet did not "
                            "start: Cannot start service kubelet on computer '.'. (The process terminated unexpectedly.)")
    assert node.file('C:\\k\\kubelet.exe')['sha256'] == '0' * 64


# A running service that does not start again with its new settings (a command line naming another program, here one
# that exits at once) gets its previous settings back through the service control manager and runs again.

def test_new_settings_that_do_not_start_are_replaced_by_the_previous_ones_which_run_again():
    node = running_kubelet()
    before = json.loads(json.dumps(node.data['services']))
    node.write_file('C:\\k\\v2\\kubelet.exe', sha256='c' * 64, size=2)
    node.profile['program_start_failures'] = ['c' * 64]
    parameters = {**fresh_parameters('kubelet'), 'CommandLine': 'C:\\k\\v2\\kubelet.exe --v=4', 'StartMode': 'auto',
                  'Dependencies': [], 'Environment': ['A=1'], 'FailureActions': 'restart/5000', 'Restart': True}
    # The kubelet's own failure, not that of its dependent kube-proxy (which Restart-Service would start first).
    assert failure(node, **parameters) == (
        "service kubelet did not start with its new settings (service kubelet did not start: Cannot start service "
        "kubelet on computer '.'. (The process terminated unexpectedly.)); the previous settings were put back and "
        'the service runs with them again')
    after = node.data['services']
    for name in ('kubelet', 'kube-proxy'):
        assert {k: after[name][k] for k in before[name] if k not in ('starts',)} == before[name], name
    assert after['kubelet']['state'] == 'running'


def test_a_new_binary_and_new_settings_that_do_not_start_are_both_put_back():
    node = running_kubelet()
    before = json.loads(json.dumps(node.data['services']['kubelet']))
    ok(node, "Move-Item C:\\k\\kubelet.exe C:\\k\\kubelet.exe.kubewin-old-1")
    node.write_file('C:\\k\\kubelet.exe', sha256='b' * 64, size=2)
    node.profile['program_start_failures'] = ['b' * 64]
    parameters = {**fresh_parameters('kubelet'), 'CommandLine': 'C:\\k\\kubelet.exe --v=4', 'Restart': True}
    message = failure(node, **parameters)
    assert message.startswith('service kubelet did not start with the new C:\\k\\kubelet.exe and its new settings (')
    assert message.endswith('the previous binary and settings were put back and the service runs with them again')
    assert node.file('C:\\k\\kubelet.exe')['sha256'] == '0' * 64
    assert node.data['services']['kubelet']['command_line'] == before['command_line'] == 'C:\\k\\kubelet.exe --v=2'
    assert node.data['services']['kubelet']['state'] == 'running'


def test_a_failed_settings_change_never_restores_the_aside_of_an_earlier_upgrade():
    # An upgrade that succeeded leaves its aside: artifact_fetch.ps1 renamed the binary the kubelet ran (which cannot be
    # deleted while it runs), and the restart that followed ran the new one. The aside is stale from then on: a later
    # settings change that does not start must put back the settings, never that older binary.
    node = running_kubelet()
    ok(node, "Move-Item C:\\k\\kubelet.exe C:\\k\\kubelet.exe.kubewin-old-1")
    node.write_file('C:\\k\\kubelet.exe', sha256='b' * 64, size=2)
    apply(node, **dict(fresh_parameters('kubelet'), Restart=True))
    assert node.data['services']['kubelet']['state'] == 'running'
    # A dependency that does not exist: the kubelet cannot start with these settings (scm.py).
    parameters = {**fresh_parameters('kubelet'), 'Dependencies': ['containerd', 'missing'], 'Restart': True}
    message = failure(node, **parameters)
    assert message.startswith('service kubelet did not start with its new settings (')
    assert message.endswith('the previous settings were put back and the service runs with them again')
    assert node.file('C:\\k\\kubelet.exe')['sha256'] == 'b' * 64
    assert node.data['services']['kubelet']['dependencies'] == ['containerd']
    assert node.data['services']['kubelet']['state'] == 'running'


def test_the_aside_of_the_running_binary_survives_until_the_rollback_that_needs_it():
    # The aside the running kubelet executes cannot be deleted (windows/filesystem.py: a running image), so a
    # settings change with a new binary still has it to put back.
    node = running_kubelet()
    ok(node, "Move-Item C:\\k\\kubelet.exe C:\\k\\kubelet.exe.kubewin-old-1")
    node.write_file('C:\\k\\kubelet.exe', sha256='b' * 64, size=2)
    node.profile['program_start_failures'] = ['b' * 64]
    message = failure(node, **{**fresh_parameters('kubelet'), 'Environment': ['A=1'], 'Restart': True})
    assert message.endswith('the previous binary and settings were put back and the service runs with them again')
    assert node.file('C:\\k\\kubelet.exe')['sha256'] == '0' * 64


def test_a_stopped_service_whose_new_settings_do_not_start_keeps_them_and_says_so():
    # Nothing ran with the previous settings: there is nothing to go back to, and the failure is the start's own.
    node = running_kubelet()
    node.data['services']['kubelet']['state'] = 'stopped'
    node.write_file('C:\\k\\v2\\kubelet.exe', sha256='c' * 64, size=2)
    node.profile['program_start_failures'] = ['c' * 64]
    message = failure(node, **{**fresh_parameters('kubelet'), 'CommandLine': 'C:\\k\\v2\\kubelet.exe --v=4'})
    assert 'put back' not in message
    assert node.data['services']['kubelet']['command_line'] == 'C:\\k\\v2\\kubelet.exe --v=4'
