"""Binding arguments to a script's or function's param() block (about_Functions_Advanced_Parameters,
about_Functions_CmdletBindingAttribute, about_Parameters, reference/5.1).

Names match case-insensitively, by alias or by an unambiguous prefix; the remaining arguments bind
by position in declaration order; a [switch] takes no value; each value is converted to the declared
type; Validate* attributes and Mandatory are checked (a missing mandatory parameter fails: the host
win_powershell runs in cannot prompt). An advanced function (CmdletBinding or a Parameter attribute)
takes the common parameters and refuses extra arguments; a simple one collects them in $args.
"""


from . import cmdlet_sets
from . import operators as ops
from .streams import write_record
from .values import (AUTOMATION_NULL, Hashtable, PSArray, PSError, SwitchParameter, Unsupported, enumerate_value,
                     is_enumerable, is_null, is_number, to_bool, to_string, type_name)

# The common parameters and their aliases, from the one table the cmdlet binder uses (about_CommonParameters).
COMMON = {key: name for name, alias, _type in cmdlet_sets.COMMON for key in (name.lower(), alias)}
SHOULD_PROCESS = {key: name for name, alias, _type in cmdlet_sets.SHOULD_PROCESS for key in (name.lower(), alias)}
COMMON_SWITCHES = {name for name, _alias, kind in cmdlet_sets.COMMON + cmdlet_sets.SHOULD_PROCESS
                   if kind == 'SwitchParameter'}


def binding_error(message, error_id, category='InvalidArgument'):
    return PSError(message, 'System.Management.Automation.ParameterBindingException', error_id, category)


_VALUE_TYPES = {'System.String', 'System.Int32', 'System.Int64', 'System.Int16', 'System.Byte', 'System.SByte',
                'System.UInt16', 'System.UInt32', 'System.UInt64', 'System.Double', 'System.Single', 'System.Decimal',
                'System.Boolean', 'System.Char'}


class ParamDecl:
    def __init__(self, name):
        self.name = name
        self.type = None
        self.default = None
        self.mandatory = False
        self.position = None
        self.aliases = []
        self.validate_set = None
        self.validate_pattern = None
        self.validate_range = None
        self.allow_empty_string = False
        self.allow_null = False
        self.from_pipeline = False
        self.from_pipeline_by_name = False
        self.not_null_or_empty = False
        self.not_null = False
        # Set when the grammar put later parameters into this default (Signature._absorbed).
        self.default_nodes = None

    @property
    def switch(self):
        return self.type is not None and self.type.name == 'System.Management.Automation.SwitchParameter'


