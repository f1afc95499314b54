"""Processes: Start-Process, Get-Process, System.Diagnostics.Process and ProcessStartInfo.

Sources: reference/5.1/Microsoft.PowerShell.Management/Start-Process.md and Get-Process.md
(MicrosoftDocs/PowerShell-Docs), the .NET Framework reference of System.Diagnostics.Process (Start,
WaitForExit(Int32) "true if the associated process has exited; otherwise, false", ExitCode, HasExited,
Kill, Handle, StandardOutput) and ProcessStartInfo (UseShellExecute defaults to true in the .NET
Framework; redirecting a stream needs it false, else Start throws InvalidOperationException).

A program is a file of the node (``node.file(path)``; a bare name is looked up in the registry only)
whose behaviour is a registered program model (an area's ``PROGRAMS``). The model runs when the process
starts and returns its output and exit code; it takes ``ProgramResult.seconds`` of simulated time. The
clock of a process moves only when the script waits for it (WaitForExit, Start-Process -Wait): a process
is running until a wait lets it finish, as a real program is running for a while after it starts.

The Windows PowerShell 5.1 quirk (PowerShell/PowerShell issue #5421, "Process objects created with
Start-Process -NoNewWindow and/or -RedirectStandard* never report their exit code on Windows"; the
workaround there and in #20716 is to read ``.Handle`` before waiting): with -NoNewWindow or a
-RedirectStandard* parameter, Start-Process -PassThru returns a Process object that holds no process
handle. ExitCode needs one (the .NET Framework property checks for it and throws; PowerShell's member
access turns the exception into $null), so unless ``.Handle`` was read while the process was running
(which opens and keeps the handle), ExitCode stays $null after the process exits. -Wait does not show
the problem in 5.1 (same issue). A process started with [Diagnostics.Process]::Start holds its handle.

Standard input (ProcessStartInfo.RedirectStandardInput): Process.StandardInput is a StreamWriter whose
BaseStream takes the bytes; a program reads its input to the end, so its model runs when the script closes
StandardInput, with those bytes and the environment block of the start info (EnvironmentVariables, a copy
of the parent's environment the script may change). Reading the output of a program still waiting for its
input would hang the script: an engine gap, never a made-up answer. StreamReader.ReadToEndAsync returns a
Task whose Result is the rest of the stream.

Win32_Process.Create (Invoke-CimMethod -ClassName Win32_Process -MethodName Create; Microsoft's "Create method of
the Win32_Process class", Win32 reference, cimwin32prov): CommandLine is split as CommandLineToArgvW splits it and its
program started; ReturnValue 0 with the new ProcessId, 9 (Path Not Found) when the program is not there, 21 (Invalid
Parameter) for an empty command line. A process it starts is outside every session and runs on after the call, while
its caller goes on: it is kept in ``node.data['processes']`` as running (Get-Process -Id finds it, with its StartTime)
and runs once the node's clock has moved ``PROCESS_START_SECONDS`` past its start (``run_due``, which every new session
on the node and the simulated connection call first: ``windows.catch_up``). It then runs whole, at one moment of the
node's clock: its effects (a network drop among them) and the files it writes appear together, and it is gone after
(Get-Process -Id answers as for a process that is gone); the time it waits inside moves the node's clock. A reader
never meets it half-way through a write in the model: a file left half-written is met when its writer was cut off
(the disk full, windows/filesystem.py). The node profile's ``worker_vanishes`` makes such a process die before it does
anything (killed, as the job object of a WinRM session kills its processes): it writes nothing; with
``worker_pid_reused`` another program (conhost.exe) then starts with the same process id, as Windows reuses the id of a
process that is gone, with its own StartTime.

Properties whose .NET getter throws (ExitCode before exit, StandardOutput when not redirected, Handle
after exit without a handle) read as $null, as PowerShell's member access reports them.
"""

import contextvars
import ntpath

import datetime

from ..pwsh.interpreter import SESSION_PROCESS_ID
from ..pwsh.types import NetType, register
from ..pwsh.values import (AUTOMATION_NULL, Hashtable, PSError, UInt32, Unsupported, enumerate_value, is_enumerable,
                           to_string)
from ..pwsh import operators as ops
from .. import scm
from ..programs import split_command_line
from . import system
from .cim import CimMethodResult

