"""The service control manager: Get/Start/Stop/Restart/Set/New-Service, sc.exe and Win32_Service.

Sources: the cmdlets' pages in MicrosoftDocs/PowerShell-Docs (reference/5.1/Microsoft.PowerShell.Management)
and their implementation in PowerShell's Service.cs (the 2016 import from Windows PowerShell's source: the
error ids and messages of ServiceResources, [ValidateNotNullOrEmpty] on Set-Service -DisplayName/-Description
and New-Service -DisplayName/-Description); System.ServiceProcess.ServiceController (.NET Framework 4.x
API reference: properties, DependentServices being every service that depends on it directly or not,
Status as read when the object was made, until Refresh()); sc.exe config / failure / delete / create /
description (Windows Commands reference: "option= value" with the space after the equals sign, depend=
separated by /) and the Win32 system error codes it prints and exits with (1060
ERROR_SERVICE_DOES_NOT_EXIST, 1073 ERROR_SERVICE_EXISTS, 1072 ERROR_SERVICE_MARKED_FOR_DELETE, 87
ERROR_INVALID_PARAMETER); Win32_Service (CIMWin32 reference) and its Change method (return value 0 on
success); QueryServiceConfig2/ChangeServiceConfig2 with SERVICE_CONFIG_PRESHUTDOWN_INFO (the SERVICE_PRESHUTDOWN_INFO
structure, winsvc.h), which the kubelet calls at its start (kubewin_sim/kubelet_shutdown.py).

State is ``node.data['services']`` (lower-case name -> the service), the same the registry's service keys
show (windows/registry.py). Starting a service runs what the node model makes the program do
(scm.start: the program file, dependencies, kubewin_sim/programs.py).
"""

from .. import scm
from ..node import SimulationError
from ..pwsh import operators as ops
from ..pwsh.types import resolve
from ..pwsh.values import (AUTOMATION_NULL, PSArray, PSError, Unsupported, UInt32, enumerate_value, is_enumerable,
                           is_null, to_string)
from ..programs import ProgramFailure
from . import registry, remoteaccess, system
from .cim import CimInstance, CimMethodResult

STATUS = resolve('System.ServiceProcess.ServiceControllerStatus').enum
START_MODE = resolve('System.ServiceProcess.ServiceStartMode').enum
# The ServiceStartMode values (Automatic 2, Manual 3, Disabled 4) Set-Service and New-Service pass to the SCM.
_WIN32_START_MODES = {2: 'auto', 3: 'manual', 4: 'disabled'}
_START_TYPE_NAMES = {'auto': 'Automatic', 'delayed': 'Automatic', 'manual': 'Manual', 'disabled': 'Disabled',
                     'boot': 'Boot', 'system': 'System'}


def _service_type_enum():
    from ..pwsh.types import enum_type  # pylint: disable=import-outside-toplevel
    return enum_type('System.ServiceProcess.ServiceType', {
        'KernelDriver': 1, 'FileSystemDriver': 2, 'Adapter': 4, 'RecognizerDriver': 8, 'Win32OwnProcess': 16,
        'Win32ShareProcess': 32, 'InteractiveProcess': 256}, flags=True).enum


SERVICE_TYPE = _service_type_enum()


def _record(node, name):
    """(canonical name, display name, status text, start mode, service type, record or None) of a service."""
    scm.settle(node)
    service = node.data['services'].get(name.lower())
    if service is not None:
        return service
    builtin = registry.builtin_services(node).get(name.lower())
    if builtin is not None and builtin[2] != 0x1:
        record = {'name': builtin[0], 'display_name': builtin[1], 'state': 'running', 'start_mode': 'auto',
                  'dependencies': [], 'builtin': True, 'type': builtin[2], 'exit_code': 0,
                  'command_line': registry.expand(node, builtin[3]), 'account': builtin[4]}
        # The one built-in service whose state the model keeps: RemoteAccess, installed Disabled and stopped.
        if builtin[0] == 'RemoteAccess':
            record.update(remoteaccess.service_state(node), modelled=True)
        return record
    return None


def all_services(node):
    names = [service['name'] for service in node.data['services'].values()]
    names += [entry[0] for entry in registry.builtin_services(node).values() if entry[2] != 0x1]
    return sorted(names, key=str.lower)


def dependents_in_stop_order(node, name):
    """Every service depending on ``name`` directly or not, as EnumDependentServices returns them: in the
    reverse of the order they start (a service before those it depends on)."""
    found = [key for key in scm.dependents(node, name) if _record(node, key) is not None]
    started = []

    def start_order(key):
        if key in started:
            return
        for dependency in (_record(node, key) or {}).get('dependencies') or []:
            if dependency.lower() in found:
                start_order(dependency.lower())
        started.append(key)

    for key in found:
        start_order(key)
    return list(reversed(started))


