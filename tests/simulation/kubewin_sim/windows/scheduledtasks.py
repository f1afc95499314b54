"""Scheduled tasks: the ScheduledTasks cmdlets over ``node.data['scheduled_tasks']``.

Sources: the cmdlets' pages in MicrosoftDocs/windows-powershell-docs (docset/winserver2022-ps/ScheduledTasks:
New-ScheduledTaskAction, New-ScheduledTaskTrigger, New-ScheduledTaskPrincipal, Register-ScheduledTask,
Get-ScheduledTask, Unregister-ScheduledTask) and the CIM classes they return (Root/Microsoft/Windows/TaskScheduler:
MSFT_ScheduledTask, MSFT_TaskExecAction, MSFT_TaskTimeTrigger, MSFT_TaskBootTrigger, MSFT_TaskRepetitionPattern,
MSFT_TaskPrincipal2). Task Scheduler's own schema: a repetition interval and duration are XML durations
(``PT1H``), and "if no value is specified for the duration, then the pattern is repeated indefinitely"
(Task Scheduler schema, Duration (repetitionType) element). What the model holds:

- ``scheduled_tasks['<TaskPath><TaskName>']`` = ``{name, path, description, actions: [{execute, arguments,
  working_directory}], triggers: [{type: 'once'|'boot', start, interval, duration}], principal: {user_id,
  logon_type, run_level}, state}``; the task path is a folder such as ``\\`` or ``\\kubewin\\``.
- Register-ScheduledTask of a name that exists in the path fails unless ``-Force`` (which replaces the task),
  a CIM failure (HRESULT 0x800700b7, "Cannot create a file when that file already exists.") written as the
  CDXML cmdlets write one: a non-terminating error. Without ``-Principal``, ``-User`` or ``-RunLevel`` the task
  runs as the user who registers it (not modelled: the model refuses it, so a script names its principal).
- Get-ScheduledTask ``-TaskName`` and ``-TaskPath`` take wildcards; a literal that matches nothing writes the
  ObjectNotFound error every CDXML cmdlet writes. Unregister-ScheduledTask asks for confirmation (its
  ConfirmImpact is High) unless ``-Confirm:$false``, which the scripts pass, since no one answers
  the prompt in a remote session (the engine takes -Confirm:$false and refuses any other -Confirm).
- Only the -Once and -AtStartup triggers are modelled; the task's schedule is not run by the model (a test runs
  the registered action's command line itself).
"""

from ..pwsh.commands import CDXML
from ..pwsh.types import enum_type
from ..pwsh.values import PSArray, PSError, Unsupported, enumerate_value, is_enumerable, is_null, to_string
from ..pwsh import operators as ops
from .cim import CimInstance
from .system import TICKS_PER_SECOND, TimeSpan

_GENERATED = 'Microsoft.PowerShell.Cmdletization.GeneratedTypes.ScheduledTask.'
LOGON_TYPE = enum_type(_GENERATED + 'LogonTypeEnum', {
    'None': 0, 'Password': 1, 'S4U': 2, 'Interactive': 3, 'Group': 4, 'ServiceAccount': 5,
    'InteractiveOrPassword': 6}).enum
RUN_LEVEL = enum_type(_GENERATED + 'RunLevelEnum', {'Limited': 0, 'Highest': 1}).enum
STATE = enum_type(_GENERATED + 'StateEnum', {'Unknown': 0, 'Disabled': 1, 'Queued': 2, 'Ready': 3, 'Running': 4}).enum
_CIM_EXCEPTION = 'Microsoft.Management.Infrastructure.CimException'


class TaskExecAction(CimInstance):
    CLASS = 'MSFT_TaskExecAction'
    PROPERTIES = ('Id', 'Arguments', 'Execute', 'WorkingDirectory')


class TaskRepetitionPattern(CimInstance):
    CLASS = 'MSFT_TaskRepetitionPattern'
    PROPERTIES = ('Duration', 'Interval', 'StopAtDurationEnd')


class TaskTimeTrigger(CimInstance):
    CLASS = 'MSFT_TaskTimeTrigger'
    PROPERTIES = ('Enabled', 'EndBoundary', 'ExecutionTimeLimit', 'Id', 'Repetition', 'StartBoundary', 'RandomDelay')


class TaskBootTrigger(CimInstance):
    CLASS = 'MSFT_TaskBootTrigger'
    PROPERTIES = ('Enabled', 'EndBoundary', 'ExecutionTimeLimit', 'Id', 'Repetition', 'StartBoundary', 'Delay')


class TaskPrincipal(CimInstance):
    CLASS = 'MSFT_TaskPrincipal2'
    PROPERTIES = ('DisplayName', 'GroupId', 'Id', 'LogonType', 'RunLevel', 'UserId', 'ProcessTokenSidType',
                  'RequiredPrivilege')


