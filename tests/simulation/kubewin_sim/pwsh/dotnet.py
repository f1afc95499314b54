"""The .NET Framework types scripts use that hold no Windows state: enums, Math, String, Path, Regex...

Enum members and values are those of the .NET API reference (learn.microsoft.com/dotnet/api,
System.IO.FileMode, FileAccess, FileShare, SeekOrigin; System.Security.AccessControl.FileSystemRights,
InheritanceFlags, PropagationFlags, AccessControlType; System.ServiceProcess.ServiceControllerStatus,
ServiceStartMode; System.Net.SecurityProtocolType). Where a flags enum has several names for one value
(FileSystemRights ReadData/ListDirectory), the first listed here is the one ToString() shows, as .NET
shows the first declared. Types that read or change the node (System.IO.File, Environment's machine
variables) belong to the Windows model.
"""

import base64
import math
import ntpath
import re
import urllib.parse

from . import operators as ops
from .types import STRING, NetType, enum_type, register, resolve
from .values import (AUTOMATION_NULL, Byte, EnumValue, Int16, Int64, PSArray, UInt16, UInt32, UInt64, Unsupported,
                     type_name, PSError, enumerate_value, is_enumerable, is_null, round_half_even, to_string)

enum_type('System.IO.FileMode', {'CreateNew': 1, 'Create': 2, 'Open': 3, 'OpenOrCreate': 4, 'Truncate': 5, 'Append': 6})
enum_type('System.IO.FileAccess', {'Read': 1, 'Write': 2, 'ReadWrite': 3}, flags=True)
enum_type('System.IO.FileShare', {'None': 0, 'Read': 1, 'Write': 2, 'ReadWrite': 3, 'Delete': 4, 'Inheritable': 16},
          flags=True)
enum_type('System.IO.SeekOrigin', {'Begin': 0, 'Current': 1, 'End': 2})
enum_type('System.Security.AccessControl.FileSystemRights', {
    'ReadData': 1, 'ListDirectory': 1, 'WriteData': 2, 'CreateFiles': 2, 'AppendData': 4, 'CreateDirectories': 4,
    'ReadExtendedAttributes': 8, 'WriteExtendedAttributes': 16, 'ExecuteFile': 32, 'Traverse': 32,
    'DeleteSubdirectoriesAndFiles': 64, 'ReadAttributes': 128, 'WriteAttributes': 256, 'Write': 278,
    'Delete': 65536, 'ReadPermissions': 131072, 'Read': 131209, 'ReadAndExecute': 131241, 'Modify': 197055,
    'ChangePermissions': 262144, 'TakeOwnership': 524288, 'Synchronize': 1048576, 'FullControl': 2032127,
}, flags=True)
enum_type('System.Security.AccessControl.InheritanceFlags', {'None': 0, 'ContainerInherit': 1, 'ObjectInherit': 2},
          flags=True)
enum_type('System.Security.AccessControl.PropagationFlags', {'None': 0, 'NoPropagateInherit': 1, 'InheritOnly': 2},
          flags=True)
enum_type('System.Security.AccessControl.AccessControlType', {'Allow': 0, 'Deny': 1})
enum_type('System.ServiceProcess.ServiceControllerStatus', {
    'Stopped': 1, 'StartPending': 2, 'StopPending': 3, 'Running': 4, 'ContinuePending': 5, 'PausePending': 6,
    'Paused': 7})
enum_type('System.ServiceProcess.ServiceStartMode', {'Boot': 0, 'System': 1, 'Automatic': 2, 'Manual': 3,
                                                     'Disabled': 4})
enum_type('System.Net.SecurityProtocolType', {'SystemDefault': 0, 'Ssl3': 48, 'Tls': 192, 'Tls11': 768,
                                              'Tls12': 3072}, flags=True)
# The protocols a process offers: SystemDefault on .NET Framework 4.7 and later (a script may set it).
register(NetType('System.Net.ServicePointManager', statics={
    'SecurityProtocol': resolve('System.Net.SecurityProtocolType').enum(0)}))
enum_type('System.StringSplitOptions', {'None': 0, 'RemoveEmptyEntries': 1})
enum_type('System.StringComparison', {'CurrentCulture': 0, 'CurrentCultureIgnoreCase': 1, 'InvariantCulture': 2,
                                      'InvariantCultureIgnoreCase': 3, 'Ordinal': 4, 'OrdinalIgnoreCase': 5})


