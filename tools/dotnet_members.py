"""Build tests/simulation/kubewin_sim/pwsh/netmembers/{framework,powershell,names}.json from the sources of .NET
Framework 4.8 and of Windows PowerShell.

Windows PowerShell 5.1 runs on .NET Framework 4.x, so the members a script can reach on a .NET object are the public
members of .NET Framework's type (and of its base types), plus the members PowerShell's Extended Type System adds
(types.ps1xml). The .NET API reference (dotnet/dotnet-api-docs) is too large a repository to bring here whole, so
this tool reads the same facts from the sources themselves, from local git snapshots of:

- microsoft/referencesource: the source of .NET Framework 4.8 (mscorlib, System, System.Core, System.ServiceProcess,
  ...), compiled as the desktop framework is (FEATURE_CORECLR, FEATURE_PAL, SILVERLIGHT... undefined);
- PowerShell/PowerShell at 60b3b304f2, the first commit of the project (the 5.1-era source, CORECLR undefined): the
  System.Management.Automation types (PSObject, ErrorRecord, ScriptBlock...), the Extended Type System's built-in
  types.ps1xml data (engine/Types_Ps1Xml.generated.cs, TypesV3_..., GetEvent_...) and the type accelerators
  (engine/parser/TypeResolver.cs).

Per type it keeps the public member names only, instance and static apart, with each method's argument counts (its
overloads); no code and no text. Per namespace declared in either source, it keeps the name (the engine's rule for a
type name it cannot resolve, pwsh/types.py). The JSON it writes is the test data; this tool is not needed at test
time. The types written are every .NET type the engine and the Windows model name (their NET names and registered
types, read from kubewin_sim) and their base types.

The CIM classes the Windows model returns (their CLASS names) are read from their class reference pages in a local
git snapshot of MicrosoftDocs/win32 (desktop-src/.../<class>.md): the properties of the page's MOF syntax block, which
"includes all of the inherited properties". Written to cim.json as ``Microsoft.Management.Infrastructure.CimInstance#
<class>`` with the members of the CimInstance .NET type (windows.json) and the PSComputerName CimCmdlets adds; not
complete (a CDXML module's types.ps1xml may add more).

Usage: dotnet_members.py REFERENCESOURCE_GIT_DIR POWERSHELL_GIT_DIR WIN32_DOCS_GIT_DIR
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, 'tests', 'simulation', 'kubewin_sim', 'pwsh', 'netmembers')
POWERSHELL_COMMIT = '60b3b304f2'
# The assemblies of referencesource whose types a Windows PowerShell 5.1 session has loaded or can load by name
# (the folders of the repository).
FRAMEWORK_FOLDERS = ('mscorlib', 'System', 'System.Core', 'System.ServiceProcess', 'System.Xml', 'System.Numerics',
                     'System.Configuration', 'System.Data', 'System.Net', 'System.Runtime.Serialization',
                     'System.Configuration.Install', 'System.Xml.Linq')
POWERSHELL_FOLDERS = ('src/System.Management.Automation', 'src/Microsoft.PowerShell.Commands.Utility',
                      'src/Microsoft.PowerShell.Commands.Management', 'src/Microsoft.PowerShell.Security')
ETS_FILES = ('src/System.Management.Automation/engine/Types_Ps1Xml.generated.cs',
             'src/System.Management.Automation/engine/TypesV3_Ps1Xml.generated.cs',
             'src/System.Management.Automation/engine/GetEvent_Types_Ps1Xml.generated.cs')
ACCELERATORS = 'src/System.Management.Automation/engine/parser/TypeResolver.cs'

# Conditional-compilation symbols: the desktop .NET Framework build (and Windows PowerShell's, not CoreCLR) leaves
# these undefined; every other symbol a file tests is taken as defined (the full framework has every FEATURE_).
UNDEFINED = {'FEATURE_CORECLR', 'FEATURE_PAL', 'SILVERLIGHT', 'FEATURE_CORESYSTEM', 'FEATURE_NETCORE',
             'FEATURE_LEGACYNETCF', 'FEATURE_LEGACYNETCFCRYPTO', 'CLR2', 'ES_BUILD_STANDALONE', 'ES_BUILD_PCL',
             'ES_BUILD_AGAINST_DOTNET_V35', 'PLATFORM_UNIX', 'BIGENDIAN', 'ALIGN_ACCESS', 'DEBUG', '_DEBUG', 'DBG',
             'TRAVE', 'FEATURE_NORM_IDNA_ONLY', 'FEATURE_ISOSTORE_LIGHT', 'PFX_LEGACY_3_5', 'GENERICS_WORK', 'MONO',
             'FEATURE_SPLIT_RESOURCES', 'RESOURCE_FILE_FORMAT_DEBUG', 'CORECLR', 'UNIX', 'PAL', 'false', 'MOBILE',
             'FEATURE_LEGACYSURFACEAREA', 'PORTABLE', 'NETSTANDARD', 'CORE_CLR', 'V1_REFLECTION_BINDER'}
MODIFIERS = {'public', 'private', 'protected', 'internal', 'static', 'extern', 'virtual', 'override', 'sealed',
             'abstract', 'readonly', 'const', 'unsafe', 'new', 'volatile', 'partial', 'async', 'implicit', 'explicit',
             'fixed'}
TYPE_KEYWORDS = ('class', 'struct', 'interface', 'enum', 'delegate')


def git(gitdir, *args):
    return subprocess.run(['git', '-C', gitdir] + list(args), check=True, capture_output=True).stdout


def _defined(expression):
    """#if EXPR with !, &&, ||, ==, parentheses and symbols, under the desktop build's symbols."""
    python = re.sub(r'[A-Za-z_]\w*', lambda m: 'True' if m.group(0) == 'true' else str(m.group(0) not in UNDEFINED),
                    expression.split('//')[0])
    python = python.replace('&&', ' and ').replace('||', ' or ').replace('!=', ' != ')
    python = re.sub(r'!(?!=)', ' not ', python)
    try:
        return bool(eval(python, {'__builtins__': {}}))  # pylint: disable=eval-used  # a boolean of True/False only
    except SyntaxError:
        return True