# The WindowsHost of the script running now ([Diagnostics.Process]::Start is a static method: it has no ctx).
CURRENT_HOST = contextvars.ContextVar('kubewin_current_host', default=None)
_FIRST_ID = 4100
# Ids of the processes Win32_Process.Create starts (node.data['processes']), apart from a session's own.
_CREATED_FIRST_ID = 8100
# How long a process Create started takes before its program has run, on the node's clock: powershell.exe's own
# start-up before a script's first statement is about a second (an assumption, not a measure).
PROCESS_START_SECONDS = 1.0


def _text(lines):
    return ''.join(line + '\r\n' for line in lines)


def _output(result, stream):
    """What a program wrote to a stream: its exact text when the model gives it, else its lines."""
    text = getattr(result, stream, None)
    return text if text is not None else _text(getattr(result, stream + '_lines'))


class StreamReader:
    """System.IO.StreamReader over what a program wrote to a redirected stream (``text`` a string, or a callable
    giving it when first read: the program may not have run yet)."""

    NET = 'System.IO.StreamReader'

    def __init__(self, text):
        self._source = text
        self._position = 0

    @property
    def _text(self):
        if callable(self._source):
            self._source = self._source()
        return self._source

    def ReadToEnd(self):  # pylint: disable=invalid-name
        rest = self._text[self._position:]
        self._position = len(self._text)
        return rest

    def ReadLine(self):  # pylint: disable=invalid-name
        if self._position >= len(self._text):
            return None
        end = self._text.find('\n', self._position)
        end = len(self._text) if end < 0 else end + 1
        line = self._text[self._position:end]
        self._position = end
        return line.rstrip('\r\n')

    @property
    def EndOfStream(self):  # pylint: disable=invalid-name
        return self._position >= len(self._text)

    def ReadToEndAsync(self):  # pylint: disable=invalid-name
        return Task(self.ReadToEnd)


class Task:
    """System.Threading.Tasks.Task`1[System.String] of StreamReader.ReadToEndAsync: Result waits for the text."""

    NET = 'System.Threading.Tasks.Task`1[[System.String]]'
    PROPERTIES = ('Result',)

    def __init__(self, work):
        self._work = work
        self._done = False
        self._value = None

    @property
    def Result(self):  # pylint: disable=invalid-name
        if not self._done:
            self._value, self._done = self._work(), True
        return self._value


class InputStream:
    """The System.IO.Stream under a process's standard input: Write(byte[], offset, count) and Flush."""

    NET = 'System.IO.FileStream'

    def __init__(self, writer):
        self._writer = writer

    def Write(self, buffer, offset, count):  # pylint: disable=invalid-name
        self._writer.take(bytes(int(item) for item in list(enumerate_value(buffer))[int(offset):int(offset) + int(count)]))
        return AUTOMATION_NULL

    def Flush(self):  # pylint: disable=invalid-name
        return AUTOMATION_NULL


class StreamWriter:
    """System.IO.StreamWriter of Process.StandardInput. Closing it ends the program's input, and the program runs."""

    NET = 'System.IO.StreamWriter'
    PROPERTIES = ('BaseStream', 'AutoFlush')

    def __init__(self, process):
        self._process = process
        self._data = b''
        self._closed = False
        self.AutoFlush = True
        self.BaseStream = InputStream(self)

    def take(self, data):
        if self._closed:
            raise PSError('Cannot access a closed file.', 'System.ObjectDisposedException')
        self._data += data

    def Write(self, *args):  # pylint: disable=invalid-name
        # The writer encodes with Console.InputEncoding (the OEM code page): not modelled.
        raise Unsupported('writing text to a process\'s standard input (StreamWriter.Write); write bytes to BaseStream')

    def Close(self):  # pylint: disable=invalid-name
        if not self._closed:
            self._closed = True
            self._process.input_closed(self._data)
        return AUTOMATION_NULL

    Dispose = Close


