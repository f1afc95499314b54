"""The documented members of every type the engine and the Windows model know, keyed by full type name.

A member the value's type does not have is PowerShell's own behaviour ($null for a property with strict mode off,
MethodNotFound for a method); a member the type HAS and the model does not implement is ``Unsupported``. Telling the
two apart needs each type's whole member list, kept here as data that names its source:

- ``framework.json``: .NET Framework 4.8 types (Windows PowerShell 5.1 runs on .NET Framework 4.x), from
  microsoft/referencesource; ``powershell.json``: System.Management.Automation and the PowerShell command types, from
  PowerShell/PowerShell's 5.1-era source, each with the Extended Type System members of types.ps1xml. Both are
  written by ``tools/dotnet_members.py``. Instance methods include the methods of the public interfaces the type
  implements (PowerShell's DotNetAdapter adds them); constructors are the static ``new``.
- ``cim.json``: CIM classes (``Microsoft.Management.Infrastructure.CimInstance#<class>``), the properties of the class
  reference pages of MicrosoftDocs/win32, written by the same tool. CIM methods are not members of an instance that
  Get-CimInstance returns (Invoke-CimMethod calls them).
- ``windows.json``: hand-written, each entry naming its page: types no fetched source documents member by member
  (Microsoft.Management.Infrastructure.CimInstance, an enum, the MSI COM objects), and, under ``+<type>``, the note
  properties a provider or a cmdlet adds to the objects it outputs (PSPath..., Get-WinEvent's Message).

An entry is ``complete`` when its source lists every member a script can reach; a CIM class is not (the CDXML
module's own types.ps1xml can add members no source here lists), nor is a hand-written entry unless it says so.
Where the list is not complete, only what the model implements is known: any other member is ``Unsupported``.
"""

import functools
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ('framework.json', 'powershell.json', 'cim.json', 'windows.json')
CIM_PREFIX = 'Microsoft.Management.Infrastructure.CimInstance#'
# Types the runtime names by an internal class whose public members are those of a public one: $t.GetType() of a
# type is System.RuntimeType (internal, derived from System.Type); $PSCmdlet of an advanced function is
# System.Management.Automation.PSScriptCmdlet (internal, derived from PSCmdlet).
# ParameterBindingValidationException (internal) derives from ParameterBindingException.
ALIASES = {'System.RuntimeType': 'System.Type',
           'System.Management.Automation.PSScriptCmdlet': 'System.Management.Automation.PSCmdlet',
           'System.Management.Automation.ParameterBindingValidationException':
               'System.Management.Automation.ParameterBindingException'}


class Documented:
    """One type's documented members: ``instance`` and ``static``, each {lower-case name: (Name, kind)} where kind is
    'property', 'field', 'event', 'parameterized' or a list of a method's overload argument counts (N, 'N+' with a
    params array, 'N-M' with optional arguments, 'any' for an ETS script or code method)."""

    def __init__(self, name, data):
        self.name = name
        self.source = data['source']
        self.complete = data.get('complete', True)
        self.base = data.get('base')
        self.instance = {key.lower(): (key, kind) for key, kind in data.get('instance', {}).items()}
        self.static = {key.lower(): (key, kind) for key, kind in data.get('static', {}).items()}

    def member(self, name, static=False):
        """(Name, kind) of a member, or None."""
        return (self.static if static else self.instance).get(name.lower())

    def is_method(self, name, static=False):
        found = self.member(name, static)
        return found is not None and isinstance(found[1], list)

    def has_overload(self, name, count, static=False):
        """Whether the method has an overload that takes ``count`` arguments."""
        found = self.member(name, static)
        return found is not None and isinstance(found[1], list) and any(_takes(arity, count) for arity in found[1])


def _takes(arity, count):
    if arity == 'any':
        return True
    if isinstance(arity, int):
        return arity == count
    if arity.endswith('+'):
        return count >= int(arity[:-1])
    low, high = arity.split('-')
    return int(low) <= count <= int(high)


def load():
    """Read every member table now: tests/simulation/callback_plugins/kubewin_sim_warm.py does it once in
    ansible-playbook's own process, so the forked workers inherit the tables instead of each reading the JSON files
    (about a tenth of a simulated run's CPU)."""
    _table()
    names()


@functools.lru_cache(maxsize=None)
def _table():
    table = {}
    inheriting = []
    added = []
    for name in FILES:
        with open(os.path.join(HERE, name)) as handle:
            for type_name, data in json.load(handle).items():
                if type_name.startswith('+'):
                    added.append((type_name[1:], data))
                    continue
                table[type_name.lower()] = Documented(type_name, data)
                if data.get('inherit'):
                    inheriting.append(table[type_name.lower()])
    for type_name, data in added:
        # Members a provider or a cmdlet adds to the objects it outputs (note properties), on top of the type's own.
        entry = table[type_name.lower()]
        entry.instance = dict(entry.instance, **{key.lower(): (key, kind) for key, kind in data['instance'].items()})
        entry.source += '; ' + data['source']
    for entry in inheriting:
        # A hand-written entry lists its own members; its base type's come from the base's entry (not constructors).
        base = table[entry.base.lower()]
        entry.instance = dict(base.instance, **entry.instance)
        entry.static = dict({key: value for key, value in base.static.items() if key != 'new'}, **entry.static)
    for alias, target in ALIASES.items():
        if target.lower() in table:
            table[alias.lower()] = table[target.lower()]
    return table


