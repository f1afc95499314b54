"""Microsoft Defender Antivirus: the Defender module's Get-MpComputerStatus, Get-MpPreference, Add-MpPreference and
Remove-MpPreference over ``node.data['defender']``.

Sources:
- the cmdlets' pages in MicrosoftDocs/windows-powershell-docs (docset/winserver2022-ps/Defender: Get-MpComputerStatus,
  Get-MpPreference, Add-MpPreference, Remove-MpPreference; their parameter sets in pwsh/cmdlet_sets/Defender.json).
  The module page (Defender.md) says they are functions made to look like cmdlets: CDXML functions (their pages list
  CimSession, ThrottleLimit and AsJob; Get-MpComputerStatus's help file is MSFT_MpComputerStatus.cdxml-help.xml);
- the CIM classes they return, root/Microsoft/Windows/Defender (learn.microsoft.com, previous-versions/windows/desktop/
  defender: "MSFT_MpComputerStatus class", "MSFT_MpPreference class", and the Add and Remove methods of
  MSFT_MpPreference, whose in parameters ExclusionPath, ExclusionExtension and ExclusionProcess are string arrays).
  Get-MpComputerStatus's example prints the status of a running Defender: AMServiceEnabled, AntivirusEnabled,
  RealTimeProtectionEnabled... True, AMRunningMode Normal;
- Add-MpPreference's page: -ExclusionPath and -ExclusionProcess add values "without affecting other existing values",
  Remove-MpPreference removes them, Set-MpPreference replaces the whole list (not modelled);
- "Microsoft Defender Antivirus on Windows Server" (learn.microsoft.com, defender-endpoint/
  microsoft-defender-antivirus-on-windows-server): by default Defender Antivirus is installed and functional on
  Windows Server (2016, 2019, 2022), and its feature Windows-Defender can be uninstalled, which removes the Defender
  module with it. That is the profile's ``defender``: 'running' (the
  default), 'stopped' (the feature is there, its service WinDefend is not running: a third-party antivirus, or an
  administrator) or 'removed' (the module is not there: its cmdlets are CommandNotFound).

Errors of a node whose WinDefend service does not run, as users report them (the HRESULT 0x800106ba is
RPC_S_SERVER_UNAVAILABLE, 1722 "The RPC server is unavailable", with FACILITY_RPC): a CimException written by the
CDXML function, non-terminating, FullyQualifiedErrorId "HRESULT 0x800106ba,<cmdlet>", category NotSpecified, target
the class:
- Get-MpComputerStatus: "A general error occurred that is not covered by a more specific error code."
  (scipag/HardeningKitty issue #52);
- Get-MpPreference: "Operation failed with the following error: 0x%1!x!" (the message text with its unfilled insert,
  as printed; UnamSanctam/SilentCryptoMiner issue #2384);
- Add-MpPreference -ExclusionPath: two errors, "Operation failed with the following error: 0x800106ba. Operation:
  MpPreference. Target: ConfigListExtension." then "Operation failed with the following error: 0x%1!x!"
  (MultiPoolMiner/MultiPoolMiner issue #351, valinet/ExplorerPatcher issue #4213). The model writes the first with
  the same Target for -ExclusionProcess, which no report shows.

What the model holds: ``defender = {'exclusion_path': [...], 'exclusion_process': [...]}``, created by the first
change (a node nobody changed reads the profile's defaults: no exclusions, as a fresh installation has none).
Get-MpPreference's ExclusionPath and ExclusionProcess are $null when the list is empty (a CIM array property without
a value), else string arrays. Properties of the two classes the model does not hold are not members of its objects:
reading one is Unsupported (the classes have many more: signature ages, scan schedules...). Not modelled, so
Unsupported: Add-/Remove-MpPreference with parameters other than -ExclusionPath, -ExclusionProcess and -Force; adding
a value the list holds already or removing one it does not hold (what Defender does then is not documented: a script
compares with Get-MpPreference first, case-insensitively as Defender compares paths); Remove-MpPreference on a node
whose service is stopped (no report of its error); Defender's automatic exclusions of server roles, which
Get-MpPreference does not list; -AsJob and -CimSession.
"""

from ..pwsh.commands import CDXML
from ..pwsh.values import PSArray, PSError, Unsupported, enumerate_value, is_enumerable, is_null, to_string
from .cim import CimInstance

_CIM_EXCEPTION = 'Microsoft.Management.Infrastructure.CimException'
# RPC_S_SERVER_UNAVAILABLE (Win32 1722) as an HRESULT of FACILITY_RPC.
_SERVICE_DOWN = '0x800106ba'
_UNFILLED = 'Operation failed with the following error: 0x%1!x!'
STATES = ('running', 'stopped', 'removed')
# The version strings of Get-MpComputerStatus's example (its 2024 page).
_VERSIONS = {'AMEngineVersion': '1.1.24050.5', 'AMProductVersion': '4.18.24050.7', 'AMServiceVersion': '4.18.24050.7',
             'NISEngineVersion': '1.1.24050.5'}
_EXCLUSIONS = {'ExclusionPath': 'exclusion_path', 'ExclusionProcess': 'exclusion_process'}


def installation(node):
    """'running', 'stopped' or 'removed' (the profile's ``defender``; a test may change it on a live node)."""
    value = (node.data.get('defender') or {}).get('installation') or node.profile.get('defender', 'running')
    if value not in STATES:
        raise Unsupported('a Defender installation %r (the model knows %s)' % (value, ', '.join(STATES)))
    return value


def available(node):
    return installation(node) != 'removed'


