"""Properties and methods of values: .NET members, PowerShell's adapters, member enumeration.

Member names are case-insensitive (about_Properties, about_Methods). A hashtable's keys come before
its properties; a collection without the member hands it to each element (member enumeration,
about_Properties: PowerShell 3.0 and later). A .NET exception in a method becomes
MethodInvocationException ("Exception calling ...", about_Methods).

The engine never guesses a member (tests/simulation/README.md, "What the engine refuses"). A member the model
implements is read or called. Otherwise the value's documented member list (``netmembers``: the .NET Framework 4.8
type, PowerShell's own types, the CIM class page...) decides: a member the type has is ``Unsupported``; a member it
does not have is PowerShell's own behaviour - $null for a property (strict mode off), MethodNotFound for a method,
MethodCountCouldNotFindBest for a method without an overload of that many arguments. Where no complete list exists
(a CIM class, a type no source documents, a Python value that is no .NET type), any member the model does not
implement is ``Unsupported``. A PSCustomObject is PowerShell's own: a missing note property is $null.
"""

import datetime
import inspect

from . import netmembers
from . import types as pstypes
from .values import (AUTOMATION_NULL, Char, DictionaryEntry, EnumValue, Hashtable, PSArray, PSCustomObject, PSError,
                     ScriptBlock, Unsupported, enumerate_value, is_enumerable, is_null, to_string, type_name)


class PSNoteProperty:
    NET = 'System.Management.Automation.PSNoteProperty'

    def __init__(self, name, value):
        self.Name = name
        self.Value = value
        self.MemberType = 'NoteProperty'


class PSObjectView:
    """$x.PSObject: the adapter view; Properties lists an object's properties in order: a PSCustomObject's note
    properties, or the properties of a model object whose PROPERTIES hold every property its type documents."""

    NET = 'System.Management.Automation.PSObject'

    def __init__(self, obj):
        self.obj = obj

    @property
    def Properties(self):  # pylint: disable=invalid-name
        obj = self.obj
        if isinstance(obj, PSCustomObject):
            return PSArray(PSNoteProperty(key, value) for key, value in obj.props.items())
        names = getattr(obj, 'PROPERTIES', None)
        documented = netmembers.of_value(obj)
        if names is not None and documented is not None and documented.complete and \
                {key for key, (_name, kind) in documented.instance.items() if kind == 'property'} <= \
                {name.lower() for name in names}:
            return PSArray(PSNoteProperty(name, getattr(obj, name)) for name in names)
        raise Unsupported('.PSObject.Properties of a %s (the model does not list all its properties)'
                          % netmembers.documented_name(obj))

    @property
    def BaseObject(self):  # pylint: disable=invalid-name
        return self.obj


def _string_args(args):
    return [to_string(arg) if not isinstance(arg, int) or isinstance(arg, bool) else arg for arg in args]


def _substring(text, args):
    start = int(args[0])
    length = int(args[1]) if len(args) > 1 else len(text) - start
    if start < 0 or start > len(text) or length < 0 or start + length > len(text):
        raise PSError('startIndex cannot be larger than length of string.\r\nParameter name: startIndex'
                      if start > len(text) else 'Index and length must refer to a location within the string.'
                      '\r\nParameter name: length', 'System.ArgumentOutOfRangeException')
    return text[start:start + length]


def _replace(text, args):
    old, new = to_string(args[0]), to_string(args[1])
    if old == '':
        raise PSError('String cannot be of zero length.\r\nParameter name: oldValue', 'System.ArgumentException')
    return text.replace(old, new)


def _trimmer(kind):
    def trim(text, args):
        listed = enumerate_value(args[0]) if len(args) == 1 and is_enumerable(args[0]) else args
        chars = ''.join(to_string(arg) for arg in listed) or None
        return {'trim': text.strip, 'trimstart': text.lstrip, 'trimend': text.rstrip}[kind](chars)
    return trim


