# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Script blocks, scopes, functions and advanced functions (parameter binding and validation)."""

from _case import Case

SB = 'about_Script_Blocks (reference/5.1)'
SC = 'about_Scopes (reference/5.1)'
FN = 'about_Functions (reference/5.1)'
ADV = 'about_Functions_Advanced_Parameters (reference/5.1)'
CB = 'about_Functions_CmdletBindingAttribute (reference/5.1)'
SPL = 'about_Splatting (reference/5.1)'
AV = 'about_Automatic_Variables (reference/5.1)'

CASES = [
    Case('call-operator-scriptblock', "& { 'in' }; & { param($x) $x * 2 } 4", ['in', '8'],
         source=SB + ': & invokes a script block, with a param block and arguments'),
    Case('scriptblock-args', "$sb = { $args[0] + $args[1]; $args.Count }; & $sb 1 2", ['3', '2'],
         source=AV + ' $args: unbound arguments of a script block'),
    Case('scriptblock-dynamic-scope', "$x = 1; $sb = { $x }; $x = 2; & $sb", ['2'],
         source=SC + ': a script block reads the variable of the calling scope at run time, it does not capture it'),
    Case('call-operator-child-scope', "& { $y = 5 }; $null -eq $y", ['True'],
         source=SC + ': & runs the block in a child scope; its variables disappear'),
    Case('dot-source-current-scope', ". { $y = 5 }; $y", ['5'],
         source=SC + ' "Dot source notation": the block runs in the current scope'),
    Case('function-reads-parent-variable', "$v = 'p'; function f { $v }; f", ['p'],
         source=SC + ': items of the parent scope are visible in a child scope'),
    Case('function-assign-does-not-change-caller', "$v = 1; function f { $v = 2; $v }; f; $v", ['2', '1'],
         source=SC + ': assignment in a child scope creates a local variable; the parent keeps its value'),
    Case('function-script-scope-modifier', "$v = 1; function f { $script:v = 2 }; f; $v", ['2'],
         source=SC + ' "Scope modifiers": $script: writes the script-scope variable'),
    Case('compound-assignment-no-dynamic-scope', "$x = 1; & { $x += 1; $x }; $x", ['1', '1'],
         source='about_Assignment_Operators (reference/5.1) "Using compound assignment operators": += does not use dynamic '
                'scoping, the child-scope $x starts empty (since v3; PowerShell/PowerShell issues #11297, #17911)'),
    Case('compound-assignment-in-function', "$total = 10; function f { $total += 5; $total }; f; $total", ['5', '10'],
         source='about_Assignment_Operators (reference/5.1): compound assignment always acts on the current scope'),
    Case('plain-assignment-reads-parent', "$x = 1; & { $x = $x + 1; $x }; \"g=$x\"", ['2', 'g=1'],
         source='about_Assignment_Operators (reference/5.1): $x = $x + 1 reads the parent value, writes a local copy'),
    Case('foreach-object-runs-in-caller-scope', "$n = 0; 1..3 | ForEach-Object { $n += 1 }; $n", ['3'],
         source='ForEach-Object (reference/5.1) note: the scriptblocks run in the caller\'s scope'),
    Case('scriptblock-invoke-method', "$sb = { param($a) $a + 1 }; $sb.Invoke(1)", ['2'],
         source=SB + ': Invoke() method runs the script block'),
    Case('function-args', "function f { $args.Count; $args[1] }; f a b c", ['3', 'b'],
         source=FN + ': a simple function without param receives its arguments in $args'),
    Case('function-param-default', "function f { param($n = 'def')\n$n }; f; f -n x", ['def', 'x'],
         source=FN + ' "Parameter default values"'),
    Case('function-named-params-in-parens', "function f($a, $b) { \"$a-$b\" }; f 1 2; f -b 2 -a 1", ['1-2', '1-2'],
         source=FN + ': parameters in parentheses after the name; positional and named binding'),
    Case('function-positional-order', "function f { param($First, $Second)\n\"$First/$Second\" }; f x y", ['x/y'],
         source=CB + ' PositionalBinding: positions follow declaration order'),
    Case('function-param-prefix', "function f { param($Name)\n$Name }; f -Na x; f -NAME y", ['x', 'y'],
         source=CB + ': the parameter name, an alias or an abbreviation (unique prefix), case-insensitive'),
    Case('function-param-prefix-ambiguous', "function f { param($Name, $Namespace)\n$Name }; f -Nam x; 'after'", ['after'],
         errors=["Parameter cannot be processed because the parameter name 'Nam' is ambiguous."],
         source='about_Parameters (reference/5.1): an abbreviation must be unique; ambiguous prefixes are an error'),
    Case('function-typed-param-converts', "function f { param([int]$n)\n$n.GetType().FullName; $n + 1 }; f '41'",
         ['System.Int32', '42'], source=FN + ': typed parameters convert their argument'),
    Case('function-typed-param-bad-value', "function f { param([int]$n)\n$n }; f 'abc'; 'after'", ['after'],
         errors=["Cannot process argument transformation on parameter 'n'"],
         source=FN + ': an argument that cannot convert to the parameter type is a binding error'),
    Case('switch-parameter', "function f { param([switch]$Force)\n$Force.IsPresent; [bool]$Force }; f; f -Force; f -Force:$false",
         ['False', 'False', 'True', 'True', 'False', 'False'],
         source=ADV + ' "Switch parameters": present -> $true; -Force:$false passes false'),
    Case('mandatory-missing-noninteractive',
         "function f { param([Parameter(Mandatory)]$Name)\n$Name }; f; 'after'", ['after'],
         errors=['Cannot process command because of one or more missing mandatory parameters: Name.'],
         source=ADV + ' Mandatory + about_PowerShell_exe -NonInteractive: a missing mandatory argument cannot be prompted for'),
    Case('mandatory-given', "function f { param([Parameter(Mandatory = $true)][string]$Name)\n\"hi $Name\" }; f -Name x", ['hi x'],
         source=ADV + ' "Mandatory argument"'),
    Case('validateset-case-insensitive', "function f { param([ValidateSet('Red', 'Blue')]$c)\n$c }; f -c red", ['red'],
         source=ADV + ' "ValidateSet attribute": comparison ignores case (IgnoreCase defaults to true); value kept as passed'),
    Case('validateset-rejects', "function f { param([ValidateSet('Red', 'Blue')]$c)\n$c }; f -c green; 'after'", ['after'],
         errors=["Cannot validate argument on parameter 'c'. The argument \"green\" does not belong to the set \"Red,Blue\""],
         source=ADV + ' "ValidateSet attribute": a value outside the set fails parameter binding'),
    Case('validatepattern', "function f { param([ValidatePattern('^\\d+$')]$v)\n\"ok $v\" }; f 12; f 'a1'; 'after'",
         ['ok 12', 'after'],
         errors=["Cannot validate argument on parameter 'v'."],
         source=ADV + ' "ValidatePattern validation attribute": the argument must match the regex'),
    Case('validatepattern-unanchored', "function f { param([ValidatePattern('[0-9]{4}')]$v)\n\"ok $v\" }; f 'pc-2019'; f 'pc-19'; 'after'",
         ['ok pc-2019', 'after'],
         errors=["Cannot validate argument on parameter 'v'."],
         source=ADV + ' "ValidatePattern validation attribute": its example "[0-9]{4}" asks that the value contain four '
         'digits, anywhere (Regex.IsMatch), and "^[0-9]{4}$" for exactly four'),
    Case('validatepattern-ignores-case', "function f { param([ValidatePattern('^[a-f]+$')]$v)\n\"ok $v\" }; f 'BEEF'",
         ['ok BEEF'],
         source='System.Management.Automation.ValidatePatternAttribute (.NET API reference): Options defaults to '
         'RegexOptions.IgnoreCase'),
    Case('validatepattern-dotnet-syntax', "function f { param([ValidatePattern('^(?<major>\\d+)\\.\\d+$')]$v)\n\"ok $v\" }; f '1.29'",
         ['ok 1.29'],
         source=ADV + ' "ValidatePattern validation attribute": the pattern is a .NET regular expression (named group '
         'syntax (?<name>...))'),
    Case('validaterange', "function f { param([ValidateRange(1, 10)][int]$n)\n$n }; f 5; f 11; 'after'", ['5', 'after'],
         errors=["Cannot validate argument on parameter 'n'."],
         source=ADV + ' "ValidateRange validation attribute"'),
    Case('validatenotnullorempty', "function f { param([ValidateNotNullOrEmpty()]$s)\n$s }; f ''; 'after'", ['after'],
         errors=["Cannot validate argument on parameter 's'."],
         source=ADV + ' "ValidateNotNullOrEmpty validation attribute"'),
    Case('splat-hashtable', "function f { param($a, $b)\n\"$a-$b\" }; $p = @{b = 2; a = 1}; f @p", ['1-2'],
         source=SPL + ': a hashtable splats as named parameters'),
    Case('splat-array', "function f { param($a, $b)\n\"$a-$b\" }; $p = 1, 2; f @p", ['1-2'],
         source=SPL + ': an array splats as positional arguments'),
    Case('splat-plus-named', "function f { param($a, $b)\n\"$a-$b\" }; $p = @{a = 1}; f @p -b 3", ['1-3'],
         source=SPL + ': splatting combines with other parameters'),
    Case('splat-switch', "function f { param([switch]$s)\n$s.IsPresent }; $p = @{s = $true}; f @p", ['True'],
         source=SPL + ': a switch is splatted with $true'),
    Case('psboundparameters', "function f { param($a, $b = 5)\n$PSBoundParameters.ContainsKey('a'); "
         "$PSBoundParameters.ContainsKey('b'); $PSBoundParameters.Count }; f -a 1",
         ['True', 'False', '1'],
         source=AV + ' $PSBoundParameters: only parameters actually passed; defaults are not included'),
    Case('cmdletbinding-unknown-parameter', "function f { [CmdletBinding()] param($a)\n$a }; f -zz 1; 'after'", ['after'],
         errors=["A parameter cannot be found that matches parameter name 'zz'."],
         source=CB + ': an advanced function rejects parameters it does not declare'),
    Case('cmdletbinding-extra-positional', "function f { [CmdletBinding()] param($a)\n$a }; f 1 2; 'after'", ['after'],
         errors=["A positional parameter cannot be found that accepts argument '2'."],
         source=CB + ': an advanced function has no $args; surplus positional arguments are an error'),
    Case('shouldprocess-whatif', "function f { [CmdletBinding(SupportsShouldProcess)] param()\n"
         "if ($PSCmdlet.ShouldProcess('target')) { 'did' } else { 'skipped' } }; f -WhatIf; f",
         ['skipped', 'did'],
         source='deep-dives/everything-about-shouldprocess (docs-conceptual): ShouldProcess returns $false under -WhatIf '
                '(the "What if:" line goes to the host, not the output)'),
    Case('shouldprocess-whatifpreference-flows', "function g { [CmdletBinding(SupportsShouldProcess)] param()\n$WhatIfPreference }; g -WhatIf; g",
         ['True', 'False'],
         source='about_Preference_Variables $WhatIfPreference (reference/5.1): -WhatIf sets $WhatIfPreference in the function'),
    Case('function-output-collected', "function f { 'a'; 'b' }; $r = f; $r.GetType().FullName; $r.Count", ['System.Object[]', '2'],
         source=FN + ': all output of a function is collected; several objects make an array'),
    Case('function-recursion', "function fact($n) { if ($n -le 1) { 1 } else { $n * (fact ($n - 1)) } }; fact 5", ['120'],
         source=FN + ': functions can call themselves'),
    Case('command-argument-mode-string', "function f { param($x)\n$x.GetType().FullName }; "
         "f 42; f abc; f 1.5", ['System.Int32', 'System.String', 'System.Double'],
         source='about_Parsing (reference/5.1) "Argument mode": number-like unquoted arguments are numbers, others strings'),
    Case('unbound-typed-parameters', "function f { param([string]$s, [int]$n, [string[]]$a, [securestring]$p)\n"
         "$null -eq $s; $s -eq ''; $n; $null -eq $a; $null -eq $p }; f", ['False', 'True', '0', 'True', 'True'],
         source='PowerShell issue 4616 ([string] parameters are never $null: an unbound one holds the empty string); '
                + ADV + ': an unbound parameter of a value type holds its default, others $null'),
    Case('argument-mode-method-call', "$s = '  x  '; function f { param($Text)\n'[' + $Text + ']' }; f -Text $s.Trim(); "
         "f $s.Replace(' ', '-'); f -Text:$s.Length",
         ['[x]', '[--x--]', '[5]'],
         source='about_Parsing (reference/5.1) "Argument mode": "The variable reference can include member access", '
                'a method call included'),
]
