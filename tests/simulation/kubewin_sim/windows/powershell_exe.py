"""powershell.exe, Windows PowerShell 5.1's console host, as a program (``-File`` and ``-Command`` run in a fresh session
of the engine on the same node), and the execution policy that decides which script files run.

Sources: about_PowerShell_exe (MicrosoftDocs/PowerShell-Docs, reference/5.1/Microsoft.PowerShell.Core/About):

- ``-File`` must be the last parameter, the values after it are the script's parameters, passed as literal strings;
  the exit code is 0, the number of an ``exit``, or 1 after a script-terminating error.
- ``-Command``: every word after it is part of the command text (joined with spaces); the text runs as typed at the
  prompt, and the process exit code is "determined by status of the last (executed) command": 0 when ``$?`` is
  ``$true``, 1 when ``$false``; an external program or a script that set another exit code gives 1; ``exit N`` in the
  command text gives N ("To preserve the specific exit code, add exit $LASTEXITCODE to your command string"); a
  script-terminating error gives 1. (Known limit of the model: an explicit ``exit 0`` after a command that failed
  reads as the failure, 1.)
- ``-ExecutionPolicy`` sets the session's Process scope ($env:PSExecutionPolicyPreference), nothing in the registry.

The console host's command-line parser (src/Microsoft.PowerShell.ConsoleHost/host/msh/CommandLineParameterParser.cs and
its CommandLineParameterParserStrings.resx, PowerShell/PowerShell as open-sourced in 2016, commit 60b3b304f2): a -File
value not ending in .ps1, or naming no file, is an error written to the console and the exit code
ExitCodeBadCommandLineParameter, 0xFFFD0000. about_Character_Encoding (5.1): a script without a byte order mark is
read in the ANSI code page. The script's parameters bind as the engine's own command line binds a FILE's
(``pwsh/cli.py`` file_parameters). The session is new: no types added, no variables, the script's own
$ErrorActionPreference; with the environment block it was started with (ProcessStartInfo, a HostProcess container's).
The options that change nothing here (-NoProfile: no profile is modelled; -NonInteractive; -NoLogo) are accepted; any
other option is an engine gap.

The execution policy (about_Execution_Policies and about_Group_Policy_Settings, reference/5.1; Get-ExecutionPolicy's
page): the scopes in precedence order MachinePolicy, UserPolicy, Process, CurrentUser, LocalMachine; the first that
is not Undefined is the effective policy, and with all Undefined it is RemoteSigned on Windows Server ("Default ...
RemoteSigned for Windows servers"). The two Group Policy scopes override ``-ExecutionPolicy Bypass``.

- MachinePolicy: ``HKLM\\SOFTWARE\\Policies\\Microsoft\\Windows\\PowerShell``, the values the Group Policy setting
  "Turn on Script Execution" writes: ``EnableScripts`` (REG_DWORD; 0, the setting disabled, is Restricted) and
  ``ExecutionPolicy`` (REG_SZ: AllSigned for "Allow only signed scripts", RemoteSigned for "Allow local scripts and
  remote signed scripts", Unrestricted for "Allow all scripts"). The node profile's ``group_policy_execution_policy``
  is the domain's setting for the computer: ``apply_group_policy`` writes it as the Group Policy client does at start
  (when the node is created, ``node.open_node``) and at each refresh (``windows.catch_up``, before each session).
- LocalMachine: ``HKLM\\SOFTWARE\\Microsoft\\PowerShell\\1\\ShellIds\\Microsoft.PowerShell``, value ExecutionPolicy
  (Set-ExecutionPolicy's).
- Process: the session's ``-ExecutionPolicy``.
- UserPolicy and CurrentUser live in the user's HKEY_CURRENT_USER, which the registry model does not hold: Undefined.

A script file (``powershell.exe -File``, ``& C:\\path\\script.ps1``) never runs under Restricted, runs under AllSigned
only when signed (nothing is signed in the model: a signature block is an engine gap), under RemoteSigned unless it
came from the Internet (the Zone.Identifier stream a browser adds; nothing on the node has one: Invoke-WebRequest
-OutFile adds none), and always under Unrestricted and Bypass. A refused file is a PSSecurityException (category
SecurityError, FullyQualifiedErrorId UnauthorizedAccess) with 5.1's message; powershell.exe -File then exits 1.
"""

import ntpath

from ..pwsh import execute, new_interpreter
from ..pwsh.interpreter import Scope
from ..pwsh.cli import file_parameters
from ..pwsh.types import enum_type
from ..pwsh.values import PSCustomObject, PSError, Unsupported, to_string
from . import filesystem, processes, registry

BAD_COMMAND_LINE = 0xFFFD0000 - 2 ** 32  # ExitCodeBadCommandLineParameter as the signed exit code a process reports
_NO_EFFECT = {'-noprofile', '-noninteractive', '-nologo'}

POLICY = enum_type('Microsoft.PowerShell.ExecutionPolicy', {
    'Unrestricted': 0, 'RemoteSigned': 1, 'AllSigned': 2, 'Restricted': 3, 'Bypass': 4, 'Undefined': 5}).enum
