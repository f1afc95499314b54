"""PowerShell 5.1 operators: comparison, arithmetic, string, format and bitwise.

Rules from about_Comparison_Operators, about_Arithmetic_Operators, about_Split, about_Join,
about_Operators (-f) and about_Regular_Expressions (reference/5.1 of MicrosoftDocs/PowerShell-Docs):
comparisons are case-insensitive unless prefixed with c; a collection on the left filters; the right
operand is converted to the type of the left; .NET regular expressions.
"""

import decimal
import re

from . import types as pstypes
from .values import (Char, EnumValue, Hashtable, Int64, PSArray, PSError, ScriptBlock, Single, UInt32, UInt64,
                     Unsupported, enumerate_value, is_enumerable, is_null, is_number, to_bool, to_number, to_string, type_name)


# --- regular expressions: .NET syntax to Python's -------------------------------------------------------

_NAMED_GROUP = re.compile(r'\(\?<([A-Za-z_][A-Za-z0-9_]*)>')


def regex(pattern, case_sensitive=False):
    """A .NET pattern compiled with Python's re; named groups (?<n>) become (?P<n>)."""
    return _compile(to_string(pattern), case_sensitive)


_CACHE = {}


def _compile(pattern, case_sensitive):
    key = (pattern, case_sensitive)
    if key not in _CACHE:
        translated = _NAMED_GROUP.sub(r'(?P<\1>', pattern)
        try:
            _CACHE[key] = re.compile(translated, 0 if case_sensitive else re.IGNORECASE)
        except re.error as exc:
            raise PSError('The regular expression pattern %s is not valid. (%s)' % (pattern, exc), 'System.ArgumentException',
                          'InvalidRegularExpression') from None
    return _CACHE[key]


def wildcard(pattern, case_sensitive=False):
    """A -like pattern (about_Wildcards): * ? [a-z], backtick escapes; matches the whole string."""
    pattern = to_string(pattern)
    out, index = ['^'], 0
    while index < len(pattern):
        char = pattern[index]
        if char == '`' and index + 1 < len(pattern):
            out.append(re.escape(pattern[index + 1]))
            index += 2
            continue
        if char == '*':
            out.append('.*')
        elif char == '?':
            out.append('.')
        elif char == '[':
            end = pattern.find(']', index + 1)
            if end < 0:
                out.append(re.escape(char))
            elif end == index + 1:
                raise _bad_wildcard(pattern)
            else:
                out.append('[' + pattern[index + 1:end].replace('\\', '\\\\') + ']')
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    out.append('$')
    return _compile_plain(''.join(out), case_sensitive, pattern)


def _bad_wildcard(pattern):
    # WildcardPattern refuses a bracket expression it cannot read (about_Wildcards; WildcardPatternException).
    return PSError('The specified wildcard character pattern is not valid: %s' % pattern,
                   'System.Management.Automation.WildcardPatternException', 'RuntimeException', 'InvalidArgument')


def _compile_plain(pattern, case_sensitive, wildcard_text=None):
    key = ('like', pattern, case_sensitive)
    if key not in _CACHE:
        try:
            _CACHE[key] = re.compile(pattern, re.DOTALL | (0 if case_sensitive else re.IGNORECASE))
        except re.error:
            raise _bad_wildcard(wildcard_text) from None
    return _CACHE[key]


def dotnet_replacement(replacement):
    """A .NET replacement string ($1, ${name}, $0, $$) as a function of a Python match."""
    text = to_string(replacement)

    def expand(match):
        out, index = [], 0
        while index < len(text):
            char = text[index]
            if char == '$' and index + 1 < len(text):
                nxt = text[index + 1]
                if nxt == '$':
                    out.append('$')
                    index += 2
                    continue
                if nxt.isdigit():
                    end = index + 1
                    while end < len(text) and text[end].isdigit():
                        end += 1
                    group = int(text[index + 1:end])
                    if group <= (match.re.groups or 0):
                        out.append(match.group(group) or '')
                        index = end
                        continue
                if nxt == '{':
                    end = text.find('}', index)
                    if end > 0:
                        name = text[index + 2:end]
                        try:
                            out.append(match.group(int(name) if name.isdigit() else name) or '')
                            index = end + 1
                            continue
                        except (IndexError, re.error):
                            pass
                if nxt == '&':
                    out.append(match.group(0))
                    index += 2
                    continue
            out.append(char)
            index += 1
        return ''.join(out)
    return expand