def exclusions(node):
    """The exclusion lists as the node holds them (a copy): {'exclusion_path': [...], 'exclusion_process': [...]}."""
    held = node.data.get('defender') or {}
    return {key: list(held.get(key) or []) for key in _EXCLUSIONS.values()}


def _changing(node):
    held = node.data.setdefault('defender', {})
    for key in _EXCLUSIONS.values():
        held.setdefault(key, [])
    return held


class MpComputerStatus(CimInstance):
    """MSFT_MpComputerStatus: the properties the model holds (the class's others are Unsupported)."""
    CLASS = 'MSFT_MpComputerStatus'
    PROPERTIES = ('AMEngineVersion', 'AMProductVersion', 'AMRunningMode', 'AMServiceEnabled', 'AMServiceVersion',
                  'AntispywareEnabled', 'AntivirusEnabled', 'BehaviorMonitorEnabled', 'IoavProtectionEnabled',
                  'NISEnabled', 'NISEngineVersion', 'OnAccessProtectionEnabled', 'RealTimeProtectionEnabled',
                  'PSComputerName')


class MpPreference(CimInstance):
    """MSFT_MpPreference: the exclusion lists and the real-time switch (the class's other settings are Unsupported)."""
    CLASS = 'MSFT_MpPreference'
    PROPERTIES = ('DisableRealtimeMonitoring', 'ExclusionExtension', 'ExclusionIpAddress', 'ExclusionPath',
                  'ExclusionProcess', 'PSComputerName')


def _service_down(ctx, class_name, message, target=None):
    ctx.write_error(PSError(message, _CIM_EXCEPTION, 'HRESULT %s,%s' % (_SERVICE_DOWN, ctx.cmdlet.name), 'NotSpecified',
                            target=target or class_name))


def _no_remote(params, command):
    for unsupported in ('AsJob', 'CimSession'):
        if params.get(unsupported) is not None:
            raise Unsupported('%s -%s' % (command, unsupported))


def get_mpcomputerstatus(ctx, params, input_items):
    _no_remote(params, 'Get-MpComputerStatus')
    if installation(ctx.host.node) == 'stopped':
        _service_down(ctx, 'MSFT_MpComputerStatus', 'A general error occurred that is not covered by a more specific '
                      'error code.')
        return []
    return [MpComputerStatus(AMRunningMode='Normal', AMServiceEnabled=True, AntispywareEnabled=True,
                             AntivirusEnabled=True, BehaviorMonitorEnabled=True, IoavProtectionEnabled=True,
                             NISEnabled=True, OnAccessProtectionEnabled=True, RealTimeProtectionEnabled=True,
                             PSComputerName=None, **_VERSIONS)]


def _array(values):
    return PSArray(values, 'System.String') if values else None


def get_mppreference(ctx, params, input_items):
    _no_remote(params, 'Get-MpPreference')
    node = ctx.host.node
    if installation(node) == 'stopped':
        _service_down(ctx, 'MSFT_MpPreference', _UNFILLED)
        return []
    held = exclusions(node)
    return [MpPreference(DisableRealtimeMonitoring=False, ExclusionExtension=None, ExclusionIpAddress=None,
                         ExclusionPath=_array(held['exclusion_path']),
                         ExclusionProcess=_array(held['exclusion_process']), PSComputerName=None)]


def _values(value):
    if is_null(value):
        return []
    return [to_string(item) for item in (enumerate_value(value) if is_enumerable(value) else [value])]


def _lists(params, command):
    """The exclusion values a call names, by model key; any other setting is Unsupported."""
    _no_remote(params, command)
    for name in params:
        if name not in _EXCLUSIONS and name not in ('Force', 'ThrottleLimit'):
            raise Unsupported('%s -%s' % (command, name))
    return {key: _values(params.get(parameter)) for parameter, key in _EXCLUSIONS.items()}


def _holds(values, value):
    return value.lower() in (item.lower() for item in values)


def add_mppreference(ctx, params, input_items):
    node = ctx.host.node
    wanted = _lists(params, 'Add-MpPreference')
    if installation(node) == 'stopped':
        _service_down(ctx, 'MSFT_MpPreference', 'Operation failed with the following error: %s. Operation: '
                      'MpPreference. Target: ConfigListExtension.' % _SERVICE_DOWN)
        _service_down(ctx, 'MSFT_MpPreference', _UNFILLED)
        return []
    current = exclusions(node)
    for key, values in wanted.items():
        for value in values:
            if _holds(current[key], value):
                raise Unsupported('Add-MpPreference of an exclusion the list holds already: %r' % value)
    held = _changing(node)
    for key, values in wanted.items():
        held[key].extend(values)
    return []


def remove_mppreference(ctx, params, input_items):
    node = ctx.host.node
    wanted = _lists(params, 'Remove-MpPreference')
    if installation(node) == 'stopped':
        raise Unsupported('Remove-MpPreference while the WinDefend service is stopped (its error is not documented)')
    current = exclusions(node)
    for key, values in wanted.items():
        for value in values:
            if not _holds(current[key], value):
                raise Unsupported('Remove-MpPreference of an exclusion the list does not hold: %r' % value)
    held = _changing(node)
    for key, values in wanted.items():
        held[key] = [item for item in held[key] if not _holds(values, item)]
    return []


CMDLETS = {
    'Add-MpPreference': add_mppreference,
    'Get-MpComputerStatus': get_mpcomputerstatus,
    'Get-MpPreference': get_mppreference,
    'Remove-MpPreference': remove_mppreference,
}
CMDLET_KIND = CDXML