def preprocess(text):
    """The lines the compiler sees: #if/#elif/#else/#endif evaluated, every directive line dropped."""
    kept = []
    stack = []  # (this branch active, some branch taken, parent active)
    active = True
    for line in text.splitlines():
        stripped = line.strip()
        directive = re.match(r'#\s*(if|elif|else|endif)\b(.*)', stripped)
        if directive:
            word, rest = directive.groups()
            if word == 'if':
                value = active and _defined(rest)
                stack.append((value, value, active))
            elif word == 'elif' and stack:
                _current, taken, parent = stack[-1]
                value = parent and not taken and _defined(rest)
                stack[-1] = (value, taken or value, parent)
            elif word == 'else' and stack:
                _current, taken, parent = stack[-1]
                stack[-1] = (parent and not taken, True, parent)
            elif word == 'endif' and stack:
                stack.pop()
            active = stack[-1][0] if stack else True
            continue
        if stripped.startswith('#'):
            continue  # #region, #pragma, #line...
        kept.append(line if active else '')
    return '\n'.join(kept)


def strip_code(text):
    """Comments removed; string and char literals kept as a quoted word without C#'s punctuation in them."""
    out = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        pair = text[index:index + 2]
        if pair == '//':
            end = text.find('\n', index)
            index = size if end < 0 else end
        elif pair == '/*':
            end = text.find('*/', index + 2)
            index = size if end < 0 else end + 2
            out.append(' ')
        elif pair == '@"' or char == '"' or char == "'":
            verbatim = pair == '@"'
            quote = '"' if char != "'" else "'"
            index += 2 if verbatim else 1
            literal = []
            while index < size:
                current = text[index]
                if verbatim and current == '"' and text[index + 1:index + 2] == '"':
                    index += 2
                    continue
                if not verbatim and current == '\\':
                    index += 2
                    continue
                if current == quote:
                    index += 1
                    break
                literal.append(current)
                index += 1
            out.append('"%s"' % re.sub(r'[^\w.]', '_', ''.join(literal)))
        else:
            out.append(char)
            index += 1
    return ''.join(out)


def _top_level_split(text, separator=','):
    parts, depth, current = [], 0, []
    for char in text:
        if char in '<([{':
            depth += 1
        elif char in '>)]}':
            depth -= 1
        if char == separator and depth == 0:
            parts.append(''.join(current))
            current = []
        else:
            current.append(char)
    parts.append(''.join(current))
    return [part.strip() for part in parts if part.strip()]


def _strip_attributes(header):
    """The declaration without its leading [Attribute(...)] groups; and the attributes' text."""
    header = header.strip()
    attributes = []
    while header.startswith('['):
        depth = 0
        for position, char in enumerate(header):
            depth += char == '['
            depth -= char == ']'
            if depth == 0:
                attributes.append(header[:position + 1])
                header = header[position + 1:].strip()
                break
        else:
            return '', attributes
    return header, attributes


