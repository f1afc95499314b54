"""ansible.windows.win_powershell's contract, run on the engine against a node.

The contract is the module's own source: ``plugins/modules/win_powershell.ps1`` and ``plugins/action/win_powershell.py``
of the ansible.windows the project pins (the collection bundled in the ``ansible`` package of
tools/collections-wheel.txt, installed in .cache/collections, which the simulation's collections path holds after the
fake collection). It is used three ways:

- run: the module's option spec (``$spec``) is evaluated by the engine from the installed file each time the fake
  module starts (``module_spec``), and so is its Test-AnsiblePath function (``creates``/``removes``); the fake
  collection's action plugin is the installed one (tests/simulation/collections/.../action/win_powershell.py);
- mirrored: what the engine cannot run (the runspace, the .NET parser's AST, Convert-OutputObject's reflection, the
  error and stream records) is written here in Python, each piece naming in ``MIRRORED`` the exact lines of the
  installed file it follows; tests/unit/simulation/test_windows_win_powershell.py fails when the file no longer holds
  them, so a release that changes the contract fails a test;
- refused: the options that run the script elsewhere than the engine's runspace, or in a location it does not model
  (``executable``, ``chdir``), are Unsupported, a test failure, never a task result.

tests/simulation/README.md ("The fake win_powershell") has the table of every point and how each is held.
"""

import datetime
import decimal
import functools
import json
import ntpath
import os
import random
import re

from ..pwsh import Unsupported, execute, new_interpreter, run_command
from ..pwsh.hresults import hresult
from ..pwsh.json_cmdlets import to_json
from ..pwsh.members import get_member
from ..pwsh.syntax import ParseError, parse
from ..pwsh.values import (ArrayList, EnumValue, Hashtable, OrderedDictionary, PSArray, PSCustomObject, SecureString,
                           SwitchParameter, is_null, to_bool, to_string)
from ..pwsh.core_cmdlets import PSCredential
from . import WindowsHost, filesystem, processes, system

SIMULATION = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE_COLLECTIONS = os.path.join(SIMULATION, 'collections')
REPOSITORY = os.path.dirname(os.path.dirname(SIMULATION))
MODULE = 'plugins/modules/win_powershell.ps1'
ACTION = 'plugins/action/win_powershell.py'

