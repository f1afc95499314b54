"""The engine's own cmdlets: those of Microsoft.PowerShell.Core and .Utility that touch no Windows state.

Behaviour from each cmdlet's reference page in MicrosoftDocs/PowerShell-Docs, reference/5.1
(Where-Object, ForEach-Object, Select-Object, Sort-Object, Measure-Object, Write-Output,
Write-Error, Out-Null, New-Object, Join-Path's string form is in the Windows model with the
file system). Cmdlets that read or change the node live in the Windows model.
"""

from . import dotnet
from . import dotnet_sort
from . import streams
from . import operators as ops
from . import types as pstypes
from .commands import Cmdlet
from .json_cmdlets import convertfrom_json, convertto_json
from .members import get_member
from .pipeline import Stage, StageOutput, StopUpstream, ValuesStage, run_pipeline
from .values import (ArrayList, Unsupported, Hashtable, PSArray, PSCustomObject, PSError, ScriptBlock, SecureString,
                     enumerate_value, is_enumerable, is_null, to_bool, to_string)


def _items(params, input_items, name='InputObject'):
    if name in params:
        value = params[name]
        return [value]
    return list(input_items or [])


class _Streaming(Stage):
    """A cmdlet whose ProcessRecord handles each object as it comes, so its output streams (pipeline.py). Not piped,
    it handles -InputObject as one object. ``stream`` of its function builds it for a pipeline; the function itself
    runs it over a list."""

    def __init__(self, ctx, params, piped):
        super().__init__()
        self.ctx = ctx
        self.params = params
        self.piped = piped
        self.out = StageOutput(self)

    def __repr__(self):
        return self.ctx.cmdlet.name

    def process_first(self):
        if 'InputObject' in self.params:
            self.each(self.params['InputObject'])

    def process(self, item):
        self.each(item)

    def each(self, item):
        raise NotImplementedError


def _streaming(build):
    """The cmdlet function of a streaming cmdlet: ``build(ctx, params, piped)`` gives its stage (None: the
    ``collect`` function takes the whole input instead, as 5.1's EndProcessing does)."""

    def function(ctx, params, input_items):
        stage = build(ctx, params, input_items is not None)
        if stage is None:
            return build.collect(ctx, params, input_items)
        return run_pipeline([ValuesStage(input_items), stage] if input_items is not None else [stage], [])
    function.stream = build
    function.collects = hasattr(build, 'collect')
    return function


class _WhereObject(_Streaming):
    """Where-Object (reference/5.1): the objects for which the script block, or the simplified comparison, is true."""

    def begin(self):
        # The simplified syntax (Where-Object Name -eq x): the switch names the operator, -Value its operand.
        self.operator = next((key for key in self.params if key.lower() in _WHERE_OPERATORS), None)

    def each(self, item):
        block = self.params.get('FilterScript')
        if block is not None:
            keep = to_bool(_collect(self.ctx.invoke(block, item)))
        else:
            value = get_member(item, to_string(self.params.get('Property')))
            keep = to_bool(value) if self.operator is None else \
                to_bool(ops.comparison('-' + self.operator.lower(), value, self.params.get('Value')))
        if keep:
            self.emit(item)


_WHERE_OPERATORS = {name + suffix for name in ('eq', 'ne', 'gt', 'ge', 'lt', 'le', 'like', 'notlike', 'match', 'notmatch',
                                               'contains', 'notcontains', 'in', 'notin') for suffix in ('',)}
_WHERE_OPERATORS |= {'c' + name for name in _WHERE_OPERATORS} | {'is', 'isnot'}


def _collect(out):
    from .interpreter import collect  # pylint: disable=import-outside-toplevel
    return collect(out)


