"""The FileSystem provider and System.IO.File: folders and files of a node with their bytes, times and ACLs.

Cmdlet behaviour from their pages in MicrosoftDocs/PowerShell-Docs (reference/5.1):
Microsoft.PowerShell.Management Test-Path, Get-Item, Get-ChildItem, New-Item, Remove-Item, Move-Item,
Get-Content, Set-Content, Add-Content; Microsoft.PowerShell.Utility Get-FileHash;
Microsoft.PowerShell.Security Get-Acl, Set-Acl; and about_FileSystem_Provider (5.1). Objects: .NET
System.IO.FileInfo / DirectoryInfo (Length Int64, LastWriteTimeUtc DateTime, FullName, Name...) with the
provider's PSIsContainer, PSPath...; Get-FileHash's [PSCustomObject] with the type name
Microsoft.Powershell.Utility.FileHash (Algorithm, Hash in upper-case hex, Path). Encodings of Windows PowerShell 5.1
(about_Character_Encoding, 5.1): Set-Content and Add-Content
write the ANSI code page (Windows-1252 on an en-US server) unless -Encoding; -Encoding UTF8 writes a byte
order mark; Get-Content reads a byte order mark's encoding, else the ANSI code page unless -Encoding.
[System.IO.File] (.NET API reference): ReadAllText detects a byte order mark and otherwise reads UTF-8;
WriteAllText without an encoding writes UTF-8 without a byte order mark, with one writes its preamble.

The tree lives in ``node.data['fs']`` (from initial_state, a fresh installation's: C:\\, C:\\Windows, C:\\Program Files and
C:\\ProgramData with their default ACLs), one entry per item keyed by its lower-case path:
``{'path', 'dir', 'data' (base64 of the bytes, files), 'created', 'written' (the node's date, SimNode.date, in epoch
seconds), 'owner', 'protected', 'rules' (explicit rules [sid, mask, inheritance, propagation, type]), 'held'}``. A file may be
a stand-in instead: ``'stand_in': {'sha256', 'size'}`` and no bytes, for a binary the simulated web serves
by its pinned digest (an upstream release whose bytes the tests do not have, see web.py): its length and
SHA-256 are those, and anything that reads its bytes is an engine gap (Unsupported), never made up. ``held`` is
``'image'`` for the program file of a running process (Windows lets it be renamed or moved on its volume,
not written, DeleteFile answers access denied) or ``'open'`` for a file a program writes, sharing only
reading (a log): every write, rename and delete is a sharing violation, and a reader must share writing.
The files take room on the system drive: a write that does not fit fails as on a full disk (see DISK_FULL).
A running service's log that a Go program appends to (kube-log-runner's -log-file, containerd's --log-file:
os.OpenFile with O_APPEND, which Go's syscall.Open turns into CreateFile with FILE_APPEND_DATA and the share
mode FILE_SHARE_READ|FILE_SHARE_WRITE, never FILE_SHARE_DELETE) is held ``'append'``: it cannot be renamed or
deleted, and another handle may read or write it when it shares writing (CreateFileW's dwShareMode and
"Creating and Opening Files": a second open must share every access the first has, and ask only for access
the first shares). Its writer appends at the end of the file, wherever that now is, so a file cut short with
``FileStream.SetLength`` goes on from its new end (FILE_APPEND_DATA without FILE_WRITE_DATA).
Inherited rules are derived from the parents (acl.inherited_rules); a file moved keeps its explicit
rules and inherits from its new folder (Windows keeps the inherited ACEs it had until they are next
propagated: not modelled).

Links (reparse points, "Hard links and junctions" and "Symbolic Links" in the Win32 file system documentation): an
item with ``'link': {'type': 'SymbolicLink' or 'Junction', 'target': full path}`` is a directory symbolic link
(``mklink /D``, what the kubelet makes for a pod's volumes: kubernetes/mount-utils mount_windows.go) or a junction
(``mklink /J``); it holds no items of its own, its target's items are seen through it, and its target may be missing
(a dangling link). A path through a link reaches the target's items; an operation on the link itself (Get-Item,
Test-Path: GetFileAttributes does not follow a link) sees the link: Attributes ``Directory, ReparsePoint``, Mode
``d----l``, LinkType and Target (the CodeProperties of Windows PowerShell 5.1's types.ps1xml, computed by
InternalSymbolicLinkLinkCodeMethods in FileSystemProvider.cs of PowerShell/PowerShell 60b3b304f2). Removing a link
never touches its target's items.

A test may watch a path (``watch``): after every change of the tree the model records whether the path is there, as
a reader polling it between the steps of a cmdlet would find it.
"""

import base64
import datetime
import hashlib
import re

from ..pwsh import operators as ops
from ..pwsh.types import NetType, enum_type, register
from ..pwsh.values import (AUTOMATION_NULL, Byte, Int64, PSArray, PSCustomObject, PSError, Unsupported, enumerate_value,
                           is_enumerable, is_null, to_string)
from .. import programs as program_model
from . import acl as acls, culture

SYSTEM, ADMINISTRATORS, USERS = 'S-1-5-18', 'S-1-5-32-544', 'S-1-5-32-545'
CI_OI = acls.CONTAINER_INHERIT | acls.OBJECT_INHERIT
READ_EXECUTE = 0x1200A9  # ReadAndExecute, Synchronize
FULL = acls.FULL_CONTROL
# The default ACLs of a Windows Server 2022 installation as icacls lists them there (no Microsoft page lists them;
# "icacls" of learn.microsoft.com names the flags): C:\ lets Users create folders and
# append data; C:\ProgramData does not inherit from C:\ and lets Users create files and folders in new
# folders under it (Users: (CI)(WD,AD,WEA,WA)).
DEFAULT_ITEMS = (
    ('C:\\', SYSTEM, True, [[SYSTEM, FULL, CI_OI, 0, 0], [ADMINISTRATORS, FULL, CI_OI, 0, 0],
                            [USERS, READ_EXECUTE, CI_OI, 0, 0], [USERS, 0x4, acls.CONTAINER_INHERIT, 0, 0],
                            [USERS, 0x2, acls.CONTAINER_INHERIT, acls.INHERIT_ONLY, 0],
                            [acls.CREATOR_OWNER, 0x10000000, CI_OI, acls.INHERIT_ONLY, 0]]),
    ('C:\\ProgramData', SYSTEM, True, [[SYSTEM, FULL, CI_OI, 0, 0], [ADMINISTRATORS, FULL, CI_OI, 0, 0],
                                       [acls.CREATOR_OWNER, FULL, CI_OI, acls.INHERIT_ONLY, 0],
                                       [USERS, READ_EXECUTE, CI_OI, 0, 0],
                                       [USERS, 0x116, acls.CONTAINER_INHERIT, 0, 0]]),
    ('C:\\Program Files', SYSTEM, False, []),
    ('C:\\Windows', SYSTEM, False, []),
    ('C:\\Windows\\System32', SYSTEM, False, []),
    ('C:\\Users', SYSTEM, False, []),
    # The profile of the account WinRM runs scripts as, down to its TEMP folder ($env:TEMP, windows/system.py).
    ('C:\\Users\\Administrator', SYSTEM, False, []),
    ('C:\\Users\\Administrator\\AppData', SYSTEM, False, []),
    ('C:\\Users\\Administrator\\AppData\\Local', SYSTEM, False, []),
    ('C:\\Users\\Administrator\\AppData\\Local\\Temp', SYSTEM, False, []),
)
# Who creates items: the collection's scripts run as an administrator, whose new items Administrators own.
CREATOR = ADMINISTRATORS
ANSI = 'cp1252'


# --- the tree -------------------------------------------------------------------------------------------

# The time a write of a file or folder takes on the node's simulated clock (node.py). On Windows two writes are never
# at the same moment, and a file's times tell them apart (NTFS keeps them in 100-nanosecond units: FILETIME); a
# millisecond still does after the node's date, epoch seconds in a double, becomes a DateTime's microseconds.
WRITE_SECONDS = 0.001


def _write_moment(node):
    """The node's date after a write took its time."""
    node.pass_time(WRITE_SECONDS)
    return node.date()


def fresh_tree(created):
    """The items of a fresh installation (DEFAULT_ITEMS), a day older than ``created`` (the node's date, epoch
    seconds, when its state was made)."""
    fs = {}
    now = created - 86400
    for path, owner, protected, rules in DEFAULT_ITEMS:
        fs[path.lower()] = {'path': path, 'dir': True, 'data': None, 'created': now, 'written': now,
                            'owner': owner, 'protected': protected, 'rules': rules, 'held': None}
    return fs


def tree(node):
    fs = node.data.get('fs')
    if fs is None:
        # A node saved before the file system was part of its state.
        fs = node.data['fs'] = fresh_tree(node.date())
    return fs


def normalize(path):
    """A full FileSystem path: separators, drive letter upper case, no trailing separator but at the root."""
    text = to_string(path).replace('/', '\\')
    if text.lower().startswith('microsoft.powershell.core\\filesystem::'):
        text = text.split('::', 1)[1]
    if text.lower().startswith('filesystem::'):
        text = text.split('::', 1)[1]
    if len(text) >= 2 and text[1] == ':':
        text = text[0].upper() + text[1:]
        if len(text) == 2:
            text += '\\'
    elif text.startswith('\\') and not text.startswith('\\\\'):
        text = 'C:' + text
    else:
        # Relative paths: the location of a remote session, the user's Documents folder.
        text = 'C:\\Users\\Administrator\\Documents\\' + text
    parts = []
    for part in text[3:].split('\\'):
        if part in ('', '.'):
            continue
        if part == '..':
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return text[:3] + '\\'.join(parts)