def _comparer(kind):
    """StartsWith/EndsWith(value[, StringComparison]) and Contains(value): ordinal unless told to ignore case (the
    culture-sensitive comparison is the same for the texts scripts compare)."""
    def compare(text, args):
        other = _string_args(args)[0]
        if len(args) > 1 and not isinstance(args[1], EnumValue) and not isinstance(args[1], str):
            raise Unsupported('String.%s with a %s second argument' % (kind, type_name(args[1])))
        case_insensitive = len(args) > 1 and 'ignorecase' in to_string(args[1]).lower()
        a, b = (text.lower(), other.lower()) if case_insensitive else (text, other)
        return {'StartsWith': a.startswith, 'EndsWith': a.endswith, 'Contains': lambda x: x in a}[kind](b)
    return compare


def _split(text, args):
    """String.Split(params char[]) and Split(char[], StringSplitOptions): a string argument is passed as char[]
    (about_Split). The overloads with a count, and Split(string[], options) with a separator longer than one
    character (which PowerShell may pick for a string), are not modelled."""
    options = None
    if len(args) == 2 and (isinstance(args[1], EnumValue) or isinstance(args[1], str) and not isinstance(args[1], Char)
                           and to_string(args[1]).lower() in ('none', 'removeemptyentries')):
        options = to_string(args[1]).lower()
        separators = enumerate_value(args[0]) if is_enumerable(args[0]) else [args[0]]
        if any(len(to_string(item)) > 1 for item in separators):
            raise Unsupported('String.Split(string[], StringSplitOptions) with a separator of several characters')
    elif len(args) > 1 and any(isinstance(arg, int) and not isinstance(arg, bool) for arg in args[1:]):
        raise Unsupported('String.Split with a count')
    else:
        separators = enumerate_value(args[0]) if len(args) == 1 and is_enumerable(args[0]) else args
    # No separator: .NET splits on every white-space character, keeping the empty pieces.
    chars = ''.join(to_string(item) for item in separators) or ''.join(char for char in text if char.isspace())
    pieces, current = [], []
    for char in text:
        if char in chars:
            pieces.append(''.join(current))
            current = []
        else:
            current.append(char)
    pieces.append(''.join(current))
    if options == 'removeemptyentries':
        pieces = [piece for piece in pieces if piece]
    return PSArray(pieces)


def _pad(kind):
    def pad(text, args):
        fill = _string_args(args)[1] if len(args) > 1 else ' '
        return text.rjust(int(args[0]), fill) if kind == 'left' else text.ljust(int(args[0]), fill)
    return pad


def _insert(text, args):
    return text[:int(args[0])] + to_string(args[1]) + text[int(args[0]):]


def _remove(text, args):
    start = int(args[0])
    return text[:start] + (text[start + int(args[1]):] if len(args) > 1 else '')


# The System.String methods the engine implements: name -> (argument counts implemented, function(text, args)).
# Other overloads are Unsupported (System.String's documented overloads: netmembers/framework.json).
STRING_METHODS = {
    'Substring': ((1, 2), _substring),
    'Replace': ((2,), _replace),
    'Trim': (None, _trimmer('trim')),
    'TrimStart': (None, _trimmer('trimstart')),
    'TrimEnd': (None, _trimmer('trimend')),
    'StartsWith': ((1, 2), _comparer('StartsWith')),
    'EndsWith': ((1, 2), _comparer('EndsWith')),
    'Contains': ((1,), _comparer('Contains')),
    'ToLower': ((0,), lambda text, args: text.lower()),
    'ToLowerInvariant': ((0,), lambda text, args: text.lower()),
    'ToUpper': ((0,), lambda text, args: text.upper()),
    'ToUpperInvariant': ((0,), lambda text, args: text.upper()),
    'Split': (None, _split),
    'IndexOf': ((1,), lambda text, args: text.find(_string_args(args)[0])),
    'LastIndexOf': ((1,), lambda text, args: text.rfind(_string_args(args)[0])),
    'PadLeft': ((1, 2), _pad('left')),
    'PadRight': ((1, 2), _pad('right')),
    'ToString': ((0,), lambda text, args: text),
    'Equals': ((1,), lambda text, args: isinstance(args[0], str) and text == args[0]),
    'ToCharArray': ((0,), lambda text, args: PSArray((Char(char) for char in text), 'System.Char')),
    'Insert': ((2,), _insert),
    'Remove': ((1, 2), _remove),
}