class _ForEachObject(_Streaming):
    """ForEach-Object (reference/5.1): -Begin once, -Process (one block or several) or -MemberName per object, -End
    once; what the blocks write goes on at once.

    -WhatIf (ForEachObjectCommand, engine/InternalCommands.cs at PowerShell/PowerShell 60b3b304f2): the cmdlet declares
    SupportsShouldProcess, but with script blocks it never calls ShouldProcess, so $WhatIfPreference changes nothing
    there and -WhatIf or -Confirm on the call is the terminating error NoShouldProcessForScriptBlockSet; -MemberName
    asks ShouldProcess before each property or method, so under -WhatIf it does nothing (its "What if:" text, a
    resource string of its own, is not written)."""

    def begin(self):
        if self.params.get('MemberName') is None and any(to_bool(self.ctx.common.get(name, False))
                                                         for name in ('WhatIf', 'Confirm')):
            raise PSError('The -WhatIf and -Confirm parameters are not supported for script blocks.',
                          'System.InvalidOperationException',
                          'NoShouldProcessForScriptBlockSet,Microsoft.PowerShell.Commands.ForEachObjectCommand',
                          'InvalidOperation')
        process = self.params.get('Process')
        self.blocks = enumerate_value(process) if is_enumerable(process) else ([process] if process is not None else [])
        if self.params.get('Begin') is not None:
            self.ctx.invoke(self.params['Begin'], None, out=self.out)

    def each(self, item):
        member = self.params.get('MemberName')
        if member is not None and not isinstance(member, ScriptBlock) and self.ctx.what_if():
            return  # ShouldProcess answered no
        if member is not None and not isinstance(member, ScriptBlock):
            from .members import is_method  # pylint: disable=import-outside-toplevel
            if _has_property(item, to_string(member)) or not is_method(item, to_string(member)):
                value = get_member(item, to_string(member))
            else:
                # -MemberName names a method when the object has no such property.
                from .members import invoke_method  # pylint: disable=import-outside-toplevel
                arguments = self.params.get('ArgumentList', [])
                value = invoke_method(item, to_string(member), enumerate_value(arguments) if is_enumerable(arguments)
                                      else [arguments], self.ctx.interpreter, self.ctx.scope)
            from .interpreter import emit_list  # pylint: disable=import-outside-toplevel
            self.out.extend(emit_list(value))
            return
        for block in self.blocks:
            self.ctx.invoke(block, item, out=self.out)

    def end(self):
        if self.params.get('End') is not None:
            self.ctx.invoke(self.params['End'], None, out=self.out)


def _has_property(item, name):
    from .members import has_property  # pylint: disable=import-outside-toplevel
    return has_property(item, name)


def _property_value(ctx, item, prop):
    if isinstance(prop, ScriptBlock):
        return _collect(ctx.invoke(prop, item))
    if isinstance(prop, Hashtable):
        expression = prop['Expression'] if 'Expression' in prop else prop['e']
        return _property_value(ctx, item, expression)
    return get_member(item, to_string(prop))


def _property_name(prop):
    if isinstance(prop, Hashtable):
        for key in ('Name', 'Label', 'n', 'l'):
            if key in prop:
                return to_string(prop[key])
    return to_string(prop)


def _selected(ctx, params, item):
    """What Select-Object writes for one object: its -ExpandProperty, its -Property as a new object, or itself."""
    if 'ExpandProperty' in params:
        name = to_string(params['ExpandProperty'])
        if isinstance(item, PSCustomObject) and name not in item.props or \
                isinstance(item, Hashtable) and name not in item and get_member(item, name) is None:
            ctx.write_error(PSError('Property "%s" cannot be found.' % name, 'System.ArgumentException',
                                    'ExpandPropertyNotFound,Microsoft.PowerShell.Commands.SelectObjectCommand',
                                    'InvalidArgument', target=item))
            return []
        value = get_member(item, name)
        from .interpreter import emit_list  # pylint: disable=import-outside-toplevel
        return emit_list(value) if is_enumerable(value) else [value]
    if 'Property' in params:
        props = params['Property']
        props = enumerate_value(props) if is_enumerable(props) else [props]
        return [PSCustomObject((_property_name(prop), _property_value(ctx, item, prop)) for prop in props)]
    return [item]