enum_type('System.MidpointRounding', {'ToEven': 0, 'AwayFromZero': 1})


class Version:
    """System.Version: compared part by part as numbers (1.10 > 1.9)."""

    NET = 'System.Version'

    def __init__(self, text):
        parts = to_string(text).strip().split('.')
        if not 2 <= len(parts) <= 4 or not all(part.isdigit() for part in parts):
            raise PSError('Version string portion was too short or too long.' if not 2 <= len(parts) <= 4 else
                          'Input string was not in a correct format.', 'System.ArgumentException')
        self.parts = tuple(int(part) for part in parts)
        self.Major, self.Minor = self.parts[0], self.parts[1]
        self.Build = self.parts[2] if len(self.parts) > 2 else -1
        self.Revision = self.parts[3] if len(self.parts) > 3 else -1

    def _key(self):
        return (self.Major, self.Minor, self.Build, self.Revision)

    def __lt__(self, other):
        return self._key() < other._key()

    def __gt__(self, other):
        return self._key() > other._key()

    def __eq__(self, other):
        return isinstance(other, Version) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def to_string(self):
        return '.'.join(str(part) for part in self.parts)


def _to_version(value):
    return value if isinstance(value, Version) else Version(value)


register(NetType('System.Version', _to_version, lambda value: isinstance(value, Version), constructor=Version), 'version')


def _number(value):
    return ops.to_number(value) if not isinstance(value, (int, float)) else value


def _math_round(value, digits=0, mode=None):
    # Math.Round rounds half to even by default (MidpointRounding.ToEven).
    if isinstance(digits, EnumValue):
        digits, mode = 0, digits
    if mode is not None and int(mode) == 1:
        scaled = abs(float(value)) * 10 ** int(digits)
        result = math.floor(scaled + 0.5) / 10 ** int(digits)
        return math.copysign(result, float(value))
    if digits:
        return round(float(value), int(digits))
    return float(round_half_even(float(value)))


register(NetType('System.Math', statics={
    'Max': lambda a, b: max(_number(a), _number(b)),
    'Min': lambda a, b: min(_number(a), _number(b)),
    'Abs': lambda a: abs(_number(a)),
    'Pow': lambda a, b: float(_number(a)) ** float(_number(b)),
    'Floor': lambda a: float(math.floor(_number(a))),
    'Ceiling': lambda a: float(math.ceil(_number(a))),
    'Round': _math_round,
    'Sqrt': lambda a: math.sqrt(_number(a)),
    'Truncate': lambda a: float(math.trunc(_number(a))),
}), 'math')


def _join(separator, *values):
    """String.Join(separator, params object[]) and Join(separator, string[]); Join(separator, value, startIndex,
    count) is not modelled."""
    if len(values) == 3 and is_enumerable(values[0]) and not any(is_enumerable(value) for value in values[1:]):
        raise Unsupported('[string]::Join(separator, value, startIndex, count)')
    items = []
    for value in values:
        items.extend(enumerate_value(value) if is_enumerable(value) else [value])
    return to_string(separator).join(to_string(item) for item in items)


def _format(fmt, *values):
    flat = values[0] if len(values) == 1 and is_enumerable(values[0]) else PSArray(values)
    return ops.format_operator(fmt, flat)


def _string_equals(a, b, comparison=None):
    """String.Equals(a, b) is ordinal; Equals(a, b, StringComparison) ignores case for the *IgnoreCase values."""
    ignore = comparison is not None and 'ignorecase' in to_string(comparison).lower()
    first, second = to_string(a), to_string(b)
    return first.lower() == second.lower() if ignore else first == second


def _string_compare(a, b, ignore_case=False):
    """String.Compare(a, b) and Compare(a, b, ignoreCase: bool); the overloads with a StringComparison, a culture or
    ranges are not modelled."""
    if not isinstance(ignore_case, bool):
        raise Unsupported('[string]::Compare with a %s third argument' % type_name(ignore_case))
    return ops.compare(to_string(a), to_string(b), case_sensitive=not ignore_case)


