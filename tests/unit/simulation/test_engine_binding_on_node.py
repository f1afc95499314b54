"""The engine's binding and error records where they meet the Windows model (issue 28): $PID names the session's own
PowerShell process, cmdlet arguments are converted or refused at binding as Windows PowerShell 5.1's binder does, and
provider cmdlet errors carry the cmdlet's class in their FullyQualifiedErrorId."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import run_on_node  # noqa: E402  pylint: disable=wrong-import-position


def _run(text):
    return run_on_node(SimNode(initial_state('win1', {'ip': '10.0.0.11'})), text)


def test_get_process_finds_the_session_itself():
    # about_Automatic_Variables $PID: "the process identifier (PID) of the process that is hosting the current
    # PowerShell session"; Get-Process -Id (reference/5.1) finds it.
    outcome = _run('$p = Get-Process -Id $PID; $p.Id -eq $PID; $p.ProcessName')
    assert (outcome.output, outcome.errors, outcome.exit_code) == (['True', 'powershell'], [], 0)


def test_get_process_id_null_and_text_are_refused_at_binding():
    # Get-Process -Id is a mandatory Int32[] (reference/5.1): $null and text that is no number fail binding.
    outcome = _run("Get-Process -Id $null; Get-Process -Id abc; 'after'")
    assert outcome.output == ['after'] and outcome.exit_code == 0
    assert outcome.errors == ["Cannot bind argument to parameter 'Id' because it is null.",
                              'Cannot bind parameter \'Id\'. Cannot convert value "abc" to type "System.Int32". Error: '
                              '"Input string was not in a correct format."']


def test_encoding_utf8nobom_is_refused_at_binding():
    # -Encoding is a FileSystemCmdletProviderEncoding in 5.1 (Set-Content reference/5.1: no UTF8NoBOM, a PowerShell 6
    # value); the binder's message lists the enum's names in declaration order.
    outcome = _run("try { Set-Content C:\\x.txt 'a' -Encoding UTF8NoBOM -ErrorAction Stop } catch { "
                   "$_.FullyQualifiedErrorId; $_.Exception.Message }; Test-Path C:\\x.txt")
    assert outcome.exit_code == 0 and outcome.errors == []
    assert outcome.output[0] == 'CannotConvertArgumentNoMessage,Microsoft.PowerShell.Commands.SetContentCommand'
    assert outcome.output[1].startswith("Cannot bind parameter 'Encoding'. Cannot convert value \"UTF8NoBOM\" to type "
                                        '"Microsoft.PowerShell.Commands.FileSystemCmdletProviderEncoding".')
    assert outcome.output[1].endswith('Unknown, String, Unicode, Byte, BigEndianUnicode, UTF8, UTF7, UTF32, Ascii, '
                                      'Default, Oem, BigEndianUTF32"')
    assert outcome.output[2] == 'False'


@pytest.mark.parametrize('text, fqid', [
    ('Get-Item C:\\nope', 'PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand'),
    ('Get-Content C:\\nope', 'PathNotFound,Microsoft.PowerShell.Commands.GetContentCommand'),
    ('Remove-Item C:\\nope', 'PathNotFound,Microsoft.PowerShell.Commands.RemoveItemCommand'),
    ("New-Item C:\\d -ItemType Directory | Out-Null; New-Item C:\\d -ItemType Directory",
     'DirectoryExist,Microsoft.PowerShell.Commands.NewItemCommand'),
])
def test_provider_errors_name_the_cmdlet_class(text, fqid):
    # ErrorRecord.FullyQualifiedErrorId of an error a cmdlet writes: its error id, a comma, the cmdlet's class
    # (Get-Item C:\nope on Windows PowerShell 5.1: PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand).
    outcome = _run('try { %s -ErrorAction Stop } catch { $_.FullyQualifiedErrorId }' % text)
    assert (outcome.output, outcome.exit_code) == ([fqid], 0)