class ProcessStartInfo:
    """System.Diagnostics.ProcessStartInfo (.NET Framework defaults: UseShellExecute true)."""

    NET = 'System.Diagnostics.ProcessStartInfo'
    PROPERTIES = ('FileName', 'Arguments', 'WorkingDirectory', 'UseShellExecute', 'CreateNoWindow', 'RedirectStandardInput',
                  'RedirectStandardOutput', 'RedirectStandardError', 'EnvironmentVariables')

    def __init__(self, file_name='', arguments=''):
        self.FileName = to_string(file_name)
        self.Arguments = to_string(arguments)
        self.WorkingDirectory = ''
        self.UseShellExecute = True
        self.CreateNoWindow = False
        self.RedirectStandardInput = False
        self.RedirectStandardOutput = False
        self.RedirectStandardError = False
        host = CURRENT_HOST.get()
        environment = Hashtable()
        for name, value in ((host.node.data.get('environment') or {}) if host is not None else {}).items():
            environment[name] = value
        self.EnvironmentVariables = environment


class Process:
    """System.Diagnostics.Process of a program model's run."""

    NET = 'System.Diagnostics.Process'
    PROPERTIES = ('Id', 'ProcessName', 'HasExited', 'ExitCode', 'Handle', 'StartInfo', 'StartTime')

    def __init__(self, process_id, path, result, holds_handle, redirect=None, run=None, started=None):  # pylint: disable=too-many-arguments
        """``result`` is the program's ProgramResult, or None with ``run(stdin bytes)`` giving it once the program
        has its input (a redirected standard input, closed by the script); ``started`` the node's clock (seconds since
        the epoch) when it started."""
        self.Id = process_id
        self.ProcessName = ntpath.splitext(ntpath.basename(path))[0]
        self.StartInfo = None
        self._started = started
        self._path = path
        self._run = run
        self._result = result
        self._remaining = float(getattr(result, 'seconds', 0) or 0)
        self._exited = False
        self._exit_code = None
        self._holds_handle = holds_handle
        self._redirect = redirect or {}
        self._readers = {}
        self._stdin = StreamWriter(self) if self._redirect.get('stdin') else None

    def input_closed(self, data):
        self._result = self._run(data)
        self._remaining = float(getattr(self._result, 'seconds', 0) or 0)

    def _finished_result(self):
        if self._result is None:
            raise Unsupported('reading from %s or waiting for it while its standard input is open: the program '
                              'reads its input to the end first, so the script would hang' % self.ProcessName)
        return self._result

    # -- the clock ------------------------------------------------------------------------------------
    def _finish(self, exit_code):
        self._exited = True
        self._exit_code = exit_code

    def _wait(self, seconds=None):
        if self._exited:
            return True
        if self._result is None:
            if seconds is None:
                self._finished_result()
            return False
        if seconds is None or seconds >= self._remaining:
            self._remaining = 0
            self._finish(self._result.exit_code)
            return True
        self._remaining -= seconds
        return False

    @property
    def running(self):
        return not self._exited

    # -- members --------------------------------------------------------------------------------------
    @property
    def Handle(self):  # pylint: disable=invalid-name
        if not self._holds_handle and self._exited:
            return None  # OpenProcess of a process that is gone fails; the getter throws
        self._holds_handle = True
        return 0x700 + self.Id % 0x100 * 4

    @property
    def HasExited(self):  # pylint: disable=invalid-name
        return self._exited

    @property
    def StartTime(self):  # pylint: disable=invalid-name
        """The local time the process started (Process.StartTime, a DateTime of kind Local; the node's zone is UTC)."""
        if self._started is None:
            raise Unsupported('Process.StartTime of %s (its start is not modelled)' % self.ProcessName)
        moment = datetime.datetime.fromtimestamp(self._started, datetime.timezone.utc).replace(tzinfo=None)
        return system.DateTime.of(moment, 'Local')

    @property
    def ExitCode(self):  # pylint: disable=invalid-name
        if not self._exited or not self._holds_handle:
            return None
        return self._exit_code

    def WaitForExit(self, milliseconds=None):  # pylint: disable=invalid-name
        if milliseconds is None:
            self._wait()
            return AUTOMATION_NULL
        milliseconds = int(milliseconds)
        return self._wait(None if milliseconds < 0 else milliseconds / 1000.0)

    def Kill(self):  # pylint: disable=invalid-name
        # TerminateProcess with exit code -1 (.NET Framework Process.Kill).
        if not self._exited:
            self._finish(-1)
        return AUTOMATION_NULL

    def _reader(self, stream):
        # One reader per stream, as .NET keeps one: what was read stays read.
        if stream not in self._readers:
            self._readers[stream] = StreamReader(lambda: _output(self._finished_result(), stream))
        return self._readers[stream]

    @property
    def StandardOutput(self):  # pylint: disable=invalid-name
        return self._reader('stdout') if self._redirect.get('stdout') else None

    @property
    def StandardError(self):  # pylint: disable=invalid-name
        return self._reader('stderr') if self._redirect.get('stderr') else None

    @property
    def StandardInput(self):  # pylint: disable=invalid-name
        return self._stdin

    def to_string(self):
        return 'System.Diagnostics.Process (%s)' % self.ProcessName


