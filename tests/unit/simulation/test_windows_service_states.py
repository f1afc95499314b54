"""Services that take time, hang or die: the pending states of the service control manager model (kubewin_sim/scm.py,
windows/services.py), the cmdlets' waits as PowerShell's Service.cs has them, ServiceController's own methods, and
the scripts that stop and start services, which must neither hang on a pending service nor call a service that
died after it reported Running a success.

Sources: Service.cs (PowerShell/PowerShell, the Windows PowerShell 5.1 code imported in 2016: DoStartService,
DoStopService, DoWaitForStatus, which waits 2 s at a time and warns "Waiting for service '...' to start..." for as
long as the service stays StartPending or StopPending; ServiceResources.resx), ServiceController of the .NET
Framework 4.x reference source (Stop stops the dependents first and waits 30 s for each; WaitForStatus polls every
250 ms and throws System.ServiceProcess.TimeoutException), the StartService and ControlService reference pages
(ERROR_SERVICE_ALREADY_RUNNING 1056, ERROR_SERVICE_CANNOT_ACCEPT_CTRL 1061, ERROR_SERVICE_NOT_ACTIVE 1062) and
cmd/kubelet/app/server.go (Run reports Running through initForOS before run validates the configuration).
"""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from _detached import run_detached  # noqa: E402
from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh  # noqa: E402
from kubewin_sim.windows import run_on_node, win_powershell  # noqa: E402
from test_windows_scm import SERVICES, fresh_node, fresh_parameters, running_kubelet  # noqa: E402
from test_windows_ovs import BRIDGE, EXTERNAL_IDS, FEATURES, MSI, new_node, spec  # noqa: E402


def outcome_of(node, text):
    return run_on_node(node, text)


def ok(node, text):
    outcome = run_on_node(node, text)
    assert (outcome.unsupported, outcome.exit_code, outcome.errors) == (None, 0, []), outcome
    return outcome.output


def seconds_passed(node, text):
    """How far the node's clock moved while ``text`` ran (its simulated waits)."""
    before = node.data.get('clock_offset', 0)
    ok(node, text)
    return node.data.get('clock_offset', 0) - before


# -- the cmdlets and ServiceController ----------------------------------------------------------------------------

def test_set_service_boot_or_system_leaves_the_start_type_and_new_service_makes_it_automatic():
    # Service.cs (5.1): Set-Service passes SERVICE_NO_CHANGE for Boot and System; New-Service starts from
    # SERVICE_AUTO_START and changes it only for Manual and Disabled. Neither is an error.
    node = fresh_node()
    assert ok(node, "Set-Service -Name kube-proxy -StartupType Boot; (Get-Service kube-proxy).StartType\n"
                    "Set-Service -Name kube-proxy -StartupType System; (Get-Service kube-proxy).StartType\n"
                    "(New-Service -Name x -BinaryPathName C:\\k\\x.exe -StartupType Boot).StartType\n"
                    "(Get-CimInstance Win32_Service -Filter \"Name='x'\").StartMode") == [
        'Manual', 'Manual', 'Automatic', 'Auto']


def test_a_service_that_takes_seconds_to_start_is_waited_for_with_a_warning_every_two_seconds():
    node = fresh_node(service_start_seconds={'kube-proxy': 5})
    result = win_powershell.invoke(node, "Start-Service -Name kube-proxy; [string](Get-Service kube-proxy).Status", {})
    assert (result['output'], result['error']) == (['Running'], [])
    assert result['warning'] == ["Waiting for service 'kube-proxy (kube-proxy)' to start..."] * 2


def test_start_service_of_a_service_that_never_finishes_starting_would_hang():
    outcome = outcome_of(fresh_node(service_hangs_starting=['kube-proxy']), "Start-Service -Name kube-proxy")
    assert outcome.unsupported == ('unsupported: Start-Service (Service.cs DoWaitForStatus) waits without end: service kube-proxy '
                                   'stays StartPending and never becomes Running (the script would hang on Windows)')


