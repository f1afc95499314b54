"""gMSA on a node in the Windows model: Win32_ComputerSystem, HNS's State key, the CCG plugin registration
(windows/registry_security.py, reg_exe.py, wevtutil.py), and gmsa_apply.ps1 and node_info's gmsa section run whole.

Sources named per test; the model's in each module's docstring.
"""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import run_on_node  # noqa: E402
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402

CLSID = '{CCC2A336-D7F3-4818-A213-272B7924213E}'
COMCLASSES = 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\CCG\\COMClasses'
HNS_STATE = 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\hns\\State'
DATA = os.path.join(ROOT, 'tests', 'unit', 'test_data', 'ccg')
REG, MAN = 'C:\\k\\ccg\\registerplugin.reg', 'C:\\k\\ccg\\plugin-events.man'


def gmsa_node(domain=None, containers=True, files=True):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'domain': domain}))
    if containers:
        node.data['features']['Containers'] = 'installed'
    if files:
        for path, name in ((REG, 'registerplugin.reg'), (MAN, 'plugin-events.man')):
            with open(os.path.join(DATA, name), 'rb') as handle:
                node.write_file(path, data=handle.read())
    return node


def run(node, text):
    outcome = run_on_node(node, text)
    assert outcome.unsupported is None, outcome.unsupported
    return outcome


def apply(node, **parameters):
    result = invoke(node, _pwsh.load_script('gmsa_apply'), parameters, error_action='stop')
    return result, (_contracts.check('gmsa_apply', json.loads(result['result'])) if not result['failed'] else None)


# -- Win32_ComputerSystem -----------------------------------------------------------------------------

@pytest.mark.parametrize('domain, expected', [
    ('corp.example.com', ['True', 'corp.example.com', '', '3']),
    # The page: Domain is the workgroup's name when the computer is in none; Workgroup then names it.
    (None, ['False', 'WORKGROUP', 'WORKGROUP', '2'])])
def test_win32_computersystem_says_whether_the_node_is_domain_joined(domain, expected):
    outcome = run(gmsa_node(domain), "$c = Get-CimInstance -ClassName Win32_ComputerSystem; "
                                     "$c.PartOfDomain; $c.Domain; [string]$c.Workgroup; $c.DomainRole")
    assert (outcome.output, outcome.errors) == (expected, [])


# -- HNS's State key --------------------------------------------------------------------------------

def test_hns_keeps_its_state_key_which_takes_enable_compartment_namespace():
    # AgentBaker sets its HNS fixes with Set-ItemProperty on hns\State, which creates no key: it is there with HNS.
    node = gmsa_node()
    outcome = run(node, "Test-Path -LiteralPath '%s'; New-ItemProperty -LiteralPath '%s' -Name "
                        "EnableCompartmentNamespace -PropertyType DWord -Value 1 -Force | Out-Null; "
                        "(Get-ItemProperty -LiteralPath '%s').EnableCompartmentNamespace.GetType().FullName" % (
                            HNS_STATE, HNS_STATE, HNS_STATE))
    assert (outcome.output, outcome.errors) == (['True', 'System.Int32'], [])
    assert run(gmsa_node(containers=False), "Test-Path -LiteralPath '%s'" % HNS_STATE).output == ['False']


def test_node_info_reports_the_gmsa_state():
    node = gmsa_node('corp.example.com')
    result = invoke(node, _pwsh.load_script('node_info'), {'Sections': ['gmsa']}, error_action='stop')
    state = _contracts.check('node_info', json.loads(result['result']))
    # CCG\COMClasses is there with the Containers feature, empty on a fresh node.
    assert state['gmsa'] == {'part_of_domain': True, 'domain': 'corp.example.com', 'compartment_namespace': None,
                             'ccg_plugins': []}


# -- gmsa_apply.ps1 ---------------------------------------------------------------------------------

def test_the_domain_joined_mode_sets_enable_compartment_namespace_only():
    node = gmsa_node('corp.example.com')
    result, document = apply(node, CompartmentNamespace=True)
    assert (result['failed'], result['error']) == (False, [])
    assert document['state']['gmsa'] == {'part_of_domain': True, 'domain': 'corp.example.com',
                                         'compartment_namespace': 1, 'ccg_plugins': []}
    assert 'registry_security' not in node.data


def test_ccg_comclasses_is_trustedinstallers_and_administrators_may_only_read_it():
    # The installers (AgentBaker's Install-GmsaPlugin, Microsoft's sample) take the key over before they add to it.
    node = gmsa_node()
    outcome = run_on_node(node, "New-Item -Path '%s\\%s' -ErrorAction Continue | Out-Null; "
                                "$Error[0].Exception.GetType().FullName; "
                                "$rights = [System.Security.AccessControl.RegistryRights]::CreateSubKey; "
                                "[Microsoft.Win32.Registry]::LocalMachine.OpenSubKey('SYSTEM\\CurrentControlSet\\Control\\"
                                "CCG\\COMClasses', [Microsoft.Win32.RegistryKeyPermissionCheck]::ReadWriteSubTree, $rights)"
                                % (COMCLASSES, CLSID))
    assert outcome.unsupported is None
    assert outcome.output == ['System.Security.SecurityException']
    assert outcome.errors[-1] == ('Exception calling "OpenSubKey" with "3" argument(s): '
                                  '"Requested registry access is not allowed."')
    key = run(node, "$k = [Microsoft.Win32.Registry]::LocalMachine.OpenSubKey('SYSTEM\\CurrentControlSet\\Control\\CCG\\"
                    "COMClasses', [Microsoft.Win32.RegistryKeyPermissionCheck]::ReadWriteSubTree, "
                    "[System.Security.AccessControl.RegistryRights]::ReadPermissions); $k.Name; $k.GetAccessControl().Owner")
    assert key.output == ['HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\CCG\\COMClasses',
                          'NT SERVICE\\TrustedInstaller']


