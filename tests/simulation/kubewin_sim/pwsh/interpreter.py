"""Evaluates a parsed script with Windows PowerShell 5.1 semantics.

The rules that make 5.1 surprising are the ones this file exists for, each from the about_ topic
named next to it (MicrosoftDocs/PowerShell-Docs, reference/5.1):
- every statement writes to the success pipeline; a collection written there is unrolled one level,
  and a command that wrote nothing yields AutomationNull (about_Return, about_Pipelines,
  about_Operators: @() and the comma operator);
- statement-terminating errors (a cmdlet's, a .NET method's, a failed conversion) end only their
  statement unless a try block encloses them or $ErrorActionPreference is Stop; `throw` ends the
  script (about_Throw, about_Try_Catch_Finally, about_Preference_Variables);
- variables are dynamically scoped: a function reads its callers' variables and writes its own
  (about_Scopes).
Anything not implemented raises Unsupported, naming the construct and its line.
"""

import decimal
import re

from . import operators as ops
from . import types as pstypes
from .dotnet import Version
from .members import get_member, invoke_method, invoke_static, set_member
from .pipeline import Stage, StageOutput, StopUpstream, ValuesStage, run_pipeline
from .streams import Streams
from .syntax import parse
from .values import (AUTOMATION_NULL, ArrayList, Hashtable, OrderedDictionary, PSArray, PSCustomObject,
                     PSError, PSObjectCollection, PSReference, ScriptBlock, Unsupported, enumerate_value, is_enumerable,
                     is_null, parse_number, to_bool, to_string, type_name)


# --- control flow ---------------------------------------------------------------------------------------------

class Flow(Exception):
    """break, continue, return and exit travel as exceptions through the evaluator."""


class Break(Flow):
    pass


class Continue(Flow):
    pass


class Return(Flow):
    pass


class Exit(Flow):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


class ErrorRecord:
    """System.Management.Automation.ErrorRecord: what $_ is in a catch block and what $Error holds."""

    NET = 'System.Management.Automation.ErrorRecord'

    def __init__(self, error, line=None, script_terminating=False):
        self.error = error
        self.line = line
        self.script_terminating = script_terminating
        self.Exception = ExceptionObject(error)
        self.FullyQualifiedErrorId = error.error_id
        self.TargetObject = error.target
        self.CategoryInfo = CategoryInfo(error)
        self.ScriptStackTrace = 'at <ScriptBlock>, <No file>: line %s' % (line or 1)
        # A cmdlet's call (pwsh/invocation.py) when a cmdlet wrote or threw the error; not kept for other errors.
        self.InvocationInfo = getattr(error, 'invocation', None)
        self.ErrorDetails = None

    def to_string(self):
        return self.error.message


# $PID (about_Automatic_Variables): the Id of the PowerShell process the session runs in; the Windows model lists that
# process (windows/processes.py), so Get-Process -Id $PID finds it.
SESSION_PROCESS_ID = 6100

# The Python errors a model of Windows or .NET raises when it meets arguments it was not written for: where they come
# out of a method or cmdlet, the engine reports the call as Unsupported (an overload or value it does not model).
MODEL_FAILURES = (TypeError, ValueError, LookupError, AttributeError, ArithmeticError, re.error)

# $MaximumErrorCount's default (about_Preference_Variables).
MAXIMUM_ERROR_COUNT = 256

# How many loop iterations and script block invocations one run may take (Interpreter.tick).
STEP_BUDGET = 1000000


class InternalHost:
    """$Host (about_Automatic_Variables): System.Management.Automation.Internal.Host.InternalHost, which wraps the host
    the runspace runs in. Each of its members answers for that host (under win_powershell a host of the module's own
    whose members forward to the host of its process: ansible.windows win_powershell.ps1, class
    Ansible.Windows.WinPowerShell.Host), which the engine does not model: the model implements none of the members
    its documented list (netmembers/windows.json) holds, so every one is Unsupported."""

    NET = 'System.Management.Automation.Internal.Host.InternalHost'


class CategoryInfo:
    """System.Management.Automation.ErrorCategoryInfo (ErrorPackage.cs, PowerShell/PowerShell 60b3b304f2): each part is
    what the writer of the record set (the error's ``activity``, ``reason``, ``target_name``, ``target_type``, as
    Write-Error's -Category* parameters set them), else derived: Activity the name of the command that wrote the
    record (commands.py sets it for a cmdlet's), Reason the exception's type name, TargetName the target's .NET
    ToString(), TargetType its type's Name. ToString is ErrorCategoryStrings' template with parts over 40 characters
    shortened to their first and last 15 (Ellipsize; not the Reason when it is the type name)."""

    NET = 'System.Management.Automation.ErrorCategoryInfo'

    def __init__(self, error):
        target = error.target
        self.Category = error.category
        self._reason_given = getattr(error, 'reason', None)
        self.Reason = self._reason_given or error.type_name.rsplit('.', 1)[-1]
        self.Activity = getattr(error, 'activity', None) or ''
        self.TargetName = getattr(error, 'target_name', None) or (
            '' if target is None else type_name(target) if isinstance(target, list) else to_string(target))
        self.TargetType = getattr(error, 'target_type', None) or (
            '' if target is None else type_name(target).rsplit('.', 1)[-1])

    @staticmethod
    def _ellipsize(text):
        return text if len(text) <= 40 else '%s...%s' % (text[:15], text[-15:])

    def to_string(self):
        label = 'Deadlock detected' if self.Category == 'DeadlockDetected' else self.Category
        reason = self._ellipsize(self.Reason) if self._reason_given else self.Reason
        return '%s: (%s:%s) [%s], %s' % (label, self._ellipsize(self.TargetName), self._ellipsize(self.TargetType),
                                         self._ellipsize(self.Activity), reason)


class ExceptionObject:
    """The .NET exception behind an error record (Message, GetType().FullName, InnerException)."""

    def __init__(self, error):
        self.error = error
        self.Message = error.message
        self.InnerException = ExceptionObject(error.inner) if error.inner is not None else None
        self.ErrorRecord = None
        for name, value in error.properties.items():
            setattr(self, name, value)

    @property
    def NET(self):  # pylint: disable=invalid-name
        return self.error.type_name

    def to_string(self):
        return '%s: %s' % (self.error.type_name, self.error.message)


# The .NET exception hierarchy a catch [Type] clause tests against.
EXCEPTION_BASES = {
    'System.Management.Automation.RuntimeException': 'System.SystemException',
    'System.Management.Automation.MethodInvocationException': 'System.Management.Automation.MethodException',
    'System.Management.Automation.MethodException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.ParameterBindingException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.PSInvalidCastException': 'System.InvalidCastException',
    'System.Management.Automation.ActionPreferenceStopException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.CommandNotFoundException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.ItemNotFoundException': 'System.Management.Automation.SessionStateException',
    'System.Management.Automation.SessionStateException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.ValidationMetadataException': 'System.Management.Automation.MetadataException',
    'System.Management.Automation.MetadataException': 'System.Management.Automation.RuntimeException',
    'Microsoft.PowerShell.Commands.WriteErrorException': 'System.SystemException',
    'System.InvalidCastException': 'System.SystemException',
    'System.ArgumentNullException': 'System.ArgumentException',
    'System.ArgumentOutOfRangeException': 'System.ArgumentException',
    'System.ArgumentException': 'System.SystemException',
    'System.FormatException': 'System.SystemException',
    'System.InvalidOperationException': 'System.SystemException',
    'System.IO.FileNotFoundException': 'System.IO.IOException',
    'System.IO.DirectoryNotFoundException': 'System.IO.IOException',
    'System.IO.IOException': 'System.SystemException',
    'System.UnauthorizedAccessException': 'System.SystemException',
    'System.Net.WebException': 'System.InvalidOperationException',
    'System.ComponentModel.Win32Exception': 'System.Runtime.InteropServices.ExternalException',
    'System.Runtime.InteropServices.ExternalException': 'System.SystemException',
    'System.TimeoutException': 'System.SystemException',
    'System.SystemException': 'System.Exception',
}


