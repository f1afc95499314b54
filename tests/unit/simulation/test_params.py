"""The simulation binds parameters as PowerShell would."""

import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

from kubewin_sim import handlers, params, registry  # noqa: E402,F401  pylint: disable=wrong-import-position,unused-import

from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh  # noqa: E402

SCRIPT = '''# kubewin-script: demo
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][ValidatePattern('^[a-z0-9-]+$')][string]$Id,
    # a comment inside the block
    [ValidateSet('L2Bridge', 'Overlay')][string]$Type = 'L2Bridge',
    [string[]]$Names = @('a', 'b'),
    [int]$Count,
    [switch]$Force
)
'''


def test_declarations_are_read():
    declared = params.declared_parameters(SCRIPT)
    assert list(declared) == ['Id', 'Type', 'Names', 'Count', 'Force']
    assert declared['Id']['mandatory'] and declared['Id']['pattern'] == '^[a-z0-9-]+$'
    assert declared['Type']['choices'] == ['L2Bridge', 'Overlay'] and declared['Type']['default'] == 'L2Bridge'
    assert declared['Names'] == {'type': 'string[]', 'mandatory': False, 'choices': None, 'pattern': None,
                                 'default': ['a', 'b']}


def test_binding_fills_defaults_and_converts_types():
    assert params.bind(SCRIPT, {'id': 'x-1', 'Names': 'one', 'Count': '3', 'Force': True}) == {
        'Id': 'x-1', 'Type': 'L2Bridge', 'Names': ['one'], 'Count': 3, 'Force': True}


@pytest.mark.parametrize('given, message', [
    ({'Id': 'x', 'Bogus': 1}, "matches parameter name 'Bogus'"),
    ({}, 'missing mandatory parameters: Id'),
    ({'Id': 'X Y'}, 'does not match'),
    ({'Id': 'x', 'Type': 'NAT'}, 'does not belong to the set'),
    ({'Id': 'x', 'Count': 'many'}, 'System.Int32'),
])
def test_binding_refuses_what_powershell_refuses(given, message):
    with pytest.raises(params.BindingError, match=message):
        params.bind(SCRIPT, given)


def test_every_shipped_script_has_a_simulation_and_a_readable_param_block():
    for name in sorted(os.listdir(_pwsh.SCRIPT_DIR)):
        if name.endswith('.ps1'):
            marker = name[:-4]
            assert marker in registry.HANDLERS or marker in registry.WORKERS, 'no simulation for %s' % name
            params.declared_parameters(_pwsh.load_script(marker))
    assert set(registry.HANDLERS) | set(registry.WORKERS) == {
        n[:-4] for n in os.listdir(_pwsh.SCRIPT_DIR) if n.endswith('.ps1')}, 'simulations of scripts that do not exist'