def method_not_found(obj, name):
    return PSError("Method invocation failed because [%s] does not contain a method named '%s'." % (type_name(obj), name),
                   'System.Management.Automation.RuntimeException', 'MethodNotFound', 'InvalidOperation')


def _no_overload(name, count):
    return PSError('Cannot find an overload for "%s" and the argument count: "%d".' % (name, count),
                   'System.Management.Automation.MethodException', 'MethodCountCouldNotFindBest', 'InvalidOperation')


def _model_attribute(obj, name):
    """The Python attribute of a model object that stands for the .NET member ``name``, or None.

    Only a member of the value's documented type (or one the class declares in PROPERTIES) is one: a model
    class's Python helpers (to_string...) are not members. A class whose type no source documents exposes its
    PascalCase attributes and its PROPERTIES."""
    lower = name.lower()
    cls = type(obj)
    table = cls.__dict__.get('_member_names')
    if table is None:
        table = {}
        for klass in reversed(cls.__mro__):
            if klass.__module__ == 'builtins':
                continue  # Python's own list/str/object methods are not .NET members
            for attribute in vars(klass):
                if not attribute.startswith('_'):
                    table[attribute.lower()] = attribute
        try:
            cls._member_names = table
        except TypeError:
            pass
    found = table.get(lower)
    if found is None and hasattr(obj, '__dict__'):
        found = next((attribute for attribute in vars(obj) if attribute.lower() == lower and
                      not attribute.startswith('_')), None)
    if found is None:
        return None
    declared = {item.lower() for item in (getattr(obj, 'PROPERTIES', None) or ())}
    documented = netmembers.of_value(obj)
    if lower in declared or (documented is not None and documented.member(name) is not None):
        return found
    if (documented is None or not documented.complete) and found[0].isupper() and found not in ('NET', 'CLASS', 'KEY',
                                                                                                'PROPERTIES', 'DOCUMENTED',
                                                                                                'NET_NAMES', 'ENUMERABLE'):
        return found
    return None


def _missing_member(obj, name):
    """A property the model does not implement: Unsupported when the type has it or the engine cannot tell;
    else what PowerShell gives for a member the type does not have ($null; Count and Length 1 on a scalar)."""
    documented = netmembers.of_value(obj)
    what = netmembers.documented_name(obj)
    if documented is None:
        raise Unsupported('member %s of [%s] (no member list for that type: the engine does not know it)' % (name, what))
    if documented.member(name) is not None:
        raise Unsupported('%s of [%s] (a member of the type the engine does not implement; %s)'
                          % (documented.member(name)[0], what, documented.source))
    if not documented.complete:
        raise Unsupported('member %s of [%s] (the member list the engine has is not complete: %s)'
                          % (name, what, documented.source))
    if name.lower() in ('count', 'length') and not is_enumerable(obj):
        # Any scalar has Count and Length 1 (about_Properties: PowerShell 3.0 and later).
        return 1
    return None


def _missing_method(obj, name, args, static=False, documented=None, what=None):
    """A method the model does not implement, or not with these arguments: Unsupported when the type has it (with an
    overload of that many arguments) or the engine cannot tell; else PowerShell's MethodNotFound or
    MethodCountCouldNotFindBest."""
    documented = documented if documented is not None or static else netmembers.of_value(obj)
    what = what or netmembers.documented_name(obj)
    if documented is None:
        raise Unsupported('method %s of [%s] (no member list for that type: the engine does not know it)' % (name, what))
    member = documented.member(name, static)
    if member is not None and isinstance(member[1], list):
        if documented.has_overload(name, len(args), static):
            raise Unsupported('%s(%d argument%s) of [%s] (an overload the engine does not implement; %s)'
                              % (member[0], len(args), '' if len(args) == 1 else 's', what, documented.source))
        raise _no_overload(member[0], len(args))
    if member is None and not documented.complete:
        raise Unsupported('method %s of [%s] (the member list the engine has is not complete: %s)'
                          % (name, what, documented.source))
    if static:
        raise PSError("Method invocation failed because [%s] does not contain a method named '%s'." % (what, name),
                      'System.Management.Automation.RuntimeException', 'MethodNotFound', 'InvalidOperation')
    raise method_not_found(obj, name)