def _processes(host):
    if not hasattr(host, 'processes'):
        host.processes = []
    return host.processes


def _program_path(host, file_path):
    """The program file FilePath names: a path must be a file of the node; a bare name must be a known program."""
    name = to_string(file_path).strip().strip('"')
    if '\\' in name or '/' in name:
        if host.node.file(name) is None:
            return None
    if not host.has_program(name):
        return None
    return name


def _start(host, file_path, words, holds_handle, redirect=None, environment=None):  # pylint: disable=too-many-arguments
    path = _program_path(host, file_path)
    if path is None:
        return None
    process_id = _FIRST_ID + 4 * len(_processes(host))
    started = host.node.date()
    if (redirect or {}).get('stdin'):
        process = Process(process_id, path, None, holds_handle, redirect,
                          run=lambda data: host.run_program(path, words, data, environment), started=started)
    else:
        process = Process(process_id, path, host.run_program(path, words, None, environment), holds_handle, redirect,
                          started=started)
    _processes(host).append(process)
    return process


def _cannot_start():
    return PSError('This command cannot be run due to the error: The system cannot find the file specified.',
                   'System.InvalidOperationException', 'InvalidOperationException,Microsoft.PowerShell.Commands.StartProcessCommand',
                   'InvalidOperation')


def start_process(ctx, params, input_items):
    arguments = params.get('ArgumentList')
    if arguments is None:
        line = ''
    elif is_enumerable(arguments):
        # Start-Process joins the -ArgumentList strings with spaces; quoting is the caller's.
        line = ' '.join(to_string(item) for item in enumerate_value(arguments))
    else:
        line = to_string(arguments)
    redirects = {key: to_string(params[key]) for key in ('RedirectStandardOutput', 'RedirectStandardError')
                 if params.get(key) is not None}
    if params.get('RedirectStandardInput') is not None:
        raise Unsupported('Start-Process -RedirectStandardInput')
    # With -NoNewWindow or a redirection 5.1 keeps no handle of the process (issue #5421); -Wait does.
    holds_handle = not (params.get('NoNewWindow') or redirects) or bool(params.get('Wait'))
    process = _start(ctx.host, params['FilePath'], split_command_line(line), holds_handle)
    if process is None:
        raise _cannot_start()
    node = ctx.host.node
    if 'RedirectStandardOutput' in redirects:
        node.write_file(redirects['RedirectStandardOutput'], content=_output(process._result, 'stdout'))  # pylint: disable=protected-access
    if 'RedirectStandardError' in redirects:
        node.write_file(redirects['RedirectStandardError'], content=_output(process._result, 'stderr'))  # pylint: disable=protected-access
    if params.get('Wait'):
        process.WaitForExit()
    return [process] if params.get('PassThru') else []


def process_start(start_info):
    """[System.Diagnostics.Process]::Start(ProcessStartInfo)."""
    if not isinstance(start_info, ProcessStartInfo):
        raise PSError('Cannot find an overload for "Start" and the argument count: "1".',
                      'System.Management.Automation.MethodException', 'MethodCountCouldNotFindBest')
    redirect = {'stdout': bool(start_info.RedirectStandardOutput), 'stderr': bool(start_info.RedirectStandardError),
                'stdin': bool(start_info.RedirectStandardInput)}
    if start_info.UseShellExecute and any(redirect.values()):
        raise PSError('The Process object must have the UseShellExecute property set to false in order to redirect IO '
                      'streams.', 'System.InvalidOperationException')
    environment = {to_string(name): to_string(value) for name, value in start_info.EnvironmentVariables.items()}
    process = _start(CURRENT_HOST.get(), start_info.FileName, split_command_line(start_info.Arguments), True, redirect,
                     environment)
    if process is None:
        raise PSError('The system cannot find the file specified', 'System.ComponentModel.Win32Exception')
    process.StartInfo = start_info
    return process