def _normalise(prefix):
    """`Dictionary < string , int >  Name` -> `Dictionary<string,int> Name`: one token per type."""
    prefix = re.sub(r'\s*([<>,\[\]])\s*', r'\1', prefix)
    return re.sub(r'([>\]])(?=[A-Za-z_@])', r'\1 ', prefix).split()


ASSIGNMENT = re.compile(r'(?<![=!<>])=(?![=>])')


def _initialiser(declaration):
    """The position of a field initialiser's '=' in a declaration (not ==, !=, <=, >=, =>, nor in an operator), or -1."""
    match = ASSIGNMENT.search(declaration)
    if match is None or 'operator' in declaration[:match.start()] or '(' in declaration[:match.start()]:
        return -1
    return match.start()


class TypeRecord:
    def __init__(self, full, kind, bases, namespaces, usings, where):
        self.full = full
        self.kind = kind
        self.bases = bases
        self.namespaces = namespaces
        self.usings = usings
        self.where = where
        self.public = True
        self.instance = {}
        self.static = {}

    def add(self, name, static, kind, arity=None):
        table = self.static if static else self.instance
        if kind == 'method':
            entry = table.get(name)
            arities = entry if isinstance(entry, list) else []
            if arity not in arities:
                arities.append(arity)
            table[name] = arities
        elif name not in table:
            table[name] = kind


def _arity(parameters):
    """An overload's argument count: N, or 'N+' with a params array (N the fixed ones), 'N-M' with optional ones."""
    items = _top_level_split(parameters)
    if items and items[-1].startswith('params '):
        return '%d+' % (len(items) - 1)
    required = len([item for item in items if '=' not in item])
    return len(items) if required == len(items) else '%d-%d' % (required, len(items))


def _member(record, header, has_body):
    """Record one member declaration of a type's body (public ones only)."""
    header, attributes = _strip_attributes(header)
    header = ' '.join(header.split())
    if not header:
        return
    first_paren = header.find('(')
    prefix = header if first_paren < 0 else header[:first_paren]
    initialiser = _initialiser(header)
    if initialiser >= 0:
        prefix = header[:initialiser]
        first_paren = -1  # a field with an initializer
    tokens = _normalise(prefix.replace('=>', ' '))
    modifiers = [token for token in tokens if token in MODIFIERS]
    rest = [token for token in tokens if token not in MODIFIERS]
    if 'public' not in modifiers and record.kind != 'interface':
        return
    if any(keyword in rest for keyword in TYPE_KEYWORDS) or 'operator' in prefix or not rest:
        return
    static = 'static' in modifiers or 'const' in modifiers
    if 'this[' in header.replace(' ', ''):
        indexer = re.search(r'IndexerName\("(\w+)"', ' '.join(attributes))
        record.add(indexer.group(1) if indexer else 'Item', False, 'parameterized')
        return
    if 'event' in rest:
        record.add(rest[-1], static, 'event')
        return
    if first_paren >= 0:
        name = re.sub(r'<.*', '', rest[-1])
        if '.' in name or name.startswith('~'):
            return  # an explicit interface implementation, a finaliser
        close = _matching(header, first_paren)
        arity = _arity(header[first_paren + 1:close])
        if len(rest) == 1:
            record.add('new', True, 'method', arity)  # a constructor: [T]::new(...)
        else:
            record.add(name, static, 'method', arity)
        return
    if has_body:
        record.add(rest[-1], static, 'property')
        return
    # A field, possibly several declarators: `public int A, B;`.
    declarators = _top_level_split(prefix[prefix.find(rest[0]) + len(rest[0]):] if len(rest) > 1 else rest[0])
    for declarator in declarators:
        name = declarator.split()[0] if declarator.split() else ''
        if re.match(r'^[A-Za-z_]\w*$', name):
            record.add(name, static, 'field')


def _matching(text, start):
    depth = 0
    for position in range(start, len(text)):
        depth += text[position] in '([{'
        depth -= text[position] in ')]}'
        if depth == 0:
            return position
    return len(text)