# The lines of the installed module each mirrored piece follows (whitespace at the ends of a line aside).
MIRRORED = {
    'result keys': (
        "$module.Result.result = @{}", "$module.Result.host_out = ''", "$module.Result.host_err = ''",
        "$module.Result.output = @()", "$module.Result.error = @()", "$module.Result.warning = @()",
        "$module.Result.verbose = @()", "$module.Result.debug = @()", "$module.Result.information = @()"),
    'creates and removes': (
        "$creates = $module.Params.creates",
        "if ($creates -and (Test-AnsiblePath -Path $creates)) {",
        '$module.Result.msg = "skipped, since $creates exists"',
        "$module.ExitJson()", "}", "",
        "$removes = $module.Params.removes",
        "if ($removes -and -not (Test-AnsiblePath -Path $removes)) {",
        '$module.Result.msg = "skipped, since $removes does not exist"'),
    'check mode detection': (
        "$supportsShouldProcess = $false",
        "if ($scriptAst -and $scriptAst -is [Management.Automation.Language.ScriptBlockAst] -and "
        "$scriptAst.ParamBlock.Attributes) {",
        "$supportsShouldProcess = [bool]($scriptAst.ParamBlock.Attributes |",
        "Where-Object { $_.TypeName.Name -eq 'CmdletBinding' } |",
        "Select-Object -First 1 |", "ForEach-Object -Process {", "$_.NamedArguments | Where-Object {",
        "$_.ArgumentName -eq 'SupportsShouldProcess' -and ($_.ExpressionOmitted -or $_.Argument.ToString() -eq "
        "'$true')"),
    'check mode skip': (
        "if ($module.CheckMode -and -not $supportsShouldProcess) {", "$module.Result.changed = $true",
        '$module.Result.msg = "skipped, running in check mode"'),
    'the Ansible variable': (
        "$ps.Runspace.SessionStateProxy.SetVariable('Ansible', [PSCustomObject]@{",
        "PSTypeName = 'Ansible.Windows.WinPowerShell.Module'", "CheckMode = $module.CheckMode",
        "Verbosity = $module.Verbosity", "Result = @{}", "Diff = @{}", "Changed = $true", "Failed = $false",
        "Tmpdir = $module.Tmpdir", "})"),
    'error action': (
        "$eap = switch ($module.Params.error_action) {", "'stop' { 'Stop' }", "'continue' { 'Continue' }",
        "'silently_continue' { 'SilentlyContinue' }", "}",
        "$ps.Runspace.SessionStateProxy.SetVariable('ErrorActionPreference', [Management.Automation.ActionPreference]$eap)"),
    'the script, dot-sourced': ("elseif ($module.Params.script) {", "$null = $ps.AddScript($module.Params.script)"),
    'parameters': (
        "$parameters = @{}", "if ($module.Params.parameters) {",
        "foreach ($kvp in $module.Params.parameters.GetEnumerator()) {", "$parameters[$kvp.Key] = $kvp.Value", "}",
        "}", "if ($module.Params.sensitive_parameters) {",
        "foreach ($paramDetails in $module.Params.sensitive_parameters) {",
        "$value = if ($paramDetails.username) {", "$credPass = if ($paramDetails.password) {",
        "$paramDetails.password | ConvertTo-SecureString -AsPlainText -Force", "}", "else {",
        "New-Object -TypeName System.Security.SecureString", "}",
        "New-Object System.Management.Automation.PSCredential ($paramDetails.username, $credPass)", "}",
        "elseif ($paramDetails.value) {", "$paramDetails.value | ConvertTo-SecureString -AsPlainText -Force", "}",
        "else {", "New-Object -TypeName System.Security.SecureString", "}", "",
        "$parameters[$paramDetails.name] = $value", "}", "}", "if ($supportsShouldProcess) {"),
    'should process parameters': (
        "$parameters.Confirm = $false  # Ensure we don't block on any confirmation prompts",
        "$parameters.WhatIf = $module.CheckMode"),
    'invoke and failure': (
        "$psOutput = [Collections.Generic.List[Object]]@()", "try {", "$ps.Invoke(@(), $psOutput)", "}",
        "catch [Management.Automation.RuntimeException] {", "$module.Result.failed = $true",
        "$ps.Streams.Error.Add($_.Exception.ErrorRecord)"),
    'results': (
        "$module.Result.host_out = $newStdout.Output.ToString()",
        "$module.Result.host_err = $newStderr.Output.ToString()",
        "$module.Result.result = Convert-OutputObject -InputObject $result.Result -Depth $module.Params.depth",
        "$module.Result.changed = $result.Changed", "$module.Result.failed = $module.Result.failed -or $result.Failed"),
    'diff': (
        "if ($result.Diff -is [System.Collections.IDictionary]) {", "foreach ($kvp in $result.Diff.GetEnumerator()) {",
        "$module.Diff[$kvp.Key] = Convert-OutputObject -InputObject $kvp.Value -Depth $module.Params.depth"),
    'output': ("$module.Result.output = Convert-OutputObject -InputObject $psOutput -Depth $module.Params.depth",),
    'error records': (
        "$module.Result.error = @($ps.Streams.Error | ForEach-Object -Process {", "$err = @{",
        "output = ($_ | Out-String)", "error_details = $null", "exception = Format-Exception -Exception $_.Exception",
        "target_object = Convert-OutputObject -InputObject $_.TargetObject -Depth $module.Params.depth",
        "category_info = @{", "category = [string]$_.CategoryInfo.Category",
        "category_id = [int]$_.CategoryInfo.Category", "activity = $_.CategoryInfo.Activity",
        "reason = $_.CategoryInfo.Reason", "target_name = $_.CategoryInfo.TargetName",
        "target_type = $_.CategoryInfo.TargetType", "}", "fully_qualified_error_id = $_.FullyQualifiedErrorId",
        "script_stack_trace = $_.ScriptStackTrace", "pipeline_iteration_info = $_.PipelineIterationInfo", "}",
        "if ($_.ErrorDetails) {", "$err.error_details = @{", "message = $_.ErrorDetails.Message",
        "recommended_action = $_.ErrorDetails.RecommendedAction"),
    'format exception': (
        "@{", "message = $Exception.Message", "type = $type", "help_link = $Exception.HelpLink",
        "source = $Exception.Source", "hresult = $Exception.HResult",
        "inner_exception = Format-Exception -Exception $Exception.InnerException", "}"),
    'streams': (
        "'debug', 'verbose', 'warning' | ForEach-Object -Process {",
        "$module.Result.$_ = @($ps.Streams.$_ | Select-Object -ExpandProperty Message)", "}"),
    'information': (
        "message_data = Convert-OutputObject -InputObject $_.MessageData -Depth $module.Params.depth",
        "source = $_.Source", "time_generated = $_.TimeGenerated.ToUniversalTime().ToString('o')",
        "tags = @($_.Tags)"),
    'host output': (
        "public override void Write(string value)", "{", "_stdout.Write(value);", "}", "",
        "public override void WriteDebugLine(string message)", "{",
        '_stdout.WriteLine(String.Format("DEBUG: {0}", message));', "}", "",
        "public override void WriteErrorLine(string value)", "{", "_stderr.WriteLine(value);", "}", "",
        "public override void WriteLine(string value)", "{", "_stdout.WriteLine(value);", "}"),
    'convert output': (
        "if ($null -eq $InputObject) {",
        "elseif ((&$isType -InputObject $InputObject -Type ([Enum])) -and $Depth -ge 0) {",
        "Type = ($InputObject.PSTypeNames[0] -replace '^Deserialized.')", "String = $InputObject.ToString()",
        "Value = [int]$InputObject",
        "elseif ($InputObject -is [DateTime]) {",
        "elseif (&$isType -InputObject $InputObject -Type ([DateTimeOffset])) {",
        "elseif (&$isType -InputObject $InputObject -Type ([Type])) {",
        "elseif ($InputObject -is [string]) {",
        "elseif (&$isType -InputObject $InputObject -Type ([switch])) {",
        "elseif ('GetType' -in ($InputObject.PSObject | ForEach-Object Methods | ForEach-Object Name) -and "
        "$InputObject.GetType().IsValueType) {",
        "elseif ($Depth -lt 0) {", "elseif ($InputObject -is [Collections.IList]) {",
        "elseif ($InputObject -is [Collections.IDictionary]) {"),
}