def test_stop_service_of_a_service_that_never_stops_would_hang_but_nowait_returns():
    node = fresh_node(service_hangs_stopping=['kubelet'])
    outcome = outcome_of(node, "Stop-Service -Name kubelet -Force")
    assert outcome.unsupported == ('unsupported: Stop-Service (Service.cs DoWaitForStatus) waits without end: service kubelet '
                                   'stays StopPending and never becomes Stopped (the script would hang on Windows)')
    node = fresh_node(service_hangs_stopping=['kubelet'])
    assert ok(node, "Stop-Service -Name kubelet -Force -NoWait; [string](Get-Service kubelet).Status\n"
                    "(Get-CimInstance Win32_Service -Filter \"Name='kubelet'\").State") == ['StopPending', 'Stop Pending']
    # A StopPending service takes no other stop (1061) and no start (1056, then not StartPending: StartServiceFailed).
    outcome = outcome_of(node, "try { (Get-Service kubelet).Stop() } catch { $_.Exception.Message; "
                               "$_.Exception.InnerException.InnerException.Message }\nStart-Service -Name kubelet")
    assert outcome.output == ['Exception calling "Stop" with "0" argument(s): "Cannot stop kubelet service on computer '
                              '\'.\'."', 'The service cannot accept control messages at this time.']
    assert outcome.errors == ["Failed to start service 'kubelet (kubelet)'."]


def test_wait_for_status_with_a_timeout_throws_the_timeout_exception():
    node = fresh_node(service_hangs_stopping=['kubelet'])
    assert seconds_passed(node, "Stop-Service -Name kubelet -Force -NoWait\n"
                                "try { (Get-Service kubelet).WaitForStatus('Stopped', [TimeSpan]::FromMinutes(1)) }\n"
                                "catch { $_.Exception.InnerException.GetType().FullName }") == pytest.approx(60.25)
    assert ok(node, "try { (Get-Service kubelet).WaitForStatus('Stopped', [TimeSpan]::FromMinutes(1)) }\n"
                    "catch { $_.Exception.Message }") == [
        'Exception calling "WaitForStatus" with "2" argument(s): "Time out has expired and the operation has not been '
        'completed."']
    assert outcome_of(node, "(Get-Service kubelet).WaitForStatus('Stopped')").unsupported.startswith(
        'unsupported: ServiceController.WaitForStatus waits without end: service kubelet stays StopPending')


def test_stop_service_force_gives_up_on_a_dependent_that_does_not_stop_after_thirty_seconds():
    # ServiceController.Stop waits 30 s for each dependent; its TimeoutException is not one DoStopService catches.
    node = fresh_node(service_hangs_stopping=['kubelet'])
    outcome = outcome_of(node, "Stop-Service -Name containerd -Force; 'next statement'")
    assert (outcome.unsupported, outcome.output) == (None, ['next statement'])
    assert outcome.errors == ['Time out has expired and the operation has not been completed.']
    assert node.data['clock_offset'] == pytest.approx(30.25, abs=0.01)  # and the writes' milliseconds
    assert [node.data['services'][name]['state'] for name in ('kube-proxy', 'kubelet', 'containerd')] == [
        'stopped', 'stop_pending', 'running']


def test_a_program_that_exits_after_reporting_running_leaves_the_service_stopped_with_1067():
    node = fresh_node()
    node.write_file('C:\\k\\kube-proxy.exe', sha256='e' * 64, size=1)
    node.profile['program_exits_after_running'] = {'e' * 64: 1}
    # Start-Service returns once the service is Running: what the program does a second later it does not see.
    assert ok(node, "Start-Service -Name kube-proxy; [string](Get-Service kube-proxy).Status\nStart-Sleep -Seconds 2\n"
                    "[string](Get-Service kube-proxy).Status\n"
                    "(Get-CimInstance Win32_Service -Filter \"Name='kube-proxy'\").ExitCode") == ['Running', 'Stopped', '1067']


# -- the scripts: a service that dies after it reported Running (defect 2) ----------------------------------------

APPLY = _pwsh.load_script('node_service_apply')


def _failure(node, **parameters):
    result = win_powershell.invoke(node, APPLY, parameters)
    assert result['failed'], result
    return result['error'][-1]['exception']['message']


def test_a_new_kubelet_that_dies_after_reporting_running_is_rolled_back():
    node = running_kubelet()
    ok(node, "Move-Item C:\\k\\kubelet.exe C:\\k\\kubelet.exe.kubewin-old-1")
    node.write_file('C:\\k\\kubelet.exe', sha256='b' * 64, size=2)
    # The new release rejects the configuration a second after its service code reported Running.
    node.profile['program_exits_after_running'] = {'b' * 64: 1}
    assert _failure(node, **dict(fresh_parameters('kubelet'), Restart=True)) == (
        'service kubelet did not start with the new C:\\k\\kubelet.exe (service kubelet was Running, then Stopped '
        'within 5 s (exit code 1067)); the previous binary was put back and the service runs it again')
    assert node.file('C:\\k\\kubelet.exe')['sha256'] == '0' * 64
    ok(node, 'Start-Sleep -Seconds 10')
    assert [node.data['services'][name]['state'] for name in ('kubelet', 'kube-proxy')] == ['running', 'running']