# ServiceControllerStatus of each state of node.data['services'] (scm.py).
_STATUS_NAMES = {'stopped': 'Stopped', 'start_pending': 'StartPending', 'running': 'Running',
                 'stop_pending': 'StopPending'}
_STATES = {status.lower(): state for state, status in _STATUS_NAMES.items()}


class ServiceController:
    """System.ServiceProcess.ServiceController as Get-Service returns it (Name and RequiredServices are
    PowerShell's alias properties for ServiceName and ServicesDependedOn), with the methods of the .NET Framework 4.x
    reference (Start, Stop, WaitForStatus, Refresh)."""

    NET = 'System.ServiceProcess.ServiceController'
    PROPERTIES = ('Name', 'RequiredServices', 'CanPauseAndContinue', 'CanShutdown', 'CanStop', 'DisplayName',
                  'DependentServices', 'MachineName', 'ServiceName', 'ServicesDependedOn', 'ServiceHandle', 'Status',
                  'ServiceType', 'StartType', 'Site', 'Container')

    def __init__(self, node, name):
        self._node = node
        self._key = name.lower()
        self._read()
        self.MachineName = '.'  # pylint: disable=invalid-name
        self.ServiceHandle = None  # pylint: disable=invalid-name
        self.Site = None  # pylint: disable=invalid-name
        self.Container = None  # pylint: disable=invalid-name

    def _read(self):
        record = _record(self._node, self._key)
        if record is None:
            raise PSError("Cannot open %s service on computer '.'." % self._key, 'System.InvalidOperationException')
        self.ServiceName = record['name']  # pylint: disable=invalid-name
        self.Name = record['name']  # pylint: disable=invalid-name
        self.DisplayName = record.get('display_name') or record['name']  # pylint: disable=invalid-name
        running = record.get('state') == 'running'
        self.Status = STATUS.parse(_STATUS_NAMES[record.get('state') or 'stopped'])  # pylint: disable=invalid-name
        self.StartType = START_MODE.parse(_START_TYPE_NAMES[record.get('start_mode') or 'manual'])  # pylint: disable=invalid-name
        self.ServiceType = SERVICE_TYPE(record.get('type', 0x10))  # pylint: disable=invalid-name
        self.CanStop = running  # pylint: disable=invalid-name
        self.CanShutdown = False  # pylint: disable=invalid-name
        self.CanPauseAndContinue = False  # pylint: disable=invalid-name

    @property
    def DependentServices(self):  # pylint: disable=invalid-name
        return PSArray([ServiceController(self._node, key) for key in dependents_in_stop_order(self._node, self._key)],
                       'System.ServiceProcess.ServiceController')

    @property
    def ServicesDependedOn(self):  # pylint: disable=invalid-name
        record = _record(self._node, self._key) or {}
        return PSArray([ServiceController(self._node, name) for name in record.get('dependencies') or []
                        if _record(self._node, name) is not None], 'System.ServiceProcess.ServiceController')

    @property
    def RequiredServices(self):  # pylint: disable=invalid-name
        return self.ServicesDependedOn

    def Refresh(self):  # pylint: disable=invalid-name
        self._read()
        return AUTOMATION_NULL

    def Start(self):  # pylint: disable=invalid-name
        _start_service(self._node, self._key)
        return AUTOMATION_NULL

    def Stop(self):  # pylint: disable=invalid-name
        _stop_service(self._node, self._key)
        return AUTOMATION_NULL

    def WaitForStatus(self, desired_status, timeout=None):  # pylint: disable=invalid-name
        """Polls every 250 ms until the status is the one asked for: without a timeout for ever (the model refuses a
        wait nothing would end), with one a System.ServiceProcess.TimeoutException once it has passed."""
        wanted = _STATES.get(to_string(desired_status).lower())
        if wanted is None:
            raise Unsupported('ServiceController.WaitForStatus(%s)' % to_string(desired_status))
        limit = None if timeout is None else _timespan_seconds(timeout)
        reached = _wait_state(self._node, self._key, wanted, limit)
        if reached is None:
            raise Unsupported(_endless('ServiceController.WaitForStatus', self._node, self._key, wanted))
        if not reached:
            raise PSError('Time out has expired and the operation has not been completed.',
                          'System.ServiceProcess.TimeoutException')
        self._read()
        return AUTOMATION_NULL

    def to_string(self):
        return self.NET


def _timespan_seconds(value):
    ticks = getattr(value, 'Ticks', None)
    if ticks is None:
        raise Unsupported('ServiceController.WaitForStatus with a timeout that is not a TimeSpan')
    return int(ticks) / 10 ** 7


# -- errors (ServiceResources; ServiceCommandException) ---------------------------------------------

def _service_error(command, error_id, message, category, target):
    return PSError(message, 'Microsoft.PowerShell.Commands.ServiceCommandException',
                   '%s,Microsoft.PowerShell.Commands.%sCommand' % (error_id, command), category, target=target)


