# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""[pscustomobject], member enumeration, and the object cmdlets Select/Sort/Where/ForEach/Measure."""

from _case import Case

PSCO = 'about_PSCustomObject (reference/5.1)'
MAE = 'about_Member-Access_Enumeration (reference/5.1)'
SEL = 'Select-Object (reference/5.1/Microsoft.PowerShell.Utility/Select-Object.md)'
SORT = 'Sort-Object (reference/5.1/Microsoft.PowerShell.Utility/Sort-Object.md)'
WH = 'Where-Object (reference/5.1/Microsoft.PowerShell.Core/Where-Object.md)'
FE = 'ForEach-Object (reference/5.1/Microsoft.PowerShell.Core/ForEach-Object.md)'
MO = 'Measure-Object (reference/5.1/Microsoft.PowerShell.Utility/Measure-Object.md)'
ARR = 'about_Arrays (reference/5.1)'

TWO = "$a = [pscustomobject]@{Name = 'x'; N = 2}; $b = [pscustomobject]@{Name = 'y'; N = 1}; "

CASES = [
    Case('pscustomobject-type', "([pscustomobject]@{a = 1}).GetType().FullName",
         ['System.Management.Automation.PSCustomObject'], source=PSCO + ': the cast creates a PSCustomObject'),
    Case('pscustomobject-string-form', "[pscustomobject]@{a = 1; b = 'x'}", ['@{a=1; b=x}'],
         source=PSCO + ': a custom object renders as @{name=value; ...} in string form'),
    Case('pscustomobject-property-order', "$o = [pscustomobject]@{z = 1; a = 2; m = 3}; ($o.PSObject.Properties | ForEach-Object { $_.Name }) -join ','",
         ['z,a,m'],
         source=PSCO + ': casting a literal hashtable to [pscustomobject] keeps the written order'),
    Case('pscustomobject-properties-values', "$o = [pscustomobject]@{a = 1; b = 2}; ($o.PSObject.Properties | ForEach-Object { $_.Value }) -join ','",
         ['1,2'], source=PSCO + ': PSObject.Properties exposes Name and Value'),
    Case('pscustomobject-missing-property-null', "$o = [pscustomobject]@{a = 1}; $null -eq $o.nope", ['True'],
         source='about_Properties (reference/5.1): a property that does not exist reads as $null (strict mode off)'),
    Case('pscustomobject-set-property', "$o = [pscustomobject]@{a = 1}; $o.a = 5; $o.a", ['5'],
         source=PSCO + ': note properties can be assigned'),
    Case('pscustomobject-add-member', "$o = [pscustomobject]@{a = 1}; $o | Add-Member -NotePropertyName b -NotePropertyValue 2; $o.b; $o",
         ['2', '@{a=1; b=2}'],
         source=PSCO + ': Add-Member adds a note property at the end'),
    Case('pscustomobject-set-missing-property-error', "$o = [pscustomobject]@{a = 1}; $o.b = 2; 'after'", ['after'],
         errors=["The property 'b' cannot be found on this object."],
         source='about_Properties (reference/5.1): assigning a property the object does not have is an error'),
    Case('member-enumeration', TWO + "@($a, $b).Name -join ','", ['x,y'],
         source=MAE + ': accessing a member on a collection returns that member of each element'),
    Case('member-enumeration-single-element', TWO + "@($a).Name.GetType().FullName", ['System.String'],
         source=MAE + ': with one element the result is the scalar value'),
    Case('member-enumeration-method', "('a', 'b').ToUpper() -join ','", ['A,B'],
         source=MAE + ': methods are also invoked on each element (since 3.0)'),
    Case('select-property-object', TWO + "$a | Select-Object -Property Name", ['@{Name=x}'],
         source=SEL + ': -Property creates a new object with only the named properties'),
    Case('select-expandproperty', TWO + "$a, $b | Select-Object -ExpandProperty Name", ['x', 'y'],
         source=SEL + ': -ExpandProperty outputs the property values themselves'),
    Case('select-first-last-skip', "1..5 | Select-Object -First 2; 1..5 | Select-Object -Last 2; 1..5 | Select-Object -Skip 3",
         ['1', '2', '4', '5', '4', '5'], source=SEL + ': -First, -Last, -Skip'),
    Case('select-calculated-property', TWO + "($a | Select-Object -Property @{Name = 'Twice'; Expression = { $_.N * 2 }}).Twice",
         ['4'], source='about_Calculated_Properties (reference/5.1): Name/Expression hashtable'),
    Case('select-unique-case-sensitive', "@('a', 'A', 'a' | Select-Object -Unique).Count", ['2'],
         source='about_Case-Sensitivity (reference/5.1): Select-Object -Unique is case-sensitive'),
    Case('sort-unique-case-insensitive', "@('a', 'b', 'A' | Sort-Object -Unique).Count", ['2'],
         source='about_Case-Sensitivity + ' + SORT + ': Sort-Object -Unique is case-insensitive'),
    Case('sort-default-ascending', "3, 1, 2 | Sort-Object; 'b', 'C', 'a' | Sort-Object", ['1', '2', '3', 'a', 'b', 'C'],
         source=SORT + ': ascending, not case-sensitive by default'),
    Case('sort-descending', "3, 1, 2 | Sort-Object -Descending", ['3', '2', '1'], source=SORT + ': -Descending'),
    Case('sort-strings-are-text', "'10', '9', '1' | Sort-Object", ['1', '10', '9'],
         source=SORT + ': strings sort as text, not numbers'),
    Case('sort-is-unstable', "(@(1..9) | Sort-Object { 1 }) -join ' '", ['7 6 9 8 5 2 1 4 3'],
         source=SORT + ' has no -Stable in 5.1; List<T>.Sort (.NET API reference: "performs an unstable sort") of .NET '
         'Framework leaves equal items so (PowerShell/PowerShell#20596, 5.1.19041)'),
    Case('sort-two-equal-items-swap', TWO + "($a, $b | Sort-Object -Property { 0 } | ForEach-Object { $_.Name }) -join ','",
         ['y,x'], source='the same quicksort on two equal items (PowerShell/PowerShell#20596\'s order)'),
    Case('sort-by-property', TWO + "($a, $b | Sort-Object -Property N | ForEach-Object { $_.Name }) -join ','", ['y,x'],
         source=SORT + ': -Property sorts by a property value'),
    Case('where-scriptblock', "1..5 | Where-Object { $_ -gt 3 }", ['4', '5'], source=WH + ': FilterScript with $_'),
    Case('where-simplified-syntax', TWO + "($a, $b | Where-Object Name -eq 'y').N; ($a, $b | Where-Object N -gt 1).Name",
         ['1', 'x'], source=WH + ': comparison-statement syntax "Where-Object Property -eq Value" (3.0+)'),
    Case('where-none-is-empty', "$r = 1..3 | Where-Object { $_ -gt 5 }; $null -eq $r; @($r).Count", ['True', '0'],
         source=WH + ' + about_Arrays: no match produces no output'),
    Case('foreach-object-dollar-underscore', "1..3 | ForEach-Object { $_ * 2 }", ['2', '4', '6'],
         source=FE + ': $_ is the current input object'),
    Case('foreach-object-membername', "'a', 'b' | ForEach-Object ToUpper", ['A', 'B'],
         source=FE + ': -MemberName calls a method or gets a property of each object'),
    Case('foreach-object-begin-end', "1, 2 | ForEach-Object -Begin { 'start' } -Process { $_ } -End { 'end' }",
         ['start', '1', '2', 'end'], source=FE + ': -Begin, -Process, -End'),
    Case('measure-count-sum', "$m = 1, 2, 3 | Measure-Object -Sum -Maximum -Minimum -Average; $m.Count; $m.Sum; $m.Maximum; $m.Minimum; $m.Average",
         ['3', '6', '3', '1', '2'], source=MO + ': Count, Sum, Maximum, Minimum, Average'),
    Case('measure-property', TWO + "($a, $b | Measure-Object -Property N -Sum).Sum", ['3'],
         source=MO + ': -Property measures a property of each object'),
    Case('where-method', "(1..5).Where({ $_ -gt 3 }).Count; (1..5).Where({ $_ -gt 1 }, 'First')", ['2', '2'],
         source=ARR + ' "Where()": filters; the First mode returns the first match'),
    Case('foreach-method', "(1, 2).ForEach({ $_ + 1 })", ['2', '3'], source=ARR + ' "ForEach()"'),
    Case('group-object-count', "('a', 'b', 'a' | Group-Object | Sort-Object -Property Name | ForEach-Object { \"$($_.Name):$($_.Count)\" }) -join ','",
         ['a:2,b:1'], source='Group-Object (reference/5.1): groups by value with Name and Count'),
]