def exception_is(type_name, wanted):
    wanted = wanted.lower()
    current = type_name
    while current:
        if current.lower() in (wanted, 'system.' + wanted):
            return True
        current = EXCEPTION_BASES.get(current, 'System.Exception' if current != 'System.Exception' else None)
    return False


class ScriptTerminating(Exception):
    """An error that ends the script unless a catch takes it (throw, or an error under -ErrorAction Stop)."""

    def __init__(self, record):
        super().__init__(record.error.message)
        self.record = record


class Scope:
    __slots__ = ('vars', 'parent', 'script', 'types')

    def __init__(self, parent=None, script=None):
        self.vars = {}
        # Type-constrained variables ([int]$x = ..., typed parameters): later assignments convert (about_Variables).
        self.types = {}
        self.parent = parent
        self.script = script or self


_UNSET = object()

_BUILTIN = {'true': True, 'false': False, 'null': None}


class Function:
    def __init__(self, name, node, text):
        self.name = name
        self.node = node
        self.text = text


# A script's named blocks (about_Functions_Advanced_Methods; about_Scripts: a script may have begin, process and end
# blocks as a function does).
_BLOCK_NAMES = ('begin', 'process', 'end', 'dynamicparam')


def _refuse_misread_named_block(statements):
    """A script whose body starts with `process { ... }` (or begin, end, dynamicparam) has named blocks for
    PowerShell's parser; the tree-sitter grammar reads them as a command of that name with a script block argument.
    Running that as a command would guess: refused."""
    first = statements.named_children[0] if statements is not None and statements.named_children else None
    chain = first.child('pipeline_chain') if first is not None and first.type == 'pipeline' else None
    command = chain.child('command') if chain is not None else None
    name = command.child('command_name') if command is not None else None
    if name is not None and name.text.lower() in _BLOCK_NAMES:
        raise Unsupported('named blocks (%s { }) at the top of a script: the grammar reads them as a command'
                          % name.text, first.line)


class BlockRun(Stage):  # pylint: disable=too-many-instance-attributes
    """A script block (function, `& {}`, script) invoked as a command (about_Functions "Piping Objects to
    Functions", about_Functions_Advanced_Methods): its begin block once, its process block once per piped object
    (once when nothing is piped), its end block once. A body without named blocks is the end block: it sees every
    piped object in $input. Pipeline parameters are bound from each object (binding.PipelineBinding). `return` ends
    the block it is in: in a process block, the processing of that object only (about_Return)."""

    def __init__(self, interpreter, block, scope, named, positional, new_scope, dollar_under, is_script, name,  # pylint: disable=too-many-arguments
                 piped):
        super().__init__()
        self.interpreter = interpreter
        node = block.node
        if node.type == 'program':
            self.param_block = node.child('param_block')
            body = node.child('statement_list')
            _refuse_misread_named_block(body)
        else:
            script_block = node if node.type == 'script_block' else node.child('script_block')
            self.param_block = (node.child('param_block') or node.child('function_parameter_declaration')
                                or (script_block.child('param_block') if script_block else None))
            body = script_block.child('script_block_body') if script_block is not None else None
        self.blocks = None
        self.statements = None
        if body is not None:
            named_blocks = body.child('named_block_list')
            if named_blocks is not None:
                self.blocks = {child.child('block_name').text.lower(): child.child('statement_block')
                               for child in named_blocks.all('named_block')}
            else:
                self.statements = body.child('statement_list') if body.type != 'statement_list' else body
        self.scope = Scope(scope, scope.script if not is_script else None) if new_scope else scope
        if is_script and not new_scope:
            self.scope.script = self.scope
        self.dollar_under = dollar_under
        self.named = dict(named or {})
        self.positional = list(positional)
        self.name = name or 'script'
        self.piped = piped
        self.input = []
        self.binding = None
        self.out = StageOutput(self)

    def __repr__(self):
        return self.name

    def begin(self):
        from .binding import PipelineBinding, bind_script_parameters  # pylint: disable=import-outside-toplevel
        self.interpreter.tick()
        scope = self.scope
        if self.dollar_under is not _UNSET:
            scope.vars['_'] = self.dollar_under
            scope.vars['psitem'] = self.dollar_under
        bind_script_parameters(self.interpreter, self.param_block, scope, self.named, self.positional, self.name,
                               piped=self.piped)
        if self.piped:
            self.binding = PipelineBinding(self.interpreter, self.param_block, scope, self.name)
        scope.vars['input'] = PSArray()
        if self.blocks is not None and 'begin' in self.blocks:
            self._run(self.interpreter.exec_block, self.blocks['begin'])

    def process(self, item):
        self.received += 1
        self.interpreter.tick()
        if self.binding is not None and not self.binding.bind(item):
            return
        if self.blocks is not None and 'process' in self.blocks:
            self.scope.vars['_'] = item
            self.scope.vars['psitem'] = item
            self.scope.vars['input'] = PSArray([item])
            self._run(self.interpreter.exec_block, self.blocks['process'])
        else:
            self.input.append(item)

    def process_first(self):
        if self.blocks is not None and 'process' in self.blocks:
            if self.dollar_under is _UNSET:
                self.scope.vars['_'] = None
                self.scope.vars['psitem'] = None
            self._run(self.interpreter.exec_block, self.blocks['process'])

    def end(self):
        self.scope.vars['input'] = PSArray(self.input)
        if self.blocks is not None:
            if 'end' in self.blocks:
                self._run(self.interpreter.exec_block, self.blocks['end'])
        elif self.statements is not None:
            self._run(self.interpreter.exec_statements, self.statements)

    def _run(self, execute, node):
        try:
            execute(node, self.scope, self.out)
        except Return:
            pass
        except ScriptTerminating as terminating:
            if not terminating.record.script_terminating and self.interpreter.is_advanced(self.param_block, self.scope):
                # An advanced function reports an error that -ErrorAction/$ErrorActionPreference Stop made
                # terminating through $PSCmdlet: for its caller it ends the calling statement only
                # (PowerShell-Docs issue 1583, "Our Error Handling, Ourselves").
                raise terminating.record.error from None
            raise


