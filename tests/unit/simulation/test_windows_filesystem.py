"""The FileSystem provider, ACLs and System.IO.File of the Windows model, and the real lib/files.ps1 on them.

The cmdlets' documented behaviour first (reference/5.1 pages named in windows/filesystem.py and acl.py),
then the real lib/files.ps1, file_write.ps1, artifact_fetch.ps1 with a staged file and the
files/contents/artifacts sections of lib/state.ps1 run by the engine against a node, their answers asserted.
"""

import hashlib
import importlib.util
import json
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh import new_interpreter  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh.interpreter import ScriptTerminating  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh.values import PSCustomObject, SecureString, SwitchParameter  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import WindowsHost, filesystem, run_on_node  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows.win_powershell import module_value  # noqa: E402  pylint: disable=wrong-import-position

SCRIPTS = os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts')
_SPEC = importlib.util.spec_from_file_location('kubewin_pwsh_loader', os.path.join(ROOT, 'plugins', 'plugin_utils', '_pwsh.py'))
_LOADER = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_LOADER)


def _lib(name):
    with open(os.path.join(SCRIPTS, 'lib', name + '.ps1'), encoding='utf-8') as handle:
        return handle.read()


FILES = _lib('files')
# lib/state.ps1 without its includes (hns starts with Add-Type, modelled elsewhere): the files, contents and
# artifacts sections need only lib/files.
STATE = FILES + re.sub(r'^# kubewin-include: .*$', '', _lib('state'), flags=re.MULTILINE)
HOME = 'C:\\ProgramData\\kubewin'


def fresh_node():
    return SimNode(initial_state('win1', {'ip': '10.0.0.11'}))


def run(node, text):
    outcome = run_on_node(node, text)
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    return outcome.output


def failing(node, text):
    outcome = run_on_node(node, text)
    assert outcome.errors, outcome
    return outcome


def run_script(node, name, parameters):
    """A script as the collection sends it (includes expanded), with win_powershell's $Ansible.Result."""
    host = WindowsHost(node)
    interpreter = new_interpreter(host, host.commands())
    ansible = PSCustomObject([('Result', None), ('Changed', True)])
    interpreter.global_scope.vars['ansible'] = ansible
    interpreter.run(_LOADER.load_script(name), parameters)
    assert not interpreter.errors, [str(error) for error in interpreter.errors]
    return json.loads(ansible.props['Result'])


# --- the provider cmdlets -----------------------------------------------------------------------------------

def test_environment_and_default_folders():
    assert run(fresh_node(), "$env:ProgramData; $env:SystemDrive; Test-Path -LiteralPath $env:ProgramData -PathType Container"
               ) == ['C:\\ProgramData', 'C:', 'True']


def test_test_path_literal_wildcards_and_path_type():
    node = fresh_node()
    run(node, "New-Item -Path 'C:\\data\\a[1].txt' -ItemType File -Force | Out-Null; New-Item -Path C:\\data\\b.log -ItemType File | Out-Null")
    assert run(node, "Test-Path -LiteralPath 'C:\\data\\a[1].txt'; Test-Path -Path 'C:\\data\\*.log'; "
                     "Test-Path -Path 'C:\\data\\*.cfg'; Test-Path -LiteralPath C:\\data -PathType Leaf; "
                     "Test-Path -LiteralPath C:\\data\\b.log -PathType Leaf; Test-Path C:\\nothing") == [
        'True', 'True', 'False', 'False', 'True', 'False']


def test_get_item_is_a_fileinfo():
    node = fresh_node()
    run(node, "Set-Content -LiteralPath C:\\f.txt -Value 'abc'")
    assert run(node, "$i = Get-Item -LiteralPath C:\\f.txt; $i.Length.GetType().FullName; $i.Length; $i.Name; $i.FullName; "
                     "$i.PSIsContainer; $i.LastWriteTimeUtc.GetType().FullName; $i.GetType().FullName; "
                     "(Get-Item C:\\ProgramData).PSIsContainer") == [
        'System.Int64', '5', 'f.txt', 'C:\\f.txt', 'False', 'System.DateTime', 'System.IO.FileInfo', 'True']


def test_get_item_of_a_missing_path_writes_itemnotfound():
    outcome = failing(fresh_node(), "$i = Get-Item -LiteralPath C:\\missing.txt -ErrorAction SilentlyContinue; $null -eq $i; "
                                    "Get-Item -LiteralPath C:\\missing.txt")
    assert outcome.output == ['True']
    assert outcome.errors == ["Cannot find path 'C:\\missing.txt' because it does not exist."]


def test_new_item_force_semantics():
    node = fresh_node()
    run(node, "New-Item -Path C:\\d\\e -ItemType Directory | Out-Null")  # the missing C:\d is created too
    assert failing(node, "New-Item -Path C:\\d\\e -ItemType Directory").errors == [
        'An item with the specified name C:\\d\\e already exists.']
    assert run(node, "(New-Item -Path C:\\d\\e -ItemType Directory -Force).FullName") == ['C:\\d\\e']
    assert failing(node, "New-Item -Path C:\\x\\y.txt -ItemType File").errors == [
        "Could not find a part of the path 'C:\\x\\y.txt'."]
    run(node, "New-Item -Path C:\\d\\f.txt -ItemType File -Value 'one' | Out-Null")
    assert failing(node, "New-Item -Path C:\\d\\f.txt -ItemType File -Value 'two'").errors == [
        "The file 'C:\\d\\f.txt' already exists."]
    assert run(node, "New-Item -Path C:\\d\\f.txt -ItemType File -Value 'two' -Force | Out-Null; Get-Content C:\\d\\f.txt") == ['two']


