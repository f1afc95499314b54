# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values at the edges that the fuzz test found crashing the engine (issue 28), as Windows PowerShell 5.1 has them."""

from _case import Case

CASES = [
    Case('bnot-null-is-complement-of-zero', "-bnot $null; -bnot 5; (-bnot [uint32]5).GetType().Name", ['-1', '-6', 'UInt32'],
         source='about_Arithmetic_Operators (reference/5.1) bitwise NOT, "-bNot 10 is -11"; $null is 0 in arithmetic '
                '(deep-dives/everything-about-null); Binders.cs GetBitwiseOpType keeps a UInt32 unsigned'),
    Case('compare-number-to-empty-string', "1 -gt ''; 0 -lt ''", ['True', 'False'],
         source='about_Comparison_Operators (reference/5.1): the right operand is converted to the left\'s type; an '
                'empty string converts to 0 (about_Type_Conversion)'),
    Case('compare-switch-not-comparable', "[switch]$true -gt $false; 'after'", ['after'],
         errors=['Cannot compare "True" because it is not IComparable.'],
         source='about_Comparison_Operators (reference/5.1): ordering needs IComparable; SwitchParameter is not'),
    Case('like-empty-bracket-pattern', "'a' -like 'x[]'; 'after'", ['after'],
         errors=['The specified wildcard character pattern is not valid: x[]'],
         source='about_Wildcards (reference/5.1): [ ] holds a range or set of characters; an empty one is not a '
                'pattern (WildcardPatternException)'),
    Case('error-list-keeps-256', "1..300 | ForEach-Object { Write-Error \"e$_\" -ErrorAction SilentlyContinue }; "
                                 "$Error.Count; \"$($Error[0])\"", ['256', 'e300'],
         source='about_Preference_Variables (reference/5.1) $MaximumErrorCount: 256 by default; '
                'about_Automatic_Variables $Error: the most recent error first'),
    Case('break-in-function-outside-loop-ends-script', "function f { 'in'; break }; f; 'never'", ['in'],
         source='about_Break (reference/5.1): break with no enclosing loop looks up the call stack and quietly ends '
                'the runspace'),
]