register(NetType('System.Diagnostics.Process', test=lambda value: isinstance(value, Process),
                 statics={'Start': process_start}), 'Diagnostics.Process')
register(NetType('System.Diagnostics.ProcessStartInfo', test=lambda value: isinstance(value, ProcessStartInfo),
                 constructor=ProcessStartInfo), 'Diagnostics.ProcessStartInfo')


# The PowerShell process the session's script runs in, whose Id is $PID (pwsh/interpreter.py). Under win_powershell
# that is the module's own powershell.exe, running for as long as the script does.
POWERSHELL_EXE = 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe'


class _RunningOn:
    """The ProgramResult of a program that has not ended: nothing written yet, no end in sight."""

    stdout = stderr = None
    stdout_lines = stderr_lines = ()
    exit_code = 0
    seconds = float('inf')


def _running(host):
    """The session's own PowerShell process, processes of services whose program runs (starting, running or stopping:
    their program file), of the processes Win32_Process.Create started that run, and of programs the session started
    still running."""
    out = [Process(SESSION_PROCESS_ID, POWERSHELL_EXE, _RunningOn(), True)]
    for service in sorted(host.node.data['services'].values(), key=lambda s: s.get('name', '')):
        if service.get('state') in scm.ALIVE and service.get('command_line'):
            line = service['command_line'].strip()
            program = line[1:line.index('"', 1)] if line.startswith('"') else line.split(' ', 1)[0]
            out.append(Process(scm.process_id(service), program, _RunningOn(), True))
    for record in host.node.data.get('processes', []):
        if record.get('state') == 'running':
            out.append(Process(record['id'], record['program'], _RunningOn(), True, started=record['started']))
    return out + [process for process in _processes(host) if process.running]


def get_process(ctx, params, input_items):
    running = _running(ctx.host)
    if 'Id' in params:
        out = []
        for wanted in (enumerate_value(params['Id']) if is_enumerable(params['Id']) else [params['Id']]):
            found = [process for process in running if process.Id == int(wanted)]
            if not found:
                ctx.write_error(PSError('Cannot find a process with the process identifier %d.' % int(wanted),
                                        'Microsoft.PowerShell.Commands.ProcessCommandException',
                                        'NoProcessFoundForGivenId,Microsoft.PowerShell.Commands.GetProcessCommand',
                                        'ObjectNotFound', target=int(wanted)))
            out.extend(found)
        return out
    if params.get('Name') is None:
        return running
    out = []
    for pattern in (enumerate_value(params['Name']) if is_enumerable(params['Name']) else [params['Name']]):
        pattern = to_string(pattern)
        found = [process for process in running if ops.wildcard(pattern).match(process.ProcessName)]
        if not found and not any(char in pattern for char in '*?['):
            ctx.write_error(PSError('Cannot find a process with the name "%s". Verify the process name and call the '
                                    'cmdlet again.' % pattern, 'Microsoft.PowerShell.Commands.ProcessCommandException',
                                    'NoProcessFoundForGivenName,Microsoft.PowerShell.Commands.GetProcessCommand',
                                    'ObjectNotFound', target=pattern))
        out.extend(process for process in found if process not in out)
    return out


def win32_process_create(ctx, instance, arguments):
    """Win32_Process.Create(CommandLine): see the module's docstring."""
    unmodelled = set(arguments) - {'commandline'}
    if unmodelled:
        raise Unsupported('Win32_Process.Create %s' % sorted(unmodelled)[0])
    line = to_string(arguments.get('commandline') or '')
    words = split_command_line(line)
    if not words:
        # The method declares its out parameter ProcessId ("Create method of the Win32_Process class"): the result
        # carries it, $null, whatever the return value.
        return CimMethodResult(21, ProcessId=None)  # Invalid Parameter
    host = ctx.host
    if _program_path(host, words[0]) is None:
        return CimMethodResult(9, ProcessId=None)  # Path Not Found
    node = host.node
    created = node.data.setdefault('processes', [])
    record = {'id': _CREATED_FIRST_ID + 4 * len(created), 'command_line': line, 'program': words[0],
              'state': 'running', 'started': node.date(), 'exit_code': None}
    created.append(record)
    return CimMethodResult(0, ProcessId=UInt32(record['id']))