def matches_table(match):
    """$Matches after a successful -match: group numbers and names to the captured text."""
    table = Hashtable()
    table[0] = match.group(0)
    names = {index: name for name, index in match.re.groupindex.items()}
    for index in range(1, (match.re.groups or 0) + 1):
        if match.group(index) is not None:
            table[names.get(index, index)] = match.group(index)
    return table


# --- comparison ---------------------------------------------------------------------------------------------

def _convert_right(left, right):
    """The right operand as the left's type, for -eq and ordering (about_Comparison_Operators)."""
    if isinstance(left, bool):
        return to_bool(right)
    if isinstance(left, str):
        return to_string(right)
    if is_number(left):
        if isinstance(right, str):
            number = pstypes.resolve('double').convert(right) if right.strip() else None
            return number
        return to_number(right)
    if isinstance(left, EnumValue):
        return pstypes.TYPES[left.enum.name.lower()].convert(right)
    return right


def equals(left, right, case_sensitive=False):
    if is_null(left):
        return is_null(right)
    if is_null(right):
        return False
    if isinstance(left, str):
        right = to_string(right)
        return left == right if case_sensitive else left.lower() == right.lower()
    try:
        converted = _convert_right(left, right)
    except PSError:
        return False
    if is_number(left) and is_number(converted):
        return left == converted
    if isinstance(left, EnumValue) and isinstance(converted, EnumValue):
        return left.value == converted.value
    if isinstance(left, bool):
        return left == converted
    if is_enumerable(right) and not is_enumerable(left):
        return False
    try:
        return left == converted
    except Exception:  # pylint: disable=broad-except  # .NET Equals falls back to reference equality
        return left is converted


def compare(left, right, case_sensitive=False):
    """-1, 0 or 1 as PowerShell orders two values (the right converted to the left's type)."""
    if is_null(left):
        return 0 if is_null(right) else -1
    if is_null(right):
        return 1
    if isinstance(left, str):
        a, b = left, to_string(right)
        if not case_sensitive:
            a, b = a.lower(), b.lower()
        return (a > b) - (a < b)
    if is_number(left) or isinstance(left, (bool, EnumValue)):
        try:
            converted = _convert_right(left, right)
        except PSError as exc:
            raise PSError('Could not compare "%s" to "%s". Error: "%s"' % (to_string(left), to_string(right), exc.message),
                          'System.Management.Automation.RuntimeException', 'ComparisonFailure') from None
        a = left.value if isinstance(left, EnumValue) else left
        b = converted.value if isinstance(converted, EnumValue) else converted
        if b is None:
            # An empty string is 0 as a number (about_Type_Conversion).
            b = 0
        return (a > b) - (a < b)
    if type(left) is not type(right):  # pylint: disable=unidiomatic-typecheck
        target = pstypes.resolve(type_name(left))
        if target is not None:
            right = target.convert(right)
    if hasattr(left, '__lt__') and type(left) is type(right):  # pylint: disable=unidiomatic-typecheck
        try:
            return (left > right) - (left < right)
        except TypeError:
            pass  # a value whose model has no order (SwitchParameter): not IComparable
    raise PSError('Cannot compare "%s" because it is not IComparable.' % to_string(left),
                  'System.Management.Automation.RuntimeException', 'NotIcomparable')


def _scalar_compare(op, left, right, cs, state):
    if op == 'eq':
        return equals(left, right, cs)
    if op == 'ne':
        return not equals(left, right, cs)
    if op in ('gt', 'ge', 'lt', 'le'):
        result = compare(left, right, cs)
        return {'gt': result > 0, 'ge': result >= 0, 'lt': result < 0, 'le': result <= 0}[op]
    if op in ('like', 'notlike'):
        found = bool(wildcard(right, cs).match(to_string(left)))
        return found if op == 'like' else not found
    if op in ('match', 'notmatch'):
        match = regex(right, cs).search(to_string(left))
        if match and state is not None:
            state['matches'] = matches_table(match)
        return bool(match) if op == 'match' else not match
    raise AssertionError(op)


