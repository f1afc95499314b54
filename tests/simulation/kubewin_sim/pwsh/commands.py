"""Invoking a command: a function, a cmdlet or a native program (about_Command_Precedence,
about_Parameters, about_Splatting, about_Redirection, reference/5.1).

Arguments are read from the command elements: ``-Name value``, ``-Name:value``, switches (a switch
takes no value unless joined with a colon), barewords, splatted hashtables and arrays. Which
parameters are switches comes from the command itself. Errors a cmdlet writes obey its
-ErrorAction, else $ErrorActionPreference.

A name that is no function, modelled cmdlet or program of the node is CommandNotFound (Windows' own error) only
when Windows would not have it either: a cmdlet of Windows PowerShell 5.1 or of a Windows Server module that the
engine does not model is Unsupported, unless its module is one the node does not have (cmdlet_names.json).

Where a cmdlet reads a preference variable ($ErrorActionPreference, $WarningPreference, $VerbosePreference,
$DebugPreference, $InformationPreference, $WhatIfPreference) depends on its kind, which each modelled cmdlet
declares (``Cmdlet.kind``); a common parameter given to the call (-ErrorAction, -WhatIf...) wins over the variable
for either kind:

- COMPILED, a .NET cmdlet class of a binary module (Microsoft.PowerShell.Management, CimCmdlets, Hyper-V...): the
  preference is read from the caller's scope chain. Sources: MshCommandRuntime.cs (the WhatIf, ErrorAction...
  properties read ``Context.GetBooleanPreference``/``GetEnumPreference`` when the parameter was not given) and
  ExecutionContext.GetBooleanPreference (``EngineSessionState.GetVariableValue``); CommandProcessor.Init (a cmdlet runs
  in the caller's session state, ``CommandScope = Context.EngineSessionState.CurrentScope``), PowerShell/PowerShell
  60b3b304f2; "Everything you wanted to know about ShouldProcess", Scope issues: a built-in cmdlet called from a
  function sees its -WhatIf.
- CDXML, a function Cmdletization generates from a module's .cdxml file (NetTCPIP, NetAdapter, DnsClient,
  NetSecurity, ScheduledTasks, RemoteAccess: their reference pages list the CimSession, ThrottleLimit and AsJob
  parameters every such function has, SessionBasedWrapper.cs and CimCmdletAdapter): the function lives in its
  module's session state, whose scope chain is the function's own scope, the module's script scope (which sets no
  preference variable: ScriptWriter.cs's module preamble) and the global scope. So it sees a preference set in the
  global scope (a script win_powershell runs is dot-sourced there: PowerShell.AddScript without useLocalScope,
  PSScriptCmdlet pushing its locals onto the global scope's DottedScopes) but not one set in a function or in a
  script's own scope (``powershell.exe -File``). Sources: PowerShell/PowerShell#6556 (Enable-NetFirewallRule changes
  the rule when an advanced function called with -WhatIf calls it), #4568, SessionStateInternal (a module's
  session state links to the global scope), SessionStateScope.TryGetLocalVariableFromTuple (DottedScopes).

A cmdlet that supports ShouldProcess (its reference page lists -WhatIf) does not act under -WhatIf
(about_CommonParameters: "Displays a message that describes the effect of the command, instead of executing the
command"). A model that decides that itself, at the point its cmdlet calls ShouldProcess, declares it
(``Cmdlet.models_what_if``) and reads ``ctx.what_if()``; any other is not called at all, so it neither acts nor
writes output. Not modelled there: the errors such a cmdlet raises before its ShouldProcess call (a path that does
not exist...) and the text of its ``What if:`` line (each cmdlet's own resource string), which is not written.
"""

import copy
import functools
import json
import os
import re

from .cmdlet_sets import ALL_SETS, ParameterBindingError, cmdlet_spec
from .invocation import InvocationInfo
from .operators import within_bound
from .pipeline import Stage
from .streams import write_record
from .values import (ArrayList, EnumValue, Hashtable, PSArray, PSError, ScriptBlock, Unsupported, enumerate_value,
                     is_enumerable, is_null, is_number, to_bool, to_string, type_name)

_NO_VALUE = object()


class Parameter:
    """-Name as written in a call; ``value`` is _NO_VALUE until an argument is paired with it."""

    def __init__(self, name, value=_NO_VALUE, joined=False):
        self.name = name
        self.value = value
        self.joined = joined


COMPILED = 'compiled'
CDXML = 'cdxml'
KINDS = (COMPILED, CDXML)
# The preference variable a common parameter of the call stands for (about_CommonParameters).
_COMMON_PREFERENCES = {'WarningAction': 'WarningPreference', 'InformationAction': 'InformationPreference',
                       'Verbose': 'VerbosePreference', 'Debug': 'DebugPreference'}


