"""The operating system: Win32_OperatingSystem, Win32_LogicalDisk, Get-WindowsFeature, machine environment
variables and the clock.

Sources: Win32_OperatingSystem and Win32_LogicalDisk (CIMWin32 WMI provider reference: Version and BuildNumber
are strings, LastBootUpTime a datetime that CimCmdlets return as a local System.DateTime, FreeSpace and Size
uint64, DriveType uint32 3 for a local disk); Get-WindowsFeature (docset/winserver2022-ps/ServerManager) returning
Microsoft.Windows.ServerManager.Commands.Feature objects (Name, DisplayName, Installed, InstallState, FeatureType,
Path, Depth) whose InstallState is the ServerManager InstallState enum (Available, Installed, InstallPending,
Removed, UninstallPending); System.Environment.GetEnvironmentVariable/SetEnvironmentVariable with
EnvironmentVariableTarget (.NET API reference; Machine reads and writes HKLM\\SYSTEM\\CurrentControlSet\\Control\\
Session Manager\\Environment, which windows/registry.py shows from the same node state); Get-Date and Start-Sleep
(reference/5.1 Microsoft.PowerShell.Utility), System.DateTime's ToUniversalTime, AddSeconds and the round-trip
format "o" (.NET "Standard date and time format strings").

The node's clock is the test machine's, its time zone UTC. Start-Sleep advances a simulated clock instead of
sleeping, so a polling loop in a script ends as it would on Windows, at once.
"""

import datetime
import time

from ..pwsh.types import NetType, enum_type, register
from ..pwsh.values import UInt32, UInt64, PSError, Unsupported, enumerate_value, is_enumerable, is_null, to_string
from . import registry
from .cim import CimInstance, get_ciminstance

INSTALL_STATE = enum_type('Microsoft.Windows.ServerManager.Commands.InstallState', {
    'Available': 0, 'Installed': 1, 'InstallPending': 2, 'Removed': 3, 'UninstallPending': 4}).enum
# The node model's feature states (node.py, win_feature) and their InstallState.
_STATES = {'available': 'Available', 'installed': 'Installed', 'installpending': 'InstallPending',
           'removed': 'Removed', 'removepending': 'UninstallPending'}
FEATURE_NAMES = {'Containers': 'Containers', 'Hyper-V': 'Hyper-V', 'Hyper-V-PowerShell': 'Hyper-V Module for Windows PowerShell'}


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

    def ToString(self, fmt=None):  # pylint: disable=invalid-name
        if fmt is None:
            return self.strftime('%m/%d/%Y %H:%M:%S').lstrip('0').replace('/0', '/')
        if to_string(fmt) in ('o', 'O'):
            # Round trip: seven fraction digits, then Z (Utc) or the offset (Local; here +00:00).
            return self.strftime('%Y-%m-%dT%H:%M:%S.') + '%07d' % (self.microsecond * 10) + \
                ('Z' if self.kind == 'Utc' else '+00:00')
        raise Unsupported('DateTime.ToString(%r)' % fmt)

    def to_string(self):
        return self.ToString()


def _now(node):
    offset = node.data.get('clock_offset', 0)
    return DateTime.of(datetime.datetime.fromtimestamp(time.time() + offset, datetime.timezone.utc)
                       .replace(tzinfo=None))


class Win32OperatingSystem(CimInstance):
    CLASS = 'Win32_OperatingSystem'
    KEY = 'Name'
    PROPERTIES = ('Status', 'Name', 'FreePhysicalMemory', 'BootDevice', 'BuildNumber', 'BuildType', 'Caption',
                  'CSName', 'InstallDate', 'LastBootUpTime', 'LocalDateTime', 'OSArchitecture', 'OSType',
                  'ProductType', 'SystemDirectory', 'SystemDrive', 'Version', 'WindowsDirectory', 'PSComputerName')


class Win32LogicalDisk(CimInstance):
    CLASS = 'Win32_LogicalDisk'
    KEY = 'DeviceID'
    PROPERTIES = ('DeviceID', 'DriveType', 'ProviderName', 'FreeSpace', 'Size', 'VolumeName', 'FileSystem',
                  'PSComputerName')


def win32_operatingsystem(node):
    os_state = node.data['os']
    boot = datetime.datetime.fromtimestamp(os_state['last_boot'], datetime.timezone.utc).replace(tzinfo=None)
    return [Win32OperatingSystem(
        Status='OK', Name='%s|C:\\Windows|\\Device\\Harddisk0\\Partition2' % os_state['product_name'],
        FreePhysicalMemory=UInt64(8 * 1024 * 1024), BootDevice='\\Device\\HarddiskVolume1',
        BuildNumber=str(os_state['build']), BuildType='Multiprocessor Free', Caption='Microsoft ' + os_state['product_name'],
        CSName=node.data['hostname'], InstallDate=DateTime.of(boot - datetime.timedelta(days=30)),
        LastBootUpTime=DateTime.of(boot), LocalDateTime=_now(node), OSArchitecture='64-bit', OSType=18,
        ProductType=UInt32(3), SystemDirectory='C:\\Windows\\system32', SystemDrive='C:',
        Version='10.0.%d' % os_state['build'], WindowsDirectory='C:\\Windows', PSComputerName=None)]


def win32_logicaldisk(node):
    free = int(node.profile.get('free_disk_bytes', 0))
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
    node = ctx.host.node
    node.data['clock_offset'] = node.data.get('clock_offset', 0) + span
    return []


CMDLETS = {
    'Get-CimInstance': get_ciminstance,
    'Get-WindowsFeature': get_windowsfeature,
    'Get-Date': get_date,
    'Start-Sleep': start_sleep,
}
CIM_CLASSES = {'win32_operatingsystem': win32_operatingsystem, 'win32_logicaldisk': win32_logicaldisk}