def _type_header(header):
    """(kind, name with generic arity, bases, public) of a type declaration header, or None."""
    header, _attributes = _strip_attributes(header)
    match = re.match(r'^((?:\w+\s+)*?)(class|struct|interface|enum)\s+(@?\w+)\s*(<[^{]*?>)?\s*(?::([^{]*))?$',
                     ' '.join(header.split()))
    if match is None:
        return None
    modifiers, kind, name, generics, bases = match.groups()
    if generics:
        name += '`%d' % len(_top_level_split(generics[1:-1]))
    bases = re.split(r'\bwhere\b', bases or '')[0]
    return kind, name, _top_level_split(bases), 'public' in modifiers.split()


class Scanner:
    """Walks one file's code, block by block, recording its public types and their public members."""

    def __init__(self, code, where, records):
        self.code = code
        self.where = where
        self.records = records
        self.usings = re.findall(r'^\s*using\s+([\w.]+)\s*;', code, re.M)

    def run(self):
        self.block(0, [], None)

    def block(self, position, namespaces, record):  # pylint: disable=too-many-branches
        """Read headers until the block's closing brace; return the position after it."""
        code = self.code
        header_start = position
        while position < len(code):
            char = code[position]
            if char == '}':
                if record is not None and record.kind == 'enum':
                    self.enum_members(record, code[header_start:position])
                return position + 1
            if char == ';':
                if record is not None and record.kind != 'enum':
                    _member(record, code[header_start:position], has_body=False)
                position += 1
                header_start = position
                continue
            if char != '{':
                position += 1
                continue
            header = code[header_start:position]
            stripped, _attributes = _strip_attributes(header)
            namespace = re.match(r'^\s*namespace\s+([\w.]+)\s*$', stripped)
            declared = _type_header(header) if namespace is None else None
            if record is not None and record.kind == 'enum':
                position = _matching(code, position) + 1
                continue
            if namespace is not None:
                position = self.block(position + 1, namespaces + [namespace.group(1)], None)
            elif declared is not None:
                kind, name, bases, public = declared
                outer = record.full + '+' if record is not None else ('.'.join(namespaces) + '.' if namespaces else '')
                full = outer + name
                inner = self.records.get(full)
                if inner is None:
                    inner = TypeRecord(full, kind, bases, list(namespaces), self.usings, self.where)
                    self.records[full] = inner
                inner.bases = inner.bases or bases
                inner.public = public and (record is None or record.public)
                position = self.block(position + 1, namespaces, inner)
            elif record is not None and _initialiser(stripped) >= 0:
                # A field initialised with braces: the declaration goes on to its ';'.
                position = _matching(code, position) + 1
                continue
            else:
                if record is not None:
                    _member(record, header, has_body=True)
                position = _matching(code, position) + 1
            header_start = position
        return position

    @staticmethod
    def enum_members(record, body):
        for item in _top_level_split(body):
            item, _attributes = _strip_attributes(item)
            name = item.split('=')[0].strip()
            if re.match(r'^[A-Za-z_]\w*$', name):
                record.add(name, True, 'field')


def read_blobs(gitdir, commit, folders, suffix):
    """{path: text} of the files under ``folders`` at ``commit`` whose name ends with ``suffix`` (one git process)."""
    listing = git(gitdir, 'ls-tree', '-r', commit, '--', *folders).decode().splitlines()
    entries = [(line.split()[2], line.split('\t', 1)[1]) for line in listing if line.endswith(suffix)]
    request = ''.join(blob + '\n' for blob, _path in entries).encode()
    data = subprocess.run(['git', '-C', gitdir, 'cat-file', '--batch'], input=request, check=True,
                          capture_output=True).stdout
    texts, position = {}, 0
    for _blob, path in entries:
        header_end = data.index(b'\n', position)
        size = int(data[position:header_end].split()[2])
        body = data[header_end + 1:header_end + 1 + size]
        position = header_end + 1 + size + 1
        texts[path] = body.decode('utf-8-sig', errors='replace')
    return texts


def scan_repository(gitdir, commit, folders):
    records = {}
    for path, text in sorted(read_blobs(gitdir, commit, folders, '.cs').items()):
        Scanner(strip_code(preprocess(text)), path, records).run()
    return records


def resolve_base(record, name, records):
    name = re.sub(r'<.*', lambda m: '`%d' % len(_top_level_split(m.group(0)[1:-1])), name.strip())
    name = name.replace('global::', '')
    candidates = []
    for depth in range(len(record.namespaces), -1, -1):
        joined = '.'.join(record.namespaces[:depth])
        candidates.append((joined + '.' if joined else '') + name)
    if '+' in record.full:
        candidates.insert(0, record.full.rsplit('+', 1)[0] + '+' + name)
    candidates += ['%s.%s' % (using, name) for using in record.usings]
    for candidate in candidates:
        for namespace_part in (candidate, candidate.replace('.', '+')):
            if namespace_part in records:
                return namespace_part
    return None


