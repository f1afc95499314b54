"""The node's clock in the Windows model (windows/system.py): System.Diagnostics.Stopwatch and System.TimeSpan.

Sources: the .NET API reference (dotnet/dotnet-api-docs xml/System.Diagnostics/Stopwatch.xml: StartNew returns a
running instance, the constructor a stopped one at zero; the elapsed properties grow while it runs and stay
constant once stopped; Start resumes from the total, Reset clears it, Restart clears and starts; Elapsed is a
TimeSpan, ElapsedMilliseconds an Int64) and xml/System/TimeSpan.xml with "Standard TimeSpan format strings" (the
Total* properties are Doubles; the components Int32; [string] is the constant format [-][d.]hh:mm:ss[.fffffff]).
The node's clock is simulated (kubewin_sim/node.py, tests/simulation/README.md "Time"): time passes with Start-Sleep
(and downloads, test_windows_downloads.py) and with nothing else, not with the engine's own run time, so the
figures are exact whatever the test machine's load.
"""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import run_on_node, system  # noqa: E402  pylint: disable=wrong-import-position


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
    assert elapsed == 90.0
    assert later == elapsed, 'a stopped stopwatch keeps its time'


def test_start_resumes_from_the_total_reset_clears_and_restart_starts_again():
    resumed, reset, reset_running, restarted, restarted_running = run(
        '$watch = [Diagnostics.Stopwatch]::StartNew(); Start-Sleep 10; $watch.Stop(); Start-Sleep 100; '
        '$watch.Start(); Start-Sleep 5; $watch.Elapsed.TotalSeconds; '
        '$watch.Reset(); $watch.Elapsed.Ticks; $watch.IsRunning; '
        'Start-Sleep 20; $watch.Restart(); Start-Sleep 3; $watch.ElapsedMilliseconds; $watch.IsRunning')
    assert resumed == 15.0
    assert (reset, reset_running, restarted_running) == (0, False, True)
    assert restarted == 3000


def test_a_new_stopwatch_is_stopped_at_zero():
    assert run('$watch = New-Object -TypeName System.Diagnostics.Stopwatch; Start-Sleep 5; '
               '$watch.IsRunning; $watch.Elapsed.Ticks; "$($watch.Elapsed)"; [Diagnostics.Stopwatch]::new().IsRunning') == [
        False, 0, '00:00:00', False]


def test_the_types_of_the_figures():
    assert run('$watch = [Diagnostics.Stopwatch]::StartNew(); $watch.Stop(); $watch.Elapsed.GetType().FullName; '
               '$watch.Elapsed.TotalSeconds.GetType().FullName; $watch.ElapsedMilliseconds.GetType().FullName; '
               '$watch.Elapsed.Ticks.GetType().FullName; $watch.Elapsed.Seconds.GetType().FullName') == [
        'System.TimeSpan', 'System.Double', 'System.Int64', 'System.Int64', 'System.Int32']


@pytest.mark.parametrize('milliseconds, text, components', [
    # [string] of the span in the "c" format (the fraction only when there is one), and its Days, Hours, Minutes,
    # Seconds.
    (90061500, '1.01:01:01.5000000', [1, 1, 1, 1]),
    (59000, '00:00:59', [0, 0, 0, 59]),
    (250, '00:00:00.2500000', [0, 0, 0, 0]),
])
def test_a_timespan_has_its_components_and_its_constant_format(milliseconds, text, components):
    found, days, hours, minutes, seconds, total = run(
        '$watch = [Diagnostics.Stopwatch]::StartNew(); Start-Sleep -Milliseconds %d; $watch.Stop(); $span = $watch.Elapsed; '
        '"$span"; $span.Days; $span.Hours; $span.Minutes; $span.Seconds; $span.TotalMilliseconds' % milliseconds)
    assert found == text
    assert [days, hours, minutes, seconds] == components
    assert total == milliseconds


def test_the_engines_own_run_time_is_not_the_nodes():
    # A script that works for a while without waiting: on the node no time passes (the engine's speed, and the
    # test machine's load, are not Windows').
    ticks, same_date = run(
        '$watch = [Diagnostics.Stopwatch]::StartNew(); $before = Get-Date; $sum = 0; '
        'foreach ($i in 1..2000) { $sum += $i }; $watch.Elapsed.Ticks; (Get-Date).ToString("o") -eq $before.ToString("o")')
    assert (ticks, same_date) == (0, True)


def test_get_date_moves_with_the_sleeps_exactly():
    assert run('$start = Get-Date; Start-Sleep -Seconds 42; Start-Sleep -Milliseconds 500; $end = Get-Date; '
               '$end.ToString("o") -eq $start.AddSeconds(42.5).ToString("o"); $end -gt $start.AddSeconds(42)') == [
        True, True]


def test_a_whole_span_has_no_fraction_and_a_negative_one_its_sign():
    span = system.TimeSpan(-(3600 + 2) * system.TICKS_PER_SECOND)
    assert (span.to_string(), span.Hours, span.Seconds, span.TotalSeconds) == ('-01:00:02', -1, -2, -3602.0)