class _SelectObject(_Streaming):
    """Select-Object -First/-Skip/-Property/-ExpandProperty (reference/5.1) as each object comes; once it has its
    -First objects it stops the commands before it (SelectObjectCommand's StopUpstreamCommandsException, PowerShell
    3.0 and later)."""

    def begin(self):
        self.skip = int(self.params.get('Skip', 0))
        self.first = int(self.params['First']) if 'First' in self.params else None
        self.taken = 0

    def each(self, item):
        if self.skip:
            self.skip -= 1
            return
        if self.first is not None and self.taken >= self.first:
            raise StopUpstream(self)
        self.taken += 1
        self.out.extend(_selected(self.ctx, self.params, item))
        if self.first is not None and self.taken >= self.first and self.piped:
            raise StopUpstream(self)


def _select_stage(ctx, params, piped):
    if {'Last', 'Unique', 'Index', 'SkipLast', 'Wait'} & set(params):
        return None
    return _SelectObject(ctx, params, piped)


def _select_collected(ctx, params, input_items):
    """Select-Object with -Last or -Unique: it needs every object before it writes (EndProcessing)."""
    items = _items(params, input_items)
    if params.get('Unique'):
        # Select-Object -Unique compares case-sensitively in 5.1 (Select-Object reference, -Unique).
        unique = []
        for item in items:
            if not any(ops.equals(item, seen, case_sensitive=True) for seen in unique):
                unique.append(item)
        items = unique
    skip = int(params.get('Skip', 0))
    items = items[skip:]
    if 'First' in params or 'Last' in params:
        first = items[:int(params['First'])] if 'First' in params else []
        last = items[len(items) - int(params['Last']):] if 'Last' in params and int(params['Last']) else []
        items = first + last if 'First' in params and 'Last' in params else (first if 'First' in params else last)
    out = []
    for item in items:
        out.extend(_selected(ctx, params, item))
    return out


_select_stage.collect = _select_collected


def sort_object(ctx, params, input_items):
    items = _items(params, input_items)
    props = params.get('Property')
    props = (enumerate_value(props) if is_enumerable(props) else [props]) if props is not None else []
    descending = bool(params.get('Descending'))
    cs = bool(params.get('CaseSensitive'))

    def keys(item):
        if not props:
            return [item]
        return [_property_value(ctx, item, prop) for prop in props]

    def compare(a, b):
        for left, right in zip(keys(a), keys(b)):
            result = _sort_compare(left, right, cs)
            if result:
                # -Descending negates each comparison (the comparer's order), it does not reverse the result.
                return -result if descending else result
        return 0

    # List<T>.Sort of .NET Framework: unstable (dotnet_sort.py), equal items may come out in any order.
    ordered = dotnet_sort.framework_sort(list(items), compare)
    if params.get('Unique'):
        unique = []
        for item in ordered:
            if not any(compare(item, seen) == 0 for seen in unique):
                unique.append(item)
        ordered = unique
    return ordered


def _sort_compare(left, right, cs):
    if is_null(left) or is_null(right):
        return (not is_null(left)) - (not is_null(right))
    try:
        return ops.compare(left, right, cs)
    except PSError:
        return ops.compare(to_string(left), to_string(right), cs)


def add_member(ctx, params, input_items):
    """Add-Member: note properties only (NotePropertyName/Value, NotePropertyMembers, -MemberType NoteProperty)."""
    members = []
    if 'NotePropertyName' in params:
        members.append((to_string(params['NotePropertyName']), params.get('NotePropertyValue')))
    elif 'NotePropertyMembers' in params:
        members.extend((to_string(key), value) for key, value in params['NotePropertyMembers'].items())
    elif to_string(params.get('MemberType')).lower() == 'noteproperty':
        members.append((to_string(params['Name']), params.get('Value')))
    else:
        raise PSError('Add-Member -MemberType %s is not modelled' % to_string(params.get('MemberType')))
    out = []
    for item in _items(params, input_items):
        if not isinstance(item, PSCustomObject):
            raise PSError('Add-Member on a %s is not modelled' % type(item).__name__)
        for name, value in members:
            if name in item.props and not params.get('Force'):
                ctx.write_error(PSError('Cannot add a member with the name "%s" because a member with that name already '
                                        'exists. To overwrite the member anyway, add the Force parameter to your '
                                        'command.' % name, 'System.InvalidOperationException',
                                        'MemberAlreadyExists,Microsoft.PowerShell.Commands.AddMemberCommand',
                                        'InvalidOperation', target=item))
                continue
            item.props[name] = value
        if params.get('PassThru'):
            out.append(item)
    return out


