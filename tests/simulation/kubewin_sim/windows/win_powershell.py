"""ansible.windows.win_powershell's contract, run on the engine against a node.

What the real module does (plugins/modules/win_powershell.ps1 of ansible-collections/ansible.windows):
- it decides whether the script supports check mode from the script's own param block
  (CmdletBinding with SupportsShouldProcess, omitted or $true); in check mode a script that does
  not is skipped with changed=true and msg "skipped, running in check mode";
- it runs the script in a new runspace where `$Ansible` is a PSCustomObject (CheckMode, Verbosity,
  Result = @{}, Diff = @{}, Changed = $true, Failed = $false, Tmpdir) and $ErrorActionPreference is
  error_action (continue, stop, silently_continue);
- parameters are bound with AddParameters, as Ansible.Basic deserialized them from the module's JSON arguments
  (a JSON object a Dictionary[string, object], which binding to [hashtable] copies with Hashtable's
  IDictionary constructor: keys then compare case-sensitively); each sensitive parameter becomes a SecureString (or a
  PSCredential with a username); a script supporting ShouldProcess also gets Confirm=$false and
  WhatIf=<check mode>;
- a terminating error (RuntimeException: throw, or an error under Stop) makes failed=true and its
  error record joins the error stream; non-terminating errors alone do not fail the task;
- the result holds $Ansible.Result, Changed, Failed, the output objects and the error records, the
  objects converted by its Convert-OutputObject to plain values down to ``depth`` (default 2; below
  that an object becomes its [string]).
"""

from ..pwsh import Unsupported, execute, new_interpreter
from ..pwsh.binding import signature
from ..pwsh.syntax import parse
from ..pwsh.values import (EnumValue, Hashtable, PSCustomObject, SecureString, SwitchParameter, is_null,
                           to_string)
from . import WindowsHost, processes

EMPTY = {'result': {}, 'host_out': '', 'host_err': '', 'output': [], 'error': [], 'warning': [], 'verbose': [],
         'debug': [], 'information': []}
_PREFERENCE = {'stop': 'Stop', 'continue': 'Continue', 'silently_continue': 'SilentlyContinue'}


def supports_should_process(interpreter, text):
    """The module's test, on the script's parse tree: [CmdletBinding(SupportsShouldProcess)] on its param block."""
    param_block = parse(text).root.child('param_block')
    if param_block is None:
        return False
    return signature(interpreter, param_block, interpreter.global_scope).should_process


def error_entry(record):
    """One entry of the module's ``error`` list, as it formats an error record."""
    error = record.error
    return {
        'output': '%s\n    + CategoryInfo          : %s\n    + FullyQualifiedErrorId : %s' % (
            error.message, record.CategoryInfo.to_string(), error.error_id),
        'error_details': None,
        'exception': {'message': error.message, 'type': error.type_name, 'help_link': None, 'source': None,
                      'hresult': -2146233087, 'inner_exception': None},
        'target_object': None if error.target is None else to_string(error.target),
        'category_info': {'category': error.category, 'category_id': 0, 'activity': '',
                          'reason': error.type_name.rsplit('.', 1)[-1], 'target_name': record.CategoryInfo.TargetName,
                          'target_type': ''},
        'fully_qualified_error_id': error.error_id,
        'script_stack_trace': record.ScriptStackTrace,
        'pipeline_iteration_info': [],
    }


def module_value(value):
    """A module argument as the script's parameter binding receives it (see the module's contract above).

    Sources: Ansible.Basic.cs of ansible-core (FromJson and ParseDict give Dictionary<string, object>) and
    LanguagePrimitives.ConvertIDictionaryToHashtable of PowerShell (``new Hashtable(IDictionary)``, whose
    default comparer is case-sensitive).
    """
    if isinstance(value, dict):
        return Hashtable(((key, module_value(item)) for key, item in value.items()), case_sensitive=True)
    if isinstance(value, list):
        return [module_value(item) for item in value]
    return value


def output_value(value, depth):
    """An object as the module's Convert-OutputObject returns it: strings, numbers and booleans as they
    are, an enum as {Type, String, Value}, lists and dictionaries (and other objects by their properties)
    converted one level deeper, and below ``depth`` anything that is not a value type as its [string]."""
    if is_null(value):
        return None
    if isinstance(value, EnumValue):
        return {'Type': value.enum.name, 'String': str(value), 'Value': int(value)} if depth >= 0 else str(value)
    if isinstance(value, SwitchParameter):
        return value.IsPresent
    if isinstance(value, bool):
        return value
    for plain in (str, int, float):
        if isinstance(value, plain):
            return plain(value)
    if depth < 0:
        return to_string(value)
    if isinstance(value, (list, tuple)):
        return [output_value(item, depth - 1) for item in value]
    if isinstance(value, Hashtable):
        return {to_string(key): output_value(item, depth - 1) for key, item in value.items()}
    if isinstance(value, PSCustomObject):
        return {to_string(key): output_value(item, depth - 1) for key, item in value.props.items()}
    raise Unsupported('win_powershell returning a %s' % type(value).__name__)


def invoke(node, script, parameters=None, sensitive_parameters=None, check_mode=False, error_action='continue',
           depth=2):
    """Run ``script`` on ``node`` as win_powershell would; return the module's result dict.

    Raises Unsupported when the script uses something the engine does not implement (see execute): a test
    failure, never a task result.
    """
    host = WindowsHost(node)
    interpreter = new_interpreter(host, host.commands())
    should_process = supports_should_process(interpreter, script)
    if check_mode and not should_process:
        return dict(EMPTY, changed=True, msg='skipped, running in check mode')
    ansible = PSCustomObject([('CheckMode', check_mode), ('Verbosity', 0), ('Result', Hashtable()),
                              ('Diff', Hashtable()), ('Changed', True), ('Failed', False),
                              ('Tmpdir', 'C:\\Windows\\TEMP\\ansible-tmp')])
    interpreter.global_scope.vars['ansible'] = ansible
    interpreter.global_scope.vars['erroractionpreference'] = _PREFERENCE[error_action]
    bound = {name: module_value(value) for name, value in (parameters or {}).items()}
    for entry in sensitive_parameters or []:
        if entry.get('value') is not None:
            bound[entry['name']] = SecureString(entry['value'])
    if should_process:
        bound['Confirm'] = False
        bound['WhatIf'] = check_mode
    output = []
    # [Diagnostics.Process]::Start and ProcessStartInfo find the node of the running script here, as run_on_node sets it.
    token = processes.CURRENT_HOST.set(host)
    try:
        # A terminating error (RuntimeException) fails the task; exit ends the script without failing it.
        failed = execute(interpreter, script, bound, output)[1]
    finally:
        processes.CURRENT_HOST.reset(token)
    props = ansible.props
    return dict(EMPTY, result=output_value(props['Result'], depth), changed=bool(props['Changed']),
                failed=failed or bool(props['Failed']), output=output_value(output, depth),
                error=[error_entry(record) for record in interpreter.errors], warning=list(interpreter.warnings))