def _no_service(command, name):
    return _service_error(command, 'NoServiceFoundForGivenName', "Cannot find any service with service name '%s'."
                          % name, 'ObjectNotFound', name)


def _has_wildcard(pattern):
    return any(char in pattern for char in '*?[')


def _names(value):
    if value is None:
        return None
    return [to_string(item) for item in (enumerate_value(value) if is_enumerable(value) else [value])]


def _validate_not_empty(command, params, names):
    """[ValidateNotNullOrEmpty] (Service.cs): a parameter-binding error, which ends the command."""
    for name in names:
        if name in params and (is_null(params[name]) or to_string(params[name]) == ''):
            raise PSError("Cannot validate argument on parameter '%s'. The argument is null or empty. Provide an "
                          "argument that is not null or empty, and then try the command again." % name,
                          'System.Management.Automation.ParameterBindingValidationException',
                          'ParameterArgumentValidationError,Microsoft.PowerShell.Commands.%sCommand' % command,
                          'InvalidData')


def _selected(ctx, params, input_items, command):
    """The services a -Name/-DisplayName/-InputObject call names (wildcards allowed in names); errors for
    a name without wildcards that matches nothing."""
    node = ctx.host.node
    if params.get('InputObject') is not None or input_items:
        objects = []
        source = params.get('InputObject')
        items = list(enumerate_value(source)) if is_enumerable(source) else ([source] if source is not None else [])
        for item in items + list(input_items or []):
            objects.append(item.Name if isinstance(item, ServiceController) else to_string(item))
        names = objects
    else:
        names = _names(params.get('Name'))
    display = _names(params.get('DisplayName')) if command == 'GetService' else None
    every = all_services(node)
    if names is None and display is None:
        return every
    found = []
    for pattern in names or []:
        matcher = ops.wildcard(pattern)
        matched = [name for name in every if matcher.match(name)]
        if not matched and not _has_wildcard(pattern):
            ctx.write_error(_no_service(command, pattern))
        found.extend(name for name in matched if name not in found)
    for pattern in display or []:
        matcher = ops.wildcard(pattern)
        matched = [name for name in every if matcher.match(_record(node, name).get('display_name') or name)]
        if not matched and not _has_wildcard(pattern):
            ctx.write_error(_service_error(command, 'NoServiceFoundForGivenDisplayName',
                                           "Cannot find any service with display name '%s'." % pattern,
                                           'ObjectNotFound', pattern))
        found.extend(name for name in matched if name not in found)
    return found


def get_service(ctx, params, input_items):
    node = ctx.host.node
    return [ServiceController(node, name) for name in _selected(ctx, params, input_items, 'GetService')]


def _label(node, name):
    record = _record(node, name)
    return '%s (%s)' % (record.get('display_name') or record['name'], record['name'])


# -- ServiceController.Start and Stop (System.ServiceProcess, .NET Framework 4.x reference source) ----------------
# StartService and ControlService fail with the Win32 errors of their reference pages (winsvc.h): 1056
# ERROR_SERVICE_ALREADY_RUNNING for a service that is not Stopped, 1062 ERROR_SERVICE_NOT_ACTIVE for a stop of a
# Stopped one, 1061 ERROR_SERVICE_CANNOT_ACCEPT_CTRL for a control sent to a StartPending or StopPending service;
# ServiceController wraps them in InvalidOperationException ("Cannot start service {0} on computer '{1}'.",
# "Cannot stop {0} service on computer '{1}'.").

_ALREADY_RUNNING = 1056
_NOT_ACTIVE = 1062
_CANNOT_ACCEPT_CONTROL = 1061
# Their texts (FormatMessage of the code: System Error Codes 0-499 and 1000-1299).
_WIN32_MESSAGES = {2: 'The system cannot find the file specified.',
                   1053: 'The service did not respond to the start or control request in a timely fashion.',
                   _ALREADY_RUNNING: 'An instance of the service is already running.',
                   1058: 'The service cannot be started, either because it is disabled or because it has no enabled '
                         'devices associated with it.',
                   1059: 'Circular service dependency was specified.',
                   _CANNOT_ACCEPT_CONTROL: 'The service cannot accept control messages at this time.',
                   _NOT_ACTIVE: 'The service has not been started.',
                   1067: 'The process terminated unexpectedly.',
                   1068: 'The dependency service or group failed to start.',
                   1075: 'The dependency service does not exist or has been marked for deletion.'}


def _service_failure(verb, node, name, code):
    record = _record(node, name)
    message = ("Cannot start service %s on computer '.'." if verb == 'start' else "Cannot stop %s service on computer "
               "'.'.") % record['name']
    inner = PSError(_WIN32_MESSAGES[code], 'System.ComponentModel.Win32Exception', properties={'NativeErrorCode': code})
    return PSError(message, 'System.InvalidOperationException', inner=inner)


def _native_code(error):
    return (error.inner.properties.get('NativeErrorCode') if error.inner is not None else None)