def _call(function, args, obj, name, static=None):
    """Call a model's method with the script's arguments: an argument count its Python signature does not take is
    an overload the model does not implement. ``static`` is the NetType of a static method."""
    try:
        inspect.signature(function).bind(*args)
    except TypeError:
        if static is not None:
            return _missing_method(None, name, args, True, netmembers.lookup(static.name), static.name)
        return _missing_method(obj, name, args)
    except ValueError:
        pass  # a builtin without a signature
    return function(*args)


def construct(constructor, args, what):
    """New-Object's call of a modelled constructor: an argument count it does not take is an overload the model
    does not implement (or one the type does not have: MethodCountCouldNotFindBest for 'new')."""
    documented = netmembers.lookup(what) or netmembers.lookup('System.' + what)
    net_type = pstypes.NetType(documented.name if documented is not None else what)
    return _call(constructor, list(args), None, 'new', static=net_type)


class TypeNameCollection(list):
    """What .PSTypeNames is: a Collection of strings (about_Intrinsic_Members: a CodeProperty of type
    System.Collections.ObjectModel.Collection`1[System.String])."""

    NET = 'System.Collections.ObjectModel.Collection`1[[System.String]]'


_INTRINSIC = ('psobject', 'pstypenames', 'psbase', 'psadapted', 'psextended')


def _intrinsic(obj, lower):
    """The members PowerShell gives every object (about_Intrinsic_Members, about_Hidden): PSObject, and PSTypeNames
    where the engine knows the type's whole base chain; PSBase, PSAdapted and PSExtended are not modelled."""
    if lower == 'psobject':
        return PSObjectView(obj)
    if lower == 'pstypenames':
        names = _type_names(obj)
        if names is None:
            raise Unsupported('.PSTypeNames of a %s' % netmembers.documented_name(obj))
        return TypeNameCollection(names)
    raise Unsupported('intrinsic member %s' % {'psbase': 'PSBase', 'psadapted': 'PSAdapted',
                                               'psextended': 'PSExtended'}[lower])


def _type_names(obj):
    """A .NET object's PSTypeNames: its type and base types up to System.Object; a PSCustomObject's
    (PSCustomObject, Object, after a type name its maker inserted). None where the chain is not known (a CIM instance, a type no source documents)."""
    if isinstance(obj, PSCustomObject):
        return list(obj.TYPE_NAMES)
    if netmembers.documented_name(obj).startswith(netmembers.CIM_PREFIX):
        # PowerShell's CIM adapter puts the class and its superclasses, with and without their namespace, before
        # CimInstance (CimInstanceAdapter.GetTypeNameHierarchy): the model does not know the superclasses.
        return None
    names = []
    current = type_name(obj)
    while current and current not in names:
        documented = netmembers.lookup(current)
        if documented is None or not documented.complete or current.startswith(netmembers.CIM_PREFIX):
            return None
        names.append(documented.name if not current.endswith(']') else current)
        current = documented.base
    return names


