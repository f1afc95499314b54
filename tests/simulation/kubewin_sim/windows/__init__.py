"""Windows, modelled once, below the engine: the cmdlets, .NET types and programs scripts call.

Each cmdlet is implemented once against the node model (``kubewin_sim/node.py`` holds the state),
returns the objects real Windows returns (property names and .NET types from the CIM class or .NET
reference named next to each), and binds through the parameter-set tables of Microsoft's reference
(``kubewin_sim/pwsh/cmdlet_sets``). A script meets only what is modelled here; a cmdlet not yet
modelled is an unknown command.

One module per area of Windows. An area module may define:
- ``CMDLETS``: cmdlet name -> ``function(ctx, params, input_items)`` (``ctx.host.node`` is the SimNode);
- ``CONSTRUCTORS``: lower-case .NET type name -> callable (``New-Object``);
- ``COM_CLASSES``: lower-case ProgID -> class made with the WindowsHost (``New-Object -ComObject``);
- ``CMDLET_KIND``: ``pwsh.commands.CDXML`` when the area's cmdlets are CDXML functions (default COMPILED), which
  decides where they read preference variables; ``WHATIF_MODELLED``: the cmdlets whose function decides -WhatIf itself
  (``pwsh/commands.py``);
- ``available(node)``: whether the node has the area's module (its ``CMDLETS`` exist only then);
- ``PROGRAMS``: lower-case program file name (``sc.exe``) -> ``function(host, words, input_items, environment=None)``
  returning a ``ProgramResult``: ``input_items`` the pipeline input of a native call, or the bytes a script wrote
  to the standard input of a process it started ([Diagnostics.Process]::Start); ``environment`` the environment
  block of such a process (ProcessStartInfo.EnvironmentVariables), None for the session's own;
- ``types(host)``: lower-case full .NET type name -> NetType whose statics act on the node
  (``[System.IO.File]::WriteAllText``);
- ``CIM_CLASSES``: lower-case CIM class name -> ``function(node)`` giving its instances (Get-CimInstance);
- ``CIM_METHODS``: (lower-case class, lower-case method) -> ``function(ctx, instance, arguments)`` returning a
  ``cim.CimMethodResult`` (Invoke-CimMethod; ``instance`` None for a static method such as Win32_Process.Create);
- ``PROVIDER_CMDLETS``: (lower-case drive, cmdlet name) -> function: the provider cmdlets (Test-Path,
  Get-Item, New-Item...) are registered once, by ``filesystem``, which hands a call on another drive
  (``HKLM:``) to the area that models that provider.
"""

from ..pwsh.commands import COMPILED, Cmdlet
from . import (addtype, cim, computersystem, culture, defender, downloads, eventlog, filesystem, hns, hostlocal, hyperv, kubeadm,
               kube_proxy, msi, netsh, nettcpip, netsecurity, openvswitch, pipes, powershell_exe, processes, reg_exe, registry,
               registry_security, remoteaccess, scheduledtasks, services, system, wevtutil)

AREAS = (nettcpip, cim, filesystem, addtype, downloads, hns, hyperv, netsecurity, processes, powershell_exe, kubeadm, kube_proxy, msi, openvswitch,
         registry, remoteaccess, services, system, eventlog, hostlocal, scheduledtasks, culture, computersystem, pipes,
         registry_security, reg_exe, wevtutil, netsh, defender)


class ProgramResult:
    """What a native program did: its standard output and error lines, its exit code, and how many seconds it ran
    (a process started with Start-Process or Process.Start is running until a wait of that long). ``stdout`` and
    ``stderr`` are the exact text when it matters (a redirected stream read whole: no line end added)."""

    def __init__(self, stdout_lines=(), stderr_lines=(), exit_code=0, seconds=0, stdout=None, stderr=None):  # pylint: disable=too-many-arguments
        self.stdout = stdout
        self.stderr = stderr
        self.stdout_lines = list(stdout_lines) if stdout is None else stdout.splitlines()
        self.stderr_lines = list(stderr_lines) if stderr is None else stderr.splitlines()
        self.exit_code = exit_code
        self.seconds = seconds


def _program_key(name):
    return name.replace('/', '\\').rsplit('\\', 1)[-1].lower()


def catch_up(node):
    """What happened on the node by itself up to its clock, before anyone looks: the services' programs' own doings
    (scm.settle) and the processes Win32_Process.Create started (processes.run_due)."""
    from .. import scm  # pylint: disable=import-outside-toplevel
    powershell_exe.apply_group_policy(node)
    scm.settle(node)
    processes.run_due(node)


