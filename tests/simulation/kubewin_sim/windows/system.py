"""The operating system: Win32_OperatingSystem, Win32_LogicalDisk, Get-WindowsFeature, machine environment
variables and the clock.

Sources: Win32_OperatingSystem and Win32_LogicalDisk (CIMWin32 WMI provider reference: Version and BuildNumber
are strings, LastBootUpTime a datetime that CimCmdlets return as a local System.DateTime, FreeSpace and Size
uint64, DriveType uint32 3 for a local disk; TotalVisibleMemorySize, the physical memory available to the operating
system, SizeStoredInPagingFiles, what the paging files can hold (0: none), and TotalVirtualMemorySize, the two added:
the commit limit, each a uint64 in kilobytes, MicrosoftDocs/win32 desktop-src/CIMWin32Prov/win32-operatingsystem.md;
the node profile's memory_mb gives the memory, the page files in force since the last boot (windows/registry.py,
PagingFiles) what they hold, and FreePhysicalMemory is half the memory);
Get-WindowsFeature (docset/winserver2022-ps/ServerManager) returning
Microsoft.Windows.ServerManager.Commands.Feature objects (Name, DisplayName, Installed, InstallState, FeatureType,
Path, Depth) whose InstallState is the ServerManager InstallState enum (Available, Installed, InstallPending,
Removed, UninstallPending); System.Environment.GetEnvironmentVariable/SetEnvironmentVariable with
EnvironmentVariableTarget (.NET API reference; Machine reads and writes HKLM\\SYSTEM\\CurrentControlSet\\Control\\
Session Manager\\Environment, which windows/registry.py shows from the same node state); Get-Date and Start-Sleep
(reference/5.1 Microsoft.PowerShell.Utility), System.DateTime's ToUniversalTime, AddSeconds and the round-trip
format "o" (.NET "Standard date and time format strings"); System.Diagnostics.Stopwatch and System.TimeSpan (.NET API
reference, dotnet/dotnet-api-docs xml/System.Diagnostics/Stopwatch.xml and xml/System/TimeSpan.xml): StartNew()
returns a running stopwatch, the constructor a stopped one at zero; Elapsed (a TimeSpan) and ElapsedMilliseconds
(Int64) grow while it runs and stay as they are once stopped; Start resumes from the total so far, Reset stops it
at zero, Restart starts it again from zero. A TimeSpan counts 100-nanosecond ticks (Int64 Ticks); its Total*
properties are Doubles, Days/Hours/Minutes/Seconds/Milliseconds its Int32 components, and [string] of it the
constant ("c") format [-][d.]hh:mm:ss[.fffffff] ("Standard TimeSpan format strings").

The node's clock is simulated (node.py, SimNode.elapsed and SimNode.date; tests/simulation/README.md, "Time"), its
time zone UTC. Start-Sleep moves it on instead of sleeping, so a polling loop in a script ends as it would on
Windows, at once; so does whatever else takes time on the node in the model (a download of the simulated web at the
rate it is served: windows/downloads.py), through ``pass_time``. Nothing else moves it: the engine's own run time
is not the node's, so a script's figures do not depend on how fast the test machine runs it. A stopwatch reads the
node's performance counter (``_monotonic``: the simulated seconds the node has lived through), Get-Date the node's
date (``_now``).
"""

import datetime

from ..pwsh.types import NetType, enum_type, register
from ..pwsh.values import (AUTOMATION_NULL, Int64, UInt32, UInt64, PSError, Unsupported, enumerate_value, is_enumerable,
                           is_null, to_string)
from . import culture, filesystem, registry
from .cim import CimInstance, get_ciminstance

INSTALL_STATE = enum_type('Microsoft.Windows.ServerManager.Commands.InstallState', {
    'Available': 0, 'Installed': 1, 'InstallPending': 2, 'Removed': 3, 'UninstallPending': 4}).enum
# The node model's feature states (node.py, win_feature) and their InstallState.
_STATES = {'available': 'Available', 'installed': 'Installed', 'installpending': 'InstallPending',
           'removed': 'Removed', 'removepending': 'UninstallPending'}