class Cmdlet:
    """A cmdlet implemented in Python: ``function(ctx, params, input_items)`` returns its output items.

    How its arguments bind (names, prefixes, aliases, switches, positions, parameter sets, mandatory
    parameters) comes from its table in cmdlet_sets/, taken from Microsoft's reference: a cmdlet the
    engine implements must have one. ``params`` maps canonical parameter names to values. ``kind``
    (COMPILED or CDXML) says where it reads preference variables; ``models_what_if`` that the function
    itself decides what -WhatIf leaves undone (see the module docstring).
    """

    def __init__(self, name, function, kind=COMPILED, models_what_if=False):
        if kind not in KINDS:
            raise ValueError('%s: unknown kind of command %r' % (name, kind))
        self.name = name
        self.function = function
        self.kind = kind
        self.models_what_if = models_what_if
        self.spec = cmdlet_spec(name)
        if self.spec is None:
            raise ValueError('%s has no parameter-binding table in cmdlet_sets/' % name)


# The provider cmdlets (Microsoft.PowerShell.Management and .Security): compiled cmdlets whose class is
# Microsoft.PowerShell.Commands.<Verb><Noun>Command (PowerShell's source, commands/management/*.cs and security/*.cs).
PROVIDER_CMDLETS = ('Add-Content', 'Clear-Content', 'Clear-Item', 'Clear-ItemProperty', 'Convert-Path', 'Copy-Item',
                    'Copy-ItemProperty', 'Get-Acl', 'Get-ChildItem', 'Get-Content', 'Get-Item', 'Get-ItemProperty',
                    'Get-ItemPropertyValue', 'Invoke-Item', 'Join-Path', 'Move-Item', 'Move-ItemProperty', 'New-Item',
                    'New-ItemProperty', 'Remove-Item', 'Remove-ItemProperty', 'Rename-Item', 'Rename-ItemProperty',
                    'Resolve-Path', 'Set-Acl', 'Set-Content', 'Set-Item', 'Set-ItemProperty', 'Split-Path', 'Test-Path')


def qualified(error, cmdlet_name):
    """An error a provider cmdlet writes or throws, its FullyQualifiedErrorId completed as the cmdlet's ErrorRecord
    completes it: the error id, a comma, the cmdlet's class (`PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand`;
    about_CommonParameters, ErrorRecord.FullyQualifiedErrorId)."""
    if cmdlet_name not in PROVIDER_CMDLETS or ',' in error.error_id:
        return error
    completed = copy.copy(error)
    completed.error_id = '%s,%s' % (error.error_id, command_id(cmdlet_name))
    return completed


def command_id(cmdlet_name):
    """What follows the comma in the FullyQualifiedErrorId of a cmdlet's error: a provider cmdlet's class, else (as
    the tables know no other class) the cmdlet's name."""
    if cmdlet_name in PROVIDER_CMDLETS:
        return 'Microsoft.PowerShell.Commands.%sCommand' % cmdlet_name.replace('-', '')
    return cmdlet_name


def name_activity(error, cmdlet):
    """An error a cmdlet writes or throws has its name as CategoryInfo.Activity unless its writer gave another
    (ErrorCategoryInfo.Activity: the record's InvocationInfo.MyCommand.Name)."""
    if getattr(error, 'activity', None) is None:
        error.activity = cmdlet.name


def _call_invocation(cmdlet, node):
    name_node = node.child('command_name') or node.child('command_name_expr')
    return InvocationInfo(cmdlet.name, name_node.text if name_node is not None else cmdlet.name, node)


