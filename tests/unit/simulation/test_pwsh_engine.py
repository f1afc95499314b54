"""The engine's own contract: the CLI's exit codes and output, Unsupported never caught, the parse cache."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.pwsh import run_command  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh.cli import file_parameters, main  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh.syntax import parse  # noqa: E402  pylint: disable=wrong-import-position


def test_cli_prints_each_object_and_exits_zero(capsys):
    assert main(['-Command', '1; "two"; @(3, 4); $null']) == 0
    assert capsys.readouterr().out.splitlines() == ['1', 'two', '3', '4', '']


def test_cli_uncaught_terminating_error_exits_one(capsys):
    assert main(['-Command', '"before"; throw "stop here"; "after"']) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ['before']
    assert 'stop here' in captured.err


def test_cli_unsupported_construct_exits_two_naming_it_and_its_line(capsys):
    assert main(['-Command', '"ok"\nclass Foo {}']) == 2
    assert 'unsupported: class (line 2)' in capsys.readouterr().err


def test_cli_runs_a_file_with_parameters_bound_as_powershell_exe_file_binds_them(tmp_path, capsys):
    script = tmp_path / 'greet.ps1'
    script.write_text('param([string]$Name, [int]$Times = 1, [switch]$Loud)\n'
                      '$text = "hello $Name" * $Times\nif ($Loud) { $text.ToUpper() } else { $text }\n')
    assert main([str(script), '-Name', 'node', '-Times:2', '-Loud']) == 0
    assert capsys.readouterr().out.splitlines() == ['HELLO NODEHELLO NODE']


def test_file_parameters_reads_names_values_and_switches():
    assert file_parameters(['-A', 'x', '-B:y', '-C', '-D', '-1']) == ({'A': 'x', 'B': 'y', 'C': True, 'D': '-1'}, [])


def test_the_shell_wrapper_runs_the_engine():
    result = subprocess.run([os.path.join(ROOT, 'tests', 'simulation', 'pwsh'), '-Command', '[int]"0x10" + 1'],
                            capture_output=True, text=True, check=False, env=dict(os.environ, KUBEWIN_PYTHON=sys.executable))
    assert (result.returncode, result.stdout) == (0, '17\n')


def test_a_try_block_cannot_catch_an_unsupported_construct():
    outcome = run_command('try { . C:\\setup.ps1 } catch { "caught" }')
    assert outcome.exit_code == 2 and outcome.output == []


def test_statement_terminating_error_ends_only_its_statement():
    outcome = run_command('[int]"abc"; "next"')
    assert outcome.exit_code == 0 and outcome.output == ['next']
    assert outcome.errors and 'Cannot convert value "abc" to type "System.Int32"' in outcome.errors[0]


def test_parse_is_cached_per_text():
    text = '"cached"'
    assert parse(text) is parse(text)


def test_text_the_engine_cannot_run_is_refused_with_exit_code_two():
    assert run_command('class Foo {}').exit_code == 2
    outcome = run_command('$i = New-Object -ComObject WindowsInstaller.Installer')
    assert (outcome.exit_code, outcome.unsupported) == (2, 'unsupported: New-Object -ComObject WindowsInstaller.Installer')


def test_powershell_7_syntax_fails_to_parse_as_in_5_1_and_nothing_runs():
    outcome = run_command('"first"; $x = $null ?? 2')
    assert (outcome.exit_code, outcome.output) == (1, [])
    assert outcome.errors == ["Unexpected token '??' in expression or statement."]


def test_cli_runs_on_a_fresh_simulated_windows_node(capsys):
    assert main(['-Command', '(Get-NetAdapter).Name; Test-Path -LiteralPath C:\\ProgramData']) == 0
    assert capsys.readouterr().out.splitlines() == ['Ethernet', 'True']


def test_cli_runs_on_a_named_node_of_the_state_directory_and_keeps_its_changes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', str(tmp_path))
    from kubewin_sim.node import open_node  # pylint: disable=import-outside-toplevel
    with open_node(str(tmp_path), 'win1', profile={'ip': '10.0.0.31'}):
        pass
    assert main(['--node', 'win1', '-Command', "Set-Content -LiteralPath C:\\k.txt -Value 'kept'"]) == 0
    assert main(['--node', 'win1', '-Command', '(Get-NetIPAddress -InterfaceIndex 4 -AddressFamily IPv4).IPAddress; Get-Content C:\\k.txt']) == 0
    assert capsys.readouterr().out.splitlines() == ['10.0.0.31', 'kept']


def test_is_an_exception_type_holds_for_derived_exceptions_and_those_of_error_records():
    # about_Type_Operators: -is is true for an instance of the type, so of a type derived from it; $_.Exception of a
    # caught error is the .NET exception itself (FileNotFoundException derives from IOException, .NET API reference).
    outcome = run_command("[System.IO.FileNotFoundException]::new('m') -is [System.IO.IOException]; "
                          "[System.IO.IOException]::new('m') -is [System.IO.FileNotFoundException]; "
                          "try { [int]'abc' } catch { $_.Exception -is [System.Exception]; "
                          "$_.Exception -isnot [System.Net.WebException] }")
    assert (outcome.exit_code, outcome.output) == (0, ['True', 'False', 'True', 'True'])
