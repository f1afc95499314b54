"""Host settings in the Windows model: a registry key's values read through Microsoft.Win32.RegistryKey
(windows/registry_security.py), as node_info's registry section reads a policy key.

Sources named per test; the model's in each module's docstring.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import run_on_node  # noqa: E402

AU = 'SOFTWARE\\Policies\\Microsoft\\Windows\\WindowsUpdate\\AU'
OPEN = "$k = [Microsoft.Win32.Registry]::LocalMachine.OpenSubKey('%s'); " % AU


def node(**profile):
    return SimNode(initial_state('win1', dict({'ip': '10.0.0.11'}, **profile)))


def run(target, text):
    outcome = run_on_node(target, text)
    assert outcome.unsupported is None, outcome.unsupported
    return outcome


def test_a_keys_values_their_kinds_and_data():
    # RegistryKey.GetValueNames / GetValueKind / GetValue (.NET API reference): a DWORD is an Int32, its kind DWord.
    target = node(registry={AU: {'AUOptions': ['REG_DWORD', 2], 'Path': ['REG_EXPAND_SZ', '%SystemRoot%\\x']}})
    outcome = run(target, OPEN + "@($k.GetValueNames() | Sort-Object) -join ','; [string]$k.GetValueKind('auoptions'); "
                                 "$k.GetValue('AUOptions').GetType().FullName; $k.GetValue('AUOptions'); "
                                 "$k.GetValue('Path'); $k.GetValue('Path', $null, 'DoNotExpandEnvironmentNames')")
    assert (outcome.output, outcome.errors) == (
        ['AUOptions,Path', 'DWord', 'System.Int32', '2', 'C:\\Windows\\x', '%SystemRoot%\\x'], [])


def test_a_missing_value_is_the_default_given_and_has_no_kind():
    target = node(registry={AU: {'AUOptions': ['REG_DWORD', 2]}})
    outcome = run(target, OPEN + "$null -eq $k.GetValue('NoAutoUpdate'); $k.GetValue('NoAutoUpdate', 7); "
                                 "try { $k.GetValueKind('NoAutoUpdate') } catch { $_.Exception.InnerException.GetType().FullName }")
    assert (outcome.output, outcome.errors) == (['True', '7', 'System.IO.IOException'], [])


def test_a_key_that_is_not_there_opens_as_null():
    outcome = run(node(), OPEN + "$null -eq $k")
    assert outcome.output == ['True']


def test_values_of_the_session_manager_key_beyond_the_modelled_one_are_an_engine_gap():
    outcome = run_on_node(node(), "$k = [Microsoft.Win32.Registry]::LocalMachine.OpenSubKey("
                                  "'SYSTEM\\CurrentControlSet\\Control\\Session Manager'); $k.GetValueNames()")
    assert outcome.unsupported is not None


def test_win32_operatingsystem_reports_the_memory_the_page_files_and_the_commit_limit_they_make():
    # Win32_OperatingSystem (MicrosoftDocs/win32 win32-operatingsystem.md): kilobytes, uint64; TotalVirtualMemorySize
    # is the physical memory plus what the paging files hold.
    outcome = run(node(memory_mb=4096, page_file_mb=1024),
                  "$os = Get-CimInstance -ClassName Win32_OperatingSystem; $os.TotalVisibleMemorySize; "
                  "$os.SizeStoredInPagingFiles; $os.TotalVirtualMemorySize; $os.TotalVirtualMemorySize.GetType().FullName")
    assert (outcome.output, outcome.errors) == (['4194304', '1048576', '5242880', 'System.UInt64'], [])


def test_a_property_the_model_does_not_know_is_an_engine_gap():
    outcome = run_on_node(node(), "(Get-CimInstance -ClassName Win32_OperatingSystem).FreeSpaceInPagingFiles")
    assert outcome.unsupported is not None