class GroupInfo:
    NET = 'Microsoft.PowerShell.Commands.GroupInfo'
    PROPERTIES = ('Count', 'Name', 'Group', 'Values')

    def __init__(self, name, values, group):
        self.Name = name
        self.Values = PSArray(values)
        self.Group = PSArray(group)
        self.Count = len(group)


def group_object(ctx, params, input_items):
    """Group-Object: groups in the order their first member came, names as [string] of the key values."""
    props = params.get('Property')
    props = (enumerate_value(props) if is_enumerable(props) else [props]) if props is not None else []
    cs = bool(params.get('CaseSensitive'))
    groups = []
    for item in _items(params, input_items):
        values = [_property_value(ctx, item, prop) for prop in props] if props else [item]
        for group in groups:
            if len(group[0]) == len(values) and all(ops.equals(a, b, cs) for a, b in zip(group[0], values)):
                group[1].append(item)
                break
        else:
            groups.append((values, [item]))
    if params.get('AsHashTable'):
        raise PSError('Group-Object -AsHashTable is not modelled')
    return [GroupInfo(', '.join(to_string(value) for value in values), values, members) for values, members in groups]


class _Measure:
    NET = 'Microsoft.PowerShell.Commands.GenericMeasureInfo'
    PROPERTIES = ('Count', 'Average', 'Sum', 'Maximum', 'Minimum', 'Property')

    def __init__(self, count):
        self.Count = count
        self.Average = self.Sum = self.Maximum = self.Minimum = self.Property = None


def measure_object(ctx, params, input_items):
    items = list(_items(params, input_items))
    prop = params.get('Property')
    values = [get_member(item, to_string(prop)) if prop is not None else item for item in items]
    result = _Measure(len([v for v in values if not is_null(v)]) if prop is not None else len(items))
    wanted = [name for name in ('Sum', 'Maximum', 'Minimum', 'Average') if params.get(name)]
    numbers = [pstypes.resolve('double').convert(value) for value in values if not is_null(value)] if wanted else []
    if params.get('Sum'):
        result.Sum = sum(numbers)
    if params.get('Maximum'):
        result.Maximum = max(numbers) if numbers else None
    if params.get('Minimum'):
        result.Minimum = min(numbers) if numbers else None
    if params.get('Average'):
        result.Average = sum(numbers) / len(numbers) if numbers else None
    if prop is not None:
        result.Property = to_string(prop)
    return [result]


class _WriteOutput(_Streaming):
    """Write-Output (reference/5.1): each object on; -InputObject enumerated unless -NoEnumerate."""

    def process_first(self):
        if 'InputObject' not in self.params:
            return
        value = self.params['InputObject']
        from .interpreter import emit_list  # pylint: disable=import-outside-toplevel
        if self.params.get('NoEnumerate'):
            if isinstance(value, PSArray):
                value = PSArray(value, value.element)
                value.psobject_wrapped = True
            self.emit(value)
            return
        self.out.extend(emit_list(value))

    def each(self, item):
        self.emit(item)


class ErrorDetails:
    """System.Management.Automation.ErrorDetails: the message shown instead of the exception's, and a recommended
    action."""

    NET = 'System.Management.Automation.ErrorDetails'

    def __init__(self, message, recommended_action=None):
        self.Message = message
        self.RecommendedAction = recommended_action

    def to_string(self):
        return self.Message


