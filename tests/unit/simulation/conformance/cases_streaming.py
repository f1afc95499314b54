# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pipelines stream: one object at a time through every command, so what was written before a failure is kept;
and the two constructs the grammar needed a pre-pass for (issue 28)."""

from _case import Case

PIPE = 'about_Pipelines (reference/5.1): objects are sent down the pipeline one at a time'
FUN = 'about_Functions (reference/5.1) "Piping Objects to Functions"'
SEL = ('Select-Object (reference/5.1/Microsoft.PowerShell.Utility/Select-Object.md), -First: "stops processing '
       'after the specified number of objects" (StopUpstreamCommandsException in SelectObjectCommand, 3.0 and later)')
BRK = 'about_Break (reference/5.1)'

CASES = [
    Case('stream-kept-before-throw', "try { 1..5 | ForEach-Object { $_; if ($_ -eq 2) { throw 'x' } } } catch { 'caught' }",
         ['1', '2', 'caught'], source=PIPE + '; about_Try_Catch_Finally: output written before the error is kept'),
    Case('stream-reaches-next-command-before-throw',
         "try { 1, 2, 3 | ForEach-Object { if ($_ -eq 2) { throw 'x' }; $_ } | ForEach-Object { $_ * 10 } } "
         "catch { 'caught' }", ['10', 'caught'],
         source=PIPE + ': the first object reached the second command before the first failed on the second object'),
    Case('stream-kept-before-break', "foreach ($i in 1) { 1..5 | ForEach-Object { if ($_ -eq 3) { break }; $_ } }; 'after'",
         ['1', '2', 'after'], source=BRK + ': break in a ForEach-Object script block ends the enclosing loop'),
    Case('stream-function-kept-before-throw',
         "function f { process { $_; if ($_ -eq 2) { throw 'stop' } } }; try { 1..4 | f } catch { $_.Exception.Message }",
         ['1', '2', 'stop'], source=FUN + ': the process block runs once per object, its output goes on at once'),
    Case('stream-interleaves-commands',
         "$log = @(); 1, 2 | ForEach-Object { $log += \"a$_\"; $_ } | ForEach-Object { $log += \"b$_\" }; $log -join ','",
         ['a1,b1,a2,b2'],
         source=PIPE + ': each object goes through the whole pipeline before the next one starts (ForEach-Object '
                       'blocks run in the caller\'s scope)'),
    Case('stream-begin-blocks-in-order',
         "$log = @(); function a { begin { $script:log += 'begin-a' } process { $_ } }; "
         "function b { begin { $script:log += 'begin-b' } process { $script:log += \"b$_\" } }; 1 | a | b; $log -join ','",
         ['begin-a,begin-b,b1'], source=FUN + ': every begin block runs before any object is processed, in pipeline '
                                              'order'),
    Case('stream-select-first-stops-upstream',
         "$n = 0; 1..10 | ForEach-Object { $n++; $_ } | Select-Object -First 2; $n", ['1', '2', '2'], source=SEL),
    Case('stream-select-first-upstream-end-skipped',
         "1..5 | ForEach-Object -Process { $_ } -End { 'end' } | Select-Object -First 2", ['1', '2'], source=SEL),
    Case('stream-select-first-downstream-ends', "(1..5 | Select-Object -First 3 | Measure-Object).Count", ['3'],
         source=SEL + ': the commands after Select-Object end normally'),
    Case('stream-return-in-process-ends-object-only',
         "function f { process { if ($_ -eq 2) { return }; $_ } }; 1, 2, 3 | f", ['1', '3'],
         source='about_Return (reference/5.1): return exits the current scope, in a process block the processing of '
                'the current object'),
    Case('break-outside-loop-ends-quietly', "'a'; break; 'b'", ['a'],
         source=BRK + ' "Do not use break outside of a loop, switch, or trap": the runspace is quietly terminated'),
    Case('param-block-same-line-as-body', 'function f { param($A, $B) "$A-$B" }; f 1 2', ['1-2'],
         source='about_Functions (reference/5.1): a param block followed by the statements of the body; whitespace '
                'between them is free'),
    Case('param-block-same-line-script-block', '& { param($x) $x * 2 } 4', ['8'],
         source='about_Script_Blocks (reference/5.1): a script block with a param block, arguments by position'),
    Case('switch-default-same-line', "switch (2) { 1 { 'one' } default { 'other' } }", ['other'],
         source='about_Switch (reference/5.1): clauses follow one another; default runs when no condition matched'),
    Case('param-block-same-line-error-line',
         "function f { param($a)\n'x' }\nfunction g { param($b) throw 'y' }\ntry { g } catch { $_.ScriptStackTrace }",
         ['at <ScriptBlock>, <No file>: line 3'],
         source='about_Throw (reference/5.1): the error record locates the throw statement (line 3 of the text)'),
]