def get_member(obj, name):
    """$obj.Name."""
    lower = name.lower()
    if is_null(obj):
        # $null has Count and Length 0 since PowerShell 3.0 (about_Automatic_Variables, about_Properties).
        return 0 if lower in ('count', 'length') else None
    if lower in _INTRINSIC:
        return _intrinsic(obj, lower)
    if isinstance(obj, Hashtable):
        return _dictionary_member(obj, name)
    if isinstance(obj, PSCustomObject):
        if name in obj.props:
            return obj.props[name]
        if netmembers.lookup(obj.NET).member(name) is not None:
            raise Unsupported('%s of a PSCustomObject (a member of its type the engine does not implement)' % name)
        return None  # a note property it does not have: $null (about_PSCustomObject)
    if isinstance(obj, str):
        if lower == 'length':
            return len(obj)
        return _missing_member(obj, name)
    if isinstance(obj, (list, tuple)):
        return _collection_member(obj, name)
    if isinstance(obj, DictionaryEntry):
        found = {'key': obj.Key, 'value': obj.Value, 'name': obj.Key}
        return found[lower] if lower in found else _missing_member(obj, name)
    if isinstance(obj, datetime.datetime):
        return _datetime_member(obj, name)
    attribute = _model_attribute(obj, name)
    if attribute is not None:
        value = getattr(obj, attribute)
        if callable(value) and not isinstance(value, (type, pstypes.NetType)):
            raise Unsupported('method %s of [%s] read as a property (a PSMethod)' % (attribute, type_name(obj)))
        return value
    return _missing_member(obj, name)


def _dictionary_member(table, name):
    """A dictionary's key comes first; then the properties of Hashtable/OrderedDictionary the engine implements."""
    if name in table:
        return table[name]
    if name.isdigit() and int(name) in table:
        return table[int(name)]
    return _dictionary_property(table, name)


# The properties of Hashtable/OrderedDictionary the engine implements (.NET API reference: Hashtable.Count, .Keys,
# .Values).
_DICTIONARY_PROPERTIES = {'count': len, 'keys': lambda table: PSArray(table.keys()),
                          'values': lambda table: PSArray(table.values())}


def _dictionary_property(table, name):
    """A property of the dictionary itself (not a key)."""
    lower = name.lower()
    if lower in _DICTIONARY_PROPERTIES:
        return _DICTIONARY_PROPERTIES[lower](table)
    documented = netmembers.of_value(table)
    if documented is not None and documented.member(name) is not None:
        raise Unsupported('%s of [%s] (a member of the type the engine does not implement)'
                          % (documented.member(name)[0], documented.name))
    return None  # a key it does not hold: $null


def _collection_member(items, name):
    lower = name.lower()
    if lower in ('count', 'length'):
        return len(items)
    if lower == 'rank' and isinstance(items, PSArray):
        return 1
    attribute = _model_attribute(items, name) if not isinstance(items, PSArray) else None
    if attribute is not None and not callable(getattr(items, attribute)):
        return getattr(items, attribute)
    documented = netmembers.of_value(items)
    if documented is None:
        raise Unsupported('member %s of [%s] (no member list for that type)' % (name, type_name(items)))
    if documented.member(name) is not None:
        raise Unsupported('%s of [%s] (a member of the type the engine does not implement)'
                          % (documented.member(name)[0], documented.name))
    # Member enumeration: the member of each element that has it.
    values = []
    for item in items:
        if is_null(item):
            continue
        value = get_member(item, name)
        if is_enumerable(value):
            values.extend(enumerate_value(value))
        elif value is not None or has_property(item, name):
            values.append(value)
    if not values:
        return None
    return values[0] if len(values) == 1 else PSArray(values)


def has_property(obj, name):
    """Whether the value has a property of that name the engine implements (a key, a note property...)."""
    if isinstance(obj, Hashtable):
        return name in obj
    if isinstance(obj, PSCustomObject):
        return name in obj.props
    if isinstance(obj, (str, list, tuple)):
        return name.lower() in (('length',) if isinstance(obj, str) else ('count', 'length'))
    attribute = _model_attribute(obj, name)
    return attribute is not None and not callable(getattr(obj, attribute))