def write_error(ctx, params, input_items):
    """Write-Error (its reference page; WriteErrorCommand in write.cs, 5.1): an error record of -Exception, else of a
    WriteErrorException with -Message; with both, -Message is the record's ErrorDetails. -ErrorId (default the
    exception's type name), -Category, -TargetObject, -RecommendedAction and the -Category* overrides of the record's
    CategoryInfo; its activity is "Write-Error" unless -CategoryActivity says otherwise."""
    from .interpreter import ErrorRecord, ExceptionObject  # pylint: disable=import-outside-toplevel
    if 'ErrorRecord' in params:
        record = params['ErrorRecord']
        if not isinstance(record, ErrorRecord):
            raise Unsupported('Write-Error -ErrorRecord of a %s' % type(record).__name__)
        ctx.write_error(record.error, record.ErrorDetails, callers=True)
        return []
    message = None if params.get('Message') is None else to_string(params['Message'])
    exception = params.get('Exception')
    details = None
    if exception is not None:
        if isinstance(exception, ExceptionObject):
            type_name, exception_message = exception.error.type_name, exception.error.message
        elif type(exception).__name__ == 'ExceptionValue':
            type_name, exception_message = exception.NET, exception.Message
        else:
            raise Unsupported('Write-Error -Exception of a %s' % type(exception).__name__)
        if message is not None or params.get('RecommendedAction') is not None:
            details = ErrorDetails(message, params.get('RecommendedAction'))
    else:
        type_name, exception_message = 'Microsoft.PowerShell.Commands.WriteErrorException', message
        if params.get('RecommendedAction') is not None:
            details = ErrorDetails(message, params['RecommendedAction'])
    error = PSError(exception_message, type_name, to_string(params.get('ErrorId', type_name)),
                    to_string(params.get('Category', 'NotSpecified')), target=params.get('TargetObject'))
    for parameter, attribute in (('CategoryActivity', 'activity'), ('CategoryReason', 'reason'),
                                 ('CategoryTargetName', 'target_name'), ('CategoryTargetType', 'target_type')):
        if params.get(parameter) is not None:
            setattr(error, attribute, to_string(params[parameter]))
    ctx.write_error(error, details, callers=True)
    return []


def write_warning(ctx, params, input_items):
    ctx.write_warning(params.get('Message'))
    return []


def write_verbose(ctx, params, input_items):
    """Write-Verbose: a verbose record under the command's $VerbosePreference (pwsh/streams.py)."""
    streams.write_record(ctx.interpreter.streams, 'verbose', to_string(params.get('Message')),
                         ctx.preference('VerbosePreference'))
    return []


def write_debug(ctx, params, input_items):
    """Write-Debug: a debug record under the command's $DebugPreference (pwsh/streams.py)."""
    streams.write_record(ctx.interpreter.streams, 'debug', to_string(params.get('Message')),
                         ctx.preference('DebugPreference'))
    return []


def _information(ctx, message_data, tags):
    """Cmdlet.WriteInformation(messageData, tags): the record's Source is the command's name (its
    MyInvocation.PSCommandPath, the calling script's path, is empty for a script run from text)."""
    clock = getattr(ctx.host, 'now', None)
    record = streams.InformationRecord(message_data, ctx.cmdlet.name, clock() if clock else None, tags)
    streams.write_information(ctx.interpreter.streams, record, ctx.preference('InformationPreference'))


def write_information(ctx, params, input_items):
    """Write-Information -MessageData [-Tags] (its reference page)."""
    tags = params.get('Tags')
    _information(ctx, params.get('MessageData'),
                 [] if tags is None else [to_string(tag) for tag in enumerate_value(tags)] if is_enumerable(tags)
                 else [to_string(tags)])
    return []