FILTERING = ('eq', 'ne', 'gt', 'ge', 'lt', 'le', 'like', 'notlike', 'match', 'notmatch')


def split_operator(op):
    """'-ceq' -> ('eq', True); '-ieq' and '-eq' -> ('eq', False)."""
    name = op.lower().lstrip('-')
    if name[0] in 'ci' and name[1:] in FILTERING + ('contains', 'notcontains', 'in', 'notin', 'replace', 'split'):
        return name[1:], name[0] == 'c'
    return name, False


def comparison(op, left, right, state=None):
    """Evaluate a comparison operator; ``state['matches']`` receives $Matches after a scalar -match."""
    name, cs = split_operator(op)
    if name in FILTERING:
        if is_enumerable(left):
            # A collection on the left returns the matching elements (about_Comparison_Operators).
            return PSArray(item for item in enumerate_value(left) if _scalar_compare(name, item, right, cs, None))
        return _scalar_compare(name, left, right, cs, state)
    if name in ('contains', 'notcontains'):
        items = enumerate_value(left) if is_enumerable(left) else [left]
        found = any(equals(item, right, cs) for item in items)
        return found if name == 'contains' else not found
    if name in ('in', 'notin'):
        items = enumerate_value(right) if is_enumerable(right) else [right]
        found = any(equals(item, left, cs) for item in items)
        return found if name == 'in' else not found
    if name == 'join':
        return join(left, right)
    if name == 'replace':
        return replace(left, right, cs)
    if name == 'split':
        return split(left, right, cs)
    if name in ('is', 'isnot'):
        target = pstypes.resolve('type').convert(right)
        found = target.test(left) if not is_null(left) else False
        return found if name == 'is' else not found
    if name == 'as':
        target = pstypes.resolve('type').convert(right)
        try:
            return target.convert(left)
        except PSError:
            return None
    if name in ('shl', 'shr'):
        # The grammar reads -shl and -shr as comparison operators (about_Arithmetic_Operators: bitwise shifts).
        return bitwise(name, left, right)
    raise Unsupported('operator %s' % op)


def replace(left, right, cs=False):
    items = enumerate_value(right) if is_enumerable(right) else [right]
    if len(items) > 2:
        raise PSError('The -replace operator allows only two elements to follow it, not %d.' % len(items),
                      'System.Management.Automation.RuntimeException', 'BadReplaceArgument')
    # No element at all is the empty pattern (ParserOps.ReplaceOperator's defaults).
    pattern = items[0] if items else ''
    replacement = items[1] if len(items) > 1 else ''
    compiled = regex(pattern, cs)
    function = dotnet_replacement(replacement)
    if is_enumerable(left):
        return PSArray(compiled.sub(function, to_string(item)) for item in enumerate_value(left))
    return compiled.sub(function, to_string(left))


def split(left, right, cs=False):
    """-split: a .NET regex, optional maximum number of substrings (about_Split)."""
    items = enumerate_value(right) if is_enumerable(right) else [right]
    pattern, limit = items[0], (pstypes.INT32.convert(items[1]) if len(items) > 1 else 0)
    options = to_string(items[2]).lower() if len(items) > 2 else ''
    if isinstance(pattern, ScriptBlock):
        raise Unsupported('-split with a script block')
    if 'simplematch' in options:
        pattern = re.escape(to_string(pattern))
    compiled = regex(pattern, cs)
    out = PSArray()
    for text in (enumerate_value(left) if is_enumerable(left) else [left]):
        text = to_string(text)
        pieces = compiled.split(text, maxsplit=max(limit - 1, 0)) if limit != 1 else [text]
        if compiled.groups:
            # Captured delimiters are kept, as .NET Regex.Split does.
            pieces = [piece for piece in pieces if piece is not None]
        out.extend(pieces)
    return out


def unary_split(value):
    """Unary -split: on runs of white space, leading and trailing white space ignored."""
    out = PSArray()
    for text in (enumerate_value(value) if is_enumerable(value) else [value]):
        out.extend(to_string(text).split())
    return out