class CommandContext:
    """What a running cmdlet sees: the common parameters of its call, the runspace and the host (the node)."""

    def __init__(self, interpreter, scope, cmdlet, common, parameter_set, invocation=None):  # pylint: disable=too-many-arguments
        self.parameter_set = parameter_set
        self.interpreter = interpreter
        self.scope = scope
        self.cmdlet = cmdlet
        self.common = common
        self.host = interpreter.host
        self.invocation = invocation

    @property
    def error_action(self):
        """-ErrorAction of the call, else $ErrorActionPreference where this kind of command reads it."""
        if 'ErrorAction' in self.common:
            return to_string(self.common['ErrorAction'])
        return to_string(self.interpreter.lookup(self.preference_scope(), 'ErrorActionPreference'))

    def preference_scope(self):
        """The scope whose chain this cmdlet reads preference variables from (the module docstring)."""
        return self.scope if self.cmdlet.kind == COMPILED else self.interpreter.global_scope

    def preference(self, variable):
        """A preference (``WarningPreference``...): the call's common parameter, else the variable. -Verbose is
        Continue; -Debug is Inquire in 5.1 (MshCommandRuntime.DebugPreference), Continue where the host has no UI."""
        for parameter, name in _COMMON_PREFERENCES.items():
            if name == variable and parameter in self.common:
                value = self.common[parameter]
                if parameter == 'Verbose':
                    return 'Continue' if to_bool(value) else 'SilentlyContinue'
                if parameter == 'Debug':
                    return 'Inquire' if to_bool(value) else 'SilentlyContinue'
                return to_string(value)
        return to_string(self.interpreter.lookup(self.preference_scope(), variable))

    def write_error(self, error, details=None, callers=False):
        """WriteError: a non-terminating error record of this command's call (``callers``: of its caller's, as
        Write-Error's records are: WriteErrorCommand sets the caller's $MyInvocation on them)."""
        from .interpreter import ErrorRecord  # pylint: disable=import-outside-toplevel
        error = qualified(error, self.cmdlet.name)
        name_activity(error, self.cmdlet)
        if not callers:
            error.invocation = self.invocation
        record = ErrorRecord(error, self.invocation.ScriptLineNumber if self.invocation else None)
        record.ErrorDetails = details
        self.interpreter.write_error(record, self.scope, self.error_action)

    def write_warning(self, text):
        write_record(self.interpreter.streams, 'warning', to_string(text), self.preference('WarningPreference'))

    def invoke(self, block, item, positional=(), out=None):
        """Run a script block with $_ = item in the caller's scope chain; return its output (written to ``out``, as
        it comes, when given: ForEach-Object's output streams)."""
        # The script blocks of ForEach-Object and Where-Object run in the caller's scope (dot-sourced):
        # an assignment in them changes the caller's variable (about_Scopes, ForEach-Object reference).
        out = [] if out is None else out
        previous = self.scope.vars.get('_', _NO_VALUE)
        self.interpreter.invoke_block(block, self.scope, out, positional=list(positional), dollar_under=item,
                                      new_scope=False)
        if previous is _NO_VALUE:
            self.scope.vars.pop('_', None)
            self.scope.vars.pop('psitem', None)
        else:
            self.scope.vars['_'] = previous
            self.scope.vars['psitem'] = previous
        return out

    def what_if(self):
        """Whether -WhatIf is in force: the call's -WhatIf, else $WhatIfPreference where this kind reads it."""
        if 'WhatIf' in self.common:
            return to_bool(self.common['WhatIf'])
        return to_bool(self.interpreter.lookup(self.preference_scope(), 'WhatIfPreference'))


def _elements(node):
    elements = node.child('command_elements')
    return elements.children if elements is not None else []


def read_arguments(interpreter, node, scope, is_switch):
    """The call's arguments: a list of Parameter and plain values, splats expanded; and its redirections."""
    args = []
    redirections = []
    pending_join = False
    elements = _elements(node)
    skip = None
    for position, child in enumerate(elements):
        kind = child.type
        if child is skip:
            continue
        if kind == 'command_argument_sep':
            if child.text.strip() == ':' and args and isinstance(args[-1], Parameter):
                pending_join = True
            continue
        if kind == 'comment' or not child.named:
            continue
        if kind == 'redirection':
            redirections.append(_redirection(interpreter, child, scope))
            continue
        if kind == 'command_parameter':
            name = child.text[1:]
            if name.endswith(':'):
                name = name[:-1]
                pending_join = True
            args.append(Parameter(name))
            continue
        if kind == 'unary_expression' and child.named_children and child.named_children[0].type == 'variable' \
                and child.named_children[0].text.startswith('@'):
            splatted = interpreter.lookup(scope, child.named_children[0].text[1:])
            if isinstance(splatted, Hashtable):
                for key, value in splatted.items():
                    args.append(Parameter(to_string(key), value, joined=True))
            elif is_enumerable(splatted):
                args.extend(enumerate_value(splatted))
            elif splatted is not None:
                args.append(splatted)
            continue
        following = elements[position + 1] if position + 1 < len(elements) else None
        access = child.named_children[0] if kind == 'unary_expression' and len(child.named_children) == 1 else child
        if following is not None and following.type == 'argument_list' and access.type == 'member_access':
            # about_Parsing (argument mode): "The variable reference can include member access", a method call
            # included: `-Text $answer.Trim()` passes what Trim returns.
            value = interpreter.invoke_member(access, following, scope)
            skip = following
        else:
            value = _argument_value(interpreter, child, scope)
        if pending_join:
            args[-1].value = value
            args[-1].joined = True
            pending_join = False
            continue
        args.append(value)
    # Pair each non-switch parameter with the argument after it.
    paired = []
    index = 0
    while index < len(args):
        item = args[index]
        if isinstance(item, Parameter) and item.value is _NO_VALUE and not is_switch(item.name):
            if index + 1 < len(args) and not isinstance(args[index + 1], Parameter):
                item.value = args[index + 1]
                index += 1
            else:
                raise PSError("Missing an argument for parameter '%s'. Specify a parameter of type '%s' and try again."
                              % (item.name, 'System.Object'), 'System.Management.Automation.ParameterBindingException',
                              'MissingArgument', 'InvalidArgument')
        paired.append(item)
        index += 1
    return paired, redirections


