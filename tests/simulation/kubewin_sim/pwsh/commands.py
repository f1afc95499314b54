"""Invoking a command: a function, a cmdlet or a native program (about_Command_Precedence,
about_Parameters, about_Splatting, about_Redirection, reference/5.1).

Arguments are read from the command elements: ``-Name value``, ``-Name:value``, switches (a switch
takes no value unless joined with a colon), barewords, splatted hashtables and arrays. Which
parameters are switches comes from the command itself. Errors a cmdlet writes obey its
-ErrorAction, else $ErrorActionPreference.

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

from .cmdlet_sets import ParameterBindingError, cmdlet_spec
from .invocation import InvocationInfo
from .streams import write_record
from .values import (ArrayList, Hashtable, PSArray, PSError, ScriptBlock, Unsupported, enumerate_value,
                     is_enumerable, to_bool, to_string, type_name)

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
        name_activity(error, self.cmdlet)
        if not callers:
            error.invocation = self.invocation
        record = ErrorRecord(error, self.invocation.ScriptLineNumber if self.invocation else None)
        record.ErrorDetails = details
        self.interpreter.write_error(record, self.scope, self.error_action)

    def write_warning(self, text):
        write_record(self.interpreter.streams, 'warning', to_string(text), self.preference('WarningPreference'))

    def invoke(self, block, item, positional=()):
        """Run a script block with $_ = item in the caller's scope chain; return its output."""
        # The script blocks of ForEach-Object and Where-Object run in the caller's scope (dot-sourced):
        # an assignment in them changes the caller's variable (about_Scopes, ForEach-Object reference).
        out = []
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
    """Run one command of a pipeline with ``input_items`` piped in; return its success output."""
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
        out = []
        # `. { }` runs in the caller's scope (about_Scopes: dot-source notation); `& { }` in a child scope.
        interpreter.invoke_block(target, scope, out, named=named, positional=positional, pipeline_input=input_items,
                                 new_scope=not (invocation is not None and invocation.text == '.'))
        return _redirect(interpreter, out, [], redirections)
    name = to_string(target)
    if _is_range(name):
        # The grammar reads `1..3` at the start of a statement as a command name.
        low, high = (int(part) for part in name.split('..'))
        step = 1 if high >= low else -1
        return list(range(low, high + step, step))
    function = interpreter.functions.get(name.lower())
    if function is not None:
        return _invoke_function(interpreter, function, node, scope, input_items)
    cmdlet = interpreter.commands.get(name.lower())
    if cmdlet is not None:
        return _invoke_cmdlet(interpreter, cmdlet, node, scope, input_items, piped)
    host = interpreter.host
    if host is not None and host.has_program(name):
        # A native program gets each token as a word of its command line (about_Parsing, "Passing arguments that
        # contain quote characters"/native commands): -x is a word of its own and takes no value after it.
        args, redirections = read_arguments(interpreter, node, scope, lambda written: True)
        return _invoke_native(interpreter, host, name, args, redirections, scope, input_items)
    raise PSError("The term '%s' is not recognized as the name of a cmdlet, function, script file, or operable program. "
                  "Check the spelling of the name, or if a path was included, verify that the path is correct and try "
                  "again." % name, 'System.Management.Automation.CommandNotFoundException', 'CommandNotFoundException',
                  'ObjectNotFound', target=name)


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


def _invoke_function(interpreter, function, node, scope, input_items):
    from .binding import is_switch  # pylint: disable=import-outside-toplevel
    body = function.node.child('script_block')
    param_block = (function.node.child('param_block') or (body.child('param_block') if body is not None else None))
    args, redirections = read_arguments(interpreter, node, scope,
                                        lambda written: is_switch(interpreter, param_block, scope, written))
    named, positional = _split(args)
    out = []
    errors_before = len(interpreter.errors)
    block = ScriptBlock(function.node, function.text)
    interpreter.invoke_block(block, scope, out, named=named, positional=positional, pipeline_input=input_items,
                             name=function.name)
    return _redirect(interpreter, out, interpreter.errors[errors_before:], redirections, errors_before)


def _binding_error(error, command):
    return PSError(error.message, 'System.Management.Automation.ParameterBindingException',
                   '%s,%s' % (error.error_id, command), 'InvalidArgument')


def _validate_sets(spec, params):
    """A string parameter with a ValidateSet (the values its reference page accepts) takes only those values, in any
    case (ValidateSetAttribute ignores case by default); an enum-typed one is converted by the cmdlet's own model.
    The message is Windows PowerShell 5.1's (ParameterBinderStrings ParameterArgumentValidationError with
    Metadata ValidateSetFailure)."""
    for name, value in params.items():
        param = spec.parameter(name)
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
                              'ParameterArgumentValidationError,%s' % spec.name, 'InvalidData')


def _short_type(value):
    name = type_name(value)
    return None if name is None else name.rsplit('.', 1)[-1]


def _invoke_cmdlet(interpreter, cmdlet, node, scope, input_items, piped):
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
        # Under -WhatIf the cmdlet does not act and writes nothing (the module docstring says what is not modelled).
        return _redirect(interpreter, [], [], redirections)
    errors_before = len(interpreter.errors)
    recorded_before = len(interpreter.error_list)
    try:
        out = list(cmdlet.function(ctx, params, input_items if piped else None))
    except PSError as error:
        name_activity(error, cmdlet)
        if getattr(error, 'invocation', None) is None:
            error.invocation = ctx.invocation
        raise
    finally:
        if error_variable is not None:
            # -ErrorVariable holds this command's error records, whatever -ErrorAction did with them.
            written = list(reversed(interpreter.error_list[:len(interpreter.error_list) - recorded_before]))
            interpreter.assign(scope, to_string(error_variable).lstrip('+'), ArrayList(written))
    return _redirect(interpreter, out, interpreter.errors[errors_before:], redirections, errors_before)


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