def join(left, right=None):
    items = enumerate_value(left) if is_enumerable(left) else [left]
    return to_string('' if right is None else right).join(to_string(item) for item in items)


# --- arithmetic ---------------------------------------------------------------------------------------------

# The numeric binary operations of PowerShell's binder (PowerShell/PowerShell, engine/runtime/Binding/Binders.cs
# BinaryNumericOp and FigureSignedUnsignedInt; engine/runtime/Operations/NumericOps.cs IntOps, UIntOps, LongOps,
# ULongOps, DoubleOps, DecimalOps): the operation is that of the wider operand by TypeCode order; below Int32 it is an
# Int32 operation; UInt32 and UInt64 with a signed operand stay unsigned unless that operand is negative (then Int64,
# and Decimal for UInt64); an integer result outside its type is a Double (about_Arithmetic_Operators: "the type of
# the result is widened"; its example ([int32]::minvalue + [uint32]::maxvalue) is an Int64); Single and Double give a
# Double; Decimal gives a Decimal (an overflow is an error, not a Double).
_TYPE_CODES = {'SByte': 5, 'Byte': 6, 'Int16': 7, 'UInt16': 8, 'UInt32': 10, 'Int64': 11, 'UInt64': 12}
_SIGNED_CODES = (5, 7, 9, 11)
_INTEGRAL_KINDS = {
    'int': (-2 ** 31, 2 ** 31 - 1, int, 31),
    'uint': (0, 2 ** 32 - 1, UInt32, 31),
    'long': (-2 ** 63, 2 ** 63 - 1, Int64, 63),
    'ulong': (0, 2 ** 64 - 1, UInt64, 63),
}
_DECIMAL_MAX = decimal.Decimal('79228162514264337593543950335')


def _type_code(number):
    """System.TypeCode of a number (bool counts as Int32 once converted: to_number)."""
    if isinstance(number, decimal.Decimal):
        return 15
    if isinstance(number, float):
        return 14 if not isinstance(number, Single) else 13
    return _TYPE_CODES.get(type(number).__name__, 9)


def _operation(a, b):
    """The kind of operation PowerShell's binder picks for two numbers."""
    codes = (_type_code(a), _type_code(b))
    code = max(codes)
    negative_signed = any(code_ in _SIGNED_CODES and number < 0 for code_, number in zip(codes, (a, b)))
    if code <= 9:
        return 'int'
    if code == 10:
        return 'long' if negative_signed else 'uint'
    if code == 11:
        return 'long'
    if code == 12:
        return 'decimal-or-double' if negative_signed else 'ulong'
    if code in (13, 14):
        return 'double'
    return 'decimal'


def _to_decimal(number):
    # Convert.ToDecimal(Double) keeps 15 significant digits (.NET API reference).
    return decimal.Decimal(format(number, '.15g')) if isinstance(number, float) else decimal.Decimal(number)


def _decimal_result(value):
    if abs(value) > _DECIMAL_MAX:
        raise PSError('Value was either too large or too small for a Decimal.', 'System.OverflowException',
                      'RuntimeException')
    return value


def _integral_result(value, kind):
    low, high, make, _mask = _INTEGRAL_KINDS[kind]
    return make(value) if low <= value <= high else float(value)


def _numeric(a, b, integral, floating, exact):
    """Apply an operation as the binder does: ``integral`` on Python ints, ``floating`` on floats, ``exact`` on
    Decimals."""
    kind = _operation(a, b)
    if kind == 'double':
        return floating(float(a), float(b))
    if kind == 'decimal':
        return _decimal_result(exact(_to_decimal(a), _to_decimal(b)))
    if kind == 'decimal-or-double':
        # [int64] negative with [uint64]: a Decimal operation that falls back to Double when it overflows.
        value = exact(decimal.Decimal(int(a)), decimal.Decimal(int(b)))
        return value if abs(value) <= _DECIMAL_MAX else floating(float(a), float(b))
    value = integral(int(a), int(b))
    return value if isinstance(value, float) else _integral_result(value, kind)