def base_of(record, records):
    """The base class's full name: the first listed base that is a class of the sources; else the kind's default."""
    if record.full == 'System.Object':
        return None
    for name in record.bases:
        found = resolve_base(record, name, records)
        if found is not None and records[found].kind == 'class':
            return found
    return {'class': 'System.Object', 'struct': 'System.ValueType', 'enum': 'System.Enum'}.get(record.kind)


def ets_members(gitdir):
    """{type name: {member: 'method' | 'property'}} of Windows PowerShell's built-in types.ps1xml data."""
    found = {}
    for path in ETS_FILES:
        text = git(gitdir, 'show', '%s:%s' % (POWERSHELL_COMMIT, path)).decode('utf-8-sig')
        text = preprocess(text)
        variables = dict(re.findall(r'(\w+)\s*=\s*new TypeData\(@?"([^"]+)"', text))
        for variable, name, kind in re.findall(r'(\w+)\.Members\.Add\("(\w+)",\s*new (\w+)Data\(', text):
            member_kind = 'method' if kind in ('ScriptMethod', 'CodeMethod') else 'property'
            found.setdefault(variables[variable], {})[name] = member_kind
    return found


def accelerators(gitdir):
    text = git(gitdir, 'show', '%s:%s' % (POWERSHELL_COMMIT, ACCELERATORS)).decode('utf-8-sig')
    names = re.findall(r'\{\s*typeof\([^)]*\)\s*,\s*new\[\]\s*\{([^}]*)\}', text)
    found = {name.strip().strip('"').lower() for group in names for name in group.split(',') if name.strip()}
    found.update(name.lower() for name in re.findall(r'builtinTypeAccelerators\.Add\("(\w+)"', text))
    return sorted(found)


def interfaces_of(full, records, seen=None):
    """The interfaces a type implements, its base types' and their base interfaces' included (Type.GetInterfaces)."""
    seen = set() if seen is None else seen
    record = records[full]
    for name in record.bases:
        found = resolve_base(record, name, records)
        if found is None or found in seen:
            continue
        if records[found].kind == 'interface':
            seen.add(found)
        interfaces_of(found, records, seen)
    base = base_of(record, records)
    if base in records and base != full:
        interfaces_of(base, records, seen)
    return seen


def _merge(table, name, kind):
    if isinstance(kind, list) and isinstance(table.get(name), list):
        table[name] = sorted(set(table[name]) | set(kind), key=str)
    else:
        table[name] = sorted(kind, key=str) if isinstance(kind, list) else kind


def flatten(full, records, ets, seen=None):
    """The members a script reaches on ``full``: its own public ones and its base types' (constructors apart), the
    methods of every public interface it implements (PowerShell's DotNetAdapter adds them, CoreAdapter.cs
    PopulateMethodReflectionTable: an explicitly implemented IList.Add is $array.Add), and the ETS members of its name
    and its base types' names (types.ps1xml)."""
    record = records[full]
    seen = seen or set()
    seen.add(full)
    base = base_of(record, records)
    instance, static = {}, {}
    if base is not None and base in records and base not in seen:
        inherited = flatten(base, records, ets, seen)
        instance.update(inherited['instance'])
        static.update({name: kind for name, kind in inherited['static'].items() if name != 'new'})
    for table, own in ((instance, record.instance), (static, record.static)):
        for name, kind in own.items():
            _merge(table, name, kind)
    if record.kind in ('struct', 'enum'):
        _merge(static, 'new', [0])  # a value type's default constructor
    for interface in sorted(interfaces_of(full, records)):
        if records[interface].public:
            for name, kind in records[interface].instance.items():
                if isinstance(kind, list):
                    _merge(instance, name, kind)
    if record.kind == 'enum':
        instance['value__'] = 'field'
    for name, kind in ets.get(full, {}).items():
        instance.setdefault(name, ['any'] if kind == 'method' else 'property')
    return {'kind': record.kind, 'base': base, 'instance': instance, 'static': static}


