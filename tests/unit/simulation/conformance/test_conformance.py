# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Conformance of the simulated PowerShell engine with documented Windows PowerShell 5.1 behaviour.

Every case lives as data in ``cases_<topic>.py`` beside this module and names its source.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[2] / 'simulation'))

from _case import Case  # noqa: E402  pylint: disable=wrong-import-position

MIN_CASES = 150


def _load_cases():
    cases = []
    for path in sorted(HERE.glob('cases_*.py')):
        spec = importlib.util.spec_from_file_location('conformance_' + path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for case in module.CASES:
            assert isinstance(case, Case), (path.name, case)
            cases.append((path.stem[len('cases_'):], case))
    return cases


ALL = _load_cases()


def test_enough_cases():
    assert len(ALL) >= MIN_CASES, 'only %d conformance cases' % len(ALL)


def test_names_unique():
    seen = {}
    for topic, case in ALL:
        assert case.name not in seen, 'case %r in %s and %s' % (case.name, seen[case.name], topic)
        seen[case.name] = topic


def test_every_case_cites_a_source():
    assert [c.name for _topic, c in ALL if not c.source.strip()] == []


def test_exit_codes():
    """0 or 1, as PowerShell; 2 only for a case that expects the engine's refusal (and then always 2)."""
    assert [c.name for _topic, c in ALL if c.exit_code not in (0, 1) and not c.unsupported] == []
    assert [c.name for _topic, c in ALL if c.unsupported and c.exit_code != 2] == []


def _errors_match(expected, actual):
    i = 0
    for message in actual:
        if i < len(expected) and expected[i] in message:
            i += 1
    return i == len(expected)


@pytest.mark.parametrize('case', [c for _topic, c in ALL], ids=[c.name for _topic, c in ALL])
def test_case(case):
    from kubewin_sim.pwsh import run_command

    outcome = run_command(case.text)
    report = '\n'.join([
        'text:      %s' % case.text,
        'source:    %s' % case.source,
        'output:    %r (expected %r)' % (outcome.output, case.output),
        'errors:    %r (expected substrings %r)' % (outcome.errors, case.errors),
        'exit_code: %r (expected %r)' % (outcome.exit_code, case.exit_code),
        'refused:   %r (expected %r)' % (outcome.unsupported, case.unsupported),
    ])
    if case.unsupported:
        assert outcome.unsupported is not None and case.unsupported in outcome.unsupported, report
    else:
        assert outcome.exit_code != 2, 'construct not implemented by the engine\n' + report
    assert list(outcome.output) == list(case.output), report
    assert _errors_match(case.errors, list(outcome.errors)), report
    if not case.errors:
        assert list(outcome.errors) == [], report
    assert outcome.exit_code == case.exit_code, report
