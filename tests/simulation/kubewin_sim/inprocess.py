"""Run a pipelined module of the fake collections inside the connection's worker process.

With pipelining, a task's module reaches the connection as ``exec_command('/bin/sh -c
'"'"'[VAR=value ...] PYTHON && sleep 0'"'"'', in_data=<AnsiballZ wrapper>)``. Run as a command,
that costs a Python start-up, the unpacking of the wrapper's zip and the import of
``ansible.module_utils.basic`` from it without bytecode: about two thirds of a second per remote
call, most of the simulated test suites' time. The fake modules are pure Python over the node's
state file, so the connection runs them in its worker process instead, through the same entry point
the wrapper would have called (``_loader.run_module`` of ansible-core: arguments handed over in
``basic._ANSIBLE_ARGS``, the module run as ``__main__`` with runpy, an exception turned into the
standard failure result). Everything the module contract covers - argument spec validation, check
mode, ``exit_json``/``fail_json`` result shapes, ``no_log`` censoring, the call counting in the node
state - is done by ``AnsibleModule`` and the fake modules exactly as before; only the process
boundary is gone, and ``run`` puts back what a module changes in the process (the module
arguments, module warnings and deprecations, environment variables of the command).

Only a payload that is exactly what ``ActionBase._execute_module`` sends for a module found in
``tests/simulation/collections`` and meant for this Python runs here; any other command (a module of
another collection, become, ``chdir``, async, a debugging extension) runs as a command as before.
"""

import ast
import contextlib
import importlib.util
import io
import os
import shlex
import sys

from ansible.module_utils import basic
from ansible.module_utils._internal._ansiballz import _loader
from ansible.module_utils.common import warnings as module_warnings

FAKE_COLLECTIONS = os.path.realpath(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'collections'))
WRAPPER_CALL = b'\nif __name__ == "__main__":\n    _ansiballz_main('
# The wrapper's arguments this runner needs; the others (zip_data, date_time, rlimit_nofile) only
# serve unpacking the zip in a new process.
NEEDED = ('module_fqn', 'params', 'profile', 'extensions')


def _fake_module(module_fqn):
    """Whether ``module_fqn`` is a module of the fake collections (as the worker's collection finder resolves it)."""
    if not module_fqn.startswith('ansible_collections.'):
        return False
    try:
        spec = importlib.util.find_spec(module_fqn)
    except (ImportError, ValueError):
        return False
    origin = spec.origin if spec else None
    return bool(origin) and os.path.realpath(origin).startswith(FAKE_COLLECTIONS + os.sep)


def _wrapper_arguments(in_data):
    """The keyword arguments of the AnsiballZ wrapper's ``_ansiballz_main(...)`` call, or None."""
    start = in_data.rfind(WRAPPER_CALL)
    if start < 0 or b'_ANSIBALLZ_WRAPPER = True' not in in_data[:start]:
        return None
    try:
        tree = ast.parse(in_data[start:].decode('utf-8'))
        call = tree.body[0].body[0].value
        if not (isinstance(call, ast.Call) and getattr(call.func, 'id', None) == '_ansiballz_main'):
            return None
        return {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg in NEEDED}
    except (SyntaxError, ValueError, UnicodeDecodeError, AttributeError, IndexError):
        return None


def _command_environment(cmd):
    """``{VAR: value}`` of a pipelined module command for this Python, or None for any other command."""
    try:
        outer = shlex.split(cmd)
        if len(outer) != 3 or outer[1] != '-c':
            return None
        words = shlex.split(outer[2])
    except ValueError:
        return None
    if words[-3:] != ['&&', 'sleep', '0']:
        return None
    words = words[:-3]
    environment = {}
    while words and '=' in words[0] and not words[0].startswith('/'):
        name, value = words.pop(0).split('=', 1)
        environment[name] = value
    if len(words) != 1:
        return None
    # The module must be meant for the Python this worker runs (the same venv bin directory).
    if os.path.realpath(os.path.dirname(words[0])) != os.path.realpath(os.path.dirname(sys.executable)):
        return None
    return environment


def recognise(cmd, in_data):
    """What ``run`` needs to run this command in-process, or None to run it as a command."""
    if not in_data or not isinstance(cmd, str):
        return None
    environment = _command_environment(cmd)
    if environment is None:
        return None
    arguments = _wrapper_arguments(in_data)
    if not arguments or set(arguments) != set(NEEDED) or arguments['extensions']:
        return None
    if not _fake_module(arguments['module_fqn']):
        return None
    return dict(arguments, environment=environment)


@contextlib.contextmanager
def _environment(changes):
    saved = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run(call):
    """Run a recognised module call; returns ``(rc, stdout, stderr)`` as ``exec_command`` does."""
    stdout, stderr = io.StringIO(), io.StringIO()
    # Module state a new process would start without: the arguments (a module reads them once into
    # basic._ANSIBLE_ARGS) and the warnings and deprecations exit_json reports.
    saved = (basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE,  # pylint: disable=protected-access
             module_warnings._global_warnings, module_warnings._global_deprecations)  # pylint: disable=protected-access
    module_warnings._global_warnings, module_warnings._global_deprecations = {}, {}  # pylint: disable=protected-access
    rc = 0
    try:
        with _environment(call['environment']), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                _loader.run_module(json_params=call['params'].encode('utf-8'), profile=call['profile'],
                                   module_fqn=call['module_fqn'], modlib_path='', extensions={})
            except SystemExit as done:
                # What the interpreter makes of sys.exit(code): None is 0, an int is the status,
                # anything else is printed to stderr and the status is 1.
                if done.code is None:
                    rc = 0
                elif isinstance(done.code, int):
                    rc = done.code
                else:
                    print(done.code, file=sys.stderr)
                    rc = 1
    finally:
        (basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE,  # pylint: disable=protected-access
         module_warnings._global_warnings, module_warnings._global_deprecations) = saved  # pylint: disable=protected-access
    return rc, stdout.getvalue().encode('utf-8', 'surrogateescape'), stderr.getvalue().encode('utf-8', 'surrogateescape')