class Signature:
    """What a param() block declares, read once per block and cached on its node."""

    def __init__(self, interpreter, param_block, scope):
        self.params = []
        self.advanced = False
        self.should_process = False
        self.confirm_impact = 'Medium'  # CmdletBindingAttribute.ConfirmImpact's default
        if param_block is None:
            return
        attributes = param_block.child('attribute_list')
        for attribute in (attributes.all('attribute') if attributes else []):
            name = attribute.child('attribute_name')
            if name is not None and name.text.lower() == 'cmdletbinding':
                self.advanced = True
                arguments = attribute.child('attribute_arguments')
                for argument in (arguments.all('attribute_argument') if arguments else []):
                    self._cmdletbinding_argument(interpreter, argument, scope)
        parameter_list = param_block.child('parameter_list')
        for parameter in (parameter_list.all('script_parameter') if parameter_list else []):
            decl = self._declaration(interpreter, parameter, scope)
            self.params.append(decl)
            self.params.extend(self._absorbed(interpreter, decl))

    def _cmdletbinding_argument(self, interpreter, argument, scope):
        """A named argument of [CmdletBinding()]: written alone it is $true, else its value converted to the property's
        type (about_Functions_CmdletBindingAttribute; SupportsShouldProcess=$false declares no -WhatIf)."""
        name = argument.named_children[0].text.lower()
        value_nodes = argument.named_children[1:]
        value = interpreter.eval_expression(value_nodes[0], scope) if value_nodes else True
        if name == 'supportsshouldprocess':
            self.should_process = to_bool(value)
        elif name == 'confirmimpact':
            self.confirm_impact = to_string(value)

    @staticmethod
    def _absorbed(interpreter, decl):
        """Parameters the grammar swallowed into the default before them.

        tree-sitter-pwsh reads `[int]$A = 1,` NEWLINE `[switch]$B` as the default `1, [switch]$B`; PowerShell
        ends a default at the comma. The trailing elements that are (typed) variables are parameters.
        """
        if decl.default is None:
            return []
        value = decl.default.named_children[0]
        if value.type != 'array_literal_expression':
            return []
        elements = value.named_children
        declared = []
        while len(elements) > 1:
            node, types = elements[-1], []
            while True:
                while node.type in ('unary_expression', 'expression_with_unary_operator') and len(node.named_children) == 1:
                    node = node.named_children[0]
                if node.type != 'cast_expression':
                    break
                types.append(node.child('type_literal'))
                node = node.named_children[-1]
            if node.type != 'variable':
                break
            absorbed = ParamDecl(node.text[1:])
            if types:
                absorbed.type = interpreter.resolve_type(types[-1])
            declared.insert(0, absorbed)
            elements = elements[:-1]
        if declared:
            decl.default_nodes = elements
        return declared

    def _declaration(self, interpreter, node, scope):
        decl = ParamDecl(node.child('variable').text[1:])
        decl.default = node.child('script_parameter_default')
        attributes = node.child('attribute_list')
        for attribute in (attributes.all('attribute') if attributes else []):
            literal = attribute.child('type_literal')
            if literal is not None:
                decl.type = interpreter.resolve_type(literal)
                continue
            name = attribute.child('attribute_name').text.lower()
            arguments = attribute.child('attribute_arguments')
            arguments = arguments.all('attribute_argument') if arguments else []
            if name == 'parameter':
                self.advanced = True
                for argument in arguments:
                    key = argument.named_children[0].text.lower()
                    value = (interpreter.eval_expression(argument.named_children[1], scope)
                             if len(argument.named_children) > 1 else True)
                    if key == 'mandatory':
                        decl.mandatory = bool(value)
                    elif key == 'position':
                        decl.position = int(value)
                    elif key == 'valuefrompipeline':
                        decl.from_pipeline = bool(value)
                    elif key == 'valuefrompipelinebypropertyname':
                        decl.from_pipeline_by_name = bool(value)
                    elif key not in ('helpmessage', 'parametersetname', 'dontshow'):
                        raise Unsupported('[Parameter(%s)]' % key, argument.line)
            elif name in ('validateset', 'validatepattern', 'validaterange', 'alias', 'validatenotnullorempty',
                          'validatenotnull', 'allowemptystring', 'allownull', 'allowemptycollection'):
                values = [interpreter.eval_expression(argument.named_children[0], scope) for argument in arguments]
                flat = []
                for value in values:
                    flat.extend(enumerate_value(value) if is_enumerable(value) else [value])
                if not flat and name in ('validateset', 'validatepattern', 'validaterange', 'alias'):
                    # No constructor of these attributes takes no argument: 5.1 refuses the param block.
                    raise Unsupported('[%s()] without arguments' % name, attribute.line)
                if name == 'validateset':
                    decl.validate_set = [to_string(value) for value in flat]
                elif name == 'validatepattern':
                    decl.validate_pattern = to_string(flat[0])
                elif name == 'validaterange':
                    if len(flat) != 2 or not all(is_number(value) for value in flat):
                        raise Unsupported('[ValidateRange] of %s' % ', '.join(to_string(value) for value in flat),
                                          attribute.line)
                    decl.validate_range = (flat[0], flat[1])
                elif name == 'alias':
                    decl.aliases = [to_string(value) for value in flat]
                elif name == 'allowemptystring':
                    decl.allow_empty_string = True
                elif name == 'allownull':
                    decl.allow_null = True
                elif name == 'validatenotnullorempty':
                    decl.not_null_or_empty = True
                elif name == 'validatenotnull':
                    decl.not_null = True
            else:
                raise Unsupported('parameter attribute [%s]' % name, attribute.line)
        return decl

    def find(self, written, command):
        """The declaration a parameter name as written binds to (exact, alias, or unique prefix)."""
        lower = written.lower()
        for decl in self.params:
            if decl.name.lower() == lower or lower in (alias.lower() for alias in decl.aliases):
                return decl
        if self.advanced:
            common = dict(COMMON)
            if self.should_process:
                common.update(SHOULD_PROCESS)
            if lower in common:
                return common[lower]
        candidates = [decl for decl in self.params if decl.name.lower().startswith(lower)]
        if self.advanced:
            names = set(COMMON.values()) | (set(SHOULD_PROCESS.values()) if self.should_process else set())
            candidates += [name for name in sorted(names) if name.lower().startswith(lower)]
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            raise binding_error("Parameter cannot be processed because the parameter name '%s' is ambiguous. Possible "
                                "matches include: %s." % (written, ' '.join('-' + (c.name if isinstance(c, ParamDecl)
                                                                                   else c) for c in candidates)),
                                'AmbiguousParameter,' + command)
        return None