def test_a_kube_proxy_that_dies_after_reporting_running_fails_the_start():
    node = fresh_node()
    node.profile['program_exits_after_running'] = {'0' * 64: 2}
    message = _failure(node, **fresh_parameters('kube-proxy'))
    assert message == 'service kube-proxy was Running, then Stopped within 5 s (exit code 1067)'


# -- the scripts: a service that does not stop or start bounds the task (defect 3) ---------------------------------

def test_apply_stopping_a_service_that_never_stops_fails_naming_it_and_its_state():
    node = running_kubelet()
    node.profile['service_hangs_stopping'] = ['kubelet']
    assert _failure(node, **dict(fresh_parameters('kubelet'), Ensure='stopped', StartTimeoutSeconds=20)) == (
        'service kubelet did not reach Stopped within 20 s (status StopPending, exit code 0)')


def test_apply_restarting_a_service_that_never_starts_fails_within_its_timeout():
    node = running_kubelet()
    node.profile['service_hangs_starting'] = ['kubelet']
    # The same settings and binary: nothing to put back, the start's own failure.
    assert _failure(node, **dict(fresh_parameters('kubelet'), Restart=True, StartTimeoutSeconds=20)) == (
        'service kubelet did not reach Running within 20 s (status StartPending, exit code 0)')
    assert [node.data['services'][name]['state'] for name in ('kubelet', 'kube-proxy')] == ['start_pending', 'stopped']


def test_reset_of_a_service_that_never_stops_fails_naming_it():
    node = running_kubelet()
    node.profile['service_hangs_stopping'] = ['kube-proxy']
    result = win_powershell.invoke(node, _pwsh.load_script('node_reset_apply'),
                                   {'Services': ['kubelet'], 'StopTimeoutSeconds': 30}, error_action='stop')
    assert result['failed']
    assert result['error'][-1]['exception']['message'] == (
        'service kube-proxy did not reach Stopped within 30 s (status StopPending, exit code 0)')
    assert 'kubelet' in node.data['services']


def test_repair_start_of_a_service_that_never_starts_fails_within_its_timeout():
    node = fresh_node()
    node.profile['service_hangs_starting'] = ['kube-proxy']
    result = win_powershell.invoke(node, _pwsh.load_script('node_repair_apply'),
                                   {'Start': ['kube-proxy'], 'StartTimeoutSeconds': 10}, error_action='stop')
    assert result['failed']
    assert result['error'][-1]['exception']['message'] == (
        'service kube-proxy did not reach Running within 10 s (status StartPending, exit code 0)')


def test_the_ovs_worker_stopping_a_service_that_never_stops_reports_the_failure():
    node = new_node()
    setup = spec(install={'msi': MSI, 'features': FEATURES}, bridge=BRIDGE, external_ids=EXTERNAL_IDS,
                 services=['ovsdb-server', 'ovs-vswitchd', 'ovn-controller'])
    assert run_detached(node, 'openvswitch_worker', setup, 'op-setup')[1]['state'] == 'done'
    node.profile['service_hangs_stopping'] = ['ovn-controller']
    status = run_detached(node, 'openvswitch_worker', spec(stop=['ovn-controller']), 'op-ovs')[1]
    assert (status['state'], status['result']['stopped']) == ('failed', [])
    assert status['result']['error'] == ('service ovn-controller did not reach Stopped within 60 s (status StopPending, '
                                         'exit code 0)')


def test_a_service_exit_code_above_two_to_the_31_is_reported():
    # Win32_Service.ExitCode is a uint32 (Win32_Service class); a service may report any 32-bit code as its Win32 exit
    # code (golang.org/x/sys/windows/svc: the errno Execute returns), 0xC0000005 for one. [int] of it fails in 5.1
    # ("Value was either too large or too small for an Int32."), which would fail node_info's services section.
    node = fresh_node()
    node.data['services']['kube-proxy']['exit_code'] = 0xC0000005
    outcome = run_on_node(node, SERVICES + "\n(Get-KubeWinService -Name kube-proxy).exit_code")
    assert (outcome.unsupported, outcome.errors, outcome.output) == (None, [], ['3221225477'])