def _start_service(node, name):
    """ServiceController.Start: StartService; the program's failure to start is the SCM's error."""
    record = _record(node, name)
    if record.get('state') != 'stopped':
        raise _service_failure('start', node, name, _ALREADY_RUNNING)
    if record.get('modelled'):
        # A disabled service does not start: the SCM refuses it (ERROR_SERVICE_DISABLED).
        if record['start_mode'] == 'disabled':
            node.record('%s: the service is disabled' % record['name'])
            raise _service_failure('start', node, name, 1058)
        remoteaccess.set_service_state(node, state='running')
        return
    if record.get('builtin'):
        raise Unsupported('starting the built-in service %s' % name)
    try:
        scm.start(node, record['name'])
    except (SimulationError, ProgramFailure) as failure:
        node.record('%s: %s' % (record['name'], failure))
        # The SCM's refusal (scm.StartRefused) and the program's failure carry their Win32 error; any other failure of
        # the program's start-up (flanneld finding no free subnet) ended its process.
        raise _service_failure('start', node, name, getattr(failure, 'code', scm.ERROR_PROCESS_ABORTED)) from None


def _control_stop(node, name):
    """ControlService(SERVICE_CONTROL_STOP) of one service."""
    record = _record(node, name)
    state = record.get('state')
    if state == 'stopped':
        raise _service_failure('stop', node, name, _NOT_ACTIVE)
    if state != 'running':
        raise _service_failure('stop', node, name, _CANNOT_ACCEPT_CONTROL)
    if record.get('modelled'):
        remoteaccess.set_service_state(node, state='stopped')
    elif record.get('builtin'):
        raise Unsupported('stopping the built-in service %s' % name)
    else:
        scm.control_stop(node, record['name'])


# The .NET Framework's ServiceController.Stop waits this long for each dependent it stops first.
DEPENDENT_STOP_SECONDS = 30


def _stop_service(node, name):
    """ServiceController.Stop (.NET Framework): first each dependent that is not Stopped (DependentServices), stopped
    and waited for with WaitForStatus(Stopped, 30 s), whose TimeoutException ends the call; then ControlService."""
    for key in dependents_in_stop_order(node, name):
        if _record(node, key).get('state') == 'stopped':
            continue
        _control_stop(node, key)
        if not _wait_state(node, key, 'stopped', DEPENDENT_STOP_SECONDS):
            raise PSError('Time out has expired and the operation has not been completed.',
                          'System.ServiceProcess.TimeoutException')
    _control_stop(node, name)


# ServiceController.WaitForStatus polls every 250 ms (.NET Framework reference source: Thread.Sleep(250)).
_POLL_SECONDS = 0.25


def _wait_state(node, name, wanted, limit=None):
    """Let the node's clock run until the service is in state ``wanted``: True; False once more than ``limit`` seconds
    passed (WaitForStatus compares the time passed with the timeout after each poll); without a limit, None when
    nothing the model knows will ever change the state (the wait would not end)."""
    waited = 0.0
    while True:
        if _record(node, name).get('state') == wanted:
            return True
        if limit is not None and waited > limit:
            return False
        if limit is None and scm.next_change(node, name) is None:
            return None
        system.pass_time(node, _POLL_SECONDS)
        waited += _POLL_SECONDS


def _endless(what, node, name, wanted):
    return ('%s waits without end: service %s stays %s and never becomes %s (the script would hang on Windows)'
            % (what, _record(node, name)['name'], _STATUS_NAMES[_record(node, name).get('state') or 'stopped'],
               _STATUS_NAMES[wanted]))


# -- the cmdlets' waits: Service.cs (ServiceOperationBaseCommand) ------------------------------------------------

_STARTING = "Waiting for service '%s' to start..."
_STOPPING = "Waiting for service '%s' to stop..."
# Service.cs DoWaitForStatus waits 2 s at a time (WaitForStatus with a 2 s timeout) and warns after each.
_WARN_SECONDS = 2.0


def _do_wait_for_status(ctx, name, command, wanted, pending):  # pylint: disable=too-many-arguments
    """Service.cs DoWaitForStatus: while the service is in its pending state, a warning every 2 s and on, without end
    (the model refuses the wait when nothing would end it); in any other state StartServiceFailed/StopServiceFailed,
    a non-terminating error."""
    node = ctx.host.node
    while True:
        if _wait_state(node, name, wanted, _WARN_SECONDS):
            return True
        if _record(node, name).get('state') != pending:
            if wanted == 'running':
                error_id, message = 'StartServiceFailed', "Failed to start service '%s'."
            else:
                error_id, message = 'StopServiceFailed', "Service '%s' stop failed."
            ctx.write_error(_service_error(command, error_id, message % _label(node, name), 'OpenError',
                                           ServiceController(node, name)))
            return False
        if scm.next_change(node, name) is None:
            raise Unsupported(_endless('%s (Service.cs DoWaitForStatus)' % _CMDLET_NAMES[command], node, name, wanted))
        ctx.write_warning((_STARTING if wanted == 'running' else _STOPPING) % _label(node, name))