def is_filesystem(path):
    text = to_string(path)
    head = text.replace('/', '\\').split('\\', 1)[0]
    if '::' in text:
        return text.lower().startswith(('filesystem::', 'microsoft.powershell.core\\filesystem::'))
    return not (head.endswith(':') and len(head) > 2)


def parent_of(path):
    if path.endswith('\\'):
        return None
    head = path.rpartition('\\')[0]
    return head + '\\' if len(head) == 2 else head


# The most links a path may pass through: Windows gives up after 63 reparse points (MAXIMUM_REPARSE_DEPTH, ntifs.h;
# ERROR_CANT_RESOLVE_FILENAME). A path the model cannot resolve within it is an engine gap, never a guess.
_MAX_LINKS = 63


def real_path(node, path):
    """The path of the item ``path`` names, its folders' links followed (the last part is not: the item itself,
    as CreateFile with FILE_FLAG_OPEN_REPARSE_POINT and GetFileAttributes see it)."""
    path = normalize(path)
    fs = tree(node)
    for _hop in range(_MAX_LINKS):
        parts = path[3:].split('\\') if len(path) > 3 else []
        for index in range(1, len(parts)):
            prefix = path[:3] + '\\'.join(parts[:index])
            entry = fs.get(prefix.lower())
            if entry is not None and entry.get('link'):
                path = normalize(entry['link']['target'].rstrip('\\') + '\\' + '\\'.join(parts[index:]))
                break
        else:
            return path
    raise Unsupported('resolving %s through more than %d links' % (path, _MAX_LINKS))


def lookup(node, path):
    return tree(node).get(real_path(node, path).lower())


def link_target(node, entry):
    """The item a link's target names (None when it is missing: a dangling link)."""
    return lookup(node, entry['link']['target'])


def folder_of(node, entry):
    """The folder whose items a folder shows: itself, or a link's target (None when a link dangles)."""
    hops = 0
    while entry is not None and entry.get('link'):
        hops += 1
        if hops > _MAX_LINKS:
            raise Unsupported('following %s through more than %d links' % (entry['path'], _MAX_LINKS))
        entry = link_target(node, entry)
    return entry


def children(node, path):
    """A folder's items as the FileSystem provider lists them: its folders, then its files, each by name. The items
    of a link are those of its target."""
    folder = folder_of(node, lookup(node, path))
    if folder is None:
        return []
    prefix = folder['path'].lower().rstrip('\\') + '\\'
    items = [entry for key, entry in sorted(tree(node).items())
             if key.startswith(prefix) and '\\' not in key[len(prefix):] and key != prefix.rstrip('\\')]
    return [entry for entry in items if entry['dir']] + [entry for entry in items if not entry['dir']]


def walk(node, path):
    """The items stored under a folder, each folder's items after it, never through a link (the model's own view:
    what is on the disk below the folder; Get-ChildItem -Recurse follows links, see get_childitem)."""
    out = children(node, path)
    for entry in list(out):
        if entry['dir'] and not entry.get('link'):
            out += walk(node, entry['path'])
    return out


def make_link(node, path, target, kind='SymbolicLink'):
    """A directory link at ``path`` to the folder ``target`` (which may be missing), as ``mklink /D`` (kind
    SymbolicLink) or ``mklink /J`` (Junction) makes it; its folder must exist. Returns the link's entry."""
    if kind not in ('SymbolicLink', 'Junction'):
        raise ValueError('a link is a SymbolicLink or a Junction, not %s' % kind)
    entry = create(node, path, True)
    entry['link'] = {'type': kind, 'target': normalize(target)}
    return entry


# --- watching a path ------------------------------------------------------------------------------------------

def watch(node, path):
    """Record, after every change of the node's tree, whether ``path`` is there: a list of booleans, one per change,
    as a reader polling the path between a cmdlet's steps would find it. Kept on the node object, not in its state."""
    seen = []
    watchers = node.__dict__.setdefault('fs_watchers', [])
    watchers.append((normalize(path).lower(), seen))
    return seen


def _changed(node):
    for key, seen in node.__dict__.get('fs_watchers', ()):
        seen.append(key in tree(node))


def _put(node, entry):
    tree(node)[entry['path'].lower()] = entry
    _changed(node)


def _drop(node, key):
    del tree(node)[key.lower()]
    _changed(node)


def descendants(node, path):
    prefix = path.lower().rstrip('\\') + '\\'
    return [key for key in tree(node) if key.startswith(prefix)]


def content_bytes(entry):
    if entry.get('stand_in'):
        raise Unsupported('reading the bytes of %s, a stand-in binary known only by its SHA-256 and size'
                          % entry['path'])
    return base64.b64decode(entry['data'] or '')


def size_of(entry):
    return entry['stand_in']['size'] if entry.get('stand_in') else len(base64.b64decode(entry['data'] or ''))


# --- the system drive's free space ----------------------------------------------------------------------------
# ``node.profile['free_disk_bytes']`` is the room the system drive has for the files the model holds: what it has
# free (Win32_LogicalDisk.FreeSpace, windows/system.py) is that less their sizes, so a file written takes from it
# and a file removed gives it back. A write that needs more than is free fails as Windows fails it: WriteFile
# answers ERROR_DISK_FULL (112, "There is not enough space on the disk.": System Error Codes (0-499),
# learn.microsoft.com), which .NET's FileStream throws as a System.IO.IOException with that message; the file
# keeps what was written before the volume was full.
DISK_FULL = 'There is not enough space on the disk.'


def _stored_size(entry):
    """A file's size without decoding its bytes (base64: 3 bytes per 4 characters, less the padding)."""
    if entry.get('stand_in'):
        return entry['stand_in']['size']
    data = entry.get('data') or ''
    return len(data) * 3 // 4 - data[-2:].count('=')


def used_bytes(node):
    return sum(_stored_size(entry) for entry in tree(node).values() if not entry['dir'])


def free_bytes(node):
    """The free space of the system drive."""
    return max(0, int(node.profile.get('free_disk_bytes', 0)) - used_bytes(node))


def fill_volume(node, leave_bytes):
    """For fault tests: another program fills the system drive until ``leave_bytes`` are free."""
    node.profile['free_disk_bytes'] = used_bytes(node) + leave_bytes


def rules_of(node, entry):
    """The explicit and the inherited rules of an item."""
    if entry['protected']:
        return entry['rules'], []
    parent = lookup(node, parent_of(entry['path'])) if parent_of(entry['path']) else None
    if parent is None:
        return entry['rules'], []
    explicit, inherited = rules_of(node, parent)
    return entry['rules'], acls.inherited_rules(explicit + inherited, entry['dir'], entry['owner'])


def _not_found(path, error_id='PathNotFound'):
    return PSError("Cannot find path '%s' because it does not exist." % path,
                   'System.Management.Automation.ItemNotFoundException', error_id, 'ObjectNotFound', target=path)


def _part_not_found(path):
    return PSError("Could not find a part of the path '%s'." % path, 'System.IO.DirectoryNotFoundException',
                   'NewItemIOError', 'WriteError', target=path)


def _in_use(path):
    return PSError("The process cannot access the file '%s' because it is being used by another process." % path,
                   'System.IO.IOException', 'RemoveFileSystemItemIOError', 'WriteError', target=path)


def _running_programs(node):
    """The program files of the node's running services (node.data['services']: command line, nssm application),
    each with the names of the services that run it."""
    used = {}
    for name, service in (node.data.get('services') or {}).items():
        if service.get('state') == 'running' and service.get('command_line'):
            text = service['command_line'].strip()
            programs = [text[1:text.index('"', 1)] if text.startswith('"') else text.split(' ', 1)[0]]
            nssm = program_model.nssm_settings(service)
            if nssm:
                programs.append(nssm['application'])
            for program in programs:
                used.setdefault(program.lower(), []).append(name)
    return used


def release(node, service_name):
    """A service stopped (or restarted): the program files it held under other names are free again."""
    for entry in tree(node).values():
        holders = entry.get('held_by') or ()
        if service_name in holders:
            entry['held_by'] = ({name: starts for name, starts in holders.items() if name != service_name}
                                if isinstance(holders, dict) else [name for name in holders if name != service_name])
            if not entry['held_by']:
                entry['held'] = None


def _holders(node, path):
    """The running services whose process maps the program file ``path``, each with its start count (scm.py's
    ``starts``): the process of that start holds the file, under whatever name it gets, until it exits."""
    services = node.data.get('services') or {}
    return {name: services[name.lower()].get('starts', 0) for name in _running_programs(node).get(path.lower(), ())}


def _still_held(node, entry):
    """A program file moved aside while it ran is held as long as a process that mapped it runs: its service is
    running and has not been started again since (a restart maps the file now at the program's path)."""
    holders = entry.get('held_by')
    if not isinstance(holders, dict):
        # Recorded as a list of names: held until release() lets it go.
        return bool(entry.get('held'))
    services = node.data.get('services') or {}
    return any((services.get(name.lower()) or {}).get('state') == 'running'
               and (services.get(name.lower()) or {}).get('starts', 0) == starts for name, starts in holders.items())


# The programs that open their log with Go's os.OpenFile (O_APPEND|O_CREATE|O_WRONLY): kube-log-runner.go and
# containerd's cmd/containerd/command/service_windows.go.
GO_LOG_WRITERS = ('kube-log-runner.exe', 'containerd.exe')


def _appended_logs(node):
    """The log files running services' Go programs hold open for appending (lower-case paths)."""
    logs = set()
    for service in (node.data.get('services') or {}).values():
        if service.get('state') != 'running' or program_model.nssm_settings(service):
            continue
        argv = program_model.split_command_line(service.get('command_line') or '')
        log_file = program_model.log_file_of(service)
        if argv and log_file and argv[0].rsplit('\\', 1)[-1].lower() in GO_LOG_WRITERS:
            logs.add(normalize(log_file).lower())
    return logs