STRING.statics.update({
    'Join': _join,
    'IsNullOrEmpty': lambda value: is_null(value) or to_string(value) == '',
    'IsNullOrWhiteSpace': lambda value: is_null(value) or to_string(value).strip() == '',
    'Format': _format,
    'Concat': lambda *values: ''.join(to_string(value) for value in values),
    'Equals': lambda a, b, comparison=None: _string_equals(a, b, comparison),
    'Compare': lambda a, b, ignore_case=False: _string_compare(a, b, ignore_case),
})


def _path_combine(*parts):
    result = ''
    for part in parts:
        part = to_string(part)
        if not part:
            continue
        if ntpath.isabs(part) or not result:
            result = part
        else:
            result = result + ('' if result.endswith(('\\', '/', ':')) else '\\') + part
    return result


def _get_directory_name(path):
    path = to_string(path)
    directory = ntpath.dirname(path)
    # A root (C:\) has no directory name; .NET returns $null.
    return None if directory == path else directory


register(NetType('System.IO.Path', statics={
    'Combine': _path_combine,
    'GetFileName': lambda path: ntpath.basename(to_string(path)),
    'GetDirectoryName': _get_directory_name,
    'GetExtension': lambda path: ntpath.splitext(to_string(path))[1],
    'GetFileNameWithoutExtension': lambda path: ntpath.splitext(ntpath.basename(to_string(path)))[0],
    'IsPathRooted': lambda path: bool(re.match(r'^([A-Za-z]:|[\\/])', to_string(path))),
    'DirectorySeparatorChar': '\\',
}))


class Uri:
    """System.Uri as PowerShell makes one from a string: ``new Uri(text, UriKind.RelativeOrAbsolute)``
    (LanguagePrimitives.ConvertStringToUri in PowerShell's source, the logic of UriTypeConverter in
    .NET Framework). An absolute URI has a scheme; its scheme and host are compared in lower case,
    AbsolutePath is the escaped path ('/' for none). A relative one has no AbsolutePath, Host...:
    reading them throws InvalidOperationException (System.Uri reference: "This instance represents a
    relative URI")."""

    NET = 'System.Uri'
    PROPERTIES = ('AbsolutePath', 'AbsoluteUri', 'Host', 'IsAbsoluteUri', 'OriginalString', 'Port', 'Query', 'Scheme')
    # Uri.Port: the port the authority names, else the scheme's default (-1 for a scheme without one).
    DEFAULT_PORTS = {'http': 80, 'https': 443, 'ftp': 21}

    def __init__(self, text):
        self.OriginalString = to_string(text)
        match = re.match(r'^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$', self.OriginalString)
        if match is None and re.match(r'^[A-Za-z][A-Za-z0-9+.-]*:', self.OriginalString) \
                and not re.match(r'^[A-Za-z]:[\\/]', self.OriginalString):
            raise PSError('Invalid URI: The format of the URI could not be determined.', 'System.UriFormatException')
        self.IsAbsoluteUri = match is not None
        if match is not None:
            self._scheme, self._authority = match.group(1).lower(), match.group(2).lower()
            # Host and Port: the authority without its user information, split at its port.
            address = self._authority.rpartition('@')[2]
            host, _colon, port = address.rpartition(':')
            if not port.isdigit():
                host, port = address, ''
            self._host = host
            self._port = int(port) if port.isdigit() else self.DEFAULT_PORTS.get(self._scheme, -1)
            self._path = urllib.parse.quote(match.group(3) or '/', safe="/%:@!$&'()*+,;=-._~")
            self._query = match.group(4) or ''

    def _absolute(self, name):
        if not self.IsAbsoluteUri:
            raise PSError('This operation is not supported for a relative URI.', 'System.InvalidOperationException')
        return getattr(self, name)

    AbsolutePath = property(lambda self: self._absolute('_path'))
    Host = property(lambda self: self._absolute('_host'))
    Port = property(lambda self: self._absolute('_port'))
    Scheme = property(lambda self: self._absolute('_scheme'))
    Query = property(lambda self: self._absolute('_query'))
    AbsoluteUri = property(lambda self: '%s://%s%s%s' % (self.Scheme, self._absolute('_authority'), self.AbsolutePath,
                                                         self.Query))

    def to_string(self):
        return self.AbsoluteUri if self.IsAbsoluteUri else self.OriginalString


def _to_uri(value):
    return value if isinstance(value, Uri) else Uri(value)