def test_taking_ownership_needs_the_privilege_enabled():
    # WRITE_OWNER comes with SeTakeOwnershipPrivilege enabled ("Privilege Constants"); the token holds it disabled.
    outcome = run_on_node(gmsa_node(), "[Microsoft.Win32.Registry]::LocalMachine.OpenSubKey('SYSTEM\\CurrentControlSet\\"
                                       "Control\\CCG\\COMClasses', [Microsoft.Win32.RegistryKeyPermissionCheck]::"
                                       "ReadWriteSubTree, [System.Security.AccessControl.RegistryRights]::TakeOwnership)")
    assert outcome.errors == ['Exception calling "OpenSubKey" with "3" argument(s): '
                              '"Requested registry access is not allowed."']


def test_the_portable_mode_registers_the_plugin_from_its_own_files():
    node = gmsa_node()
    result, document = apply(node, CompartmentNamespace=True, PluginClsid=CLSID, RegistrationPath=REG,
                             ManifestPath=MAN)
    assert (result['failed'], result['error']) == (False, [])
    assert document['state']['gmsa'] == {'part_of_domain': False, 'domain': 'WORKGROUP', 'compartment_namespace': 1,
                                         'ccg_plugins': [CLSID]}
    # The key was taken over: Administrators own it with full control, inherited by the CLSID's key.
    security = node.data['registry_security']['system\\currentcontrolset\\control\\ccg\\comclasses']
    assert security['owner'] == 'S-1-5-32-544'
    assert ['S-1-5-32-544', 0xF003F, 1, 0, 0] in security['rules']
    # The registry file's COM class, and the manifest's channel, now a log of the node.
    outcome = run(node, "(Get-ItemProperty -LiteralPath 'HKLM:\\SOFTWARE\\Classes\\CLSID\\%s\\InprocServer32')."
                        "ThreadingModel; (Get-ItemProperty -LiteralPath 'HKLM:\\SOFTWARE\\Classes\\AppID\\"
                        "{557110E1-88BC-4583-8281-6AAC6F708584}').DllSurrogate.Length" % CLSID)
    assert outcome.output == ['Both', '0']
    assert node.data['event_channels'] == {'Example-CCG-Plugin/Admin': 'Example-CCG-Plugin'}
    # Registering again imports the files again and changes nothing more.
    again, document = apply(node, PluginClsid=CLSID, RegistrationPath=REG, ManifestPath=MAN)
    assert (again['failed'], document['state']['gmsa']['ccg_plugins']) == (False, [CLSID])


def test_a_registry_file_that_registers_another_clsid_fails_naming_it():
    node = gmsa_node()
    other = '{11111111-2222-3333-4444-555555555555}'
    result, _document = apply(node, PluginClsid=other, RegistrationPath=REG, ManifestPath=MAN)
    assert result['failed'] is True
    assert result['error'][0]['exception']['message'] == (
        '%s does not register %s under HKLM:\\SYSTEM\\CurrentControlSet\\Control\\CCG\\COMClasses' % (REG, other))


def test_a_missing_file_fails_before_anything_changes():
    node = gmsa_node(files=False)
    result, _document = apply(node, PluginClsid=CLSID, RegistrationPath=REG, ManifestPath=MAN)
    assert result['error'][0]['exception']['message'] == '%s is not on the node' % REG
    assert 'registry_security' not in node.data


def test_without_the_privileges_reg_exe_cannot_write_the_clsid():
    # reg.exe runs with the caller's token: before the key is taken over it fails as reg.exe does.
    outcome = run(gmsa_node(), "$m = & reg.exe import '%s' 2>&1; $LASTEXITCODE; [string]$m" % REG)
    assert outcome.output == ['1', 'ERROR: Error accessing the registry.']


# -- reg.exe and wevtutil.exe -------------------------------------------------------------------------

def test_reg_import_reads_every_value_form_of_a_regedit4_file():
    # The .reg page: dword, hex(7) (REG_MULTI_SZ, UTF-16LE with its zeros), hex(2), hex(b), deletions.
    text = ('REGEDIT4\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Example]\r\n"D"=dword:0000002a\r\n'
            '"M"=hex(7):61,00,00,00,62,00,00,00,00,00\r\n"E"=hex(2):25,00,53,00,79,00,73,00,74,00,65,00,6d,00,\\\r\n'
            '  52,00,6f,00,6f,00,74,00,25,00,00,00\r\n"Q"=hex(b):01,00,00,00,00,00,00,00\r\n"Gone"="x"\r\n'
            '"Gone"=-\r\n')
    node = gmsa_node(files=False)
    node.write_file('C:\\x.reg', data=text.encode('ascii'))
    outcome = run(node, "& reg.exe import C:\\x.reg 2>$null; $LASTEXITCODE; $v = Get-ItemProperty -LiteralPath "
                        "'HKLM:\\SOFTWARE\\Example'; $v.D; $v.M -join ','; $v.E; $v.Q; $null -eq $v.Gone")
    assert outcome.output == ['0', '42', 'a,b', 'C:\\Windows', '1', 'True']


def test_wevtutil_refuses_what_is_no_manifest():
    node = gmsa_node(files=False)
    node.write_file('C:\\x.man', content='<notAManifest/>')
    outcome = run(node, "& wevtutil.exe im C:\\x.man 2>$null; $LASTEXITCODE; & wevtutil.exe im C:\\missing.man 2>$null; "
                        "$LASTEXITCODE")
    assert outcome.output == ['13', '2']
    assert 'event_channels' not in node.data
