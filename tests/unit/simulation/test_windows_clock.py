"""The node's clock in the Windows model (windows/system.py): System.Diagnostics.Stopwatch and System.TimeSpan.

Sources: the .NET API reference (dotnet/dotnet-api-docs xml/System.Diagnostics/Stopwatch.xml: StartNew returns a
running instance, the constructor a stopped one at zero; the elapsed properties grow while it runs and stay
constant once stopped; Start resumes from the total, Reset clears it, Restart clears and starts; Elapsed is a
TimeSpan, ElapsedMilliseconds an Int64) and xml/System/TimeSpan.xml with "Standard TimeSpan format strings" (the
Total* properties are Doubles; the components Int32; [string] is the constant format [-][d.]hh:mm:ss[.fffffff]).
Simulated time passes with Start-Sleep (and downloads, test_windows_downloads.py); the engine's own run time is
real time on the same counter, so the figures are compared to a tolerance of ENGINE_SECONDS.
"""

import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import run_on_node, system  # noqa: E402  pylint: disable=wrong-import-position

ENGINE_SECONDS = 1.0


def run(text):
    outcome = run_on_node(SimNode(initial_state('win1', {'ip': '10.0.0.11'})), text)
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    return outcome.objects


def test_startnew_runs_until_stopped_and_then_holds_its_time():
    elapsed, running, stopped, later = run(
        '$watch = [System.Diagnostics.Stopwatch]::StartNew(); Start-Sleep -Seconds 90; $running = $watch.IsRunning; '
        '$watch.Stop(); $elapsed = $watch.Elapsed.TotalSeconds; Start-Sleep -Seconds 30; '
        '$elapsed; $running; $watch.IsRunning; $watch.Elapsed.TotalSeconds')
    assert (running, stopped) == (True, False)
    assert elapsed == pytest.approx(90, abs=ENGINE_SECONDS)
    assert later == elapsed, 'a stopped stopwatch keeps its time'


def test_start_resumes_from_the_total_reset_clears_and_restart_starts_again():
    resumed, reset, reset_running, restarted, restarted_running = run(
        '$watch = [Diagnostics.Stopwatch]::StartNew(); Start-Sleep 10; $watch.Stop(); Start-Sleep 100; '
        '$watch.Start(); Start-Sleep 5; $watch.Elapsed.TotalSeconds; '
        '$watch.Reset(); $watch.Elapsed.Ticks; $watch.IsRunning; '
        'Start-Sleep 20; $watch.Restart(); Start-Sleep 3; $watch.ElapsedMilliseconds; $watch.IsRunning')
    assert resumed == pytest.approx(15, abs=ENGINE_SECONDS)
    assert (reset, reset_running, restarted_running) == (0, False, True)
    assert restarted == pytest.approx(3000, abs=ENGINE_SECONDS * 1000)


def test_a_new_stopwatch_is_stopped_at_zero():
    assert run('$watch = New-Object -TypeName System.Diagnostics.Stopwatch; Start-Sleep 5; '
               '$watch.IsRunning; $watch.Elapsed.Ticks; "$($watch.Elapsed)"; [Diagnostics.Stopwatch]::new().IsRunning') == [
        False, 0, '00:00:00', False]


def test_the_types_of_the_figures():
    assert run('$watch = [Diagnostics.Stopwatch]::StartNew(); $watch.Stop(); $watch.Elapsed.GetType().FullName; '
               '$watch.Elapsed.TotalSeconds.GetType().FullName; $watch.ElapsedMilliseconds.GetType().FullName; '
               '$watch.Elapsed.Ticks.GetType().FullName; $watch.Elapsed.Seconds.GetType().FullName') == [
        'System.TimeSpan', 'System.Double', 'System.Int64', 'System.Int64', 'System.Int32']


@pytest.mark.parametrize('milliseconds, pattern, components', [
    # [string] of the span in the "c" format, and its Days, Hours, Minutes, Seconds; the engine's own moments add
    # a fraction of a second to what was slept, hence the fraction's digits are a pattern.
    (90061500, r'1\.01:01:01\.[5-9]\d{6}', [1, 1, 1, 1]),
    (59000, r'00:00:59\.\d{7}', [0, 0, 0, 59]),
    (250, r'00:00:00\.[2-9]\d{6}', [0, 0, 0, 0]),
])
def test_a_timespan_has_its_components_and_its_constant_format(milliseconds, pattern, components):
    text, days, hours, minutes, seconds, total = run(
        '$watch = [Diagnostics.Stopwatch]::StartNew(); Start-Sleep -Milliseconds %d; $watch.Stop(); $span = $watch.Elapsed; '
        '"$span"; $span.Days; $span.Hours; $span.Minutes; $span.Seconds; $span.TotalMilliseconds' % milliseconds)
    assert re.fullmatch(pattern, text), text
    assert [days, hours, minutes, seconds] == components
    assert total == pytest.approx(milliseconds, abs=ENGINE_SECONDS * 1000)


def test_a_whole_span_has_no_fraction_and_a_negative_one_its_sign():
    span = system.TimeSpan(-(3600 + 2) * system.TICKS_PER_SECOND)
    assert (span.to_string(), span.Hours, span.Seconds, span.TotalSeconds) == ('-01:00:02', -1, -2, -3602.0)