_CMDLET_NAMES = {'StartService': 'Start-Service', 'StopService': 'Stop-Service', 'RestartService': 'Restart-Service',
                 'SetService': 'Set-Service'}


def _do_start(ctx, name, command):
    """Service.cs DoStartService: ServiceController.Start (a service already running is no error), then the wait for
    Running; a refusal is CouldNotStartService (non-terminating)."""
    node = ctx.host.node
    try:
        _start_service(node, name)
    except PSError as error:
        if _native_code(error) != _ALREADY_RUNNING:
            ctx.write_error(_service_error(command, 'CouldNotStartService',
                                           "Service '%s' cannot be started due to the following error: %s"
                                           % (_label(node, name), error.message), 'OpenError',
                                           ServiceController(node, name)))
            return False
    return _do_wait_for_status(ctx, name, command, 'running', 'start_pending')


def _do_stop(ctx, name, command, force, wait=True):
    """Service.cs DoStopService: without -Force a dependent that is not Stopped is ServiceHasDependentServices; then
    ServiceController.Stop (a service not running is no error) and, unless -NoWait, the wait for Stopped."""
    node = ctx.host.node
    pending_dependents = [key for key in dependents_in_stop_order(node, name)
                          if (_record(node, key) or {}).get('state') != 'stopped']
    if pending_dependents and not force:
        ctx.write_error(_service_error(command, 'ServiceHasDependentServices',
                                       "Cannot stop service '%s' because it has dependent services. It can only be "
                                       "stopped if the Force flag is set." % _label(node, name), 'InvalidOperation',
                                       ServiceController(node, name)))
        return False
    try:
        _stop_service(node, name)
    except PSError as error:
        if error.type_name == 'System.ServiceProcess.TimeoutException':
            # DoStopService catches only Win32Exception and InvalidOperationException: this one ends the command.
            raise PSError(error.message, error.type_name, 'System.ServiceProcess.TimeoutException,'
                          'Microsoft.PowerShell.Commands.%sCommand' % command, 'NotSpecified') from None
        if _native_code(error) != _NOT_ACTIVE:
            ctx.write_error(_service_error(command, 'CouldNotStopService',
                                           "Service '%s' cannot be stopped due to the following error: %s"
                                           % (_label(node, name), error.message), 'CloseError',
                                           ServiceController(node, name)))
            return False
    if wait:
        return _do_wait_for_status(ctx, name, command, 'stopped', 'stop_pending')
    return True


def start_service(ctx, params, input_items):
    node = ctx.host.node
    out = []
    for name in _selected(ctx, params, input_items, 'StartService'):
        if _do_start(ctx, name, 'StartService') and params.get('PassThru'):
            out.append(ServiceController(node, name))
    return out


def stop_service(ctx, params, input_items):
    """Stop-Service: -Force stops the dependents too; -NoWait returns once the stop was asked (DoStopService's
    waitForServiceToStop)."""
    node = ctx.host.node
    out = []
    for name in _selected(ctx, params, input_items, 'StopService'):
        if _do_stop(ctx, name, 'StopService', bool(params.get('Force')), not params.get('NoWait')) \
                and params.get('PassThru'):
            out.append(ServiceController(node, name))
    return out


def restart_service(ctx, params, input_items):
    """Restart-Service as PowerShell's Service.cs (RestartServiceCommand, DoStopService) does it.

    The reference page is silent on dependents; the code, open since 2016 and unchanged from Windows PowerShell's,
    stops the running dependents (with -Force), then the service, and starts again each one it stopped, the
    dependents first (the SCM starts the service with the first of them, as their dependency).
    """
    node = ctx.host.node
    out = []
    for name in _selected(ctx, params, input_items, 'RestartService'):
        stopped = [key for key in dependents_in_stop_order(node, name) if (_record(node, key) or {}).get('state') == 'running']
        if not _do_stop(ctx, name, 'RestartService', bool(params.get('Force'))):
            continue
        for key in stopped + [name]:
            if _do_start(ctx, key, 'RestartService') and params.get('PassThru'):
                out.append(ServiceController(node, key))
    return out