def adapted_property(obj, name):
    """(True, value) when ``name`` is a property of the value as its PSObject lists it, else (False, None): what
    ValueFromPipelineByPropertyName binds from (about_Functions_Advanced_Parameters: "the pipeline object must have a
    property with the same name or alias as the parameter"; PowerShell/PowerShell 60b3b304f2
    engine/CmdletParameterBinderController.cs reads the object's properties). A PSCustomObject's note properties; a
    dictionary's own properties (Count, Keys...), never its keys; a property of the value's documented type.
    Unsupported where the type has the property and the model does not implement it, or where the engine cannot tell
    (no complete member list), as for any member (get_member)."""
    if is_null(obj):
        return False, None
    if isinstance(obj, PSCustomObject) and name in obj.props:
        return True, obj.props[name]
    if isinstance(obj, Hashtable):
        if name.lower() in _DICTIONARY_PROPERTIES:
            return True, _DICTIONARY_PROPERTIES[name.lower()](obj)
    elif not isinstance(obj, PSCustomObject) and has_property(obj, name):
        return True, get_member(obj, name)
    documented = netmembers.of_value(obj)
    member = documented.member(name) if documented is not None else None
    if member is not None and isinstance(member[1], list):
        return False, None  # a method is no property
    if member is not None or documented is None or not documented.complete:
        # get_member's rule for a property the model does not implement: Unsupported (this raises).
        _missing_member(obj, name)
    return False, None


def is_method(obj, name):
    """Whether ``name`` is a method of the value: one the engine implements or one its type documents."""
    tables = ((str, STRING_METHODS), (Hashtable, DICTIONARY_METHODS), (list, LIST_METHODS))
    if any(isinstance(obj, kind) and _method_entry(table, name) is not None for kind, table in tables):
        return True
    attribute = _model_attribute(obj, name) if not is_null(obj) else None
    if attribute is not None:
        return callable(getattr(obj, attribute))
    documented = netmembers.of_value(obj)
    return documented is not None and documented.is_method(name)


# System.DateTime properties the engine reads from a Python datetime.
_DATETIME_PROPERTIES = {
    'year': lambda value: value.year, 'month': lambda value: value.month, 'day': lambda value: value.day,
    'hour': lambda value: value.hour, 'minute': lambda value: value.minute, 'second': lambda value: value.second,
    'ticks': lambda value: int((value - datetime.datetime(1, 1, 1)).total_seconds() * 10 ** 7),
}


def _datetime_member(value, name):
    lower = name.lower()
    if lower in _DATETIME_PROPERTIES:
        return _DATETIME_PROPERTIES[lower](value)
    # The Windows model's System.DateTime (windows/system.py, windows/filesystem.py), a subclass, adds members of its
    # own (Kind, Date); a plain datetime has none but the table above.
    plain = type(value) is datetime.datetime  # pylint: disable=unidiomatic-typecheck
    attribute = _model_attribute(value, name) if not plain else None
    if attribute is not None and not callable(getattr(value, attribute)):
        return getattr(value, attribute)
    return _missing_member(value, name)


def set_member(obj, name, value):
    if is_null(obj):
        raise PSError("The property '%s' cannot be found on this object. Verify that the property exists and can be set."
                      % name, 'System.Management.Automation.RuntimeException', 'PropertyAssignmentException')
    if isinstance(obj, Hashtable):
        obj[name] = value
        return
    if isinstance(obj, PSCustomObject):
        if name not in obj.props:
            raise PSError("The property '%s' cannot be found on this object. Verify that the property exists and can be "
                          "set." % name, 'System.Management.Automation.RuntimeException', 'PropertyNotFound')
        obj.props[name] = value
        return
    attribute = _model_attribute(obj, name) if not isinstance(obj, (str, int, float, list)) else None
    if attribute is None or callable(getattr(obj, attribute)):
        documented = netmembers.of_value(obj)
        if documented is None or not documented.complete or documented.member(name) is not None:
            raise Unsupported('setting %s of [%s]' % (name, netmembers.documented_name(obj)))
        raise PSError("The property '%s' cannot be found on this object. Verify that the property exists and can be set."
                      % name, 'System.Management.Automation.RuntimeException', 'PropertyNotFound')
    setattr(obj, attribute, value)