def _host_text(value, separator):
    """Write-Host's ProcessObject (WriteConsoleCmdlet.cs): a string as it is, an enumerable unrolled with the
    separator between its elements, anything else by ToString(); $null and an empty text give ''."""
    if value is None:
        return ''
    if isinstance(value, str):
        return value
    if is_enumerable(value):
        return to_string(separator).join(_host_text(item, separator) for item in enumerate_value(value))
    return to_string(value)


def write_host(ctx, params, input_items):
    """Write-Host (WriteConsoleCmdlet.cs, 5.1): the text as a HostInformationMessage in an information record tagged
    PSHOST, which the host shows whatever $InformationPreference says. A colour not given is read from the host's
    RawUI: win_powershell's host has none (HostException, caught), so it stays unset."""
    for colour in ('ForegroundColor', 'BackgroundColor'):
        if params.get(colour) is not None:
            raise Unsupported('Write-Host -%s' % colour)
    # One record per ProcessRecord: the -Object value, or each object piped in.
    for value in ([params.get('Object')] if input_items is None else input_items):
        message = streams.HostInformationMessage(_host_text(value, params.get('Separator', ' ')),
                                                 bool(params.get('NoNewline')))
        _information(ctx, message, ['PSHOST'])
    return []


class _OutNull(_Streaming):
    """Out-Null (reference/5.1): each object is dropped as it comes."""

    def each(self, item):
        pass


def new_object(ctx, params, input_items):
    if 'ComObject' in params:
        # A COM class is the Windows model's (an area's COM_CLASSES, by ProgID); one it does not model is an engine
        # gap, not a script error.
        com_class = ctx.host.com_class(to_string(params['ComObject'])) if ctx.host is not None else None
        if com_class is None:
            raise Unsupported('New-Object -ComObject %s' % to_string(params['ComObject']))
        return [com_class(ctx.host)]
    type_name = to_string(params.get('TypeName'))
    arguments = params.get('ArgumentList', [])
    arguments = enumerate_value(arguments) if is_enumerable(arguments) else [arguments]
    constructor = CONSTRUCTORS.get(type_name.lower()) or CONSTRUCTORS.get('system.' + type_name.lower())
    if constructor is None and type_name.endswith("[]") and pstypes.resolve(type_name[:-2]) is not None:
        # An array type's constructor takes its length; the elements are the type's default value.
        element = pstypes.resolve(type_name[:-2])
        default = element.convert(0) if element.name not in ('System.String', 'System.Object') else None

        def constructor(length):
            return PSArray([default] * int(length), element.name)
    if constructor is None and ctx.host is not None:
        constructor = ctx.host.constructor(type_name)
    if constructor is None:
        if pstypes.resolve(type_name) is not None or isinstance(pstypes.type_not_found(type_name), Unsupported):
            # A type Windows PowerShell may have whose constructor the engine does not model (types.type_not_found).
            raise Unsupported('New-Object -TypeName %s' % type_name)
        raise PSError('Cannot find type [%s]: verify that the assembly containing this type is loaded.' % type_name,
                      'System.Management.Automation.PSArgumentException',
                      'TypeNotFound,Microsoft.PowerShell.Commands.NewObjectCommand', 'InvalidType')
    from .members import construct  # pylint: disable=import-outside-toplevel
    value = construct(constructor, arguments, type_name)
    if 'Property' in params:
        from .members import set_member  # pylint: disable=import-outside-toplevel
        for key, item in params['Property'].items():
            set_member(value, to_string(key), item)
    return [value]


class CommandInfo:
    """What Get-Command writes: a FunctionInfo, CmdletInfo or ApplicationInfo (Name, CommandType, Source)."""

    PROPERTIES = ('Name', 'CommandType', 'Source')

    def __init__(self, name, command_type, net):
        self.Name = name  # pylint: disable=invalid-name
        self.CommandType = command_type  # pylint: disable=invalid-name
        self.Source = ''  # pylint: disable=invalid-name
        self.NET = net  # pylint: disable=invalid-name

    def to_string(self):
        return self.Name