def test_remove_item_folder_content_recurse_and_held_file():
    node = fresh_node()
    run(node, "New-Item -Path C:\\d\\f.txt -ItemType File -Force | Out-Null")
    outcome = failing(node, "Remove-Item -LiteralPath C:\\d")
    assert 'NonInteractive' in outcome.errors[0]
    run(node, "Remove-Item -LiteralPath C:\\d -Recurse -Force")
    assert run(node, "Test-Path C:\\d") == ['False']
    run(node, "New-Item -Path C:\\k\\kubelet.exe -ItemType File -Force | Out-Null; New-Item -Path C:\\k\\log.txt -ItemType File | Out-Null")
    filesystem.lookup(node, 'C:\\k\\kubelet.exe')['held'] = 'image'
    filesystem.lookup(node, 'C:\\k\\log.txt')['held'] = 'open'
    assert failing(node, "Remove-Item -LiteralPath C:\\k\\kubelet.exe -Force").errors == [
        "Cannot remove item C:\\k\\kubelet.exe: Access to the path 'kubelet.exe' is denied."]
    assert failing(node, "Remove-Item -LiteralPath C:\\k\\log.txt -Force").errors == [
        "Cannot remove item C:\\k\\log.txt: The process cannot access the file 'C:\\k\\log.txt' because it is being "
        "used by another process."]
    # A running program's file can be renamed, not written.
    assert failing(node, "Set-Content -LiteralPath C:\\k\\kubelet.exe -Value x").errors == [
        "The process cannot access the file 'C:\\k\\kubelet.exe' because it is being used by another process."]
    assert run(node, "Move-Item -LiteralPath C:\\k\\kubelet.exe -Destination C:\\k\\kubelet.exe.old; Test-Path C:\\k\\kubelet.exe") == [
        'False']
    assert failing(node, "Remove-Item -LiteralPath C:\\missing").errors == [
        "Cannot find path 'C:\\missing' because it does not exist."]


# --- links (windows/filesystem.py: FileSystemProvider.cs of PowerShell/PowerShell 60b3b304f2, #621) ---------------

def linked_node():
    """C:\\data with a file, a symbolic link and a junction to it under C:\\pod, and a dangling link."""
    node = fresh_node()
    run(node, "New-Item -Path C:\\data\\sub\\keep.txt -ItemType File -Value kept -Force | Out-Null; "
              "New-Item -Path C:\\pod -ItemType Directory | Out-Null")
    filesystem.make_link(node, 'C:\\pod\\volume', 'C:\\data')
    filesystem.make_link(node, 'C:\\pod\\junction', 'C:\\data', 'Junction')
    filesystem.make_link(node, 'C:\\pod\\stale', 'C:\\gone')
    return node


def test_a_link_shows_its_type_target_attributes_and_mode():
    node = linked_node()
    assert run(node, "foreach ($name in 'volume', 'junction', 'stale') { $item = Get-Item -LiteralPath \"C:\\pod\\$name\"; "
                     "'{0} {1} {2} {3} {4}' -f $item.Mode, $item.LinkType, [string]$item.Target, $item.Attributes, "
                     "[int]$item.Attributes }") == [
        'd----l SymbolicLink C:\\data Directory, ReparsePoint 1040',
        'd----l Junction C:\\data Directory, ReparsePoint 1040',
        'd----l SymbolicLink C:\\gone Directory, ReparsePoint 1040']
    assert run(node, "$item = Get-Item C:\\data; $null -eq $item.LinkType; $item.Mode; [string]$item.Attributes; "
                     "(Get-Item C:\\data\\sub\\keep.txt).Target.Count") == ['True', 'd-----', 'Directory', '0']
    # GetFileAttributes sees the link itself: a dangling link exists, and is a container.
    assert run(node, "Test-Path -LiteralPath C:\\pod\\stale -PathType Container; "
                     "[System.IO.Directory]::Exists('C:\\pod\\stale')") == ['True', 'True']


def test_a_path_through_a_link_reaches_the_target():
    node = linked_node()
    assert run(node, "Get-Content -LiteralPath C:\\pod\\volume\\sub\\keep.txt; "
                     "(Get-Item -LiteralPath C:\\pod\\junction\\sub\\keep.txt).FullName; "
                     "Set-Content -LiteralPath C:\\pod\\volume\\new.txt -Value new; Test-Path C:\\data\\new.txt") == [
        'kept', 'C:\\pod\\junction\\sub\\keep.txt', 'True']


def test_get_childitem_recurse_follows_links_as_windows_powershell_51_does():
    node = linked_node()
    filesystem.lookup(node, 'C:\\pod\\stale')['link']['target'] = 'C:\\data\\sub'
    assert run(node, "Get-ChildItem -LiteralPath C:\\pod -Recurse | ForEach-Object { $_.FullName }") == [
        'C:\\pod\\junction', 'C:\\pod\\stale', 'C:\\pod\\volume',
        'C:\\pod\\junction\\sub', 'C:\\pod\\junction\\sub\\keep.txt', 'C:\\pod\\stale\\keep.txt',
        'C:\\pod\\volume\\sub', 'C:\\pod\\volume\\sub\\keep.txt']
    filesystem.make_link(node, 'C:\\data\\loop', 'C:\\pod')
    assert 'loop of links' in run_on_node(node, "Get-ChildItem -LiteralPath C:\\pod -Recurse").unsupported


def test_remove_item_takes_a_junction_away_and_stops_at_a_symbolic_link():
    node = linked_node()
    # Without -Force a reparse point is refused; with it a junction goes, its target's items stay.
    assert failing(node, "Remove-Item -LiteralPath C:\\pod\\junction -Recurse").errors == [
        'C:\\pod\\junction is an NTFS junction point. Use the Force parameter to delete or modify this object.']
    run(node, "Remove-Item -LiteralPath C:\\pod\\junction -Recurse -Force")
    assert run(node, "Test-Path C:\\pod\\junction; Get-Content C:\\data\\sub\\keep.txt") == ['False', 'kept']
    # A symbolic link fails DeleteJunction's tag: a terminating error, whatever -ErrorAction says, and the folder
    # holding it stays.
    outcome = run_on_node(node, "try { Remove-Item -LiteralPath C:\\pod -Recurse -Force -ErrorAction SilentlyContinue } "
                                "catch { $_.FullyQualifiedErrorId; [string]$_.CategoryInfo.Category; $_.Exception.GetType().FullName }")
    assert outcome.output == ['System.ComponentModel.Win32Exception,Microsoft.PowerShell.Commands.RemoveItemCommand',
                              'NotSpecified', 'System.ComponentModel.Win32Exception']
    assert run(node, "Test-Path C:\\pod\\volume; Get-Content C:\\data\\sub\\keep.txt") == ['True', 'kept']


