"""Bind win_powershell ``parameters`` to a script's ``param()`` block the way PowerShell does.

The simulation reads each script's own parameter declarations, so a module that
sends a parameter the script does not declare, omits a mandatory one, or
violates a ValidateSet/ValidatePattern fails here as it would on Windows.
"""

import re

_PARAM_START = re.compile(r'^\s*param\s*\(', re.IGNORECASE | re.MULTILINE)
_VARIABLE = re.compile(r'\$(\w+)\s*(?:=\s*(.+))?$', re.DOTALL)
_STRING = re.compile(r"^'((?:[^']|'')*)'$|^\"([^\"]*)\"$")


class BindingError(Exception):
    """PowerShell would refuse to run the script with these parameters."""


def _matching_paren(text, start):
    depth = 0
    quote = None
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if char == quote:
                quote = None
        elif char in '\'"':
            quote = char
        elif char == '(':
            depth += 1
        elif char == ')':
            depth -= 1
            if depth == 0:
                return index
    raise ValueError('unbalanced param block')


def _bracketed(text):
    """Split '[inner]rest' at the bracket that closes the first one."""
    depth = 0
    for index, char in enumerate(text):
        if char == '[':
            depth += 1
        elif char == ']':
            depth -= 1
            if depth == 0:
                return text[1:index], text[index + 1:].strip()
    raise ValueError('unbalanced brackets in %r' % text)


def _split_top_level(text):
    parts, depth, quote, current = [], 0, None, []
    for char in text:
        if quote:
            if char == quote:
                quote = None
        elif char in '\'"':
            quote = char
        elif char in '([{':
            depth += 1
        elif char in ')]}':
            depth -= 1
        elif char == ',' and depth == 0:
            parts.append(''.join(current))
            current = []
            continue
        current.append(char)
    if ''.join(current).strip():
        parts.append(''.join(current))
    return parts


def _literal(text):
    text = text.strip()
    if text.lower() == '$true':
        return True
    if text.lower() == '$false':
        return False
    if text.lower() == '$null':
        return None
    if re.fullmatch(r'-?\d+', text):
        return int(text)
    match = _STRING.match(text)
    if match:
        return match.group(1).replace("''", "'") if match.group(1) is not None else match.group(2)
    if text.startswith('@(') and text.endswith(')'):
        return [_literal(part) for part in _split_top_level(text[2:-1])]
    raise ValueError('not a literal: %s' % text)


def declared_parameters(script):
    """Return {name: {'type', 'mandatory', 'choices', 'pattern', 'default'}} for the script."""
    match = _PARAM_START.search(script)
    if not match:
        return {}
    open_paren = script.index('(', match.start())
    body = script[open_paren + 1:_matching_paren(script, open_paren)]
    # Comment lines may hold commas and quotes; they are not part of any declaration.
    body = '\n'.join(line for line in body.splitlines() if not line.strip().startswith('#'))
    declared = {}
    for part in _split_top_level(body):
        part = part.strip()
        spec = {'type': 'object', 'mandatory': False, 'choices': None, 'pattern': None, 'default': None}
        rest = part
        while rest.startswith('['):
            inner, rest = _bracketed(rest)
            attribute = re.fullmatch(r'(\w+)\((.*)\)', inner, re.DOTALL)
            if not attribute:
                spec['type'] = inner.lower()
                continue
            name, argument = attribute.group(1).lower(), attribute.group(2)
            if name == 'parameter':
                spec['mandatory'] = 'mandatory' in argument.lower()
            elif name == 'validateset':
                spec['choices'] = [_literal(item) for item in _split_top_level(argument)]
            elif name == 'validatepattern':
                spec['pattern'] = _literal(argument)
        variable = _VARIABLE.match(rest)
        if not variable:
            raise ValueError('cannot read parameter declaration: %r' % part)
        if variable.group(2) is not None:
            spec['default'] = _literal(variable.group(2))
        declared[variable.group(1)] = spec
    return declared


def _coerce(name, kind, value):
    if value is None:
        return None
    if kind.endswith('[]'):
        items = value if isinstance(value, list) else [value]
        return [_coerce(name, kind[:-2], item) for item in items]
    if kind == 'string':
        if isinstance(value, (dict, list)):
            raise BindingError("Cannot convert the value of parameter '%s' to System.String" % name)
        return value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
    if kind == 'int':
        try:
            return int(value)
        except (TypeError, ValueError):
            raise BindingError("Cannot convert value \"%s\" to type \"System.Int32\" (parameter '%s')" % (value, name))
    if kind == 'switch':
        return bool(value)
    if kind == 'hashtable' and not isinstance(value, dict):
        # A JSON object arrives as a dictionary, which converts to Hashtable; a string or number does not.
        raise BindingError('Cannot convert the "%s" value to type "System.Collections.Hashtable" (parameter \'%s\')'
                           % (value, name))
    return value


def bind(script, parameters):
    """Return the parameters as the script sees them (defaults filled, types converted)."""
    declared = declared_parameters(script)
    by_lower = {name.lower(): name for name in declared}
    bound = {}
    for given, value in (parameters or {}).items():
        name = by_lower.get(given.lower())
        if name is None:
            raise BindingError("A parameter cannot be found that matches parameter name '%s'." % given)
        spec = declared[name]
        value = _coerce(name, spec['type'], value)
        for item in value if isinstance(value, list) else [value]:
            if spec['choices'] and item not in spec['choices'] and str(item).lower() not in [
                    str(c).lower() for c in spec['choices']]:
                raise BindingError("Cannot validate argument on parameter '%s'. The argument \"%s\" does not belong "
                                   "to the set \"%s\"." % (name, item, ','.join(map(str, spec['choices']))))
            if spec['pattern'] and not re.search(spec['pattern'], str(item), re.IGNORECASE):
                raise BindingError("Cannot validate argument on parameter '%s'. The argument \"%s\" does not match "
                                   "the \"%s\" pattern." % (name, item, spec['pattern']))
        bound[name] = value
    missing = [name for name, spec in declared.items() if spec['mandatory'] and bound.get(name) in (None, '')]
    if missing:
        raise BindingError('Cannot process command because of one or more missing mandatory parameters: %s.'
                           % ' '.join(missing))
    for name, spec in declared.items():
        if name not in bound:
            bound[name] = False if spec['type'] == 'switch' else spec['default']
    return bound