def get_command(ctx, params, input_items):
    """Get-Command -Name (reference/5.1/Microsoft.PowerShell.Core/Get-Command.md): the function, cmdlet or
    application of each name; a name that is no command writes CommandNotFoundException (non-terminating), as
    the term-not-recognized error of about_Command_Precedence. Wildcards and the other parameters are not modelled."""
    if set(params) - {'Name'} or params.get('Name') is None:
        raise Unsupported('Get-Command with %s' % ', '.join(sorted(set(params) - {'Name'}) or ['no -Name']))
    names = params['Name']
    out = []
    for name in (enumerate_value(names) if is_enumerable(names) else [names]):
        name = to_string(name)
        if any(char in name for char in '*?['):
            raise Unsupported('Get-Command -Name with a wildcard (%s)' % name)
        interpreter = ctx.interpreter
        if name.lower() in interpreter.functions:
            out.append(CommandInfo(interpreter.functions[name.lower()].name, 'Function',
                                   'System.Management.Automation.FunctionInfo'))
        elif name.lower() in interpreter.commands:
            out.append(CommandInfo(interpreter.commands[name.lower()].name, 'Cmdlet',
                                   'System.Management.Automation.CmdletInfo'))
        elif ctx.host is not None and ctx.host.has_program(name):
            out.append(CommandInfo(name, 'Application', 'System.Management.Automation.ApplicationInfo'))
        else:
            ctx.write_error(PSError("The term '%s' is not recognized as the name of a cmdlet, function, script file, or "
                                    "operable program. Check the spelling of the name, or if a path was included, verify "
                                    "that the path is correct and try again." % name,
                                    'System.Management.Automation.CommandNotFoundException',
                                    'CommandNotFoundException,Microsoft.PowerShell.Commands.GetCommandCommand',
                                    'ObjectNotFound', target=name))
    return out


_DRIVES = ('c', 'hklm', 'hkcu', 'env', 'cert', 'function', 'variable', 'alias', 'wsman')


def _drive_of(path):
    head = path.split('\\', 1)[0].split('/', 1)[0]
    return head[:-1] if head.endswith(':') else None


def _check_drive(ctx, path):
    drive = _drive_of(path)
    drives = ctx.host.drives() if ctx.host is not None and hasattr(ctx.host, 'drives') else _DRIVES
    if drive is not None and drive.lower() not in drives:
        raise PSError("Cannot find drive. A drive with the name '%s' does not exist." % drive,
                      'System.Management.Automation.DriveNotFoundException',
                      'DriveNotFound,Microsoft.PowerShell.Commands.JoinPathCommand', 'ObjectNotFound', target=drive)


def join_path(ctx, params, input_items):
    """Join-Path: each -Path with -ChildPath, one separator between them; the drive must exist."""
    paths = params.get('Path')
    paths = enumerate_value(paths) if is_enumerable(paths) else [paths]
    child = to_string(params.get('ChildPath', ''))
    out = []
    for path in paths:
        path = to_string(path)
        _check_drive(ctx, path)
        if not child:
            out.append(path)
            continue
        out.append(path.rstrip('\\/') + '\\' + child.lstrip('\\/'))
    return out


def split_path(ctx, params, input_items):
    """Split-Path: -Parent (the default), -Leaf, -Qualifier, -NoQualifier, -IsAbsolute."""
    paths = params.get('Path', params.get('LiteralPath'))
    paths = enumerate_value(paths) if is_enumerable(paths) else [paths]
    out = []
    for path in (to_string(path) for path in paths):
        drive = _drive_of(path)
        qualifier = drive + ':' if drive is not None else ''
        rest = path[len(qualifier):]
        if params.get('Qualifier'):
            if not qualifier:
                raise PSError("Cannot parse path because path '%s' does not have a qualifier specified." % path,
                              'System.Management.Automation.ParameterBindingException', 'ParsePathFormatError')
            out.append(qualifier)
        elif params.get('NoQualifier'):
            out.append(rest)
        elif params.get('IsAbsolute'):
            out.append(bool(qualifier) or rest.startswith('\\\\'))
        elif params.get('Leaf'):
            out.append(rest.rstrip('\\').rsplit('\\', 1)[-1])
        else:
            trimmed = rest.rstrip('\\')
            if '\\' in trimmed:
                parent = trimmed.rsplit('\\', 1)[0] or '\\'
                out.append(qualifier + parent)
            else:
                # A root (C:\) or a bare name has no parent: the empty string.
                out.append('')
    return out