def _due(node):
    """The processes Create started whose program has not run and whose start-up is over by the node's clock."""
    now = node.date()
    return [record for record in node.data.get('processes', [])
            if record.get('state') == 'running' and 'program' in record and not record.get('ran')
            and now >= record['started'] + PROCESS_START_SECONDS]


def due(node):
    return bool(_due(node))


def run_due(node):
    """Run each process Create started whose start-up is over by the node's clock (see the module's docstring)."""
    from . import WindowsHost  # pylint: disable=import-outside-toplevel  # the package imports this module
    for record in _due(node):
        if record.get('ran'):
            continue  # run meanwhile, by a session the run of an earlier one started
        record['ran'] = True
        if node.profile.get('worker_vanishes'):
            record.update(state='exited', exit_code=-1)
            node.record('process %d (%s) died before it ran' % (record['id'], record['command_line']))
            if node.profile.get('worker_pid_reused'):
                _reuse_id(node, record['id'])
            continue
        words = split_command_line(record['command_line'])
        # It runs alongside the session (node.py, SimNode.alongside): its sleeps are its own time, and a network drop
        # it causes lasts, for the session's next call, from the moment it happens.
        with node.alongside():
            exit_code = WindowsHost(node).run_program(words[0], words[1:], None).exit_code
        record.update(state='exited', exit_code=exit_code)
        node.record('process %d (%s) exited with code %d' % (record['id'], record['command_line'], exit_code))


def _reuse_id(node, process_id):
    """Another program starts and gets the id of a process that is gone (Windows reuses process ids)."""
    node.data['processes'].append({'id': process_id, 'command_line': 'C:\\Windows\\System32\\conhost.exe 0x4',
                                   'program': 'C:\\Windows\\System32\\conhost.exe', 'state': 'running',
                                   'started': node.date(), 'exit_code': None, 'ran': True})


def taskkill_exe(host, words, input_items, environment=None):  # pylint: disable=unused-argument
    """taskkill.exe /F /PID <id> (Windows Commands reference, taskkill: /pid, /f ends the process forcefully): a
    service's process (the service then Stopped, exit code 1067: scm.process_killed) or one Create started; its
    SUCCESS line and exit code 0, or its ERROR line and exit code 128 for an id no process has."""
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    options = [word.lower() for word in words]
    if len(options) != 3 or '/f' not in options or '/pid' not in options or options.index('/pid') == 2:
        raise Unsupported('taskkill.exe %s' % ' '.join(words))
    wanted = words[options.index('/pid') + 1]
    node = host.node
    for key, service in node.data['services'].items():
        if service.get('state') in scm.ALIVE and str(scm.process_id(service)) == wanted:
            scm.process_killed(node, key)
            return ProgramResult(['SUCCESS: The process with PID %s has been terminated.' % wanted], [], 0)
    for record in node.data.get('processes', []):
        if record.get('state') == 'running' and str(record['id']) == wanted:
            record.update(state='exited', exit_code=1, ran=True)
            return ProgramResult(['SUCCESS: The process with PID %s has been terminated.' % wanted], [], 0)
    return ProgramResult([], ['ERROR: The process "%s" not found.' % wanted], 128)


CIM_METHODS = {('win32_process', 'create'): win32_process_create}
PROGRAMS = {'taskkill.exe': taskkill_exe}

CMDLETS = {
    'Start-Process': start_process,
    'Get-Process': get_process,
}

CONSTRUCTORS = {
    'system.diagnostics.processstartinfo': ProcessStartInfo,
    'diagnostics.processstartinfo': ProcessStartInfo,
}


def native_argv(words):
    """The argv a native program receives from Windows PowerShell 5.1's call operator (the only style 5.1 has,
    "Legacy" in PowerShell's NativeCommandParameterBinder): each argument joined with a space, an empty string left
    out, one with whitespace outside double quotes wrapped in double quotes (embedded quotes are not escaped);
    the program's C runtime then splits that command line (CommandLineToArgvW rules: quotes group and go)."""
    parts = []
    for word in words:
        if word == '':
            continue
        quotes, needs = 0, False
        for char in word:
            if char == '"':
                quotes += 1
            elif char.isspace() and quotes % 2 == 0:
                needs = True
        parts.append('"%s"' % word if needs else word)
    return split_command_line(' '.join(parts))