def signature(interpreter, param_block, scope):
    if param_block is None:
        return Signature(interpreter, None, scope)
    if param_block.cache is None:
        param_block.cache = Signature(interpreter, param_block, scope)
    return param_block.cache


class PipelineBinding:
    """Binding each piped object to the parameters that take pipeline input (about_Functions_Advanced_Parameters:
    ValueFromPipeline, ValueFromPipelineByPropertyName), whether or not the function has a process block: without
    one, its body is the end block and such a parameter holds the last object (about_Functions).

    The passes are those of PowerShell's CmdletParameterBinderController.BindPipelineParameters: by value as the
    object is, by property name as the property is, by value converted, by property name converted; each binds the
    parameters the object has not bound yet. A parameter an argument bound takes nothing from the pipeline. What one
    object bound goes back to its value before the pipeline for the next. An object that binds nothing, or leaves a
    mandatory pipeline parameter unbound, is an error of that object only (ParameterBinderStrings InputObjectNotBound,
    InputObjectMissingMandatory); a simple function (no CmdletBinding, no Parameter attribute) binds nothing: it reads
    $_ and $input.
    """

    def __init__(self, interpreter, param_block, scope, command):
        sig = signature(interpreter, param_block, scope)
        self.interpreter = interpreter
        self.scope = scope
        self.command = command
        self.active = sig.advanced
        self.bound = scope.vars['psboundparameters']
        takes = [decl for decl in sig.params if (decl.from_pipeline or decl.from_pipeline_by_name)
                 and decl.name not in self.bound]
        self.by_value = [decl for decl in takes if decl.from_pipeline]
        self.by_name = [decl for decl in takes if decl.from_pipeline_by_name]
        self.saved = {decl.name: scope.vars.get(decl.name.lower()) for decl in takes}
        self.mandatory = [decl.name for decl in takes if decl.mandatory]

    def bind(self, item):
        """Bind ``item``; False (its error written) when it binds nothing the command needs."""
        if not self.active:
            return True
        for name, value in self.saved.items():
            self.scope.vars[name.lower()] = value
            self.bound.remove(name)
        bound = {}
        try:
            for convert in (False, True):
                for decl in self.by_value:
                    self._bind(decl, item, convert, bound)
                for decl in self.by_name:
                    found = _property(item, decl) if decl.name not in bound else None
                    if found is not None:
                        self._bind(decl, found[0], convert, bound)
        except PSError as error:
            # A value that converts but fails the parameter's validation (ValidateSet, ValidatePattern...).
            self._object_error(error.message, error.error_id.split(',')[0], item)
            return False
        if not bound:
            self._object_error('The input object cannot be bound to any parameters for the command either because the '
                               'command does not take pipeline input or the input and its properties do not match any '
                               'of the parameters that take pipeline input.', 'InputObjectNotBound', item)
            return False
        missing = [name for name in self.mandatory if name not in bound]
        if missing:
            self._object_error('The input object cannot be bound because it did not contain the information required to '
                               'bind all mandatory parameters:  %s' % ' '.join(missing), 'InputObjectMissingMandatory',
                               item)
            return False
        for name, value in bound.items():
            self.scope.vars[name.lower()] = value
            self.bound[name] = value
        return True

    def _bind(self, decl, value, convert, bound):
        if decl.name in bound:
            return
        if not convert and not _is_of_type(value, decl):
            return
        try:
            bound[decl.name] = _convert(decl, value, self.command)
        except PSError as error:
            if not error.error_id.startswith('ParameterArgumentTransformationError'):
                raise
            # Not convertible: the parameter stays unbound for this object.

    def _object_error(self, message, error_id, item):
        from .interpreter import ErrorRecord  # pylint: disable=import-outside-toplevel
        error = PSError(message, 'System.Management.Automation.ParameterBindingException',
                        '%s,%s' % (error_id, self.command), 'InvalidArgument', target=item)
        self.interpreter.write_error(ErrorRecord(error), self.scope)


