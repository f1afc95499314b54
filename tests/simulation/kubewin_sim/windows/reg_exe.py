"""reg.exe import: a registry file applied to HKEY_LOCAL_MACHINE.

Sources: "reg import" (learn.microsoft.com windows-server/administration/windows-commands/reg-import: ``reg import
<filename>``, exit code 0 on success, 1 on failure) and "How to add, modify, or delete registry subkeys and values by
using a registration (.reg) file" (learn.microsoft.com troubleshoot/windows-server/performance): the first line
``Windows Registry Editor Version 5.00`` (Unicode, the file as regedit exports it: UTF-16 with a byte order mark) or
``REGEDIT4`` (ANSI); ``[<key>]`` creates the key and its parents, ``[-<key>]`` deletes it with its subkeys;
``"name"="text"`` (``\\\\`` and ``\\"`` escaped), ``@=`` the default value, ``dword:<8 hex digits>``,
``hex:<bytes>`` (REG_BINARY), ``hex(2):`` (REG_EXPAND_SZ), ``hex(7):`` (REG_MULTI_SZ) and ``hex(b):`` (REG_QWORD),
the string types' bytes UTF-16LE with their terminating zeros; ``"name"=-`` deletes a value; a line ending in ``\\``
goes on on the next; ``;`` starts a comment. HKEY_CLASSES_ROOT merges HKLM\\SOFTWARE\\Classes with the user's
classes and writes there for a machine-wide class ("HKEY_CLASSES_ROOT Key", Win32 registry reference). The file is
applied in order; a key the caller may not create or write (windows/registry_security.py) stops it with "ERROR: Error
accessing the registry." and exit code 1, what came before staying written. Messages go to standard error, as the
tool writes them (its success message too).
"""

import codecs
import re

from ..pwsh.values import Unsupported
from . import registry
from . import registry_security

SUCCESS = 'The operation completed successfully.'
ACCESS = 'ERROR: Error accessing the registry.'
OPEN = 'ERROR: Error opening the file. There may be a disk or file system error.'
HEADERS = ('Windows Registry Editor Version 5.00', 'REGEDIT4')
ROOTS = {'HKEY_LOCAL_MACHINE': '', 'HKLM': '', 'HKEY_CLASSES_ROOT': 'SOFTWARE\\Classes', 'HKCR': 'SOFTWARE\\Classes'}
_HEX_KINDS = {'': 'REG_BINARY', '0': 'REG_NONE', '1': 'REG_SZ', '2': 'REG_EXPAND_SZ', '3': 'REG_BINARY',
              '4': 'REG_DWORD', '7': 'REG_MULTI_SZ', 'b': 'REG_QWORD'}


class RegFileError(Exception):
    """A .reg file reg.exe cannot apply; the message is what it writes."""


def _text(data):
    if data.startswith(codecs.BOM_UTF16_LE):
        return data[2:].decode('utf-16-le')
    # REGEDIT4: the ANSI code page; the lines that matter here are ASCII.
    return data[len(codecs.BOM_UTF8):].decode('latin-1') if data.startswith(codecs.BOM_UTF8) else data.decode('latin-1')


def _logical_lines(text):
    """The file's lines with the continued ones (a line ending in a backslash: wrapped hex data) joined."""
    lines, pending = [], ''
    for raw in text.replace('\r\n', '\n').split('\n'):
        line = pending + raw.strip()
        if line.endswith('\\'):
            pending = line[:-1]
            continue
        pending = ''
        lines.append(line)
    return lines


def _key(text):
    root, _separator, rest = text.partition('\\')
    if root.upper() not in ROOTS:
        raise Unsupported('reg.exe import of a key under %s (only HKEY_LOCAL_MACHINE and HKEY_CLASSES_ROOT are modelled)'
                          % root)
    return '\\'.join(part for part in (ROOTS[root.upper()], rest) if part)


def _string(text):
    if not (text.startswith('"') and text.endswith('"')):
        raise RegFileError(OPEN)
    return re.sub(r'\\(.)', r'\1', text[1:-1])


