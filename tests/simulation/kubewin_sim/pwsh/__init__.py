"""A Windows PowerShell 5.1 engine for tests: runs the collection's real scripts without Windows.

``run_command(text)`` runs PowerShell text as ``powershell.exe -Command`` would and returns an
``Outcome``: the success stream rendered as [string] converts each object, the messages of the
error records, and the exit code (0; 1 after an uncaught terminating error; 2 when the text uses a
construct the engine does not implement). See tests/simulation/README.md.
"""

from .core_cmdlets import command_table
from .syntax import ParseError
from .interpreter import Break, Continue, ErrorRecord, Exit, Interpreter, ScriptTerminating
from .values import PSError, Unsupported, to_string


class EngineDefect(Unsupported):
    """A Python exception that escaped the engine's own code: a bug of the engine, reported as Unsupported (exit 2, never
    caught by a script) so that no Python exception leaves the engine; the fuzz test fails on it."""


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
    return Interpreter(table, host)


def execute(interpreter, text, parameters, out, scope=None):
    """Run ``text`` in ``interpreter``, its success stream into ``out``; return (exit code, failed). ``scope``: the
    scope it runs in (dot-sourced there), by default a script scope of its own.

    A terminating error (throw, Stop, parameters that do not bind, text 5.1 cannot parse) joins the
    error stream: exit code 1, failed. ``exit N`` ends the run with N. Unsupported propagates: it is a
    gap of the engine, never a result of the script.
    """
    try:
        interpreter.run(text, parameters, scope=scope, out=out)
    except ScriptTerminating as terminating:
        interpreter.errors.append(terminating.record)
        return 1, True
    except PSError as error:
        # The script's own parameters did not bind: the script never started.
        interpreter.errors.append(ErrorRecord(error))
        return 1, True
    except ParseError as error:
        interpreter.errors.append(ErrorRecord(PSError(error.message, 'System.Management.Automation.ParseException',
                                                      'ParseException', 'ParserError')))
        return 1, True
    except Exit as exited:
        return exited.code, False
    except (Break, Continue):
        # break or continue with no enclosing loop, switch or trap: "the current runspace is quietly terminated"
        # (about_Break, about_Continue, reference/5.1).
        return 0, False
    except RecursionError:
        raise Unsupported('calls nested deeper than the engine can follow (Python recursion limit; Windows PowerShell '
                          'allows a call depth of 1000)') from None
    except Unsupported:
        raise
    except Exception as failure:  # pylint: disable=broad-except
        if type(failure).__module__.split('.', maxsplit=1)[0] == __name__.split('.', maxsplit=1)[0]:
            raise  # an exception of the simulation itself (a program's failure, a node that is cut off...): its signal
        raise EngineDefect('a defect of the engine: %s: %s' % (type(failure).__name__, failure)) from failure
    return 0, False


def run_command(text, parameters=None, host=None, commands=None):
    """Run ``text``; every object of the success stream is rendered with PowerShell's [string] conversion."""
    interpreter = new_interpreter(host, commands)
    objects = []
    unsupported = None
    try:
        exit_code = execute(interpreter, text, parameters, objects)[0]
    except Unsupported as exc:
        unsupported = str(exc)
        exit_code = 2
    return Outcome(objects, [to_string(item) for item in objects],
                   [to_string(record) for record in interpreter.errors], exit_code, unsupported)


__all__ = ['EngineDefect', 'Outcome', 'Unsupported', 'execute', 'new_interpreter', 'run_command']
