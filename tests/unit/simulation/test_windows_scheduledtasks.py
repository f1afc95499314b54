"""Scheduled tasks (windows/scheduledtasks.py) and scheduled_task_apply.ps1 run whole in the engine.

Sources: the ScheduledTasks pages of MicrosoftDocs/windows-powershell-docs (docset/winserver2022-ps), the
MSFT_ScheduledTask CIM classes, and the Task Scheduler schema (repetition intervals as XML durations; a pattern
without a duration repeats indefinitely). The registered task's action is then run as Task Scheduler would start
it, so the command line the collection registers is one that works.
"""

import json
import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402
from ansible_collections.kubewin.node.plugins.plugin_utils._log_rotation import log_rotation  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import run_on_node  # noqa: E402
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402

# The task the log_rotation role registers (the script and config paths quoted).
ARGUMENTS = log_rotation({'kubernetes_version': '1.33.13', 'logs': []})['task']['arguments']


def apply(node, **parameters):
    result = invoke(node, _pwsh.load_script('scheduled_task_apply'), parameters, error_action='stop')
    assert (result['failed'], result['error']) == (False, []), result
    return _contracts.check('scheduled_task_apply', json.loads(result['result']))['state']


def test_registering_reports_the_task_as_the_cim_classes_describe_it():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    state = apply(node, Name='log-rotation', Description='rotates logs', Execute='powershell.exe', Arguments=ARGUMENTS,
                  IntervalMinutes=90)
    task = state['scheduled_tasks']['log-rotation']
    assert task['actions'] == [{'execute': 'powershell.exe', 'arguments': ARGUMENTS}]
    assert [trigger['interval'] for trigger in task['triggers']] == ['PT1H30M']
    assert task['triggers'][0]['start'].endswith('T00:00:00'), 'midnight of the day it was registered'
    assert (task['user_id'], task['run_level'], task['state'], task['description']) == ('SYSTEM', 'Highest', 'Ready', 'rotates logs')


def test_registering_again_replaces_the_task_and_removing_it_leaves_no_task_folder():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    apply(node, Name='log-rotation', Execute='powershell.exe', Arguments=ARGUMENTS)
    state = apply(node, Name='log-rotation', Execute='powershell.exe', Arguments=ARGUMENTS, IntervalMinutes=15)
    assert [t['interval'] for t in state['scheduled_tasks']['log-rotation']['triggers']] == ['PT15M']
    assert len(node.data['scheduled_tasks']) == 1
    assert apply(node, Name='log-rotation', Remove=True)['scheduled_tasks'] == {}
    # Removing what is not there is not an error either.
    assert apply(node, Name='log-rotation', Remove=True)['scheduled_tasks'] == {}


def test_the_cmdlets_fail_as_the_cdxml_cmdlets_do():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    missing = run_on_node(node, "Get-ScheduledTask -TaskName nothing -TaskPath '\\kubewin\\'")
    assert len(missing.errors) == 1 and "property 'TaskName' equal to 'nothing'" in str(missing.errors[0])
    folder = run_on_node(node, "Get-ScheduledTask -TaskPath '\\kubewin\\'")
    assert "property 'TaskPath' equal to '\\kubewin\\'" in str(folder.errors[0])
    register = ("$a = New-ScheduledTaskAction -Execute cmd.exe; $p = New-ScheduledTaskPrincipal -UserId SYSTEM "
                "-LogonType ServiceAccount -RunLevel Highest; Register-ScheduledTask -TaskName t -TaskPath '\\kubewin\\' "
                "-Action $a -Principal $p | Out-Null")
    assert not run_on_node(node, register).errors
    again = run_on_node(node, register)
    assert len(again.errors) == 1 and 'already exists' in str(again.errors[0])


def test_the_registered_action_runs_the_log_rotation(tmp_path):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    node.write_file('C:\\ProgramData\\kubewin\\log-rotation\\rotate.ps1', content=_pwsh.load_script('log_rotate'))
    node.write_file('C:\\ProgramData\\kubewin\\log-rotation\\config.json', content=json.dumps(
        {'max_bytes': 10, 'files_kept': 1, 'logs': [{'path': 'C:\\var\\log\\x\\x.log', 'copy_truncate': True}]}))
    node.write_file('C:\\var\\log\\x\\x.log', content='y' * 20)
    task = apply(node, Name='log-rotation', Execute='powershell.exe', Arguments=ARGUMENTS)['scheduled_tasks']['log-rotation']
    # Task Scheduler starts Execute with Arguments as its command line.
    ran = run_on_node(node, '& %s %s; $LASTEXITCODE' % (task['actions'][0]['execute'], task['actions'][0]['arguments']))
    assert ran.output[-1] in (0, '0'), ran
    assert node.content_view('C:\\var\\log\\x\\x.log')['text'] == ''


def test_reading_leaves_a_node_without_tasks_as_it_was():
    # node_info reads the task folder on every node, in check mode too: a read must not change the node.
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    # (The clock moves on: the module's temporary folder is written and removed.)
    before = json.dumps(dict(node.data, clock_offset=None), sort_keys=True, default=str)
    result = invoke(node, _pwsh.load_script('node_info'), {'Sections': ['scheduled_tasks']}, error_action='stop')
    assert json.loads(result['result'])['scheduled_tasks'] == {}
    assert json.dumps(dict(node.data, clock_offset=None), sort_keys=True, default=str) == before
