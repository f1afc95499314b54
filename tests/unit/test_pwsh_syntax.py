"""The PowerShell syntax gate parses every script, rejects broken ones, and sees composed scripts."""

import importlib.util
import os

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
_spec = importlib.util.spec_from_file_location('pwsh_syntax', os.path.join(ROOT, 'tools', 'pwsh_syntax.py'))
gate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gate)


@pytest.mark.parametrize('broken', [
    'if ($a -eq 1) {\n    Write-Output 1\n',            # missing }
    '$table = @{ a = 1; b = \n',                          # unterminated hashtable
    "$text = 'never closed\n",                           # unterminated string
    'param([string]$Name\n$x = 1\n',                      # unclosed param block
    '$total = 1 +\n',                                   # dangling operator
    'if ($a) { } else if { }\n',                        # else if is not PowerShell
])
def test_gate_rejects_broken_scripts(tmp_path, broken):
    path = tmp_path / 'broken.ps1'
    path.write_text(broken, encoding='utf-8')
    problems = gate.check_file(str(path))
    assert problems and all(':' in problem for problem in problems)


def test_gate_rejects_a_byte_order_mark(tmp_path):
    path = tmp_path / 'bom.ps1'
    path.write_bytes(b'\xef\xbb\xbfWrite-Output 1\n')
    assert 'byte order mark' in gate.check_file(str(path))[0]


def test_every_script_in_the_tree_parses():
    found = list(gate.find_scripts())
    assert any(p.endswith('node_info.ps1') for p in found)
    assert gate.main(['pwsh_syntax.py']) == 0


def test_composed_scripts_parse_too():
    for name in sorted(os.listdir(_pwsh.SCRIPT_DIR)):
        if name.endswith('.ps1'):
            assert gate.syntax_errors(_pwsh.load_script(name[:-4]).encode('utf-8')) == [], name


def test_help_prints_the_usage_instead_of_parsing_a_file(capsys):
    assert gate.main(['pwsh_syntax.py', '--help']) == 0
    assert 'Usage: pwsh_syntax.py [PATH ...]' in capsys.readouterr().out


@pytest.mark.parametrize('text', [
    'function f { param($A, $B) "$A-$B" }\n',
    'function f { [CmdletBinding()] param([Parameter(ValueFromPipeline)]$x) process { $x } }\n',
    "switch ($x) { 1 { 'a' } default { 'b' } }\n",
])
def test_gate_accepts_what_the_engine_runs_past_the_grammar_gaps(text):
    # The same pre-pass as the engine's (kubewin_sim/pwsh/grammar_gaps.py): valid PowerShell the grammar alone fails.
    assert gate.syntax_errors(text.encode('utf-8')) == []


def test_gate_still_refuses_a_labelled_break_and_counts_lines_as_written():
    text = 'function f { param($a) $a }\n\nforeach ($i in 1) { break outer }\n'
    assert [line for line, _col, _kind in gate.syntax_errors(text.encode('utf-8'))] == [3]