def _c_remainder(a, b):
    """C#'s %: the sign follows the dividend."""
    result = abs(a) % abs(b)
    return -result if a < 0 else result


def _numbers(left, right):
    a, b = to_number(left), to_number(right)
    return (int(a) if isinstance(a, bool) else a), (int(b) if isinstance(b, bool) else b)


def add(left, right):
    if is_null(left):
        if is_enumerable(right):
            return PSArray(enumerate_value(right))
        return right if not is_null(right) else None
    if isinstance(left, str):
        return left + to_string(right)
    if is_enumerable(left):
        extra = enumerate_value(right) if is_enumerable(right) else [right]
        return PSArray(enumerate_value(left) + extra)
    if isinstance(left, Hashtable):
        if not isinstance(right, Hashtable):
            raise PSError('A hash table can only be added to another hash table.',
                          'System.Management.Automation.RuntimeException', 'AddHashTableToNonHashTable')
        merged = left.copy()
        for key, value in right.items():
            merged.add(key, value)
        return merged
    if isinstance(left, Char):
        return left + to_string(right)
    return _arith(lambda a, b: a + b, left, right, 'op_Addition')


def _arith(function, left, right, name):
    a, b = _numbers(left, right)
    return _numeric(a, b, function, function, function)


def subtract(left, right):
    if isinstance(left, (str, list, Hashtable)) and not isinstance(left, str):
        raise op_error('-', left)
    return _arith(lambda a, b: a - b, left, right, 'op_Subtraction')


# The most elements (or characters) a range or a repetition may make here: a larger one is Unsupported, an engine
# bound (Windows PowerShell makes it, memory allowing).
LARGEST_COLLECTION = 1000000


def within_bound(count, what):
    if count > LARGEST_COLLECTION:
        raise Unsupported('%s of %d elements (the engine makes %d at most)' % (what, count, LARGEST_COLLECTION))
    return count


def multiply(left, right):
    if isinstance(left, str):
        times = int(to_number(right))
        within_bound(len(left) * max(times, 0), 'a repeated string')
        return left * times
    if is_enumerable(left):
        items = enumerate_value(left)
        times = int(to_number(right))
        within_bound(len(items) * max(times, 0), 'a repeated array')
        return PSArray(items * times)
    return _arith(lambda a, b: a * b, left, right, 'op_Multiply')


def divide(left, right):
    a, b = _numbers(left, right)
    if b == 0:
        raise PSError('Attempted to divide by zero.', 'System.Management.Automation.RuntimeException',
                      'RuntimeException')
    # Integer division that leaves a remainder gives a Double (about_Arithmetic_Operators; IntOps.Divide).
    return _numeric(a, b, lambda x, y: x // y if x % y == 0 else float(x) / float(y), lambda x, y: x / y,
                    lambda x, y: x / y)


def modulo(left, right):
    a, b = _numbers(left, right)
    if b == 0:
        raise PSError('Attempted to divide by zero.', 'System.Management.Automation.RuntimeException')
    import math  # pylint: disable=import-outside-toplevel
    return _numeric(a, b, _c_remainder, math.fmod, lambda x, y: x % y)


def op_error(op, left):
    return PSError('Method invocation failed because [%s] does not contain a method named \'op_%s\'.'
                   % (type_name(left), {'-': 'Subtraction'}.get(op, op)),
                   'System.Management.Automation.RuntimeException', 'MethodNotFound')


def _bitwise_kind(*numbers):
    code = max(_type_code(number) for number in numbers)
    return 'int' if code <= 9 else 'uint' if code == 10 else 'long' if code == 11 else 'ulong'