class Interpreter:
    """One runspace: global scope, functions, commands (cmdlets and programs) and streams."""

    def __init__(self, commands=None, host=None):
        self.commands = commands or {}
        self.host = host
        self.global_scope = Scope()
        self.functions = {}
        self.session_types = {}  # Add-Type's types: lower-case full name -> NetType
        self.errors = []  # the error stream: ErrorRecord
        self.streams = Streams()  # warning, verbose, debug, information and the host's output
        self.try_depth = 0
        # Loop iterations and script block invocations so far, and how many a run may take (tick).
        self.steps = 0
        self.step_budget = STEP_BUDGET
        self.failures = 0
        self.error_list = ArrayList()
        self.environment = {}
        self.static_values = {}
        if host is not None and hasattr(host, 'environment'):
            self.environment.update(host.environment())
        g = self.global_scope.vars
        g['erroractionpreference'] = 'Continue'
        g['warningpreference'] = 'Continue'
        g['verbosepreference'] = 'SilentlyContinue'
        # about_Preference_Variables (reference/5.1): the defaults of $DebugPreference and $InformationPreference.
        g['debugpreference'] = 'SilentlyContinue'
        g['informationpreference'] = 'SilentlyContinue'
        g['whatifpreference'] = False
        g['confirmpreference'] = 'High'
        g['error'] = self.error_list
        g['lastexitcode'] = None
        g['?'] = True
        g['pid'] = SESSION_PROCESS_ID
        g['host'] = InternalHost()
        g['psversiontable'] = Hashtable([('PSVersion', Version('5.1.20348.2582')), ('PSEdition', 'Desktop'),
                                         ('CLRVersion', Version('4.0.30319.42000'))])

    def tick(self):
        """One loop iteration or script block invocation. A run that takes more than ``step_budget`` is Unsupported:
        the engine's bound on a run, so a loop that never ends fails its test instead of hanging it."""
        self.steps += 1
        if self.steps > self.step_budget:
            raise Unsupported('a run longer than %d loop iterations and script block invocations (the engine\'s bound)'
                              % self.step_budget)

    # --- variables ------------------------------------------------------------------------------------

    def lookup(self, scope, name):
        key = name.lower()
        if key in _BUILTIN:
            return _BUILTIN[key]
        prefix, _colon, rest = key.partition(':')
        if rest:
            if prefix == 'env':
                return self.environment.get(rest.upper(), self.environment.get(rest, None)) \
                    if rest.upper() not in self.environment else self.environment[rest.upper()]
            if prefix == 'script':
                return scope.script.vars.get(rest)
            if prefix == 'global':
                return self.global_scope.vars.get(rest)
            if prefix in ('local', 'private'):
                return scope.vars.get(rest)
            if prefix == 'function':
                return self.functions.get(rest)
            raise Unsupported('variable scope %s:' % prefix)
        current = scope
        while current is not None:
            if key in current.vars:
                return current.vars[key]
            current = current.parent
        return None

    def assign(self, scope, name, value):
        key = name.lower()
        if key in _BUILTIN:
            if key == 'null':
                return
            raise PSError('Cannot overwrite variable %s because it is read-only or constant.' % name,
                          'System.Management.Automation.SessionStateUnauthorizedAccessException', 'VariableNotWritable')
        prefix, _colon, rest = key.partition(':')
        if rest:
            if prefix == 'env':
                self.environment[rest.upper()] = None if is_null(value) else to_string(value)
                return
            target = {'script': scope.script, 'global': self.global_scope, 'local': scope,
                      'private': scope}.get(prefix)
            if target is None:
                raise Unsupported('variable scope %s:' % prefix)
            target.vars[rest] = target.types[rest].convert(value) if rest in target.types else value
            return
        scope.vars[key] = scope.types[key].convert(value) if key in scope.types else value

    # --- running -------------------------------------------------------------------------------------------

    def run(self, text, parameters=None, scope=None, out=None):
        """Run ``text`` as a script; return its success-stream output (``out``, a list, if given)."""
        program = parse(text)
        scope = scope or Scope(self.global_scope)
        out = [] if out is None else out
        root = program.root
        block = ScriptBlock(root, text)
        token = pstypes.SESSION_TYPES.set(self.session_types)
        try:
            self.invoke_block(block, scope, out, named=parameters or {}, positional=[], new_scope=False,
                              is_script=True)
        finally:
            pstypes.SESSION_TYPES.reset(token)
        return out

    def invoke_block(self, block, scope, out, named=None, positional=(), pipeline_input=None, new_scope=True,
                     dollar_under=_UNSET, is_script=False, name=None):
        """Invoke a script block (a function body, `& {}`, a script) with bound arguments, ``pipeline_input`` (a list)
        piped to it."""
        run = BlockRun(self, block, scope, named, positional, new_scope, dollar_under, is_script, name,
                       piped=pipeline_input is not None)
        run.emit = out.append
        run.begin()
        if pipeline_input is None:
            run.process_first()
        else:
            for item in pipeline_input:
                run.process(item)
        run.end()

    def block_stage(self, block, scope, named, positional, piped, new_scope=True, name=None, is_script=False):  # pylint: disable=too-many-arguments
        """A script block, function or script file (``is_script``: a script scope of its own) as a command of a
        pipeline (pipeline.py)."""
        return BlockRun(self, block, scope, named, positional, new_scope, _UNSET, is_script, name, piped)

    def is_advanced(self, param_block, scope):
        from .binding import signature  # pylint: disable=import-outside-toplevel
        return param_block is not None and signature(self, param_block, scope).advanced

    # --- statements ----------------------------------------------------------------------------------------

    def exec_block(self, block, scope, out):
        """A statement_block ({ ... })."""
        statements = block.child('statement_list')
        if statements is not None:
            self.exec_statements(statements, scope, out)

    def exec_statements(self, statements, scope, out):
        traps = statements.all('trap_statement')
        for statement in statements.children:
            if not statement.named or statement.type in ('comment', 'empty_statement', 'param_block', 'trap_statement'):
                continue
            failures = self.failures
            try:
                try:
                    self.exec_statement(statement, scope, out)
                except PSError as error:
                    if not traps:
                        self.statement_error(error, statement.line, scope)
                        continue
                    raise ScriptTerminating(ErrorRecord(error, statement.line)) from None
            except ScriptTerminating as terminating:
                if not traps:
                    raise
                self.run_trap(traps, terminating.record, scope, out)
                continue
            if self.failures == failures and statement.type == 'pipeline':
                # $? is True after a pipeline that wrote no error (about_Automatic_Variables: $?).
                self.global_scope.vars['?'] = True

    def run_trap(self, traps, record, scope, out):
        """A trap of this scope handles a terminating error (about_Trap): continue resumes at the next
        statement silently, break passes the error on, and falling off the end writes it and resumes."""
        handler = None
        for trap in traps:
            literal = trap.child('type_literal')
            if literal is None or exception_is(record.error.type_name, literal.child('type_spec').text):
                handler = trap
                break
        if handler is None:
            raise ScriptTerminating(record)
        trap_scope = Scope(scope, scope.script)
        trap_scope.vars['_'] = record
        trap_scope.vars['psitem'] = record
        try:
            self.exec_block(handler.child('statement_block'), trap_scope, out)
        except Continue:
            return
        except Break:
            raise ScriptTerminating(record) from None
        self.record_error(record)
        self.errors.append(record)

    def record_error(self, record):
        """$Error: the newest record first, at most $MaximumErrorCount (256) of them (about_Preference_Variables,
        about_Automatic_Variables)."""
        self.error_list.insert(0, record)
        del self.error_list[MAXIMUM_ERROR_COUNT:]

    def statement_error(self, error, line, scope):
        """A statement-terminating error: ends the statement only, unless a try encloses it or Stop is in force."""
        record = ErrorRecord(error, line)
        preference = to_string(self.lookup(scope, 'ErrorActionPreference')).lower()
        if self.try_depth > 0 or preference == 'stop':
            raise ScriptTerminating(record)
        self.write_error(record, scope, preference)

    def write_error(self, record, scope, preference=None):
        """Write a non-terminating error with the preference in force (about_Preference_Variables)."""
        preference = (preference or to_string(self.lookup(scope, 'ErrorActionPreference'))).lower()
        self.failures += 1
        self.global_scope.vars['?'] = False
        if preference == 'ignore':
            return
        self.record_error(record)
        if preference == 'stop':
            raise ScriptTerminating(record)
        if preference == 'silentlycontinue':
            return
        self.errors.append(record)

    def exec_statement(self, node, scope, out):
        kind = node.type
        handler = getattr(self, 'stmt_' + kind, None)
        if handler is None:
            raise Unsupported('statement %s' % kind, node.line)
        handler(node, scope, out)

    def stmt_pipeline(self, node, scope, out):
        self.eval_pipeline(node, scope, out)

    def stmt_function_statement(self, node, scope, _out):
        name = node.child('function_name').text.strip()
        self.functions[name.lower()] = Function(name, node, node.text)

    def stmt_if_statement(self, node, scope, out):
        if to_bool(self.eval_condition(node.fields['condition'], scope)):
            self.exec_block(node.child('statement_block'), scope, out)
            return
        elseifs = node.child('elseif_clauses')
        for clause in (elseifs.all('elseif_clause') if elseifs else []):
            if to_bool(self.eval_condition(clause.fields['condition'], scope)):
                self.exec_block(clause.child('statement_block'), scope, out)
                return
        otherwise = node.child('else_clause')
        if otherwise is not None:
            self.exec_block(otherwise.child('statement_block'), scope, out)

    def eval_condition(self, node, scope):
        """A condition in if/while: a pipeline whose output counts as one value."""
        return collect(self.eval_pipeline(node, scope))

    def stmt_foreach_statement(self, node, scope, out):
        variable = node.child('variable').text[1:]
        source = self.eval_value(node.child('pipeline'), scope)
        # foreach over $null runs no iteration (about_Foreach, PowerShell 3.0 and later).
        items = [] if is_null(source) else (enumerate_value(source) if is_enumerable(source) else [source])
        body = node.child('statement_block')
        for item in items:
            self.tick()
            self.assign(scope, variable, item)
            try:
                self.exec_block(body, scope, out)
            except Break:
                break
            except Continue:
                continue

    def stmt_for_statement(self, node, scope, out):
        init, cond, step = node.fields.get('for_initializer'), node.fields.get('for_condition'), node.fields.get(
            'for_iterator')
        if init is not None:
            self.eval_pipeline(init.child('pipeline'), scope)
        body = node.child('statement_block')
        while cond is None or to_bool(self.eval_condition(cond.child('pipeline'), scope)):
            self.tick()
            try:
                self.exec_block(body, scope, out)
            except Break:
                break
            except Continue:
                pass
            if step is not None:
                self.eval_pipeline(step.child('pipeline'), scope)

    def stmt_while_statement(self, node, scope, out):
        condition = node.child('while_condition').child('pipeline')
        body = node.child('statement_block')
        while to_bool(self.eval_condition(condition, scope)):
            self.tick()
            try:
                self.exec_block(body, scope, out)
            except Break:
                break
            except Continue:
                continue

    def stmt_do_statement(self, node, scope, out):
        body = node.child('statement_block')
        until = any(not child.named and child.type == 'until' for child in node.children)
        condition_node = node.child('while_condition') or node.fields.get('condition')
        condition = condition_node.child('pipeline')
        while True:
            self.tick()
            try:
                self.exec_block(body, scope, out)
            except Break:
                break
            except Continue:
                pass
            value = to_bool(self.eval_condition(condition, scope))
            if value == until:
                break

    def stmt_flow_control_statement(self, node, scope, out):
        keyword = node.children[0].type.lower()
        argument = node.child('pipeline')
        if keyword == 'return':
            if argument is not None:
                self.eval_pipeline(argument, scope, out)
            raise Return()
        if keyword == 'break':
            raise Break()
        if keyword == 'continue':
            raise Continue()
        if keyword == 'exit':
            code = 0 if argument is None else collect(self.eval_pipeline(argument, scope))
            raise Exit(int(pstypes.INT32.convert(code)) if not is_null(code) else 0)
        if keyword == 'throw':
            if argument is None and isinstance(self.lookup(scope, '_'), ErrorRecord):
                # A bare throw in a catch block rethrows the error being handled (about_Throw).
                raise ScriptTerminating(self.lookup(scope, '_'))
            value = None if argument is None else collect(self.eval_pipeline(argument, scope))
            record = self.throw_record(value, node.line)
            preference = to_string(self.lookup(scope, 'ErrorActionPreference')).lower()
            if self.try_depth == 0 and preference in ('silentlycontinue', 'ignore'):
                # Windows PowerShell lets $ErrorActionPreference silence even throw outside try
                # (PowerShell/PowerShell-Docs issue 1583, "Our Error Handling, Ourselves").
                if preference == 'silentlycontinue':
                    self.record_error(record)
                self.global_scope.vars['?'] = False
                return
            raise ScriptTerminating(record)
        raise Unsupported('flow control %s' % keyword, node.line)

    def throw_record(self, value, line):
        """What `throw X` throws (about_Throw; ExceptionHandlingOps.ConvertToException in System.Management.Automation):
        an error record or exception is thrown as it is (a .NET exception with an error record whose error id is its
        message); any other value, a string included, becomes a RuntimeException with the value's [string] as message
        and error id, an inner RuntimeException of the same message, the value as TargetObject, category
        OperationStopped; no value is the message ScriptHalted."""
        if isinstance(value, ErrorRecord):
            return ErrorRecord(value.error, line, script_terminating=True)
        if isinstance(value, ExceptionObject):
            return ErrorRecord(value.error, line, script_terminating=True)
        if getattr(value, 'Message', None) is not None and type(value).__name__ == 'ExceptionValue':
            message = to_string(value.Message)
            return ErrorRecord(PSError(message, value.NET, message, 'OperationStopped'), line, script_terminating=True)
        text = 'ScriptHalted' if is_null(value) else to_string(value)
        error = PSError(text, error_id=text, category='OperationStopped', inner=PSError(text),
                        target=None if is_null(value) else value)
        return ErrorRecord(error, line, script_terminating=True)

    def stmt_try_statement(self, node, scope, out):
        clauses = node.child('catch_clauses')
        catches = clauses.all('catch_clause') if clauses else []
        final = node.child('finally_clause')
        self.try_depth += 1
        try:
            try:
                self.exec_block(node.child('statement_block'), scope, out)
            finally:
                self.try_depth -= 1
        except ScriptTerminating as terminating:
            record = terminating.record
            handler = self._matching_catch(catches, record)
            if handler is None:
                self._run_finally(final, scope, out)
                raise
            previous = scope.vars.get('_', _UNSET)
            scope.vars['_'] = record
            scope.vars['psitem'] = record
            if record not in self.error_list:
                self.record_error(record)
            try:
                self.exec_block(handler.child('statement_block'), scope, out)
            finally:
                if previous is _UNSET:
                    scope.vars.pop('_', None)
                else:
                    scope.vars['_'] = previous
                    scope.vars['psitem'] = previous
                self._run_finally(final, scope, out)
            return
        except (Flow, StopUpstream):
            self._run_finally(final, scope, out)
            raise
        self._run_finally(final, scope, out)

    def _run_finally(self, final, scope, out):
        if final is not None:
            self.exec_block(final.child('statement_block'), scope, out)

    def _matching_catch(self, catches, record):
        for clause in catches:
            type_list = clause.child('catch_type_list')
            if type_list is None:
                return clause
            for literal in type_list.all('type_literal'):
                wanted = literal.child('type_spec').text
                if exception_is(record.error.type_name, wanted):
                    return clause
        return None

    def stmt_switch_statement(self, node, scope, out):
        options = {child.text.lower().lstrip('-') for child in
                   (node.child('switch_parameters').all('switch_parameter') if node.child('switch_parameters') else [])}
        for option in options:
            if option not in ('regex', 'wildcard', 'exact', 'casesensitive'):
                raise Unsupported('switch -%s' % option, node.line)
        value = self.eval_value(node.child('switch_condition').child('pipeline'), scope)
        items = [] if value is AUTOMATION_NULL else (enumerate_value(value) if is_enumerable(value) else [value])
        clauses = node.child('switch_body').child('switch_clauses')
        clauses = clauses.all('switch_clause') if clauses else []
        cs = 'casesensitive' in options
        for item in items:
            matched = False
            try:
                for clause in clauses:
                    condition = clause.child('switch_clause_condition')
                    if condition.text.lower() == 'default':
                        continue
                    if self._switch_matches(condition, item, options, cs, scope):
                        matched = True
                        self._switch_body(clause, item, scope, out)
                if not matched:
                    for clause in clauses:
                        if clause.child('switch_clause_condition').text.lower() == 'default':
                            self._switch_body(clause, item, scope, out)
            except Break:
                break
            except Continue:
                continue

    def _switch_matches(self, condition, item, options, cs, scope):
        inner = condition.named_children[0] if condition.named_children else None
        if inner is not None and inner.type == 'script_block_expression':
            block = ScriptBlock(inner, inner.text)
            result = []
            self.invoke_block(block, scope, result, dollar_under=item)
            return to_bool(collect(result))
        pattern = self.eval_expression(inner, scope) if inner is not None and inner.type != 'generic_token' \
            else condition.text
        if 'regex' in options:
            state = {}
            found = ops.comparison('-cmatch' if cs else '-match', to_string(item), pattern, state)
            if found and 'matches' in state:
                scope.vars['matches'] = state['matches']
            return found
        if 'wildcard' in options:
            return ops.comparison('-clike' if cs else '-like', to_string(item), pattern)
        if is_null(pattern) or is_null(item):
            return is_null(pattern) and is_null(item)
        return ops.equals(item, pattern, cs) if not isinstance(item, str) else ops.equals(item, to_string(pattern), cs)

    def _switch_body(self, clause, item, scope, out):
        previous = scope.vars.get('_', _UNSET)
        scope.vars['_'] = item
        scope.vars['psitem'] = item
        try:
            self.exec_block(clause.child('statement_block'), scope, out)
        finally:
            if previous is not _UNSET:
                scope.vars['_'] = previous
                scope.vars['psitem'] = previous

    def stmt_class_statement(self, node, _scope, _out):
        raise Unsupported('class', node.line)

    # --- pipelines -------------------------------------------------------------------------------------------

    def eval_pipeline(self, node, scope, out=None):
        """Run a pipeline node, writing its success output to ``out`` as it comes (pipeline.py); return ``out``
        (a new list when None)."""
        out = [] if out is None else out
        if node.type == 'pipeline':
            inner = node.named_children
            if len(inner) != 1:
                raise Unsupported('pipeline with %d parts' % len(inner), node.line)
            node = inner[0]
        if node.type == 'assignment_expression':
            self.eval_assignment(node, scope)
            return out
        if node.type == 'pipeline_chain':
            return self.eval_chain(node, scope, out)
        for item in emit_list(self.eval_expression(node, scope)):
            out.append(item)
        return out

    def eval_chain(self, node, scope, out):
        elements = [child for child in node.children if child.named and child.type != 'comment']
        if any(not child.named and child.type in ('&&', '||') for child in node.children):
            raise Unsupported('pipeline chain operators && and || (PowerShell 7)', node.line)
        if len(elements) == 1 and _is_step(elements[0]):
            # $i++ and ++$i as a statement write nothing (about_Assignment_Operators).
            self.eval_expression(elements[0], scope)
            return out
        if len(elements) == 1 and elements[0].type != 'command':
            for item in emit_list(self.eval_expression(elements[0], scope)):
                out.append(item)
            return out
        from .commands import command_stage  # pylint: disable=import-outside-toplevel
        stages = []
        for index, element in enumerate(elements):
            if element.type == 'command':
                stages.append(command_stage(self, element, scope, index > 0))
            else:
                if index > 0:
                    raise PSError('Expressions are only allowed as the first element of a pipeline.',
                                  error_id='ExpressionsMustBeFirstInPipeline')
                stages.append(ValuesStage(emit_list(self.eval_expression(element, scope))))
        return run_pipeline(stages, out)

    def eval_value(self, node, scope):
        """A pipeline used as a value: an expression keeps its value; commands' output is collected."""
        if node.type == 'pipeline':
            inner = node.named_children
            if len(inner) == 1:
                node = inner[0]
        if node.type == 'pipeline_chain':
            elements = [child for child in node.children if child.named and child.type != 'comment']
            if len(elements) == 1 and elements[0].type != 'command':
                return self.eval_expression(elements[0], scope)
            return collect(self.eval_chain(node, scope, []))
        if node.type == 'assignment_expression':
            # ($x = 5) writes the assigned value (about_Assignment_Operators).
            self.eval_assignment(node, scope)
            target = self._strip_unary(node.child('left_assignment_expression').named_children[0])
            return self.eval_expression(target, scope)
        return self.eval_expression(node, scope)

    def run_command(self, node, scope, input_items, piped):
        from .commands import invoke_command  # pylint: disable=import-outside-toplevel
        return invoke_command(self, node, scope, input_items, piped)

    # --- assignment ------------------------------------------------------------------------------------------

    def eval_assignment(self, node, scope):
        target = node.child('left_assignment_expression')
        operator = node.child('assignment_operator').text
        value = self.eval_assignment_value(node.fields['value'], scope)
        targets = target.named_children
        if len(targets) == 1 and targets[0].type == 'unary_expression':
            targets = targets[0].named_children
        if len(targets) == 1 and targets[0].type == 'array_literal_expression':
            targets = list(targets[0].named_children)
            # $a, $b = 1, 2, 3: the last variable takes the rest (about_Assignment_Operators).
            items = enumerate_value(value) if is_enumerable(value) else [value]
            for index, item_target in enumerate(targets):
                if index == len(targets) - 1:
                    rest = items[index:]
                    part = rest[0] if len(rest) == 1 else (PSArray(rest) if rest else None)
                else:
                    part = items[index] if index < len(items) else None
                self.assign_to(self._strip_unary(item_target), part, scope)
            return
        lvalue = self._strip_unary(targets[0] if len(targets) == 1 else target)
        if operator not in ('=', '+=', '-=', '*=', '/=', '%='):
            raise Unsupported('assignment operator %s' % operator, node.line)
        if operator != '=':
            if lvalue.type == 'variable' and ':' not in variable_name(lvalue):
                # $x += 1 reads $x of the current scope only: a parent's $x is not seen (about_Scopes).
                current = scope.vars.get(variable_name(lvalue).lower())
            else:
                current = self.eval_expression(lvalue, scope)
            value = self.compound(operator[:-1], current, value)
        self.assign_to(lvalue, value, scope)

    @staticmethod
    def _strip_unary(node):
        while node.type in ('unary_expression', 'expression_with_unary_operator') and len(node.named_children) == 1 \
                and node.children[0].named:
            node = node.named_children[0]
        return node

    def compound(self, op, current, value):
        return {'+': ops.add, '-': ops.subtract, '*': ops.multiply, '/': ops.divide, '%': ops.modulo}[op](current, value)

    def eval_assignment_value(self, node, scope):
        inner = node
        if node.type == 'assignment_value':
            if len(node.named_children) != 1:
                raise Unsupported('assignment value', node.line)
            inner = node.named_children[0]
        if inner.type == 'pipeline_chain':
            return self.eval_value(inner, scope)
        if inner.type == 'assignment_expression':
            self.eval_assignment(inner, scope)
            # $a = $b = 1: the inner assignment's value passes on.
            return self.eval_expression(self._strip_unary(inner.child('left_assignment_expression').named_children[0]),
                                        scope)
        # A statement on the right (if, foreach, switch...): its output is collected.
        out = []
        self.exec_statement(inner, scope, out)
        return collect(out)

    def assign_to(self, target, value, scope):
        kind = target.type
        if kind == 'variable':
            self.assign(scope, variable_name(target), value)
        elif kind == 'member_access':
            obj = self.eval_expression(target.named_children[0], scope)
            if isinstance(obj, pstypes.NetType) and any(not child.named and child.type == '::' for child in target.children):
                # A static property set for this runspace's process ([Net.ServicePointManager]::SecurityProtocol).
                name = self.member_name(target, scope)
                if name not in obj.statics and name.lower() not in {key.lower() for key in obj.statics}:
                    set_member(obj, name, value)
                self.static_values[(obj.name.lower(), name.lower())] = value
                return
            name = self.member_name(target, scope)
            self.model_call(lambda: set_member(obj, name, value), 'setting %s.%s' % (type_name(obj), name), target.line)
        elif kind == 'element_access':
            obj = self.eval_expression(target.named_children[0], scope)
            index = self.eval_expression(target.named_children[1], scope)
            set_element(obj, index, value)
        elif kind == 'cast_expression':
            net_type = self.resolve_type(target.child('type_literal'))
            inner = self._strip_unary(target.named_children[-1])
            if inner.type == 'variable' and ':' not in variable_name(inner):
                scope.types.pop(variable_name(inner).lower(), None)
                self.assign(scope, variable_name(inner), net_type.convert(value))
                scope.types[variable_name(inner).lower()] = net_type
            else:
                self.assign_to(inner, net_type.convert(value), scope)
        else:
            raise Unsupported('assignment to %s' % kind, target.line)

    # --- expressions ---------------------------------------------------------------------------------------

    def eval_expression(self, node, scope):
        handler = getattr(self, 'ex_' + node.type, None)
        if handler is None:
            raise Unsupported('expression %s' % node.type, node.line)
        return handler(node, scope)

    def ex_unary_expression(self, node, scope):
        inner = node.named_children
        if len(inner) == 1:
            return self.eval_expression(inner[0], scope)
        raise Unsupported('unary expression %r' % node.text, node.line)

    def ex_parenthesized_expression(self, node, scope):
        inner = node.child('pipeline') or (node.named_children[0] if node.named_children else None)
        if inner is None:
            return AUTOMATION_NULL
        return self.eval_value(inner, scope)

    def ex_sub_expression(self, node, scope):
        statements = node.child('statement_list')
        out = []
        if statements is not None:
            self.exec_statements(statements, scope, out)
        return collect(out)

    def ex_array_expression(self, node, scope):
        statements = node.child('statement_list')
        out = []
        if statements is not None:
            self.exec_statements(statements, scope, out)
        return PSArray(out)

    def ex_array_literal_expression(self, node, scope):
        return PSArray(self.eval_expression(child, scope) for child in node.named_children)

    def ex_variable(self, node, scope):
        name = variable_name(node)
        if node.text.startswith('@'):
            raise Unsupported('splatting outside a command', node.line)
        return self.lookup(scope, name)

    def ex_integer_literal(self, node, _scope):
        number = parse_number(node.text)
        if number is None:
            text = node.text.lower()
            suffix = text[-1]
            if suffix == 'l':
                from .values import Int64  # pylint: disable=import-outside-toplevel
                return Int64(int(text[:-1], 0) if text.startswith('0x') else int(text[:-1]))
            if suffix == 'd':
                return decimal.Decimal(text[:-1])
            raise Unsupported('integer literal %s' % node.text, node.line)
        return number

    def ex_real_literal(self, node, _scope):
        text = node.text.lower()
        if text.endswith('d'):
            return decimal.Decimal(text[:-1])
        number = parse_number(text)
        if number is None:
            raise Unsupported('real literal %s' % node.text, node.line)
        return float(number) if not isinstance(number, float) and '.' in text or 'e' in text else number

    def ex_string_literal(self, node, scope):
        inner = node.named_children[0]
        return self.eval_expression(inner, scope)

    def ex_verbatim_string_characters(self, node, _scope):
        return node.text[1:-1].replace("''", "'").replace('\u2018\u2018', '\u2018')

    def ex_verbatim_here_string_characters(self, node, _scope):
        return here_body(node.text)

    def ex_expandable_string_literal(self, node, scope):
        return self.expand(node, scope, node.text[1:-1], node.start + 1, quote='"')

    def ex_expandable_here_string_literal(self, node, scope):
        text = node.text
        body_start = text.index('\n') + 1
        body_end = text.rindex('\n')
        if body_end < body_start:
            body_end = body_start
        body = text[body_start:body_end]
        if body.endswith('\r'):
            body = body[:-1]
        return self.expand(node, scope, body, node.start + len(text[:body_start].encode('utf-8')), quote=None)

    def expand(self, node, scope, body, body_start, quote):
        """String expansion (about_Quoting_Rules): $name and $(...) are replaced, backtick escapes apply."""
        pieces = []
        position = body_start
        source_bytes = node.text.encode('utf-8')
        for child in node.named_children:
            if child.type not in ('variable', 'sub_expression'):
                continue
            offset = child.start - node.start
            literal = source_bytes[position - node.start:offset].decode('utf-8')
            pieces.append(unescape(literal, quote))
            if child.type == 'variable':
                value = self.lookup(scope, variable_name(child))
            else:
                value = self.ex_sub_expression(child, scope)
            pieces.append(to_string(value, self.ofs(scope)))
            position = child.end
        end = body_start + len(body.encode('utf-8'))
        pieces.append(unescape(source_bytes[position - node.start:end - node.start].decode('utf-8'), quote))
        return ''.join(pieces)

    def ex_hash_literal_expression(self, node, scope):
        table = Hashtable()
        body = node.child('hash_literal_body')
        for entry in (body.all('hash_entry') if body else []):
            key_node = entry.child('key_expression')
            key_inner = key_node.named_children[0] if key_node.named_children else None
            if key_inner is None or key_inner.type == 'simple_name':
                key = key_node.text
            else:
                key = self.eval_expression(key_inner, scope)
            value_node = entry.named_children[-1]
            value = self.eval_statement_value(value_node, scope)
            # A duplicate key is a parse error in PowerShell; the grammar accepts it, so refuse it here.
            if isinstance(key, list):
                raise Unsupported('a hashtable key that is an array', entry.line)
            if key in table:
                raise PSError('Duplicate keys \'%s\' are not allowed in hash literals.' % key,
                              error_id='DuplicateKeyInHashLiteral')
            table[key] = value
        return table

    def eval_statement_value(self, node, scope):
        if node.type == 'pipeline':
            return self.eval_value(node, scope)
        if not node.type.endswith('_statement'):
            return self.eval_expression(node, scope)
        out = []
        self.exec_statement(node, scope, out)
        return collect(out)

    def ex_script_block_expression(self, node, _scope):
        return ScriptBlock(node, node.text[1:-1])

    def ex_cast_expression(self, node, scope):
        net_type = self.resolve_type(node.child('type_literal'))
        operand = node.named_children[-1]
        value = self.eval_expression(operand, scope)
        if net_type.name == 'System.Collections.Specialized.OrderedDictionary':
            if operand.type == 'unary_expression' and self._strip_unary(operand).type == 'hash_literal_expression':
                return OrderedDictionary(value.items())
            raise PSError('The ordered attribute can be specified only on a hash literal node.',
                          error_id='OrderedAttributeOnlyOnHashLiteralNode')
        if net_type.name == 'System.Management.Automation.PSCustomObject' and isinstance(value, Hashtable):
            return PSCustomObject(value.items())
        if net_type.name == 'System.Void':
            return AUTOMATION_NULL
        if net_type is pstypes.REF:
            target = self._strip_unary(operand)
            if target.type != 'variable':
                # [ref] of a value holds the value itself.
                holder = [value]
                return PSReference(lambda: holder[0], lambda new: holder.__setitem__(0, new))
            name = variable_name(target)
            return PSReference(lambda: self.lookup(scope, name), lambda new: self.assign(scope, name, new))
        if net_type.name == 'System.String' and is_enumerable(value):
            return to_string(value, self.ofs(scope))
        return self.model_call(lambda: net_type.convert(value), 'a cast to [%s]' % net_type.name, node.line)

    def ofs(self, scope):
        separator = self.lookup(scope, 'OFS')
        return ' ' if separator is None else to_string(separator)

    def resolve_type(self, literal):
        spec = literal.child('type_spec') if literal.type == 'type_literal' else literal
        name = spec.text
        found = self.host.type(name) if self.host is not None and hasattr(self.host, 'type') else None
        found = found or pstypes.resolve(name)
        if found is None:
            raise pstypes.type_not_found(name, self.host)
        return found

    def ex_type_literal(self, node, _scope):
        return self.resolve_type(node)

    def ex_expression_with_unary_operator(self, node, scope):
        first = node.children[0]
        if first.named:
            if first.type == 'cast_expression':
                return self.ex_cast_expression(first, scope)
            if first.type in ('pre_increment_expression', 'pre_decrement_expression'):
                return self.eval_expression(first, scope)
            raise Unsupported('unary %s' % first.type, node.line)
        operator = first.type.lower()
        operand = node.named_children[-1]
        if operator == ',':
            return PSArray([self.eval_expression(operand, scope)])
        value = self.eval_expression(operand, scope)
        if operator in ('-not', '!'):
            return not to_bool(value)
        if operator == '-':
            return ops.negate(value)
        if operator == '+':
            return value if not isinstance(value, str) else ops.add(0, value)
        if operator == '-split':
            return ops.unary_split(value)
        if operator == '-join':
            return ops.join(value)
        if operator == '-bnot':
            return ops.bitwise_not(value)
        # ++$x and --$x come as pre_increment/pre_decrement_expression children (handled above).
        raise Unsupported('unary operator %s' % operator, node.line)

    def ex_pre_increment_expression(self, node, scope):
        return self._step(node, scope, 1, post=False)

    def ex_pre_decrement_expression(self, node, scope):
        return self._step(node, scope, -1, post=False)

    def ex_post_increment_expression(self, node, scope):
        return self._step(node, scope, 1, post=True)

    def ex_post_decrement_expression(self, node, scope):
        return self._step(node, scope, -1, post=True)

    def _step(self, node, scope, delta, post):
        target = self._strip_unary(node.named_children[0])
        current = self.eval_expression(target, scope)
        new = ops.add(0 if is_null(current) else current, delta)
        self.assign_to(target, new, scope)
        # As a statement, $i++ writes nothing (eval_chain); inside an expression it is the old value.
        return current if post else new

    def ex_comparison_expression(self, node, scope):
        left_node, op_node, right_node = node.named_children[0], node.child('comparison_operator'), node.named_children[-1]
        left = self.eval_expression(left_node, scope)
        right = self.eval_expression(right_node, scope)
        state = {}
        result = ops.comparison(op_node.text, left, right, state)
        if 'matches' in state:
            self.assign(scope, 'Matches', state['matches'])
        return result

    def ex_type_comparison_expression(self, node, scope):
        left = self.eval_expression(node.named_children[0], scope)
        right = self.eval_expression(node.named_children[-1], scope)
        operator = [child.text for child in node.children if not child.named or child.type == 'type_operator'][0]
        return ops.comparison(operator, left, right)

    def ex_logical_expression(self, node, scope):
        left = self.eval_expression(node.named_children[0], scope)
        operator = [child for child in node.children if not child.named][0].type.lower().lstrip('-')
        return ops.logical(operator, left, lambda: self.eval_expression(node.named_children[-1], scope))

    def ex_bitwise_expression(self, node, scope):
        left = self.eval_expression(node.named_children[0], scope)
        right = self.eval_expression(node.named_children[-1], scope)
        operator = [child for child in node.children if not child.named][0].type.lower().lstrip('-')
        return ops.bitwise(operator, left, right)

    def ex_additive_expression(self, node, scope):
        left = self.eval_expression(node.named_children[0], scope)
        right = self.eval_expression(node.named_children[-1], scope)
        operator = [child for child in node.children if not child.named][0].type
        return ops.add(left, right) if operator == '+' else ops.subtract(left, right)

    ex_additive_argument_expression = ex_additive_expression

    def ex_multiplicative_expression(self, node, scope):
        left = self.eval_expression(node.named_children[0], scope)
        right = self.eval_expression(node.named_children[-1], scope)
        operator = [child for child in node.children if not child.named][0].type
        return {'*': ops.multiply, '/': ops.divide, '%': ops.modulo}[operator](left, right)

    ex_multiplicative_argument_expression = ex_multiplicative_expression

    def ex_format_expression(self, node, scope):
        left = self.eval_expression(node.named_children[0], scope)
        right = self.eval_expression(node.named_children[-1], scope)
        return ops.format_operator(left, right)

    def ex_range_expression(self, node, scope):
        start = pstypes.INT32.convert(self.eval_expression(node.named_children[0], scope))
        end = pstypes.INT32.convert(self.eval_expression(node.named_children[-1], scope))
        step = 1 if end >= start else -1
        ops.within_bound(abs(end - start) + 1, 'a range')
        return PSArray(range(start, end + step, step))

    ex_range_argument_expression = ex_range_expression

    def ex_member_access(self, node, scope):
        obj = self.eval_expression(node.named_children[0], scope)
        name = self.member_name(node, scope)
        if any(not child.named and child.type == '::' for child in node.children):
            if isinstance(obj, pstypes.NetType) and (obj.name.lower(), name.lower()) in self.static_values:
                return self.static_values[(obj.name.lower(), name.lower())]
            return self.model_call(lambda: invoke_static(obj, name, None), '[%s]::%s' % (type_name(obj), name), node.line)
        return self.model_call(lambda: get_member(obj, name), '%s.%s' % (type_name(obj), name), node.line)

    @staticmethod
    def model_call(call, what, line):
        """A member of a modelled value read, set or invoked; a Python error of its model is Unsupported (MODEL_FAILURES)."""
        try:
            return call()
        except MODEL_FAILURES as failure:
            raise Unsupported('%s (%s: %s)' % (what, type(failure).__name__, failure), line) from None

    def member_name(self, node, scope):
        member = node.child('member_name')
        inner = member.named_children[0] if member.named_children else None
        if inner is None or inner.type == 'simple_name':
            return member.text
        return to_string(self.eval_expression(inner, scope))

    def ex_invocation_expression(self, node, scope):
        target_node = node.named_children[0]
        if target_node.type in ('invocation_where_expression', 'invocation_foreach_expression'):
            return self.eval_expression(target_node, scope)
        return self.invoke_member(node, node.child('argument_list'), scope)

    def invoke_member(self, node, arguments_node, scope):
        """A method call: ``node`` the target and member (an invocation_expression, or a member_access followed by
        its argument_list, as the grammar splits ``$a.Trim()`` in a command's arguments)."""
        target = self.eval_expression(node.named_children[0], scope)
        name = self.member_name(node, scope)
        arguments = []
        listed = arguments_node.child('argument_expression_list') if arguments_node else None
        for argument in (listed.all('argument_expression') if listed else []):
            arguments.append(self.eval_expression(argument.named_children[0], scope))
        static = any(not child.named and child.type == '::' for child in node.children)
        # A model that cannot take these arguments lacks the overload or conversion: Unsupported (model_call).
        what = '%s%s%s with %d argument(s)' % (type_name(target) if not isinstance(target, pstypes.NetType)
                                               else '[%s]' % target.name, '::' if static else '.', name, len(arguments))
        if static:
            return self.model_call(lambda: invoke_static(target, name, arguments, interpreter=self, scope=scope), what,
                                   node.line)
        return self.model_call(lambda: invoke_method(target, name, arguments, interpreter=self, scope=scope), what,
                               node.line)

    def ex_invocation_where_expression(self, node, scope):
        return self._magic_method(node, scope, 'where')

    def ex_invocation_foreach_expression(self, node, scope):
        return self._magic_method(node, scope, 'foreach')

    def _magic_method(self, node, scope, kind):
        target = self.eval_expression(node.named_children[0], scope)
        items = [] if is_null(target) else (enumerate_value(target) if is_enumerable(target) else [target])
        listed = node.child('argument_list').child('argument_expression_list')
        arguments = [self.eval_expression(argument.named_children[0], scope) for argument in listed.all('argument_expression')]
        block = arguments[0]
        out = []
        for item in items:
            result = []
            self.invoke_block(block, scope, result, dollar_under=item)
            if kind == 'foreach':
                out.extend(result)
            elif to_bool(collect(result)):
                out.append(item)
        if kind == 'where' and len(arguments) > 1:
            mode = to_string(arguments[1]).lower()
            count = int(arguments[2]) if len(arguments) > 2 else 1
            if mode == 'first':
                out = out[:count]
            elif mode == 'last':
                out = out[-count:]
            else:
                raise Unsupported('.Where() mode %s' % mode, node.line)
        # Both return a collection, never unrolled to a scalar.
        return PSObjectCollection(out)

    def ex_argument_expression(self, node, scope):
        return self.eval_expression(node.named_children[0], scope)

    def ex_element_access(self, node, scope):
        obj = self.eval_expression(node.named_children[0], scope)
        index = self.eval_expression(node.named_children[1], scope)
        return get_element(obj, index)

    def ex_script_block(self, node, _scope):
        return ScriptBlock(node, node.text)

    def ex_pipeline(self, node, scope):
        return self.eval_value(node, scope)

    def ex_pipeline_chain(self, node, scope):
        return self.eval_value(node, scope)

    def ex_generic_token(self, node, _scope):
        return node.text

    def ex_command(self, node, scope):
        return collect(self.run_command(node, scope, None, False))


