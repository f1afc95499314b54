"""The streams a command writes besides success output and errors, and what reaches the host's own output.

Windows PowerShell 5.1 as MshCommandRuntime.cs and InternalHostUserInterface.cs have it (PowerShell/PowerShell
60b3b304f2, the engine as open-sourced from 5.1), about_Output_Streams and about_Preference_Variables (reference/5.1):

- warning (3), verbose (4), debug (5): a record is written only while the command's preference lets it
  (WriteHelper_ShouldWrite: not under SilentlyContinue or Ignore). A written record goes to the session's
  informational buffers (what ``PowerShell.Streams.Warning`` etc. hold) and to the host UI's WriteWarningLine,
  WriteVerboseLine or WriteDebugLine. Under Stop the command then ends with ActionPreferenceStopException
  (WriteHelper, CommandBaseStrings.ErrorPreferenceStop); Inquire prompts the user, which is not modelled.
- information (6): every record not Ignored is kept (WriteInformation calls WriteInformationRecord before it looks at
  the preference); it is also shown on the host when it is tagged PSHOST (Write-Host) or the preference is Continue:
  a HostInformationMessage by its text, with Write or WriteLine as its NoNewLine says, any other record by ToString().
- ``What if:`` lines of ShouldProcess go to the host UI's WriteLine (MshCommandRuntime.DoShouldProcess).

The host output is kept as the text the host UI received; a line ends with "\\r\\n", as .NET's StreamWriter.WriteLine
ends one on Windows (Environment.NewLine).
"""

from .values import PSArray, PSError, Unsupported, to_string

NEWLINE = '\r\n'

# CommandBaseStrings.ErrorPreferenceStop.
PREFERENCE_STOP = 'The running command stopped because the preference variable "%s" or common parameter is set to Stop: %s'
# InternalHostUserInterface's WriteDebugLine/WriteVerboseLine/WriteWarningLine prefixes as ansible.windows'
# win_powershell host writes them (HostUI in plugins/modules/win_powershell.ps1) and the console host shows them
# (InternalHostUserInterfaceStrings DebugFormatString, VerboseFormatString, WarningFormatString).
LINE_PREFIX = {'warning': 'WARNING: ', 'verbose': 'VERBOSE: ', 'debug': 'DEBUG: '}
PREFERENCE_VARIABLE = {'warning': 'WarningPreference', 'verbose': 'VerbosePreference', 'debug': 'DebugPreference',
                       'information': 'InformationPreference'}


class InformationRecord:
    """System.Management.Automation.InformationRecord: MessageData, Source, TimeGenerated (local time), Tags."""

    NET = 'System.Management.Automation.InformationRecord'

    def __init__(self, message_data, source, time_generated, tags):
        self.MessageData = message_data
        self.Source = source
        self._time_generated = time_generated
        self.Tags = PSArray(tags)

    @property
    def TimeGenerated(self):  # pylint: disable=invalid-name
        """DateTime.Now when the record was written: the host's clock (a node's); an engine without a host has none."""
        if self._time_generated is None:
            raise Unsupported('InformationRecord.TimeGenerated without a host clock')
        return self._time_generated

    def to_string(self):
        return to_string(self.MessageData)


class HostInformationMessage:
    """System.Management.Automation.HostInformationMessage, what Write-Host writes to the information stream."""

    NET = 'System.Management.Automation.HostInformationMessage'
    PROPERTIES = ('Message', 'NoNewLine', 'ForegroundColor', 'BackgroundColor')

    def __init__(self, message, no_new_line, foreground=None, background=None):
        self.Message = message
        self.NoNewLine = no_new_line
        self.ForegroundColor = foreground
        self.BackgroundColor = background

    def to_string(self):
        return self.Message


class Streams:
    """What one runspace's commands wrote besides output and errors, and its host's output and error output."""

    def __init__(self):
        self.host_out = []
        self.host_err = []
        self.warning = []
        self.verbose = []
        self.debug = []
        self.information = []

    def host_write(self, text):
        self.host_out.append(text)

    def host_line(self, text):
        self.host_out.append(text + NEWLINE)


def _terminate(message, preference_variable):
    from .interpreter import ErrorRecord, ScriptTerminating  # pylint: disable=import-outside-toplevel
    error = PSError(PREFERENCE_STOP % (preference_variable, message),
                    'System.Management.Automation.ActionPreferenceStopException', 'ActionPreferenceStop',
                    'OperationStopped')
    raise ScriptTerminating(ErrorRecord(error))


def write_record(streams, stream, message, preference):
    """A warning, verbose or debug record written under ``preference`` (an ActionPreference name)."""
    preference = preference.lower()
    if preference in ('silentlycontinue', 'ignore'):
        return
    if preference not in ('continue', 'stop'):
        raise Unsupported('%s under $%s %s (it prompts)' % (stream, PREFERENCE_VARIABLE[stream], preference))
    getattr(streams, stream).append(message)
    streams.host_line(LINE_PREFIX[stream] + message)
    if preference == 'stop':
        _terminate(message, PREFERENCE_VARIABLE[stream])


def write_information(streams, record, preference):
    """An information record written under ``preference``."""
    preference = preference.lower()
    if preference == 'ignore':
        return
    if preference not in ('continue', 'stop', 'silentlycontinue'):
        raise Unsupported('information under $InformationPreference %s (it prompts)' % preference)
    streams.information.append(record)
    tags = [to_string(tag) for tag in record.Tags]
    if ('PSHOST' in tags and 'FORWARDED' not in tags) or preference == 'continue':
        message = record.MessageData
        if isinstance(message, HostInformationMessage):
            if message.NoNewLine:
                streams.host_write(message.Message)
            else:
                streams.host_line(message.Message)
        else:
            streams.host_line(record.to_string())
    if preference == 'stop':
        _terminate(record.to_string(), PREFERENCE_VARIABLE['information'])
