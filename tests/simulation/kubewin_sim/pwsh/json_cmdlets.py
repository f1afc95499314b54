"""ConvertTo-Json and ConvertFrom-Json as Windows PowerShell 5.1 has them (not PowerShell 7's).

Sources: ConvertTo-Json and ConvertFrom-Json (MicrosoftDocs/PowerShell-Docs reference/5.1,
Microsoft.PowerShell.Utility). In 5.1 both sit on .NET's JavaScriptSerializer:
- ConvertTo-Json: -Depth defaults to 2; an object deeper than that is written as its [string];
  enums are written as their numbers; -Compress drops white space; piped input is collected, so a
  single object piped in is written alone and several become an array; `<`, `>`, `&` and `'` are
  escaped as \\u003c, \\u003e, \\u0026, \\u0027.
- ConvertFrom-Json: objects become PSCustomObject; a JSON array is written to the pipeline as ONE
  object (an object[]), not enumerated; integers are Int32 when they fit, else Int64, else
  Decimal; numbers with a fraction or exponent are Decimal (JavaScriptSerializer), falling back to
  Double.
"""

import decimal
import json
import math

from .values import (EnumValue, Hashtable, Int64, PSArray, PSCustomObject, PSError, SecureString,
                     SwitchParameter, enumerate_value, format_double, is_enumerable, is_null, to_string)


class _Object(list):
    """Distinguishes a parsed JSON object (pairs) from an array while decoding."""


_ESCAPE = {'<': '\\u003c', '>': '\\u003e', '&': '\\u0026', "'": '\\u0027'}


def _string(text):
    encoded = json.dumps(text, ensure_ascii=False)
    return ''.join(_ESCAPE.get(char, char) for char in encoded)


def _members(value):
    """The properties written for an object, in order."""
    if isinstance(value, Hashtable):
        return [(to_string(key), item) for key, item in value.items()]
    if isinstance(value, PSCustomObject):
        return list(value.props.items())
    names = getattr(value, 'PROPERTIES', None)
    if names is not None:
        return [(name, getattr(value, name)) for name in names]
    return None


def to_json(value, depth, current=0):
    """One value as JavaScriptSerializer writes it under ConvertTo-Json's depth rule."""
    if is_null(value):
        return 'null'
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, EnumValue):
        return str(value.value)
    if isinstance(value, SwitchParameter):
        return 'true' if value.IsPresent else 'false'
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return format_double(value) if math.isfinite(value) else '"%s"' % format_double(value)
    if isinstance(value, decimal.Decimal):
        return format(value, 'f')
    if isinstance(value, str):
        return _string(str.__str__(value))
    if isinstance(value, SecureString):
        return '{"Length":%d}' % len(value.plain())
    if is_enumerable(value):
        if current > depth:
            return _string(to_string(value))
        if getattr(value, 'psobject_wrapped', False):
            # An array that travelled as one object (ConvertFrom-Json's answer, Write-Output -NoEnumerate) is
            # wrapped in a PSObject, and 5.1's serializer writes the wrapper with the array's ETS Count property.
            items = ','.join(to_json(item, depth, current + 2) for item in enumerate_value(value))
            return '{"value":[%s],"Count":%d}' % (items, len(value))
        return '[' + ','.join(to_json(item, depth, current + 1) for item in enumerate_value(value)) + ']'
    members = _members(value)
    if members is not None:
        if current > depth:
            return _string(to_string(value))
        return '{' + ','.join('%s:%s' % (_string(name), to_json(item, depth, current + 1)) for name, item in members) + '}'
    return _string(to_string(value))


def _pretty(text):
    """5.1's layout of non-compressed JSON, applied to the serializer's compact text (ConvertToJsonCommand's
    ConvertToPrettyJsonString as Windows PowerShell 5.1 shipped it; PowerShell/PowerShell before 6.0 moved to
    Json.NET): a member or element per line, four spaces deeper than its container, two spaces after each colon; a
    nested object or array opens after its key and its lines are indented past that key (by the key's quoted length
    plus three), its closing bracket on a line of its own at the key's column; an empty one is its brackets on two
    lines with an empty line between."""
    if not text.startswith(('{', '[')):
        return text
    out = [text[0]]
    _layout(text, 1, out, '', 0, text[0] == '{')
    return ''.join(out)


def _string_end(text, index):
    """The index of the quote that closes the string whose first character is at ``index``."""
    while True:
        if text[index] == '"':
            backslashes = len(text[:index]) - len(text[:index].rstrip('\\'))
            if backslashes % 2 == 0:
                return index
        index += 1