def _is_step(node):
    while node.type == 'unary_expression' and len(node.named_children) == 1:
        node = node.named_children[0]
    if node.type == 'expression_with_unary_operator' and node.named_children and \
            node.named_children[0].type in ('pre_increment_expression', 'pre_decrement_expression'):
        return True
    return node.type in ('post_increment_expression', 'post_decrement_expression', 'pre_increment_expression',
                         'pre_decrement_expression')


def variable_name(node):
    """The name of a $variable node: '$x' -> 'x', '${a b}' -> 'a b', '$script:x' -> 'script:x'."""
    text = node.text
    if text.startswith('${') or text.startswith('@{'):
        return text[2:-1]
    if text.startswith('$') or text.startswith('@'):
        return text[1:]
    return text


_ESCAPES = {'0': '\0', 'a': '\a', 'b': '\b', 'e': '\x1b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}


def unescape(text, quote):
    """Backtick escapes (about_Special_Characters) and doubled quotes in an expandable string."""
    out, index = [], 0
    while index < len(text):
        char = text[index]
        if char == '`' and index + 1 < len(text):
            nxt = text[index + 1]
            out.append(_ESCAPES.get(nxt, nxt))
            index += 2
            continue
        if quote and char == quote and index + 1 < len(text) and text[index + 1] == quote:
            out.append(quote)
            index += 2
            continue
        out.append(char)
        index += 1
    return ''.join(out)


def here_body(text):
    body_start = text.index('\n') + 1
    body_end = text.rindex('\n')
    body = text[body_start:body_end] if body_end >= body_start else ''
    return body[:-1] if body.endswith('\r') else body


def emit_list(value):
    """What writing ``value`` to the pipeline produces: a collection unrolled one level, AutomationNull nothing."""
    if value is AUTOMATION_NULL:
        return []
    if is_enumerable(value):
        return enumerate_value(value)
    return [value]


def collect(items):
    """Output used as a value: nothing -> AutomationNull, one object -> it, more -> object[]."""
    if not items:
        return AUTOMATION_NULL
    if len(items) == 1:
        return items[0]
    return PSArray(items)


def get_element(obj, index):
    if is_null(obj):
        raise PSError('Cannot index into a null array.', 'System.Management.Automation.RuntimeException', 'NullArray',
                      'InvalidOperation')
    if isinstance(obj, Hashtable):
        if is_enumerable(index):
            return PSArray(obj[key] for key in enumerate_value(index))
        if isinstance(obj, OrderedDictionary) and isinstance(index, int) and not isinstance(index, bool) \
                and index not in obj:
            # OrderedDictionary's Int32 indexer is by position.
            values = obj.values()
            return values[index] if 0 <= index < len(values) else None
        return obj[index]
    if isinstance(obj, (list, tuple, str)):
        if is_enumerable(index):
            return PSArray(get_element(obj, item) for item in enumerate_value(index))
        position = pstypes.INT32.convert(index)
        if -len(obj) <= position < len(obj):
            item = obj[position]
            if isinstance(obj, str):
                from .values import Char  # pylint: disable=import-outside-toplevel
                return Char(item)
            return item
        return None
    if hasattr(obj, 'get_item'):
        return obj.get_item(index)
    # Indexing a scalar: [0] is the object itself (PowerShell treats a scalar as a one-element collection).
    position = pstypes.INT32.convert(index)
    return obj if position in (0, -1) else None


def set_element(obj, index, value):
    if isinstance(obj, Hashtable):
        obj[index] = value
        return
    if isinstance(obj, list):
        position = pstypes.INT32.convert(index)
        if not -len(obj) <= position < len(obj):
            raise PSError('Index was outside the bounds of the array.', 'System.IndexOutOfRangeException',
                          'IndexOutOfRange')
        obj[position] = value
        return
    if hasattr(obj, 'set_item'):
        obj.set_item(index, value)
        return
    raise PSError('Unable to index into an object of type %s.' % type_name(obj), error_id='CannotIndex')
