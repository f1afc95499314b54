# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""No Python exception escapes the engine, on any input (issue 28).

The conformance cases' texts are mutated - tokens dropped, duplicated, swapped or inserted, operators, literals, types
and member names replaced, the text cut short - with a fixed seed, and each mutant runs in the engine. Whatever the
text, the run must end in output, a PowerShell error or Unsupported (exit 0, 1 or 2): any other Python exception, or
the EngineDefect the engine turns one into, is a crash of the engine, and a run that does not end within HANG_SECONDS
is a hang. Each mutant runs with a small step
budget (Interpreter.step_budget), so a mutant that loops forever ends as Unsupported.

The default run tries MUTANTS mutants and stops early after SECONDS; KUBEWIN_FUZZ_MUTANTS and KUBEWIN_FUZZ_SECONDS
run longer (KUBEWIN_FUZZ_SEED another sequence).
"""

from __future__ import annotations

import os
import random
import re
import signal
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[2] / 'simulation'))

from test_conformance import ALL  # noqa: E402  pylint: disable=wrong-import-position

MUTANTS = int(os.environ.get('KUBEWIN_FUZZ_MUTANTS', '6000'))
SECONDS = float(os.environ.get('KUBEWIN_FUZZ_SECONDS', '30'))
SEED = int(os.environ.get('KUBEWIN_FUZZ_SEED', '28'))
HANG_SECONDS = 10
STEP_BUDGET = 2000
MINIMUM_RUN = 300

_TOKEN = re.compile(r"""
    '(?:[^']|'')*'            # verbatim string
  | "(?:[^"`]|`.|"")*"        # expandable string
  | \$\{[^}]*\}|[$@][\w:?]+   # variable, splat
  | \[[\w.]+(?:\[\])?\]       # type literal
  | -[A-Za-z]+                # operator or parameter
  | 0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:e\d+)?[a-zA-Z]*   # number
  | \w+                       # word
  | \.\.|::|[+\-*/%]=|==|\s+  # two-character tokens, blanks
  | .                         # anything else