def cim_pages(gitdir, classes):
    """{CIM class: (page path, [property names])} from the class reference pages' MOF syntax blocks."""
    paths = git(gitdir, 'ls-tree', '-r', '--name-only', 'HEAD', '--', 'desktop-src').decode().splitlines()
    by_file = {os.path.basename(path).lower(): path for path in paths if path.endswith('.md')}
    found = {}
    for cim_class in classes:
        path = by_file.get(cim_class.lower().replace('_', '-') + '.md')
        if path is None:
            continue
        text = git(gitdir, 'show', 'HEAD:' + path).decode('utf-8-sig')
        block = re.search(r'```\s*syntax\s*\n(.*?)```', text, re.S)
        if block is None or not re.search(r'\bclass\s+%s\b' % re.escape(cim_class), block.group(1), re.I):
            continue
        body = block.group(1).split('{', 1)[1]
        properties = re.findall(r'^\s*(?:\[[^\]]*\]\s*)?[\w]+(?:\s+\w+)*?\s+(\w+)(?:\[\])?\s*(?:=[^;]*)?;', body, re.M)
        found[cim_class] = (path, properties)
    return found


def _netmembers():
    sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))
    from kubewin_sim.pwsh import netmembers  # pylint: disable=import-outside-toplevel
    return netmembers


def wanted_types():
    """The .NET types the engine and the Windows model name: NET names of their classes and registered types."""
    return _netmembers().modelled_type_names()


def cim_classes():
    return _netmembers().cim_classes()


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    referencesource, powershell, win32 = argv[1:]
    framework_commit = git(referencesource, 'rev-parse', '--short=10', 'HEAD').decode().strip()
    framework = scan_repository(referencesource, 'HEAD', FRAMEWORK_FOLDERS)
    engine = scan_repository(powershell, POWERSHELL_COMMIT, POWERSHELL_FOLDERS)
    records = dict(framework)
    records.update({name: record for name, record in engine.items() if name not in framework})
    ets = ets_members(powershell)
    wanted = set(wanted_types())
    pending = sorted(wanted)
    written = {'framework': {}, 'powershell': {}}
    missing = []
    while pending:
        full = pending.pop()
        generic = re.sub(r'\[\[.*\]\]$|\[.*\]$', '', full)
        if generic not in records or not records[generic].public:
            missing.append(full)
            continue
        record = records[generic]
        entry = flatten(generic, records, ets)
        if full in framework or generic in framework:
            entry['source'] = 'microsoft/referencesource %s %s' % (framework_commit, record.where)
            written['framework'][full] = entry
        else:
            entry['source'] = 'PowerShell/PowerShell %s %s' % (POWERSHELL_COMMIT, record.where)
            written['powershell'][full] = entry
        base = entry['base']
        if base and base not in wanted and base not in written['framework'] and base not in written['powershell']:
            wanted.add(base)
            pending.append(base)
    namespaces = sorted({'.'.join(record.namespaces) for record in records.values() if record.namespaces})
    system_types = sorted(name.split('.', 1)[1].lower() for name, record in records.items()
                          if record.public and name.count('.') == 1 and name.startswith('System.') and '+' not in name)
    names = {'source': 'microsoft/referencesource %s (folders %s); PowerShell/PowerShell %s %s'
                       % (framework_commit, ', '.join(FRAMEWORK_FOLDERS), POWERSHELL_COMMIT, ACCELERATORS),
             'accelerators': accelerators(powershell), 'namespaces': namespaces, 'system_types': system_types}
    win32_commit = git(win32, 'rev-parse', '--short=10', 'HEAD').decode().strip()
    cim = {}
    classes = cim_classes()
    pages = cim_pages(win32, classes)
    for cim_class, (path, properties) in sorted(pages.items()):
        cim['Microsoft.Management.Infrastructure.CimInstance#' + cim_class] = {
            'source': 'MicrosoftDocs/win32 %s %s' % (win32_commit, path), 'complete': False,
            'base': 'Microsoft.Management.Infrastructure.CimInstance', 'inherit': True,
            'instance': dict({name: 'property' for name in properties}, PSComputerName='property')}
    missing += ['Microsoft.Management.Infrastructure.CimInstance#' + name for name in sorted(set(classes) - set(pages))]
    os.makedirs(OUT, exist_ok=True)
    for stem, data in (('framework', written['framework']), ('powershell', written['powershell']), ('names', names),
                       ('cim', cim)):
        with open(os.path.join(OUT, stem + '.json'), 'w') as handle:
            json.dump(data, handle, indent=1, sort_keys=True)
            handle.write('\n')
    netmembers = _netmembers()
    for full in sorted(missing):
        if netmembers.lookup(full) is None:
            # No source member list: the model's own members work, any other is Unsupported (netmembers).
            print('no member list in the sources (nor in windows.json): %s' % full)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
