# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The engine's refusal of what Windows has and it does not model, on a node (the Windows model's types, CIM
instances, module cmdlets); the rule is tests/simulation/README.md "What the engine refuses". The cases that need no
node are conformance cases (conformance/cases_refusal.py)."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh import netmembers  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import run_on_node  # noqa: E402  pylint: disable=wrong-import-position


def fresh_node():
    return SimNode(initial_state('win1', {'ip': '10.0.0.11'}))


def refused(text, node=None):
    outcome = run_on_node(node or fresh_node(), text)
    assert outcome.exit_code == 2 and outcome.unsupported, outcome
    return outcome.unsupported


def test_a_static_property_the_model_does_not_implement_is_refused():
    # Environment.MachineName is a static property of .NET Framework's System.Environment (mscorlib/system/environment.cs).
    assert 'MachineName' in refused("try { [Environment]::MachineName } catch { 'caught' }")
    assert run_on_node(fresh_node(), "$null -eq [Environment]::NoSuchProperty").output == ['True']


def test_a_member_of_a_cim_instance_the_model_does_not_implement_is_refused():
    # CimClass is a property of Microsoft.Management.Infrastructure.CimInstance (netmembers/windows.json).
    assert 'CimClass' in refused('(Get-CimInstance Win32_OperatingSystem).CimClass')
    # A CIM class's member list is never complete (a CDXML module's types.ps1xml may add members): refused too.
    assert 'not complete' in refused('(Get-CimInstance Win32_OperatingSystem).NoSuchProperty')
    outcome = run_on_node(fresh_node(), '(Get-CimInstance Win32_OperatingSystem).Caption')
    assert outcome.exit_code == 0 and outcome.output[0].startswith('Microsoft Windows Server')


def test_a_type_of_an_assembly_not_yet_loaded_is_windows_own_error():
    outcome = run_on_node(fresh_node(), "[System.IO.Compression.ZipFile]; 'after'")
    assert outcome.output == ['after'] and 'Unable to find type' in outcome.errors[0]


def test_a_module_cmdlet_is_refused_unless_the_node_lacks_the_module():
    node = fresh_node()
    assert node.data['features'].get('Hyper-V-PowerShell') != 'installed'
    # Without the Hyper-V PowerShell module, Get-VM is not there on Windows either.
    outcome = run_on_node(node, "Get-VM; 'after'")
    assert outcome.output == ['after'] and "The term 'Get-VM' is not recognized" in outcome.errors[0]
    node.data['features']['Hyper-V-PowerShell'] = 'installed'
    assert 'Get-VM' in refused("Get-VM -ErrorAction SilentlyContinue; 'after'", node)
    # A module the model has no area for (Storage) is on every Windows Server: its cmdlets are refused.
    assert 'Get-Disk' in refused('Get-Disk', node)


def test_every_modelled_class_knows_where_its_members_are_documented():
    """A class of the model with a NET name has a documented member list, or is one of those no fetched source
    documents (listed here, with the reason): a new class must say where its members come from."""
    undocumented = {
        # The Hyper-V, ServerManager and RemoteAccess output types and the CDXML enums are documented by no source
        # member by member: only what the model implements is known, the rest is refused.
        'Microsoft.HyperV.PowerShell.VMSwitch', 'Microsoft.HyperV.PowerShell.VMSwitchExtension',
        'Microsoft.Windows.ServerManager.Commands.Feature',
        'Microsoft.Management.Infrastructure.CimMethodResult',
    }
    missing = []
    for cls in netmembers.model_classes():
        declared = getattr(cls, 'DOCUMENTED', None)  # a COM object's interface
        for name in [declared] if declared else list(getattr(cls, 'NET_NAMES', None) or ()) + [cls.__dict__.get('NET')]:
            if isinstance(name, str) and not getattr(cls, 'CLASS', None) and netmembers.lookup(name) is None \
                    and name not in undocumented and not name.startswith('Microsoft.PowerShell.Cmdletization.'):
                missing.append('%s (%s)' % (name, cls.__name__))
    assert not missing, 'no member list for: %s' % ', '.join(sorted(missing))