def test_directory_delete_removes_a_link_and_never_its_target():
    node = linked_node()
    run(node, "[System.IO.Directory]::Delete('C:\\pod\\volume'); [System.IO.Directory]::Delete('C:\\pod\\stale')")
    assert run(node, "Test-Path C:\\pod\\volume; Test-Path C:\\pod\\stale; Get-Content C:\\data\\sub\\keep.txt") == [
        'False', 'False', 'kept']
    assert failing(node, "[System.IO.Directory]::Delete('C:\\data')").errors == [
        'Exception calling "Delete" with "1" argument(s): "The directory is not empty."']
    assert failing(node, "[System.IO.Directory]::Delete('C:\\nowhere')").errors == [
        'Exception calling "Delete" with "1" argument(s): "Could not find a part of the path \'C:\\nowhere\'."']


def test_file_get_attributes_answers_as_getfileattributesex_and_findfirstfile():
    # .NET Framework's File.GetAttributes (referencesource file.cs): the item's attributes, a missing file
    # FileNotFoundException, a missing folder on the way DirectoryNotFoundException, a wildcard the first match of
    # FindFirstFile; ansible.windows' Test-AnsiblePath relies on these (win_powershell creates/removes).
    node = fresh_node()
    run(node, "[System.IO.File]::WriteAllText('C:\\a.txt', 'x')")
    assert run(node, "[string][System.IO.File]::GetAttributes('C:\\a.txt'); "
                     "[string][System.IO.File]::GetAttributes('C:\\Windows'); "
                     "[int][System.IO.File]::GetAttributes('C:\\Win*')") == ['Archive', 'Directory', '16']
    errors = {text: run(node, "try { [void][System.IO.File]::GetAttributes('%s') } "
                              "catch { $_.Exception.InnerException.GetType().FullName }" % text)
              for text in ('C:\\missing.txt', 'C:\\Missing\\file.txt', 'Cert:\\LocalMachine\\My')}
    assert errors == {'C:\\missing.txt': ['System.IO.FileNotFoundException'],
                      'C:\\Missing\\file.txt': ['System.IO.DirectoryNotFoundException'],
                      'Cert:\\LocalMachine\\My': ['System.NotSupportedException']}
    assert 'short names' in run_on_node(node, "[System.IO.File]::GetAttributes('C:\\Nothing*')").unsupported


def test_new_item_makes_links_to_existing_folders():
    node = linked_node()
    assert run(node, "(New-Item -ItemType SymbolicLink -Path C:\\pod\\second -Value C:\\data).LinkType; "
                     "(New-Item -ItemType Junction -Path C:\\pod\\third -Value C:\\data).Mode; "
                     "Get-Content C:\\pod\\third\\sub\\keep.txt") == ['SymbolicLink', 'd----l', 'kept']
    assert failing(node, "New-Item -ItemType SymbolicLink -Path C:\\pod\\fourth -Value C:\\gone").errors == [
        'Could not find item C:\\gone.']
    assert failing(node, "New-Item -ItemType SymbolicLink -Path C:\\pod\\second -Value C:\\data").errors == [
        'NewItemIOError']


def test_move_item_needs_force_over_a_file():
    node = fresh_node()
    run(node, "Set-Content C:\\a.txt 'new'; Set-Content C:\\b.txt 'old'")
    assert failing(node, "Move-Item -LiteralPath C:\\a.txt -Destination C:\\b.txt").errors == [
        'Cannot create a file when that file already exists.']
    assert run(node, "Move-Item -LiteralPath C:\\a.txt -Destination C:\\b.txt -Force; Test-Path C:\\a.txt; Get-Content C:\\b.txt"
               ) == ['False', 'new']


def test_encodings_of_windows_powershell_51():
    node = fresh_node()
    run(node, "Set-Content -LiteralPath C:\\ansi.txt -Value 'caf\u00e9'; Set-Content -LiteralPath C:\\bom.txt -Value 'caf\u00e9' -Encoding UTF8; "
              "[System.IO.File]::WriteAllText('C:\\plain.txt', 'caf\u00e9', (New-Object System.Text.UTF8Encoding $false))")
    data = {name: filesystem.content_bytes(filesystem.lookup(node, 'C:\\%s.txt' % name)) for name in ('ansi', 'bom', 'plain')}
    assert data == {'ansi': b'caf\xe9\r\n', 'bom': b'\xef\xbb\xbfcaf\xc3\xa9\r\n', 'plain': b'caf\xc3\xa9'}
    # Get-Content reads a BOM-less file in the ANSI code page unless told; ReadAllText reads UTF-8.
    assert run(node, "Get-Content C:\\plain.txt; Get-Content C:\\plain.txt -Encoding UTF8; Get-Content C:\\bom.txt; "
                     "[System.IO.File]::ReadAllText('C:\\plain.txt'); [System.IO.File]::ReadAllText('C:\\bom.txt')") == [
        'caf\u00c3\u00a9', 'caf\u00e9', 'caf\u00e9', 'caf\u00e9', 'caf\u00e9\r\n']


def test_get_content_lines_and_raw():
    node = fresh_node()
    run(node, "Set-Content C:\\l.txt -Value 'a', 'b'; Add-Content C:\\l.txt -Value 'c'; New-Item C:\\empty.txt -ItemType File | Out-Null")
    assert run(node, "(Get-Content C:\\l.txt).Count; Get-Content C:\\l.txt -Raw; $null -eq (Get-Content C:\\empty.txt -Raw)") == [
        '3', 'a\r\nb\r\nc\r\n', 'True']


def test_get_filehash_is_upper_case_hex():
    node = fresh_node()
    run(node, "[System.IO.File]::WriteAllText('C:\\h.txt', 'hello')")
    assert run(node, "$h = Get-FileHash -LiteralPath C:\\h.txt -Algorithm SHA256; $h.Algorithm; $h.Hash; $h.Path") == [
        'SHA256', hashlib.sha256(b'hello').hexdigest().upper(), 'C:\\h.txt']