@functools.lru_cache(maxsize=None)
def names():
    """Namespaces of .NET Framework and PowerShell, 5.1's type accelerators and the types of the System namespace."""
    with open(os.path.join(HERE, 'names.json')) as handle:
        data = json.load(handle)
    return {'accelerators': frozenset(data['accelerators']),
            'namespaces': frozenset(name.lower() for name in data['namespaces']),
            'system_types': frozenset(data['system_types']), 'source': data['source']}


@functools.lru_cache(maxsize=None)
def generic_definition(type_name):
    """System.Collections.Generic.List`1[[System.String]] -> System.Collections.Generic.List`1; X[] -> System.Array."""
    if type_name.endswith(']') and '`' not in type_name:
        return 'System.Array'
    return re.sub(r'(`\d+)\[.*\]$', r'\1', type_name)


@functools.lru_cache(maxsize=None)
def lookup(type_name):
    """The Documented entry of a type name, or None when no source here lists its members."""
    if not type_name:
        return None
    return _table().get(generic_definition(type_name).lower())


def documented_name(value):
    """The name a value's members are documented under: a CIM instance's class, a COM object's interface (an area's
    ``DOCUMENTED``), else its .NET full type name."""
    from ..values import type_name  # pylint: disable=import-outside-toplevel
    declared = getattr(value, 'DOCUMENTED', None)
    if isinstance(declared, str):
        return declared
    cim_class = getattr(value, 'CLASS', None)
    if isinstance(cim_class, str) and getattr(value, 'NET', None) == 'Microsoft.Management.Infrastructure.CimInstance':
        return CIM_PREFIX + cim_class
    return type_name(value)


def of_value(value):
    return lookup(documented_name(value))


def modelled_type_names():
    """Every .NET type name the engine and the Windows model name (for tools/dotnet_members.py): the registered
    types, the NET names of the model's classes, and the types a class lists in NET_NAMES (one Python class for
    several .NET types, e.g. FileInfo and DirectoryInfo)."""
    found = set()
    for cls in model_classes():
        for name in getattr(cls, 'NET_NAMES', ()) or ():
            found.add(name)
        net = cls.__dict__.get('NET')
        if isinstance(net, str) and not getattr(cls, 'CLASS', None):
            found.add(generic_definition(net))
    found.update(registered_type_names())
    found.update(ALIASES.values())
    found.update(error_type_names())
    return sorted(name for name in found if not name.startswith(CIM_PREFIX))


def registered_type_names():
    """The names of the engine's registered types and of the types the Windows model binds to a node."""
    from .. import types as pstypes  # pylint: disable=import-outside-toplevel
    from ...windows import AREAS, WindowsHost  # pylint: disable=import-outside-toplevel
    found = {net_type.name for net_type in pstypes.TYPES.values()}
    host = WindowsHost(None)
    for area in AREAS:
        if hasattr(area, 'types'):
            found.update(net_type.name for net_type in area.types(host).values())
    return {generic_definition(name) for name in found}


def error_type_names():
    """The exception types the engine and the model raise (named in their source: PSError's type_name)."""
    found = set()
    root = os.path.dirname(os.path.dirname(HERE))
    for folder in ('pwsh', 'windows'):
        for name in os.listdir(os.path.join(root, folder)):
            if name.endswith('.py'):
                with open(os.path.join(root, folder, name)) as handle:
                    found.update(re.findall(r"'((?:System|Microsoft)\.[\w.]*Exception)'", handle.read()))
    return found


def model_classes():
    """The Python classes of the engine and the Windows model that stand for a .NET type (a NET name)."""
    import datetime  # pylint: disable=import-outside-toplevel
    import importlib  # pylint: disable=import-outside-toplevel
    import inspect  # pylint: disable=import-outside-toplevel
    import pkgutil  # pylint: disable=import-outside-toplevel
    from ... import pwsh, windows  # pylint: disable=import-outside-toplevel
    classes = []
    for package in (pwsh, windows):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module('%s.%s' % (package.__name__, info.name))
            for cls in vars(module).values():
                if inspect.isclass(cls) and cls.__module__ == module.__name__ and cls not in classes and \
                        (hasattr(cls, 'NET') or hasattr(cls, 'NET_NAMES') or issubclass(cls, datetime.datetime)):
                    classes.append(cls)
    return classes


def cim_classes():
    """The CIM classes the Windows model returns instances of."""
    return sorted({cls.CLASS for cls in model_classes() if isinstance(getattr(cls, 'CLASS', None), str)})