class ScheduledTask(CimInstance):
    CLASS = 'MSFT_ScheduledTask'
    KEY = 'TaskName'
    PROPERTIES = ('Actions', 'Author', 'Date', 'Description', 'Documentation', 'Principal', 'SecurityDescriptor',
                  'Settings', 'Source', 'State', 'TaskName', 'TaskPath', 'Triggers', 'URI', 'Version')


def _tasks(node, registering=False):
    # A node that never had a task has no key for them: reading must leave the node as it was.
    if registering:
        return node.data.setdefault('scheduled_tasks', {})
    return node.data.get('scheduled_tasks') or {}


def _duration(value):
    """A TimeSpan as the XML duration Task Scheduler stores (PT1H, PT15M, P1DT2H)."""
    if is_null(value):
        return ''
    if not isinstance(value, TimeSpan):
        raise Unsupported('a repetition given as %s rather than a TimeSpan' % type(value).__name__)
    seconds = int(value.Ticks) // TICKS_PER_SECOND
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    text = 'P' + ('%dD' % days if days else '')
    time_part = ''.join('%d%s' % (number, unit) for number, unit in ((hours, 'H'), (minutes, 'M'), (seconds, 'S')) if number)
    return text + ('T' + time_part if time_part else '') if (days or time_part) else 'PT0S'


def _items(value):
    return list(enumerate_value(value)) if is_enumerable(value) else [value]


def new_scheduledtaskaction(ctx, params, input_items):
    return [TaskExecAction(Id=None, Execute=to_string(params['Execute']),
                           Arguments=None if is_null(params.get('Argument')) else to_string(params['Argument']),
                           WorkingDirectory=None if is_null(params.get('WorkingDirectory')) else to_string(params['WorkingDirectory']))]


def new_scheduledtasktrigger(ctx, params, input_items):
    repetition = TaskRepetitionPattern(Duration=_duration(params.get('RepetitionDuration')) or None,
                                       Interval=_duration(params.get('RepetitionInterval')) or None, StopAtDurationEnd=False)
    if params.get('AtStartup'):
        return [TaskBootTrigger(Enabled=True, Repetition=repetition, StartBoundary=None, Delay=None)]
    if params.get('Once'):
        at = params['At']
        start = at.strftime('%Y-%m-%dT%H:%M:%S') if hasattr(at, 'strftime') else to_string(at)
        return [TaskTimeTrigger(Enabled=True, Repetition=repetition, StartBoundary=start, RandomDelay=None)]
    raise Unsupported('New-ScheduledTaskTrigger other than -Once or -AtStartup')


def new_scheduledtaskprincipal(ctx, params, input_items):
    if 'GroupId' in params:
        raise Unsupported('New-ScheduledTaskPrincipal -GroupId')
    logon = params.get('LogonType')
    run_level = params.get('RunLevel')
    return [TaskPrincipal(
        DisplayName=None, GroupId=None, Id='Author', UserId=to_string(params['UserId']),
        LogonType=LOGON_TYPE.parse(to_string(logon)) if logon is not None else LOGON_TYPE(0),
        RunLevel=RUN_LEVEL.parse(to_string(run_level)) if run_level is not None else RUN_LEVEL(0),
        ProcessTokenSidType=None, RequiredPrivilege=None)]


def _task_object(task):
    actions = [TaskExecAction(Id=None, Execute=a['execute'], Arguments=a['arguments'], WorkingDirectory=a['working_directory'])
               for a in task['actions']]
    triggers = []
    for trigger in task['triggers']:
        repetition = TaskRepetitionPattern(Duration=trigger['duration'], Interval=trigger['interval'], StopAtDurationEnd=False)
        if trigger['type'] == 'boot':
            triggers.append(TaskBootTrigger(Enabled=True, Repetition=repetition, StartBoundary=None, Delay=None))
        else:
            triggers.append(TaskTimeTrigger(Enabled=True, Repetition=repetition, StartBoundary=trigger['start'], RandomDelay=None))
    principal = task['principal']
    return ScheduledTask(
        Actions=PSArray(actions, 'Microsoft.Management.Infrastructure.CimInstance'), Author=None, Date=None,
        Description=task['description'], Documentation=None,
        Principal=TaskPrincipal(DisplayName=None, GroupId=None, Id='Author', UserId=principal['user_id'],
                                LogonType=LOGON_TYPE.parse(principal['logon_type']),
                                RunLevel=RUN_LEVEL.parse(principal['run_level']),
                                ProcessTokenSidType=None, RequiredPrivilege=None),
        SecurityDescriptor=None, Settings=None, Source=None, State=STATE.parse(task['state']),
        TaskName=task['name'], TaskPath=task['path'],
        Triggers=PSArray(triggers, 'Microsoft.Management.Infrastructure.CimInstance'),
        URI=task['path'] + task['name'], Version=None)