SCOPE = enum_type('Microsoft.PowerShell.ExecutionPolicyScope', {
    'Process': 0, 'CurrentUser': 1, 'LocalMachine': 2, 'UserPolicy': 3, 'MachinePolicy': 4}).enum
PRECEDENCE = ('MachinePolicy', 'UserPolicy', 'Process', 'CurrentUser', 'LocalMachine')
SERVER_DEFAULT = 'RemoteSigned'
GROUP_POLICY_KEY = 'SOFTWARE\\Policies\\Microsoft\\Windows\\PowerShell'
LOCAL_MACHINE_KEY = 'SOFTWARE\\Microsoft\\PowerShell\\1\\ShellIds\\Microsoft.PowerShell'
_POLICY_NAMES = {name.lower(): name for name in ('Unrestricted', 'RemoteSigned', 'AllSigned', 'Restricted', 'Bypass',
                                                 'Undefined')}
_HELP_LINK = 'For more information, see about_Execution_Policies at https:/go.microsoft.com/fwlink/?LinkID=135170.'


# -- the execution policy ---------------------------------------------------------------------------------------

def apply_group_policy(node):
    """The computer's "Turn on Script Execution" setting (the profile's ``group_policy_execution_policy``) written
    where the Group Policy client writes it."""
    wanted = node.profile.get('group_policy_execution_policy')
    if not wanted:
        return
    registry.create_key(node, GROUP_POLICY_KEY)
    registry.set_value(node, GROUP_POLICY_KEY, 'EnableScripts', 'REG_DWORD', 0 if wanted == 'Restricted' else 1)
    if wanted != 'Restricted':
        registry.set_value(node, GROUP_POLICY_KEY, 'ExecutionPolicy', 'REG_SZ', wanted)


def _value(node, key, name):
    for found, (_kind, value) in (registry.read_key(node, key) or {}).items():
        if found.lower() == name.lower():
            return value
    return None


def _named(policy):
    return _POLICY_NAMES.get(to_string(policy).lower(), 'Undefined') if policy is not None else 'Undefined'


def _group_policy(node):
    """The MachinePolicy scope: EnableScripts 0 is Restricted, 1 the ExecutionPolicy value; no EnableScripts,
    Undefined."""
    enabled = _value(node, GROUP_POLICY_KEY, 'EnableScripts')
    if enabled is None:
        return 'Undefined'
    return 'Restricted' if int(enabled) == 0 else _named(_value(node, GROUP_POLICY_KEY, 'ExecutionPolicy'))


def scope_policies(node, process_policy='Undefined'):
    """[(scope, policy)] in precedence order, as Get-ExecutionPolicy -List lists them."""
    found = {'MachinePolicy': _group_policy(node), 'Process': _named(process_policy),
             'LocalMachine': _named(_value(node, LOCAL_MACHINE_KEY, 'ExecutionPolicy'))}
    return [(scope, found.get(scope, 'Undefined')) for scope in PRECEDENCE]


def effective_policy(node, process_policy='Undefined'):
    for _scope, policy in scope_policies(node, process_policy):
        if policy != 'Undefined':
            return policy
    return SERVER_DEFAULT


def _session_policy(host):
    """The Process scope of a session: its powershell.exe -ExecutionPolicy; Undefined for one started otherwise."""
    return getattr(host, 'execution_policy', 'Undefined')


def _refusal(policy, path, text):
    """The PSSecurityException with which a script file is refused under ``policy``, or None: it runs."""
    if policy == 'Restricted':
        message = 'File %s cannot be loaded because running scripts is disabled on this system. %s' % (path, _HELP_LINK)
    elif policy == 'AllSigned':
        if '# SIG # Begin signature block' in text:
            raise Unsupported('an Authenticode signature block (%s): signatures are not modelled' % path)
        message = ('File %s cannot be loaded. The file %s is not digitally signed. You cannot run this script on the '
                   'current system. For more information about running scripts and setting execution policy, see '
                   'about_Execution_Policies at https:/go.microsoft.com/fwlink/?LinkID=135170.' % (path, path))
    else:
        return None
    return PSError(message, 'System.Management.Automation.PSSecurityException', 'UnauthorizedAccess', 'SecurityError',
                   target=path)


def _script_entry(node, path):
    entry = filesystem.lookup(node, path) if ntpath.isabs(path) else None
    return entry if entry is not None and not entry['dir'] else None


def script_file(host, path):
    """The text a session runs for ``& <path>``: a .ps1 file of the node its execution policy lets run (a refusal is
    raised); None when ``path`` names no script file."""
    if not path.lower().endswith('.ps1'):
        return None
    entry = _script_entry(host.node, path)
    if entry is None:
        return None
    text = filesystem.decode(filesystem.content_bytes(entry))
    refusal = _refusal(effective_policy(host.node, _session_policy(host)), path, text)
    if refusal is not None:
        raise refusal
    return text