def held(node, entry):
    """'image', 'open', 'append' or None: how a running program holds the file."""
    if entry.get('held') == 'image' and not _still_held(node, entry):
        return None
    if entry.get('held'):
        return entry['held']
    if not entry['dir'] and entry['path'].lower() in _running_programs(node):
        return 'image'
    if not entry['dir'] and entry['path'].lower() in _appended_logs(node):
        return 'append'
    return None


def _delete_error(entry, node=None):
    """Why a held file cannot be deleted (Remove-Item prefixes 'Cannot remove item <path>: '), or None."""
    kind = held(node, entry) if node is not None else entry.get('held')
    if kind == 'image':
        # FileInfo.Delete names the file only in its message.
        name = entry['path'].rsplit('\\', 1)[-1]
        return PSError("Access to the path '%s' is denied." % name, 'System.UnauthorizedAccessException',
                       'RemoveFileSystemItemUnAuthorizedAccess', 'PermissionDenied', target=entry['path'])
    if kind:
        return _in_use(entry['path'])
    return None


def create(node, path, directory, data=b'', owner=CREATOR, stand_in=None):
    # An item made through a link is made in its target.
    path = real_path(node, path)
    parent = parent_of(path)
    if parent is not None:
        entry = lookup(node, parent)
        if entry is None or not entry['dir']:
            raise _part_not_found(path)
    now = _write_moment(node)
    entry = tree(node).get(path.lower())
    if entry is not None and not entry['dir'] and not directory:
        entry['data'] = base64.b64encode(data).decode('ascii')
        entry['stand_in'] = stand_in
        entry['written'] = now
        _changed(node)
        return entry
    entry = {'path': path, 'dir': directory, 'data': None if directory else base64.b64encode(data).decode('ascii'),
             'created': now, 'written': now, 'owner': owner, 'protected': False, 'rules': [], 'held': None,
             'stand_in': stand_in}
    _put(node, entry)
    return entry


def make_directories(node, path):
    path = normalize(path)
    missing = []
    while path is not None and lookup(node, path) is None:
        missing.append(path)
        path = parent_of(path)
    for item in reversed(missing):
        create(node, item, True)
    return lookup(node, missing[0] if missing else path)


def write_file(node, path, data, stand_in=None):
    """Write bytes (or a stand-in's digest and size) to a file, created if missing in an existing folder;
    a held file cannot be written."""
    entry = lookup(node, path)
    if entry is not None and entry['dir']:
        raise PSError("Access to the path '%s' is denied." % normalize(path), 'System.UnauthorizedAccessException')
    if entry is not None and held(node, entry):
        raise _in_use(normalize(path))
    size = stand_in['size'] if stand_in else len(data)
    room = free_bytes(node) + (_stored_size(entry) if entry is not None else 0)
    if size > room:
        # What fit stays: a prefix of the bytes, or of a stand-in whose bytes (and so whose hash) nobody knows.
        create(node, path, False, b'' if stand_in else data[:room],
               stand_in={'sha256': None, 'size': room} if stand_in else None)
        raise PSError(DISK_FULL, 'System.IO.IOException', 'DiskFull', 'WriteError', target=normalize(path))
    return create(node, path, False, data, stand_in=stand_in)


# --- objects ----------------------------------------------------------------------------------------------

class DateTime(datetime.datetime):
    """System.DateTime of an item's times: Utc with a time zone, else Local; its format strings are culture.py's."""

    NET = 'System.DateTime'

    def ToString(self, fmt=None, provider=None):  # pylint: disable=invalid-name
        text = culture.format_datetime(self, fmt, provider, 'Local' if self.tzinfo is None else 'Utc')
        if text is not None:
            return text
        return self.strftime('%m/%d/%Y %I:%M:%S %p').lstrip('0').replace('/0', '/')


def _utc(epoch):
    value = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)
    return DateTime(value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond,
                    datetime.timezone.utc)


def _local(epoch):
    # The nodes' time zone is UTC.
    value = datetime.datetime.utcfromtimestamp(epoch)
    return DateTime(value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond)


# System.IO.FileAttributes (.NET API reference, dotnet/dotnet-api-docs xml/System.IO/FileAttributes.xml).
FILE_ATTRIBUTES = enum_type('System.IO.FileAttributes', {
    'ReadOnly': 1, 'Hidden': 2, 'System': 4, 'Directory': 16, 'Archive': 32, 'Device': 64, 'Normal': 128,
    'Temporary': 256, 'SparseFile': 512, 'ReparsePoint': 1024, 'Compressed': 2048, 'Offline': 4096,
    'NotContentIndexed': 8192, 'Encrypted': 16384, 'IntegrityStream': 32768, 'NoScrubData': 131072}, flags=True).enum
DIRECTORY, ARCHIVE, REPARSE_POINT = 16, 32, 1024


def attributes_of(entry):
    """The attributes Windows keeps for an item: a folder Directory, a file Archive (set when it is written), a link
    ReparsePoint too."""
    value = DIRECTORY if entry['dir'] else ARCHIVE
    return value | (REPARSE_POINT if entry.get('link') else 0)


def mode_of(entry):
    """The Mode CodeProperty of Windows PowerShell 5.1 (FileSystemProvider.Mode, PowerShell/PowerShell 60b3b304f2):
    d, a, r, h, s and l (a reparse point) from the attributes."""
    value = attributes_of(entry)
    return ''.join(letter if value & bit else '-'
                   for letter, bit in (('d', DIRECTORY), ('a', ARCHIVE), ('r', 1), ('h', 2), ('s', 4),
                                       ('l', REPARSE_POINT)))


class FileSystemInfo:
    """System.IO.FileInfo or DirectoryInfo with the provider's notes (PSPath, PSIsContainer...), seen at ``shown``
    (the path it was reached by, through a link; its own path by default)."""

    NET_NAMES = ('System.IO.FileInfo', 'System.IO.DirectoryInfo')

    def __init__(self, entry, shown=None):
        self.entry = entry
        path = shown or entry['path']
        self.NET = 'System.IO.DirectoryInfo' if entry['dir'] else 'System.IO.FileInfo'
        self.FullName = path
        self.Name = path.rstrip('\\').rsplit('\\', 1)[-1] if not path.endswith('\\') else path
        self.PSIsContainer = entry['dir']
        self.PSPath = 'Microsoft.PowerShell.Core\\FileSystem::' + path
        parent = parent_of(path)
        self.PSParentPath = 'Microsoft.PowerShell.Core\\FileSystem::' + parent if parent else ''
        self.PSChildName = self.Name
        self.Exists = True
        self.Extension = ('.' + self.Name.rsplit('.', 1)[1]) if '.' in self.Name else ''
        self.BaseName = self.Name if entry['dir'] else self.Name[:len(self.Name) - len(self.Extension)]
        self.LastWriteTimeUtc = _utc(entry['written'])
        self.LastWriteTime = _local(entry['written'])
        self.CreationTimeUtc = _utc(entry['created'])
        self.CreationTime = _local(entry['created'])
        self.Attributes = FILE_ATTRIBUTES(attributes_of(entry))
        if not entry['dir']:
            self.Length = Int64(size_of(entry))
            self.DirectoryName = parent.rstrip('\\') if parent and not parent.endswith(':\\') else parent
        self.Mode = mode_of(entry)

    @property
    def LinkType(self):  # pylint: disable=invalid-name
        """InternalGetLinkType: SymbolicLink or Junction by the reparse tag; $null for an item that is no reparse
        point (a file with one name: hard links are not modelled)."""
        link = self.entry.get('link')
        return link['type'] if link else None

    @property
    def Target(self):  # pylint: disable=invalid-name
        """GetTarget: a link's target (the substitute name without its \\??\\ prefix) in a string array; for an item
        that is no reparse point, its other hard links (FindFirstFileNameW): none for a file; a folder's answer is
        not modelled."""
        link = self.entry.get('link')
        if link:
            return PSArray([link['target']], 'System.String')
        if self.entry['dir']:
            raise Unsupported('the Target of a folder that is no link (%s)' % self.FullName)
        return PSArray([], 'System.String')

    @property
    def PROPERTIES(self):  # pylint: disable=invalid-name
        names = ('PSPath', 'PSParentPath', 'PSChildName', 'PSIsContainer', 'Mode', 'BaseName', 'Target', 'LinkType',
                 'Name', 'FullName', 'Extension', 'CreationTime', 'CreationTimeUtc', 'LastWriteTime',
                 'LastWriteTimeUtc', 'Exists', 'Attributes')
        return names + (() if self.entry['dir'] else ('Length', 'DirectoryName'))

    def to_string(self):
        # [string] of a FileInfo/DirectoryInfo that Get-Item returns: its full path.
        return self.FullName


# --- paths as the cmdlets take them ------------------------------------------------------------------------

def _list(value):
    if value is None:
        return []
    return [to_string(item) for item in (enumerate_value(value) if is_enumerable(value) else [value])]


def _has_wildcard(text):
    return any(char in text for char in '*?[')


def expand(node, pattern):
    """The existing items a -Path with wildcards names (each level matched against the folder's children)."""
    path = normalize(pattern)
    if not _has_wildcard(path):
        entry = lookup(node, path)
        return [entry] if entry else []
    root, parts = path[:3], path[3:].split('\\')
    current = [lookup(node, root)]
    for part in parts:
        following = []
        for entry in current:
            if not entry['dir']:
                continue
            if _has_wildcard(part):
                matcher = ops.wildcard(part)
                following += [child for child in children(node, entry['path'])
                              if matcher.match(child['path'].rsplit('\\', 1)[-1])]
            else:
                child = lookup(node, entry['path'].rstrip('\\') + '\\' + part)
                if child:
                    following.append(child)
        current = following
    return current