register(NetType('System.Uri', _to_uri, lambda value: isinstance(value, Uri), constructor=Uri), 'uri')


def _bytes(value):
    return bytes(int(item) for item in (enumerate_value(value) if is_enumerable(value) else [value]))


def _byte_array(data):
    return PSArray((Byte(item) for item in data), 'System.Byte')


def _get_bytes(value):
    """BitConverter.GetBytes: the little-endian bytes of the value's own width."""
    if isinstance(value, bool):
        return _byte_array(bytes([int(value)]))
    width = {'System.Int16': 2, 'System.UInt16': 2, 'System.Int32': 4, 'System.UInt32': 4, 'System.Int64': 8,
             'System.UInt64': 8}.get(type_name(value))
    if isinstance(value, float):
        import struct  # pylint: disable=import-outside-toplevel
        return _byte_array(struct.pack('<d', value))
    if width is None:
        raise PSError('Cannot find an overload for "GetBytes" and the argument count: "1".',
                      'System.Management.Automation.MethodException', 'MethodCountCouldNotFindBest')
    return _byte_array(int(value).to_bytes(width, 'little', signed=not type_name(value).startswith('System.U')))


def _from_bytes(width, signed, result):
    """BitConverter.ToInt16/ToUInt16/ToInt32/ToUInt32/ToInt64/ToUInt64(value, startIndex): little-endian."""
    def convert(value, start):
        data = _bytes(value)
        start = int(start)
        if start < 0 or start >= len(data):
            raise PSError('Index was out of range. Must be non-negative and less than the size of the collection.'
                          '\r\nParameter name: startIndex', 'System.ArgumentOutOfRangeException')
        if start + width > len(data):
            raise PSError('Destination array is not long enough to copy all the items in the collection. Check array '
                          'index and length.', 'System.ArgumentException')
        return result(int.from_bytes(data[start:start + width], 'little', signed=signed))
    return convert


register(NetType('System.BitConverter', statics={
    'ToString': lambda value: '-'.join('%02X' % item for item in _bytes(value)),
    'GetBytes': _get_bytes,
    'ToInt16': _from_bytes(2, True, Int16),
    'ToUInt16': _from_bytes(2, False, UInt16),
    'ToInt32': _from_bytes(4, True, int),
    'ToUInt32': _from_bytes(4, False, UInt32),
    'ToInt64': _from_bytes(8, True, Int64),
    'ToUInt64': _from_bytes(8, False, UInt64),
}), 'bitconverter')


def _enum_names(net_type):
    enum = getattr(net_type, 'enum', None)
    if enum is None:
        raise PSError('Type provided must be an Enum.\r\nParameter name: enumType', 'System.ArgumentException')
    return PSArray(enum.members, 'System.String')


def _enum_parse(net_type, text, ignore_case=False):
    """Enum.Parse(type, value[, ignoreCase]): without ignoreCase the names must match in case (.NET API reference,
    System.Enum.Parse); a comma-separated list of names or a number as the cast takes them."""
    enum = getattr(net_type, 'enum', None)
    if enum is None:
        raise PSError('Type provided must be an Enum.\r\nParameter name: enumType', 'System.ArgumentException')
    names = [part.strip() for part in to_string(text).split(',')]
    if not ignore_case and not all(name in enum.members or name.lstrip('-').isdigit() for name in names):
        raise PSError("Requested value '%s' was not found." % to_string(text), 'System.ArgumentException')
    return net_type.convert(text)


register(NetType('System.Enum', statics={
    'GetNames': _enum_names,
    'GetValues': lambda net_type: PSArray(net_type.enum(value) for value in net_type.enum.members.values()),
    'Parse': lambda net_type, text, ignore_case=False: _enum_parse(net_type, text, ignore_case),
}), 'enum')


class ExceptionValue:
    """A .NET exception object a script creates ([System.IO.IOException]::new('m'), New-Object) and throws."""

    def __init__(self, type_name_, message, inner=None):
        self.NET = type_name_
        self.Message = to_string(message)
        self.InnerException = inner

    def to_string(self):
        return '%s: %s' % (self.NET, self.Message)