def bitwise(op, left, right):
    """-band, -bor, -bxor, -shl, -shr in the type of Binders.cs GetBitwiseOpType (Int32 up to Int32, then UInt32,
    Int64, else UInt64), the result wrapped to that type; a shift count masked as C# masks it (5 or 6 bits)."""
    enum = left.enum if isinstance(left, EnumValue) else None
    a = left.value if isinstance(left, EnumValue) else to_number(left)
    b = right.value if isinstance(right, EnumValue) else to_number(right)
    if any(isinstance(number, (float, decimal.Decimal)) for number in (a, b)):
        raise Unsupported('a bitwise operator on a Double or Decimal operand')
    kind = _bitwise_kind(a, b)
    low, high, make, mask = _INTEGRAL_KINDS[kind]
    a, b = int(a), int(b)
    if op == 'band':
        value = a & b
    elif op == 'bor':
        value = a | b
    elif op == 'bxor':
        value = a ^ b
    elif op == 'shl':
        value = a << (b & mask)
    else:
        value = a >> (b & mask)
    if enum is not None and op in ('band', 'bor', 'bxor'):
        return enum(value)
    width = high - low + 1
    value = (value - low) % width + low
    return make(value)


def bitwise_not(value):
    """-bnot: the complement in the operand's bitwise type (GetBitwiseOpType: Int32 up to Int32, then UInt32, Int64,
    UInt64); $null is 0; an enum stays of its type (the binder casts the complement back to the enum)."""
    if isinstance(value, EnumValue):
        return value.enum(~value.value)
    number = to_number(value)
    if isinstance(number, (float, decimal.Decimal)):
        raise Unsupported('-bnot of a Double or Decimal operand')
    return bitwise('bxor', number, -1 if _type_code(number) <= 9 else _INTEGRAL_KINDS[_bitwise_kind(number)][1])


# --- the format operator ------------------------------------------------------------------------------------

_FORMAT_ITEM = re.compile(r'\{\{|\}\}|\{(\d+)(?:,(-?\d+))?(?::([^}]*))?\}')


def format_value(value, spec):
    """One value under a .NET standard format string (D, N, F, X, P, G) or a simple custom one."""
    if not spec:
        return to_string(value)
    kind, digits = spec[0].upper(), spec[1:]
    if kind in 'DXNFPG' and (digits == '' or digits.isdigit()):
        precision = int(digits) if digits else None
        number = to_number(value)
        if kind == 'D':
            text = str(abs(int(number))).rjust(precision or 0, '0')
            return ('-' if number < 0 else '') + text
        if kind == 'X':
            text = format(int(number) & 0xFFFFFFFF if int(number) < 0 else int(number), 'X' if spec[0] == 'X' else 'x')
            return text.rjust(precision or 0, '0')
        if kind == 'N':
            return format(number, ',.%df' % (2 if precision is None else precision))
        if kind == 'F':
            return format(number, '.%df' % (2 if precision is None else precision))
        if kind == 'P':
            return format(number * 100, '.%df' % (2 if precision is None else precision)) + ' %'
        return to_string(value)
    if re.fullmatch(r'0+(\.0+)?', spec):
        whole, _dot, fraction = spec.partition('.')
        text = format(to_number(value), '.%df' % len(fraction))
        integer, _dot, rest = text.partition('.')
        negative = integer.startswith('-')
        integer = integer.lstrip('-').rjust(len(whole), '0')
        return ('-' if negative else '') + integer + ('.' + rest if rest else '')
    raise PSError('format string %r is not modelled' % spec)


def format_operator(fmt, args):
    values = enumerate_value(args) if is_enumerable(args) else [args]
    fmt = to_string(fmt)

    def item(match):
        text = match.group(0)
        if text in ('{{', '}}'):
            return text[0]
        index = int(match.group(1))
        if index >= len(values):
            raise PSError('Error formatting a string: Index (zero based) must be greater than or equal to zero and '
                          'less than the size of the argument list..', 'System.FormatException', 'FormatError')
        value = values[index]
        text = format_value(value, match.group(3))
        if match.group(2):
            width = int(match.group(2))
            text = text.ljust(-width) if width < 0 else text.rjust(width)
        return text
    return _FORMAT_ITEM.sub(item, fmt)


def logical(op, left, right_thunk):
    if op == 'and':
        return to_bool(left) and to_bool(right_thunk())
    if op == 'or':
        return to_bool(left) or to_bool(right_thunk())
    if op == 'xor':
        return to_bool(left) != to_bool(right_thunk())
    raise PSError('unknown operator -%s' % op)


def negate(value):
    number = to_number(value)
    if isinstance(number, (float, decimal.Decimal)):
        return -number
    return subtract(0, number)