def set_service(ctx, params, input_items):
    """Windows PowerShell 5.1's Set-Service: -DisplayName, -Description, -StartupType, -Status."""
    _validate_not_empty('SetService', params, ('DisplayName', 'Description'))
    node = ctx.host.node
    names = _selected(ctx, params, input_items, 'SetService')
    out = []
    for name in names:
        record = _record(node, name)
        if record.get('builtin'):
            raise Unsupported('Set-Service on the built-in service %s' % name)
        if 'DisplayName' in params:
            record['display_name'] = to_string(params['DisplayName'])
        if 'Description' in params:
            record['description'] = to_string(params['Description'])
        if 'StartupType' in params:
            mode = _WIN32_START_MODES.get(START_MODE.parse(to_string(params['StartupType'])).value)
            # Boot and System (the enum's driver start types) leave the start type as it is: Service.cs as Windows
            # PowerShell 5.1 has it passes SERVICE_NO_CHANGE to ChangeServiceConfigW for them, with no error.
            if mode is not None:
                record['start_mode'] = mode
        if 'Status' in params:
            status = to_string(params['Status']).lower()
            if status == 'running':
                _do_start(ctx, name, 'SetService')
            elif status == 'stopped':
                _do_stop(ctx, name, 'SetService', False)
            else:
                raise Unsupported('Set-Service -Status %s' % status)
        if params.get('PassThru'):
            out.append(ServiceController(node, name))
    return out


def new_service_record(name, command_line, display_name, start_mode, dependencies=()):
    """A service as CreateService leaves it: stopped, never started (exit code 1077), run as LocalSystem."""
    return {'name': name, 'exists': True, 'display_name': display_name or name, 'description': None,
            'state': 'stopped', 'start_mode': start_mode, 'command_line': command_line,
            'dependencies': list(dependencies), 'environment': [], 'account': 'LocalSystem', 'recovery': None,
            'exit_code': 1077, 'nssm': None}


def new_service(ctx, params, input_items):
    _validate_not_empty('NewService', params, ('DisplayName', 'Description'))
    for mandatory in ('Name', 'BinaryPathName'):
        if to_string(params.get(mandatory)) == '':
            raise PSError("Cannot bind argument to parameter '%s' because it is an empty string." % mandatory,
                          'System.Management.Automation.ParameterBindingValidationException',
                          'ParameterArgumentValidationErrorEmptyStringNotAllowed,'
                          'Microsoft.PowerShell.Commands.NewServiceCommand', 'InvalidData')
    if params.get('Credential') is not None:
        raise Unsupported('New-Service -Credential')
    node = ctx.host.node
    name = to_string(params['Name'])
    if _record(node, name) is not None or name.lower() in registry.builtin_services(node):
        ctx.write_error(_service_error('NewService', 'CouldNotNewService',
                                       "Service '%s' cannot be created due to the following error: The specified service "
                                       "already exists" % name, 'PermissionDenied', name))
        return []
    start_type = START_MODE.parse(to_string(params.get('StartupType', 'Automatic')))
    # Boot and System create an Automatic service: Service.cs (NewServiceCommand, as Windows PowerShell 5.1 has it)
    # starts from SERVICE_AUTO_START and changes it only for Manual and Disabled.
    mode = _WIN32_START_MODES.get(start_type.value, 'auto')
    record = new_service_record(name, to_string(params['BinaryPathName']),
                                to_string(params['DisplayName']) if 'DisplayName' in params else name, mode,
                                _names(params.get('DependsOn')) or [])
    node.data['services'][name.lower()] = record
    if 'Description' in params:
        record['description'] = to_string(params['Description'])
    return [ServiceController(node, name)]


# -- the pre-shutdown configuration (QueryServiceConfig2 / ChangeServiceConfig2, SERVICE_CONFIG_PRESHUTDOWN_INFO) -------
# SERVICE_PRESHUTDOWN_INFO (winsvc.h, Win32 reference): dwPreshutdownTimeout in milliseconds, the time the SCM waits for a
# service that accepts SERVICE_CONTROL_PRESHUTDOWN to stop before it goes on shutting down; "Starting with the Windows
# Creator's Update (build 15063) the default preshutdown time-out value is 10,000 milliseconds (10 seconds). In prior
# releases, the default preshutdown time-out value is 180,000 milliseconds (three minutes)." The SCM keeps a set value
# as the service key's PreshutdownTimeout (windows/registry.py).
DEFAULT_PRESHUTDOWN_TIMEOUT_MS = 10000
DEFAULT_PRESHUTDOWN_TIMEOUT_MS_BEFORE_15063 = 180000
# ERROR_SERVICE_DOES_NOT_EXIST (System Error Codes 1000-1299), which OpenService fails with for a name the SCM lacks.
ERROR_SERVICE_DOES_NOT_EXIST = 1060


class ServiceApiError(SimulationError):
    """A Win32 service API call failed; ``code`` is its Win32 error."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def _opened(node, name):
    """OpenService: the node's service record (the services the collection installs), or ERROR_SERVICE_DOES_NOT_EXIST."""
    scm.settle(node)
    service = node.data['services'].get(name.lower())
    if service is None:
        raise ServiceApiError('OpenService %s: The specified service does not exist as an installed service.' % name,
                              ERROR_SERVICE_DOES_NOT_EXIST)
    return service