class PSCredential:
    NET = 'System.Management.Automation.PSCredential'

    def __init__(self, user, password):
        if not isinstance(password, SecureString):
            raise PSError('Cannot find an overload for "PSCredential" and the argument count: "2".',
                          'System.Management.Automation.MethodException')
        self.UserName = to_string(user)
        self.Password = password

    def GetNetworkCredential(self):  # pylint: disable=invalid-name
        return _NetworkCredential(self.UserName, self.Password.plain())


class _NetworkCredential:
    """System.Net.NetworkCredential (.NET API reference): made from a user name and a password string, its
    SecurePassword is the password as a SecureString."""
    NET = 'System.Net.NetworkCredential'

    def __init__(self, user, password):
        self.UserName = to_string(user)
        self.Password = to_string(password)

    @property
    def SecurePassword(self):  # pylint: disable=invalid-name
        return SecureString(self.Password)


CONSTRUCTORS = {
    'system.management.automation.pscredential': PSCredential,
    'pscredential': PSCredential,
    'system.collections.hashtable': Hashtable,
    'hashtable': Hashtable,
    'psobject': PSCustomObject,
    'system.management.automation.psobject': PSCustomObject,
    'system.collections.arraylist': lambda *a: ArrayList(),
    'system.net.networkcredential': _NetworkCredential,
    'net.networkcredential': _NetworkCredential,
    **dotnet.CONSTRUCTORS,
}


# The cmdlets whose model decides what -WhatIf leaves undone (pwsh/commands.py): ForEach-Object's script blocks run.
WHATIF_MODELLED = ('ForEach-Object',)

CORE_CMDLETS = [Cmdlet(name, function, models_what_if=name in WHATIF_MODELLED) for name, function in (
    ('Where-Object', _streaming(_WhereObject)),
    ('ForEach-Object', _streaming(_ForEachObject)),
    ('Select-Object', _streaming(_select_stage)),
    ('Sort-Object', sort_object),
    ('Measure-Object', measure_object),
    ('Write-Output', _streaming(_WriteOutput)),
    ('Write-Error', write_error),
    ('Write-Warning', write_warning),
    ('Write-Verbose', write_verbose),
    ('Write-Debug', write_debug),
    ('Write-Information', write_information),
    ('Write-Host', write_host),
    ('Out-Null', _streaming(_OutNull)),
    ('New-Object', new_object),
    ('Get-Command', get_command),
    ('ConvertTo-Json', convertto_json),
    ('ConvertFrom-Json', convertfrom_json),
    ('Add-Member', add_member),
    ('Group-Object', group_object),
    ('Join-Path', join_path),
    ('Split-Path', split_path),
)]

ALIASES = {'group': 'Group-Object', '?': 'Where-Object', 'where': 'Where-Object', '%': 'ForEach-Object', 'foreach': 'ForEach-Object',
           'select': 'Select-Object', 'sort': 'Sort-Object', 'measure': 'Measure-Object', 'echo': 'Write-Output',
           'write': 'Write-Output'}


# Cmdlets that take every object before they write (EndProcessing in 5.1): a pipeline that fails before they end
# loses their input on Windows too (pipeline.py).
for _function in (sort_object, measure_object, group_object, convertto_json, convertfrom_json):
    _function.collects = True


def command_table():
    table = {cmdlet.name.lower(): cmdlet for cmdlet in CORE_CMDLETS}
    for alias, name in ALIASES.items():
        table[alias] = table[name.lower()]
    return table