def test_get_filehash_writes_a_custom_object_and_the_errors_of_its_function():
    # Windows PowerShell 5.1's Get-FileHash is a function of Microsoft.PowerShell.Utility.psm1 (windows/filesystem.py).
    node = fresh_node()
    run(node, "[System.IO.File]::WriteAllText('C:\\h.txt', 'hello'); New-Item C:\\d -ItemType Directory | Out-Null")
    hashes = run_on_node(node, "Get-FileHash -LiteralPath C:\\h.txt, C:\\d -Algorithm MD5").objects
    assert len(hashes) == 1 and hashes[0].NET == 'System.Management.Automation.PSCustomObject'
    assert run(node, "$h = Get-FileHash C:\\h.txt; $h.PSTypeNames -join ','; $h.GetType().FullName") == [
        'Microsoft.Powershell.Utility.FileHash,System.Management.Automation.PSCustomObject,System.Object',
        'System.Management.Automation.PSCustomObject']
    assert run(node, "[string](Get-FileHash C:\\h.txt -Algorithm SHA1)") == [
        '@{Algorithm=SHA1; Hash=%s; Path=C:\\h.txt}' % hashlib.sha1(b'hello').hexdigest().upper()]
    missing = run_on_node(node, "Get-FileHash -LiteralPath C:\\nothing.txt -ErrorVariable e -ErrorAction SilentlyContinue; "
                                "$e[0].FullyQualifiedErrorId")
    assert missing.output == ['PathNotFound,Microsoft.PowerShell.Commands.ResolvePathCommand']
    filesystem.lookup(node, 'C:\\h.txt')['held'] = 'open'
    assert failing(node, "Get-FileHash -LiteralPath C:\\h.txt").errors == [
        "File 'C:\\h.txt' cannot be read: Exception calling \"OpenRead\" with \"1\" argument(s): \"The process cannot "
        "access the file 'C:\\h.txt' because it is being used by another process.\""]
    # MACTripleDES hashes with a key made at random for the call: not modelled.
    filesystem.lookup(node, 'C:\\h.txt')['held'] = None
    assert 'MACTRIPLEDES' in run_on_node(node, "Get-FileHash C:\\h.txt -Algorithm MACTripleDES").unsupported


def test_system_io_file_statics():
    node = fresh_node()
    assert run(node, "[System.IO.File]::Exists('C:\\ProgramData'); [System.IO.File]::WriteAllText('C:\\u.txt', 'x', "
                     "[System.Text.Encoding]::UTF8); [System.IO.File]::Exists('C:\\u.txt'); "
                     "([System.IO.File]::ReadAllBytes('C:\\u.txt')) -join ','") == ['False', 'True', '239,187,191,120']


# --- ACLs -------------------------------------------------------------------------------------------------

def test_security_identifiers_translate_to_accounts():
    assert run(fresh_node(), "foreach ($sid in 'S-1-5-18', 'S-1-5-32-544', 'S-1-5-32-545') { "
                             "(New-Object System.Security.Principal.SecurityIdentifier $sid).Translate([System.Security.Principal.NTAccount]).Value }"
               ) == ['NT AUTHORITY\\SYSTEM', 'BUILTIN\\Administrators', 'BUILTIN\\Users']


def test_an_allow_rule_holds_synchronize():
    assert run(fresh_node(), "$id = New-Object System.Security.Principal.SecurityIdentifier 'S-1-5-32-545'; "
                             "$r = New-Object System.Security.AccessControl.FileSystemAccessRule $id, 'ReadAndExecute', 'Allow'; "
                             "[string]$r.FileSystemRights; [int]$r.FileSystemRights; "
                             "[string](New-Object System.Security.AccessControl.FileSystemAccessRule $id, 'FullControl', 'Allow').FileSystemRights"
               ) == ['ReadAndExecute, Synchronize', '1179817', 'FullControl']


def test_a_new_folder_inherits_from_programdata():
    node = fresh_node()
    lines = run(node, "New-Item -Path C:\\ProgramData\\app -ItemType Directory | Out-Null; $acl = Get-Acl C:\\ProgramData\\app; "
                      "$acl.AreAccessRulesProtected; $acl.Owner; "
                      "$acl.Access | ForEach-Object { '{0}|{1}|{2}|{3}|{4}' -f $_.IdentityReference, $_.FileSystemRights, "
                      "$_.InheritanceFlags, $_.PropagationFlags, $_.IsInherited }; (Get-Acl C:\\ProgramData).AreAccessRulesProtected")
    assert lines[:2] == ['False', 'BUILTIN\\Administrators']
    assert lines[-1] == 'True'
    assert 'BUILTIN\\Users|ReadAndExecute, Synchronize|ContainerInherit, ObjectInherit|None|True' in lines
    assert 'NT AUTHORITY\\SYSTEM|FullControl|ContainerInherit, ObjectInherit|None|True' in lines
    assert 'CREATOR OWNER|FullControl|ContainerInherit, ObjectInherit|InheritOnly|True' in lines


def test_set_acl_protects_and_replaces_the_rules():
    node = fresh_node()
    lines = run(node, "New-Item -Path C:\\ProgramData\\p.txt -ItemType File | Out-Null; $acl = Get-Acl C:\\ProgramData\\p.txt; "
                      "$acl.SetAccessRuleProtection($true, $false); @($acl.Access).Count; "
                      "$acl.AddAccessRule((New-Object System.Security.AccessControl.FileSystemAccessRule 'BUILTIN\\Administrators', "
                      "'FullControl', 'Allow')); Set-Acl -LiteralPath C:\\ProgramData\\p.txt -AclObject $acl; "
                      "$after = Get-Acl C:\\ProgramData\\p.txt; $after.AreAccessRulesProtected; @($after.Access).Count; "
                      "$after.Access[0].IsInherited")
    assert lines == ['0', 'True', '1', 'False']


# --- the real lib/files.ps1 ---------------------------------------------------------------------------------

@pytest.mark.parametrize('profile', ['secret', 'protected'])
@pytest.mark.parametrize('kind', ['Directory', 'File'])
def test_set_acl_profile_reads_back_as_that_profile(profile, kind):
    # Before the fix every protected path read back 'custom': FullControl less Synchronize has no name of its own,
    # so its [string] was never 'FullControl'.
    node = fresh_node()
    path = HOME + '\\target'
    output = run(node, FILES + "New-Item -Path '%s' -ItemType %s -Force | Out-Null\nSet-KubeWinAcl -Path '%s' -Profile %s\n"
                               "Get-KubeWinAclProfile -Path '%s'" % (path, kind, path, profile, path))
    assert output == [profile]


