"""The event logs: Get-WinEvent -FilterHashtable over the events the node holds.

Sources: reference/5.1/Microsoft.PowerShell.Diagnostics/Get-WinEvent.md (MicrosoftDocs/PowerShell-Docs): events
come newest first unless -Oldest; -MaxEvents (Int64) caps how many; the FilterHashtable keys and values are
case-insensitive, wildcards are valid in LogName and ProviderName values; the objects are
System.Diagnostics.Eventing.Reader.EventLogRecord. How the cmdlet builds and runs a hash-table query, and its
errors: GetEventCommand.cs in PowerShell/PowerShell (src/Microsoft.PowerShell.Commands.Diagnostics, the
open-sourced descendant of Windows PowerShell 5.1's cmdlet, with its GetEventResources.resx strings):
- every ProviderName pattern is matched against the registered providers; one that matches none is a
  non-terminating NoMatchingProvidersFound error ('There is not an event provider on the localhost computer
  that matches "<pattern>".'), and with LogName given, a log none of the providers writes to is dropped: when
  none is left, LogsAndProvidersDontOverlap ('The specified providers do not write events to any of the
  specified logs.') and nothing is read;
- a LogName that matches no log is NoMatchingLogsFound ('There is not an event log on the localhost computer
  that matches "<pattern>".');
- a query that is run and reads no event writes NoMatchingEventsFound ('No events were found that match the
  specified selection criteria.', ObjectNotFound); the read stops after MaxEvents events;
- each record gets a Message note property (FormatDescription).
EventLogRecord (.NET API reference, System.Diagnostics.Eventing.Reader): TimeCreated is a Nullable<DateTime> in
local time, Level a Byte (1 Critical, 2 Error, 3 Warning, 4 Information, 5 Verbose: the standard levels of
winmeta.xml) and LevelDisplayName its name, ProviderName, LogName, Id, RecordId.

The node's events are ``node.data['event_log']``: ``{provider: [{'time': ISO 8601, 'level': LevelDisplayName,
'message': text, 'log': channel}]}``, oldest first, in the Application log (where a program registered as an event
source writes: dockerd's service writes there, kubewin_sim/programs.py) unless an event names its ``log``. A provider
is registered when it has an entry, even an empty list. Channels of their own (``channels(node)``): Container
Credential Guard's ``Microsoft-Windows-Containers-CCG/Admin`` (provider ``Microsoft-Windows-Containers-CCG``, which
kubernetes.io "Configure GMSA" and the Windows containers gMSA troubleshooting guide read) once the Containers feature
is installed, and those an instrumentation manifest imported with ``wevtutil.exe im`` declares
(``node.data['event_channels']``, windows/wevtutil.py). Keys other than LogName, ProviderName, Level, StartTime and
EndTime, and the other parameter sets, are not modelled (an engine gap naming them).
"""

import datetime

from ..pwsh import operators as ops
from ..pwsh.values import Byte, Int64, PSError, Unsupported, enumerate_value, is_enumerable, is_null, to_string
from .system import DateTime

# The logs of a Windows Server installation the model knows; Application holds the events of event sources.
LOGS = ('Application', 'Security', 'Setup', 'System')
EVENT_LOG = 'Application'
# Container Credential Guard's channel and provider, there with the Containers feature.
CCG_CHANNEL = 'Microsoft-Windows-Containers-CCG/Admin'
CCG_PROVIDER = 'Microsoft-Windows-Containers-CCG'
LEVELS = {'Critical': 1, 'Error': 2, 'Warning': 3, 'Information': 4, 'Verbose': 5}
KEYS = {'logname', 'providername', 'level', 'starttime', 'endtime'}


class EventLogRecord:
    """System.Diagnostics.Eventing.Reader.EventLogRecord with Get-WinEvent's Message note property."""

    NET = 'System.Diagnostics.Eventing.Reader.EventLogRecord'
    PROPERTIES = ('Message', 'Id', 'Level', 'LevelDisplayName', 'LogName', 'ProviderName', 'RecordId', 'TimeCreated')

    def __init__(self, provider, record_id, event):
        self.ProviderName = provider
        self.LogName = event.get('log') or EVENT_LOG
        self.Id = int(event.get('id', 0))  # Int32
        self.LevelDisplayName = event['level']
        self.Level = Byte(LEVELS.get(event['level'], 0))  # Nullable<Byte> (EventRecord.Level, .NET API reference)
        self.RecordId = Int64(record_id)
        moment = datetime.datetime.fromisoformat(event['time'])
        if moment.tzinfo is not None:
            moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        self.TimeCreated = DateTime.of(moment)  # local time: the node's time zone is UTC
        self.Message = event['message']

    def to_string(self):
        return self.NET


