"""The values a Windows PowerShell 5.1 script handles, and how it converts between them.

Python stands in for .NET: ``str`` is System.String, ``bool`` System.Boolean, ``int`` System.Int32,
``float`` System.Double, ``None`` $null. Types Python lacks are small subclasses (``Int64``, ``Byte``,
``Char``...), so a value always knows its .NET type: scripts ask (``GetType()``, ``-is``, casts) and
PowerShell's conversions depend on it. Conversions follow LanguagePrimitives as documented in
about_Type_Conversion, about_Comparison_Operators and about_Arithmetic_Operators (reference/5.1 of
MicrosoftDocs/PowerShell-Docs); each rule names what it encodes.
"""

import datetime
import decimal
import math
import re


class PSError(Exception):
    """A .NET exception raised inside the engine: carries the .NET type name PowerShell would see."""

    def __init__(self, message, type_name='System.Management.Automation.RuntimeException', error_id=None,
                 category='NotSpecified', inner=None, target=None, properties=None):
        super().__init__(message)
        # Members of the .NET exception beyond Message and InnerException (a WebException's Response, Status).
        self.properties = dict(properties or {})
        self.message = message
        self.type_name = type_name
        self.error_id = error_id or type_name.rsplit('.', 1)[-1]
        self.category = category
        self.inner = inner
        self.target = target


class Unsupported(Exception):
    """The script uses something the engine does not implement: never caught by the script."""

    def __init__(self, what, line=None):
        super().__init__('unsupported: %s%s' % (what, '' if line is None else ' (line %d)' % line))
        self.what = what
        self.line = line


class _AutomationNull:
    """What a command that wrote nothing returns: $null in expressions, nothing in a pipeline or @()."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return 'AutomationNull'

    def __bool__(self):
        return False


AUTOMATION_NULL = _AutomationNull()


def is_null(value):
    return value is None or value is AUTOMATION_NULL


# --- numbers: the integral types PowerShell keeps apart --------------------------------------------------

class _Integral(int):
    NET = 'System.Int32'
    MIN = -2 ** 31
    MAX = 2 ** 31 - 1

    def __repr__(self):
        return '%s(%d)' % (type(self).__name__, int(self))


def _integral(name, net, bits, signed):
    low, high = (-2 ** (bits - 1), 2 ** (bits - 1) - 1) if signed else (0, 2 ** bits - 1)
    return type(name, (_Integral,), {'NET': net, 'MIN': low, 'MAX': high})


Int64 = _integral('Int64', 'System.Int64', 64, True)
Int16 = _integral('Int16', 'System.Int16', 16, True)
Byte = _integral('Byte', 'System.Byte', 8, False)
SByte = _integral('SByte', 'System.SByte', 8, True)
UInt16 = _integral('UInt16', 'System.UInt16', 16, False)
UInt32 = _integral('UInt32', 'System.UInt32', 32, False)
UInt64 = _integral('UInt64', 'System.UInt64', 64, False)


class Single(float):
    """System.Single."""


class Char(str):
    """System.Char: one UTF-16 code unit."""


INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1


def net_int(value):
    """A Python int as the .NET integer PowerShell's literal or arithmetic would give: Int32, Int64, else Double."""
    if INT32_MIN <= value <= INT32_MAX:
        return int(value)
    if Int64.MIN <= value <= Int64.MAX:
        return Int64(value)
    return float(value)


def is_number(value):
    return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)


# --- collections ------------------------------------------------------------------------------------------

class PSArray(list):
    """A .NET array; ``element`` is its element type name (object[] unless typed).

    ``psobject_wrapped`` marks an array that a cmdlet wrote as one object: PowerShell wrapped it in a
    PSObject, which ConvertTo-Json in 5.1 serialises differently.
    """

    psobject_wrapped = False

    def __init__(self, items=(), element='System.Object'):
        super().__init__(items)
        self.element = element


class PSObjectCollection(list):
    """What the .Where() and .ForEach() methods return."""

    NET = 'System.Collections.ObjectModel.Collection`1[System.Management.Automation.PSObject]'


class ArrayList(list):
    """System.Collections.ArrayList / List[T]: a collection that is not an array."""

    NET = 'System.Collections.ArrayList'