def test_acl_profiles_inherited_and_custom():
    node = fresh_node()
    assert run(node, FILES + "New-Item -Path C:\\ProgramData\\other -ItemType Directory | Out-Null\n"
                             "Get-KubeWinAclProfile -Path C:\\ProgramData\\other\nGet-KubeWinAclProfile -Path C:\\ProgramData") == [
        'inherited', 'custom']


def test_set_kubewin_acl_gives_the_documented_rules():
    node = fresh_node()
    lines = run(node, FILES + "New-KubeWinDirectory -Path '%s\\bin' -Profile protected\n"
                              "(Get-Acl '%s\\bin').Access | ForEach-Object { '{0}|{1}|{2}' -f $_.IdentityReference, "
                              "$_.FileSystemRights, $_.InheritanceFlags }" % (HOME, HOME))
    assert lines == ['NT AUTHORITY\\SYSTEM|FullControl|ContainerInherit, ObjectInherit',
                     'BUILTIN\\Administrators|FullControl|ContainerInherit, ObjectInherit',
                     'BUILTIN\\Users|ReadAndExecute, Synchronize|ContainerInherit, ObjectInherit']


def test_new_kubewin_directory_creates_parents_with_the_profile_and_leaves_existing_ones():
    node = fresh_node()
    assert run(node, FILES + "New-KubeWinDirectory -Path '%s\\a\\b' -Profile secret\n"
                             "Get-KubeWinAclProfile -Path '%s'; Get-KubeWinAclProfile -Path '%s\\a'; Get-KubeWinAclProfile -Path '%s\\a\\b'\n"
                             "New-KubeWinDirectory -Path '%s\\a' -Profile protected; Get-KubeWinAclProfile -Path '%s\\a'"
                             % ((HOME,) * 6)) == ['secret', 'secret', 'secret', 'secret']


def test_operation_path_is_in_a_secret_folder():
    node = fresh_node()
    assert run(node, FILES + "Get-KubeWinOperationPath -OperationId op1 -Suffix .json\n"
                             "Get-KubeWinAclProfile -Path '%s\\operations'" % HOME) == [HOME + '\\operations\\op1.json', 'secret']


