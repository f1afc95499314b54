"""Microsoft Defender Antivirus (windows/defender.py): the Defender module's cmdlets on a node where Defender runs (a
default Windows Server), where its service WinDefend is stopped, and where the feature was removed.

Sources: MicrosoftDocs/windows-powershell-docs docset/winserver2022-ps/Defender (the four cmdlets' pages); the
CIM classes MSFT_MpComputerStatus and MSFT_MpPreference (learn.microsoft.com previous-versions/windows/desktop/
defender); the errors of a stopped service as users report them (scipag/HardeningKitty #52,
MultiPoolMiner/MultiPoolMiner #351).
"""

import json

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh
from test_windows_scm import as_json, ok, run

from kubewin_sim.node import SimNode, initial_state
from kubewin_sim.windows import run_on_node
from kubewin_sim.windows.win_powershell import invoke


def node_with(defender='running'):
    return SimNode(initial_state('win1', {'defender': defender}))


def test_a_default_server_runs_defender_without_exclusions():
    node = node_with()
    assert ok(node, '$s = Get-MpComputerStatus; $s.AMServiceEnabled; $s.AntivirusEnabled; $s.RealTimeProtectionEnabled; '
                    '$s.AMRunningMode') == ['True', 'True', 'True', 'Normal']
    assert ok(node, '$p = Get-MpPreference; $null -eq $p.ExclusionPath; $null -eq $p.ExclusionProcess; '
                    '$p.DisableRealtimeMonitoring') == ['True', 'True', 'False']
    assert 'defender' not in node.data, 'reading changes nothing'


def test_a_property_the_model_does_not_hold_is_unsupported_not_null():
    for text in ('(Get-MpComputerStatus).AntivirusSignatureAge', '(Get-MpPreference).ScanScheduleDay'):
        outcome = run_on_node(node_with(), text)
        assert outcome.unsupported is not None, text


def test_add_and_remove_exclusions():
    node = node_with()
    ok(node, "Add-MpPreference -ExclusionPath 'C:\\ProgramData\\containerd\\root','C:\\var\\lib\\kubelet' "
             "-ExclusionProcess 'C:\\k\\kubelet.exe' -Force")
    assert ok(node, '(Get-MpPreference).ExclusionPath') == ['C:\\ProgramData\\containerd\\root', 'C:\\var\\lib\\kubelet']
    assert ok(node, '(Get-MpPreference).ExclusionProcess.GetType().FullName') == ['System.String[]']
    # Add-MpPreference adds "without affecting other existing values".
    ok(node, "Add-MpPreference -ExclusionPath 'D:\\scratch'")
    assert len(node.data['defender']['exclusion_path']) == 3
    ok(node, "Remove-MpPreference -ExclusionPath 'c:\\var\\lib\\KUBELET'")
    assert node.data['defender']['exclusion_path'] == ['C:\\ProgramData\\containerd\\root', 'D:\\scratch']
    ok(node, "Remove-MpPreference -ExclusionProcess 'C:\\k\\kubelet.exe'")
    assert ok(node, '$null -eq (Get-MpPreference).ExclusionProcess') == ['True']


def test_what_no_page_describes_is_unsupported():
    node = node_with()
    ok(node, "Add-MpPreference -ExclusionPath 'C:\\a'")
    for text in ("Add-MpPreference -ExclusionPath 'c:\\A'", "Remove-MpPreference -ExclusionPath 'C:\\b'",
                 "Add-MpPreference -ExclusionExtension '.vhdx'", 'Get-MpPreference -AsJob'):
        assert run_on_node(node, text).unsupported is not None, text


def test_parameters_bind_as_the_pages_say():
    node = node_with()
    ok(node, "Add-MpPreference -ExclusionPat 'C:\\a'")  # a prefix of one parameter only
    assert node.data['defender']['exclusion_path'] == ['C:\\a']
    outcome = run_on_node(node, "Add-MpPreference -Exclusion 'C:\\b'")
    assert outcome.errors and 'ambiguous' in outcome.errors[0], outcome.errors
    outcome = run_on_node(node_with(), "Get-MpComputerStatus -Name x")
    assert outcome.errors == ["A parameter cannot be found that matches parameter name 'Name'."]


