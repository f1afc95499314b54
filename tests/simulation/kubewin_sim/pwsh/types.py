"""The .NET types a script can name: [int], [string[]], [System.IO.Path], enums, and how casts convert.

A type is registered once under its full name and its accelerators (about_Type_Accelerators,
reference/5.1). Casting follows about_Type_Conversion: a string is parsed into a number, a number
into an integer with banker's rounding, a scalar into a one-element array, a hashtable into an
[ordered] or [pscustomobject], a string into an enum by name (flags joined with ', '), a string into
a DateTime with the invariant culture.

The engine never guesses (tests/simulation/README.md, "What the engine refuses"): a type name it cannot resolve is
``Unsupported`` when .NET Framework or PowerShell may have that type - a 5.1 type accelerator, a name in the
System or Microsoft namespaces or in a namespace .NET Framework declares (``[IO.Path]`` is System.IO.Path), a bare
name of a System type (``[DayOfWeek]``) - and TypeNotFound, Windows' own error, only otherwise (a type a script has
not yet added with Add-Type). A conversion the engine does not implement is ``Unsupported``, not InvalidCast.
"""

import contextvars
import datetime
import decimal
import math
import uuid

from .values import (AUTOMATION_NULL, Byte, Char, EnumType, EnumValue, Hashtable, Int16, Int64, OrderedDictionary,
                     PSArray, PSCustomObject, PSError, SByte, ScriptBlock, SecureString, Single, SwitchParameter,
                     UInt16, UInt32, UInt64, Unsupported, is_enumerable, enumerate_value, is_null, parse_number,
                     round_half_even, to_bool, to_string, type_name)


class NetType:
    """One .NET type: how a value converts to it, how -is tests it, its static members."""

    def __init__(self, name, convert=None, test=None, statics=None, bases=(), constructor=None):
        self.name = name
        self.constructor = constructor
        self._convert = convert
        self._test = test
        self.statics = dict(statics or {})
        self.bases = tuple(bases)

    NET = 'System.RuntimeType'

    def __str__(self):
        return self.name

    def convert(self, value):
        if self._convert is None:
            if self.test(value):
                return value
            # No conversion to this type is modelled: PowerShell's LanguagePrimitives would try a constructor, a
            # Parse method, IConvertible, op_Implicit... (about_Type_Conversion), which the engine does not know.
            raise Unsupported('conversion of a %s to [%s]' % (type_name(value) or '$null', self.name))
        return self._convert(value)

    def test(self, value):
        if self._test is not None:
            return self._test(value)
        actual = type_name(value)
        return actual == self.name or self.name in getattr(value, 'NET_BASES', ())

    @property
    def FullName(self):  # pylint: disable=invalid-name
        return self.name

    @property
    def Name(self):  # pylint: disable=invalid-name
        return self.name.rsplit('.', 1)[-1]


class ArrayType(NetType):
    def __init__(self, element):
        super().__init__(element.name + '[]')
        self.element = element

    def convert(self, value):
        items = enumerate_value(value) if is_enumerable(value) else ([] if is_null(value) else [value])
        return PSArray((self.element.convert(item) for item in items), self.element.name)

    def test(self, value):
        return isinstance(value, PSArray) and (self.element.name == 'System.Object' or value.element == self.element.name)


def cast_error(value, target, detail=None):
    text = to_string(value)
    if detail:
        message = 'Cannot convert value "%s" to type "%s". Error: "%s"' % (text, target, detail)
    elif isinstance(value, str) or value is None:
        message = 'Cannot convert value "%s" to type "%s".' % (text, target)
    else:
        message = 'Cannot convert the "%s" value of type "%s" to type "%s".' % (text, type_name(value), target)
    return PSError(message, 'System.Management.Automation.PSInvalidCastException', 'InvalidCastException', 'InvalidArgument')


# The values whose conversions the engine reasons about: a conversion of one of these that a converter refuses is
# PowerShell's InvalidCast; of any other object, a conversion the engine does not know (Unsupported).
def _known_source(value):
    return is_null(value) or isinstance(value, (str, bool, int, float, decimal.Decimal, Hashtable, PSCustomObject,
                                                ScriptBlock, PSArray, EnumValue))