def _key(key):
    return key.lower() if isinstance(key, str) else key


class Hashtable:
    """System.Collections.Hashtable as PowerShell creates it: keys compared case-insensitively.

    Enumeration order of a real Hashtable depends on hash codes; scripts that need an order use
    [ordered]. We keep insertion order (one possible order), and ``Ordered`` marks [ordered]@{}.
    """

    NET = 'System.Collections.Hashtable'

    def __init__(self, items=(), case_sensitive=False):
        self._data = {}
        self._key = (lambda key: key) if case_sensitive else _key
        for key, value in items:
            self[key] = value

    def __getitem__(self, key):
        entry = self._data.get(self._key(key))
        return None if entry is None else entry[1]

    def __setitem__(self, key, value):
        if is_null(key):
            raise PSError('Index operation failed; the array index evaluated to null.', error_id='NullArrayIndex')
        old = self._data.get(self._key(key))
        self._data[self._key(key)] = (old[0] if old else key, value)

    def add(self, key, value):
        if is_null(key):
            raise PSError('Key cannot be null.', 'System.ArgumentNullException')
        if self._key(key) in self._data:
            raise PSError("Item has already been added. Key in dictionary: '%s'  Key being added: '%s'"
                          % (self._data[self._key(key)][0], key), 'System.ArgumentException')
        self._data[self._key(key)] = (key, value)

    def __contains__(self, key):
        return self._key(key) in self._data

    def remove(self, key):
        self._data.pop(self._key(key), None)

    def keys(self):
        return [entry[0] for entry in self._data.values()]

    def values(self):
        return [entry[1] for entry in self._data.values()]

    def items(self):
        return list(self._data.values())

    def __len__(self):
        return len(self._data)

    def copy(self):
        copy = type(self)()
        copy._key = self._key
        for key, value in self.items():
            copy[key] = value
        return copy


class OrderedDictionary(Hashtable):
    NET = 'System.Collections.Specialized.OrderedDictionary'


class DictionaryEntry:
    NET = 'System.Collections.DictionaryEntry'

    def __init__(self, key, value):
        self.Key = key
        self.Value = value
        self.Name = key


class PSCustomObject:
    """[pscustomobject]: ordered note properties; [string] of it is @{a=1; b=2}."""

    NET = 'System.Management.Automation.PSCustomObject'
    # Its PSObject's TypeNames, most derived first (about_Intrinsic_Members); a function's object may have a name
    # inserted before them (PSObject.TypeNames.Insert: a subclass names it).
    TYPE_NAMES = ('System.Management.Automation.PSCustomObject', 'System.Object')

    def __init__(self, items=()):
        self.props = OrderedDictionary(items)

    def __repr__(self):
        return 'PSCustomObject(%r)' % (self.props.items(),)


class ScriptBlock:
    NET = 'System.Management.Automation.ScriptBlock'

    def __init__(self, node, text):
        self.node = node
        self.text = text

    def __str__(self):
        return self.text


class PSReference:
    """[ref]: a .NET method's out/ref argument; setting Value sets the variable it was made from (about_Ref)."""

    NET = 'System.Management.Automation.PSReference'

    def __init__(self, get, put):
        self._get = get
        self._put = put

    @property
    def Value(self):  # pylint: disable=invalid-name
        return self._get()

    @Value.setter
    def Value(self, value):  # pylint: disable=invalid-name
        self._put(value)


class SecureString:
    NET = 'System.Security.SecureString'

    def __init__(self, text):
        self._text = text

    def plain(self):
        return self._text


class SwitchParameter:
    NET = 'System.Management.Automation.SwitchParameter'

    def __init__(self, present):
        self.IsPresent = bool(present)

    def __bool__(self):
        return self.IsPresent

    def to_string(self):
        return 'True' if self.IsPresent else 'False'


class EnumValue:
    """A value of a .NET enum; ``enum`` is an EnumType."""

    def __init__(self, enum, value):
        self.enum = enum
        self.value = int(value)

    @property
    def NET(self):  # pylint: disable=invalid-name
        return self.enum.name

    def __eq__(self, other):
        return isinstance(other, EnumValue) and other.enum is self.enum and other.value == self.value

    def __hash__(self):
        return hash((self.enum.name, self.value))

    def __int__(self):
        return self.value

    def __str__(self):
        return self.enum.format(self.value)

    def HasFlag(self, other):  # pylint: disable=invalid-name
        flag = int(other)
        return self.value & flag == flag


