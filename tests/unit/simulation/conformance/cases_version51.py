# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where Windows PowerShell 5.1 differs from PowerShell 7: syntax 5.1 rejects, and 5.1-only binding and .NET behaviour.

A parse error stops the whole text before anything runs (script-terminating, exit code 1).
"""

from _case import Case

DIFF = 'docs-conceptual/whats-new/differences-from-windows-powershell'

CASES = [
    Case('no-pipeline-chain-and-51', "'first'; 'a' && 'b'", [],
         errors=["The token '&&' is not a valid statement separator in this version."], exit_code=1,
         source='about_Pipeline_Chain_Operators (reference/7.4): && and || exist only beginning in PowerShell 7; '
                '5.1 reports a parse error (InvalidEndOfLine), so nothing runs'),
    Case('no-pipeline-chain-or-51', "'first'; 'a' || 'b'", [],
         errors=["The token '||' is not a valid statement separator in this version."], exit_code=1,
         source='about_Pipeline_Chain_Operators (reference/7.4): || is PowerShell 7 only; parse error in 5.1'),
    Case('no-ternary-51', "'first'; $x = $true ? 'a' : 'b'", [],
         errors=['Unexpected token'], exit_code=1,
         source='about_If (reference/7.4): PowerShell 7.0 introduced the ternary operator; 5.1 cannot parse it'),
    Case('no-null-coalescing-51', "'first'; $x = $null ?? 'd'", [],
         errors=['Unexpected token'], exit_code=1,
         source=DIFF + ' "Null-coalescing operator ??": added in PowerShell 7; 5.1 cannot parse it'),
    Case('string-split-method-chars-51', "$p = '1111p2222q3333'.Split('pq'); $p.Count; $p[1]", ['3', '2222'],
         source=DIFF + ' "Be aware of .NET method changes": in 5.1 a string argument binds Split(char[]) and splits '
         'at any of its characters (7 binds Split(string))'),
    Case('string-split-method-multichar-51', "'a--b'.Split('--').Count", ['3'],
         source=DIFF + ': 5.1 has no Split(string) overload; "--" is the character set {-}, giving a, empty, b'),
    Case('pscustomobject-no-length-51', "$o = [pscustomobject]@{foo = 1}; $null -eq $o.Length",
         ['True'],
         source=DIFF + ' "New methods/properties on PSCustomObject": Count/Length were added in 7; '
         'about_Arrays (reference/5.1) note: absent in Windows PowerShell'),
    Case('group-object-first-appearance-order-51', "('b', 'a', 'b' | Group-Object | ForEach-Object { $_.Name }) -join ','", ['b,a'],
         source=DIFF + ' "Group-Object now sorts the groups": only PowerShell 7 sorts; 5.1 keeps first-appearance order'),
]