EXCEPTION_TYPES = ('System.Exception', 'System.SystemException', 'System.ArgumentException',
                   'System.ArgumentNullException', 'System.ArgumentOutOfRangeException', 'System.FormatException',
                   'System.InvalidOperationException', 'System.NotSupportedException', 'System.TimeoutException',
                   'System.IO.IOException', 'System.IO.FileNotFoundException', 'System.IO.DirectoryNotFoundException',
                   'System.UnauthorizedAccessException', 'System.Management.Automation.RuntimeException',
                   'System.Net.WebException')


def _exception_constructor(name):
    def construct(message=None, inner=None, *rest):
        return ExceptionValue(name, message if message is not None else 'Exception of type \'%s\' was thrown.' % name,
                              inner)
    return construct


def _is_exception_of(value, name):
    """-is [<exception type>]: true for an exception of that type or of one derived from it (about_Type_Operators:
    an instance of the type), whether a script made it or an error record holds it ($_.Exception)."""
    from .interpreter import ExceptionObject, exception_is  # pylint: disable=import-outside-toplevel  # it imports this module
    if isinstance(value, ExceptionValue):
        return exception_is(value.NET, name)
    if isinstance(value, ExceptionObject):
        return exception_is(value.error.type_name, name)
    return False


ExceptionValue.NET_NAMES = EXCEPTION_TYPES
for _name in EXCEPTION_TYPES:
    register(NetType(_name, test=lambda value, _n=_name: _is_exception_of(value, _n),
                     constructor=_exception_constructor(_name)))


class GenericList(list):
    """System.Collections.Generic.List[T]: Add returns nothing, unlike ArrayList.Add."""

    NET_NAMES = ('System.Collections.Generic.List`1',)

    def __init__(self, element, items=()):
        super().__init__(items)
        self.element = element
        self.NET = 'System.Collections.Generic.List`1[[%s]]' % element.name

    def Add(self, item):  # pylint: disable=invalid-name
        self.append(self.element.convert(item))
        return AUTOMATION_NULL  # void: writes nothing

    def ToArray(self):  # pylint: disable=invalid-name
        return PSArray(self, self.element.name)


def generic_list(element):
    return NetType('System.Collections.Generic.List`1[[%s]]' % element.name,
                   convert=lambda value: GenericList(element, (element.convert(item) for item in
                                                               (enumerate_value(value) if is_enumerable(value)
                                                                else [value]))),
                   test=lambda value: isinstance(value, GenericList),
                   constructor=lambda *args: GenericList(element))


def _from_base64(text):
    try:
        return _byte_array(base64.b64decode(to_string(text), validate=True))
    except ValueError:
        raise PSError('The input is not a valid Base-64 string as it contains a non-base 64 character, more than two '
                      'padding characters, or an illegal character among the padding characters. ',
                      'System.FormatException') from None


_INTEGER_WIDTHS = {'System.Byte': 8, 'System.Int16': 16, 'System.Int32': 32, 'System.Int64': 64}


def _convert_to_string(value, to_base=None):
    """Convert.ToString(integer) and Convert.ToString(integer, toBase) (.NET API reference, System.Convert.ToString:
    toBase 2, 8, 10 or 16; a negative value in another base than 10 is its two's complement of the type's width;
    hexadecimal digits in lower case). Other overloads (a culture's number format, a double...) are not modelled."""
    width = _INTEGER_WIDTHS.get(type_name(value))
    if width is None:
        raise Unsupported('[Convert]::ToString of a %s' % type_name(value))
    if to_base is None:
        return str(int(value))
    base = int(to_base)
    if base not in (2, 8, 10, 16):
        raise PSError('Invalid Base.', 'System.ArgumentException')
    number = int(value)
    if base == 10:
        return str(number)
    if number < 0:
        number += 1 << width
    return {2: format(number, 'b'), 8: format(number, 'o'), 16: format(number, 'x')}[base]


register(NetType('System.Convert', statics={
    'ToString': _convert_to_string,
    'ToBase64String': lambda value: base64.b64encode(_bytes(value)).decode('ascii'),
    'FromBase64String': _from_base64,
    'ToInt32': lambda value, base=10: int(to_string(value), int(base)) if not isinstance(value, (int, float))
    else round_half_even(value),
    'ToInt64': lambda value, base=10: Int64(int(to_string(value), int(base))),
}), 'convert')


