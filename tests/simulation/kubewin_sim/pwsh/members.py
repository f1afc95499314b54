"""Properties and methods of values: .NET members, PowerShell's adapters, member enumeration.

Member names are case-insensitive (about_Properties, about_Methods). A hashtable's keys come before
its properties; a missing property is $null (strict mode off); a collection without the member hands
it to each element (member enumeration, about_Properties: PowerShell 3.0 and later). A .NET exception
in a method becomes MethodInvocationException ("Exception calling ...", about_Methods).
"""

import datetime

from . import types as pstypes
from .values import (AUTOMATION_NULL, Char, DictionaryEntry, Hashtable, PSArray, PSCustomObject, PSError, ScriptBlock,
                     enumerate_value, is_enumerable, is_null, to_string, type_name)


class PSNoteProperty:
    NET = 'System.Management.Automation.PSNoteProperty'

    def __init__(self, name, value):
        self.Name = name
        self.Value = value
        self.MemberType = 'NoteProperty'


class PSObjectView:
    """$x.PSObject: the adapter view; Properties lists an object's properties in order."""

    NET = 'System.Management.Automation.PSObject'

    def __init__(self, obj):
        self.obj = obj

    @property
    def Properties(self):  # pylint: disable=invalid-name
        obj = self.obj
        if isinstance(obj, PSCustomObject):
            return PSArray(PSNoteProperty(key, value) for key, value in obj.props.items())
        names = getattr(obj, 'PROPERTIES', None)
        if names is not None:
            return PSArray(PSNoteProperty(name, getattr(obj, name)) for name in names)
        return PSArray()

    @property
    def BaseObject(self):  # pylint: disable=invalid-name
        return self.obj


def _string_method(text, name, args):
    lower = name.lower()
    argc = len(args)
    strings = [to_string(arg) if not isinstance(arg, int) or isinstance(arg, bool) else arg for arg in args]
    if lower == 'substring':
        start = int(args[0])
        length = int(args[1]) if argc > 1 else len(text) - start
        if start < 0 or start > len(text) or length < 0 or start + length > len(text):
            raise PSError('startIndex cannot be larger than length of string.\r\nParameter name: startIndex'
                          if start > len(text) else 'Index and length must refer to a location within the string.'
                          '\r\nParameter name: length', 'System.ArgumentOutOfRangeException')
        return text[start:start + length]
    if lower == 'replace':
        old, new = to_string(args[0]), to_string(args[1])
        if old == '':
            raise PSError('String cannot be of zero length.\r\nParameter name: oldValue', 'System.ArgumentException')
        return text.replace(old, new)
    if lower in ('trim', 'trimstart', 'trimend'):
        listed = enumerate_value(args[0]) if argc == 1 and is_enumerable(args[0]) else args
        chars = ''.join(to_string(arg) for arg in listed) or None
        return {'trim': text.strip, 'trimstart': text.lstrip, 'trimend': text.rstrip}[lower](chars)
    if lower in ('startswith', 'endswith', 'contains'):
        other = strings[0]
        case_insensitive = argc > 1 and 'ignorecase' in to_string(args[1]).lower()
        a, b = (text.lower(), other.lower()) if case_insensitive else (text, other)
        return {'startswith': a.startswith, 'endswith': a.endswith, 'contains': lambda x: x in a}[lower](b)
    if lower in ('tolower', 'tolowerinvariant'):
        return text.lower()
    if lower in ('toupper', 'toupperinvariant'):
        return text.upper()
    if lower == 'split':
        separators = []
        for arg in args[:1]:
            separators.extend(to_string(item) for item in (enumerate_value(arg) if is_enumerable(arg) else [arg]))
        # String.Split(char[]) splits on each character; PowerShell passes a string as char[] (about_Split).
        chars = ''.join(separators)
        if not chars:
            return PSArray(text.split())
        pieces, current = [], []
        for char in text:
            if char in chars:
                pieces.append(''.join(current))
                current = []
            else:
                current.append(char)
        pieces.append(''.join(current))
        if argc > 1 and 'removeemptyentries' in to_string(args[-1]).lower():
            pieces = [piece for piece in pieces if piece]
        return PSArray(pieces)
    if lower == 'indexof':
        return text.find(strings[0])
    if lower == 'lastindexof':
        return text.rfind(strings[0])
    if lower == 'padleft':
        return text.rjust(int(args[0]), strings[1] if argc > 1 else ' ')
    if lower == 'padright':
        return text.ljust(int(args[0]), strings[1] if argc > 1 else ' ')
    if lower == 'tostring':
        return text
    if lower == 'equals':
        return text == to_string(args[0])
    if lower == 'tochararray':
        return PSArray((Char(char) for char in text), 'System.Char')
    if lower == 'insert':
        return text[:int(args[0])] + strings[1] + text[int(args[0]):]
    if lower == 'remove':
        start = int(args[0])
        return text[:start] + (text[start + int(args[1]):] if argc > 1 else '')
    raise method_not_found(text, name)


