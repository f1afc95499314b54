# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Other streams, redirection, assignment forms, arrays and automatic variables."""

from _case import Case

OS = 'about_Output_Streams (reference/5.1)'
RD = 'about_Redirection (reference/5.1)'
AS = 'about_Assignment_Operators (reference/5.1)'
ARR = 'about_Arrays (reference/5.1)'
AV = 'about_Automatic_Variables (reference/5.1)'

CASES = [
    Case('write-host-not-output', "Write-Host 'shown'; 'out'", ['out'],
         source=OS + ': Write-Host writes to the host / Information stream (6), not the success stream'),
    Case('write-warning-verbose-not-output', "Write-Warning 'w'; Write-Verbose 'v'; Write-Debug 'd'; 'out'", ['out'],
         source=OS + ': warning, verbose and debug are separate streams; verbose/debug are off by default'),
    Case('write-host-not-captured', "$r = Write-Host 'x'; $null -eq $r", ['True'],
         source=OS + ': Write-Host output cannot be captured as success output'),
    Case('call-operator-bare-command-name', "& Write-Output a; & 'Write-Output' b; $c = 'Write-Output'; & $c c",
         ['a', 'b', 'c'], source='about_Operators (reference/5.1), call operator &: runs a command given by name, as a '
         'bare word, a string or a variable'),
    Case('redirect-error-to-null', "Write-Error 'gone' 2>$null; 'after'", ['after'],
         source=RD + ': 2>$null discards the error stream'),
    Case('redirect-error-to-success', "Write-Error 'merged' 2>&1 | ForEach-Object { $_.GetType().FullName }",
         ['System.Management.Automation.ErrorRecord'],
         source=RD + ': 2>&1 sends error records to the success stream'),
    Case('errorvariable', "Write-Error 'ev1' -ErrorAction SilentlyContinue -ErrorVariable myErr; $myErr.Count; [string]$myErr[0]",
         ['1', 'ev1'], source='about_CommonParameters -ErrorVariable (reference/5.1): stores the command\'s error records'),
    Case('multiple-assignment', "$a, $b, $c = 1, 2, 3, 4, 5; $a; $c.Count; $c[2]", ['1', '3', '5'],
         source=AS + ' "Assigning multiple variables": the last variable takes the remaining values'),
    Case('multiple-assignment-fewer-values', "$a, $b, $c = 1, 2; $null -eq $c", ['True'],
         source=AS + ' "Assigning multiple variables": missing values leave $null'),
    Case('chained-assignment', "$a = $b = 'three'; $a; $b", ['three', 'three'],
         source=AS + ': chaining assigns one value to several variables'),
    Case('plus-equals-array-append', "$a = @(); $a += 1; $a += 'x'; $a.Count; $a.GetType().FullName", ['2', 'System.Object[]'],
         source=ARR + ': += creates a new array with the element added'),
    Case('plus-equals-string-and-number', "$s = 'a'; $s += 'b'; $s; $n = 1; $n += 2; $n", ['ab', '3'],
         source=AS + ' "The assignment by addition operator": numbers add, strings append'),
    Case('plus-equals-undefined-variable', "$fresh += 10; $fresh", ['10'],
         source='PowerShell/PowerShell issue #11297: += on a variable that does not exist creates it from $null'),
    Case('increment-statement-no-output', "$i = 1; $i++; ++$i; $i", ['3'],
         source=AS + ' "The increment and decrement operators": as a statement, ++ produces no output'),
    Case('increment-in-parens-outputs', "$a = 7; (++$a); ($a++); $a", ['8', '8', '9'],
         source=AS + ': enclosed in parentheses the value is returned (prefix: new value, postfix: old value)'),
    Case('array-slice', "$a = 10, 20, 30, 40; $a[1..2]; $a[0, -1]", ['20', '30', '10', '40'],
         source=ARR + ': a range or list of indexes returns several elements'),
    Case('scalar-index-beyond-null', "$null -eq (2)[1]; (2)[0]", ['True', '2'],
         source='about_Intrinsic_Members "Array indexing scalar types" (reference/5.1): [0] is the object, later indexes $null'),
    Case('array-contains-type-mixed', "$a = 1, 'two', 3.0; $a[1].GetType().FullName; $a[2].GetType().FullName", ['System.String', 'System.Double'],
         source=ARR + ': an array can hold objects of different types'),
    Case('strongly-typed-array-converts', "[int[]]$a = '1', '2'; $a[0].GetType().FullName; $a += '3'; $a.GetType().FullName",
         ['System.Int32', 'System.Int32[]'],
         source=ARR + ': a variable cast as [int[]] can contain only integers (elements convert); '
         'about_Variables: the type attribute stays on the variable, so += keeps Int32[]'),
    Case('psversiontable-51', "$PSVersionTable.PSVersion.Major; $PSVersionTable.PSVersion.Minor; $PSVersionTable.PSEdition", ['5', '1', 'Desktop'],
         source=AV + ' $PSVersionTable / $PSEdition: Windows PowerShell 5.1 is edition Desktop'),
    Case('true-false-null-variables', "$true.GetType().FullName; $false -eq 0; $null -eq $nothing_here", ['System.Boolean', 'True', 'True'],
         source=AV + ' $true/$false/$null; about_Comparison_Operators: 0 converts to $false for comparison'),
    Case('ofs-default-unset', "$null -eq $OFS", ['True'],
         source='about_Preference_Variables $OFS (reference/5.1): $OFS is not defined by default; a space is used'),
    Case('json-escapes-newline-tab', "\"a`nb`tc\" | ConvertTo-Json", ['"a\\nb\\tc"'],
         source='ConvertTo-Json (reference/5.1): control characters are escaped in JSON strings'),
]