def other_provider(ctx, params, input_items):
    """A call on a path of another provider (HKLM:, Env:...): the area that models that drive answers it
    (``PROVIDER_CMDLETS``: (drive, cmdlet name) -> function); None when every path is a FileSystem path."""
    paths = _list(params.get('LiteralPath') if 'LiteralPath' in params else params.get('Path'))
    foreign = [path for path in paths if not is_filesystem(path)]
    if not foreign:
        return None
    drive = foreign[0].split('::', 1)[-1].replace('/', '\\').split('\\', 1)[0].rstrip(':').lower()
    from . import AREAS  # pylint: disable=import-outside-toplevel
    for area in AREAS:
        function = getattr(area, 'PROVIDER_CMDLETS', {}).get((drive, ctx.cmdlet.name))
        if function is not None:
            return function(ctx, params, input_items)
    raise Unsupported('%s of a path outside the FileSystem provider (%s)' % (ctx.cmdlet.name, foreign[0]))


def piped_paths(params, input_items):
    """Path parameters bound from the pipeline: an item's PSPath (FileInfo, DirectoryInfo) binds -LiteralPath
    by property name, a string binds -Path (the cmdlets' pages: Accept pipeline input)."""
    if not input_items or 'Path' in params or 'LiteralPath' in params:
        return params
    items = [item for item in input_items if not is_null(item)]
    literal = [item.PSPath for item in items if hasattr(item, 'PSPath')]
    if literal:
        return dict(params, LiteralPath=literal)
    return dict(params, Path=[to_string(item) for item in items])


def _targets(ctx, params, require=True):
    """(path as given, entries) per -Path (wildcards) or -LiteralPath; unresolved paths write ItemNotFound."""
    out = []
    literal = 'LiteralPath' in params
    for given in _list(params.get('LiteralPath') if literal else params.get('Path')):
        if not is_filesystem(given):
            raise Unsupported('%s of a path outside the FileSystem provider (%s)' % (ctx.cmdlet.name, given))
        entries = ([lookup(ctx.host.node, given)] if literal else expand(ctx.host.node, given))
        entries = [entry for entry in entries if entry]
        if not entries and require:
            ctx.write_error(_not_found(normalize(given)))
        out.append((given, entries))
    return out


# The parameters of every cmdlet (about_CommonParameters, 5.1) and of those that support ShouldProcess: the engine's.
COMMON_PARAMETERS = frozenset(('Verbose', 'Debug', 'ErrorAction', 'WarningAction', 'InformationAction', 'ErrorVariable',
                               'WarningVariable', 'InformationVariable', 'OutVariable', 'OutBuffer', 'PipelineVariable',
                               'WhatIf', 'Confirm', 'UseTransaction'))


def refuse_unmodelled(ctx, params, modelled):
    """A parameter the cmdlet's reference page documents but the model does not implement is an engine gap
    (Unsupported), never ignored."""
    extra = sorted(name for name in params if name not in modelled and name not in COMMON_PARAMETERS)
    if extra:
        raise Unsupported('%s -%s' % (ctx.cmdlet.name, ' -'.join(extra)))


def provider_cmdlet(*modelled):
    """A provider cmdlet of the FileSystem drives taking the parameters ``modelled``: piped items bind by PSPath, and a
    path on another drive goes to that drive's area."""
    def wrap(function):
        def cmdlet(ctx, params, input_items):
            params = piped_paths(params, input_items)
            delegated = other_provider(ctx, params, input_items)
            if delegated is not None:
                return delegated
            refuse_unmodelled(ctx, params, modelled)
            return function(ctx, params, input_items)
        return cmdlet
    return wrap


# --- cmdlets -----------------------------------------------------------------------------------------------

@provider_cmdlet('Path', 'LiteralPath', 'PathType')
def test_path(ctx, params, input_items):
    """Test-Path (reference/5.1 Microsoft.PowerShell.Management/Test-Path.md): one Boolean per path; an empty path fails binding."""
    kind = to_string(params.get('PathType', 'Any')).lower()
    out = []
    literal = 'LiteralPath' in params
    for given in _list(params.get('LiteralPath') if literal else params.get('Path')):
        if not given.strip():
            raise PSError('Cannot bind argument to parameter \'%s\' because it is an empty string.'
                          % ('LiteralPath' if literal else 'Path'),
                          'System.Management.Automation.ParameterBindingException', 'ParameterArgumentValidationError')
        if not is_filesystem(given):
            raise Unsupported('Test-Path of a path outside the FileSystem provider (%s)' % given)
        entries = [lookup(ctx.host.node, given)] if literal else expand(ctx.host.node, given)
        entries = [entry for entry in entries if entry]
        if kind == 'container':
            entries = [entry for entry in entries if entry['dir']]
        elif kind == 'leaf':
            entries = [entry for entry in entries if not entry['dir']]
        out.append(bool(entries))
    return out


def _shown(given, entry):
    """The path an item found by a path without wildcards is shown at: the path given when it went through a link."""
    if _has_wildcard(given):
        return entry['path']
    path = normalize(given)
    return entry['path'] if path.lower() == entry['path'].lower() else path


@provider_cmdlet('Path', 'LiteralPath', 'Force')
def get_item(ctx, params, input_items):
    """Get-Item (reference/5.1 Microsoft.PowerShell.Management/Get-Item.md): a FileInfo or DirectoryInfo per item; a missing
    path writes ItemNotFound."""
    return [FileSystemInfo(entry, _shown(given, entry)) for given, entries in _targets(ctx, params) for entry in entries]


def _listing(node, entry, shown, recurse, depth=0):
    """(item, path shown) of Get-ChildItem on a folder: its folders then its files; with -Recurse then each folder's
    items in turn. Windows PowerShell 5.1 recurses into every folder it lists, links included (FileSystemProvider.Dir of
    PowerShell/PowerShell 60b3b304f2 enumerates DirectoryInfo.EnumerateDirectories, whose links are directories:
    -FollowSymlink came with PowerShell 6), so a link's target is listed under the link's path."""
    if depth > _MAX_LINKS:
        raise Unsupported('Get-ChildItem -Recurse through a loop of links at %s' % shown)
    if entry.get('link') and folder_of(node, entry) is None:
        raise Unsupported('listing %s, a link whose target %s is missing' % (shown, entry['link']['target']))
    out = [(item, shown.rstrip('\\') + '\\' + item['path'].rsplit('\\', 1)[-1]) for item in children(node, entry['path'])]
    # Dir writes a folder's items, then recurses into its folders in turn.
    for item, item_shown in list(out) if recurse else ():
        if item['dir']:
            out += _listing(node, item, item_shown, recurse, depth + (1 if item.get('link') else 0))
    return out


@provider_cmdlet('Path', 'LiteralPath', 'Filter', 'Include', 'Recurse', 'File', 'Directory', 'Force')
def get_childitem(ctx, params, input_items):
    """Get-ChildItem (reference/5.1 Microsoft.PowerShell.Management/Get-ChildItem.md): FileInfo and DirectoryInfo objects."""
    node = ctx.host.node
    if 'Path' not in params and 'LiteralPath' not in params:
        params = dict(params, LiteralPath='C:\\Users\\Administrator\\Documents')
    matcher = ops.wildcard(to_string(params['Filter'])) if params.get('Filter') is not None else None
    include = [ops.wildcard(pattern) for pattern in _list(params.get('Include'))]
    out = []
    for given, entries in _targets(ctx, params):
        for entry in entries:
            if not entry['dir']:
                found = [(entry, _shown(given, entry))]
            else:
                found = _listing(node, entry, _shown(given, entry), bool(params.get('Recurse')))
            for item, shown in found:
                name = shown.rsplit('\\', 1)[-1]
                if matcher and not matcher.match(name) or include and not any(m.match(name) for m in include):
                    continue
                if params.get('File') and item['dir'] or params.get('Directory') and not item['dir']:
                    continue
                out.append(FileSystemInfo(item, shown))
    return out


def _encoding_bytes(text, encoding):
    """(preamble, bytes) of text as Set-Content/Add-Content -Encoding (FileSystemCmdletProviderEncoding) write it
    in 5.1: Default is the ANSI code page, String and Unknown are UTF-16LE, UTF8 has a byte order mark."""
    name = 'default' if encoding is None else to_string(encoding).lower()
    table = {'default': (ANSI, b''), 'oem': ('cp437', b''), 'ascii': ('ascii', b''), 'utf7': ('utf-7', b''),
             'utf8': ('utf-8', b'\xef\xbb\xbf'), 'unicode': ('utf-16-le', b'\xff\xfe'),
             'string': ('utf-16-le', b'\xff\xfe'), 'unknown': ('utf-16-le', b'\xff\xfe'),
             'bigendianunicode': ('utf-16-be', b'\xfe\xff'), 'utf32': ('utf-32-le', b'\xff\xfe\x00\x00'),
             'bigendianutf32': ('utf-32-be', b'\x00\x00\xfe\xff')}
    codec, preamble = table[name]
    return preamble, text.encode(codec, errors='replace')