def _is_of_type(value, decl):
    return decl.type is None or decl.type.name == 'System.Object' or type_name(value) == decl.type.name


def _property(item, decl):
    """(value,) of the item's property of the parameter's name or of an alias (members.adapted_property: a
    dictionary's keys are not properties), or None when it has none."""
    from .members import adapted_property  # pylint: disable=import-outside-toplevel
    for name in [decl.name] + decl.aliases:
        has, value = adapted_property(item, name)
        if has:
            return (value,)
    return None


def is_switch(interpreter, param_block, scope, written):
    """Whether ``-written`` names a switch of this block (then it takes no value from the next argument)."""
    sig = signature(interpreter, param_block, scope)
    try:
        decl = sig.find(written, '')
    except PSError:
        return False
    if isinstance(decl, ParamDecl):
        return decl.switch
    return decl in COMMON_SWITCHES


def bind_script_parameters(interpreter, param_block, scope, named, positional, command, piped=False):
    """Bind ``named`` (written name -> value) and ``positional`` values into ``scope``; set $PSBoundParameters.
    A mandatory parameter that takes pipeline input is bound from each object when ``piped`` (PipelineBinding)."""
    sig = signature(interpreter, param_block, scope)
    bound = Hashtable()
    common = {}
    positional_extra = []
    for written, value in named.items():
        decl = sig.find(written, command)
        if decl is None and not sig.advanced:
            # A simple function leaves what it does not declare in $args (about_Functions, about_Automatic_Variables).
            positional_extra.append('-%s' % written)
            if value is not True:
                positional_extra.append(value)
            continue
        if decl is None:
            raise binding_error("A parameter cannot be found that matches parameter name '%s'." % written,
                                'NamedParameterNotFound,' + command)
        if isinstance(decl, str):
            common[decl] = value
            continue
        if decl.name in bound:
            raise binding_error("Cannot bind parameter because parameter '%s' is specified more than once. To provide "
                                "multiple values to parameters that can accept multiple values, use the array syntax."
                                " For example, \"-parameter value1,value2,value3\"." % decl.name,
                                'ParameterAlreadyBound,' + command)
        bound[decl.name] = _convert(decl, value, command)
    positional_decls = [decl for decl in sig.params if not decl.switch and decl.name not in bound]
    explicit = sorted((decl for decl in positional_decls if decl.position is not None), key=lambda d: d.position)
    positional_decls = explicit + [decl for decl in positional_decls if decl.position is None] \
        if explicit else positional_decls
    extra = positional_extra
    for value in positional:
        if positional_decls:
            decl = positional_decls.pop(0)
            bound[decl.name] = _convert(decl, value, command)
        else:
            extra.append(value)
    if extra and sig.advanced:
        raise binding_error("A positional parameter cannot be found that accepts argument '%s'." % to_string(extra[0]),
                            'PositionalParameterNotFound,' + command)
    missing = [decl.name for decl in sig.params if decl.mandatory and decl.name not in bound
               and not (piped and (decl.from_pipeline or decl.from_pipeline_by_name))]
    if missing:
        raise binding_error('Cannot process command because of one or more missing mandatory parameters: %s.'
                            % ' '.join(missing), 'MissingMandatoryParameter,' + command)
    for decl in sig.params:
        if decl.type is not None and not decl.switch:
            scope.types[decl.name.lower()] = decl.type
        if decl.name in bound:
            scope.vars[decl.name.lower()] = bound[decl.name]
        elif decl.default_nodes is not None:
            values = [interpreter.eval_expression(node, scope) for node in decl.default_nodes]
            scope.vars[decl.name.lower()] = _convert(decl, values[0] if len(values) == 1 else PSArray(values), command,
                                                     validate=False)
        elif decl.default is not None:
            scope.vars[decl.name.lower()] = _convert(decl, interpreter.eval_statement_value(
                decl.default.named_children[0], scope), command, validate=False)
        elif decl.switch:
            scope.vars[decl.name.lower()] = SwitchParameter(False)
        elif decl.type is not None and decl.type.name in _VALUE_TYPES:
            # An unbound parameter of a value type (or [string]) holds that type's conversion of $null: 0, $false,
            # '' (about_Functions_Advanced_Parameters); any other type stays $null.
            scope.vars[decl.name.lower()] = _convert(decl, None, command, validate=False)
        else:
            scope.vars[decl.name.lower()] = None
    scope.vars['psboundparameters'] = bound
    scope.vars['args'] = PSArray(extra)
    if sig.advanced:
        _apply_common(scope, common, sig)
        scope.vars['pscmdlet'] = PSCmdlet(interpreter, scope, command, sig.confirm_impact)
    return bound


