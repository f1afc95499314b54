"""Where a command reads $WhatIfPreference (and the other preference variables), per kind of command, as Windows
PowerShell 5.1 does it (pwsh/commands.py names the sources):

- a compiled cmdlet (New-Item, Set-Content, New-Service...) reads it in its caller's scope chain: MshCommandRuntime's
  WhatIf property (Context.GetBooleanPreference when -WhatIf was not given) and CommandProcessor.Init (a cmdlet runs in
  its caller's scope), PowerShell/PowerShell 60b3b304f2;
- a CDXML cmdlet (NetTCPIP, NetSecurity, ScheduledTasks...) is a function of its module's session state: it reads the
  variable in the global scope, not in its caller's function or script scope (PowerShell/PowerShell#6556, #4568);
- a function of the script (an advanced function) runs in the caller's session state: its $PSCmdlet.ShouldProcess
  reads the variable in its scope chain (about_Functions_CmdletBindingAttribute, about_Scopes);
- a common parameter given to the call (-WhatIf, -WhatIf:$false, -ErrorAction) wins for either kind
  (about_CommonParameters).
A function of a script module is not modelled: no script uses one.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.pwsh import commands, core_cmdlets  # noqa: E402
from kubewin_sim.windows import WindowsHost, filesystem, run_on_node  # noqa: E402
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402

ADD_ROUTE = 'New-NetRoute -DestinationPrefix 10.244.9.0/24 -InterfaceAlias Ethernet -NextHop 10.0.0.29 | Out-Null'
NEW_FILE = "New-Item -Path 'C:\\made.txt' -ItemType File | Out-Null"
IN_A_FUNCTION = ('function Invoke-Change {\n    [CmdletBinding(SupportsShouldProcess)]\n    param()\n    %s\n}\n'
                 'Invoke-Change -WhatIf\n')


def fresh_node():
    return SimNode(initial_state('win1', {'ip': '10.0.0.11'}))


def run(node, text, parameters=None):
    outcome = run_on_node(node, text, parameters)
    assert (outcome.unsupported, outcome.exit_code, outcome.errors) == (None, 0, []), outcome
    return outcome.output


def routes(node):
    return [route['destination'] for route in node.data.get('routes', [])]


def made(node):
    return filesystem.lookup(node, 'C:\\made.txt') is not None


def test_a_compiled_cmdlet_sees_the_whatif_of_the_function_calling_it():
    # "Everything you wanted to know about ShouldProcess" (Scope issues): a built-in cmdlet called from a function
    # with -WhatIf does not act.
    node = fresh_node()
    run(node, IN_A_FUNCTION % NEW_FILE)
    assert not made(node)


def test_a_cdxml_cmdlet_does_not_see_the_whatif_of_the_function_calling_it():
    # PowerShell/PowerShell#6556: Enable-NetFirewallRule in an advanced function called with -WhatIf changes the rule.
    node = fresh_node()
    run(node, IN_A_FUNCTION % ADD_ROUTE)
    assert routes(node) == ['10.244.9.0/24']


def test_a_cdxml_cmdlet_sees_whatif_passed_on_and_a_global_preference():
    node = fresh_node()
    run(node, IN_A_FUNCTION % (ADD_ROUTE.replace(' | Out-Null', ' -WhatIf:$WhatIfPreference | Out-Null')))
    run(node, '$global:WhatIfPreference = $true\n' + ADD_ROUTE)
    assert routes(node) == []


def test_the_script_text_win_powershell_runs_is_dot_sourced_so_cdxml_cmdlets_see_its_whatif():
    # AddScript without useLocalScope: the script's -WhatIf sets $WhatIfPreference in the global scope.
    node = fresh_node()
    script = '[CmdletBinding(SupportsShouldProcess)]\nparam()\n%s\n%s\n' % (ADD_ROUTE, NEW_FILE)
    result = invoke(node, script, check_mode=True, error_action='stop')
    assert (result['failed'], result['error']) == (False, [])
    assert (routes(node), made(node)) == ([], False)


def test_a_script_file_has_a_scope_of_its_own_so_cdxml_cmdlets_miss_its_whatif():
    # AddCommand of a script file runs it in a new scope (CommandDiscovery: useLocalScope ?? true), as does
    # powershell.exe -File: the compiled cmdlet sees the script's -WhatIf, the CDXML one does not.
    node = fresh_node()
    script = '[CmdletBinding(SupportsShouldProcess)]\nparam()\n%s\n%s\n' % (ADD_ROUTE, NEW_FILE)
    filesystem.write_file(node, 'C:\\check.ps1', script.encode('utf-8'))
    result = invoke(node, None, check_mode=True, error_action='stop', path='C:\\check.ps1', remote_src=True)
    assert (result['failed'], result['error']) == (False, [])
    assert (routes(node), made(node)) == (['10.244.9.0/24'], False)


def test_whatif_given_to_a_call_wins_for_either_kind():
    node = fresh_node()
    run(node, NEW_FILE.replace(' | Out-Null', ' -WhatIf | Out-Null'))
    run(node, ADD_ROUTE.replace(' | Out-Null', ' -WhatIf | Out-Null'))
    assert (routes(node), made(node)) == ([], False)
    run(node, IN_A_FUNCTION % NEW_FILE.replace(' | Out-Null', ' -WhatIf:$false | Out-Null'))
    assert made(node)


def test_a_function_of_the_script_sees_its_callers_whatif():
    # A nested advanced function's ShouldProcess reads $WhatIfPreference through the scope chain (about_Scopes).
    text = ('function Test-Inner {\n    [CmdletBinding(SupportsShouldProcess)]\n    param()\n'
            "    $PSCmdlet.ShouldProcess('thing')\n}\n" + IN_A_FUNCTION.replace('Invoke-Change -WhatIf', '') % 'Test-Inner'
            + 'Invoke-Change -WhatIf\nInvoke-Change\n')
    assert run(fresh_node(), text) == ['False', 'True']


def test_a_cdxml_cmdlet_reads_erroractionpreference_in_the_global_scope_too():
    # A script's own 'Stop' (its scope, as under powershell.exe -File) does not reach a CDXML cmdlet: its error does
    # not end the script; a compiled cmdlet's does.
    node = fresh_node()
    cdxml = run_on_node(node, "$ErrorActionPreference = 'Stop'\nGet-NetAdapter -Name nothing\n'went on'")
    assert (cdxml.exit_code, cdxml.output, len(cdxml.errors)) == (0, ['went on'], 1)
    compiled = run_on_node(node, "$ErrorActionPreference = 'Stop'\nGet-Item -LiteralPath C:\\nothing\n'went on'")
    assert (compiled.exit_code, compiled.output, len(compiled.errors)) == (1, [], 1)


def test_every_cmdlet_declares_the_kind_its_reference_page_shows():
    # Cmdletization gives every CDXML function CimSession (CimCmdletAdapter), ThrottleLimit and AsJob
    # (SessionBasedWrapper.cs); a compiled cmdlet has not all three (Get-CimInstance has CimSession only, Hyper-V's
    # cmdlets AsJob and CimSession). The tables come from the reference pages (pwsh/cmdlet_sets).
    node = fresh_node()
    node.data['features'].update({'Hyper-V-PowerShell': 'installed', 'RSAT-RemoteAccess-PowerShell': 'installed'})
    table = dict(core_cmdlets.command_table(), **WindowsHost(node).commands())
    wrong = []
    for cmdlet in {id(c): c for c in table.values()}.values():
        generated = {'CimSession', 'ThrottleLimit', 'AsJob'} <= {parameter.name for parameter in cmdlet.spec.parameters}
        if (cmdlet.kind == commands.CDXML) != generated:
            wrong.append(cmdlet.name)
    assert wrong == []


def test_foreach_object_runs_its_script_blocks_under_whatif():
    # ForEachObjectCommand (engine/InternalCommands.cs, PowerShell/PowerShell 60b3b304f2) declares SupportsShouldProcess
    # but calls ShouldProcess only for -MemberName: its script blocks run whatever $WhatIfPreference says, -WhatIf on
    # the call is the terminating error NoShouldProcessForScriptBlockSet, and -MemberName under -WhatIf does nothing.
    node = fresh_node()
    assert run(node, "$WhatIfPreference = $true; 1, 2 | ForEach-Object { $_ * 2 }") == ['2', '4']
    refused = run_on_node(node, "1 | ForEach-Object { $_ } -WhatIf; 'after'")
    assert (refused.output, refused.errors) == (
        ['after'], ['The -WhatIf and -Confirm parameters are not supported for script blocks.'])
    assert run(node, "'abc' | ForEach-Object -MemberName ToUpper -WhatIf; 'abc' | ForEach-Object -MemberName ToUpper") == [
        'ABC']