class EnumType:
    """A .NET enum: names to values; ``flags`` when [Flags] (its [string] lists names with ', ')."""

    def __init__(self, name, members, flags=False, underlying='System.Int32'):
        self.name = name
        self.members = dict(members)
        self.flags = flags
        self.underlying = underlying
        self._by_lower = {key.lower(): key for key in self.members}

    def __call__(self, value):
        return EnumValue(self, value)

    def member(self, name):
        key = self._by_lower.get(name.strip().lower())
        return None if key is None else EnumValue(self, self.members[key])

    def format(self, value):
        for name, number in self.members.items():
            if number == value:
                return name
        if self.flags and value:
            names, rest = [], value
            # Largest first, as Enum.ToString does for flags.
            for name, number in sorted(self.members.items(), key=lambda item: -item[1]):
                if number and rest & number == number:
                    names.append(name)
                    rest &= ~number
            if not rest:
                return ', '.join(reversed(names))
        return str(value)

    def parse(self, text):
        """Enum.Parse, case-insensitive (how PowerShell converts a string): 'A, B' ORs flags."""
        total = 0
        for part in str(text).split(','):
            part = part.strip()
            if re.fullmatch(r'-?\d+', part):
                total |= int(part)
                continue
            found = self.member(part)
            if found is None:
                raise PSError('Cannot convert value "%s" to type "%s". Error: "Unable to match the identifier name %s '
                              'to a valid enumerator name. Specify one of the following enumerator names and try again:'
                              '\n%s"' % (text, self.name, part, ', '.join(self.members)),
                              'System.Management.Automation.PSInvalidCastException', 'InvalidCastFromStringToEnum')
            total |= found.value
        return EnumValue(self, total)


# --- type names -------------------------------------------------------------------------------------------

def type_name(value):
    """The .NET full type name of a value, as $x.GetType().FullName reports it."""
    if value is None or value is AUTOMATION_NULL:
        return None
    if isinstance(value, bool):
        return 'System.Boolean'
    if isinstance(value, _Integral):
        return value.NET
    if isinstance(value, int):
        return 'System.Int32'
    if isinstance(value, Single):
        return 'System.Single'
    if isinstance(value, float):
        return 'System.Double'
    if isinstance(value, decimal.Decimal):
        return 'System.Decimal'
    if isinstance(value, Char):
        return 'System.Char'
    if isinstance(value, str):
        return 'System.String'
    if isinstance(value, PSArray):
        return value.element + '[]'
    if isinstance(value, (list, tuple)):
        return getattr(value, 'NET', 'System.Object[]')
    if isinstance(value, datetime.datetime):
        return 'System.DateTime'
    if isinstance(value, datetime.timedelta):
        return 'System.TimeSpan'
    return getattr(value, 'NET', type(value).__name__)


def is_enumerable(value):
    """Whether PowerShell enumerates the value in a pipeline: arrays and lists, not strings or dictionaries."""
    return isinstance(value, (list, tuple)) or getattr(value, 'ENUMERABLE', False)


def enumerate_value(value):
    if isinstance(value, (list, tuple)):
        return list(value)
    return list(value.enumerate())


# --- conversion to string ---------------------------------------------------------------------------------

def format_double(value):
    """Double.ToString() of .NET Framework (what Windows PowerShell 5.1 shows): 15 significant digits."""
    if math.isnan(value):
        return 'NaN'
    if math.isinf(value):
        return 'Infinity' if value > 0 else '-Infinity'
    text = '%.15G' % value
    if 'E' in text:
        mantissa, exponent = text.split('E')
        sign = exponent[0]
        digits = exponent[1:].lstrip('0').rjust(2, '0')
        text = '%sE%s%s' % (mantissa, sign, digits)
    return text