def _apply_common(scope, common, sig):
    """Common parameters set the matching preference variables in the function's scope (about_CommonParameters;
    PSScriptCmdlet.SetPreferenceVariables of PowerShell/PowerShell 60b3b304f2: -Debug is Inquire in 5.1, -Confirm
    sets $ConfirmPreference Low and -Confirm:$false None)."""
    if 'ErrorAction' in common:
        scope.vars['erroractionpreference'] = to_string(common['ErrorAction'])
    if 'WarningAction' in common:
        scope.vars['warningpreference'] = to_string(common['WarningAction'])
    if 'InformationAction' in common:
        scope.vars['informationpreference'] = to_string(common['InformationAction'])
    if 'WhatIf' in common and sig.should_process:
        scope.vars['whatifpreference'] = to_bool(common['WhatIf'])
    if 'Confirm' in common and sig.should_process:
        scope.vars['confirmpreference'] = 'Low' if to_bool(common['Confirm']) else 'None'
    if 'Verbose' in common:
        scope.vars['verbosepreference'] = 'Continue' if to_bool(common['Verbose']) else 'SilentlyContinue'
    if 'Debug' in common:
        scope.vars['debugpreference'] = 'Inquire' if to_bool(common['Debug']) else 'SilentlyContinue'


# ConfirmImpact's values in order (System.Management.Automation.ConfirmImpact).
_CONFIRM_IMPACT = ('none', 'low', 'medium', 'high')


class PSCmdlet:
    """$PSCmdlet of an advanced function or script. ShouldProcess as MshCommandRuntime.DoShouldProcess decides it
    (PowerShell/PowerShell 60b3b304f2): under $WhatIfPreference it writes "What if: <description>" to the host and
    returns $false; else it returns $true when $ConfirmPreference is None or above the command's ConfirmImpact
    (CanShouldProcessAutoConfirm), writing the description as a verbose record, and would ask the user otherwise (not
    modelled: the hosts scripts run in cannot prompt). The description is CommandBaseStrings.ShouldProcessMessage,
    'Performing the operation "<action>" on target "<target>".', the action defaulting to the command's name."""

    NET = 'System.Management.Automation.PSScriptCmdlet'

    def __init__(self, interpreter, scope, command, confirm_impact):
        self._interpreter = interpreter
        self._scope = scope
        # A script win_powershell runs is a FunctionInfo without a name (Command.CreateCommandProcessor).
        self._command = '' if command == 'script' else command
        self._confirm_impact = confirm_impact

    def ShouldProcess(self, *arguments):  # pylint: disable=invalid-name
        if len(arguments) == 1:
            description = 'Performing the operation "%s" on target "%s".' % (self._command, to_string(arguments[0]))
        elif len(arguments) == 2:
            description = 'Performing the operation "%s" on target "%s".' % (to_string(arguments[1]),
                                                                             to_string(arguments[0]))
        elif len(arguments) == 3:
            description = to_string(arguments[0])
        else:
            raise Unsupported('$PSCmdlet.ShouldProcess with %d arguments' % len(arguments))
        streams = self._interpreter.streams
        if to_bool(self._interpreter.lookup(self._scope, 'WhatIfPreference')):
            streams.host_line('What if: ' + description)
            return False
        preference = to_string(self._interpreter.lookup(self._scope, 'ConfirmPreference')).lower()
        if preference != 'none' and _CONFIRM_IMPACT.index(preference) <= _CONFIRM_IMPACT.index(
                self._confirm_impact.lower()):
            raise Unsupported('$PSCmdlet.ShouldProcess asking for confirmation ($ConfirmPreference %s)' % preference)
        write_record(streams, 'verbose', description,
                     to_string(self._interpreter.lookup(self._scope, 'VerbosePreference')))
        return True

    def ThrowTerminatingError(self, record):  # pylint: disable=invalid-name
        from .interpreter import ScriptTerminating  # pylint: disable=import-outside-toplevel
        raise ScriptTerminating(record)