EMPTY = {'result': {}, 'host_out': '', 'host_err': '', 'output': [], 'error': [], 'warning': [], 'verbose': [],
         'debug': [], 'information': []}
# Ansible.Basic's remote_tmp for Windows hosts, the powershell shell plugin's default.
REMOTE_TMP = '%TEMP%'
# System.Management.Automation.ErrorCategory's values (ErrorPackage.cs).
ERROR_CATEGORIES = (
    'NotSpecified', 'OpenError', 'CloseError', 'DeviceError', 'DeadlockDetected', 'InvalidArgument', 'InvalidData',
    'InvalidOperation', 'InvalidResult', 'InvalidType', 'MetadataError', 'NotImplemented', 'NotInstalled',
    'ObjectNotFound', 'OperationStopped', 'OperationTimeout', 'SyntaxError', 'ParserError', 'PermissionDenied',
    'ResourceBusy', 'ResourceExists', 'ResourceUnavailable', 'ReadError', 'WriteError', 'FromStdErr', 'SecurityError',
    'ProtocolError', 'ConnectionError', 'AuthenticationError', 'LimitsExceeded', 'QuotaExceeded', 'NotEnabled')


# -- the installed module ---------------------------------------------------------------------------------------

def collection_roots():
    """The collections paths holding the real ansible.windows: the simulation's path after the fake collection (the
    wrapper's ANSIBLE_COLLECTIONS_PATH), then the checkout's .cache/collections."""
    roots = [path for path in os.environ.get('ANSIBLE_COLLECTIONS_PATH', '').split(os.pathsep) if path]
    roots.append(os.path.join(REPOSITORY, '.cache', 'collections'))
    fake = os.path.realpath(FAKE_COLLECTIONS)
    return [root for root in roots if os.path.realpath(root) != fake]


