"""The node's culture (windows/culture.py): Get-Culture, [System.Globalization.CultureInfo], and the calendar a
date's custom format takes its year from (.NET Framework datetimeformat.cs; ThaiBuddhistCalendar)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import run_on_node  # noqa: E402

# 2026-11-28 10:50:52 UTC, a Saturday: the node's clock set there (windows/system.py reads time.time()).
INSTANT = 1795863052


def node_of(culture=None):
    profile = {'ip': '10.0.0.11'}
    if culture:
        profile['culture'] = culture
    return SimNode(initial_state('win1', profile))


def run(node, text):
    outcome = run_on_node(node, text)
    assert (outcome.exit_code, outcome.errors, outcome.unsupported) == (0, [], None), outcome
    return outcome.output


@pytest.fixture(name='fixed_clock')
def _fixed_clock(monkeypatch):
    monkeypatch.setattr('time.time', lambda: INSTANT)


def test_the_culture_is_the_profiles_and_en_us_by_default():
    assert run(node_of(), "(Get-Culture).Name; [System.Globalization.CultureInfo]::CurrentCulture.LCID") == ['en-US', '1033']
    assert run(node_of('th-TH'), "$c = Get-Culture; $c.Name; $c.LCID; [string]$c.Calendar; "
                                 "[cultureinfo]::CurrentCulture.Name; $c -is [System.Globalization.CultureInfo]") == [
        'th-TH', '1054', 'System.Globalization.ThaiBuddhistCalendar', 'th-TH', 'True']
    assert run(node_of(), "$i = [cultureinfo]::InvariantCulture; \"[$($i.Name)]\"; $i.LCID; ([cultureinfo]'th-TH').LCID") == [
        '[]', '127', '1054']


def test_a_custom_format_takes_the_year_of_the_cultures_calendar(fixed_clock):
    thai = node_of('th-TH')
    assert run(thai, "$d = Get-Date; $d.ToString('yyyyMMdd-HHmmss'); "
                     "$d.ToString('yyyyMMdd-HHmmss', [System.Globalization.CultureInfo]::InvariantCulture); "
                     "$d.ToString('yyyy', [cultureinfo]'en-US'); $d.ToUniversalTime().ToString('o')") == [
        '25691128-105052', '20261128-105052', '2026', '2026-11-28T10:50:52.0000000Z']
    assert run(node_of(), "(Get-Date).ToString('yyyyMMdd-HHmmss')") == ['20261128-105052']


def test_what_the_model_does_not_compute_is_refused(fixed_clock):
    # UmAlQuraCalendar (ar-SA's default) is not modelled, nor a culture's default patterns other than en-US's.
    assert 'UmAlQuraCalendar' in run_on_node(node_of('ar-SA'), "(Get-Date).ToString('yyyyMMdd')").unsupported
    assert 'th-TH' in run_on_node(node_of('th-TH'), "(Get-Date).ToString('')").unsupported
    assert 'xx-YY' in run_on_node(node_of(), "[cultureinfo]::GetCultureInfo('xx-YY')").unsupported
    assert run_on_node(node_of(), "try { [cultureinfo]::GetCultureInfo('not a culture!') } "
                                  "catch { $_.Exception.InnerException.GetType().FullName }").output == [
        'System.Globalization.CultureNotFoundException']


def test_set_culture_changes_the_accounts_culture_for_the_sessions_that_start_after_it():
    node = node_of()
    assert run(node, "Set-Culture -CultureInfo th-TH; (Get-Culture).Name") == ['en-US']
    assert run(node, "(Get-Culture).Name") == ['th-TH']
    assert run(node, "Set-Culture ([cultureinfo]'en-US')") == []
    assert run(node, "[cultureinfo]::CurrentCulture.Name") == ['en-US']