def _convert(decl, value, command, validate=True):
    if value is AUTOMATION_NULL:
        value = None
    if decl.switch:
        return value if isinstance(value, SwitchParameter) else SwitchParameter(True if value is None else bool(value))
    if decl.type is not None:
        try:
            value = decl.type.convert(value)
        except PSError as error:
            raise binding_error("Cannot process argument transformation on parameter '%s'. %s" % (decl.name, error.message),
                                'ParameterArgumentTransformationError,' + command) from None
    if not validate:
        return value
    if decl.mandatory and not decl.allow_null:
        if is_null(value):
            raise binding_error("Cannot bind argument to parameter '%s' because it is null." % decl.name,
                                'ParameterArgumentValidationErrorNullNotAllowed,' + command)
        if value == '' and not decl.allow_empty_string:
            raise binding_error("Cannot bind argument to parameter '%s' because it is an empty string." % decl.name,
                                'ParameterArgumentValidationErrorEmptyStringNotAllowed,' + command)
        if isinstance(value, PSArray) and not value:
            raise binding_error("Cannot bind argument to parameter '%s' because it is an empty array." % decl.name,
                                'ParameterArgumentValidationErrorEmptyArrayNotAllowed,' + command)
    empty = is_null(value) or value == '' or (isinstance(value, list) and not value)
    if decl.not_null_or_empty and empty or decl.not_null and is_null(value):
        raise binding_error("Cannot validate argument on parameter '%s'. The argument is null%s. Provide an argument that "
                            "is not null%s, and then try the command again." % (
                                decl.name, ' or empty' if decl.not_null_or_empty else '',
                                ' or empty' if decl.not_null_or_empty else ''),
                            'ParameterArgumentValidationError,' + command)
    items = enumerate_value(value) if is_enumerable(value) else [value]
    for item in items:
        if decl.validate_set is not None and not any(to_string(item).lower() == choice.lower()
                                                     for choice in decl.validate_set):
            raise binding_error("Cannot validate argument on parameter '%s'. The argument \"%s\" does not belong to the "
                                "set \"%s\" specified by the ValidateSet attribute. Supply an argument that is in the "
                                "set and then try the command again." % (decl.name, to_string(item),
                                                                         ','.join(decl.validate_set)),
                                'ParameterArgumentValidationError,' + command)
        # ValidatePatternAttribute: Regex.IsMatch with Options IgnoreCase by default, so unanchored (.NET API reference).
        if decl.validate_pattern is not None and not ops.regex(decl.validate_pattern).search(to_string(item)):
            raise binding_error("Cannot validate argument on parameter '%s'. The argument \"%s\" does not match the \"%s\" "
                                "pattern. Supply an argument that matches \"%s\" and try the command again."
                                % (decl.name, to_string(item), decl.validate_pattern, decl.validate_pattern),
                                'ParameterArgumentValidationError,' + command)
        if decl.validate_range is not None:
            low, high = decl.validate_range
            if item < low:
                raise binding_error("Cannot validate argument on parameter '%s'. The %s argument is less than the minimum "
                                    "allowed range of %s. Supply an argument that is greater than or equal to %s and then "
                                    "try the command again." % (decl.name, item, low, low),
                                    'ParameterArgumentValidationError,' + command)
            if item > high:
                raise binding_error("Cannot validate argument on parameter '%s'. The %s argument is greater than the "
                                    "maximum allowed range of %s. Supply an argument that is less than or equal to %s and "
                                    "then try the command again." % (decl.name, item, high, high),
                                    'ParameterArgumentValidationError,' + command)
    return value
