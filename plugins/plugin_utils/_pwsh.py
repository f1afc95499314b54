# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one way kubewin.node runs PowerShell on a Windows node.

Internal to kubewin.node, not a public API.

Scripts live in ``scripts/<name>.ps1``. Each begins with the marker line
``# kubewin-script: <name>`` (the simulated node in tests dispatches on it) and
returns exactly one JSON document by assigning a ``ConvertTo-Json`` string to
``$Ansible.Result``; anything a script writes to the output stream is ignored,
so a stray cmdlet result cannot corrupt the answer.

Values reach a script only through ``ansible.windows.win_powershell``'s
``parameters`` (bound with ``AddParameters`` on the node), never by pasting
them into script text. Shared PowerShell functions live in ``scripts/lib/`` and
are pulled in by a line ``# kubewin-include: <lib>``, which is replaced with
that file's text (once per script; libraries may include others) before the
script is sent: a static composition, like Ansible's own ``#AnsibleRequires``
for module utils.

Every decoded result is checked against the script's contract in
``_contracts`` before it is returned, so a node that answers in another shape
(Windows PowerShell 5.1 unrolling a one-element array, say) fails here with
the script and the field named.
"""

from __future__ import annotations

import functools
import json
import os
import re

from ansible.errors import AnsibleConnectionFailure, AnsibleError

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts
# The error of a node script is defined by _contracts, which this module builds on (and which must not import it
# back: tests/unit/plugins/plugin_utils/test_import_graph.py); callers name it _pwsh.ScriptError.
from ansible_collections.kubewin.node.plugins.plugin_utils._contracts import ScriptError

SCRIPT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'scripts')
MARKER = '# kubewin-script: '
_INCLUDE = re.compile(r'^# kubewin-include: ([a-z0-9_]+)[ \t]*$', re.MULTILINE)
_NAME = re.compile(r'^[a-z0-9_]+$')


@functools.lru_cache(maxsize=None)
def load_script(name):
    """Return the text of script ``name`` with its includes expanded."""
    if not _NAME.match(name):
        raise ValueError('invalid script name %r' % name)
    path = os.path.join(SCRIPT_DIR, name + '.ps1')
    with open(path, encoding='utf-8') as handle:
        text = handle.read()
    if not text.startswith(MARKER + name + '\n'):
        raise AnsibleError('%s does not begin with the marker line %r' % (path, MARKER + name))

    return _expand_includes(text, set())


def _expand_includes(text, seen):
    """Replace each include line with its library, once per script (libraries may include others)."""

    def include(match):
        library = match.group(1)
        if library in seen:
            return '# (%s included above)' % library
        seen.add(library)
        with open(os.path.join(SCRIPT_DIR, 'lib', library + '.ps1'), encoding='utf-8') as handle:
            return _expand_includes(handle.read().rstrip('\n'), seen)

    return _INCLUDE.sub(include, text)


def describe_error(script, module_result):
    """Turn a failed win_powershell result into a ScriptError with the error record that ended the script.

    That is the last record: win_powershell adds the terminating error's record to the error stream after the
    script stopped (``$ps.Streams.Error.Add($_.Exception.ErrorRecord)`` in its win_powershell.ps1), behind any
    non-terminating error the script wrote before.
    """
    records = module_result.get('error') or []
    record = records[-1] if records else {}
    exception = record.get('exception') or {}
    # A module that crashed has no error record, only its own message, stderr or exception.
    message = (exception.get('message') or (record.get('error_details') or {}).get('message')
               or module_result.get('msg') or module_result.get('module_stderr') or module_result.get('exception')
               or 'the script failed without an error record')
    position = (record.get('script_stack_trace') or '').splitlines()[:1]
    if position:
        message = '%s (%s)' % (message, position[0].strip())
    return ScriptError(script, message, record)


def run_script(action, name, parameters=None, task_vars=None, secrets=None):
    """Run script ``name`` on the action's host and return its decoded JSON result.

    ``parameters`` are bound to the script's ``param()`` block by name.
    ``secrets`` (name -> string) are passed as SecureString parameters through
    win_powershell's ``sensitive_parameters``, which keeps them out of logs.
    Raises AnsibleConnectionFailure when the node cannot be reached and
    ScriptError when the script fails, does not return one JSON document, or
    returns one that breaks the script's contract (``_contracts``): a field
    missing or of another JSON type than the modules read it as.
    """
    module_args = {
        'script': load_script(name),
        'parameters': dict(parameters or {}),
        'error_action': 'stop',
    }
    if secrets:
        module_args['sensitive_parameters'] = [{'name': key, 'value': value} for key, value in sorted(secrets.items())]
    result = action._execute_module(module_name='ansible.windows.win_powershell', module_args=module_args,
                                    task_vars=task_vars or {})
    if result.get('unreachable'):
        raise AnsibleConnectionFailure(result.get('msg') or 'node unreachable')
    if result.get('failed'):
        raise describe_error(name, result)
    document = result.get('result')
    if not isinstance(document, str):
        raise ScriptError(name, 'returned %s instead of one JSON document' % type(document).__name__)
    try:
        decoded = json.loads(document)
    except ValueError as exc:
        raise ScriptError(name, 'returned text that is not JSON (%s)' % exc)
    return _contracts.check(name, decoded)