def method_not_found(obj, name):
    return PSError("Method invocation failed because [%s] does not contain a method named '%s'." % (type_name(obj), name),
                   'System.Management.Automation.RuntimeException', 'MethodNotFound', 'InvalidOperation')


def _find_attribute(obj, name):
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
        for attribute in vars(obj):
            if attribute.lower() == lower and not attribute.startswith('_'):
                return attribute
    return found


def get_member(obj, name):
    """$obj.Name."""
    lower = name.lower()
    if is_null(obj):
        # $null has Count and Length 0 since PowerShell 3.0 (about_Automatic_Variables, about_Properties).
        return 0 if lower in ('count', 'length') else None
    if lower == 'psobject':
        return PSObjectView(obj)
    if isinstance(obj, Hashtable):
        if name in obj:
            return obj[name]
        if name.isdigit() and int(name) in obj:
            return obj[int(name)]
        if lower == 'count':
            return len(obj)
        if lower == 'keys':
            return PSArray(obj.keys())
        if lower == 'values':
            return PSArray(obj.values())
        return None
    if isinstance(obj, PSCustomObject):
        if name in obj.props:
            return obj.props[name]
        return None
    if isinstance(obj, str):
        if lower == 'length':
            return len(obj)
        return None
    if isinstance(obj, (list, tuple)):
        if lower in ('count', 'length'):
            return len(obj)
        if lower == 'rank':
            return 1
        # Member enumeration: the member of each element that has it.
        values = []
        for item in obj:
            if is_null(item):
                continue
            value = get_member(item, name)
            if is_enumerable(value):
                values.extend(enumerate_value(value))
            elif value is not None or _has_member(item, name):
                values.append(value)
        if not values:
            return None
        return values[0] if len(values) == 1 else PSArray(values)
    if isinstance(obj, DictionaryEntry):
        return {'key': obj.Key, 'value': obj.Value, 'name': obj.Key}.get(lower)
    if isinstance(obj, datetime.datetime):
        return _datetime_member(obj, lower)
    attribute = _find_attribute(obj, name)
    if attribute is not None:
        value = getattr(obj, attribute)
        return None if callable(value) and not isinstance(value, (type, pstypes.NetType)) else value
    if lower in ('count', 'length'):
        # Any scalar has Count and Length 1 (about_Properties: PowerShell 3.0 and later).
        return 1
    return None


def _has_member(obj, name):
    if isinstance(obj, Hashtable):
        return name in obj
    if isinstance(obj, PSCustomObject):
        return name in obj.props
    return _find_attribute(obj, name) is not None


def _datetime_member(value, lower):
    table = {'year': value.year, 'month': value.month, 'day': value.day, 'hour': value.hour, 'minute': value.minute,
             'second': value.second, 'ticks': int((value - datetime.datetime(1, 1, 1)).total_seconds() * 10 ** 7)}
    if lower in table:
        return table[lower]
    # The Windows model's System.DateTime (windows/system.py), a subclass, adds properties of its own (Kind, Date):
    # only a plain datetime has none, so the type is compared, not isinstance.
    plain = type(value) is datetime.datetime  # pylint: disable=unidiomatic-typecheck
    attribute = _find_attribute(value, lower) if not plain else None
    if attribute is not None and not callable(getattr(value, attribute)):
        return getattr(value, attribute)
    return None


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
    attribute = _find_attribute(obj, name)
    if attribute is None or isinstance(obj, (str, int, float, list)):
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
        if isinstance(obj, str):
            return _string_method(obj, name, args)
        if isinstance(obj, ScriptBlock) and lower in ('invoke', 'invokereturnasis'):
            out = []
            interpreter.invoke_block(obj, scope, out, positional=list(args))
            from .interpreter import collect  # pylint: disable=import-outside-toplevel
            return PSArray(out) if lower == 'invoke' else collect(out)
        if isinstance(obj, Hashtable):
            return _dictionary_method(obj, lower, name, args)
        if isinstance(obj, list) and _find_attribute(obj, name) is None and lower in _LIST_METHODS:
            return _list_method(obj, lower, name, args)
        if lower == 'tostring' and not args:
            return to_string(obj)
        if lower == 'equals' and len(args) == 1:
            from .operators import equals  # pylint: disable=import-outside-toplevel
            return equals(obj, args[0])
        if isinstance(obj, list) and _find_attribute(obj, name) is None:
            # Method enumeration: the method of each element (about_Methods, PowerShell 3.0 and later).
            results = [invoke_method(item, name, args, interpreter, scope) for item in obj if not is_null(item)]
            flat = []
            for result in results:
                flat.extend(enumerate_value(result) if is_enumerable(result) else [result])
            return flat[0] if len(flat) == 1 else PSArray(flat)
        attribute = _find_attribute(obj, name)
        if attribute is None or not callable(getattr(obj, attribute)):
            raise method_not_found(obj, name)
        return getattr(obj, attribute)(*args)
    except PSError as error:
        raise _wrap_method_error(name, args, error) from None