def _go_panic(node, name):
    """A program file (by SHA-256, the profile's ``program_panics``) whose Go runtime panics at start: the runtime
    prints the panic and its goroutine on stderr and ends the process with exit status 2 (the Go runtime's for an
    unrecovered panic, runtime/panic.go ``fatalpanic``)."""
    entry = node.file(name) if '\\' in name or '/' in name else None
    if entry is None or entry.get('sha256') not in (node.profile.get('program_panics') or []):
        return None
    node.record('%s: panic at start (exit status 2)' % name)
    return ProgramResult(stderr_lines=['panic: runtime error: invalid memory address or nil pointer dereference',
                                       '', 'goroutine 1 [running]:'], exit_code=2)


def work_due(node):
    """Whether ``catch_up`` has something to do on the node now (a process Create started whose start-up is over)."""
    return processes.due(node)


class WindowsHost:
    """What the engine asks of Windows for one node: cmdlets, programs and .NET types. A session on the node starts
    with the node caught up with its clock (``catch_up``)."""

    def __init__(self, node):
        self.node = node
        # A host without a node (WindowsHost(None): netmembers and the coverage test list the types the areas
        # register) has no clock to catch up with and no account.
        if node is not None:
            catch_up(node)
        # A session keeps the culture its account had when it started (windows/culture.py).
        self.culture = culture.account_culture(node) if node is not None else None

    def commands(self):
        """The cmdlets of every area whose module the node has (an area's ``available(node)``, e.g. Hyper-V's cmdlets
        only with the Hyper-V-PowerShell feature)."""
        return {name.lower(): Cmdlet(name, function, kind=getattr(area, 'CMDLET_KIND', COMPILED),
                                     models_what_if=name in getattr(area, 'WHATIF_MODELLED', ()))
                for area in AREAS if getattr(area, 'available', lambda node: True)(self.node)
                for name, function in getattr(area, 'CMDLETS', {}).items()}

    def unloaded_type(self, type_name):
        """Whether the type is one of an assembly a session does not load until Add-Type -AssemblyName loads it
        (addtype.ASSEMBLIES): before that, Windows PowerShell does not find it (TypeNotFound)."""
        key = type_name.strip().lower()
        return any(net_type.name.lower() in (key, 'system.' + key)
                   for factory in addtype.ASSEMBLIES.values() for net_type in factory(self))

    def absent_modules(self):
        """The PowerShell modules whose area the node does not have (an area's ``available(node)`` false): a cmdlet
        of one of these is not there (CommandNotFound), modelled or not."""
        from ..pwsh.cmdlet_sets import cmdlet_spec  # pylint: disable=import-outside-toplevel
        return {cmdlet_spec(name).module for area in AREAS if not getattr(area, 'available', lambda node: True)(self.node)
                for name in getattr(area, 'CMDLETS', {})}

    @staticmethod
    def com_class(prog_id):
        """The class New-Object -ComObject makes for a ProgID (an area's ``COM_CLASSES``), or None."""
        for area in AREAS:
            found = getattr(area, 'COM_CLASSES', {}).get(prog_id.strip().lower())
            if found is not None:
                return found
        return None

    @staticmethod
    def _program(name):
        for area in AREAS:
            program = getattr(area, 'PROGRAMS', {}).get(_program_key(name))
            if program is not None:
                return program
        return None

    def now(self):
        """DateTime.Now on the node (windows/system.py's clock)."""
        return system._now(self.node)  # pylint: disable=protected-access

    def environment(self):
        """The environment variables ($env:) a PowerShell process on the node starts with."""
        return system.process_environment(self.node)

    def has_program(self, name):
        return self._program(name) is not None

    def run_program(self, name, words, input_items, environment=None):
        panic = _go_panic(self.node, name)
        if panic is not None:
            return panic
        if environment is None:
            return self._program(name)(self, words, input_items)
        return self._program(name)(self, words, input_items, environment=environment)

    def script_file(self, path):
        """The text of the script file ``& <path>`` runs, once the session's execution policy lets it; None when
        ``path`` names no script file (windows/powershell_exe.py)."""
        return powershell_exe.script_file(self, path)

    def type(self, type_name):
        """A .NET type whose static members act on this node, or None."""
        key = type_name.strip().lower()
        for area in AREAS:
            if hasattr(area, 'types'):
                found = area.types(self).get(key) or area.types(self).get('system.' + key)
                if found is not None:
                    return found
        return None

    def constructor(self, type_name):
        for area in AREAS:
            constructor = getattr(area, 'CONSTRUCTORS', {}).get(type_name.lower())
            if constructor is not None:
                return constructor
        # New-Object of a type bound to this node makes what its ::new() makes ([Diagnostics.Stopwatch]).
        bound = self.type(type_name)
        return bound.constructor if bound is not None else None


def run_on_node(node, text, parameters=None):
    """Run PowerShell ``text`` on ``node`` (a SimNode) in the engine; returns the engine's Outcome."""
    from ..pwsh import run_command  # pylint: disable=import-outside-toplevel
    host = WindowsHost(node)
    token = processes.CURRENT_HOST.set(host)
    try:
        return run_command(text, parameters=parameters, host=host, commands=host.commands())
    finally:
        processes.CURRENT_HOST.reset(token)