def _set_or_add(ctx, params, append):
    node = ctx.host.node
    values = params.get('Value')
    items = [] if values is None else (enumerate_value(values) if is_enumerable(values) else [values])
    encoding = params.get('Encoding')
    newline = '' if params.get('NoNewline') else '\r\n'
    text = ''.join(to_string(item) + newline for item in items)
    for given in _list(params.get('LiteralPath') if 'LiteralPath' in params else params.get('Path')):
        if not is_filesystem(given):
            raise Unsupported('%s outside the FileSystem provider (%s)' % (ctx.cmdlet.name, given))
        path = normalize(given)
        entry = lookup(node, path)
        if encoding is not None and to_string(encoding).lower() == 'byte':
            data = bytes(int(item) for item in items)
            prefix = content_bytes(entry) if append and entry else b''
            write_file(node, path, prefix + data)
            continue
        preamble, body = _encoding_bytes(text, encoding)
        try:
            if append and entry is not None and content_bytes(entry):
                # Add-Content appends in the encoding asked for, without a second preamble.
                write_file(node, path, content_bytes(entry) + body)
            else:
                write_file(node, path, preamble + body)
        except PSError as error:
            ctx.write_error(error)
    return []


_CONTENT_PARAMETERS = ('Path', 'LiteralPath', 'Value', 'Encoding', 'NoNewline', 'Force')


def set_content(ctx, params, input_items):
    """Set-Content (reference/5.1 Microsoft.PowerShell.Management/Set-Content.md): no output without -PassThru."""
    if input_items and 'Value' not in params:
        # -Value takes the pipeline's objects.
        params = dict(params, Value=list(input_items))
    delegated = other_provider(ctx, params, input_items)
    if delegated is not None:
        return delegated
    refuse_unmodelled(ctx, params, _CONTENT_PARAMETERS)
    return _set_or_add(ctx, params, False)


def add_content(ctx, params, input_items):
    """Add-Content (reference/5.1 Microsoft.PowerShell.Management/Add-Content.md): no output without -PassThru."""
    if input_items and 'Value' not in params:
        # -Value takes the pipeline's objects.
        params = dict(params, Value=list(input_items))
    delegated = other_provider(ctx, params, input_items)
    if delegated is not None:
        return delegated
    refuse_unmodelled(ctx, params, _CONTENT_PARAMETERS)
    return _set_or_add(ctx, params, True)


def decode(data, encoding=None, default=ANSI):
    """Bytes to text as a reader does: a byte order mark wins, else the encoding asked for, else ``default``."""
    for mark, codec in ((b'\xef\xbb\xbf', 'utf-8'), (b'\xff\xfe\x00\x00', 'utf-32-le'), (b'\x00\x00\xfe\xff', 'utf-32-be'),
                        (b'\xff\xfe', 'utf-16-le'), (b'\xfe\xff', 'utf-16-be')):
        if data.startswith(mark):
            return data[len(mark):].decode(codec, errors='replace')
    if encoding is not None:
        name = to_string(encoding).lower()
        codec = {'utf8': 'utf-8', 'unicode': 'utf-16-le', 'bigendianunicode': 'utf-16-be', 'utf32': 'utf-32-le',
                 'ascii': 'ascii', 'default': ANSI, 'oem': 'cp437', 'utf7': 'utf-7'}.get(name, default)
        return data.decode(codec, errors='replace')
    return data.decode(default, errors='replace')


@provider_cmdlet('Path', 'LiteralPath', 'Raw', 'Encoding', 'Force')
def get_content(ctx, params, input_items):
    """Get-Content (reference/5.1 Microsoft.PowerShell.Management/Get-Content.md): a string per line, one string with -Raw
    (nothing for an empty file), bytes with -Encoding Byte; a folder is access denied."""
    out = []
    for _pattern, entries in _targets(ctx, params):
        for entry in entries:
            if entry['dir']:
                ctx.write_error(PSError("Access to the path '%s' is denied." % entry['path'],
                                        'System.UnauthorizedAccessException', 'GetContentReaderUnauthorizedAccessError',
                                        'PermissionDenied', target=entry['path']))
                continue
            data = content_bytes(entry)
            encoding = params.get('Encoding')
            if encoding is not None and to_string(encoding).lower() == 'byte':
                out.extend(Byte(item) for item in data)
                continue
            text = decode(data, encoding)
            if params.get('Raw'):
                if text:
                    out.append(text)
                continue
            lines = text.replace('\r\n', '\n').replace('\r', '\n').split('\n')
            if lines and lines[-1] == '':
                lines.pop()
            out.extend(lines)
    return out


# Get-FileHash of Windows PowerShell 5.1 is a function of Microsoft.PowerShell.Utility.psm1 (PowerShell/PowerShell
# 60b3b304f2; reference/5.1 Microsoft.PowerShell.Utility/Get-FileHash.md): Resolve-Path resolves the paths (a missing one
# is Resolve-Path's ItemNotFound), folders are skipped, each file is read with File.OpenRead (sharing reading only: a
# file a program writes cannot be opened, Write-Error FileReadError "File '<path>' cannot be read: <error>"), and each
# hash is a [PSCustomObject] of Algorithm (upper case), Hash (upper-case hex) and Path with the type name
# Microsoft.Powershell.Utility.FileHash inserted first in its TypeNames. MACTripleDES hashes with a random key: not
# modelled.
class FileHash(PSCustomObject):
    """The object Get-FileHash writes: a [PSCustomObject] of Algorithm, Hash and Path, its type name inserted first
    (its member list: netmembers/windows.json)."""

    DOCUMENTED = 'Microsoft.Powershell.Utility.FileHash'
    TYPE_NAMES = (DOCUMENTED,) + PSCustomObject.TYPE_NAMES
    PROPERTIES = ('Algorithm', 'Hash', 'Path')

    def __init__(self, algorithm, digest, path):
        super().__init__(zip(self.PROPERTIES, (algorithm, digest, path)))


def _digest(entry, algorithm):
    if entry.get('stand_in') and algorithm == 'SHA256':
        if entry['stand_in']['sha256'] is None:
            raise Unsupported('hashing %s, part of a stand-in binary cut short by a full disk' % entry['path'])
        return entry['stand_in']['sha256']
    if algorithm not in ('SHA1', 'SHA256', 'SHA384', 'SHA512', 'MD5'):
        raise Unsupported('Get-FileHash -Algorithm %s' % algorithm)
    return hashlib.new(algorithm.lower(), content_bytes(entry)).hexdigest()


@provider_cmdlet('Path', 'LiteralPath', 'Algorithm')
def get_filehash(ctx, params, input_items):
    algorithm = to_string(params.get('Algorithm', 'SHA256')).upper()
    out = []
    for given, entries in _targets(ctx, params, require=False):
        if not entries:
            ctx.write_error(PSError("Cannot find path '%s' because it does not exist." % normalize(given),
                                    'System.Management.Automation.ItemNotFoundException',
                                    'PathNotFound,Microsoft.PowerShell.Commands.ResolvePathCommand', 'ObjectNotFound',
                                    target=given))
        for entry in entries:
            if entry['dir']:
                continue
            if held(ctx.host.node, entry) in ('open', 'append'):
                reason = 'Exception calling "OpenRead" with "1" argument(s): "%s"' % _in_use(entry['path']).message
                ctx.write_error(PSError("File '%s' cannot be read: %s" % (entry['path'], reason),
                                        'Microsoft.PowerShell.Commands.WriteErrorException', 'FileReadError,Get-FileHash',
                                        'ReadError', target=entry['path']))
                continue
            out.append(FileHash(algorithm, _digest(entry, algorithm).upper(), entry['path']))
    return out


def new_item(ctx, params, input_items):
    """New-Item (reference/5.1 Microsoft.PowerShell.Management/New-Item.md): a FileInfo or DirectoryInfo of what it
    made (a link: its DirectoryInfo)."""
    delegated = other_provider(ctx, params, input_items)
    if delegated is not None:
        return delegated
    refuse_unmodelled(ctx, params, ('Path', 'Name', 'ItemType', 'Value', 'Force'))
    node = ctx.host.node
    kind = to_string(params.get('ItemType', 'File')).lower()
    if kind not in ('file', 'directory', 'symboliclink', 'junction'):
        raise Unsupported('New-Item -ItemType %s' % kind)
    value = params.get('Value')
    out = []
    for given in _list(params.get('Path')) or ['C:\\Users\\Administrator\\Documents']:
        path = normalize(given + ('\\' + to_string(params['Name']) if params.get('Name') is not None else ''))
        entry = lookup(node, path)
        try:
            if kind in ('symboliclink', 'junction'):
                out.append(FileSystemInfo(_new_link(node, path, entry, value, kind, bool(params.get('Force')))))
                continue
            if kind == 'directory':
                if entry is not None and not params.get('Force'):
                    raise PSError('An item with the specified name %s already exists.' % path, 'System.IO.IOException',
                                  'DirectoryExist', 'ResourceExists', target=path)
                if entry is not None and not entry['dir']:
                    raise PSError("An item with the specified name %s already exists." % path, 'System.IO.IOException',
                                  'DirectoryExist', 'ResourceExists', target=path)
                # New-Item creates the missing folders of a new folder's path.
                out.append(FileSystemInfo(make_directories(node, path)))
                continue
            if entry is not None and entry['dir']:
                raise PSError("Access to the path '%s' is denied." % path, 'System.UnauthorizedAccessException',
                              'NewItemUnauthorizedAccessError', 'PermissionDenied', target=path)
            if entry is not None and not params.get('Force'):
                raise PSError("The file '%s' already exists." % path, 'System.IO.IOException', 'NewItemIOError',
                              'WriteError', target=path)
            if params.get('Force'):
                make_directories(node, parent_of(path))
            data = b'' if value is None else to_string(value).encode('utf-8')
            out.append(FileSystemInfo(write_file(node, path, data)))
        except PSError as error:
            ctx.write_error(error)
    return out