def query_preshutdown_timeout(node, name):
    """QueryServiceConfig2(SERVICE_CONFIG_PRESHUTDOWN_INFO): the service's time-out in milliseconds, its default where
    none was set."""
    service = _opened(node, name)
    if service.get('preshutdown_timeout_ms') is not None:
        return int(service['preshutdown_timeout_ms'])
    if int(node.data['os']['build']) >= 15063:
        return DEFAULT_PRESHUTDOWN_TIMEOUT_MS
    return DEFAULT_PRESHUTDOWN_TIMEOUT_MS_BEFORE_15063


def change_preshutdown_timeout(node, name, milliseconds):
    """ChangeServiceConfig2(SERVICE_CONFIG_PRESHUTDOWN_INFO) with dwPreshutdownTimeout (a DWORD)."""
    _opened(node, name)['preshutdown_timeout_ms'] = int(milliseconds) & 0xFFFFFFFF


def service_dependencies(node, name):
    """QueryServiceConfig's lpDependencies: the services (and groups) the service depends on, as registered."""
    return list(_opened(node, name).get('dependencies') or [])


# -- sc.exe ------------------------------------------------------------------------------------------

def native_arguments(words):
    """What sc.exe's argv receives from Windows PowerShell 5.1: an empty-string argument is dropped, a word
    written as "" reaches the program as an empty argument (the command line rules of CommandLineToArgvW)."""
    out = []
    for word in words:
        if word == '':
            continue
        if ' ' not in word and '"' in word:
            word = word.replace('"', '')
        out.append(word)
    return out


def _sc_failed(api, code, text):
    return ['[SC] %s FAILED %d:' % (api, code), '', text, '']


_MISSING = 'The specified service does not exist as an installed service.'
_SC_START = {'boot': 'boot', 'system': 'system', 'auto': 'auto', 'demand': 'manual', 'disabled': 'disabled',
             'delayed-auto': 'delayed'}


def _options(words):
    """sc.exe's "name= value" pairs (the option word ends with =, its value is the next word)."""
    options = {}
    index = 0
    while index < len(words):
        word = words[index]
        if not word.endswith('=') or index + 1 >= len(words):
            return None
        options[word[:-1].lower()] = words[index + 1]
        index += 2
    return options


def sc_exe(host, words, input_items, environment=None):  # pylint: disable=unused-argument
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    node = host.node
    argv = native_arguments(words)
    if len(argv) < 2 or argv[0].startswith('\\\\'):
        raise Unsupported('sc.exe %s' % ' '.join(words))
    command, name, rest = argv[0].lower(), argv[1], argv[2:]
    options = _options(rest)
    if options is None:
        # sc.exe prints the command's usage text and fails with ERROR_INVALID_PARAMETER... except that
        # the usage text is not modelled.
        raise Unsupported('sc.exe %s with arguments %s' % (command, rest))
    record = node.data['services'].get(name.lower())
    builtin = name.lower() in registry.builtin_services(node)
    if command == 'create':
        if record is not None or builtin:
            return ProgramResult(_sc_failed('CreateService', 1073, 'The specified service already exists.'), [], 1073)
        if 'binpath' not in options:
            raise Unsupported('sc.exe create without binPath=')
        mode = _SC_START.get(options.get('start', 'demand').lower())
        node.data['services'][name.lower()] = new_service_record(
            name, options['binpath'], options.get('displayname'), mode,
            [item for item in options.get('depend', '').split('/') if item])
        return ProgramResult(['[SC] CreateService SUCCESS'], [], 0)
    if command not in ('config', 'failure', 'delete', 'description'):
        raise Unsupported('sc.exe %s' % command)
    if record is None:
        if builtin:
            raise Unsupported('sc.exe %s on the built-in service %s' % (command, name))
        return ProgramResult(_sc_failed('OpenService', 1060, _MISSING), [], 1060)
    if command == 'delete':
        # The SCM deletes the service once it is stopped and no handle to it is open (here: at once
        # when stopped, else marked for deletion, which the model does not keep).
        if record.get('state') != 'stopped':
            raise Unsupported('sc.exe delete of a running service (marked for deletion)')
        del node.data['services'][name.lower()]
        return ProgramResult(['[SC] DeleteService SUCCESS'], [], 0)
    if command == 'description':
        record['description'] = ' '.join(rest)
        return ProgramResult(['[SC] ChangeServiceConfig2 SUCCESS'], [], 0)
    if command == 'config':
        unknown = set(options) - {'start', 'depend', 'binpath', 'displayname', 'obj'}
        if unknown or ('start' in options and options['start'].lower() not in _SC_START):
            raise Unsupported('sc.exe config %s' % ' '.join(rest))
        if 'start' in options:
            record['start_mode'] = _SC_START[options['start'].lower()]
        if 'depend' in options:
            record['dependencies'] = [item for item in options['depend'].split('/') if item]
        if 'binpath' in options:
            record['command_line'] = options['binpath']
        if 'displayname' in options:
            record['display_name'] = options['displayname']
        if 'obj' in options:
            record['account'] = options['obj']
        return ProgramResult(['[SC] ChangeServiceConfig SUCCESS'], [], 0)
    # failure: reset= <seconds> actions= type/delay/... ; actions= "" clears the actions.
    unknown = set(options) - {'reset', 'actions'}
    if unknown:
        raise Unsupported('sc.exe failure %s' % ' '.join(rest))
    if 'actions' in options and 'reset' not in options and options['actions']:
        # sc.exe: "reset= and actions= must be used together".
        raise Unsupported('sc.exe failure actions= without reset=')
    parts = [part for part in options.get('actions', '').split('/') if part != ''] if 'actions' in options else None
    if parts is not None:
        if len(parts) % 2 or any(kind.lower() not in ('restart', 'reboot', 'run', '') for kind in parts[::2]):
            raise Unsupported('sc.exe failure actions= %s' % options['actions'])
        actions = [{'type': {'run': 'run_command'}.get(parts[i].lower(), parts[i].lower()), 'delay_ms': int(parts[i + 1])}
                   for i in range(0, len(parts), 2)]
        record['recovery'] = {'reset_period_seconds': int(options.get('reset') or 0), 'actions': actions} \
            if actions else None
    return ProgramResult(['[SC] ChangeServiceConfig2 SUCCESS'], [], 0)