def no_conversion(value, target, detail=None):
    """The error for a value a converter cannot turn into ``target``."""
    if not _known_source(value):
        return Unsupported('conversion of a %s to [%s]' % (type_name(value), target))
    return cast_error(value, target, detail)


def _scalar(value, target):
    """A one-element collection converts as its element; a longer one cannot become a scalar."""
    if is_enumerable(value):
        items = enumerate_value(value)
        if len(items) == 1:
            return items[0]
        raise cast_error(value, target)
    return value


def _integral_converter(cls, name):
    def convert(value):
        value = _scalar(value, name)
        if is_null(value):
            return cls(0)
        if isinstance(value, bool):
            number = int(value)
        elif isinstance(value, EnumValue):
            number = value.value
        elif isinstance(value, str):
            parsed = parse_number(value)
            if parsed is None:
                raise cast_error(value, name, 'Input string was not in a correct format.')
            number = round_half_even(parsed) if isinstance(parsed, float) else int(parsed)
        elif isinstance(value, (float, decimal.Decimal)):
            if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
                raise cast_error(value, name)
            number = round_half_even(value)
        elif isinstance(value, int):
            number = int(value)
        elif isinstance(value, Char):
            number = ord(value)
        else:
            raise no_conversion(value, name)
        low, high = (-2 ** 31, 2 ** 31 - 1) if cls is int else (cls.MIN, cls.MAX)
        if not low <= number <= high:
            detail = 'Value was either too large or too small for %s.' % _short(name)
            raise cast_error(value, name, detail)
        return cls(number) if cls is not int else int(number)
    return convert


def _short(name):
    return {'System.Int32': 'an Int32', 'System.Int64': 'an Int64', 'System.Byte': 'an unsigned byte',
            'System.UInt16': 'a UInt16', 'System.UInt32': 'a UInt32', 'System.UInt64': 'a UInt64',
            'System.Int16': 'an Int16', 'System.SByte': 'a signed byte'}.get(name, name)


def _to_double(value):
    value = _scalar(value, 'System.Double')
    if is_null(value):
        return 0.0
    if isinstance(value, str):
        parsed = parse_number(value)
        if parsed is None:
            raise cast_error(value, 'System.Double', 'Input string was not in a correct format.')
        return float(parsed)
    if isinstance(value, (int, float, decimal.Decimal)):
        return float(value)
    if isinstance(value, EnumValue):
        return float(value.value)
    raise no_conversion(value, 'System.Double')


def _to_decimal(value):
    value = _scalar(value, 'System.Decimal')
    if is_null(value):
        return decimal.Decimal(0)
    if isinstance(value, str):
        try:
            return decimal.Decimal(value.strip())
        except decimal.InvalidOperation:
            raise cast_error(value, 'System.Decimal', 'Input string was not in a correct format.') from None
    if isinstance(value, (int, float, decimal.Decimal)):
        return decimal.Decimal(str(value)) if isinstance(value, float) else decimal.Decimal(value)
    raise no_conversion(value, 'System.Decimal')


def _to_string(value):
    if is_null(value):
        # [string]$null is the empty string (about_Type_Conversion).
        return ''
    return to_string(value)


def _to_bool(value):
    return to_bool(value)


