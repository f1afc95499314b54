"""powershell.exe, Windows PowerShell 5.1's console host, as a program: ``-File`` runs a script of the node in a
fresh session of the engine on the same node.

Sources: about_PowerShell_exe (MicrosoftDocs/PowerShell-Docs, reference/5.1/Microsoft.PowerShell.Core/About): -File
must be the last parameter, the values after it are the script's parameters, passed as literal strings; the exit code
is 0, the number of an ``exit``, or 1 after a script-terminating error. The console host's command-line parser
(src/Microsoft.PowerShell.ConsoleHost/host/msh/CommandLineParameterParser.cs and its
CommandLineParameterParserStrings.resx, PowerShell/PowerShell as open-sourced in 2016, commit 60b3b304f2): a -File
value not ending in .ps1, or naming no file, is an error written to the console and the exit code
ExitCodeBadCommandLineParameter, 0xFFFD0000. about_Character_Encoding (5.1): a script without a byte order mark is
read in the ANSI code page.

The script's parameters bind as the engine's own command line binds a FILE's (``pwsh/cli.py`` file_parameters). The
session is new: no types added, no variables, the script's own $ErrorActionPreference. The options before -File that
change nothing here (-NoProfile: no profile is modelled; -NonInteractive; -NoLogo) are accepted; -ExecutionPolicy
Bypass too (it runs every script); any other option, a -Command, or another execution policy is an engine gap.
"""

import ntpath

from ..pwsh.cli import file_parameters
from ..pwsh.values import Unsupported
from . import filesystem

BAD_COMMAND_LINE = 0xFFFD0000 - 2 ** 32  # ExitCodeBadCommandLineParameter as the signed exit code a process reports
_NO_EFFECT = {'-noprofile', '-noninteractive', '-nologo'}


def _bad_command_line(message):
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    return ProgramResult(stderr_lines=[message], exit_code=BAD_COMMAND_LINE)


def powershell_exe(host, words, input_items, environment=None):
    """powershell.exe [-NoProfile] [-NonInteractive] [-NoLogo] [-ExecutionPolicy Bypass] -File <path> [args]."""
    from . import ProgramResult, run_on_node  # pylint: disable=import-outside-toplevel
    if environment is not None:
        raise Unsupported('powershell.exe started with an environment block of its own')
    index = 0
    while index < len(words) and words[index].lower() != '-file':
        option = words[index].lower()
        if option == '-executionpolicy' and index + 1 < len(words) and words[index + 1].lower() == 'bypass':
            index += 2
        elif option in _NO_EFFECT:
            index += 1
        else:
            raise Unsupported('powershell.exe %s' % ' '.join(words[index:index + 2]))
    if index + 1 >= len(words):
        raise Unsupported('powershell.exe without -File <path>')
    path = words[index + 1]
    if not path.lower().endswith('.ps1'):
        return _bad_command_line("Processing -File '%s' failed because the file does not have a '.ps1' extension. "
                                 "Specify a valid Windows PowerShell script file name, and then try again." % path)
    entry = filesystem.lookup(host.node, path) if ntpath.isabs(path) else None
    if entry is None or entry['dir']:
        if not ntpath.isabs(path):
            raise Unsupported('powershell.exe -File with a relative path (%s)' % path)
        return _bad_command_line("The argument '%s' to the -File parameter does not exist. Provide the path to an "
                                 "existing '.ps1' file as an argument to the -File parameter." % path)
    named, positional = file_parameters(words[index + 2:])
    if positional:
        raise Unsupported('positional script arguments after powershell.exe -File: %s' % ' '.join(positional))
    text = filesystem.decode(filesystem.content_bytes(entry))
    outcome = run_on_node(host.node, text, named)
    if outcome.unsupported:
        # A construct the engine lacks inside the program is a gap of the caller's run too, never an exit code.
        raise Unsupported('in %s run by powershell.exe: %s' % (path, outcome.unsupported))
    return ProgramResult(stdout_lines=outcome.output, stderr_lines=outcome.errors, exit_code=outcome.exit_code)


PROGRAMS = {'powershell.exe': powershell_exe}