def _wrap_method_error(name, args, error):
    """A .NET exception in a method call, as PowerShell reports it (MethodInvocationException)."""
    if error.type_name in ('System.Management.Automation.MethodInvocationException',) or \
            error.error_id in ('MethodNotFound', 'InvokeMethodOnNull', 'MethodCountCouldNotFindBest'):
        return error
    return PSError('Exception calling "%s" with "%d" argument(s): "%s"' % (name, len(args), error.message),
                   'System.Management.Automation.MethodInvocationException', error.error_id and 'DotNetMethodException',
                   inner=error)


def invoke_method(obj, name, args, interpreter=None, scope=None):
    """$obj.Name(args)."""
    lower = name.lower()
    if is_null(obj):
        raise PSError('You cannot call a method on a null-valued expression.',
                      'System.Management.Automation.RuntimeException', 'InvokeMethodOnNull', 'InvalidOperation')
    if lower == 'gettype' and not args:
        return pstypes.resolve(type_name(obj)) or pstypes.NetType(type_name(obj))
    try:
        return _invoke(obj, name, args, interpreter, scope)
    except PSError as error:
        raise _wrap_method_error(name, args, error) from None


def _invoke(obj, name, args, interpreter, scope):
    lower = name.lower()
    if isinstance(obj, str):
        return _table_method(STRING_METHODS, obj, name, args)
    if isinstance(obj, ScriptBlock) and lower in ('invoke', 'invokereturnasis'):
        out = []
        interpreter.invoke_block(obj, scope, out, positional=list(args))
        from .interpreter import collect  # pylint: disable=import-outside-toplevel
        return PSArray(out) if lower == 'invoke' else collect(out)
    if isinstance(obj, Hashtable):
        return _table_method(DICTIONARY_METHODS, obj, name, args)
    if isinstance(obj, list) and _model_attribute(obj, name) is None:
        if _method_entry(LIST_METHODS, name) is not None:
            return _table_method(LIST_METHODS, obj, name, args)
        documented = netmembers.of_value(obj)
        if documented is not None and documented.member(name) is None and documented.complete:
            # Method enumeration: the method of each element (about_Methods, PowerShell 3.0 and later).
            results = [invoke_method(item, name, args, interpreter, scope) for item in obj if not is_null(item)]
            flat = []
            for result in results:
                flat.extend(enumerate_value(result) if is_enumerable(result) else [result])
            return flat[0] if len(flat) == 1 else PSArray(flat)
    attribute = _model_attribute(obj, name)
    if attribute is not None and callable(getattr(obj, attribute)):
        return _call(getattr(obj, attribute), args, obj, name)
    if lower == 'tostring' and not args and not isinstance(obj, PSCustomObject):
        # Object.ToString(): a collection's and a dictionary's is their type name; a value's, its [string] form.
        return type_name(obj) if isinstance(obj, (list, tuple, Hashtable)) else to_string(obj)
    if lower == 'equals' and len(args) == 1:
        from .operators import equals  # pylint: disable=import-outside-toplevel
        return equals(obj, args[0])
    return _missing_method(obj, name, args)


def _method_entry(table, name):
    return next((entry for key, entry in table.items() if key.lower() == name.lower()), None)


def _table_method(table, obj, name, args):
    """A method of a built-in type the engine implements in a table: name -> (argument counts or None for any,
    function(obj, args))."""
    entry = _method_entry(table, name)
    if entry is None or (entry[0] is not None and len(args) not in entry[0]):
        return _missing_method(obj, name, args)
    return entry[1](obj, args)


def _dictionary_add(table, args):
    if is_null(args[0]):
        raise PSError('Key cannot be null.\r\nParameter name: key', 'System.ArgumentNullException')
    table.add(args[0], args[1])
    return AUTOMATION_NULL


def _dictionary_clear(table, _args):
    for key in list(table.keys()):
        table.remove(key)
    return AUTOMATION_NULL