def to_string(value, ofs=' '):
    """PowerShell's [string] conversion (LanguagePrimitives.ConvertTo string; about_Type_Conversion)."""
    if value is None or value is AUTOMATION_NULL:
        return ''
    if isinstance(value, bool):
        return 'True' if value else 'False'
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return format_double(value)
    if isinstance(value, decimal.Decimal):
        return format(value, 'f')
    if isinstance(value, (list, tuple)):
        # An array becomes its elements' strings joined by $OFS (about_Automatic_Variables: $OFS); an element that is a
        # collection itself is not entered but written by its ToString(), its type's name (PSObject.ToStringEnumerable
        # converts each element with recurse false, MshObject.cs of PowerShell/PowerShell 60b3b304f2).
        return ofs.join(type_name(item) if isinstance(item, (list, tuple)) else to_string(item, ofs) for item in value)
    if isinstance(value, PSCustomObject):
        return '@{%s}' % '; '.join('%s=%s' % (key, to_string(item, ofs)) for key, item in value.props.items())
    if isinstance(value, datetime.datetime):
        # Invariant culture, as PowerShell's [string] conversion uses.
        return value.strftime('%m/%d/%Y %H:%M:%S')
    if hasattr(value, 'to_string'):
        return value.to_string()
    if isinstance(value, (Hashtable, ScriptBlock, EnumValue)) or hasattr(value, '__str__') and type(value).__str__ is not object.__str__:
        if isinstance(value, Hashtable):
            return value.NET
        return str(value)
    return type_name(value)


# --- conversion to bool -----------------------------------------------------------------------------------

def to_bool(value):
    """PowerShell's truth (about_Booleans): $null, 0, '' and empty/one-falsy-element collections are false."""
    if value is None or value is AUTOMATION_NULL:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return len(value) > 0
    if isinstance(value, (int, float, decimal.Decimal)):
        return value != 0
    if isinstance(value, (list, tuple)):
        if not value:
            return False
        if len(value) == 1:
            return to_bool(value[0])
        return True
    if isinstance(value, SwitchParameter):
        return value.IsPresent
    if isinstance(value, EnumValue):
        return value.value != 0
    return True


# --- conversion to numbers --------------------------------------------------------------------------------

_NUMBER = re.compile(r'^\s*([+-]?)(0x[0-9a-f]+|\d*\.?\d+(?:e[+-]?\d+)?|\d+\.)\s*(kb|mb|gb|tb|pb)?\s*$', re.IGNORECASE)
_MULTIPLIER = {'kb': 1024, 'mb': 1024 ** 2, 'gb': 1024 ** 3, 'tb': 1024 ** 4, 'pb': 1024 ** 5}


def parse_number(text):
    """A string as PowerShell reads a number from it (hex, exponent, kb suffixes); None if it is not one."""
    match = _NUMBER.match(text)
    if not match:
        if text.strip() == '':
            return 0
        return None
    sign, body, suffix = match.groups()
    if body.lower().startswith('0x'):
        number = int(body, 16)
        # A hex literal that fits 32 bits is an Int32 (0xFFFFFFFF is -1).
        if number <= 0xFFFFFFFF and number > INT32_MAX:
            number -= 2 ** 32
    elif re.fullmatch(r'\d+', body):
        number = int(body)
    else:
        number = float(body)
    if suffix:
        number = number * _MULTIPLIER[suffix.lower()]
    if sign == '-':
        number = -number
    return number if isinstance(number, float) else net_int(number)


def to_number(value, what='System.Int32'):
    """A value as a number for arithmetic: $null is 0, a string is parsed, anything else fails."""
    if value is None or value is AUTOMATION_NULL:
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float, decimal.Decimal)):
        return value
    if isinstance(value, EnumValue):
        return value.value
    if isinstance(value, str):
        number = parse_number(value)
        if number is None:
            raise PSError('Cannot convert value "%s" to type "%s". Error: "Input string was not in a correct format."'
                          % (value, what), 'System.Management.Automation.RuntimeException', 'InvalidCastFromStringToInteger')
        return number
    raise PSError('Cannot convert the "%s" value of type "%s" to type "%s".' % (to_string(value), type_name(value), what),
                  'System.Management.Automation.RuntimeException', 'ConvertToFinalInvalidCastException')


def round_half_even(value):
    """[int] of a double rounds to even (Convert.ToInt32; about_Type_Conversion)."""
    if isinstance(value, decimal.Decimal):
        return int(value.to_integral_value(rounding=decimal.ROUND_HALF_EVEN))
    return int(round(value))