def _layout(text, index, out, pad, extra, is_object):  # pylint: disable=too-many-arguments
    """Lay out the object or array whose opening bracket is before ``index``; return the index of its closing one."""
    out.append('\r\n')
    inner = pad + ' ' * extra + '    '
    line_start, in_key, head = True, True, 0
    while index < len(text):
        char = text[index]
        if char in '{[':
            if not is_object:
                out.append(inner)
            out.append(char)
            index = _layout(text, index + 1, out, inner, head if is_object else 0, char == '{')
            line_start = False
        elif char in '}]':
            out.append('\r\n' + pad + ' ' * extra + char)
            return index
        elif char == '"':
            end = _string_end(text, index + 1)
            out.append((inner if line_start else '') + text[index:end + 1])
            if is_object and in_key:
                head += end - index + 1
            index, line_start = end, False
        elif char == ':' and is_object:
            out.append(':  ')
            head += 3
            line_start, in_key = False, False
        elif char == ',':
            out.append(',\r\n')
            line_start, in_key, head = True, True, 0
        else:
            out.append((inner if line_start else '') + char)
            if is_object and in_key:
                head += 1
            line_start = False
        index += 1
    raise PSError('The JSON string is in a bad format.', 'System.InvalidOperationException', 'JsonStringInBadFormat',
                  'InvalidOperation')


def _wrapped(item):
    """An array that came down the pipeline as one object travels in a PSObject (see to_json)."""
    if isinstance(item, PSArray) and not item.psobject_wrapped:
        item = PSArray(item, item.element)
        item.psobject_wrapped = True
    return item


def convertto_json(ctx, params, input_items):
    depth = int(params.get('Depth', 2))
    if 'InputObject' in params:
        value = params['InputObject']
        if is_null(value):
            # 5.1 writes nothing for -InputObject $null (PowerShell 7 writes "null").
            return []
    else:
        items = [_wrapped(item) for item in input_items or []]
        if not items:
            return []
        value = items[0] if len(items) == 1 else PSArray(items)
    text = to_json(value, depth)
    if not params.get('Compress'):
        text = _pretty(text) if text.startswith(('{', '[')) else text
    return [text]


def convertfrom_json(ctx, params, input_items):
    if 'InputObject' in params:
        texts = [params['InputObject']]
    else:
        texts = list(input_items or [])
    # Piped lines are joined into one document (5.1 collects its input before converting).
    text = '\n'.join(to_string(item) for item in (enumerate_value(texts[0]) if len(texts) == 1 and
                                                  is_enumerable(texts[0]) else texts))
    try:
        parsed = json.loads(text, object_pairs_hook=_Object, parse_float=decimal.Decimal)
    except ValueError as exc:
        raise PSError('Invalid JSON primitive: %s.' % (text.strip()[:20] or str(exc)), 'System.ArgumentException',
                      'System.ArgumentException,Microsoft.PowerShell.Commands.ConvertFromJsonCommand') from None
    document = _convert(parsed)
    if isinstance(document, PSArray):
        document.psobject_wrapped = True
    return [document]


def _convert(value):
    if isinstance(value, _Object):
        return PSCustomObject(_members_once(value))
    if isinstance(value, list):
        return PSArray(_convert(item) for item in value)
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        if -2 ** 31 <= value < 2 ** 31:
            return value
        if -2 ** 63 <= value < 2 ** 63:
            return Int64(value)
        return decimal.Decimal(value)
    return value


def _members_once(pairs):
    """An object's members as JavaScriptSerializer's Dictionary leaves them (a key written twice keeps its place and
    its last value), refused when two keys differ only in case: PowerShell's properties are case-insensitive
    (ConvertFromJsonCommand in 5.1, WebCmdletStrings DuplicateKeysInJsonString)."""
    members = {}
    spelled = {}
    for key, item in pairs:
        known = spelled.get(key.lower())
        if known is not None and known != key:
            raise PSError("Cannot convert the JSON string because a dictionary that was converted from the string "
                          "contains the duplicated keys '%s' and '%s'." % (known, key), 'System.InvalidOperationException',
                          'DuplicateKeysInJsonString,Microsoft.PowerShell.Commands.ConvertFromJsonCommand',
                          'InvalidOperation')
        spelled[key.lower()] = key
        members[key] = _convert(item)
    return list(members.items())
