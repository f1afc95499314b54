# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What Windows PowerShell 5.1 does with a member, type, overload, conversion or cmdlet that does not exist; and the
engine's refusal (exit code 2, never catchable) of one that exists on Windows and that it does not model.

The sources of "exists on Windows": the .NET Framework 4.8 source (microsoft/referencesource) for .NET members, the
type accelerators of PowerShell's TypeResolver.cs, the cmdlet reference pages (kubewin_sim/pwsh/netmembers,
cmdlet_names.json). The rule: tests/simulation/README.md, "What the engine refuses".
"""

from _case import Case

STRICT = 'Set-StrictMode (reference/5.1/Microsoft.PowerShell.Core/Set-StrictMode.md): with strict mode off, ' \
         '"References to non-existent properties return $null"'
ENUM = 'about_Member-Access_Enumeration (reference/5.1)'
METHOD = 'about_Methods (reference/5.1)'
CONV = 'about_Type_Conversion (reference/5.1), "String type conversion"'
INTRINSIC = 'about_Intrinsic_Members (reference/5.1)'
RULE = 'tests/simulation/README.md "What the engine refuses": '
NETFX = 'microsoft/referencesource (.NET Framework 4.8) '
ACCELERATORS = 'PowerShell/PowerShell 60b3b304f2 engine/parser/TypeResolver.cs (the 5.1 type accelerators)'
TYPE_NOT_FOUND = 'about_Type_Accelerators / about_Type_Conversion (reference/5.1): a name no loaded assembly defines ' \
                 'is "Unable to find type"'

CASES = [
    # -- PowerShell's own behaviour for what a type does not have --------------------------------------------------
    Case('missing-property-of-pscustomobject-is-null', "$o = [pscustomobject]@{ a = 1 }; $null -eq $o.b; $o.a",
         ['True', '1'], source=STRICT + '; about_PSCustomObject: note properties are the object\'s properties'),
    Case('missing-key-of-hashtable-is-null', "$h = @{ a = 1 }; $null -eq $h.b; $null -eq $h['b']", ['True', 'True'],
         source=STRICT + '; about_Hash_Tables: a key is read as a property'),
    Case('missing-property-of-string-is-null', "$null -eq 'abc'.NoSuchProperty; 'abc'.Length", ['True', '3'],
         source=STRICT + '; System.String has no NoSuchProperty (' + NETFX + 'mscorlib/system/string.cs)'),
    Case('missing-property-of-int-is-null', "$x = 5; $null -eq $x.NoSuchProperty; $x.Count", ['True', '1'],
         source=STRICT + '; about_Properties: every scalar has Count 1 (PowerShell 3.0 and later)'),
    Case('missing-static-property-is-null', "$null -eq [string]::NoSuchProperty; [string]::Empty.Length",
         ['True', '0'], source=STRICT + ' (a static property of a type too)'),
    Case('missing-method-is-method-not-found',
         "try { 'abc'.NoSuchMethod() } catch { $_.FullyQualifiedErrorId }", ['MethodNotFound'],
         source=ENUM + ': "Method invocation failed because [System.String] does not contain a method named ..."'),
    Case('missing-static-method-is-method-not-found', "[string]::NoSuchMethod('x'); 'after'", ['after'],
         errors=["does not contain a method named 'NoSuchMethod'"], source=METHOD + ' + ' + ENUM),
    Case('no-overload-for-argument-count', "'abc'.Substring(1, 1, 1); 'after'", ['after'],
         errors=['Cannot find an overload for "Substring" and the argument count: "3".'],
         source='about_Type_Conversion (reference/5.1): "Cannot find an overload for ... and the argument count"; '
                'String.Substring has overloads of 1 and 2 arguments (' + NETFX + 'mscorlib/system/string.cs)'),
    Case('member-enumeration-skips-elements-without-the-member',
         "@([pscustomobject]@{ a = 1 }, [pscustomobject]@{ b = 2 }).a; $null -eq (1, 2).NoSuchProperty",
         ['1', 'True'], source=ENUM + ': the values of the elements that have the member'),
    Case('pstypenames-of-a-string', "'x'.pstypenames -join ','; 'x'.PSTypeNames.Count",
         ['System.String,System.Object', '2'],
         source=INTRINSIC + ': pstypenames lists the type hierarchy, most specific first'),
    Case('pstypenames-of-a-pscustomobject', "([pscustomobject]@{ a = 1 }).pstypenames -join ','",
         ['System.Management.Automation.PSCustomObject,System.Object'], source=INTRINSIC),
    Case('type-not-found-for-a-name-nobody-defines', "[KubeWinNoSuch.Thing]; 'after'", ['after'],
         errors=['Unable to find type [KubeWinNoSuch.Thing].'], source=TYPE_NOT_FOUND),
    Case('as-type-of-a-name-nobody-defines-is-null', "$null -eq ('KubeWinNoSuch.Thing' -as [type])", ['True'],
         source='about_Type_Operators (reference/5.1): -as returns $null when the conversion fails'),
    Case('datetime-cast-from-an-iso-date', "$d = [datetime]'2024-01-31'; $d.Year; $d.Month; $d.Day; [string]$d",
         ['2024', '1', '31', '01/31/2024 00:00:00'],
         source=CONV + ': "Conversion to and from strings is usually performed using the invariant culture"'),
    Case('datetime-cast-month-first', "([datetime]'02/03/2024 10:20:30').Month; ([datetime]'02/03/2024').Day",
         ['2', '3'], source=CONV + ': the invariant culture uses "US-style month-first dates"'),
    Case('convert-tostring-with-a-base',
         "[Convert]::ToString(255, 16); [Convert]::ToString(5, 2); [Convert]::ToString(-1, 16); [Convert]::ToString(42)",
         ['ff', '101', 'ffffffff', '42'],
         source='.NET API reference System.Convert.ToString(Int32, Int32): base 2, 8, 10 or 16; a negative value is '
                'its two\'s complement (' + NETFX + 'mscorlib/system/convert.cs)'),
    Case('regex-static-honours-ignorecase', "[regex]::Matches('aAa', 'a', 'IgnoreCase').Count; [regex]::Matches('aAa', 'a').Count",
         ['3', '2'], source='.NET API reference System.Text.RegularExpressions.Regex.Matches(String, String, RegexOptions): '
                            'case-sensitive unless RegexOptions.IgnoreCase'),
    Case('string-equals-with-a-comparison', "[string]::Equals('a', 'A', 'OrdinalIgnoreCase'); [string]::Equals('a', 'A')",
         ['True', 'False'], source='.NET API reference System.String.Equals(String, String[, StringComparison]): ordinal '
                                   'unless told to ignore case'),
    Case('enum-parse-is-case-sensitive-unless-told', "[Enum]::Parse([IO.FileMode], 'Open'); "
         "[Enum]::Parse([IO.FileMode], 'open', $true); [Enum]::Parse([IO.FileMode], 'open'); 'after'",
         ['Open', 'Open', 'after'], errors=["Requested value 'open' was not found."],
         source='.NET API reference System.Enum.Parse(Type, String[, Boolean ignoreCase]): the name must match in case '
                'unless ignoreCase'),

    # -- the engine's refusal of what Windows has and the engine does not model ---------------------------------
    Case('refuses-an-unmodelled-static-method-even-in-try',
         "try { [IO.Path]::ChangeExtension('a.txt', 'log') } catch { 'caught' }", [], exit_code=2,
         unsupported='ChangeExtension', source=RULE + 'Path.ChangeExtension exists (' + NETFX +
         'mscorlib/system/io/path.cs)'),
    Case('refuses-a-script-s-named-blocks', "process { 'in process' }", [], exit_code=2, unsupported='named blocks',
         source=RULE + 'a script may have begin, process and end blocks (about_Scripts; about_Functions_Advanced_Methods), '
                       'which the tree-sitter grammar reads as a command named process'),
    Case('a-later-process-command-is-a-command', "'first'; process { 'x' }", ['first'],
         errors=["The term 'process' is not recognized"],
         source='about_Scripts (reference/5.1): named blocks open a script; after another statement, process is a '
                'command name like any other'),
    Case('refuses-an-unmodelled-overload', "'abc'.IndexOf('b', 1)", [], exit_code=2, unsupported='IndexOf(2 arguments)',
         source=RULE + 'String.IndexOf(string, int) exists (' + NETFX + 'mscorlib/system/string.cs)'),
    Case('refuses-an-unmodelled-overload-of-convert', "'before'; [Convert]::ToString(1.5, [cultureinfo]::InvariantCulture)",
         ['before'], exit_code=2, unsupported='cultureinfo',
         source=RULE + '[cultureinfo] is a 5.1 type accelerator (' + ACCELERATORS + ')'),
    Case('refuses-an-unmodelled-parse-overload', "[int]::Parse('ff', 'HexNumber')", [], exit_code=2,
         unsupported='Parse(2 arguments)', source=RULE + 'Int32.Parse(String, NumberStyles) exists (' + NETFX +
         'mscorlib/system/int32.cs)'),
    Case('refuses-an-unmodelled-instance-property', "$h = @{}; try { $h.IsSynchronized } catch { 'caught' }", [],
         exit_code=2, unsupported='IsSynchronized',
         source=RULE + 'Hashtable.IsSynchronized exists (' + NETFX + 'mscorlib/system/collections/hashtable.cs)'),
    Case('refuses-an-unmodelled-method-with-erroraction', "'abc'.Normalize()", [], exit_code=2,
         unsupported='Normalize', source=RULE + 'String.Normalize exists (' + NETFX + 'mscorlib/system/string.cs)'),
    Case('refuses-a-method-read-as-a-property', "'abc'.Trim", [], exit_code=2, unsupported='Trim',
         source=RULE + 'a method read without parentheses is a PSMethod (about_Methods), which the engine does not model'),
    Case('refuses-psbase', "$h = @{ a = 1 }; try { $h.PSBase.Count } catch { 'caught' }", [], exit_code=2,
         unsupported='PSBase', source=RULE + INTRINSIC + ': PSBase exists on every object'),
    Case('refuses-an-unmodelled-accelerator', "try { [ipaddress]'10.0.0.1' } catch { 'caught' }", [], exit_code=2,
         unsupported='[ipaddress]', source=RULE + ACCELERATORS),
    Case('refuses-an-unmodelled-system-type', "try { [System.Net.IPAddress]::Any } catch { 'caught' }", [],
         exit_code=2, unsupported='System.Net.IPAddress',
         source=RULE + 'System.Net.IPAddress exists (' + NETFX + 'System/net/System/Net/IPAddress.cs)'),
    Case('refuses-a-bare-system-enum', "[System.DayOfWeek]::Monday", [], exit_code=2, unsupported='DayOfWeek',
         source=RULE + 'System.DayOfWeek exists (' + NETFX + 'mscorlib/system/dayofweek.cs)'),
    Case('refuses-a-system-type-without-its-namespace', "[DateTimeKind]::Utc", [], exit_code=2,
         unsupported='DateTimeKind', source=RULE + 'PowerShell tries the System. prefix (about_Type_Accelerators); '
                                                   'System.DateTimeKind exists (' + NETFX + 'mscorlib/system/datetimekind.cs)'),
    Case('refuses-the-pscustomobject-type-name', "[System.Management.Automation.PSCustomObject]", [], exit_code=2,
         unsupported='PSCustomObject', source=RULE + 'System.Management.Automation.PSCustomObject is a public type of '
                                                     'PowerShell (PowerShell/PowerShell engine/MshObject.cs)'),
    Case('refuses-an-unmodelled-datetime-form', "try { [datetime]'31 January 2024' } catch { 'caught' }", [],
         exit_code=2, unsupported='[datetime]', source=RULE + CONV + ': DateTime.Parse reads forms the engine does not'),
    Case('refuses-an-unmodelled-cmdlet', "try { New-TimeSpan -Seconds 5 } catch { 'caught' }", [], exit_code=2,
         unsupported='New-TimeSpan', source=RULE + 'New-TimeSpan (reference/5.1/Microsoft.PowerShell.Utility)'),
    Case('refuses-an-unmodelled-cmdlet-with-silentlycontinue', "Out-File -FilePath x.txt -InputObject 1 "
         "-ErrorAction SilentlyContinue; 'after'", [], exit_code=2, unsupported='Out-File',
         source=RULE + 'Out-File (reference/5.1/Microsoft.PowerShell.Utility)'),
    Case('command-not-found-for-a-name-nobody-documents', "KubeWin-NoSuchCommand; 'after'", ['after'],
         errors=["The term 'KubeWin-NoSuchCommand' is not recognized"],
         source='about_Command_Precedence (reference/5.1): a name that is no command is CommandNotFoundException'),
]