def _dictionary_method(table, lower, name, args):
    if lower in ('containskey', 'contains'):
        return args[0] in table
    if lower == 'containsvalue':
        return any(value == args[0] for value in table.values())
    if lower == 'add':
        if is_null(args[0]):
            raise PSError('Key cannot be null.\r\nParameter name: key', 'System.ArgumentNullException')
        table.add(args[0], args[1])
        return AUTOMATION_NULL
    if lower == 'remove':
        table.remove(args[0])
        return AUTOMATION_NULL
    if lower == 'getenumerator':
        return PSArray(DictionaryEntry(key, value) for key, value in table.items())
    if lower == 'clear':
        for key in list(table.keys()):
            table.remove(key)
        return AUTOMATION_NULL
    if lower == 'clone':
        return table.copy()
    raise method_not_found(table, name)


_LIST_METHODS = ('add', 'remove', 'contains', 'indexof', 'clear', 'toarray', 'insert', 'removeat', 'addrange')


def _list_method(items, lower, name, args):
    fixed = isinstance(items, PSArray)
    if fixed and lower in ('add', 'remove', 'clear', 'insert', 'removeat', 'addrange'):
        raise PSError('Collection was of a fixed size.', 'System.NotSupportedException')
    if lower == 'add':
        items.append(args[0])
        return len(items) - 1
    if lower == 'addrange':
        items.extend(enumerate_value(args[0]))
        return AUTOMATION_NULL
    if lower == 'remove':
        for index, item in enumerate(items):
            if item == args[0]:
                del items[index]
                break
        return AUTOMATION_NULL
    if lower == 'contains':
        return args[0] in items
    if lower == 'indexof':
        return items.index(args[0]) if args[0] in items else -1
    if lower == 'clear':
        del items[:]
        return AUTOMATION_NULL
    if lower == 'toarray':
        return PSArray(items)
    if lower == 'insert':
        items.insert(int(args[0]), args[1])
        return AUTOMATION_NULL
    if lower == 'removeat':
        del items[int(args[0])]
        return AUTOMATION_NULL
    raise method_not_found(items, name)


def invoke_static(net_type, name, args, interpreter=None, scope=None):
    """[Type]::Name (args None for a property)."""
    if not isinstance(net_type, pstypes.NetType):
        raise PSError('Unable to find static member %s' % name, error_id='StaticMemberNotFound')
    if name.lower() == 'new' and args is not None and net_type.constructor is not None:
        try:
            return net_type.constructor(*args)
        except PSError as error:
            raise _wrap_method_error(name, args, error) from None
    member = None
    for key, value in net_type.statics.items():
        if key.lower() == name.lower():
            member = value
            break
    if member is None:
        if args is None:
            return None
        raise PSError("Method invocation failed because [%s] does not contain a method named '%s'."
                      % (net_type.name, name), 'System.Management.Automation.RuntimeException', 'MethodNotFound')
    if args is None:
        return member() if getattr(member, 'is_property', False) else member
    if not callable(member):
        raise method_not_found(member, name)
    try:
        if getattr(member, 'with_interpreter', False):
            # A static of the Windows model reads the node or the process through the runspace.
            return member(interpreter, *args)
        return member(*args)
    except PSError as error:
        raise _wrap_method_error(name, args, error) from None