def _new_link(node, path, entry, value, kind, force):
    """New-Item -ItemType SymbolicLink or Junction -Value <target> (FileSystemProvider.NewItem of PowerShell/PowerShell
    60b3b304f2; New-Item, reference/5.1): the target must exist (a symbolic link: ItemNotFoundException "Could not
    find item <target>."; a junction: an InvalidOperationException whose message keeps its unfilled {0}) and be a
    folder for a junction (ItemNotDirectory). A symbolic link at an existing path is refused without -Force
    (IOException "NewItemIOError"); a junction takes an existing empty folder. Links to files, a target given
    relative to the current location, and -Force over an existing item are not modelled."""
    target = '' if is_null(value) else to_string(value)
    if not target:
        raise PSError('Value cannot be null.\r\nParameter name: value', 'System.Management.Automation.PSArgumentNullException',
                      'ArgumentNull', 'InvalidArgument')
    if not (len(target) > 2 and target[1] == ':'):
        raise Unsupported('New-Item -ItemType %s with the target %s (only a full path is modelled)' % (kind, target))
    found = lookup(node, target)
    if found is None:
        message = ('Could not find item %s.' % target) if kind == 'symboliclink' else 'Could not find item {0}.'
        raise PSError(message, 'System.Management.Automation.ItemNotFoundException' if kind == 'symboliclink'
                      else 'System.InvalidOperationException', 'ItemNotFound', 'ObjectNotFound', target=target)
    if not found['dir']:
        if kind == 'junction':
            raise PSError("A directory is required for the operation. The item '%s' is not a directory." % target,
                          'System.InvalidOperationException', 'ItemNotDirectory', 'InvalidOperation', target=target)
        raise Unsupported('New-Item -ItemType SymbolicLink to a file (%s)' % target)
    if entry is not None:
        if force:
            raise Unsupported('New-Item -ItemType %s -Force over an existing item (%s)' % (kind, path))
        if kind == 'symboliclink':
            raise PSError('NewItemIOError', 'System.IO.IOException', 'NewItemIOError', 'ResourceExists', target=path)
        if not entry['dir'] or entry.get('link'):
            raise PSError("A directory is required for the operation. The item '%s' is not a directory." % path,
                          'System.InvalidOperationException', 'ItemNotDirectory', 'InvalidOperation', target=path)
        if descendants(node, entry['path']):
            raise PSError('Directory %s cannot be removed because it is not empty.' % path, 'System.IO.IOException',
                          'DirectoryNotEmpty', 'WriteError', target=path)
        entry['link'] = {'type': 'Junction', 'target': normalize(target)}
        _changed(node)
        return entry
    return make_link(node, path, target, 'SymbolicLink' if kind == 'symboliclink' else 'Junction')


# Remove-Item of a folder as Windows PowerShell 5.1 does it (FileSystemProvider.RemoveDirectoryInfoItem of
# PowerShell/PowerShell 60b3b304f2): a reparse point is refused without -Force (DirectoryReparsePoint); with -Force
# InternalSymbolicLinkLinkCodeMethods.DeleteJunction deletes its reparse point with FSCTL_DELETE_REPARSE_POINT and
# the tag IO_REPARSE_TAG_MOUNT_POINT, which takes a junction away (the folder left is empty and removed) but fails
# on a symbolic link (STATUS_IO_REPARSE_TAG_MISMATCH: MS-FSCC 2.3.6; ERROR_REPARSE_TAG_MISMATCH 4394), a
# Win32Exception that RemoveItem does not catch: it ends the cmdlet's removal where it is (what was removed stays
# removed), as PowerShell/PowerShell#621 shows it (5.1's record: the Win32Exception's message, this FQID, category
# NotSpecified). A folder's subfolders go first (each the same way), then its files, then the folder.
REPARSE_TAG_MISMATCH = ('There is a mismatch between the tag specified in the request and the tag present in the '
                        'reparse point')


class RemovalStopped(Exception):
    """An exception that leaves Remove-Item as a terminating error (the provider does not catch it)."""

    def __init__(self, error):
        super().__init__(error.message)
        self.error = error


def _reparse_point_refused(entry):
    return PSError('%s is an NTFS junction point. Use the Force parameter to delete or modify this object.'
                   % entry['path'], 'System.IO.IOException', 'DirectoryNotEmpty', 'WriteError', target=entry['path'])


def _remove_link(node, entry, force):
    """A folder link: refused without -Force; a junction goes with its reparse point, a symbolic link stops the
    removal. Its target's items are never touched."""
    if not force:
        raise _reparse_point_refused(entry)
    if entry['link']['type'] != 'Junction':
        raise RemovalStopped(PSError(
            REPARSE_TAG_MISMATCH, 'System.ComponentModel.Win32Exception',
            'System.ComponentModel.Win32Exception,Microsoft.PowerShell.Commands.RemoveItemCommand', 'NotSpecified'))
    _drop(node, entry['path'])


def _cannot_remove(node, entry):
    error = _delete_error(entry, node)
    return PSError('Cannot remove item %s: %s' % (entry['path'], error.message), error.type_name, error.error_id,
                   error.category, target=entry['path'])


def _remove_folder(node, entry, force, refused):
    """A folder's items, then the folder; the files a program holds stay (their error in ``refused``), and so do the
    folders that still hold something."""
    if entry.get('link'):
        _remove_link(node, entry, force)
        return
    for item in children(node, entry['path']):
        if item['dir']:
            _remove_folder(node, item, force, refused)
        elif held(node, item):
            refused.append(_cannot_remove(node, item))
        else:
            _drop(node, item['path'])
    if not descendants(node, entry['path']):
        _drop(node, entry['path'])


def _remove(node, entry, recurse, force):
    """Remove-Item of one item. Of the files a program holds, the first is reported (Windows PowerShell writes one
    error per such file and per folder left not empty: the model writes the first only)."""
    if not entry['dir']:
        if held(node, entry):
            raise _cannot_remove(node, entry)
        _drop(node, entry['path'])
        return
    if children(node, entry['path']) and not recurse:
        # Without -Recurse, Remove-Item asks before removing a folder's content (a link's: its target's, #621); a
        # remote session without a user interface cannot ask.
        raise PSError('Windows PowerShell is in NonInteractive mode. Read and Prompt functionality is not '
                      'available.', 'System.Management.Automation.PSInvalidOperationException',
                      'RemoveItemUnauthorizedAccessError', 'InvalidOperation', target=entry['path'])
    refused = []
    _remove_folder(node, entry, force, refused)
    if refused:
        raise refused[0]


@provider_cmdlet('Path', 'LiteralPath', 'Recurse', 'Force')
def remove_item(ctx, params, input_items):
    """Remove-Item (reference/5.1 Microsoft.PowerShell.Management/Remove-Item.md): no output."""
    for _pattern, entries in _targets(ctx, params):
        for entry in entries:
            try:
                _remove(ctx.host.node, entry, bool(params.get('Recurse')), bool(params.get('Force')))
            except PSError as error:
                ctx.write_error(error)
            except RemovalStopped as stopped:
                raise stopped.error from None
    return []


def move(node, source, destination, force):
    """Move-Item of a file or folder (FileSystemProvider.MoveFileInfoItem of PowerShell/PowerShell 60b3b304f2): a
    rename (MoveFile, one step); onto an existing file with -Force, the destination is deleted first and the rename
    comes after (two steps: between them the destination is missing, and a crash there loses it)."""
    entry = lookup(node, source)
    if entry is None:
        raise _not_found(normalize(source))
    target = real_path(node, destination)
    existing = lookup(node, target)
    if existing is not None and existing['dir']:
        target = real_path(node, folder_of(node, existing)['path'].rstrip('\\') + '\\' + entry['path'].rsplit('\\', 1)[-1])
        existing = lookup(node, target)
    if existing is not None:
        if not force or existing['dir']:
            raise PSError('Cannot create a file when that file already exists.', 'System.IO.IOException',
                          'MoveFileInfoItemIOError', 'WriteError', target=entry['path'])
        if _delete_error(existing, node) is not None:
            raise _delete_error(existing, node)
        _drop(node, target)
    parent = lookup(node, parent_of(target))
    if parent is None or not parent['dir']:
        raise PSError('Could not find a part of the path.', 'System.IO.DirectoryNotFoundException',
                      'MoveFileInfoItemIOError', 'WriteError', target=entry['path'])
    if held(node, entry) in ('open', 'append'):
        raise _in_use(entry['path'])
    if held(node, entry) == 'image' and not entry.get('held'):
        # The process holds the file object, not its name: it keeps holding the file under its new name
        # until the service stops (``release``).
        entry['held'] = 'image'
        entry['held_by'] = _holders(node, entry['path'])
    _rename(node, entry, target)
    return lookup(node, target)


def _rename(node, entry, target):
    """An item and what it holds under a new path in one step (MoveFileEx on one volume is a rename)."""
    old = entry['path']
    for key in [entry['path'].lower()] + descendants(node, old):
        item = tree(node).pop(key)
        item['path'] = target + item['path'][len(old):]
        tree(node)[item['path'].lower()] = item
    _changed(node)


@provider_cmdlet('Path', 'LiteralPath', 'Destination', 'Force', 'PassThru')
def move_item(ctx, params, input_items):
    """Move-Item (reference/5.1 Microsoft.PowerShell.Management/Move-Item.md): no output, the moved item with -PassThru."""
    destination = to_string(params.get('Destination'))
    out = []
    for _pattern, entries in _targets(ctx, params):
        for entry in entries:
            try:
                moved = move(ctx.host.node, entry['path'], destination, bool(params.get('Force')))
                if params.get('PassThru'):
                    out.append(FileSystemInfo(moved))
            except PSError as error:
                ctx.write_error(error)
    return out