def _argument_value(interpreter, node, scope):
    kind = node.type
    if kind == 'generic_token':
        return node.text
    if kind == 'bareword_argument_list':
        return PSArray(_argument_value(interpreter, child, scope) for child in node.named_children)
    if kind == 'array_literal_expression':
        return PSArray(_argument_value(interpreter, child, scope) for child in node.named_children)
    return interpreter.eval_expression(node, scope)


def _redirection(interpreter, node, scope):
    operator = node.named_children[0].text.replace(' ', '')
    target = None
    file_node = node.child('redirected_file_name')
    if file_node is not None:
        inner = [child for child in file_node.named_children if child.type != 'command_argument_sep']
        target = interpreter.eval_expression(inner[0], scope) if inner else None
    return operator, target


def invoke_command(interpreter, node, scope, input_items, piped):
    """Run one command with ``input_items`` piped in; return its success output."""
    from .pipeline import ValuesStage, run_pipeline  # pylint: disable=import-outside-toplevel
    stage = command_stage(interpreter, node, scope, piped)
    return run_pipeline([ValuesStage(input_items or []), stage] if piped else [stage], [])


def command_stage(interpreter, node, scope, piped):
    """One command of a pipeline, its arguments read and bound, ready to run (pipeline.py)."""
    invocation = node.child('command_invocation_operator')
    name_node = node.child('command_name') or node.child('command_name_expr')
    target = name_node.text
    if name_node.type == 'command_name_expr':
        inner = name_node.named_children[0]
        if inner.type == 'path_command_name':
            inner = inner.named_children[0] if inner.named_children else inner
        # `& name` with a bare name is the command of that name (about_Operators: call operator).
        target = inner.text if inner.type in ('generic_token', 'command_name', 'path_command_name_token') \
            else interpreter.eval_expression(inner, scope)
    if invocation is not None and invocation.text == '.' and not isinstance(target, ScriptBlock):
        raise Unsupported('dot-sourcing a script file', node.line)
    if isinstance(target, ScriptBlock):
        args, redirections = read_arguments(interpreter, node, scope, lambda name: False)
        named, positional = _split(args)
        # `. { }` runs in the caller's scope (about_Scopes: dot-source notation); `& { }` in a child scope.
        stage = interpreter.block_stage(target, scope, named, positional, piped,
                                        new_scope=not (invocation is not None and invocation.text == '.'))
        return _redirected(interpreter, stage, redirections)
    name = to_string(target)
    if _is_range(name):
        # The grammar reads `1..3` at the start of a statement as a command name.
        from .pipeline import ValuesStage  # pylint: disable=import-outside-toplevel
        low, high = (int(part) for part in name.split('..'))
        step = 1 if high >= low else -1
        within_bound(abs(high - low) + 1, 'a range')
        return ValuesStage(list(range(low, high + step, step)))
    if _NUMBER_THEN_OPERATOR.match(name):
        # PowerShell's tokenizer reads a number at the start of a statement (`7/2`); the grammar made it a command.
        raise Unsupported('%r: an expression the grammar read as a command name' % name, node.line)
    function = interpreter.functions.get(name.lower())
    if function is not None:
        return _function_stage(interpreter, function, node, scope, piped)
    cmdlet = interpreter.commands.get(name.lower())
    if cmdlet is not None:
        return _cmdlet_stage(interpreter, cmdlet, node, scope, piped)
    host = interpreter.host
    script = host.script_file(name) if host is not None and hasattr(host, 'script_file') else None
    if script is not None:
        return _script_file_stage(interpreter, script, node, scope, piped, name)
    if host is not None and host.has_program(name):
        # A native program gets each token as a word of its command line (about_Parsing, "Passing arguments that
        # contain quote characters"/native commands): -x is a word of its own and takes no value after it.
        args, redirections = read_arguments(interpreter, node, scope, lambda written: True)
        return _CollectingStage(lambda items: _invoke_native(interpreter, host, name, args, redirections, scope, items),
                                piped, name)
    refused = _unmodelled_cmdlet(host, name, node.line)
    if refused is not None:
        raise refused
    raise PSError("The term '%s' is not recognized as the name of a cmdlet, function, script file, or operable program. "
                  "Check the spelling of the name, or if a path was included, verify that the path is correct and try "
                  "again." % name, 'System.Management.Automation.CommandNotFoundException', 'CommandNotFoundException',
                  'ObjectNotFound', target=name)