def _task_path(params):
    path = '\\' if is_null(params.get('TaskPath')) else to_string(params['TaskPath'])
    if not (path.startswith('\\') and path.endswith('\\')):
        raise Unsupported('a task path that does not begin and end with a backslash: %r' % path)
    return path


def register_scheduledtask(ctx, params, input_items):
    for unsupported in ('Xml', 'InputObject', 'User', 'Password', 'RunLevel', 'CimSession', 'AsJob', 'Settings'):
        if params.get(unsupported) is not None:
            raise Unsupported('Register-ScheduledTask -%s' % unsupported)
    if params.get('Principal') is None:
        raise Unsupported('Register-ScheduledTask without -Principal (the task would run as the caller)')
    name, path = to_string(params['TaskName']), _task_path(params)
    tasks = _tasks(ctx.host.node, registering=True)
    key = (path + name).lower()
    if key in tasks and not params.get('Force'):
        ctx.write_error(PSError('Cannot create a file when that file already exists.', _CIM_EXCEPTION,
                                'HRESULT 0x800700b7,Register-ScheduledTask', 'ResourceExists', target=name))
        return []
    triggers = []
    for trigger in _items(params.get('Trigger')) if params.get('Trigger') is not None else []:
        kind = 'boot' if isinstance(trigger, TaskBootTrigger) else 'once'
        triggers.append({'type': kind, 'start': trigger.StartBoundary, 'interval': trigger.Repetition.Interval,
                         'duration': trigger.Repetition.Duration})
    principal = params['Principal']
    tasks[key] = {
        'name': name, 'path': path, 'description': None if is_null(params.get('Description')) else to_string(params['Description']),
        'actions': [{'execute': a.Execute, 'arguments': a.Arguments, 'working_directory': a.WorkingDirectory}
                    for a in _items(params['Action'])],
        'triggers': triggers,
        'principal': {'user_id': principal.UserId, 'logon_type': str(principal.LogonType), 'run_level': str(principal.RunLevel)},
        'state': 'Ready'}
    return [_task_object(tasks[key])]


def _not_found(ctx, property_name, value):
    ctx.write_error(PSError("No MSFT_ScheduledTask objects found with property '%s' equal to '%s'.  Verify the value of "
                            "the property and retry." % (property_name, value), _CIM_EXCEPTION,
                            'CmdletizationQuery_NotFound_%s,%s' % (property_name, ctx.cmdlet.name), 'ObjectNotFound',
                            target=value))


def _literal(pattern):
    return not any(char in pattern for char in '*?[')


def _select(ctx, params):
    """The tasks -TaskName and -TaskPath (wildcards) select; a literal that matches nothing is an ObjectNotFound error."""
    tasks = _tasks(ctx.host.node)
    names = [to_string(item) for item in _items(params['TaskName'])] if params.get('TaskName') is not None else None
    paths = [to_string(item) for item in _items(params['TaskPath'])] if params.get('TaskPath') is not None else ['*']
    in_paths = [key for key, task in tasks.items() if any(ops.wildcard(path).match(task['path']) for path in paths)]
    if names is None:
        for path in paths:
            if _literal(path) and not any(ops.wildcard(path).match(tasks[key]['path']) for key in in_paths):
                _not_found(ctx, 'TaskPath', path)
        return in_paths
    chosen = []
    for pattern in names:
        hits = [key for key in in_paths if ops.wildcard(pattern).match(tasks[key]['name'])]
        if not hits and _literal(pattern):
            _not_found(ctx, 'TaskName', pattern)
        chosen.extend(key for key in hits if key not in chosen)
    return chosen


def get_scheduledtask(ctx, params, input_items):
    tasks = _tasks(ctx.host.node)
    return [_task_object(tasks[key]) for key in _select(ctx, params)]


def unregister_scheduledtask(ctx, params, input_items):
    if params.get('InputObject') is not None:
        raise Unsupported('Unregister-ScheduledTask -InputObject')
    tasks = _tasks(ctx.host.node, registering=True)
    for key in _select(ctx, params):
        tasks.pop(key, None)
    return []


CMDLETS = {
    'Get-ScheduledTask': get_scheduledtask,
    'New-ScheduledTaskAction': new_scheduledtaskaction,
    'New-ScheduledTaskPrincipal': new_scheduledtaskprincipal,
    'New-ScheduledTaskTrigger': new_scheduledtasktrigger,
    'Register-ScheduledTask': register_scheduledtask,
    'Unregister-ScheduledTask': unregister_scheduledtask,
}
# ScheduledTasks is a CDXML module (its reference pages list CimSession, ThrottleLimit and AsJob): pwsh/commands.py.
CMDLET_KIND = CDXML
