# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Error records of throw, $PID and $Host, ConvertTo-Json's layout and ConvertFrom-Json's keys as 5.1 has them
(issue 28)."""

from _case import Case

THROW = ('about_Throw (reference/5.1), and System.Management.Automation ExceptionHandlingOps.ConvertToException '
         '(Windows PowerShell 5.1)')
AUTO = 'about_Automatic_Variables (reference/5.1)'
TOJSON = ('ConvertTo-Json (reference/5.1/Microsoft.PowerShell.Utility/ConvertTo-Json.md) and ConvertToJsonCommand\'s '
          'ConvertToPrettyJsonString as 5.1 shipped it (PowerShell/PowerShell before 6.0)')
FROMJSON = ('ConvertFrom-Json (reference/5.1) over JavaScriptSerializer; WebCmdletStrings DuplicateKeysInJsonString '
            '("Cannot convert the JSON string because a dictionary that was converted from the string contains the '
            'duplicated keys")')

CASES = [
    Case('throw-string-target-object', "try { throw 'boom' } catch { $_.TargetObject; $_.TargetObject.GetType().Name }",
         ['boom', 'String'], source=THROW + ': SetTargetObject(result), the thrown value'),
    Case('throw-string-error-id-and-inner', "try { throw 'boom' } catch { $_.FullyQualifiedErrorId; "
                                            "$_.Exception.InnerException.Message; \"$($_.CategoryInfo.Category)\" }",
         ['boom', 'boom', 'OperationStopped'],
         source=THROW + ': error id and inner RuntimeException carry the message; category OperationStopped'),
    Case('throw-object-target-object', "try { throw 42 } catch { $_.TargetObject + 1; $_.Exception.Message }",
         ['43', '42'], source=THROW + ': any value is the TargetObject, its [string] the message'),
    Case('throw-nothing-script-halted', "try { throw } catch { $_.Exception.Message; $null -eq $_.TargetObject }",
         ['ScriptHalted', 'True'], source=THROW + ': throw without a value throws ScriptHalted, no target'),
    Case('pid-is-int32', "$PID.GetType().Name; $PID -gt 0", ['Int32', 'True'],
         source=AUTO + ' $PID: the process identifier of the process that is hosting the current session'),
    Case('host-is-internal-host', "$Host.GetType().FullName",
         ['System.Management.Automation.Internal.Host.InternalHost'],
         source=AUTO + ' $Host: an object that represents the current host application (the InternalHost wrapper)'),
    Case('host-members-are-refused', "try { $Host.UI } catch { 'caught' }", [], exit_code=2, unsupported='UI of',
         source=AUTO + ' $Host: InternalHost has UI (PowerShell/PowerShell 60b3b304f2 engine/hostifaces/InternalHost.cs); '
                       'the host is not modelled, so its members are refused, never $null'),
    Case('tojson-nested-object-indented-past-key',
         "[ordered]@{ a = 1; bb = [ordered]@{ c = 2 } } | ConvertTo-Json",
         ['{\r\n    "a":  1,\r\n    "bb":  {\r\n               "c":  2\r\n           }\r\n}'],
         source=TOJSON + ': members four spaces deeper, two spaces after the colon, a nested object indented past '
                         'its key and closed at the key\'s column'),
    Case('tojson-nested-array-indented-past-key',
         "@{ list = @(1, 2) } | ConvertTo-Json",
         ['{\r\n    "list":  [\r\n                 1,\r\n                 2\r\n             ]\r\n}'],
         source=TOJSON + ': the elements of an array value line up past its key'),
    Case('tojson-empty-array-value', "@{ e = @() } | ConvertTo-Json", ['{\r\n    "e":  [\r\n\r\n          ]\r\n}'],
         source=TOJSON + ': an empty array is its brackets with an empty line between'),
    Case('tojson-array-of-objects', "@(1, @{ x = 1 }) | ConvertTo-Json",
         ['[\r\n    1,\r\n    {\r\n        "x":  1\r\n    }\r\n]'],
         source=TOJSON + ': an object in an array opens on its own line, four spaces deeper'),
    Case('tojson-compress-unchanged', "@{ a = @(1, 2) } | ConvertTo-Json -Compress", ['{"a":[1,2]}'],
         source=TOJSON + ': -Compress writes the serializer\'s text as it is'),
    Case('fromjson-keys-differing-in-case', "try { '{\"a\":1,\"A\":2}' | ConvertFrom-Json } catch { "
                                            "$_.FullyQualifiedErrorId; $_.Exception.Message }",
         ['DuplicateKeysInJsonString,Microsoft.PowerShell.Commands.ConvertFromJsonCommand',
          "Cannot convert the JSON string because a dictionary that was converted from the string contains the "
          "duplicated keys 'a' and 'A'."], source=FROMJSON),
    Case('fromjson-same-key-twice-last-wins', "('{\"a\":1,\"a\":2}' | ConvertFrom-Json).a", ['2'],
         source=FROMJSON + ': an exact duplicate is one dictionary entry, the last value kept'),
]