# The Remote Access role, its Routing role service and the RemoteAccess module (RSAT) are the features Calico's BGP
# backend installs (tigera/docs _includes/components/CalicoWindowsInstall.js); their names and display names as
# Get-WindowsFeature lists them on Windows Server (ServerManager, Install-WindowsFeature's -Name).
FEATURE_NAMES = {'Containers': 'Containers', 'Hyper-V': 'Hyper-V', 'Hyper-V-PowerShell': 'Hyper-V Module for Windows PowerShell',
                 'RemoteAccess': 'Remote Access', 'Routing': 'Routing',
                 'RSAT-RemoteAccess-PowerShell': 'Remote Access module for Windows PowerShell'}


class DateTime(datetime.datetime):
    """System.DateTime with its Kind (Local or Utc); the node's local time is UTC."""

    kind = 'Local'

    @classmethod
    def of(cls, value, kind='Local'):
        made = cls(value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond)
        made.kind = kind
        return made

    def ToUniversalTime(self):  # pylint: disable=invalid-name
        return DateTime.of(self, 'Utc')

    def ToLocalTime(self):  # pylint: disable=invalid-name
        return DateTime.of(self, 'Local')

    def AddSeconds(self, seconds):  # pylint: disable=invalid-name
        return DateTime.of(self + datetime.timedelta(seconds=float(seconds)), self.kind)

    def AddMilliseconds(self, milliseconds):  # pylint: disable=invalid-name
        return self.AddSeconds(float(milliseconds) / 1000)

    @property
    def Kind(self):  # pylint: disable=invalid-name
        return self.kind

    @property
    def Date(self):  # pylint: disable=invalid-name
        # DateTime.Date: midnight of the same day, of the same Kind.
        return DateTime.of(self.replace(hour=0, minute=0, second=0, microsecond=0), self.kind)

    def ToString(self, fmt=None, provider=None):  # pylint: disable=invalid-name
        # A format string, and the culture of the provider or the node's (windows/culture.py).
        text = culture.format_datetime(self, fmt, provider, self.kind)
        if text is not None:
            return text
        return self.strftime('%m/%d/%Y %H:%M:%S').lstrip('0').replace('/0', '/')

    def to_string(self):
        return self.ToString()


def pass_time(node, seconds):
    """Let ``seconds`` pass on the node's clock at once (a sleep, a transfer that takes that long)."""
    node.pass_time(seconds)


def _monotonic(node):
    """The node's performance counter, in seconds: the simulated time it has lived through (never set back)."""
    return node.elapsed()


def _now(node):
    """The node's date as Get-Date returns it: a local System.DateTime (the node's time zone is UTC)."""
    return DateTime.of(datetime.datetime.fromtimestamp(node.date(), datetime.timezone.utc).replace(tzinfo=None))


class Win32OperatingSystem(CimInstance):
    CLASS = 'Win32_OperatingSystem'
    KEY = 'Name'
    PROPERTIES = ('Status', 'Name', 'FreePhysicalMemory', 'BootDevice', 'BuildNumber', 'BuildType', 'Caption',
                  'CSName', 'InstallDate', 'LastBootUpTime', 'LocalDateTime', 'OSArchitecture', 'OSType',
                  'ProductType', 'SizeStoredInPagingFiles', 'SystemDirectory', 'SystemDrive', 'TotalVirtualMemorySize',
                  'TotalVisibleMemorySize', 'Version', 'WindowsDirectory', 'PSComputerName')


class Win32LogicalDisk(CimInstance):
    CLASS = 'Win32_LogicalDisk'
    KEY = 'DeviceID'
    PROPERTIES = ('DeviceID', 'DriveType', 'ProviderName', 'FreeSpace', 'Size', 'VolumeName', 'FileSystem',
                  'PSComputerName')