""", re.VERBOSE | re.DOTALL)

OPERATORS = ['-eq', '-ne', '-gt', '-lt', '-ge', '-le', '-like', '-notlike', '-match', '-notmatch', '-replace',
             '-split', '-join', '-contains', '-in', '-is', '-as', '-band', '-bor', '-bxor', '-shl', '-shr', '-and',
             '-or', '-xor', '-not', '-f', '+', '-', '*', '/', '%', '..', '=', '+=', '-=', '|', ',', '!', '-ceq',
             '-creplace', '-isnot']
LITERALS = ['0', '-1', '1', '2', '2147483647', '2147483648', '-2147483648', '9223372036854775807', '1.5', '0x10',
            '0xFFFFFFFF', '1kb', '1d', '1l', '1e308', '1e-5', "''", "'x'", "'1'", "'a,b'", '""', '"$x"', '$null',
            '$true', '@()', '@{}', '@(1,2)', '@{a=1}', '[char]65', "'2024-01-31'", "'*'", "'['"]
TYPES = ['[int]', '[uint32]', '[int64]', '[uint64]', '[byte]', '[decimal]', '[double]', '[single]', '[string]',
         '[char]', '[bool]', '[datetime]', '[timespan]', '[hashtable]', '[array]', '[object[]]', '[string[]]',
         '[int[]]', '[version]', '[guid]', '[regex]', '[scriptblock]', '[pscustomobject]', '[ordered]', '[void]',
         '[ref]', '[switch]', '[type]', '[NoSuchType]', '[System.IO.Path]', '[Math]', '[Convert]']
MEMBERS = ['Count', 'Length', 'GetType()', 'ToString()', 'Keys', 'Values', 'Value', 'Name', 'PSObject', 'Nope',
           'Trim()', 'Split(",")', 'Substring(1)', 'Add(1)', 'Contains("a")', 'Where({$_})', 'ForEach({$_})',
           'Item(0)', 'Equals($null)', 'Message', 'Exception', 'TargetObject']
INSERTS = ['|', '| % { $_ }', '| ? { $_ }', '| select -First 1', '| sort', '| Out-Null', '$null', '@()', ',', '(',
           ')', '{', '}', '[', ']', ';', 'break', 'continue', 'return', 'throw', 'exit', '$_', '-not', '!', "'x'", '2>&1',
           '> $null', '.', '::', '@', '$', '`', '"', "'", '#', '<#', 'function', 'param(', 'begin', 'process', 'end',
           'trap { continue }', 'try', 'catch', 'finally', 'foreach', 'while ($false)', 'switch', 'default',
           'if', 'else', 'elseif', '-ErrorAction Stop', '-ErrorAction SilentlyContinue', '$PID', '$Host', '$input',
           '$args', '$PSBoundParameters', '$Error[0]', '$?', '$LASTEXITCODE', 'ConvertTo-Json', 'ConvertFrom-Json',
           'Write-Output', 'Write-Error x', 'Measure-Object', 'Group-Object', 'New-Object', 'Select-Object',
           'Where-Object', 'ForEach-Object', 'Sort-Object -Unique', 'Get-Command', 'Join-Path a b', 'Split-Path',
           '1..3', '-join', '-split', '[int]::MaxValue', '[string]::Empty', '[Math]::Pow(2,64)']


class _Hang(BaseException):
    """Raised by the alarm in a mutant that runs too long: BaseException, so no except in the engine takes it."""


def _tokens(text):
    return _TOKEN.findall(text)


def _mutate(rng, text):
    tokens = _tokens(text)
    if not tokens:
        return text
    for _round in range(rng.choice((1, 1, 1, 2, 3))):
        if not tokens:
            break
        index = rng.randrange(len(tokens))
        kind = rng.randrange(9)
        if kind == 0:
            del tokens[index]
        elif kind == 1:
            tokens.insert(index, tokens[index])
        elif kind == 2 and index + 1 < len(tokens):
            tokens[index], tokens[index + 1] = tokens[index + 1], tokens[index]
        elif kind == 3:
            tokens[index] = rng.choice(OPERATORS)
        elif kind == 4:
            tokens[index] = rng.choice(LITERALS)
        elif kind == 5:
            tokens[index] = rng.choice(TYPES)
        elif kind == 6:
            tokens = tokens[:index]
        elif kind == 7:
            tokens[index:index + 1] = ['.', rng.choice(MEMBERS)]
        else:
            tokens.insert(index, ' %s ' % rng.choice(INSERTS))
    return ''.join(tokens)


def _run(text):
    """Run ``text``; None when it ended as it must, else what escaped (a traceback, or 'hang')."""
    from kubewin_sim.pwsh import EngineDefect, execute, new_interpreter  # pylint: disable=import-outside-toplevel
    from kubewin_sim.pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel

    def alarm(_signal, _frame):
        raise _Hang()
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
    try:
        interpreter = new_interpreter()
        interpreter.step_budget = STEP_BUDGET
        try:
            execute(interpreter, text, None, [])
        except EngineDefect:
            raise
        except Unsupported:
            pass
        return None
    except _Hang:
        return 'hang: no end within %d s' % HANG_SECONDS
    except Exception:  # pylint: disable=broad-except
        return traceback.format_exc(limit=-6)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _statements():
    return sorted({case.text for _topic, case in ALL})


def test_the_unmutated_statements_never_crash_the_engine():
    crashes = [(text, found) for text in _statements() for found in [_run(text)] if found]
    assert not crashes, '\n\n'.join('%r\n%s' % crash for crash in crashes[:5])


def test_mutated_statements_never_crash_the_engine():
    rng = random.Random(SEED)
    statements = _statements()
    started = time.monotonic()
    crashes, tried = [], 0
    while tried < MUTANTS and time.monotonic() - started < SECONDS:
        mutant = _mutate(rng, rng.choice(statements))
        tried += 1
        found = _run(mutant)
        if found:
            crashes.append((mutant, found))
    assert tried >= min(MUTANTS, MINIMUM_RUN), 'only %d mutants ran in %s s' % (tried, SECONDS)
    assert not crashes, '%d of %d mutants crashed the engine; the first:\n\n%s' % (
        len(crashes), tried, '\n\n'.join('%r\n%s' % crash for crash in crashes[:5]))