@functools.lru_cache(maxsize=None)
def _documented_cmdlets():
    """{lower-case cmdlet name: module} of Windows PowerShell 5.1 and the Windows Server modules (cmdlet_names.json,
    from PowerShell-Docs reference/5.1 and windows-powershell-docs docset/winserver2022-ps by tools/cmdlet_docs.py)."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cmdlet_names.json')) as handle:
        modules = json.load(handle)['modules']
    return {name.lower(): module for module, names in modules.items() for name in names}


def _unmodelled_cmdlet(host, name, line):
    """Unsupported for a cmdlet Windows has and the engine does not model; None (CommandNotFound, Windows' own error)
    for a name no reference documents, or a cmdlet of a module the node does not have (its area unavailable, as
    Hyper-V's cmdlets without the Hyper-V-PowerShell feature)."""
    module_name, _separator, short = name.rpartition('\\')
    module = _documented_cmdlets().get(short.lower())
    if module is None or (module_name and module_name.lower() != module.lower()):
        return None
    if host is not None and hasattr(host, 'absent_modules') and module in host.absent_modules():
        return None
    return Unsupported('cmdlet %s of module %s (Windows has it; the engine does not model it)' % (short, module), line)


_NUMBER_THEN_OPERATOR = re.compile(r'^[0-9]+(\.[0-9]+)?[-+*/%]')


def _is_range(name):
    parts = name.split('..')
    return len(parts) == 2 and all(part.lstrip('-').isdigit() for part in parts)


def _split(args):
    named, positional = {}, []
    for item in args:
        if isinstance(item, Parameter):
            if item.name in named:
                raise PSError("Cannot bind parameter because parameter '%s' is specified more than once." % item.name,
                              'System.Management.Automation.ParameterBindingException', 'ParameterAlreadyBound')
            named[item.name] = True if item.value is _NO_VALUE else item.value
        else:
            positional.append(item)
    return named, positional


def _function_stage(interpreter, function, node, scope, piped):
    from .binding import is_switch  # pylint: disable=import-outside-toplevel
    body = function.node.child('script_block')
    param_block = (function.node.child('param_block') or (body.child('param_block') if body is not None else None))
    args, redirections = read_arguments(interpreter, node, scope,
                                        lambda written: is_switch(interpreter, param_block, scope, written))
    named, positional = _split(args)
    block = ScriptBlock(function.node, function.text)
    stage = interpreter.block_stage(block, scope, named, positional, piped, name=function.name)
    return _redirected(interpreter, stage, redirections)


def _binding_error(error, command):
    return PSError(error.message, 'System.Management.Automation.ParameterBindingException',
                   '%s,%s' % (error.error_id, command_id(command)), 'InvalidArgument')


def _validate_sets(spec, params):
    """A string parameter with a ValidateSet (the values its reference page accepts) takes only those values, in any
    case (ValidateSetAttribute ignores case by default); an enum-typed one is converted by the cmdlet's own model.
    The message is Windows PowerShell 5.1's (ParameterBinderStrings ParameterArgumentValidationError with
    Metadata ValidateSetFailure)."""
    for name, value in params.items():
        param = _by_name(spec).get(name)
        if param is None or not param.accepted_values or param.type not in ('String', 'String[]'):
            continue
        allowed = {text.lower() for text in param.accepted_values}
        for item in (enumerate_value(value) if is_enumerable(value) else [value]):
            text = to_string(item)
            if text.lower() not in allowed:
                raise PSError('Cannot validate argument on parameter \'%s\'. The argument "%s" does not belong to the set '
                              '"%s" specified by the ValidateSet attribute. Supply an argument that is in the set and '
                              'then try the command again.' % (param.name, text, ','.join(param.accepted_values)),
                              'System.Management.Automation.ParameterBindingValidationException',
                              'ParameterArgumentValidationError,%s' % command_id(spec.name), 'InvalidData')


# The enums whose declaration order is known, as 5.1's binding error lists their names: Microsoft.PowerShell.Commands.
# FileSystemCmdletProviderEncoding (PowerShell 5.1's FileSystemProvider; the message of Set-Content -Encoding
# utf8NoBOM on Windows PowerShell 5.1 lists them so).
_ENUMS = {
    'FileSystemCmdletProviderEncoding': ('Microsoft.PowerShell.Commands.FileSystemCmdletProviderEncoding', (
        'Unknown', 'String', 'Unicode', 'Byte', 'BigEndianUnicode', 'UTF8', 'UTF7', 'UTF32', 'Ascii', 'Default', 'Oem',
        'BigEndianUTF32')),
}
_NUMERIC_TYPES = ('Int32', 'Int64', 'Int16', 'UInt32', 'UInt16', 'UInt64', 'Byte')


@functools.lru_cache(maxsize=None)
def _by_name(spec):
    """A cmdlet's parameters by canonical name (the keys of ``params``)."""
    return {param.name: param for param in spec.parameters}


def _convert_arguments(spec, params, parameter_set):
    """What 5.1's parameter binder does with an argument before the cmdlet sees it (about_Parameters; PowerShell's
    ParameterBinderBase.BindParameter): $null for a mandatory number parameter is refused; a number parameter takes the
    argument converted to its type; an enum parameter takes only one of its names. A refusal ends the statement
    (ParameterBindingException, with 5.1's messages and error ids)."""
    for name, value in list(params.items()):
        param = _by_name(spec).get(name)
        if param is None or param.kind != 'declared':
            continue
        element = param.type[:-2] if param.type.endswith('[]') else param.type
        if is_null(value) and element in _NUMERIC_TYPES:
            flags = param.sets.get(parameter_set) or param.sets.get(ALL_SETS) or {}
            if not flags.get('mandatory'):
                # Whether the binder converts $null to 0 here depends on attributes the tables do not carry.
                raise Unsupported('-%s $null of %s' % (param.name, spec.name))
            raise PSError("Cannot bind argument to parameter '%s' because it is null." % param.name,
                          'System.Management.Automation.ParameterBindingValidationException',
                          'ParameterArgumentValidationErrorNullNotAllowed,%s' % command_id(spec.name), 'InvalidData')
        if is_null(value):
            continue
        if element in _NUMERIC_TYPES:
            params[name] = _converted(spec, param, value, element)
        elif element == 'ScriptBlock':
            for item in (enumerate_value(value) if is_enumerable(value) else [value]):
                if not isinstance(item, ScriptBlock):
                    raise PSError("Cannot bind parameter '%s'. Cannot convert the \"%s\" value of type \"%s\" to type "
                                  "\"System.Management.Automation.ScriptBlock\"." % (param.name, to_string(item),
                                                                                     type_name(item)),
                                  'System.Management.Automation.ParameterBindingException',
                                  'CannotConvertArgumentNoMessage,%s' % command_id(spec.name), 'InvalidArgument')
        elif element in _ENUMS:
            # Other enums are converted by the model of the cmdlet, which knows their members (netsecurity.py...).
            for item in (enumerate_value(value) if is_enumerable(value) else [value]):
                _check_enum_name(spec, param, element, item)


def _converted(spec, param, value, element):
    from . import types as pstypes  # pylint: disable=import-outside-toplevel
    target = pstypes.resolve('System.' + element)
    try:
        if is_enumerable(value):
            if not param.type.endswith('[]'):
                target.convert(PSArray(enumerate_value(value)))
            return PSArray([target.convert(item) for item in enumerate_value(value)], target.name)
        return target.convert(value)
    except PSError as error:
        raise PSError("Cannot bind parameter '%s'. %s" % (param.name, error.message),
                      'System.Management.Automation.ParameterBindingException',
                      'CannotConvertArgumentNoMessage,%s' % command_id(spec.name), 'InvalidArgument') from None


def _check_enum_name(spec, param, element, item):
    if isinstance(item, EnumValue) or (is_number(item) and not isinstance(item, bool)):
        return
    text = to_string(item)
    full_name, names = _ENUMS[element]
    if text.strip().lower() not in {value.lower() for value in names}:
        raise PSError("Cannot bind parameter '%s'. Cannot convert value \"%s\" to type \"%s\". Error: \"Unable to match "
                      "the identifier name %s to a valid enumerator name. Specify one of the following enumerator names "
                      "and try again:\r\n%s\"" % (param.name, text, full_name, text, ', '.join(names)),
                      'System.Management.Automation.ParameterBindingException',
                      'CannotConvertArgumentNoMessage,%s' % command_id(spec.name), 'InvalidArgument')


def _short_type(value):
    name = type_name(value)
    return None if name is None else name.rsplit('.', 1)[-1]


def _cmdlet_stage(interpreter, cmdlet, node, scope, piped):
    spec = cmdlet.spec
    try:
        args, redirections = read_arguments(interpreter, node, scope, spec.is_switch)
        named = [item for item in args if isinstance(item, Parameter)]
        positional = [item for item in args if not isinstance(item, Parameter)]
        result = spec.bind([item.name + (':' if item.joined else '') for item in named],
                           positional=[(to_string(value), _short_type(value)) for value in positional],
                           pipeline_input=piped)
    except ParameterBindingError as error:
        raise _binding_error(error, spec.name) from None
    params = {}
    for item, canonical in zip(named, result.named):
        params[canonical] = True if item.value is _NO_VALUE else item.value
    for value, canonical in zip(positional, result.positional):
        params[canonical] = value
    _validate_sets(spec, params)
    _convert_arguments(spec, params, result.parameter_set)
    common = {name: params.pop(name) for name in ('ErrorAction', 'WarningAction', 'InformationAction', 'Verbose',
                                                  'Debug', 'WhatIf') if name in params}
    error_variable = params.pop('ErrorVariable', None)
    for unused in ('WarningVariable', 'OutVariable', 'OutBuffer', 'PipelineVariable', 'InformationVariable'):
        params.pop(unused, None)
    # -Confirm:$false only says "do not ask" (about_CommonParameters); -Confirm asks, and the host cannot prompt.
    if 'Confirm' in params and not to_bool(params['Confirm']):
        del params['Confirm']
    if 'Confirm' in params:
        raise Unsupported('-Confirm on cmdlet %s (it prompts)' % cmdlet.name, node.line)
    ctx = CommandContext(interpreter, scope, cmdlet, common, result.parameter_set, _call_invocation(cmdlet, node))
    if spec.supports_should_process and not cmdlet.models_what_if and ctx.what_if():
        # Under -WhatIf the cmdlet does not act and writes nothing (the module docstring says what is not modelled):
        # what is piped to it goes nowhere, on Windows as here.
        return _CollectingStage(lambda items: _redirect(interpreter, [], [], redirections), piped, cmdlet.name,
                                collects_in_windows=True)
    run = _ErrorVariable(interpreter, scope, error_variable)
    stream = getattr(cmdlet.function, 'stream', None)
    stage = stream(ctx, params, piped) if stream is not None else None
    if stage is not None:
        return _redirected(interpreter, run.wrap(stage), redirections)

    def call(items):
        errors_before = len(interpreter.errors)
        out = run.call(lambda: _run_cmdlet(cmdlet, ctx, params, items))
        return _redirect(interpreter, out, interpreter.errors[errors_before:], redirections, errors_before)
    return _CollectingStage(call, piped, cmdlet.name, collects_in_windows=getattr(cmdlet.function, 'collects', False))


def _run_cmdlet(cmdlet, ctx, params, items):
    from .interpreter import MODEL_FAILURES  # pylint: disable=import-outside-toplevel
    try:
        return list(cmdlet.function(ctx, params, items))
    except PSError as error:
        error = qualified(error, cmdlet.name)
        name_activity(error, cmdlet)
        if getattr(error, 'invocation', None) is None:
            error.invocation = ctx.invocation
        raise error from None
    except MODEL_FAILURES as failure:
        raise Unsupported('%s with %s (%s: %s)' % (cmdlet.name, ', '.join('-' + name for name in params) or 'no parameter',
                                                   type(failure).__name__, failure)) from None


class _ErrorVariable:
    """-ErrorVariable: holds the command's error records, whatever -ErrorAction did with them (about_CommonParameters)."""

    def __init__(self, interpreter, scope, name):
        self.interpreter = interpreter
        self.scope = scope
        self.name = name
        self.recorded_before = len(interpreter.error_list)

    def call(self, function):
        try:
            return function()
        finally:
            self.store()

    def store(self):
        if self.name is not None:
            error_list = self.interpreter.error_list
            written = list(reversed(error_list[:len(error_list) - self.recorded_before]))
            self.interpreter.assign(self.scope, to_string(self.name).lstrip('+'), ArrayList(written))

    def wrap(self, stage):
        if self.name is None:
            return stage
        end = stage.end

        def end_and_store():
            self.call(end)
        stage.end = end_and_store
        return stage


class _CollectingStage(Stage):
    """A command that takes its piped objects together, when the command before it has ended: a cmdlet of the
    model (a Python function of the whole input) or a native program (its standard input)."""

    collects = True

    def __init__(self, call, piped, name, collects_in_windows=False):
        super().__init__()
        self.call = call
        self.piped = piped
        self.name = name
        self.items = []
        self.collects_in_windows = collects_in_windows

    def __repr__(self):
        return self.name

    def process(self, item):
        self.items.append(item)
        self.received += 1

    def process_first(self):
        """Run in end(), as every collecting command."""

    def end(self):
        items, self.items, self.received = self.items, [], 0
        for item in self.call(items if self.piped else None):
            self.emit(item)


class _RedirectedStage(Stage):
    """A streaming command with redirections (about_Redirection): its output and its errors are gathered and
    redirected when it ends. On Windows they would stream, so a pipeline that fails while it holds output is
    Unsupported (pipeline.run_pipeline)."""

    def __init__(self, interpreter, inner, redirections):
        super().__init__()
        self.interpreter = interpreter
        self.inner = inner
        self.redirections = redirections
        self.output = []
        self.errors = []
        inner.emit = self.output.append

    def __repr__(self):
        return 'a redirected command'

    def holds_input(self):
        return bool(self.output)

    def _phase(self, function, *args):
        errors = self.interpreter.errors
        before = len(errors)
        try:
            function(*args)
        except Exception:
            # The command failed: what it wrote to the error stream stays there, in order.
            errors[before:before] = self.errors
            self.errors = []
            raise
        self.errors.extend(errors[before:])
        del errors[before:]

    def begin(self):
        self._phase(self.inner.begin)

    def process(self, item):
        self._phase(self.inner.process, item)

    def process_first(self):
        self._phase(self.inner.process_first)

    def end(self):
        self._phase(self.inner.end)
        errors = self.interpreter.errors
        before = len(errors)
        errors.extend(self.errors)
        output, self.output = self.output, []
        for item in _redirect(self.interpreter, output, self.errors, self.redirections, before):
            self.emit(item)


def _redirected(interpreter, stage, redirections):
    return _RedirectedStage(interpreter, stage, redirections) if redirections else stage


def _invoke_native(interpreter, host, name, args, redirections, scope, input_items):
    from .interpreter import ErrorRecord  # pylint: disable=import-outside-toplevel
    words = []
    for item in args:
        if isinstance(item, Parameter):
            words.append('-' + item.name + (':' + to_string(item.value) if item.value is not _NO_VALUE else ''))
        elif is_enumerable(item):
            words.extend(to_string(part) for part in enumerate_value(item))
        else:
            words.append(to_string(item))
    result = host.run_program(name, words, input_items)
    interpreter.assign(interpreter.global_scope, 'LASTEXITCODE', result.exit_code)
    merged = any(redirection[0] in ('2>&1', '*>&1') for redirection in redirections)
    discard_err = any(operator in ('2>', '*>') and target is None for operator, target in redirections)
    out = list(result.stdout_lines)
    records = []
    for line in result.stderr_lines:
        # Windows PowerShell 5.1 wraps each line a native program writes to stderr in an error record
        # (NativeCommandError) when stderr is redirected or captured, as in a hosted runspace.
        error = PSError(line, 'System.Management.Automation.RemoteException', 'NativeCommandError',
                        'NotSpecified', target=line)
        records.append(ErrorRecord(error))
    if records and (merged or discard_err) \
            and to_string(interpreter.lookup(scope, 'ErrorActionPreference')).lower() == 'stop':
        # 5.1 sends a redirected stderr line through the error stream first: under 'Stop' the first
        # line ends the script (PSNotApplyErrorActionToStderr changed this only in PowerShell 7).
        interpreter.write_error(records[0], scope)
    if merged:
        out.extend(records)
    elif not discard_err:
        for record in records:
            interpreter.write_error(record, scope)
    ok = result.exit_code == 0
    scope.vars['?'] = ok
    return _redirect(interpreter, out, [], [r for r in redirections if r[0] not in ('2>&1', '*>&1')])


def _script_file_stage(interpreter, text, node, scope, piped, name):  # pylint: disable=too-many-arguments
    """`& C:\\path\\script.ps1 args`: the file's text bound and run as a script, in a scope of its own under the
    caller's (about_Scripts, about_Scopes), as a command of the pipeline. The host gives the text once the session's
    execution policy let the file run (windows/powershell_exe.py)."""
    from .syntax import parse  # pylint: disable=import-outside-toplevel
    block = ScriptBlock(parse(text).root, text)
    args, redirections = read_arguments(interpreter, node, scope, lambda written: False)
    named, positional = _split(args)
    stage = _ScriptFileStage(interpreter.block_stage(block, scope, named, positional, piped, name=name, is_script=True),
                             interpreter, scope)
    return _redirected(interpreter, stage, redirections)


class _ScriptFileStage(Stage):
    """A script file's run: `exit N` in it ends the script, not the caller, with $LASTEXITCODE N and $? whether N is 0
    (about_Automatic_Variables, about_Language_Keywords exit); once it exited, the objects still piped to it go
    nowhere."""

    def __init__(self, run, interpreter, caller):
        super().__init__()
        self.run = run
        self.interpreter = interpreter
        self.caller = caller
        self.exited = False

    def __repr__(self):
        return repr(self.run)

    def _step(self, step, *args):
        from .interpreter import Exit  # pylint: disable=import-outside-toplevel
        if self.exited:
            return
        self.run.emit = self.emit
        try:
            step(*args)
        except Exit as exited:
            self.exited = True
            self.interpreter.assign(self.interpreter.global_scope, 'LASTEXITCODE', exited.code)
            self.caller.vars['?'] = exited.code == 0

    def begin(self):
        self._step(self.run.begin)

    def process(self, item):
        self.received += 1
        self._step(self.run.process, item)

    def process_first(self):
        self._step(self.run.process_first)

    def end(self):
        self._step(self.run.end)


def _redirect(interpreter, out, new_errors, redirections, errors_before=None):
    for operator, target in redirections:
        discard = target is None or (isinstance(target, str) and target.lower() == '$null')
        if operator in ('2>&1', '*>&1'):
            if errors_before is not None:
                del interpreter.errors[errors_before:]
            out = out + list(new_errors)
        elif operator in ('2>', '*>') and discard:
            if errors_before is not None:
                del interpreter.errors[errors_before:]
            if operator == '*>':
                out = []
        elif operator in ('>', '1>') and discard:
            out = []
        else:
            raise Unsupported('redirection %s to a file' % operator)
    return out
