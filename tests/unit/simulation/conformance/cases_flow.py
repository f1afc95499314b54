# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Flow control: if, switch, loops, break and continue."""

from _case import Case

IF = 'about_If (reference/5.1)'
SW = 'about_Switch (reference/5.1)'
DSW = 'deep-dives/everything-about-switch (docs-conceptual)'
BRK = 'about_Break (reference/5.1)'
CNT = 'about_Continue (reference/5.1)'

CASES = [
    Case('if-elseif-else', "$n = 5; if ($n -lt 3) { 'low' } elseif ($n -lt 7) { 'mid' } else { 'high' }", ['mid'],
         source=IF + ': the first true condition runs its block'),
    Case('if-as-value', "$r = if ($true) { 'yes' } else { 'no' }; $r", ['yes'],
         source=IF + ' + about_Assignment_Operators: the output of an if statement can be assigned'),
    Case('switch-case-insensitive', "switch ('ABC') { 'abc' { 'hit' } }", ['hit'],
         source=SW + ': string matching is case-insensitive by default'),
    Case('switch-casesensitive', "switch -CaseSensitive ('ABC') { 'abc' { 'lower' } 'ABC' { 'upper' } }", ['upper'],
         source=SW + ': -CaseSensitive'),
    Case('switch-default', "switch ('zzz') { 'a' { 'A' }\ndefault { 'other' } }", ['other'],
         source=SW + ': default runs when no other condition matches'),
    Case('switch-regex-and-matches', "switch -Regex ('v1.28') { '^v(\\d+)\\.(\\d+)$' { $Matches[2] } }", ['28'],
         source=SW + ' -Regex: $Matches is set in the clause'),
    Case('switch-wildcard', "switch -Wildcard ('kubelet.exe') { 'kube*' { 'w1' } '*.EXE' { 'w2' } }", ['w1', 'w2'],
         source=SW + ' -Wildcard: every matching clause runs'),
    Case('switch-all-matches-run', "switch (1) { 1 { 'a' } 1 { 'b' } }", ['a', 'b'],
         source=SW + ': all matching clauses run unless break/continue'),
    Case('switch-array-iterates', "switch (1, 2, 3) { 2 { 'two' }\ndefault { \"d$_\" } }", ['d1', 'two', 'd3'],
         source=SW + ': a collection input is processed one element at a time'),
    Case('switch-break', "switch (1, 2, 3) { 2 { 'two'; break }\ndefault { \"d$_\" } }", ['d1', 'two'],
         source=SW + ': break stops processing and exits the switch'),
    Case('switch-continue', "switch (1, 2, 3) { 2 { continue } { $true } { \"v$_\" } }", ['v1', 'v3'],
         source=SW + ': continue stops processing the current value and moves to the next'),
    Case('switch-scriptblock-condition', "switch (7) { { $_ -gt 5 } { 'big' } { $_ -gt 100 } { 'huge' } }", ['big'],
         source=SW + ': a script block condition is evaluated with $_'),
    Case('switch-null-clause', "switch ('', $null) { $null { 'N' } { '' -eq $_ } { 'E' } }", ['E', 'N'],
         source=DSW + ' "$null": a $null condition matches only $null, not the empty string'),
    Case('switch-value-assigned', "$r = switch ('b') { 'a' { 1 } 'b' { 2 } }; $r", ['2'],
         source=DSW + ': the output of switch can be assigned'),
    Case('switch-exact-not-wildcard', "switch ('kube*') { 'kubelet' { 'no' } 'kube*' { 'exact' } }", ['exact'],
         source=SW + ': without -Wildcard/-Regex conditions are compared for equality'),
    Case('for-loop', "for ($i = 0; $i -lt 3; $i++) { $i }", ['0', '1', '2'], source='about_For (reference/5.1)'),
    Case('while-loop', "$i = 0; while ($i -lt 3) { $i; $i++ }", ['0', '1', '2'], source='about_While (reference/5.1)'),
    Case('do-while-runs-once', "$i = 10; do { \"run $i\" } while ($i -lt 3)", ['run 10'],
         source='about_Do (reference/5.1): the body of do/while runs at least once'),
    Case('do-until', "$i = 0; do { $i++ } until ($i -ge 3); $i", ['3'],
         source='about_Do (reference/5.1): do/until loops until the condition is true'),
    Case('foreach-statement', "foreach ($s in 'a', 'b') { $s.ToUpper() }", ['A', 'B'], source='about_Foreach (reference/5.1)'),
    Case('foreach-scalar-one-iteration', "foreach ($s in 'only') { \"[$s]\" }", ['[only]'],
         source='about_Foreach (reference/5.1): a single item is iterated once'),
    Case('break-in-loop', "foreach ($i in 1..5) { if ($i -eq 3) { break }; $i }; 'after'", ['1', '2', 'after'],
         source=BRK + ': break exits the innermost loop'),
    Case('continue-in-loop', "foreach ($i in 1..4) { if ($i % 2) { continue }; $i }", ['2', '4'],
         source=CNT + ': continue goes to the next iteration'),
    Case('break-in-switch-inside-loop', "foreach ($i in 1..2) { switch ($i) { 1 { 'one'; break } } ; \"after$i\" }",
         ['one', 'after1', 'after2'],
         source=SW + ' + ' + BRK + ': break inside switch only exits the switch'),
    Case('while-break', "$i = 0; while ($true) { $i++; if ($i -ge 3) { break } }; $i", ['3'],
         source=BRK + ': break ends an infinite while loop'),
]