def _to_char(value):
    value = _scalar(value, 'System.Char')
    if isinstance(value, str) and len(value) == 1:
        return Char(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return Char(chr(value))
    if isinstance(value, str):
        raise cast_error(value, 'System.Char')
    raise Unsupported('conversion of a %s to [char]' % (type_name(value) or '$null'))


def _to_hashtable(value):
    if isinstance(value, Hashtable):
        return value
    raise no_conversion(value, 'System.Collections.Hashtable')


def _to_ordered(value):
    if isinstance(value, OrderedDictionary):
        return value
    raise cast_error(value, 'System.Collections.Specialized.OrderedDictionary')


def _to_pscustomobject(value):
    if isinstance(value, Hashtable):
        return PSCustomObject(value.items())
    return value


def _to_object(value):
    return value


def _to_securestring(value):
    if value is None:
        return None
    if isinstance(value, SecureString):
        return value
    raise cast_error(value, 'System.Security.SecureString')


def _to_switch(value):
    if isinstance(value, SwitchParameter):
        return value
    return SwitchParameter(to_bool(value))


def _to_scriptblock(value):
    if isinstance(value, ScriptBlock):
        return value
    raise cast_error(value, 'System.Management.Automation.ScriptBlock')


class Guid:
    NET = 'System.Guid'

    def __init__(self, value):
        self.value = uuid.UUID(str(value))

    def to_string(self):
        return str(self.value)

    def ToString(self, fmt='D', *rest):  # pylint: disable=invalid-name
        """Guid.ToString(format): N 32 digits, D hyphens, B braces, P parentheses."""
        text = str(self.value)
        form = to_string(fmt or 'D').upper()
        return {'N': self.value.hex, 'D': text, 'B': '{%s}' % text, 'P': '(%s)' % text}.get(form, text)

    def __eq__(self, other):
        return isinstance(other, Guid) and other.value == self.value

    def __hash__(self):
        return hash(self.value)


def _to_guid(value):
    value = _scalar(value, 'System.Guid')
    if isinstance(value, Guid):
        return value
    try:
        return Guid(to_string(value))
    except ValueError:
        raise cast_error(value, 'System.Guid', 'Guid should contain 32 digits with 4 dashes (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx).') from None


class Regex:
    NET = 'System.Text.RegularExpressions.Regex'

    def __init__(self, pattern):
        self.pattern = pattern

    def to_string(self):
        return self.pattern


def _to_regex(value):
    return value if isinstance(value, Regex) else Regex(to_string(value))


def _to_array(value):
    if isinstance(value, PSArray):
        return value
    if is_enumerable(value):
        return PSArray(enumerate_value(value))
    return PSArray([] if is_null(value) else [value])


def _to_type(value):
    if isinstance(value, NetType):
        return value
    found = resolve(to_string(value))
    if found is None:
        error = type_not_found(to_string(value))
        raise error if isinstance(error, Unsupported) else cast_error(value, 'System.Type')
    return found


TYPES = {}
# The types a runspace added with Add-Type, by lower-case full name: they exist only in that session
# (Add-Type reference, NOTES: "The types that you add exist only in the current session"). The
# interpreter sets this while it runs; type literals and casts to [type] consult it after TYPES.
SESSION_TYPES = contextvars.ContextVar('session_types', default=None)


def register(net_type, *aliases):
    for name in (net_type.name,) + aliases:
        TYPES[name.lower()] = net_type
        if name.lower().startswith('system.'):
            TYPES[name.lower()[len('system.'):]] = net_type
    return net_type


def resolve(name):
    """The type a type literal names ([int], [System.String], [string[]]); None when unknown."""
    key = name.strip().lower().replace(' ', '')
    for generic in ('system.collections.generic.list[', 'collections.generic.list['):
        if key.startswith(generic) and key.endswith(']') and not key.endswith('[]'):
            element = resolve(key[len(generic):-1])
            from .dotnet import generic_list  # pylint: disable=import-outside-toplevel
            return None if element is None else generic_list(element)
    if key.endswith('[]'):
        element = resolve(key[:-2])
        return None if element is None else ArrayType(element)
    found = TYPES.get(key)
    if found is None and SESSION_TYPES.get():
        found = SESSION_TYPES.get().get(key)
    return found


def type_not_found(name, host=None):
    """The error for a type literal or name the engine cannot resolve: Unsupported where .NET Framework 4.x or
    Windows PowerShell 5.1 may well have the type (the engine cannot list all of .NET: an accelerator of 5.1's
    TypeAccelerators, a System.* or Microsoft.* name, a name in a namespace .NET Framework declares with or without
    its System. prefix, a bare name of a System type), else PowerShell's TypeNotFound (a type nobody defines, one
    the script adds later with Add-Type, or one of an assembly the host knows a session has not loaded yet).
    Names: netmembers/names.json."""
    from . import netmembers  # pylint: disable=import-outside-toplevel
    windows_error = PSError('Unable to find type [%s].' % name, 'System.Management.Automation.RuntimeException',
                            'TypeNotFound', 'InvalidOperation')
    if host is not None and hasattr(host, 'unloaded_type') and host.unloaded_type(name):
        return windows_error
    key = name.strip().lower().replace(' ', '')
    while key.endswith('[]'):
        key = key[:-2]
    key = key.split('[', 1)[0].split('`', 1)[0]
    known = netmembers.names()
    namespace = key.rsplit('.', 1)[0] if '.' in key else ''
    if key in known['accelerators'] or key.split('.', 1)[0] in ('system', 'microsoft') or \
            (namespace and (namespace in known['namespaces'] or 'system.' + namespace in known['namespaces'])) or \
            (not namespace and key in known['system_types']):
        return Unsupported('type [%s] (Windows PowerShell 5.1 may have it; the engine does not model it)' % name)
    return windows_error


def _is_integral(cls):
    return lambda value: type(value) is cls  # pylint: disable=unidiomatic-typecheck


def _is_int32(value):
    return type(value) is int  # pylint: disable=unidiomatic-typecheck


INT32 = register(NetType('System.Int32', _integral_converter(int, 'System.Int32'), _is_int32,
                         {'MaxValue': 2 ** 31 - 1, 'MinValue': -2 ** 31}), 'int', 'int32')
for _cls, _aliases in ((Int64, ('long', 'int64')), (Int16, ('int16', 'short')), (Byte, ('byte',)), (SByte, ('sbyte',)),
                       (UInt16, ('uint16', 'ushort')), (UInt32, ('uint32', 'uint')), (UInt64, ('uint64', 'ulong'))):
    register(NetType(_cls.NET, _integral_converter(_cls, _cls.NET), _is_integral(_cls),
                     {'MaxValue': _cls(_cls.MAX), 'MinValue': _cls(_cls.MIN)}), *_aliases)
register(NetType('System.Double', _to_double, lambda v: type(v) is float,  # pylint: disable=unidiomatic-typecheck
                 {'MaxValue': 1.7976931348623157e308, 'MinValue': -1.7976931348623157e308, 'NaN': float('nan')}),
         'double')
register(NetType('System.Single', lambda v: Single(_to_double(v)), lambda v: isinstance(v, Single)), 'float', 'single')
register(NetType('System.Decimal', _to_decimal, lambda v: isinstance(v, decimal.Decimal)), 'decimal')
STRING = register(NetType('System.String', _to_string, lambda v: isinstance(v, str) and not isinstance(v, Char),
                          {'Empty': ''}), 'string')
register(NetType('System.Char', _to_char, lambda v: isinstance(v, Char)), 'char')
register(NetType('System.Boolean', _to_bool, lambda v: isinstance(v, bool)), 'bool', 'boolean')
OBJECT = register(NetType('System.Object', _to_object, lambda v: not is_null(v)), 'object')
register(NetType('System.Management.Automation.PSObject', _to_object, lambda v: not is_null(v),
                 constructor=lambda *args: PSCustomObject()), 'psobject')
# @{} is case-insensitive; [hashtable]::new() has .NET's default, case-sensitive comparer (about_Hash_Tables).
register(NetType('System.Collections.Hashtable', _to_hashtable, lambda v: isinstance(v, Hashtable),
                 constructor=lambda *args: Hashtable(case_sensitive=True)), 'hashtable')
register(NetType('System.Collections.Specialized.OrderedDictionary', _to_ordered,
                 lambda v: isinstance(v, OrderedDictionary)), 'ordered')
register(NetType('System.Collections.IDictionary', test=lambda v: isinstance(v, Hashtable)))
register(NetType('System.Collections.IEnumerable', test=lambda v: is_enumerable(v) or isinstance(v, (str, Hashtable))))
# [pscustomobject] names the PSObject type; only a cast of a hashtable literal makes a PSCustomObject
# (about_PSCustomObject).
register(NetType('System.Management.Automation.PSObject', _to_pscustomobject, lambda v: isinstance(v, PSCustomObject)),
         'pscustomobject')
register(NetType('System.Array', _to_array, lambda v: isinstance(v, PSArray)), 'array')
register(NetType('System.Security.SecureString', _to_securestring, lambda v: isinstance(v, SecureString)),
         'securestring')
register(NetType('System.Management.Automation.SwitchParameter', _to_switch,
                 lambda v: isinstance(v, SwitchParameter)), 'switch')


def _create_scriptblock(text):
    # ScriptBlock.Create(string) (.NET API reference, System.Management.Automation.ScriptBlock): the text parsed as a
    # script, unbound; `& $block @args` binds its param() block and runs it in a child scope as a script's text would.
    from .syntax import parse  # pylint: disable=import-outside-toplevel
    text = to_string(text)
    return ScriptBlock(parse(text).root, text)


register(NetType('System.Management.Automation.ScriptBlock', _to_scriptblock,
                 lambda v: isinstance(v, ScriptBlock), {'Create': _create_scriptblock}), 'scriptblock')
register(NetType('System.Guid', _to_guid, lambda v: isinstance(v, Guid),
                 {'NewGuid': lambda: Guid(uuid.uuid4()), 'Empty': Guid(uuid.UUID(int=0))}), 'guid')
register(NetType('System.Text.RegularExpressions.Regex', _to_regex, lambda v: isinstance(v, Regex)), 'regex')
register(NetType('System.Type', _to_type, lambda v: isinstance(v, NetType)), 'type')
# The string forms [datetime] converts with the invariant culture (about_Type_Conversion, "String type conversion":
# "US-style month-first dates"): ISO 8601 dates and times without a time zone, and month/day/year. DateTime.Parse
# accepts many more (and a zone converts to local time); those are not modelled.
_DATETIME_FORMATS = ('%Y-%m-%d', '%Y-%m-%dT%H:%M:%S', '%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M', '%Y-%m-%d %H:%M',
                     '%m/%d/%Y', '%m/%d/%Y %H:%M:%S', '%m/%d/%Y %H:%M')


def _to_datetime(value):
    value = _scalar(value, 'System.DateTime')
    if isinstance(value, datetime.datetime):
        return value
    if not isinstance(value, str):
        raise Unsupported('conversion of a %s to [datetime]' % (type_name(value) or '$null'))
    text = value.strip()
    for fmt in _DATETIME_FORMATS:
        try:
            return datetime.datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise Unsupported('conversion of the string %r to [datetime] (a form the engine does not parse)' % value)


register(NetType('System.DateTime', _to_datetime, lambda v: isinstance(v, datetime.datetime)), 'datetime')
register(NetType('System.Void', lambda v: AUTOMATION_NULL), 'void')
# What $_ is in a catch block and what 2>&1 makes of a native program's stderr line (interpreter.ErrorRecord).
register(NetType('System.Management.Automation.ErrorRecord',
                 test=lambda v: getattr(v, 'NET', None) == 'System.Management.Automation.ErrorRecord'))
REF = register(NetType('System.Management.Automation.PSReference', test=lambda v: type(v).__name__ == 'PSReference'),
               'ref')


def _parser(net_type, name):
    def parse_method(text):
        # Parse(string) only: the overloads with NumberStyles or a format provider are not modelled.
        if is_null(text):
            raise PSError('Value cannot be null.\r\nParameter name: s', 'System.ArgumentNullException')
        try:
            return net_type.convert(str(text).strip() if name != 'Boolean' else str(text))
        except PSError:
            raise PSError('Input string was not in a correct format.' if name != 'Boolean' else
                          'String was not recognized as a valid Boolean.', 'System.FormatException') from None
    return parse_method


def _bool_parse(text):
    # Boolean.Parse accepts only True/False (any case, surrounding white space), unlike [bool] casts.
    value = str(text).strip().lower()
    if value not in ('true', 'false'):
        raise PSError('String was not recognized as a valid Boolean.', 'System.FormatException')
    return value == 'true'


for _name in ('int', 'long', 'double', 'byte', 'uint16', 'uint32', 'uint64', 'int16', 'decimal'):
    TYPES[_name].statics['Parse'] = _parser(TYPES[_name], TYPES[_name].name)
TYPES['bool'].statics['Parse'] = _bool_parse


def enum_type(name, members, flags=False, aliases=()):
    """Register a .NET enum; casting a string or number to it and its [string] follow Enum.Parse/ToString."""
    enum = EnumType(name, members, flags)

    def convert(value):
        value = _scalar(value, name)
        if isinstance(value, EnumValue):
            if value.enum is enum:
                return value
            return enum(value.value)
        if isinstance(value, str):
            return enum.parse(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return enum(value)
        raise cast_error(value, name)

    statics = {member: enum(number) for member, number in members.items()}
    net_type = register(NetType(name, convert, lambda v: isinstance(v, EnumValue) and v.enum is enum, statics),
                        *aliases)
    net_type.enum = enum
    return net_type