# The Hashtable / OrderedDictionary methods the engine implements (System.Collections.Hashtable reference).
DICTIONARY_METHODS = {
    'ContainsKey': ((1,), lambda table, args: args[0] in table),
    'Contains': ((1,), lambda table, args: args[0] in table),
    'ContainsValue': ((1,), lambda table, args: any(value == args[0] for value in table.values())),
    'Add': ((2,), _dictionary_add),
    'Remove': ((1,), lambda table, args: table.remove(args[0]) or AUTOMATION_NULL),
    'GetEnumerator': ((0,), lambda table, args: PSArray(DictionaryEntry(key, value) for key, value in table.items())),
    'Clear': ((0,), _dictionary_clear),
    'Clone': ((0,), lambda table, args: table.copy()),
}


def _fixed(function):
    """A method an array has through IList but cannot honour: NotSupportedException (System.Array reference)."""
    def call(items, args):
        if isinstance(items, PSArray):
            raise PSError('Collection was of a fixed size.', 'System.NotSupportedException')
        return function(items, args)
    return call


def _list_remove(items, args):
    for index, item in enumerate(items):
        if item == args[0]:
            del items[index]
            break
    return AUTOMATION_NULL


def _list_remove_at(items, args):
    del items[int(args[0])]
    return AUTOMATION_NULL


def _list_add(items, args):
    items.append(args[0])
    return len(items) - 1


# The collection methods the engine implements, of arrays (through IList) and ArrayList.
LIST_METHODS = {
    'Add': ((1,), _fixed(_list_add)),
    'AddRange': ((1,), _fixed(lambda items, args: items.extend(enumerate_value(args[0])) or AUTOMATION_NULL)),
    'Remove': ((1,), _fixed(_list_remove)),
    'Contains': ((1,), lambda items, args: args[0] in items),
    'IndexOf': ((1,), lambda items, args: items.index(args[0]) if args[0] in items else -1),
    'Clear': ((0,), _fixed(lambda items, args: items.clear() or AUTOMATION_NULL)),
    'ToArray': ((0,), lambda items, args: PSArray(items)),
    'Insert': ((2,), _fixed(lambda items, args: items.insert(int(args[0]), args[1]) or AUTOMATION_NULL)),
    'RemoveAt': ((1,), _fixed(_list_remove_at)),
}


def invoke_static(net_type, name, args, interpreter=None, scope=None):
    """[Type]::Name (args None for a property)."""
    if not isinstance(net_type, pstypes.NetType):
        raise PSError('Unable to find static member %s' % name, error_id='StaticMemberNotFound')
    if name.lower() == 'new' and args is not None and net_type.constructor is not None:
        try:
            return _call(net_type.constructor, args, None, 'new', static=net_type)
        except PSError as error:
            raise _wrap_method_error(name, args, error) from None
    member = next((value for key, value in net_type.statics.items() if key.lower() == name.lower()), None)
    if member is None:
        return _missing_static(net_type, name, args)
    if args is None:
        return member() if getattr(member, 'is_property', False) else member
    if not callable(member):
        raise method_not_found(member, name)
    try:
        if getattr(member, 'with_interpreter', False):
            # A static of the Windows model reads the node or the process through the runspace.
            return _call(member, [interpreter] + list(args), None, name, static=net_type)
        return _call(member, args, None, name, static=net_type)
    except PSError as error:
        raise _wrap_method_error(name, args, error) from None


def _missing_static(net_type, name, args):
    """A static member the model does not implement: Unsupported when the type has it or the engine cannot tell;
    a static property the type does not have is $null (strict mode off), a method MethodNotFound."""
    documented = netmembers.lookup(net_type.name)
    if args is not None:
        return _missing_method(None, name, args, True, documented, net_type.name)
    if documented is None:
        raise Unsupported('static member %s of [%s] (no member list for that type: the engine does not know it)'
                          % (name, net_type.name))
    if documented.member(name, static=True) is not None:
        raise Unsupported('[%s]::%s (a static member the engine does not implement; %s)'
                          % (net_type.name, documented.member(name, static=True)[0], documented.source))
    if not documented.complete:
        raise Unsupported('static member %s of [%s] (the member list the engine has is not complete)'
                          % (name, net_type.name))
    return None