def security_of(node, entry):
    explicit, inherited = rules_of(node, entry)
    return acls.FileSystemSecurity(entry['path'], entry['dir'], entry['owner'], entry['protected'], explicit, inherited)


@provider_cmdlet('Path', 'LiteralPath')
def get_acl(ctx, params, input_items):
    """Get-Acl (reference/5.1 Microsoft.PowerShell.Security/Get-Acl.md): a FileSecurity or DirectorySecurity (acl.py)."""
    out = []
    for _pattern, entries in _targets(ctx, params):
        out.extend(security_of(ctx.host.node, entry) for entry in entries)
    return out


@provider_cmdlet('Path', 'LiteralPath', 'AclObject')
def set_acl(ctx, params, input_items):
    """Set-Acl (reference/5.1 Microsoft.PowerShell.Security/Set-Acl.md): no output; -AclObject must be a security object."""
    security = params.get('AclObject')
    if not isinstance(security, acls.FileSystemSecurity):
        raise PSError('The input object cannot be bound to any parameters for the command either because the command '
                      'does not take pipeline input or the input and its properties do not match any of the '
                      'parameters that take pipeline input.', 'System.Management.Automation.ParameterBindingException',
                      'InputObjectNotBound', 'InvalidArgument')
    for _pattern, entries in _targets(ctx, params):
        for entry in entries:
            entry['owner'] = security.owner
            entry['protected'] = security.protected
            entry['rules'] = [list(rule) for rule in security.explicit]
    return []


# --- System.IO.File ----------------------------------------------------------------------------------------

class FileStream:
    """System.IO.FileStream of File.Open (.NET API reference: File.Open(String, FileMode, FileAccess, FileShare),
    FileStream.Length, Position, Seek, Read, SetLength, Stream.CopyTo): a stream that may write changes the file
    at once, as the other handles to it see it."""

    NET = 'System.IO.FileStream'
    PROPERTIES = ('CanRead', 'CanSeek', 'CanWrite', 'Length', 'Name', 'Position')

    def __init__(self, node, entry, access=1):
        self._node = node
        self._entry = entry
        self.Name = entry['path']
        self.Position = Int64(0)
        self.CanRead, self.CanSeek, self.CanWrite = bool(access & 1), True, bool(access & 2)

    @property
    def _data(self):
        return content_bytes(self._entry)

    @property
    def Length(self):  # pylint: disable=invalid-name
        return Int64(len(self._data))

    def _store(self, data):
        self._entry['data'] = base64.b64encode(data).decode('ascii')
        self._entry['written'] = _write_moment(self._node)

    def Seek(self, offset, origin):  # pylint: disable=invalid-name
        base = {0: 0, 1: int(self.Position), 2: len(self._data)}[int(origin)]
        self.Position = Int64(base + int(offset))
        return self.Position

    def Read(self, buffer, offset, count):  # pylint: disable=invalid-name
        if not self.CanRead:
            raise PSError('Stream does not support reading.', 'System.NotSupportedException')
        start = int(self.Position)
        chunk = self._data[start:start + int(count)]
        for index, value in enumerate(chunk):
            buffer[int(offset) + index] = Byte(value)
        self.Position = Int64(start + len(chunk))
        return len(chunk)

    def CopyTo(self, destination, *buffer_size):  # pylint: disable=invalid-name
        """Stream.CopyTo: the bytes from the current position to the end, written at the destination's position."""
        if not isinstance(destination, FileStream) or not destination.CanWrite or not self.CanRead:
            raise PSError('Stream does not support writing.', 'System.NotSupportedException')
        start = int(self.Position)
        chunk = self._data[start:]
        self.Position = Int64(start + len(chunk))
        destination._write(chunk)  # pylint: disable=protected-access
        return AUTOMATION_NULL

    def _write(self, chunk):
        at = int(self.Position)
        data = self._data
        self._store(data[:at] + bytes(max(0, at - len(data))) + chunk + data[at + len(chunk):])
        self.Position = Int64(at + len(chunk))

    def SetLength(self, value):  # pylint: disable=invalid-name
        if not self.CanWrite:
            raise PSError('Stream does not support both writing and seeking.', 'System.NotSupportedException')
        value = int(value)
        data = self._data
        self._store(data[:value] + bytes(max(0, value - len(data))))
        self.Position = Int64(min(int(self.Position), value))
        return AUTOMATION_NULL

    def Dispose(self):  # pylint: disable=invalid-name
        return AUTOMATION_NULL

    Close = Dispose


# System.IO.FileMode, FileAccess and FileShare values (.NET API reference).
_CREATE_NEW, _CREATE, _OPEN = 1, 2, 3
_SHARE_WRITE = 2


def open_file(node, path, mode, access, share):
    """File.Open(path, mode, access, share) for FileMode.Open, CreateNew and Create. A file a program holds open
    can be opened only when the new handle shares writing (the program writes it) and, to write, when the program
    shares writing too ('append': Go's share mode); an image or a log shared only for reading cannot be written."""
    mode, access, share = int(mode), int(access), int(share)
    if mode not in (_CREATE_NEW, _CREATE, _OPEN) or access not in (1, 2, 3):
        raise Unsupported('File.Open with FileMode %d, FileAccess %d' % (mode, access))
    entry = lookup(node, path)
    if entry is not None and entry['dir']:
        raise PSError("Access to the path '%s' is denied." % normalize(path), 'System.UnauthorizedAccessException')
    if mode == _OPEN and entry is None:
        raise PSError("Could not find file '%s'." % normalize(path), 'System.IO.FileNotFoundException')
    if mode == _CREATE_NEW and entry is not None:
        raise PSError("The file '%s' already exists." % normalize(path), 'System.IO.IOException')
    if entry is None:
        if access == 1:
            raise PSError('Combining FileMode: %s with FileAccess: Read is invalid.' % {1: 'CreateNew', 2: 'Create'}[mode],
                          'System.ArgumentException')
        entry = create(node, path, False)
        return FileStream(node, entry, access)
    kind = held(node, entry)
    if kind in ('open', 'append') and not share & _SHARE_WRITE:
        raise _in_use(entry['path'])
    if access & 2 and kind in ('open', 'image'):
        raise _in_use(entry['path'])
    stream = FileStream(node, entry, access)
    if mode == _CREATE:
        stream.SetLength(0)
    return stream


def _file_statics(node):
    def existing(path):
        entry = lookup(node, path)
        if entry is None or entry['dir']:
            raise PSError("Could not find file '%s'." % normalize(path), 'System.IO.FileNotFoundException')
        return entry

    def write_all_text(path, text, encoding=None):
        text = '' if is_null(text) else to_string(text)
        preamble = b'' if encoding is None else bytes(int(b) for b in encoding.GetPreamble())
        codec = 'utf-8' if encoding is None else encoding.name
        write_file(node, path, preamble + text.encode(codec))
        return AUTOMATION_NULL

    def append_all_text(path, text, encoding=None):
        entry = lookup(node, path)
        before = content_bytes(entry) if entry and not entry['dir'] else b''
        codec = 'utf-8' if encoding is None else encoding.name
        write_file(node, path, before + to_string(text).encode(codec))
        return AUTOMATION_NULL

    def read_all_text(path, encoding=None):
        return decode(content_bytes(existing(path)), None, 'utf-8' if encoding is None else encoding.name)

    def read_all_lines(path, encoding=None):
        text = read_all_text(path, encoding)
        lines = text.replace('\r\n', '\n').split('\n')
        if lines and lines[-1] == '':
            lines.pop()
        return PSArray(lines, 'System.String')

    def write_all_bytes(path, data):
        write_file(node, path, bytes(int(item) for item in enumerate_value(data)))
        return AUTOMATION_NULL

    def delete(path):
        entry = lookup(node, path)
        if entry is not None and not entry['dir']:
            if _delete_error(entry, node) is not None:
                raise _delete_error(entry, node)
            _drop(node, entry['path'])
        return AUTOMATION_NULL

    def file_move(source, destination, *rest):
        existing(source)
        move(node, source, destination, bool(rest and rest[0]))
        return AUTOMATION_NULL

    def file_replace(source, destination, backup, *ignore_metadata_errors):
        replace(node, source, destination, backup)
        return AUTOMATION_NULL

    return {
        'Exists': lambda path: not is_null(path) and (lookup(node, path) or {'dir': True})['dir'] is False,
        'GetAttributes': lambda path: get_attributes(node, path),
        'Replace': file_replace,
        'ReadAllText': read_all_text,
        'ReadAllLines': read_all_lines,
        'ReadAllBytes': lambda path: PSArray((Byte(item) for item in content_bytes(existing(path))), 'System.Byte'),
        'WriteAllText': write_all_text,
        'AppendAllText': append_all_text,
        'WriteAllBytes': write_all_bytes,
        'Delete': delete,
        'Move': file_move,
        'GetLastWriteTimeUtc': lambda path: _utc(existing(path)['written']),
        # File.Open(path, mode) opens for reading and writing, sharing nothing (.NET API reference).
        'Open': lambda path, mode, access=3, share=0: open_file(node, path, mode, access, share),
    }