class Encoding:
    """System.Text.Encoding; UTF8Encoding($false) writes no byte order mark, [Text.Encoding]::UTF8 does."""

    NET = 'System.Text.UTF8Encoding'

    def __init__(self, bom=False, name='utf-8'):
        self.bom = bool(bom)
        self.name = name

    def GetBytes(self, text):  # pylint: disable=invalid-name
        return _byte_array(to_string(text).encode(self.name))

    def GetString(self, data, *rest):  # pylint: disable=invalid-name
        raw = _bytes(data)
        if rest:
            raw = raw[int(rest[0]):int(rest[0]) + int(rest[1])]
        return raw.decode(self.name, errors='replace')

    def GetPreamble(self):  # pylint: disable=invalid-name
        return _byte_array(b'\xef\xbb\xbf' if self.bom and self.name == 'utf-8' else b'')


register(NetType('System.Text.Encoding', statics={
    'UTF8': Encoding(bom=True), 'ASCII': Encoding(name='ascii'), 'Unicode': Encoding(name='utf-16-le'),
}))
register(NetType('System.Text.UTF8Encoding', convert=None, test=lambda value: isinstance(value, Encoding)))


class StringBuilder:
    NET = 'System.Text.StringBuilder'

    def __init__(self, text=''):
        self._parts = [to_string(text)]

    def Append(self, value):  # pylint: disable=invalid-name
        self._parts.append(to_string(value))
        return self

    def AppendLine(self, value=''):  # pylint: disable=invalid-name
        self._parts.append(to_string(value) + '\r\n')
        return self

    @property
    def Length(self):  # pylint: disable=invalid-name
        return len(self.to_string())

    def to_string(self):
        return ''.join(self._parts)

    def ToString(self):  # pylint: disable=invalid-name
        return self.to_string()


register(NetType('System.Text.StringBuilder', test=lambda value: isinstance(value, StringBuilder),
                 constructor=StringBuilder))

CONSTRUCTORS = {
    'system.text.stringbuilder': StringBuilder,
    'text.stringbuilder': StringBuilder,
    'system.text.utf8encoding': lambda bom=False, *rest: Encoding(bom=bom),
    'text.utf8encoding': lambda bom=False, *rest: Encoding(bom=bom),
}


class RegexMatch:
    NET = 'System.Text.RegularExpressions.Match'

    def __init__(self, match):
        self._match = match
        self.Success = match is not None
        self.Value = match.group(0) if match else ''
        self.Index = match.start() if match else 0
        self.Groups = PSArray(RegexGroup(match, index) for index in range(0, (match.re.groups + 1) if match else 1))

    def to_string(self):
        return self.Value


class RegexGroup:
    NET = 'System.Text.RegularExpressions.Group'

    def __init__(self, match, index):
        self.Value = (match.group(index) or '') if match else ''
        self.Success = bool(match) and match.group(index) is not None

    def to_string(self):
        return self.Value


def _static_regex(pattern, options):
    """The pattern of a static Regex method: case-sensitive (.NET's default) unless its RegexOptions argument is
    IgnoreCase; other options (and the overloads with a timeout) are not modelled."""
    if not options:
        return ops.regex(pattern, case_sensitive=True)
    if len(options) == 1 and to_string(options[0]).replace(' ', '').lower() in ('ignorecase', 'none'):
        return ops.regex(pattern, case_sensitive=to_string(options[0]).strip().lower() == 'none')
    raise Unsupported('Regex options %s' % ', '.join(to_string(option) for option in options))


resolve('regex').statics.update({
    'Matches': lambda text, pattern, *options: PSArray(RegexMatch(match) for match in
                                                       _static_regex(pattern, options).finditer(to_string(text))),
    'Match': lambda text, pattern, *options: RegexMatch(_static_regex(pattern, options).search(to_string(text))),
    'IsMatch': lambda text, pattern, *options: bool(_static_regex(pattern, options).search(to_string(text))),
    'Escape': lambda text: re.sub(r'([\\*+?|{\[()^$.#\s])', r'\\\1', to_string(text)),
    'Replace': lambda text, pattern, replacement, *options: _static_regex(pattern, options).sub(
        ops.dotnet_replacement(replacement), to_string(text)),
    'Split': lambda text, pattern, *options: PSArray(_static_regex(pattern, options).split(to_string(text))),
})