def channels(node):
    """{channel: provider} of the channels of their own the node has."""
    found = {}
    if node.data['features'].get('Containers') == 'installed':
        found[CCG_CHANNEL] = CCG_PROVIDER
    found.update(node.data.get('event_channels') or {})
    return found


def _provider_logs(node):
    """{provider: the logs it writes}: an event source the Application log, a manifest's provider its channels."""
    declared = channels(node)
    logs = {}
    for channel, provider in declared.items():
        logs.setdefault(provider, set()).add(channel)
    for provider, events in (node.data.get('event_log') or {}).items():
        if provider not in logs:
            logs[provider] = {event.get('log') or EVENT_LOG for event in events} or {EVENT_LOG}
    return logs


def _values(value):
    return [to_string(item) for item in enumerate_value(value)] if is_enumerable(value) else [to_string(value)]


def _records(node):
    """Every event of the node's Application log, oldest first, with its record id."""
    events = [(event['time'], provider, event) for provider, listed in sorted((node.data.get('event_log') or {}).items())
              for event in listed]
    events.sort(key=lambda item: datetime.datetime.fromisoformat(item[0]).timestamp())
    return [EventLogRecord(provider, index + 1, event) for index, (_when, provider, event) in enumerate(events)]


def _matching(patterns, names):
    found = []
    for name in names:
        if any(ops.wildcard(pattern).match(name) for pattern in patterns) and name not in found:
            found.append(name)
    return found


def _error(message, error_id, category, target=None):
    return PSError(message, 'System.Exception', error_id + ',Microsoft.PowerShell.Commands.GetWinEventCommand',
                   category, target=target)


def _each_matching(ctx, value, names, what, error_id):
    """The names matching each pattern of ``value``, once each; a pattern that matches none writes its error."""
    found = []
    for pattern in _values(value):
        matched = _matching([pattern], names)
        if not matched:
            ctx.write_error(_error('There is not an %s on the localhost computer that matches "%s".' % (what, pattern),
                                   error_id, 'ObjectNotFound', pattern))
        found += [name for name in matched if name not in found]
    return found


def _query(ctx, table):
    """One hash table: the records it selects, or None when no query is run (its errors written)."""
    node = ctx.host.node
    keys = {to_string(key).lower(): value for key, value in table.items()}
    unknown = sorted(set(keys) - KEYS)
    if unknown:
        raise Unsupported('Get-WinEvent -FilterHashtable key %s' % unknown[0])
    known = list(LOGS) + sorted(channels(node))
    logs = known
    if 'logname' in keys:
        logs = _each_matching(ctx, keys['logname'], known, 'event log', 'NoMatchingLogsFound')
    providers = None
    if 'providername' in keys:
        writes = _provider_logs(node)
        providers = _each_matching(ctx, keys['providername'], sorted(writes), 'event provider',
                                   'NoMatchingProvidersFound')
        if 'logname' in keys and logs:
            logs = [log for log in logs if any(log in writes[provider] for provider in providers)]
            if not logs:
                ctx.write_error(_error('The specified providers do not write events to any of the specified logs.',
                                       'LogsAndProvidersDontOverlap', 'InvalidArgument'))
                return None
        elif not providers:
            return None
    if not logs:
        return None
    records = [record for record in _records(node) if record.LogName in logs]
    if providers is not None:
        records = [record for record in records if record.ProviderName in providers]
    if 'level' in keys:
        levels = {int(to_string(level)) for level in _values(keys['level'])}
        records = [record for record in records if record.Level in levels]
    if not is_null(keys.get('starttime')):
        records = [record for record in records if record.TimeCreated >= keys['starttime']]
    if not is_null(keys.get('endtime')):
        records = [record for record in records if record.TimeCreated <= keys['endtime']]
    return records


def get_winevent(ctx, params, input_items):
    tables = params.get('FilterHashtable')
    if tables is None:
        raise Unsupported('Get-WinEvent without -FilterHashtable')
    queried, records = False, {}
    for table in (enumerate_value(tables) if is_enumerable(tables) else [tables]):
        selected = _query(ctx, table)
        if selected is not None:
            queried = True
            records.update((int(record.RecordId), record) for record in selected)
    if not queried:
        return []
    records = [records[key] for key in sorted(records, reverse=not params.get('Oldest'))]
    maximum = params.get('MaxEvents')
    if maximum is not None and int(maximum) != -1:
        records = records[:int(maximum)]
    if not records:
        ctx.write_error(_error('No events were found that match the specified selection criteria.',
                               'NoMatchingEventsFound', 'ObjectNotFound'))
    return records


CMDLETS = {
    'Get-WinEvent': get_winevent,
}