# File.GetAttributes(path) (microsoft/referencesource mscorlib/system/io/file.cs GetAttributes, FillAttributeInfo;
# __error.cs WinIOError): Path.GetFullPath (path.cs: a colon past the drive is NotSupportedException "The given path's
# format is not supported.", '"', '<', '>', '|' or a control character ArgumentException "Illegal characters in
# path."), then GetFileAttributesEx; where that fails otherwise than with ERROR_FILE_NOT_FOUND or ERROR_PATH_NOT_FOUND
# (a wildcard is an invalid name there), FindFirstFile, whose first match answers. ERROR_FILE_NOT_FOUND is
# FileNotFoundException "Could not find file '<path>'.", ERROR_PATH_NOT_FOUND (a folder on the way is missing)
# DirectoryNotFoundException "Could not find a part of the path '<path>'.". FindFirstFile also matches 8.3 short
# names and applies the DOS rules to '?' and '.', which the model does not have: a wildcard the model cannot match
# on a long name is refused, as is one in a folder of the path, and a relative path (the process's current
# directory is not modelled).
def get_attributes(node, path):
    if is_null(path):
        raise PSError('Value cannot be null.\r\nParameter name: path', 'System.ArgumentNullException')
    text = to_string(path)
    if not text.strip():
        raise PSError('The path is not of a legal form.', 'System.ArgumentException')
    if ':' in text[2:]:
        raise PSError("The given path's format is not supported.", 'System.NotSupportedException')
    if any(char in '"<>|' or ord(char) < 32 for char in text):
        raise PSError('Illegal characters in path.', 'System.ArgumentException')
    rooted = text[1:3] in (':\\', ':/') or (text[:1] in '\\/' and text[1:2] not in '\\/')
    if not rooted:
        raise Unsupported('[IO.File]::GetAttributes of %r (a path not rooted at a drive: the process\'s current '
                          'directory, UNC shares are not modelled)' % text)
    full = normalize(text)
    folder, _separator, leaf = full.rpartition('\\')
    if any(char in folder for char in '*?'):
        raise Unsupported('[IO.File]::GetAttributes of %s (a wildcard in a folder of the path)' % full)
    entry = _find_first(node, full) if any(char in leaf for char in '*?') else lookup(node, full)
    if entry is None:
        parent = parent_of(full)
        if parent is None or lookup(node, parent) is None or not lookup(node, parent)['dir']:
            raise PSError("Could not find a part of the path '%s'." % full, 'System.IO.DirectoryNotFoundException')
        raise PSError("Could not find file '%s'." % full, 'System.IO.FileNotFoundException')
    return FILE_ATTRIBUTES(attributes_of(entry))


def _find_first(node, full):
    """FindFirstFile of a path whose last segment has * or ?: the first item of its folder (by name) whose long name
    matches; None when its folder is missing (ERROR_PATH_NOT_FOUND)."""
    parent = parent_of(full)
    pattern = full.rsplit('\\', 1)[-1]
    if parent is None or lookup(node, parent) is None:
        return None
    matcher = re.compile(''.join('.*' if char == '*' else '.' if char == '?' else re.escape(char) for char in pattern),
                         re.IGNORECASE | re.DOTALL)
    items = sorted(children(node, parent), key=lambda entry: entry['path'].lower())
    found = next((entry for entry in items if matcher.fullmatch(entry['path'].rsplit('\\', 1)[-1])), None)
    if found is None:
        raise Unsupported('[IO.File]::GetAttributes of %s: no long name matches, and FindFirstFile would also try the '
                          '8.3 short names and the DOS wildcard rules, which the model does not have' % full)
    return found


def _get_files(node, path):
    """Directory.GetFiles(path): modelled for the pipe namespace \\\\.\\pipe\\ (windows/pipes.py)."""
    from . import pipes  # pylint: disable=import-outside-toplevel  # an area of its own
    if not is_null(path) and pipes.is_pipe_folder(to_string(path)):
        return PSArray(pipes.pipe_paths(node), 'System.String')
    raise Unsupported('[System.IO.Directory]::GetFiles(%r) (only the pipe folder \\\\.\\pipe\\ is modelled)' % to_string(path))


def _directory_statics(node):
    return {
        'Exists': lambda path: not is_null(path) and bool((lookup(node, path) or {'dir': False})['dir']),
        'CreateDirectory': lambda path: FileSystemInfo(make_directories(node, path)),
        'Delete': lambda path, *recursive: directory_delete(node, path, *recursive),
        'GetFiles': lambda path: _get_files(node, path),
    }


# --- File.Replace ---------------------------------------------------------------------------------------------
# System.IO.File.Replace(source, destination, backup[, ignoreMetadataErrors]) (.NET Framework reference source,
# mscorlib/system/io/file.cs InternalReplace) is ReplaceFileW (Win32 "ReplaceFileW function", winbase.h): in one step
# the replacement file takes the replaced file's name, and keeps the replaced file's creation time and DACL (not
# its own); both must exist on one volume. The replaced file is opened with DELETE access sharing reading, writing
# and deleting, the replacement sharing nothing: a handle to either that does not share so is a sharing violation,
# and the files keep their names. A failure is __Error.WinIOError() without a path: FileNotFoundException "Unable to
# find the specified file.", IOException "The process cannot access the file because it is being used by another
# process.". The backup file is optional: [NullString]::Value for none, since PowerShell converts $null to "" for a
# .NET string parameter (LanguagePrimitives.ConvertNullToString, PowerShell/PowerShell 60b3b304f2), and "" is no
# path (Path.GetFullPath: ArgumentException "The path is not of a legal form.").

class NullString:
    """[System.Management.Automation.Language.NullString]::Value: a null string for a .NET method's string
    parameter (about_Type_Accelerators, 5.1: the accelerator NullString)."""

    NET = 'System.Management.Automation.Language.NullString'
    PROPERTIES = ()

    def to_string(self):
        return ''


NULL_STRING = NullString()
register(NetType(NullString.NET, test=lambda value: isinstance(value, NullString),
                 statics={'Value': NULL_STRING}), 'NullString')
_NOT_FOUND_NO_PATH = 'Unable to find the specified file.'
_SHARING_NO_PATH = 'The process cannot access the file because it is being used by another process.'


def _replace_part(node, path, kind):
    if isinstance(path, NullString):
        raise PSError('Value cannot be null.\r\nParameter name: %s' % kind, 'System.ArgumentNullException')
    text = '' if is_null(path) else to_string(path)
    if not text.strip():
        raise PSError('The path is not of a legal form.', 'System.ArgumentException')
    if not is_filesystem(text) or not normalize(text).upper().startswith('C:'):
        raise Unsupported('File.Replace on %s (the model has the system drive only)' % text)
    entry = lookup(node, text)
    if entry is not None and (entry['dir'] or entry.get('link')):
        raise Unsupported('File.Replace of %s, a folder or a link' % text)
    return entry


def replace(node, source, destination, backup=NULL_STRING):
    """File.Replace without a backup (a backup file is not modelled)."""
    replacement = _replace_part(node, source, 'sourceFileName')
    replaced = _replace_part(node, destination, 'destinationFileName')
    if not isinstance(backup, NullString):
        _replace_part(node, backup, 'destinationBackupFileName')
        raise Unsupported('File.Replace with a backup file')
    if replacement is None or replaced is None:
        raise PSError(_NOT_FOUND_NO_PATH, 'System.IO.FileNotFoundException')
    if held(node, replaced) == 'image' or held(node, replacement) == 'image':
        raise Unsupported('File.Replace of a running program')
    if held(node, replaced) or held(node, replacement):
        raise PSError(_SHARING_NO_PATH, 'System.IO.IOException')
    for field in ('data', 'stand_in', 'written'):
        replaced[field] = replacement.get(field)
    del tree(node)[replacement['path'].lower()]
    _changed(node)


# --- Directory.Delete -----------------------------------------------------------------------------------------
# System.IO.Directory.Delete(path) (.NET Framework reference source, mscorlib/system/io/directory.cs Delete and
# DeleteHelper): the item's attributes are read without following a link (FillAttributeInfo; missing:
# DirectoryNotFoundException "Could not find a part of the path '<path>'."), then RemoveDirectory removes the folder,
# which must be empty (ERROR_DIR_NOT_EMPTY: IOException "The directory is not empty."; a file: ERROR_DIRECTORY "The
# directory name is invalid."), or a link itself and never its target ("Win32's DeleteFile and RemoveDirectory will
# just delete the reparse point itself", DeleteHelper's comment; the Win32 RemoveDirectoryW page). With recursive it
# deletes the items first, never through a link: not modelled.

def directory_delete(node, path, recursive=False):
    if recursive:
        raise Unsupported('Directory.Delete(path, $true)')
    text = '' if is_null(path) else to_string(path)
    if not text.strip():
        raise PSError('The path is not of a legal form.', 'System.ArgumentException')
    entry = lookup(node, text)
    if entry is None:
        raise PSError("Could not find a part of the path '%s'." % normalize(text), 'System.IO.DirectoryNotFoundException')
    if not entry['dir']:
        raise PSError('The directory name is invalid.', 'System.IO.IOException')
    if not entry.get('link') and descendants(node, entry['path']):
        raise PSError('The directory is not empty.', 'System.IO.IOException')
    _drop(node, entry['path'])
    return AUTOMATION_NULL


def types(host):
    """The .NET types bound to this node: [System.IO.File], [System.IO.Directory] (ZipFile: windows/downloads.py)."""
    return {
        'system.io.file': NetType('System.IO.File', statics=_file_statics(host.node)),
        'system.io.directory': NetType('System.IO.Directory', statics=_directory_statics(host.node)),
    }


CMDLETS = {
    'Test-Path': test_path,
    'Get-Item': get_item,
    'Get-ChildItem': get_childitem,
    'New-Item': new_item,
    'Remove-Item': remove_item,
    'Move-Item': move_item,
    'Get-Content': get_content,
    'Set-Content': set_content,
    'Add-Content': add_content,
    'Get-FileHash': get_filehash,
    'Get-Acl': get_acl,
    'Set-Acl': set_acl,
}
CONSTRUCTORS = acls.CONSTRUCTORS