def _value(data):
    """(kind, JSON form) of a value's data as the file writes it."""
    if data.startswith('"'):
        return 'REG_SZ', _string(data)
    found = re.fullmatch(r'dword:([0-9a-fA-F]{1,8})', data)
    if found:
        return 'REG_DWORD', int(found.group(1), 16)
    found = re.fullmatch(r'hex(?:\(([0-9a-fA-F])\))?:([0-9a-fA-F, ]*)', data)
    if not found:
        raise RegFileError(OPEN)
    kind = _HEX_KINDS.get((found.group(1) or '').lower())
    if kind is None:
        raise Unsupported('reg.exe import of hex(%s) data' % found.group(1))
    raw = bytes(int(part, 16) for part in found.group(2).replace(' ', '').split(',') if part)
    if kind in ('REG_EXPAND_SZ', 'REG_SZ'):
        return kind, raw.decode('utf-16-le').rstrip('\x00')
    if kind == 'REG_MULTI_SZ':
        return kind, list(raw.decode('utf-16-le').rstrip('\x00').split('\x00'))
    if kind == 'REG_QWORD':
        return kind, int.from_bytes(raw[:8], 'little')
    if kind == 'REG_DWORD':
        return kind, int.from_bytes(raw[:4], 'little')
    if kind == 'REG_NONE':
        raise Unsupported('reg.exe import of REG_NONE data')
    return kind, list(raw)


def apply(host, data):
    """Apply a .reg file's bytes to the node; raises RegFileError with reg.exe's message."""
    node = host.node
    text = _text(data)
    lines = _logical_lines(text)
    if not lines or lines[0].strip() not in HEADERS:
        raise RegFileError('ERROR: The specified file is not a registry script.\r\nYou can only import binary '
                           'registry files from within the registry editor.')
    held = registry_security.privileges(host)
    key = None
    for line in lines[1:]:
        line = line.strip()
        if not line or line.startswith(';'):
            continue
        if line.startswith('[') and line.endswith(']'):
            inner = line[1:-1]
            if inner.startswith('-'):
                target = _key(inner[1:])
                if registry.key_exists(node, target):
                    registry.remove_key(node, target)
                key = None
                continue
            key = _key(inner)
            _create(node, key, held)
            continue
        if key is None:
            continue
        name_part, separator, data_part = line.partition('=')
        if not separator:
            raise RegFileError(OPEN)
        name = '' if name_part.strip() == '@' else _string(name_part.strip())
        if not registry_security.may_set_value(node, key, held):
            raise RegFileError(ACCESS)
        if data_part.strip() == '-':
            registry.remove_value(node, key, name)
            continue
        kind, value = _value(data_part.strip())
        registry.set_value(node, key, name, kind, value)


def _create(node, key, held):
    """Create the key and its missing parents, each where the token may create a subkey."""
    parts = key.split('\\')
    for depth in range(1, len(parts) + 1):
        path = '\\'.join(parts[:depth])
        if registry.key_exists(node, path):
            continue
        parent = '\\'.join(parts[:depth - 1])
        if not registry_security.may_create_subkey(node, parent, held):
            raise RegFileError(ACCESS)
        registry.create_key(node, path)


def reg_exe(host, words, input_items, environment=None):  # pylint: disable=unused-argument
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    from .filesystem import content_bytes, lookup  # pylint: disable=import-outside-toplevel
    from .processes import native_argv  # pylint: disable=import-outside-toplevel
    argv = native_argv(words)
    if len(argv) != 2 or argv[0].lower() != 'import':
        raise Unsupported('reg.exe %s (only "reg import <file>" is modelled)' % ' '.join(argv))
    entry = lookup(host.node, argv[1])
    if entry is None or entry['dir']:
        return ProgramResult([], [OPEN], 1)
    try:
        apply(host, content_bytes(entry))
    except RegFileError as error:
        return ProgramResult([], str(error).split('\r\n'), 1)
    return ProgramResult([], [SUCCESS], 0)


PROGRAMS = {'reg.exe': reg_exe}
