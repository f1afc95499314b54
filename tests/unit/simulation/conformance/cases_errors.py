# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Errors: throw, try/catch/finally, terminating vs non-terminating, ErrorAction, $?."""

from _case import Case

TH = 'about_Throw (reference/5.1)'
TCF = 'about_Try_Catch_Finally (reference/5.1)'
DEX = 'deep-dives/everything-about-exceptions (docs-conceptual)'
PREF = 'about_Preference_Variables $ErrorActionPreference (reference/5.1)'
COMMON = 'about_CommonParameters -ErrorAction (reference/5.1)'
AV = 'about_Automatic_Variables (reference/5.1)'
EH = 'about_Error_Handling (reference/5.1)'

CASES = [
    Case('throw-string-uncaught', "'before'; throw 'boom'; 'after'", ['before'], errors=['boom'], exit_code=1,
         source=TH + ': throw generates a terminating error; the script stops'),
    Case('throw-caught-message', "try { throw 'x1' } catch { \"caught: $($_.Exception.Message)\" }", ['caught: x1'],
         source=TCF + ': $_ in catch is the ErrorRecord; the thrown string is the exception message'),
    Case('catch-dollar-underscore-is-errorrecord', "try { throw 'x' } catch { $_.GetType().FullName; $_.Exception.GetType().FullName }",
         ['System.Management.Automation.ErrorRecord', 'System.Management.Automation.RuntimeException'],
         source=DEX + ': a thrown string becomes a RuntimeException inside an ErrorRecord'),
    Case('errorrecord-type-literal', "try { throw 'x' } catch { $_ -is [System.Management.Automation.ErrorRecord]; 'x' -is "
         "[System.Management.Automation.ErrorRecord] }", ['True', 'False'],
         source=TCF + ': $_ in catch is a System.Management.Automation.ErrorRecord, a type a literal can name'),
    Case('try-catch-finally-order', "try { 'a'; throw 'e'; 'b' } catch { 'c' } finally { 'f' }; 'after'",
         ['a', 'c', 'f', 'after'],
         source=TCF + ': statements after the throw are skipped; catch then finally run'),
    Case('finally-without-error', "try { 't' } finally { 'f' }", ['t', 'f'], source=TCF + ': finally always runs'),
    Case('finally-after-uncaught-throw', "try { throw 'e' } finally { 'f' }; 'after'", ['f'], errors=['e'], exit_code=1,
         source=TCF + ': finally runs even when the error is not caught; then the error terminates the script'),
    Case('typed-catch-runtimeexception',
         "try { throw 'x' } catch [System.Management.Automation.RuntimeException] { 'rt' } catch { 'other' }", ['rt'],
         source=TCF + ': a catch naming the exception type (or a base type) handles it'),
    Case('typed-catch-order-first-match', "try { throw [System.ArgumentException]::new('bad') } catch "
         "[System.ArgumentException] { 'arg: ' + $_.Exception.Message } catch { 'other' }",
         ['arg: bad'], source=TCF + ' + ' + TH + ': throwing a .NET exception object; catch by its type'),
    Case('typed-catch-no-match-falls-to-general', "try { throw [System.InvalidOperationException]::new('io') } "
         "catch [System.ArgumentException] { 'arg' } catch { 'general' }",
         ['general'], source=TCF + ': a catch without a type handles what the typed ones do not'),
    Case('typed-catch-base-class', "try { throw [System.ArgumentNullException]::new('p') } catch [System.ArgumentException] { 'base' }",
         ['base'], source=TCF + ': a catch for a base class handles derived exceptions'),
    Case('throw-object-targetobject', "try { throw @{code = 7} } catch { $_.TargetObject.code }", ['7'],
         source=TH + ' "Throwing other objects": the object is available as TargetObject of the ErrorRecord'),
    Case('rethrow-in-catch', "try { try { throw 'inner' } catch { throw } } catch { \"outer: $($_.Exception.Message)\" }",
         ['outer: inner'], source=DEX + ': throw with no argument in catch rethrows the current exception'),
    Case('throw-no-arg-outside-catch', "try { throw } catch { $_.Exception.Message }", ['ScriptHalted'],
         source=TH + ': throw with no expression outside catch throws "ScriptHalted"'),
    Case('write-error-continues', "Write-Error 'oops'; 'after'", ['after'], errors=['oops'],
         source=DEX + ': Write-Error is non-terminating by default'),
    Case('try-does-not-catch-nonterminating', "try { Write-Error 'nt'; 'cont' } catch { 'caught' }", ['cont'], errors=['nt'],
         source=DEX + ': non-terminating errors do not trigger catch'),
    Case('erroraction-stop-caught', "try { Write-Error 'w' -ErrorAction Stop; 'no' } catch { \"c: $($_.Exception.Message)\" }",
         ['c: w'], source=DEX + ' "Write-Error -ErrorAction Stop": becomes terminating and catchable'),
    Case('erroractionpreference-stop', "$ErrorActionPreference = 'Stop'; Write-Error 'oops'; 'after'", [], errors=['oops'], exit_code=1,
         source=PREF + ': Stop turns non-terminating errors into terminating ones'),
    Case('erroractionpreference-stop-catchable', "$ErrorActionPreference = 'Stop'; try { Write-Error 'e1' } catch { 'caught' }",
         ['caught'], source=PREF + ' + ' + TCF),
    Case('erroraction-silentlycontinue', "Write-Error 'quiet' -ErrorAction SilentlyContinue; 'after'", ['after'],
         source=COMMON + ': SilentlyContinue suppresses the error message and continues'),
    Case('erroraction-stop-uncaught', "Write-Error 'fatal' -ErrorAction Stop; 'after'", [], errors=['fatal'], exit_code=1,
         source=COMMON + ': Stop makes the error terminating; uncaught it ends the script'),
    Case('dollar-question-after-error', "Write-Error 'x' -ErrorAction SilentlyContinue; $?; 'ok' | Out-Null; $?", ['False', 'True'],
         source=AV + ' $?: False when the last command had an error, True otherwise'),
    Case('error-variable-records', "$Error.Clear(); Write-Error 'rec' -ErrorAction SilentlyContinue; $Error.Count; $Error[0].Exception.Message",
         ['1', 'rec'], source=AV + ' $Error: silenced errors are still added to $Error'),
    Case('method-exception-wrapped', "try { [int]::Parse('x') } catch { $_.Exception.GetType().FullName; $_.Exception.Message }",
         ['System.Management.Automation.MethodInvocationException',
          'Exception calling "Parse" with "1" argument(s): "Input string was not in a correct format."'],
         source=DEX + ' "$PSItem.Exception.Message": .NET method exceptions are wrapped, "Exception calling "X" with "N" argument(s): ..."'),
    Case('method-exception-inner', "try { [int]::Parse('x') } catch { $_.Exception.InnerException.GetType().FullName }",
         ['System.FormatException'], source=DEX + ' "$PSItem.Exception.InnerException": the original exception is inner'),
    Case('method-exception-uncaught-continues', "[int]::Parse('x'); 'after'", ['after'],
         errors=['Exception calling "Parse" with "1" argument(s)'],
         source='about_Error_Handling (reference/5.1): a method exception outside try is statement-terminating; the script continues'),
    Case('throw-in-function-propagates', "function f { throw 'deep' }; try { f; 'no' } catch { 'got ' + $_.Exception.Message }",
         ['got deep'], source=TCF + ': a terminating error propagates to the caller\'s try'),
    Case('finally-runs-in-function-return', "function f { try { return 'r' } finally { 'fin' } }; f", ['r', 'fin'],
         source=TCF + ': finally runs even when the try block returns'),
    Case('divide-by-zero-runtime', "$z = 0; try { 1 / $z } catch { $_.Exception.Message }", ['Attempted to divide by zero.'],
         source='about_Arithmetic_Operators (reference/5.1): division by zero is an error'),
    Case('throw-errorrecord-message-in-errors', "function f { throw 'from f' }; f", [], errors=['from f'], exit_code=1,
         source=TH + ': the uncaught error message is the thrown string'),
    Case('write-error-in-function-continues', "function f { Write-Error 'w'; 'still' }; f; 'after'", ['still', 'after'], errors=['w'],
         source=DEX + ': Write-Error inside a function does not stop it'),
    Case('erroraction-stop-on-advanced-function', "function f { [CmdletBinding()] param()\nWrite-Error 'adv'; 'not reached' }; "
         "try { f -ErrorAction Stop } catch { 'caught ' + $_.Exception.Message }",
         ['caught adv'], source=DEX + ' "Cmdlet -ErrorAction Stop": applies to Write-Error inside an advanced function'),
    Case('eap-silentlycontinue-suppresses-throw', "$ErrorActionPreference = 'SilentlyContinue'; throw 'hidden'; 'after'", ['after'],
         source=EH + ': $ErrorActionPreference SilentlyContinue can suppress throw; the script continues'),
    Case('eap-stop-nonadvanced-script-terminating', "& { $ErrorActionPreference = 'Stop'; Write-Error 'na-stop'; 'not' }; 'after'", [],
         errors=['na-stop'], exit_code=1,
         source=EH + ' "How escalation works": in a non-advanced script block the escalated error is script-terminating'),
    Case('eap-stop-advanced-statement-terminating', "& { [CmdletBinding()] param() $ErrorActionPreference = 'Stop'; Write-Error 'adv-stop'; 'not' }; 'after'",
         ['after'], errors=['adv-stop'],
         source=EH + ' "How escalation works": in an advanced script block it stays statement-terminating; the caller continues'),
    Case('command-not-found-statement-terminating', "Invoke-NoSuchThing; 'after'", ['after'],
         errors=["The term 'Invoke-NoSuchThing' is not recognized as the name of a cmdlet, function, script file, or operable program."],
         source=EH + ' "Statement-terminating errors": CommandNotFoundException; the next statement runs'),
    Case('catch-escalated-by-original-type', "try { Write-Error -Exception ([System.IO.FileNotFoundException]::new('nf')) -ErrorAction "
         "Stop } catch [System.IO.FileNotFoundException] { 'fnf: ' + $_.Exception.Message }",
         ['fnf: nf'],
         source=EH + ': escalated errors are caught by their original exception type; ' + DEX + ' "Write-Error -Exception"'),
    Case('try-catches-statement-terminating', "try { Invoke-NoSuchThing; 'no' } catch { $_.Exception.GetType().FullName }",
         ['System.Management.Automation.CommandNotFoundException'],
         source=EH + ': statement-terminating errors can be caught by try/catch'),
    Case('trap-continue', "trap { 'trapped'; continue }; throw 'x'; 'after'", ['trapped', 'after'],
         source=EH + ' "trap": continue in the trap suppresses the error and resumes at the next statement'),
]