# -- Win32_Service ----------------------------------------------------------------------------------

class Win32Service(CimInstance):
    CLASS = 'Win32_Service'
    KEY = 'Name'
    PROPERTIES = ('Name', 'Status', 'ExitCode', 'DesktopInteract', 'ErrorControl', 'PathName', 'ServiceType',
                  'StartMode', 'Caption', 'Description', 'InstallDate', 'CreationClassName', 'Started',
                  'SystemCreationClassName', 'SystemName', 'AcceptPause', 'AcceptStop', 'DisplayName',
                  'ServiceSpecificExitCode', 'StartName', 'State', 'TagId', 'CheckPoint', 'DelayedAutoStart',
                  'ProcessId', 'WaitHint', 'PSComputerName')


# Win32_Service's State and StartMode strings (Win32_Service class, CIMWin32 reference).
_WIN32_STATES = {'stopped': 'Stopped', 'start_pending': 'Start Pending', 'running': 'Running',
                 'stop_pending': 'Stop Pending'}
_WIN32_START_MODE_NAMES = {'boot': 'Boot', 'system': 'System', 'auto': 'Auto', 'delayed': 'Auto', 'manual': 'Manual',
                           'disabled': 'Disabled'}


def win32_services(node):
    out = []
    for name in all_services(node):
        record = _record(node, name)
        state = record.get('state') or 'stopped'
        running = state == 'running'
        mode = record.get('start_mode') or 'manual'
        out.append(Win32Service(
            Name=record['name'], Status='OK', ExitCode=UInt32(record.get('exit_code') or 0), DesktopInteract=False,
            ErrorControl='Normal', PathName=record.get('command_line'),
            ServiceType='Share Process' if record.get('type') == 0x20 else 'Own Process',
            StartMode=_WIN32_START_MODE_NAMES[mode],
            Caption=record.get('display_name') or name, Description=record.get('description'),
            CreationClassName='Win32_Service', Started=running, SystemCreationClassName='Win32_ComputerSystem',
            SystemName=node.data['hostname'], AcceptPause=False, AcceptStop=running,
            DisplayName=record.get('display_name') or name, ServiceSpecificExitCode=UInt32(0),
            StartName=record.get('account') or 'LocalSystem', State=_WIN32_STATES[state],
            TagId=UInt32(0), CheckPoint=UInt32(0), DelayedAutoStart=mode == 'delayed',
            ProcessId=UInt32(scm.process_id(record) if state in scm.ALIVE else 0), WaitHint=UInt32(0),
            PSComputerName=None))
    return out


def win32_service_change(ctx, target, arguments):
    """Win32_Service.Change (PathName, DisplayName ...; a parameter left out is not changed)."""
    record = ctx.host.node.data['services'].get(target.Name.lower())
    if record is None:
        return CimMethodResult(1060)  # ERROR_SERVICE_DOES_NOT_EXIST as the method's return value
    supported = {'pathname': 'command_line', 'displayname': 'display_name'}
    for key, value in arguments.items():
        field = supported.get(key)
        if field is None:
            raise Unsupported('Win32_Service.Change %s' % key)
        if not is_null(value):
            record[field] = to_string(value)
    return CimMethodResult(0)


CMDLETS = {
    'Get-Service': get_service,
    'Start-Service': start_service,
    'Stop-Service': stop_service,
    'Restart-Service': restart_service,
    'Set-Service': set_service,
    'New-Service': new_service,
}
PROGRAMS = {'sc.exe': sc_exe}
CIM_CLASSES = {'win32_service': win32_services}
CIM_METHODS = {('win32_service', 'change'): win32_service_change}