@functools.lru_cache(maxsize=None)
def real_file(relative):
    """The path of a file of the installed ansible.windows."""
    for root in collection_roots():
        path = os.path.join(root, 'ansible_collections', 'ansible', 'windows', *relative.split('/'))
        if os.path.isfile(path):
            return path
    raise FileNotFoundError('ansible.windows %s is not installed (make .cache/collections): looked in %s'
                            % (relative, collection_roots()))


@functools.lru_cache(maxsize=None)
def real_source(relative=MODULE):
    with open(real_file(relative), encoding='utf-8-sig') as handle:
        return handle.read()


def _block(source, opening):
    """The text from the line starting with ``opening`` to the first line that closes it at column 0."""
    start = source.index('\n' + opening) + 1
    end = source.index('\n}', start) + 2
    return source[start:end]


def _function(source, name):
    """The text of ``Function <name> {...}`` of the module."""
    return _block(source, 'Function %s {' % name)


def _plain(value):
    """An engine value of the spec as the Python value AnsibleModule takes."""
    if isinstance(value, Hashtable):
        return {to_string(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


@functools.lru_cache(maxsize=None)
def module_spec():
    """The module's ``$spec`` (Ansible.Basic's form, which AnsibleModule takes), evaluated from the installed file."""
    outcome = run_command(_block(real_source(), '$spec = @{') + '\n$spec')
    if outcome.exit_code or len(outcome.objects) != 1:
        raise Unsupported('win_powershell.ps1 $spec: %s' % (outcome.errors or outcome.unsupported))
    return _plain(outcome.objects[0])


@functools.lru_cache(maxsize=None)
def fallback_pattern():
    """The regular expression the module tests a script it cannot parse with (-match: case-insensitive)."""
    found = re.search(r"\$supportsShouldProcess = \$scriptContent -match '([^']+)'", real_source())
    if found is None:
        raise Unsupported('win_powershell.ps1: the SupportsShouldProcess fallback is not where it was')
    return re.compile(found.group(1), re.IGNORECASE)


# -- check mode -------------------------------------------------------------------------------------------------

def supports_should_process(text):
    """The module's decision (MIRRORED 'check mode detection'): the first [CmdletBinding()] of the script's param
    block has a named argument SupportsShouldProcess, written alone or with exactly ``$true`` (any case); a script
    Windows PowerShell cannot parse is tested with the module's regular expression instead. Text the grammar cannot
    parse is Unsupported (the engine could not run it anyway)."""
    try:
        program = parse(text)
    except ParseError:
        return fallback_pattern().search(text) is not None
    param_block = program.root.child('param_block')
    attributes = param_block.child('attribute_list') if param_block is not None else None
    bindings = [attribute for attribute in (attributes.all('attribute') if attributes else [])
                if attribute.child('attribute_name') is not None
                and attribute.child('attribute_name').text.lower() == 'cmdletbinding']
    if not bindings:
        return False
    arguments = bindings[0].child('attribute_arguments')
    for argument in (arguments.all('attribute_argument') if arguments else []):
        parts = argument.named_children
        if parts[0].type != 'simple_name' or parts[0].text.lower() != 'supportsshouldprocess':
            continue
        if len(parts) == 1 or parts[1].text.lower() == '$true':
            return True
    return False


# -- values -----------------------------------------------------------------------------------------------------

def module_value(value):
    """A module argument as the script's parameter binding receives it.

    Sources: Ansible.Basic.cs of ansible-core (FromJson and ParseDict give Dictionary<string, object>) and
    LanguagePrimitives.ConvertIDictionaryToHashtable of PowerShell (``new Hashtable(IDictionary)``, whose
    default comparer is case-sensitive).
    """
    if isinstance(value, dict):
        return Hashtable(((key, module_value(item)) for key, item in value.items()), case_sensitive=True)
    if isinstance(value, list):
        return [module_value(item) for item in value]
    return value


def _properties(value):
    """$InputObject.PSObject.Properties of an object of the engine, in order."""
    if isinstance(value, PSCustomObject):
        return list(value.props.items())
    names = getattr(value, 'PROPERTIES', None)
    if names is None:
        raise Unsupported('win_powershell returning a %s (its properties are not modelled)' % type(value).__name__)
    return [(name, getattr(value, name)) for name in names]


def convert_output(value, depth):
    """Convert-OutputObject (MIRRORED 'convert output'), branch by branch, to the value Ansible.Basic then writes with
    ConvertTo-Json (``as_json``)."""
    if is_null(value):
        return None
    if isinstance(value, EnumValue) and depth >= 0:
        return Hashtable([('Type', value.enum.name), ('String', to_string(value)), ('Value', int(value))])
    if isinstance(value, datetime.datetime):
        return value.ToString('o')
    if isinstance(value, str):
        return str(value)
    if isinstance(value, SwitchParameter):
        return value.IsPresent
    if isinstance(value, (bool, int, float, decimal.Decimal, EnumValue)):
        # A value type: its BaseObject as it is (ConvertTo-Json then writes an enum as its number).
        return value
    if depth < 0:
        return to_string(value)
    if isinstance(value, (PSArray, ArrayList, list, tuple)):
        return [convert_output(item, depth - 1) for item in value]
    if isinstance(value, Hashtable):
        # ETS properties of a dictionary, then its keys; the engine's dictionaries carry no ETS properties.
        return Hashtable((key, convert_output(item, depth - 1)) for key, item in value.items())
    return Hashtable((name, convert_output(item, depth - 1)) for name, item in _properties(value))


def as_json(value):
    """A value of the result as Ansible.Basic's ToJson writes it (``ConvertTo-Json -Depth 99 -Compress``), read back."""
    return json.loads(to_json(value, 99))


# -- records ----------------------------------------------------------------------------------------------------

def format_exception(exception):
    """Format-Exception (MIRRORED 'format exception'): HelpLink and Source are not modelled (None: no modelled
    exception sets a help link, and Source is null until an exception is thrown from .NET code)."""
    if exception is None:
        return None
    error = exception.error
    return {'message': error.message, 'type': error.type_name, 'help_link': None, 'source': None,
            'hresult': hresult(error), 'inner_exception': format_exception(exception.InnerException)}


def _error_view(record):
    """What ``$_ | Out-String`` shows for an error record: Windows PowerShell 5.1's ErrorInstance view
    (PowerShellCore_format_ps1xml.cs, 60b3b304f2), as the module's runspace renders it: its host has no UI, so the
    width the view computes is undefined and no line of it is split. A cmdlet's record starts with the name it was
    invoked by and shows where the call is (its InvocationInfo). Not modelled: the records of other errors (throw, a
    .NET method's) show where the statement is, and Write-Error's in a script without CmdletBinding start with the
    script's text (the engine keeps neither); Out-String wraps lines at 120 columns."""
    invocation = record.InvocationInfo
    details = record.ErrorDetails
    head = ''
    position = ''
    if invocation is not None:
        if invocation.InvocationName not in ('', '&', '.'):
            head = invocation.InvocationName + ' : '
        position = '\n' + invocation.PositionMessage
    lines = [position, '    + CategoryInfo          : %s' % record.CategoryInfo.to_string(),
             '    + FullyQualifiedErrorId : %s' % record.FullyQualifiedErrorId]
    if details is not None and details.Message:
        text = head + details.Message + '\n'.join(lines)
    else:
        text = head + record.error.message + '\n'.join(lines) + '\n '
    return text.replace('\n', '\r\n') + '\r\n'


def error_entry(record, depth):
    """One entry of the module's ``error`` list (MIRRORED 'error records')."""
    info = record.CategoryInfo
    if info.Category not in ERROR_CATEGORIES:
        raise Unsupported('error category %s' % info.Category)
    details = record.ErrorDetails
    return {
        'output': _error_view(record),
        'error_details': None if details is None else {'message': details.Message,
                                                       'recommended_action': details.RecommendedAction},
        'exception': format_exception(record.Exception),
        'target_object': as_json(convert_output(record.TargetObject, depth)),
        'category_info': {'category': info.Category, 'category_id': ERROR_CATEGORIES.index(info.Category),
                          'activity': info.Activity, 'reason': info.Reason, 'target_name': info.TargetName,
                          'target_type': info.TargetType},
        'fully_qualified_error_id': record.FullyQualifiedErrorId,
        'script_stack_trace': record.ScriptStackTrace,
        # ErrorRecord.PipelineIterationInfo: where in its pipeline the record was written; not kept by the engine.
        'pipeline_iteration_info': [],
    }


def information_entry(record, depth):
    """One entry of the module's ``information`` list (MIRRORED 'information')."""
    return {'message_data': as_json(convert_output(record.MessageData, depth)), 'source': record.Source,
            'time_generated': record.TimeGenerated.ToUniversalTime().ToString('o'),
            'tags': [to_string(tag) for tag in record.Tags]}


# -- the run ----------------------------------------------------------------------------------------------------

def test_ansible_path(node, path):
    """The module's own Test-AnsiblePath, run by the engine on the node."""
    text = "%s\nTest-AnsiblePath -Path '%s'" % (_block(real_source(), 'Function Test-AnsiblePath {'),
                                                path.replace("'", "''"))
    host = WindowsHost(node)
    interpreter = new_interpreter(host, host.commands())
    out = []
    code = execute(interpreter, text, {}, out)[0]
    if code or len(out) != 1:
        raise Unsupported('Test-AnsiblePath %r: %s' % (path, [to_string(r) for r in interpreter.errors]))
    return to_bool(out[0])


def _secure(text):
    return SecureString(text or '')


def sensitive_value(entry):
    """A sensitive_parameters entry as the module binds it (MIRRORED 'parameters'): a PSCredential with a username
    (an empty password SecureString without a password), else a SecureString of the value (an empty one without)."""
    if entry.get('username'):
        return PSCredential(entry['username'], _secure(entry.get('password') if entry.get('password') else ''))
    return _secure(entry.get('value') if entry.get('value') else '')


def bound_parameters(parameters, sensitive_parameters, should_process, check_mode):
    """The hashtable the module gives AddParameters: a case-insensitive @{} of the parameters, the sensitive ones
    over them, then Confirm and WhatIf for a script that supports ShouldProcess."""
    bound = Hashtable()
    for name, value in (parameters or {}).items():
        bound[name] = module_value(value)
    for entry in sensitive_parameters or []:
        bound[entry['name']] = sensitive_value(entry)
    if should_process:
        bound['Confirm'] = False
        bound['WhatIf'] = check_mode
    return {to_string(key): value for key, value in bound.items()}


def _module_tmpdir(node):
    """Ansible.Basic's Tmpdir: ``ansible-moduletmp-<file time>-<process id>-<random>`` made in remote_tmp (%TEMP% of the
    account WinRM runs as), removed when the module exits (CleanupFiles)."""
    environment = system.process_environment(node)
    base = re.sub(r'%([^%]+)%', lambda match: environment.get(match.group(1).upper(), match.group(0)), REMOTE_TMP)
    if filesystem.lookup(node, base) is None:
        raise Unsupported('remote_tmp %s missing on the node (the module would create it and warn)' % base)
    now = system._now(node)  # pylint: disable=protected-access
    file_time = int((now - datetime.datetime(1601, 1, 1)).total_seconds() * 10 ** 7)
    path = ntpath.join(base, 'ansible-moduletmp-%d-%d-%d' % (file_time, os.getpid(),
                                                             random.Random(file_time).randrange(2 ** 31 - 1)))
    filesystem.create(node, path, True)
    return path


def _remove_tree(node, path):
    fs = filesystem.tree(node)
    for key in [path.lower()] + list(filesystem.descendants(node, path)):
        fs.pop(key.lower(), None)


def _ansible_variable(check_mode, verbosity, tmpdir):
    """$Ansible (MIRRORED 'the Ansible variable'). Its PSTypeName is not visible: the engine has no PSTypeNames."""
    return PSCustomObject([('CheckMode', check_mode), ('Verbosity', verbosity), ('Result', Hashtable()),
                           ('Diff', Hashtable()), ('Changed', True), ('Failed', False), ('Tmpdir', tmpdir)])


# MIRRORED 'error action'.
_PREFERENCE = {'stop': 'Stop', 'continue': 'Continue', 'silently_continue': 'SilentlyContinue'}


def invoke(node, script, parameters=None, sensitive_parameters=None, check_mode=False, error_action='continue',
           depth=2, **options):
    """Run ``script`` on ``node`` as win_powershell would; return the module's result dict.

    ``options``: the module's other options (creates, removes, chdir, executable, arguments, path, remote_src) and
    what Ansible passes every module (verbosity, diff). Raises Unsupported when the script uses something the engine
    does not implement (see execute), or an option runs it elsewhere than the engine: a test failure, never a task
    result.
    """
    result = dict(EMPTY, changed=False)
    for option, message in (('creates', 'skipped, since %s exists'), ('removes', 'skipped, since %s does not exist')):
        path = options.get(option)
        if path and test_ansible_path(node, path) == (option == 'creates'):
            return dict(result, msg=message % path)
    dot_sourced = script is not None
    if not dot_sourced:
        # A script file of the node (path with remote_src; the action plugin makes any other path a script).
        script = _script_file(node, options.get('path'))
        if script is None:
            return dict(result, failed=True, msg="Could not find or access '%s' on Windows host" % options.get('path'))
    should_process = supports_should_process(script)
    if check_mode and not should_process:
        return dict(result, changed=True, msg='skipped, running in check mode')
    for option in ('executable', 'chdir'):
        if options.get(option):
            raise Unsupported('win_powershell %s=%r' % (option, options[option]))
    tmpdir = _module_tmpdir(node)
    try:
        return _run(node, script, bound_parameters(parameters, sensitive_parameters, should_process, check_mode),
                    _ansible_variable(check_mode, options.get('verbosity', 0), tmpdir),
                    _PREFERENCE[error_action], depth, options.get('diff', False), dot_sourced)
    finally:
        _remove_tree(node, tmpdir)


def _script_file(node, path):
    """The text of a script file of the node, or None when Test-Path -LiteralPath finds nothing there. The module
    makes Windows PowerShell read a file without a byte order mark as UTF-8 (ClrFacade's default encoding)."""
    entry = filesystem.lookup(node, path) if path else None
    if entry is None:
        return None
    if entry['dir']:
        raise Unsupported('win_powershell path=%r: a folder' % path)
    return filesystem.decode(filesystem.content_bytes(entry), default='utf-8')


def _run(node, script, bound, ansible, error_action, depth, diff_mode,  # pylint: disable=too-many-arguments
         dot_sourced=True):
    host = WindowsHost(node)
    interpreter = new_interpreter(host, host.commands())
    interpreter.global_scope.vars['ansible'] = ansible
    interpreter.global_scope.vars['erroractionpreference'] = error_action
    output = []
    # [Diagnostics.Process]::Start and ProcessStartInfo find the node of the running script here, as run_on_node sets it.
    token = processes.CURRENT_HOST.set(host)
    try:
        # AddScript without useLocalScope: the script text runs dot-sourced in the global scope (MIRRORED 'the script,
        # dot-sourced'); a script file (AddCommand of its path) runs in a scope of its own (CommandDiscovery:
        # useLocalScope ?? true). A RuntimeException fails the task; ``exit`` only ends the script: the runspace's host
        # is the module's, whose SetShouldExit goes to the module runspace's default host and changes nothing.
        failed = execute(interpreter, script, bound, output,
                         scope=interpreter.global_scope if dot_sourced else None)[1]
    finally:
        processes.CURRENT_HOST.reset(token)
    final = interpreter.global_scope.vars.get('ansible')
    streams = interpreter.streams
    result = dict(EMPTY)
    result.update(
        host_out=''.join(streams.host_out), host_err=''.join(streams.host_err),
        result=as_json(convert_output(get_member(final, 'Result'), depth)),
        changed=as_json(get_member(final, 'Changed')),
        failed=failed or to_bool(get_member(final, 'Failed')),
        output=as_json(convert_output(PSArray(output), depth)),
        error=[error_entry(record, depth) for record in interpreter.errors],
        debug=list(streams.debug), verbose=list(streams.verbose), warning=list(streams.warning),
        information=[information_entry(record, depth) for record in streams.information])
    diff = get_member(final, 'Diff')
    if isinstance(diff, (Hashtable, OrderedDictionary)):
        entries = {to_string(key): as_json(convert_output(value, depth)) for key, value in diff.items()}
        # Ansible.Basic adds the diff when Ansible asked for one and there is one (GetFormattedResults).
        if entries and diff_mode:
            result['diff'] = entries
    return result
