"""A Windows PowerShell 5.1 engine for tests: runs the collection's real scripts without Windows.

``run_command(text)`` runs PowerShell text as ``powershell.exe -Command`` would and returns an
``Outcome``: the success stream rendered as [string] converts each object, the messages of the
error records, and the exit code (0; 1 after an uncaught terminating error; 2 when the text uses a
construct the engine does not implement). See tests/simulation/README.md.
"""

from .core_cmdlets import command_table
from .syntax import ParseError
from .interpreter import ErrorRecord, Exit, Interpreter, ScriptTerminating
from .values import PSError, Unsupported, to_string


class Outcome:
    def __init__(self, objects, output, errors, exit_code, unsupported=None):
        self.objects = objects
        self.output = output
        self.errors = errors
        self.exit_code = exit_code
        self.unsupported = unsupported

    def __repr__(self):
        return 'Outcome(output=%r, errors=%r, exit_code=%r)' % (self.output, self.errors, self.exit_code)


def new_interpreter(host=None, commands=None):
    table = command_table()
    table.update(commands or {})
    interpreter = Interpreter(table, host)
    # The process's environment variables ($env:), by upper-case name, when the host has them.
    interpreter.environment.update(getattr(host, 'environment', dict)())
    return interpreter


def run_command(text, parameters=None, host=None, commands=None):
    """Run ``text``; every object of the success stream is rendered with PowerShell's [string] conversion."""
    interpreter = new_interpreter(host, commands)
    objects = []
    exit_code = 0
    unsupported = None
    try:
        objects = _run(interpreter, text, parameters)
    except ScriptTerminating as terminating:
        objects = getattr(terminating, 'partial', [])
        interpreter.errors.append(terminating.record)
        exit_code = 1
    except PSError as error:
        # The script's own parameters did not bind: the script never started.
        interpreter.errors.append(ErrorRecord(error))
        exit_code = 1
    except ParseError as error:
        interpreter.errors.append(ErrorRecord(PSError(error.message, 'System.Management.Automation.ParseException',
                                                      'ParseException', 'ParserError')))
        exit_code = 1
    except Exit as exited:
        exit_code = exited.code
        objects = getattr(exited, 'partial', [])
    except Unsupported as exc:
        unsupported = str(exc)
        exit_code = 2
        objects = getattr(exc, 'partial', [])
    return Outcome(objects, [to_string(item) for item in objects],
                   [to_string(record) for record in interpreter.errors], exit_code, unsupported)


def _run(interpreter, text, parameters):
    out = []
    try:
        out = interpreter.run(text, parameters, out=out)
    except (ScriptTerminating, Exit, Unsupported) as exc:
        exc.partial = out
        raise
    return out


__all__ = ['Outcome', 'Unsupported', 'new_interpreter', 'run_command']