def test_registry_round_trip_is_an_ordinary_file():
    node = fresh_node()
    run(node, FILES + "Write-KubeWinTextFile -Path C:\\ProgramData\\a.txt -Text 'a'\n"
                      "Write-KubeWinTextFile -Path C:\\ProgramData\\b.txt -Text 'bb'\n"
                      "Register-KubeWinFile -Path @('C:\\ProgramData\\a.txt', 'C:\\ProgramData\\b.txt') -TrackContent\n"
                      "Register-KubeWinFile -Forget @('C:\\ProgramData\\b.txt')")
    raw = filesystem.content_bytes(filesystem.lookup(node, HOME + '\\managed.json'))
    assert not raw.startswith(b'\xef\xbb\xbf')
    document = json.loads(raw.decode('utf-8'))
    assert list(document) == ['files', 'artifacts'] and list(document['files']) == ['C:\\ProgramData\\a.txt']
    entry = document['files']['C:\\ProgramData\\a.txt']
    assert (entry['sha256'], entry['size'], entry['track_content']) == (hashlib.sha256(b'a').hexdigest(), 1, True)
    assert re.match(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$', entry['written'])
    assert run(node, FILES + "Get-KubeWinAclProfile -Path '%s'; Test-Path '%s\\managed.json.kubewin-new'" % (HOME, HOME)) == [
        'protected', 'False']


def test_file_state_trusts_the_registry_while_size_and_time_are_unchanged():
    node = fresh_node()
    text = FILES + ("Write-KubeWinTextFile -Path C:\\ProgramData\\a.txt -Text 'a'\nRegister-KubeWinFile -Path @('C:\\ProgramData\\a.txt')\n"
                    "$registry = Get-KubeWinRegistry\n$registry.files['C:\\ProgramData\\a.txt'].sha256 = 'recorded'\n"
                    "(Get-KubeWinFileState -Path C:\\ProgramData\\a.txt -Registry $registry).sha256\n"
                    "Write-KubeWinTextFile -Path C:\\ProgramData\\a.txt -Text 'b'\n"
                    "(Get-KubeWinFileState -Path C:\\ProgramData\\a.txt -Registry $registry).sha256\n"
                    "ConvertTo-Json -Compress (Get-KubeWinFileState -Path C:\\nothing)")
    assert run(node, text) == ['recorded', hashlib.sha256(b'b').hexdigest(), '{"exists":false}']


# --- replacing a file a reader may be reading (windows/filesystem.py: MoveFileInfoItem, File.Replace) ----------

def test_move_item_force_deletes_the_destination_before_it_moves():
    # FileSystemProvider.MoveFileInfoItem of 5.1: MoveTo fails on an existing file; with -Force the destination is
    # deleted, then the file moved. A reader polling the destination finds it missing in between.
    node = fresh_node()
    run(node, "Set-Content -LiteralPath C:\\a.txt -Value old; Set-Content -LiteralPath C:\\b.txt -Value new")
    seen = filesystem.watch(node, 'C:\\a.txt')
    run(node, "Move-Item -LiteralPath C:\\b.txt -Destination C:\\a.txt -Force")
    assert seen == [False, True]
    assert run(node, "Get-Content C:\\a.txt") == ['new']


def test_file_replace_swaps_in_one_step_and_keeps_the_replaced_files_acl():
    node = fresh_node()
    run(node, FILES + "Write-KubeWinTextFile -Path C:\\ProgramData\\a.txt -Text old; "
                      "Set-KubeWinAcl -Path C:\\ProgramData\\a.txt -Profile secret; "
                      "Write-KubeWinTextFile -Path C:\\ProgramData\\a.new -Text new")
    seen = filesystem.watch(node, 'C:\\ProgramData\\a.txt')
    assert run(node, FILES + "[System.IO.File]::Replace('C:\\ProgramData\\a.new', 'C:\\ProgramData\\a.txt', "
                             "[NullString]::Value); [System.IO.File]::ReadAllText('C:\\ProgramData\\a.txt'); "
                             "Test-Path C:\\ProgramData\\a.new; Get-KubeWinAclProfile -Path C:\\ProgramData\\a.txt") == [
        'new', 'False', 'secret']
    assert seen == [True]


@pytest.mark.parametrize('text, message', [
    # PowerShell passes $null to a .NET string parameter as "" (LanguagePrimitives.ConvertNullToString).
    ("[System.IO.File]::Replace('C:\\n.txt', 'C:\\o.txt', $null)", 'The path is not of a legal form.'),
    ("[System.IO.File]::Replace('C:\\n.txt', 'C:\\missing.txt', [NullString]::Value)", 'Unable to find the specified file.'),
    ("[System.IO.File]::Replace('C:\\missing.txt', 'C:\\o.txt', [NullString]::Value)", 'Unable to find the specified file.'),
])
def test_file_replace_errors(text, message):
    node = fresh_node()
    run(node, "Set-Content C:\\n.txt -Value n; Set-Content C:\\o.txt -Value o")
    assert failing(node, text).errors == ['Exception calling "Replace" with "3" argument(s): "%s"' % message]
    assert run(node, "Get-Content C:\\n.txt; Get-Content C:\\o.txt") == ['n', 'o']


def test_file_replace_of_a_file_a_program_holds_is_a_sharing_violation():
    node = fresh_node()
    run(node, "Set-Content C:\\n.txt -Value n; Set-Content C:\\o.txt -Value o")
    filesystem.lookup(node, 'C:\\o.txt')['held'] = 'open'
    assert failing(node, "[System.IO.File]::Replace('C:\\n.txt', 'C:\\o.txt', [NullString]::Value)").errors == [
        'Exception calling "Replace" with "3" argument(s): "The process cannot access the file because it is being '
        'used by another process."']


def test_a_reader_always_finds_the_registry_of_managed_files():
    # Register-KubeWinFile rewrites managed.json; a reader polling it (node_info from another task) must find the old
    # document or the new one, never none, and a crash between two steps must leave one.
    node = fresh_node()
    run(node, FILES + "Write-KubeWinTextFile -Path C:\\ProgramData\\a.txt -Text 'a'; Register-KubeWinFile -Path @('C:\\ProgramData\\a.txt')")
    seen = filesystem.watch(node, HOME + '\\managed.json')
    run(node, FILES + "Register-KubeWinFile -Forget @('C:\\ProgramData\\a.txt')")
    assert seen and all(seen), seen
    assert json.loads(filesystem.content_bytes(filesystem.lookup(node, HOME + '\\managed.json')))['files'] == {}


@pytest.mark.parametrize('first, second', [('protected', 'secret'), ('secret', 'protected'), ('secret', 'secret')])
def test_file_write_over_a_file_never_leaves_it_missing_and_sets_its_profile(first, second):
    node = fresh_node()
    path = HOME + '\\etc\\kubelet.conf'
    run_script(node, 'file_write', {'Path': path, 'Content': 'one', 'Acl': first})
    seen = filesystem.watch(node, path)
    result = run_script(node, 'file_write', {'Path': path, 'Content': 'two', 'Acl': second})
    assert seen and all(seen), seen
    assert result['state']['files'][path] == file_state(b'two', second)


# --- file_write.ps1 and node_info's sections ------------------------------------------------------------------
CASES = [
    {'Path': HOME + '\\etc\\kubelet.conf', 'Content': 'a=1\n', 'Acl': 'protected'},
    {'Path': HOME + '\\etc\\token', 'SecretContent': 's3cret', 'Acl': 'secret'},
    {'Path': 'C:\\k\\config', 'Content': '', 'Acl': 'protected'},
]


def _script_parameters(parameters):
    out = dict(parameters)
    if 'SecretContent' in out:
        out['SecretContent'] = SecureString(out['SecretContent'])
    if out.get('Remove'):
        out['Remove'] = SwitchParameter(True)
    return out


def _written(parameters):
    """The bytes file_write.ps1 writes: the text as UTF-8 without a byte order mark."""
    return (parameters.get('Content') or parameters.get('SecretContent') or '').encode('utf-8')


def file_state(data, acl):
    """lib/files.ps1 Get-KubeWinFileState of a file holding ``data``."""
    return {'exists': True, 'type': 'file', 'size': len(data), 'sha256': hashlib.sha256(data).hexdigest(), 'acl': acl}


@pytest.mark.parametrize('parameters', CASES, ids=['content', 'secret', 'empty'])
def test_file_write_writes_the_text_and_reports_the_file(parameters):
    node = fresh_node()
    result = run_script(node, 'file_write', _script_parameters(parameters))
    assert result == {'state': {'sections': ['files'], 'files': {
        parameters['Path']: file_state(_written(parameters), parameters['Acl'])}}}
    assert filesystem.content_bytes(filesystem.lookup(node, parameters['Path'])) == _written(parameters)
    assert filesystem.lookup(node, parameters['Path'] + '.kubewin-new') is None


def test_file_write_remove_and_node_info_sections():
    node = fresh_node()
    for parameters in CASES:
        run_script(node, 'file_write', _script_parameters(parameters))
    removed = run_script(node, 'file_write', _script_parameters({'Path': CASES[0]['Path'], 'Remove': True}))
    assert removed == {'state': {'sections': ['files'], 'files': {CASES[0]['Path']: {'exists': False}}}}
    # Register-KubeWinFile -TrackContent and an artifact record.
    run(node, FILES + "Write-KubeWinTextFile -Path C:\\k\\manifest.txt -Text 'v1'\n"
                      "Register-KubeWinFile -Path @('C:\\k\\manifest.txt') -TrackContent -ArtifactDest C:\\k "
                      "-Artifact ([ordered]@{ url = 'https://example.invalid/k.zip'; checksum = 'sha256:00' })")
    sections = ['files', 'contents', 'artifacts']
    output = run(node, STATE + "\nConvertTo-Json -Depth 8 -Compress (Get-KubeWinNodeState -Sections %s -Files C:\\missing.txt "
                               "-Contents %s)" % (','.join(sections), CASES[0]['Path']))
    # The files asked for and every registered file (the removed one forgotten); the contents asked for and those
    # registered with -TrackContent; the artifact records.
    assert json.loads(output[-1]) == {
        'sections': sections,
        'files': {'C:\\missing.txt': {'exists': False},
                  CASES[1]['Path']: file_state(b's3cret', 'secret'),
                  CASES[2]['Path']: file_state(b'', 'protected'),
                  'C:\\k\\manifest.txt': file_state(b'v1', 'inherited')},
        'contents': {CASES[0]['Path']: {'exists': False, 'text': None},
                     'C:\\k\\manifest.txt': {'exists': True, 'text': 'v1'}},
        'artifacts': {'C:\\k': {'url': 'https://example.invalid/k.zip', 'checksum': 'sha256:00',
                                'files': {'C:\\k\\manifest.txt': hashlib.sha256(b'v1').hexdigest()}}}}


# --- artifact_fetch.ps1 with a staged file (no download): Install-KubeWinFile --------------------------------

STAGED = 'C:\\Windows\\TEMP\\kubewin-staged.bin'


def _stage(node, text, staged=STAGED, dest='C:\\k\\kubelet.exe'):
    """An entry of artifact_fetch.ps1's -Artifacts for ``text`` staged at ``staged``, to install at ``dest``."""
    run(node, "New-Item -Path C:\\Windows\\TEMP -ItemType Directory -Force | Out-Null; "
              "[System.IO.File]::WriteAllText('%s', '%s')" % (staged, text))
    return {'name': dest.rpartition('\\')[2], 'url': 'https://example.invalid/' + dest.rpartition('\\')[2],
            'dest': dest, 'algorithm': 'sha256', 'checksum': hashlib.sha256(text.encode()).hexdigest(),
            'checksum_spec': 'sha256:pinned', 'format': 'file', 'key': dest, 'staged_path': staged, 'version': 'v1.31.0'}


def _fetch(node, *artifacts):
    # As win_powershell binds a module argument (case-sensitive hashtables).
    return run_script(node, 'artifact_fetch', {'Artifacts': module_value(list(artifacts))})


def _staged_result(data, checksum_spec):
    """artifact_fetch.ps1's answer for a staged file: no download attempt (its size, no download time), the hash of
    what it installed, the file protected, and the artifact's record."""
    digest = hashlib.sha256(data).hexdigest()
    return {'artifacts': [{'attempts': 0, 'bytes': len(data), 'seconds': None, 'sha': digest}], 'state': {
        'sections': ['files', 'artifacts'],
        'files': {'C:\\k\\kubelet.exe': file_state(data, 'protected')},
        'artifacts': {'C:\\k\\kubelet.exe': {
            'url': 'https://example.invalid/kubelet.exe', 'checksum': checksum_spec, 'version': 'v1.31.0',
            'files': {'C:\\k\\kubelet.exe': digest}}}}}


def _run_service(node, program):
    node.data['services']['kubelet'] = {'state': 'running', 'command_line': '"%s" --v=2' % program}


def test_artifact_fetch_of_a_staged_file_installs_it():
    node = fresh_node()
    assert _fetch(node, _stage(node, 'binary-1')) == _staged_result(b'binary-1', 'sha256:pinned')
    assert run(node, "Test-Path '%s'; Get-ChildItem C:\\k -Force | ForEach-Object { $_.Name }" % STAGED) == [
        'False', 'kubelet.exe']
    assert filesystem.content_bytes(filesystem.lookup(node, 'C:\\k\\kubelet.exe')) == b'binary-1'


def test_artifact_fetch_without_a_checksum_installs_unverified():
    # skip_checksum sends neither Checksum nor ChecksumUrl. The script used to fetch the hash file from the empty
    # ChecksumUrl anyway: on Windows Invoke-WebRequest refuses an empty -Uri, the catch took that for a transient
    # failure (no HTTP answer), and every run failed after its retries. The file is staged here (downloads are not
    # modelled); which hash is expected does not depend on how the file arrived.
    node = fresh_node()
    entry = dict(_stage(node, 'binary-1'), checksum_spec='none')
    del entry['checksum']
    assert _fetch(node, entry) == _staged_result(b'binary-1', 'none')


def test_artifact_fetch_installs_every_artifact_it_can_and_names_each_it_cannot():
    # One call installs a role's artifacts; a wrong hash fails the run naming that artifact, and the others are
    # installed and recorded (a re-run plans only the failed one again).
    node = fresh_node()
    good = _stage(node, 'proxy-1', 'C:\\Windows\\TEMP\\a.bin', 'C:\\k\\kube-proxy.exe')
    bad = dict(_stage(node, 'kubelet-1'), checksum=hashlib.sha256(b'other').hexdigest())
    with pytest.raises(ScriptTerminating, match=r'could not install 1 of 2 artifacts .*kubelet\.exe: checksum mismatch'):
        _fetch(node, bad, good)
    assert run(node, "Get-ChildItem C:\\k -Force | ForEach-Object { $_.Name }") == ['kube-proxy.exe']
    state = run_script(node, 'node_info', {'Sections': ['files', 'artifacts'],
                                           'Files': ['C:\\k\\kube-proxy.exe', 'C:\\k\\kubelet.exe']})
    assert state['files']['C:\\k\\kubelet.exe']['exists'] is False
    assert list(state['artifacts']) == ['C:\\k\\kube-proxy.exe']


def test_install_over_a_running_program_moves_it_aside_until_it_is_released():
    engine_node = fresh_node()
    _fetch(engine_node, _stage(engine_node, 'binary-1'))
    _run_service(engine_node, 'C:\\k\\kubelet.exe')
    result = _fetch(engine_node, _stage(engine_node, 'binary-2'))
    assert result['state']['files']['C:\\k\\kubelet.exe']['sha256'] == hashlib.sha256(b'binary-2').hexdigest()
    names = run(engine_node, "Get-ChildItem C:\\k | ForEach-Object { $_.Name }")
    assert names[0] == 'kubelet.exe' and len(names) == 2 and names[1].startswith('kubelet.exe.kubewin-old-')
    # The old program stays until the service lets it go; the next install removes it.
    filesystem.release(engine_node, 'kubelet')
    engine_node.data['services']['kubelet']['state'] = 'stopped'
    _fetch(engine_node, _stage(engine_node, 'binary-3'))
    assert run(engine_node, "Get-ChildItem C:\\k | ForEach-Object { $_.Name }") == ['kubelet.exe']


def test_pipeline_binds_items_to_literalpath_and_strings_to_value():
    node = fresh_node()
    assert run(node, "'a', 'b' | Set-Content -LiteralPath C:\\p.txt; New-Item C:\\q[1].txt -ItemType File | Out-Null; "
                     "Get-ChildItem C:\\ -Filter *.txt | Remove-Item; Test-Path C:\\p.txt; Test-Path -LiteralPath C:\\q[1].txt") == [
        'False', 'False']


def _function(script, name):
    """One top-level function of a script, as text (its closing brace is the first '}' at the line start)."""
    with open(os.path.join(SCRIPTS, script + '.ps1'), encoding='utf-8') as handle:
        text = handle.read()
    start = text.index('function %s {' % name)
    return text[start:text.index('\n}\n', start) + 3]


@pytest.mark.parametrize('tail, text, truncated', [(100, 'line 1\r\nline 2\r\n', False), (8, 'line 1\r\nline 2\r\n', True)])
def test_node_logs_reads_the_tail_of_a_log_a_service_writes(tail, text, truncated):
    node = fresh_node()
    run(node, "New-Item -Path C:\\k\\logs -ItemType Directory -Force | Out-Null; [System.IO.File]::WriteAllText('C:\\k\\logs\\kubelet.log', "
              "\"%s\")" % text.replace('\r\n', '`r`n'))
    filesystem.lookup(node, 'C:\\k\\logs\\kubelet.log')['held'] = 'open'
    output = run(node, FILES + "$TailBytes = %d\n" % tail + _function('node_logs', 'Get-LogTail') +
                 "ConvertTo-Json -Compress (Get-LogTail -Path C:\\k\\logs\\kubelet.log)\n"
                 "ConvertTo-Json -Compress (Get-LogTail -Path C:\\k\\logs\\missing.log)")
    assert json.loads(output[0]) == {'exists': True, 'size': len(text), 'truncated': truncated, 'text': text[-tail:]}
    assert json.loads(output[1]) == {'exists': False}


def test_a_file_a_program_writes_opens_only_when_sharing_writing():
    node = fresh_node()
    run(node, "New-Item C:\\k\\log.txt -ItemType File -Force -Value 'hello world' | Out-Null")
    filesystem.lookup(node, 'C:\\k\\log.txt')['held'] = 'open'
    outcome = failing(node, "[System.IO.File]::Open('C:\\k\\log.txt', [System.IO.FileMode]::Open, [System.IO.FileAccess]::Read, "
                            "[System.IO.FileShare]::Read)")
    assert 'being used by another process' in outcome.errors[0]


def test_zipfile_extracts_to_a_directory_and_refuses_to_overwrite():
    import io  # pylint: disable=import-outside-toplevel
    import zipfile  # pylint: disable=import-outside-toplevel
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w') as archive:
        archive.writestr('bin/flanneld.exe', b'exe')
        archive.writestr('README', b'text')
    node = fresh_node()
    run(node, "[System.IO.File]::WriteAllBytes('C:\\a.zip', [System.Convert]::FromBase64String('%s'))"
        % __import__('base64').b64encode(buffer.getvalue()).decode())
    assert run(node, "Add-Type -AssemblyName System.IO.Compression.FileSystem; "
                     "[System.IO.Compression.ZipFile]::ExtractToDirectory('C:\\a.zip', 'C:\\x'); "
                     "Get-ChildItem C:\\x -Recurse | ForEach-Object { $_.FullName }") == [
        'C:\\x\\bin', 'C:\\x\\README', 'C:\\x\\bin\\flanneld.exe']
    assert 'already exists' in failing(node, "Add-Type -AssemblyName System.IO.Compression.FileSystem; "
                                             "[System.IO.Compression.ZipFile]::ExtractToDirectory('C:\\a.zip', 'C:\\x')").errors[0]


def test_the_registry_keeps_a_path_that_is_not_ascii():
    # managed.json is UTF-8 without a byte order mark; Windows PowerShell's Get-Content reads such a file in the
    # ANSI code page unless told, so before the fix 'café' came back as 'cafÃ©' and was saved so.
    node = fresh_node()
    path = 'C:\\ProgramData\\caf\u00e9.conf'
    run(node, FILES + "Write-KubeWinTextFile -Path '%s' -Text 'a'\nRegister-KubeWinFile -Path @('%s')\n"
                      "Register-KubeWinFile -Path @()" % (path, path))
    assert run(node, FILES + "(Get-KubeWinRegistry).files.Keys") == [path]


def test_a_stand_in_binary_has_its_digest_and_size_and_no_bytes_to_read():
    """An artifact served by its pinned digest (web.py) lands as a stand-in: Length and Get-FileHash SHA256
    answer from the digest; reading its bytes or another hash is an engine gap, not made-up bytes."""
    node = fresh_node()
    filesystem.make_directories(node, 'C:\\k')
    digest = 'ab' * 32
    filesystem.write_file(node, 'C:\\k\\kubelet.exe', b'', stand_in={'sha256': digest, 'size': 123456})
    assert run(node, "(Get-Item C:\\k\\kubelet.exe).Length; (Get-FileHash C:\\k\\kubelet.exe).Hash") == [
        '123456', digest.upper()]
    for text in ("Get-Content C:\\k\\kubelet.exe", "Get-FileHash C:\\k\\kubelet.exe -Algorithm SHA512"):
        outcome = run_on_node(node, text)
        assert outcome.exit_code == 2 and 'stand-in binary' in outcome.unsupported, outcome
    # Writing the file gives it bytes again.
    run(node, "Set-Content -Path C:\\k\\kubelet.exe -Value 'x'")
    assert run(node, "(Get-Item C:\\k\\kubelet.exe).Length") == ['3']
