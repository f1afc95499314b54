# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
""".NET types used from PowerShell: static methods, Path, BitConverter, Guid, enums and flag enums."""

from _case import Case

MET = 'about_Methods (reference/5.1)'
ENUM = 'about_Enum (reference/5.1)'
CONV = 'about_Type_Conversion (reference/5.1)'
ACC = 'about_Type_Accelerators (reference/5.1)'

CASES = [
    Case('math-max-min', "[Math]::Max(3, 7); [Math]::Min(3, 7); [Math]::Abs(-2)", ['7', '3', '2'],
         source=MET + ': static methods called with ::'),
    Case('math-round-default-even', "[Math]::Round(2.5); [Math]::Round(3.5); [Math]::Round(2.5, [MidpointRounding]::AwayFromZero)",
         ['2', '4', '3'], source='about_Arithmetic_Operators (reference/5.1) "Division and rounding": [Math]::Round to even by default'),
    Case('math-floor-ceiling', "[Math]::Floor(2.7); [Math]::Ceiling(2.1); [int][Math]::Floor(5 / 2)", ['2', '3', '2'],
         source=MET + ': Math.Floor/Ceiling'),
    Case('path-combine', "[System.IO.Path]::Combine('C:\\k', 'bin', 'kubelet.exe')", ['C:\\k\\bin\\kubelet.exe'],
         source=MET + ' + .NET Path.Combine on Windows: joins with a backslash'),
    Case('path-combine-rooted-second', "[System.IO.Path]::Combine('C:\\k', 'D:\\x')", ['D:\\x'],
         source='.NET Path.Combine: a rooted later argument discards the earlier ones'),
    Case('path-getfilename-extension', "[IO.Path]::GetFileName('C:\\k\\kubelet.exe'); [IO.Path]::GetExtension('a.tar.gz'); "
         "[IO.Path]::GetFileNameWithoutExtension('C:\\k\\kubelet.exe')",
         ['kubelet.exe', '.gz', 'kubelet'], source=ACC + ': the System namespace may be omitted ([IO.Path])'),
    Case('path-getdirectoryname', "[System.IO.Path]::GetDirectoryName('C:\\k\\bin\\kubelet.exe')", ['C:\\k\\bin'],
         source='.NET Path.GetDirectoryName via ' + MET),
    Case('bitconverter-tostring', "[BitConverter]::ToString([byte[]](1, 171, 255))", ['01-AB-FF'],
         source=MET + ' + .NET BitConverter.ToString: hyphen-separated uppercase hex'),
    Case('bitconverter-getbytes', "[BitConverter]::GetBytes(1).Length; [BitConverter]::GetBytes([int16]1).Length", ['4', '2'],
         source='.NET BitConverter.GetBytes: the overload follows the argument type'),
    Case('bitconverter-touint32', "$b = [byte[]](16, 39, 0, 0, 255, 255, 255, 255); [BitConverter]::ToUInt32($b, 0); "
         "[BitConverter]::ToUInt32($b, 4); [BitConverter]::ToInt32($b, 4); [BitConverter]::ToUInt32($b, 0).GetType().Name",
         ['10000', '4294967295', '-1', 'UInt32'],
         source='.NET BitConverter.ToUInt32/ToInt32(byte[], startIndex): four little-endian bytes from startIndex'),
    Case('bitconverter-touint32-short', "[BitConverter]::ToUInt32([byte[]](1, 2, 3), 0)", [],
         errors=['Destination array is not long enough'], exit_code=0,
         source='.NET BitConverter.ToUInt32: ArgumentException when fewer than four bytes follow startIndex'),
    Case('guid-parse-and-empty', "([guid]'0F8FAD5B-D9CB-469F-A165-70867728950E').ToString(); [guid]::Empty",
         ['0f8fad5b-d9cb-469f-a165-70867728950e', '00000000-0000-0000-0000-000000000000'],
         source=ACC + ' [guid]: a string converts to System.Guid; ToString is lowercase "D" format'),
    Case('guid-newguid-type', "([guid]::NewGuid()).GetType().FullName; ([guid]::NewGuid()).ToString().Length", ['System.Guid', '36'],
         source=ACC + ' [guid] + .NET Guid.NewGuid'),
    Case('enum-parse-string-cast', "[System.IO.FileMode]'Create'; [System.IO.FileMode]'create'", ['Create', 'Create'],
         source=CONV + ' + about_Case-Sensitivity: a string converts to an enum by name, ignoring case'),
    Case('enum-to-int', "[int][System.IO.FileMode]::Append; [int][System.IO.FileMode]'Open'", ['6', '3'],
         source=ENUM + ': an enum value casts to its underlying integer'),
    Case('enum-compare-with-string', "[System.IO.FileMode]::Append -eq 'Append'; [System.IO.FileMode]::Append -eq 6", ['True', 'True'],
         source='about_Comparison_Operators (reference/5.1): the right operand is converted to the enum type'),
    Case('enum-bad-name-error', "[System.IO.FileMode]'Bogus'; 'after'", ['after'],
         errors=['Cannot convert value "Bogus" to type "System.IO.FileMode"'],
         source=CONV + ': an unknown name does not convert'),
    Case('flags-enum-from-string', "[System.IO.FileShare]'Read, Write'; [int][System.IO.FileShare]'Read, Write'",
         ['ReadWrite', '3'],
         source=ENUM + ' "Enumerations as flags": a comma-separated string combines flags; ToString uses the defined name ReadWrite'),
    Case('flags-enum-string-form-combination', "[string][System.IO.FileShare]'Read, Delete'", ['Read, Delete'],
         source=ENUM + ' "Enumerations as flags": combined flags print as a comma-separated list'),
    Case('flags-enum-band', "[int]([System.IO.FileShare]::ReadWrite -band [System.IO.FileShare]::Write); "
         "([System.IO.FileShare]'Read' -band [System.IO.FileShare]::Write) -eq 0",
         ['2', 'True'], source=ENUM + ' "Enumerations as flags": test a flag with -band'),
    Case('flags-enum-bor', "[System.IO.FileShare]([System.IO.FileShare]::Read -bor [System.IO.FileShare]::Delete); "
         "([System.IO.FileShare]'Read, Write' -band [System.IO.FileShare]::Write) -eq [System.IO.FileShare]::Write", ['Read, Delete', 'True'],
         source=ENUM + ' "Enumerations as flags": combine with -bor'),
    Case('enum-hasflag', "([System.IO.FileShare]'Read, Write').HasFlag([System.IO.FileShare]::Write)", ['True'],
         source=ENUM + ': HasFlag() tests a flag'),
    Case('enum-getnames', "[enum]::GetNames([System.IO.FileShare]) -contains 'Delete'", ['True'],
         source=ENUM + ': [enum]::GetNames lists names'),
    Case('int-maxvalue', "[int]::MaxValue; [int32]::MinValue; [long]::MaxValue", ['2147483647', '-2147483648', '9223372036854775807'],
         source=MET + ': static properties with ::'),
    Case('convert-base64', "[Convert]::ToBase64String([Text.Encoding]::UTF8.GetBytes('hi')); "
         "[Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('aGk='))",
         ['aGk=', 'hi'], source=MET + ' + .NET Convert/Encoding'),
    Case('regex-escape-and-match', "[regex]::Escape('a.b*c'); [regex]::Match('node-42', '\\d+').Value", ['a\\.b\\*c', '42'],
         source=ACC + ' [regex]: System.Text.RegularExpressions.Regex static methods'),
    Case('new-object-and-new', "(New-Object System.Text.StringBuilder).GetType().FullName; ([System.Collections.Generic.List[int]]::new()).Count",
         ['System.Text.StringBuilder', '0'], source='about_Object_Creation (reference/5.1): New-Object and the static new() method (5.0+)'),
    Case('generic-list-add-returns-nothing', "$l = [System.Collections.Generic.List[string]]::new(); $l.Add('a'); $l.Add('b'); $l.Count",
         ['2'], source='about_Member-Access_Enumeration (reference/5.1) example: List.Add returns void, so no output'),
    Case('arraylist-add-outputs-index', "$l = New-Object System.Collections.ArrayList; $l.Add('a'); [void]$l.Add('b'); $l.Count",
         ['0', '2'], source=MET + ' + .NET ArrayList.Add returns the index, which becomes output unless discarded'),
    Case('type-accelerator-names', "[int].FullName; [string].FullName; [hashtable].FullName; [pscustomobject].FullName",
         ['System.Int32', 'System.String', 'System.Collections.Hashtable', 'System.Management.Automation.PSObject'],
         source=ACC + ': accelerators map to full type names ([pscustomobject] is PSObject)'),
    Case('static-property-assignment', "[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor "
         "[Net.SecurityProtocolType]::Tls12; [string][Net.ServicePointManager]::SecurityProtocol", ['Tls12'],
         source='about_Properties (reference/5.1) "Static properties": [type]::Property is read and set like an instance '
                'property; ServicePointManager.SecurityProtocol is SystemDefault (0) on .NET Framework 4.7+ (.NET API reference)'),
    Case('guid-tostring-formats', "$g = [guid]'0f8fad5b-d9cb-469f-a165-70867728950e'; $g.ToString('N'); $g.ToString('B'); "
         "$g.ToString()", ['0f8fad5bd9cb469fa16570867728950e', '{0f8fad5b-d9cb-469f-a165-70867728950e}',
                           '0f8fad5b-d9cb-469f-a165-70867728950e'],
         source='.NET API reference, Guid.ToString(String): N is 32 digits, B braces, D (the default) hyphens'),
    Case('new-object-array-of-length', "$b = New-Object -TypeName byte[] -ArgumentList 3; $b.GetType().FullName; $b.Length; "
         "$b[0].GetType().FullName; $b -join ','", ['System.Byte[]', '3', 'System.Byte', '0,0,0'],
         source='New-Object (reference/5.1) -ArgumentList: the arguments of the type\'s constructor; an array type\'s '
                'constructor takes the length and holds default values (.NET API reference, Array)'),
]
