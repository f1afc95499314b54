"""nssm-wrapped services in the Windows model, and node_service_apply.ps1 taking over a service the SDN scripts made.

Microsoft's SDN scripts (start.ps1) install the kubelet, kube-proxy and flanneld with ``nssm install <service>
<program>``: the service's program (ImagePath) is nssm.exe, and nssm keeps the program and its options under the
service's ``Parameters`` key (nssm.cc, "Usage"). The model's side (kubewin_sim/programs.py ``nssm_settings``,
windows/registry.py ``remove_key``): those settings act only while nssm.exe is the program the service control manager
starts ("Services registry tree", Windows driver and service documentation: the SCM runs ImagePath), and Remove-Item
deletes a registry key with its values (Remove-Item, reference/5.1, "Example 5: Delete subkeys recursively").
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import run_on_node, win_powershell  # noqa: E402

PARAMETERS = 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\kubelet\\Parameters'
# What start.ps1 leaves: nssm.exe as the service, the kubelet and its flags under Parameters.
SDN_KUBELET = {'application': 'C:\\k\\kubelet.exe', 'app_parameters': '--hostname-override=win1 --kubeconfig=C:\\k\\config',
               'app_directory': 'C:\\k', 'app_stdout': None, 'app_stderr': None, 'app_rotate_bytes': None}


def sdn_node():
    """A node as start.ps1 leaves it: the kubelet and kube-proxy running under nssm from C:\\k."""
    node = SimNode(initial_state('win1', {'features': {'Containers': 'installed'}}))
    for path in ('C:\\k\\nssm.exe', 'C:\\k\\kubelet.exe', 'C:\\k\\kube-proxy.exe', 'C:\\k\\config'):
        node.write_file(path, content='(start.ps1 copy of %s)\n' % path)
    for name, settings, dependencies in (
            ('kubelet', SDN_KUBELET, []),
            ('kube-proxy', dict(SDN_KUBELET, application='C:\\k\\kube-proxy.exe', app_parameters='--v=4'), ['kubelet'])):
        node.data['services'][name] = {
            'name': name, 'exists': True, 'display_name': name, 'description': None, 'state': 'running',
            'start_mode': 'auto', 'command_line': 'C:\\k\\nssm.exe', 'dependencies': dependencies, 'environment': [],
            'account': 'LocalSystem', 'recovery': None, 'exit_code': 0, 'nssm': dict(settings)}
    return node


def ok(node, text):
    outcome = run_on_node(node, text)
    assert outcome.unsupported is None, outcome.unsupported
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    return outcome.output


# -- the model ------------------------------------------------------------------------------------

def test_nssm_settings_act_only_while_nssm_is_the_service_program():
    node = sdn_node()
    # Under nssm.exe, the application named in Parameters must exist for the service to start.
    node.remove_file('C:\\k\\kubelet.exe')
    ok(node, 'Stop-Service -Name kubelet -Force')
    outcome = run_on_node(node, 'Start-Service -Name kubelet')
    assert outcome.errors and node.data['services']['kubelet']['state'] == 'stopped'
    # The same settings under another program are never read: the SCM starts the ImagePath program.
    node.write_file('C:\\k\\kube-proxy2.exe', content='x')
    node.data['services']['kubelet']['command_line'] = 'C:\\k\\kube-proxy2.exe'
    ok(node, 'Start-Service -Name kubelet')
    assert node.data['services']['kubelet']['state'] == 'running'


def test_remove_item_deletes_a_service_parameters_key():
    node = sdn_node()
    assert ok(node, "Test-Path -LiteralPath '%s'; Remove-Item -LiteralPath '%s' -Recurse -Force; Test-Path -LiteralPath '%s'"
              % (PARAMETERS, PARAMETERS, PARAMETERS)) == ['True', 'False']
    assert node.data['services']['kubelet']['nssm'] is None
    # The service itself stays.
    assert ok(node, '(Get-Service -Name kubelet).Name') == ['kubelet']
    outcome = run_on_node(node, "Remove-Item -LiteralPath '%s'" % PARAMETERS)
    assert outcome.errors == ["Cannot find path '%s' because it does not exist." % PARAMETERS]


def test_remove_item_of_a_key_with_subkeys_needs_recurse():
    node = sdn_node()
    ok(node, "New-Item -Path 'HKLM:\\SOFTWARE\\kubewin\\old' -Force | Out-Null")
    outcome = run_on_node(node, "Remove-Item -LiteralPath 'HKLM:\\SOFTWARE\\kubewin'")
    assert outcome.errors == ['Windows PowerShell is in NonInteractive mode. Read and Prompt functionality is not available.']
    assert ok(node, "Remove-Item -LiteralPath 'HKLM:\\SOFTWARE\\kubewin' -Recurse; Test-Path 'HKLM:\\SOFTWARE\\kubewin\\old'; "
                    "Test-Path 'HKLM:\\SOFTWARE\\kubewin'") == ['False', 'False']


# -- node_service_apply.ps1 taking over ----------------------------------------------------------

def apply(node, **parameters):
    result = win_powershell.invoke(node, _pwsh.load_script('node_service_apply'), parameters)
    assert (result['failed'], result['error']) == (False, []), result
    return json.loads(result['result'])['state']['services']


NATIVE_KUBELET = {'Name': 'kubelet', 'CommandLine': 'C:\\k\\kubelet.exe --kubeconfig=C:\\etc\\kubernetes\\kubelet.conf',
                  'DisplayName': 'Kubernetes kubelet', 'Description': 'Kubernetes node agent (kubewin.node)'}


def test_an_nssm_service_made_native_loses_nssm_settings_and_runs_its_program():
    node = sdn_node()
    services = apply(node, Restart=True, **NATIVE_KUBELET)
    # nssm's settings went with the wrapper: node_info reports no nssm, and Parameters is gone.
    assert services['kubelet']['nssm'] is None
    assert services['kubelet']['command_line'] == NATIVE_KUBELET['CommandLine']
    assert services['kubelet']['state'] == 'running' and services['kube-proxy']['state'] == 'running'
    assert ok(node, "Test-Path -LiteralPath '%s'" % PARAMETERS) == ['False']
    # kube-proxy, still nssm's, keeps its settings.
    assert services['kube-proxy']['nssm']['application'] == 'C:\\k\\kube-proxy.exe'
    # A second run finds nothing of nssm to remove and reports the same.
    assert apply(node, **NATIVE_KUBELET)['kubelet'] == services['kubelet']


def test_a_stopped_takeover_also_loses_the_nssm_settings():
    # Before the join the collection registers the kubelet stopped; the settings must go then too.
    node = sdn_node()
    services = apply(node, Ensure='stopped', **NATIVE_KUBELET)
    assert (services['kubelet']['state'], services['kubelet']['nssm']) == ('stopped', None)


def test_a_native_service_without_parameters_is_left_alone():
    node = sdn_node()
    node.data['services']['kubelet'].update(command_line=NATIVE_KUBELET['CommandLine'], nssm=None)
    services = apply(node, **NATIVE_KUBELET)
    assert (services['kubelet']['state'], services['kubelet']['nssm']) == ('running', None)


def test_a_native_kubelet_that_does_not_start_gives_the_service_back_to_nssm_with_its_settings():
    # The takeover replaces start.ps1's nssm service by a native one; the new program exits at once. The service
    # gets nssm.exe and every value of its Parameters key back, and the kubelet runs under nssm again.
    node = sdn_node()
    before = json.loads(json.dumps(node.data['services']))
    node.write_file('C:\\k\\kube-log-runner.exe', sha256='d' * 64, size=2)
    node.profile['program_start_failures'] = ['d' * 64]
    result = win_powershell.invoke(node, _pwsh.load_script('node_service_apply'), dict(
        NATIVE_KUBELET, CommandLine='C:\\k\\kube-log-runner.exe -log-file=C:\\var\\log\\kubelet.log C:\\k\\kubelet.exe',
        Restart=True))
    assert result['failed']
    # The kubelet's own failure first (not that of kube-proxy, which depends on it), then the rollback's result.
    assert result['error'][-1]['exception']['message'] == (
        "service kubelet did not start with its new settings (service kubelet did not start: Cannot start service "
        "kubelet on computer '.'. (The process terminated unexpectedly.)); "
        'the previous settings were put back and the service runs with them again')
    after = node.data['services']
    assert after['kubelet']['command_line'] == 'C:\\k\\nssm.exe'
    assert after['kubelet']['nssm'] == before['kubelet']['nssm'] == SDN_KUBELET
    assert (after['kubelet']['state'], after['kubelet']['display_name'], after['kubelet']['description']) == (
        'running', 'kubelet', None)
    assert after['kube-proxy']['state'] == 'running'