def test_a_stopped_service_fails_the_cmdlets_with_the_rpc_hresult():
    node = node_with('stopped')
    outcome = run(node, '$s = Get-MpComputerStatus -ErrorAction SilentlyContinue -ErrorVariable failed; $null -eq $s; '
                        '$failed[0].FullyQualifiedErrorId; $failed[0].Exception.GetType().FullName; '
                        '[string]$failed[0].CategoryInfo.Category')
    assert outcome.output == ['True', 'HRESULT 0x800106ba,Get-MpComputerStatus',
                              'Microsoft.Management.Infrastructure.CimException', 'NotSpecified']
    outcome = run(node, "Add-MpPreference -ExclusionPath 'C:\\a'")
    assert outcome.errors == ['Operation failed with the following error: 0x800106ba. Operation: MpPreference. '
                              'Target: ConfigListExtension.', 'Operation failed with the following error: 0x%1!x!']
    assert 'defender' not in node.data
    # A terminating error under -ErrorAction Stop, which a try catches.
    assert ok(node, 'try { Get-MpPreference -ErrorAction Stop; "read" } catch { "caught" }') == ['caught']


def test_a_node_without_the_feature_has_no_defender_module():
    node = node_with('removed')
    outcome = run(node, 'Get-MpComputerStatus')
    assert outcome.errors and outcome.errors[0].startswith("The term 'Get-MpComputerStatus' is not recognized")
    assert ok(node, '[bool](Get-Command -Name Get-MpComputerStatus -ErrorAction SilentlyContinue)') == ['False']
    assert ok(node_with(), '[bool](Get-Command -Name Get-MpComputerStatus -ErrorAction SilentlyContinue)') == ['True']


def defender_section(node):
    from test_windows_scm import STATE  # pylint: disable=import-outside-toplevel
    return as_json(node, 'Get-KubeWinNodeState -Sections defender', STATE)['defender']


def test_the_snapshot_section_on_each_kind_of_node():
    node = node_with()
    ok(node, "Add-MpPreference -ExclusionPath 'C:\\ProgramData\\containerd\\root' -ExclusionProcess 'C:\\k\\kubelet.exe'")
    assert defender_section(node) == {'installed': True, 'running': True,
                                      'exclusion_path': ['C:\\ProgramData\\containerd\\root'],
                                      'exclusion_process': ['C:\\k\\kubelet.exe']}
    # A stopped service does not fail the snapshot: Defender is there and does not run.
    assert defender_section(node_with('stopped')) == {'installed': True, 'running': False, 'exclusion_path': [],
                                                      'exclusion_process': []}
    assert defender_section(node_with('removed')) == {'installed': False, 'running': False, 'exclusion_path': [],
                                                      'exclusion_process': []}


def test_node_info_on_a_node_whose_defender_is_stopped_or_removed_succeeds():
    for installation in ('stopped', 'removed'):
        result = invoke(node_with(installation), _pwsh.load_script('node_info'), {'Sections': ['defender']},
                        error_action='stop')
        assert (result['failed'], result['error']) == (False, []), result
        state = _contracts.check('node_info', json.loads(result['result']))
        assert state['defender']['installed'] is (installation == 'stopped') and not state['defender']['running']


def test_defender_apply_changes_only_what_differs_and_fails_on_a_stopped_service():
    from test_windows_scm import compose  # pylint: disable=import-outside-toplevel
    apply = compose('defender_apply.ps1')
    node = node_with()
    ok(node, "Add-MpPreference -ExclusionPath 'c:\\VAR\\lib\\kubelet'")
    result = invoke(node, apply, {'AddPaths': ['C:\\var\\lib\\kubelet', 'C:\\etc\\kubernetes'],
                                  'AddProcesses': ['C:\\k\\kubelet.exe']})
    assert (result['failed'], result['error']) == (False, []), result
    state = _contracts.check('defender_apply', json.loads(result['result']))['state']
    assert state['defender']['exclusion_path'] == ['c:\\VAR\\lib\\kubelet', 'C:\\etc\\kubernetes']
    result = invoke(node, apply, {'RemovePaths': ['C:\\var\\lib\\kubelet', 'D:\\never-added'],
                                  'RemoveProcesses': ['C:\\k\\kubelet.exe']})
    assert (result['failed'], result['error']) == (False, []), result
    assert node.data['defender'] == {'exclusion_path': ['C:\\etc\\kubernetes'], 'exclusion_process': []}
    # The service stopped since the snapshot: the script stops at the first cmdlet, with Defender's error.
    result = invoke(node_with('stopped'), apply, {'AddPaths': ['C:\\var\\lib\\kubelet']})
    assert result['failed'] and 'HRESULT 0x800106ba,Get-MpPreference' in json.dumps(result['error']), result