def get_execution_policy(ctx, params, input_items):
    """Get-ExecutionPolicy: the effective policy, one scope's (-Scope), or every scope (-List, objects with the note
    properties Scope and ExecutionPolicy, in precedence order)."""
    listed = scope_policies(ctx.host.node, _session_policy(ctx.host))
    if params.get('List'):
        return [PSCustomObject([('Scope', SCOPE.parse(scope)), ('ExecutionPolicy', POLICY.parse(policy))])
                for scope, policy in listed]
    if params.get('Scope') is not None:
        wanted = to_string(params['Scope']).lower()
        return [POLICY.parse(policy) for scope, policy in listed if scope.lower() == wanted]
    return [POLICY.parse(effective_policy(ctx.host.node, _session_policy(ctx.host)))]


# -- powershell.exe ---------------------------------------------------------------------------------------------

def _bad_command_line(message):
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    return ProgramResult(stderr_lines=[message], exit_code=BAD_COMMAND_LINE)


def _session_host(node, policy, environment):
    """The WindowsHost of the new session: its Process-scope policy and its environment block."""
    from . import WindowsHost  # pylint: disable=import-outside-toplevel

    class SessionHost(WindowsHost):
        execution_policy = policy

        def environment(self):
            return dict(environment) if environment is not None else super().environment()

    return SessionHost(node)


def _run_session(host, text, parameters, what):
    """Run ``text`` in the session of ``host``: (interpreter, exit code, failed, output objects, $? at its end)."""
    token = processes.CURRENT_HOST.set(host)
    try:
        interpreter = new_interpreter(host, host.commands())
        scope = Scope(interpreter.global_scope)
        out = []
        try:
            code, failed = execute(interpreter, text, parameters, out, scope)
        except Unsupported as exc:
            # A construct the engine lacks inside the program is a gap of the caller's run too, never an exit code.
            raise Unsupported('in %s run by powershell.exe: %s' % (what, exc.what)) from None
    finally:
        processes.CURRENT_HOST.reset(token)
    return interpreter, code, failed, out, bool(interpreter.lookup(scope, '?'))


def _result(interpreter, out, exit_code):
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    return ProgramResult(stdout_lines=[to_string(item) for item in out],
                         stderr_lines=[to_string(record) for record in interpreter.errors], exit_code=exit_code)


def _options(words):
    """(index of -File or -Command, the -ExecutionPolicy value) of powershell.exe's options."""
    index, policy = 0, 'Undefined'
    while index < len(words) and words[index].lower() not in ('-file', '-command'):
        option = words[index].lower()
        if option == '-executionpolicy' and index + 1 < len(words) and words[index + 1].lower() in _POLICY_NAMES:
            policy = _POLICY_NAMES[words[index + 1].lower()]
            index += 2
        elif option in _NO_EFFECT:
            index += 1
        else:
            raise Unsupported('powershell.exe %s' % ' '.join(words[index:index + 2]))
    return index, policy


def _run_file(node, words, policy, environment):
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    path = words[0]
    if not path.lower().endswith('.ps1'):
        return _bad_command_line("Processing -File '%s' failed because the file does not have a '.ps1' extension. "
                                 "Specify a valid Windows PowerShell script file name, and then try again." % path)
    if not ntpath.isabs(path):
        raise Unsupported('powershell.exe -File with a relative path (%s)' % path)
    entry = _script_entry(node, path)
    if entry is None:
        return _bad_command_line("The argument '%s' to the -File parameter does not exist. Provide the path to an "
                                 "existing '.ps1' file as an argument to the -File parameter." % path)
    named, positional = file_parameters(words[1:])
    if positional:
        raise Unsupported('positional script arguments after powershell.exe -File: %s' % ' '.join(positional))
    text = filesystem.decode(filesystem.content_bytes(entry))
    refusal = _refusal(effective_policy(node, policy), path, text)
    if refusal is not None:
        return ProgramResult(stderr_lines=[refusal.message], exit_code=1)
    interpreter, code, _failed, out, _status = _run_session(_session_host(node, policy, environment), text, named,
                                                            path)
    return _result(interpreter, out, code)


def _run_command(node, words, policy, environment):
    """-Command: the words after it are the command text; the exit code as about_PowerShell_exe gives it."""
    text = ' '.join(words)
    interpreter, code, failed, out, status = _run_session(_session_host(node, policy, environment), text, None,
                                                          '-Command %r' % text)
    if failed:
        exit_code = 1
    elif code != 0:
        exit_code = code  # an `exit N` the command text ran
    else:
        exit_code = 0 if status else 1
    return _result(interpreter, out, exit_code)


def powershell_exe(host, words, input_items, environment=None):  # pylint: disable=unused-argument
    """powershell.exe [-NoProfile] [-NonInteractive] [-NoLogo] [-ExecutionPolicy P] (-File <path> [args] | -Command
    <text>)."""
    index, policy = _options(words)
    if index + 1 >= len(words):
        raise Unsupported('powershell.exe without -File <path> or -Command <text>')
    if words[index].lower() == '-command':
        return _run_command(host.node, words[index + 1:], policy, environment)
    return _run_file(host.node, words[index + 1:], policy, environment)


CMDLETS = {'Get-ExecutionPolicy': get_execution_policy}
PROGRAMS = {'powershell.exe': powershell_exe}