def win32_operatingsystem(node):
    os_state = node.data['os']
    boot = datetime.datetime.fromtimestamp(os_state['last_boot'], datetime.timezone.utc).replace(tzinfo=None)
    memory_kb, page_files_kb = int(node.profile['memory_mb']) * 1024, registry.paging_files_in_force_mb(node) * 1024
    return [Win32OperatingSystem(
        Status='OK', Name='%s|C:\\Windows|\\Device\\Harddisk0\\Partition2' % os_state['product_name'],
        FreePhysicalMemory=UInt64(memory_kb // 2), BootDevice='\\Device\\HarddiskVolume1',
        BuildNumber=str(os_state['build']), BuildType='Multiprocessor Free', Caption='Microsoft ' + os_state['product_name'],
        CSName=node.data['hostname'], InstallDate=DateTime.of(boot - datetime.timedelta(days=30)),
        LastBootUpTime=DateTime.of(boot), LocalDateTime=_now(node), OSArchitecture='64-bit', OSType=18,
        ProductType=UInt32(3), SizeStoredInPagingFiles=UInt64(page_files_kb), SystemDirectory='C:\\Windows\\system32',
        SystemDrive='C:', TotalVirtualMemorySize=UInt64(memory_kb + page_files_kb),
        TotalVisibleMemorySize=UInt64(memory_kb), Version='10.0.%d' % os_state['build'], WindowsDirectory='C:\\Windows',
        PSComputerName=None)]


def win32_logicaldisk(node):
    # The room the node's profile gives the system drive, less the files the model holds (windows/filesystem.py).
    free = filesystem.free_bytes(node)
    return [Win32LogicalDisk(DeviceID='C:', DriveType=UInt32(3), ProviderName=None, FreeSpace=UInt64(free),
                             Size=UInt64(max(free, 127 * 1024 ** 3)), VolumeName='', FileSystem='NTFS',
                             PSComputerName=None)]


# -- Get-WindowsFeature ------------------------------------------------------------------------------

class Feature:
    """Microsoft.Windows.ServerManager.Commands.Feature."""

    NET = 'Microsoft.Windows.ServerManager.Commands.Feature'
    PROPERTIES = ('Name', 'DisplayName', 'Description', 'Installed', 'InstallState', 'FeatureType', 'Path',
                  'Depth', 'DependsOn', 'Parent', 'ServerComponentDescriptor', 'SubFeatures', 'SystemService',
                  'Notification', 'BestPracticesModelId', 'EventQuery', 'PostConfigurationNeeded',
                  'AdditionalInfo')

    def __init__(self, name, state):
        # pylint: disable=invalid-name
        self.Name = name
        self.DisplayName = FEATURE_NAMES.get(name, name)
        self.Description = ''
        self.InstallState = INSTALL_STATE.parse(_STATES.get(state, 'Available'))
        self.Installed = self.InstallState.value == 1
        self.FeatureType = 'Feature'
        self.Path = self.DisplayName
        self.Depth = 1
        self.DependsOn = []
        self.Parent = None
        self.ServerComponentDescriptor = None
        self.SubFeatures = []
        self.SystemService = []
        self.Notification = []
        self.BestPracticesModelId = None
        self.EventQuery = None
        self.PostConfigurationNeeded = False
        self.AdditionalInfo = None

    def to_string(self):
        return self.NET


def get_windowsfeature(ctx, params, input_items):
    """Features by name (wildcards allowed); a name that matches no feature gives nothing (the cmdlet writes
    no error for it)."""
    from ..pwsh import operators as ops  # pylint: disable=import-outside-toplevel
    for unsupported in ('ComputerName', 'Credential', 'Vhd', 'LogPath'):
        if params.get(unsupported) is not None:
            raise Unsupported('Get-WindowsFeature -%s' % unsupported)
    features = ctx.host.node.data['features']
    names = params.get('Name')
    if names is None:
        return [Feature(name, state) for name, state in features.items()]
    patterns = [to_string(item) for item in (enumerate_value(names) if is_enumerable(names) else [names])]
    return [Feature(name, state) for name, state in features.items()
            if any(ops.wildcard(pattern).match(name) for pattern in patterns)]


# -- [Environment] ---------------------------------------------------------------------------------

def _target(target):
    text = to_string(target)
    lowered = {'0': 'process', '1': 'user', '2': 'machine'}.get(text, text.lower())
    if lowered not in ('process', 'user', 'machine'):
        raise PSError("Cannot convert argument \"target\", with value: \"%s\", for \"GetEnvironmentVariable\" to type "
                      "\"System.EnvironmentVariableTarget\"" % text, 'System.Management.Automation.RuntimeException',
                      'MethodArgumentConversionInvalidCastArgument')
    if lowered == 'user':
        raise Unsupported('user-level environment variables')
    return lowered


def get_environment_variable(interpreter, name, target='Process'):
    if is_null(name):
        raise PSError('Value cannot be null.\r\nParameter name: variable', 'System.ArgumentNullException')
    if _target(target) == 'process':
        return interpreter.lookup(None, 'env:' + to_string(name))
    return registry.machine_variable(interpreter.host.node, to_string(name))


def set_environment_variable(interpreter, name, value, target='Process'):
    from ..pwsh.values import AUTOMATION_NULL  # pylint: disable=import-outside-toplevel
    if _target(target) == 'process':
        interpreter.assign(None, 'env:' + to_string(name), value)
        return AUTOMATION_NULL
    node = interpreter.host.node
    environment = node.data['environment']
    for key in [key for key in environment if key.lower() == to_string(name).lower()]:
        del environment[key]
    # An empty or null value deletes the variable (Environment.SetEnvironmentVariable remarks).
    if not is_null(value) and to_string(value) != '':
        environment[to_string(name)] = to_string(value)
    return AUTOMATION_NULL


get_environment_variable.with_interpreter = True
set_environment_variable.with_interpreter = True
enum_type('System.EnvironmentVariableTarget', {'Process': 0, 'User': 1, 'Machine': 2})
register(NetType('System.Environment', statics={
    'GetEnvironmentVariable': get_environment_variable,
    'SetEnvironmentVariable': set_environment_variable,
    # Environment.NewLine (.NET API reference, dotnet/dotnet-api-docs xml/System/Environment.xml: "\r\n" on
    # non-Unix platforms).
    'NewLine': '\r\n',
}))


def process_environment(node):
    """$env: of a PowerShell process on the node: the machine variables (windows/registry.py) and the
    process's own (USERNAME, USERPROFILE of the account WinRM runs the script as)."""
    variables = dict(registry.machine_environment(node))
    variables.update({'USERNAME': 'Administrator', 'USERPROFILE': 'C:\\Users\\Administrator',
                      'APPDATA': 'C:\\Users\\Administrator\\AppData\\Roaming',
                      'LOCALAPPDATA': 'C:\\Users\\Administrator\\AppData\\Local',
                      'TEMP': 'C:\\Users\\Administrator\\AppData\\Local\\Temp',
                      'TMP': 'C:\\Users\\Administrator\\AppData\\Local\\Temp'})
    return {key.upper(): value for key, value in variables.items()}


# -- the clock ------------------------------------------------------------------------------------

def get_date(ctx, params, input_items):
    if params:
        raise Unsupported('Get-Date with parameters %s' % sorted(params))
    return [_now(ctx.host.node)]


def start_sleep(ctx, params, input_items):
    seconds = params.get('Seconds')
    milliseconds = params.get('Milliseconds')
    span = float(to_string(seconds)) if seconds is not None else float(to_string(milliseconds or 0)) / 1000
    pass_time(ctx.host.node, span)
    return []


TICKS_PER_SECOND = 10 ** 7  # a TimeSpan tick is 100 nanoseconds (TimeSpan.TicksPerSecond)


class TimeSpan:
    """System.TimeSpan: a length of time in 100-nanosecond ticks."""

    NET = 'System.TimeSpan'
    PROPERTIES = ('Ticks', 'Days', 'Hours', 'Milliseconds', 'Minutes', 'Seconds', 'TotalDays', 'TotalHours',
                  'TotalMilliseconds', 'TotalMinutes', 'TotalSeconds')

    def __init__(self, ticks):
        self._ticks = int(ticks)

    @property
    def Ticks(self):  # pylint: disable=invalid-name
        return Int64(self._ticks)

    def _component(self, unit, modulo):
        # The components carry the sign of the whole span (TimeSpan.Seconds of -1.5 s is -1).
        whole = abs(self._ticks) // unit % modulo
        return -whole if self._ticks < 0 else whole

    @property
    def Days(self):  # pylint: disable=invalid-name
        return self._component(TICKS_PER_SECOND * 86400, 2 ** 63)

    @property
    def Hours(self):  # pylint: disable=invalid-name
        return self._component(TICKS_PER_SECOND * 3600, 24)

    @property
    def Minutes(self):  # pylint: disable=invalid-name
        return self._component(TICKS_PER_SECOND * 60, 60)

    @property
    def Seconds(self):  # pylint: disable=invalid-name
        return self._component(TICKS_PER_SECOND, 60)

    @property
    def Milliseconds(self):  # pylint: disable=invalid-name
        return self._component(TICKS_PER_SECOND // 1000, 1000)

    @property
    def TotalDays(self):  # pylint: disable=invalid-name
        return self._ticks / (TICKS_PER_SECOND * 86400.0)

    @property
    def TotalHours(self):  # pylint: disable=invalid-name
        return self._ticks / (TICKS_PER_SECOND * 3600.0)

    @property
    def TotalMinutes(self):  # pylint: disable=invalid-name
        return self._ticks / (TICKS_PER_SECOND * 60.0)

    @property
    def TotalSeconds(self):  # pylint: disable=invalid-name
        return self._ticks / float(TICKS_PER_SECOND)

    @property
    def TotalMilliseconds(self):  # pylint: disable=invalid-name
        return self._ticks / (TICKS_PER_SECOND / 1000.0)

    def to_string(self):
        # The constant format "c": [-][d.]hh:mm:ss[.fffffff], the fraction only when there is one.
        ticks = abs(self._ticks)
        seconds, fraction = divmod(ticks, TICKS_PER_SECOND)
        minutes, second = divmod(seconds, 60)
        hours, minute = divmod(minutes, 60)
        days, hour = divmod(hours, 24)
        text = ('%d.' % days if days else '') + '%02d:%02d:%02d' % (hour, minute, second)
        if fraction:
            text += '.%07d' % fraction
        return ('-' if self._ticks < 0 else '') + text


class Stopwatch:
    """System.Diagnostics.Stopwatch on the node's performance counter (``_monotonic``)."""

    NET = 'System.Diagnostics.Stopwatch'
    PROPERTIES = ('Elapsed', 'ElapsedMilliseconds', 'ElapsedTicks', 'IsRunning')

    def __init__(self, node):
        self._node = node
        self._total = 0.0  # seconds of the intervals measured before the running one
        self._started = None  # the counter when the running interval began

    def _seconds(self):
        running = _monotonic(self._node) - self._started if self._started is not None else 0.0
        return self._total + running

    @property
    def Elapsed(self):  # pylint: disable=invalid-name
        return TimeSpan(round(self._seconds() * TICKS_PER_SECOND))

    @property
    def ElapsedMilliseconds(self):  # pylint: disable=invalid-name
        return Int64(int(self._seconds() * 1000))

    @property
    def ElapsedTicks(self):  # pylint: disable=invalid-name
        # Ticks of the performance counter, whose Frequency is the hardware's: nothing a script should rely on.
        raise Unsupported('Stopwatch.ElapsedTicks (counter ticks at the hardware\'s Frequency)')

    @property
    def IsRunning(self):  # pylint: disable=invalid-name
        return self._started is not None

    def Start(self):  # pylint: disable=invalid-name
        if self._started is None:
            self._started = _monotonic(self._node)
        return AUTOMATION_NULL

    def Stop(self):  # pylint: disable=invalid-name
        if self._started is not None:
            self._total = self._seconds()
            self._started = None
        return AUTOMATION_NULL

    def Reset(self):  # pylint: disable=invalid-name
        self._total, self._started = 0.0, None
        return AUTOMATION_NULL

    def Restart(self):  # pylint: disable=invalid-name
        self._total, self._started = 0.0, _monotonic(self._node)
        return AUTOMATION_NULL

    def to_string(self):
        return self.NET


def _start_new(node):
    stopwatch = Stopwatch(node)
    stopwatch.Start()
    return stopwatch


def _counter_unsupported(*_args):
    raise Unsupported('Stopwatch.GetTimestamp and Frequency (the hardware counter\'s own units)')


_counter_unsupported.is_property = True  # also [Stopwatch]::Frequency, read without parentheses


def types(host):
    """[System.Diagnostics.Stopwatch], on this node's clock, and [System.TimeSpan]'s factories."""
    node = host.node
    return {'system.diagnostics.stopwatch': NetType(
        'System.Diagnostics.Stopwatch', constructor=lambda: Stopwatch(node),
        statics={'StartNew': lambda: _start_new(node), 'GetTimestamp': _counter_unsupported,
                 'Frequency': _counter_unsupported, 'IsHighResolution': _counter_unsupported}),
            # TimeSpan.FromMinutes / FromHours (.NET API reference, xml/System/TimeSpan.xml).
            'system.timespan': NetType('System.TimeSpan', statics={
                'FromMinutes': lambda value: TimeSpan(round(float(value) * 60 * TICKS_PER_SECOND)),
                'FromHours': lambda value: TimeSpan(round(float(value) * 3600 * TICKS_PER_SECOND))})}


CMDLETS = {
    'Get-CimInstance': get_ciminstance,
    'Get-WindowsFeature': get_windowsfeature,
    'Get-Date': get_date,
    'Start-Sleep': start_sleep,
}
CIM_CLASSES = {'win32_operatingsystem': win32_operatingsystem, 'win32_logicaldisk': win32_logicaldisk}
