# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every type, static member, cast, cmdlet and instance member the scripts use is one the engine models.

The engine refuses what it does not model (Unsupported, tests/simulation/README.md "What the engine refuses"), so a
script that reaches an unmodelled construct fails its tests; this check finds such a construct in every script,
whether a test reaches it or not. It walks the parse tree of each script under plugins/plugin_utils/scripts and
tests/windows/scenarios and lists what it finds; the failure message prints that list.
"""

import functools
import glob
import inspect
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))
sys.path.insert(0, os.path.join(ROOT, 'tools'))

from kubewin_sim.pwsh import core_cmdlets, members, netmembers  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh import types as pstypes  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import AREAS, WindowsHost, addtype  # noqa: E402  pylint: disable=wrong-import-position
import pwsh_syntax  # noqa: E402  pylint: disable=wrong-import-position

FOLDERS = (os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts'), os.path.join(ROOT, 'tests', 'windows', 'scenarios'))


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


@functools.lru_cache(maxsize=None)
def _trees():
    parser = pwsh_syntax._parser()  # pylint: disable=protected-access
    found = {}
    for folder in FOLDERS:
        for path in sorted(glob.glob(os.path.join(folder, '**', '*.ps1'), recursive=True)):
            with open(path, 'rb') as handle:
                found[os.path.relpath(path, ROOT)] = parser.parse(handle.read())
    return found


def _text(node):
    return node.text.decode()


def _where(rel, node):
    return '%s:%d' % (rel, node.start_point[0] + 1)


def _is_static(node):
    return any(not child.is_named and child.type == '::' for child in node.children)


def _member_name(node):
    """The literal name of a member access ($x.Name, $x.'name'); None for a computed one ($x.$name)."""
    member = next((child for child in node.children if child.type == 'member_name'), None)
    if member is None or any(n.type == 'variable' for n in _walk(member)):
        return None
    return _text(member).strip('\'"')


@functools.lru_cache(maxsize=None)
def _used():
    """{kind: {name: first place}} of what the scripts use: types, statics, casts, cmdlets, members."""
    used = {'type': {}, 'static': {}, 'cast': {}, 'cmdlet': {}, 'member': {}}
    functions = set()
    for rel, tree in _trees().items():
        for node in _walk(tree.root_node):
            if node.type == 'function_name':
                functions.add(_text(node).lower())
            elif node.type == 'type_literal':
                used['type'].setdefault(_text(node.child(1) if node.child_count > 2 else node)[0:].strip('[]'),
                                        _where(rel, node))
            elif node.type == 'cast_expression':
                literal = next(child for child in node.children if child.type == 'type_literal')
                used['cast'].setdefault(_text(literal).strip('[]'), _where(rel, node))
            elif node.type == 'command_name':
                used['cmdlet'].setdefault(_text(node), _where(rel, node))
            elif node.type in ('member_access', 'invocation_expression') and _member_name(node) is not None:
                if _is_static(node):
                    target = node.children[0]
                    if target.type == 'type_literal':
                        used['static'].setdefault('%s::%s' % (_text(target).strip('[]'), _member_name(node)),
                                                  _where(rel, node))
                else:
                    used['member'].setdefault(_member_name(node), _where(rel, node))
    used['cmdlet'] = {name: where for name, where in used['cmdlet'].items()
                      if name.lower() not in functions and not re.search(r'[\\/.]', name)}
    return used


# -- what the engine and the model implement ------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _added_types():
    """Types the scripts add themselves (Add-Type -Namespace N -Name T, Add-Type -AssemblyName A: the types the
    model's addtype.ASSEMBLIES give for A), which exist after that call."""
    found = {}
    host = WindowsHost(None)
    for rel, tree in _trees().items():
        for node in _walk(tree.root_node):
            if node.type != 'command' or _text(node).split()[0].lower() != 'add-type':
                continue
            words = _text(node).split()
            options = {words[i].lower(): words[i + 1] for i in range(len(words) - 1) if words[i].startswith('-')}
            if '-name' in options:
                name = '%s.%s' % (options.get('-namespace', addtype.DEFAULT_NAMESPACE), options['-name'])
                found[name.lower()] = rel
            factory = addtype.ASSEMBLIES.get(options.get('-assemblyname', '').lower())
            for net_type in (factory(host) if factory else []):
                found[net_type.name.lower()] = net_type
    return found


def _resolve(name):
    """The engine's type for a name, the Windows model's included (as a node's session resolves it), or None."""
    host = WindowsHost(None)
    found = host.type(name) or pstypes.resolve(name)
    if found is None:
        added = _added_types().get(name.lower()) or _added_types().get('system.' + name.lower())
        found = added if isinstance(added, pstypes.NetType) else None
    return found


def _static_implemented(type_name, member):
    if type_name.lower() in _added_types() and not isinstance(_added_types()[type_name.lower()], pstypes.NetType):
        return True  # a member of a type the script defines with Add-Type -MemberDefinition (windows/addtype.py)
    net_type = _resolve(type_name)
    if net_type is None:
        return False
    if member.lower() == 'new':
        return net_type.constructor is not None
    return any(key.lower() == member.lower() for key in net_type.statics)


def _cast_implemented(type_name):
    net_type = _resolve(type_name)
    special = ('System.Collections.Specialized.OrderedDictionary', 'System.Management.Automation.PSReference',
               'System.Void')  # handled by the interpreter's cast itself
    return net_type is not None and (net_type._convert is not None or isinstance(net_type, pstypes.ArrayType)  # pylint: disable=protected-access
                                     or net_type.name in special or getattr(net_type, 'enum', None) is not None)


@functools.lru_cache(maxsize=None)
def _modelled_cmdlets():
    names = {name.lower() for name in core_cmdlets.command_table()}
    for area in AREAS:
        names.update(name.lower() for name in getattr(area, 'CMDLETS', {}))
    return names


def _class_members(cls):
    """The .NET members a model class implements: its attributes (and the attributes its methods assign to self)
    that its documented type lists, its PROPERTIES, or PascalCase ones where no complete list exists."""
    names = set()
    for klass in cls.__mro__:
        if klass.__module__ == 'builtins':
            continue
        names.update(name for name in vars(klass) if not name.startswith('_'))
        try:
            names.update(re.findall(r'self\.([A-Za-z]\w*)\s*=', inspect.getsource(klass)))
        except (OSError, TypeError):
            pass
    declared = {name.lower() for name in _declared(cls)}
    names.update(_declared(cls))  # a CimInstance sets its PROPERTIES on each instance
    documented = [netmembers.lookup(name) for name in _documented_names(cls)]
    kept = set()
    for name in names:
        if name in ('NET', 'CLASS', 'KEY', 'PROPERTIES', 'DOCUMENTED', 'NET_NAMES', 'ENUMERABLE'):
            continue
        if name.lower() in declared or any(doc is not None and doc.member(name) for doc in documented) or \
                (name[0].isupper() and not any(doc is not None and doc.complete for doc in documented)):
            kept.add(name.lower())
    return kept


def _declared(cls):
    """The PROPERTIES a class declares (a tuple of the class; a per-instance list is set in __init__)."""
    properties = getattr(cls, 'PROPERTIES', None)
    return [name for name in properties if isinstance(name, str)] if isinstance(properties, (tuple, list)) else []


def _documented_names(cls):
    if isinstance(getattr(cls, 'CLASS', None), str):
        return [netmembers.CIM_PREFIX + cls.CLASS]  # a CIM instance's members: its class's (and CimInstance's)
    names = list(getattr(cls, 'NET_NAMES', None) or ())
    for attribute in ('DOCUMENTED', 'NET'):
        value = cls.__dict__.get(attribute) or getattr(cls, attribute, None)
        if isinstance(value, str):
            names.append(value)
    return names


@functools.lru_cache(maxsize=None)
def _implemented_members():
    """Lower-case names of the instance members some modelled type implements, with the types that do."""
    found = {}

    def add(name, owner):
        found.setdefault(name.lower(), set()).add(owner)
    for table, owner in ((members.STRING_METHODS, 'System.String'), (members.DICTIONARY_METHODS, 'Hashtable'),
                         (members.LIST_METHODS, 'System.Array/ArrayList')):
        for name in table:
            add(name, owner)
    for name in ('Length', 'Count', 'Keys', 'Values', 'Rank', 'Key', 'Value', 'Name', 'Invoke', 'InvokeReturnAsIs',
                 'GetType', 'ToString', 'Equals', 'PSObject', 'PSTypeNames'):
        add(name, 'engine (pwsh/members.py)')
    for name in members._DATETIME_PROPERTIES:  # pylint: disable=protected-access
        add(name, 'System.DateTime')
    for cls in netmembers.model_classes():
        for name in _class_members(cls):
            add(name, cls.__name__)
    return found


@functools.lru_cache(maxsize=None)
def _data_names():
    """Names of the data the scripts read as objects, which a hashtable or a PSCustomObject has because it was put in:
    the keys of the hashtables they build and assign ($h.Key = ...), the properties they add (Add-Member,
    Select-Object)."""
    found = set()
    for tree in _trees().values():
        for node in _walk(tree.root_node):
            if node.type == 'hash_entry':
                found.add(_text(node.children[0]).strip('\'"').lower())
            elif node.type == 'assignment_expression':
                target = next((n for n in _walk(node.children[0]) if n.type == 'member_access'), None)
                found.add((_member_name(target) or '').lower() if target is not None else '')
            elif node.type == 'command' and _text(node).split()[0].lower() in ('add-member', 'select-object'):
                found.update(word.strip('\'"@{};,').lower() for word in re.split(r'[\s,=]+', _text(node)))
    return found


# The Windows model's modules whose data the scripts read as PSCustomObjects: registry values (Get-ItemProperty's
# note properties: windows/registry.py, the MSI uninstall entries of windows/msi.py), HNS's v1 JSON objects
# (lib/hns.ps1's ConvertFrom-Json of what windows/hns.py answers) and Get-ExecutionPolicy -List's objects (PSObjects
# of the note properties Scope and ExecutionPolicy: ExecutionPolicyCommands.cs at PowerShell/PowerShell 60b3b304f2;
# windows/powershell_exe.py), whose scope names lib/state keys node_info's execution_policies by. A name the model
# writes there is modelled data.
DATA_MODULES = ('registry', 'msi', 'hns', 'powershell_exe')


@functools.lru_cache(maxsize=None)
def _model_data_names():
    import importlib  # pylint: disable=import-outside-toplevel
    found = set()
    for name in DATA_MODULES:
        with open(inspect.getsourcefile(importlib.import_module('kubewin_sim.windows.' + name))) as handle:
            found.update(word.lower() for word in re.findall(r"'([A-Z][A-Za-z0-9]*)'", handle.read()))
    return found


@functools.lru_cache(maxsize=None)
def _error_properties():
    """The properties the model gives the .NET exception of an error it raises (PSError(properties=...)): members of
    the exception object (pwsh/interpreter.py ExceptionObject), e.g. a WebException's Response."""
    found = set()
    for folder in ('pwsh', 'windows'):
        for path in glob.glob(os.path.join(ROOT, 'tests', 'simulation', 'kubewin_sim', folder, '*.py')):
            with open(path) as handle:
                for block in re.findall(r'properties=\{([^}]*)\}', handle.read()):
                    found.update(name.lower() for name in re.findall(r"'(\w+)':", block))
    return found


def _is_data_key(name):
    """.NET and CIM members are PascalCase (CIM's ifIndex and ifAlias are implemented by the model); a name in lower
    case or snake_case is a key of data the collection itself writes (its parameters, managed.json, node_info's
    state), read from a hashtable or a ConvertFrom-Json PSCustomObject."""
    return name[0].islower() or name[0] == '_' or '-' in name or name.lower() in _data_names()


def _listing(kind, checked, missing):
    return '%d %s checked: %s\nnot modelled: %s' % (len(checked), kind, ', '.join(sorted(checked, key=str.lower)),
                                                    ', '.join('%s (%s)' % item for item in sorted(missing)) or 'none')


# -- the checks ------------------------------------------------------------------------------------------------------

def test_every_type_the_scripts_name_resolves():
    used = _used()['type']
    assert 'System.IO.File' in used and 'int' in used
    missing = [(name, where) for name, where in used.items()
               if _resolve(name) is None and name.lower() not in _added_types()]
    assert not missing, _listing('type literals', used, missing)


def test_every_static_member_the_scripts_use_is_implemented():
    used = _used()['static']
    assert 'System.IO.File::WriteAllText' in used
    missing = [(name, where) for name, where in used.items() if not _static_implemented(*name.split('::'))]
    assert not missing, _listing('static members', used, missing)


def test_every_cast_the_scripts_make_converts():
    used = _used()['cast']
    assert 'int' in used
    missing = [(name, where) for name, where in used.items() if not _cast_implemented(name)]
    assert not missing, _listing('casts', used, missing)


def test_every_cmdlet_the_scripts_call_is_modelled():
    used = _used()['cmdlet']
    assert 'Get-NetAdapter' in used
    missing = [(name, where) for name, where in used.items() if name.lower() not in _modelled_cmdlets()]
    assert not missing, _listing('cmdlets', used, missing)


def test_every_instance_member_the_scripts_use_is_implemented_by_a_modelled_type():
    used = _used()['member']
    assert 'Substring' in used and 'ExitCode' in used
    implemented = set(_implemented_members()) | _error_properties()
    missing = [(name, where) for name, where in used.items()
               if name.lower() not in implemented and not _is_data_key(name) and name.lower() not in _model_data_names()]
    assert not missing, _listing('instance members', used, missing)


def test_a_model_member_is_one_its_type_documents():
    """A model class exposes only members its documented type has (where the type's list is complete): a member
    Windows does not have would let a script pass here and fail there."""
    invented = []
    for cls in netmembers.model_classes():
        documented = [netmembers.lookup(name) for name in _documented_names(cls)]
        complete = [doc for doc in documented if doc is not None and doc.complete]
        if not complete:
            continue
        for name in _declared(cls):
            if not any(doc.member(name) for doc in complete):
                invented.append('%s.%s (%s)' % (cls.__name__, name, complete[0].name))
    assert not invented, 'model members their type does not have: %s' % ', '.join(sorted(invented))
