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


# The page files: Session Manager\Memory Management's PagingFiles (REG_MULTI_SZ), read by the session manager at boot
# (Win32_PageFileSetting, whose InitialSize and MaximumSize map to it, "used when the file is created at system startup":
# MicrosoftDocs/win32 desktop-src/CIMWin32Prov/win32-pagefilesetting.md): "?:\pagefile.sys" while Windows manages every page file, "<path> <initial> <maximum>"
# when sized (Microsoft's "Advanced troubleshooting for Windows-based computer freeze issues"); in force after a restart.
MEMORY = 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management'
COMMIT = "$os = Get-CimInstance -ClassName Win32_OperatingSystem; $os.SizeStoredInPagingFiles; $os.TotalVirtualMemorySize"


def test_a_server_as_setup_leaves_it_has_windows_manage_its_page_files():
    outcome = run(node(), "$k = [Microsoft.Win32.Registry]::LocalMachine.OpenSubKey('%s'); "
                          "[string]$k.GetValueKind('PagingFiles'); $k.GetValue('PagingFiles').GetType().FullName; "
                          "$k.GetValue('PagingFiles')" % MEMORY[len('HKLM:\\'):])
    assert (outcome.output, outcome.errors) == (['MultiString', 'System.String[]', '?:\\pagefile.sys'], [])


def test_a_fixed_size_written_to_paging_files_is_in_force_only_after_the_next_boot():
    target = node(memory_mb=4096, page_file_mb=1024)
    outcome = run(target, "New-ItemProperty -LiteralPath '%s' -Name PagingFiles -PropertyType MultiString "
                          "-Value @('C:\\pagefile.sys 8192 16384') -Force | Out-Null; "
                          "(Get-ItemProperty -LiteralPath '%s' -Name PagingFiles).PagingFiles; %s" % (MEMORY, MEMORY, COMMIT))
    # The setting reads back at once; the page file in force (and with it the commit limit) is the old one.
    assert (outcome.output, outcome.errors) == (['C:\\pagefile.sys 8192 16384', '1048576', '5242880'], [])
    target.reboot()
    # At boot the page file is created at its initial size.
    assert run(target, COMMIT).output == ['8388608', '12582912']


def test_automatic_management_again_gives_the_size_windows_chooses_after_the_next_boot():
    target = node(memory_mb=4096, page_file_mb=1024)
    target.data['paging_files'] = target.data['paging_files_in_force'] = ['C:\\pagefile.sys 8192 16384']
    run(target, "New-ItemProperty -LiteralPath '%s' -Name PagingFiles -PropertyType MultiString -Value @('?:\\pagefile.sys') "
                "-Force" % MEMORY)
    assert run(target, COMMIT).output == ['8388608', '12582912']
    target.reboot()
    assert run(target, COMMIT).output == ['1048576', '5242880']


def test_a_size_windows_manages_on_one_drive_is_what_windows_gives_and_another_form_an_engine_gap():
    target = node(memory_mb=4096, page_file_mb=1024)
    target.data['paging_files'] = ['C:\\pagefile.sys 0 0']
    target.reboot()
    assert run(target, COMMIT).output == ['1048576', '5242880']
    target.data['paging_files'] = ['C:\\pagefile.sys']
    target.reboot()
    assert run_on_node(target, COMMIT).unsupported is not None


def test_other_values_of_the_memory_management_key_are_an_engine_gap():
    # Windows keeps values of its own there (the model holds PagingFiles only): listing them, reading another or the
    # key's value count would be a guess.
    opened = "$k = [Microsoft.Win32.Registry]::LocalMachine.OpenSubKey('%s'); " % MEMORY[len('HKLM:\\'):]
    for text in (opened + "$k.GetValueNames()", opened + "$k.GetValue('ExistingPageFiles')",
                 "Get-ItemProperty -LiteralPath '%s'" % MEMORY, "(Get-Item -LiteralPath '%s').ValueCount" % MEMORY,
                 "New-ItemProperty -LiteralPath '%s' -Name ClearPageFileAtShutdown -PropertyType DWord -Value 1" % MEMORY,
                 "New-ItemProperty -LiteralPath '%s' -Name PagingFiles -PropertyType String -Value 'C:\\pagefile.sys' -Force" % MEMORY,
                 "Remove-ItemProperty -LiteralPath '%s' -Name PagingFiles" % MEMORY):
        assert run_on_node(node(), text).unsupported is not None, text


def test_a_keys_subkey_count_is_what_the_model_lists_and_an_engine_gap_where_it_lists_none():
    # RegistryKey.SubKeyCount (.NET API reference): the keys a script created under a key it created are counted; the
    # subkeys of a key Windows fills (Services) are not modelled, so their count is not guessed.
    target = node()
    outcome = run(target, "$k = New-Item -Path 'HKLM:\\SOFTWARE\\kubewin-test' -Force; "
                          "$null = New-Item -Path 'HKLM:\\SOFTWARE\\kubewin-test\\one' -Force; $k.SubKeyCount")
    assert outcome.output == ['1'], outcome
    for key in ('HKLM:\\SOFTWARE', 'HKLM:\\SYSTEM\\CurrentControlSet', 'HKLM:\\SYSTEM\\CurrentControlSet\\Services'):
        assert run_on_node(target, "Get-ChildItem -LiteralPath '%s'" % key).unsupported is not None, key
