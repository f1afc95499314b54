"""ovs-vsctl.exe, as a program model over the node's Open vSwitch database (kubewin_sim/ovs.py).

Sources: Open vSwitch's ovs-vsctl(8) manual (utilities/ovs-vsctl.8.in) and its "Database Values" and "Database
Command Syntax" sections (lib/db-ctl-base.man), with the messages and exit codes of utilities/ovs-vsctl.c and
lib/db-ctl-base.c (openvswitch/ovs):
- global options before the first command (``--no-wait``, ``--timeout=secs``, ``--format=json``), commands separated
  by ``--``, each with its own options (``--if-exists``, ``--may-exist``, ``--columns=``); a command option given in
  the global position applies to the first command; all commands are one transaction: the first error leaves the
  database as it was;
- a failure prints ``ovs-vsctl: <message>`` on stderr and exits 1 (ctl_fatal); ``br-exists`` of a missing bridge
  exits 2; a database that cannot be reached is "database connection failed";
- ``add-br`` makes the bridge with its local port and interface of the same name (type internal); ``add-port`` and
  ``add-br`` refuse a name a bridge, port or interface already has (check_conflicts) unless ``--may-exist`` finds
  the same thing; ``del-br``/``del-port`` of something missing fail unless ``--if-exists``; ``del-port`` of a
  bridge's local port fails;
- ``set``/``get``/``remove``/``list`` over the tables the scripts use (Open_vSwitch ``.``, Bridge, Port, Interface;
  a table name matches case-insensitively); ``col:key=value`` in a map; a string value is literal unless it starts
  with a double quote (then a JSON string, ovsdb_atom_from_string); the JSON table format (``--format=json``) writes
  ``{"data": [...], "headings": [...]}`` with each cell in the OVSDB JSON encoding (ovsdb_datum_to_json: a map as
  ``["map", [[k, v]...]]``, a set of one element as that element, any other set as ``["set", [...]]``, a UUID as
  ``["uuid", "..."]``).
ovs-vsctl receives its arguments through the 5.1 command line (processes.native_argv): ``external_ids:k="v"``
reaches it as ``external_ids:k=v``.

State: ``node.data['ovs']['db']`` as kubewin_sim/ovs.py keeps it (``bridges``: name -> ``ports``: port -> type
``internal``/``system``; ``external_ids``); a bridge's local port is implied
by the bridge, not stored. UUIDs are derived from the names (stable, as a row keeps its UUID). An interface's
``error`` is what ovs-vswitchd reports (ovs.interface_error). A change without ``--no-wait`` waits for ovs-vswitchd,
which is not modelled (an engine gap); the scripts always pass ``--no-wait``.
"""

import json
import uuid

from .. import ovs
from ..pwsh.values import Unsupported
from .processes import native_argv

TABLES = ('Open_vSwitch', 'Bridge', 'Port', 'Interface')
COLUMNS = {
    'Open_vSwitch': ('_uuid', 'bridges', 'external_ids'),
    'Bridge': ('_uuid', 'name', 'ports', 'external_ids'),
    'Port': ('_uuid', 'name', 'interfaces', 'external_ids'),
    'Interface': ('_uuid', 'name', 'type', 'error', 'external_ids'),
}
ROOT_UUID = str(uuid.uuid5(uuid.NAMESPACE_URL, 'kubewin-sim:ovs:Open_vSwitch'))


class VsctlError(Exception):
    def __init__(self, message, exit_code=1):
        super().__init__(message)
        self.exit_code = exit_code


def _uuid(table, name):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, 'kubewin-sim:ovs:%s:%s' % (table, name)))


def _result(stdout=(), stderr=(), exit_code=0):
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    return ProgramResult(stdout, stderr, exit_code)


# -- the database as tables --------------------------------------------------------------------------------

class Database:
    """A working copy of the database for one transaction."""

    def __init__(self, node, db):
        self.node = node
        self.bridges = {name: dict(entry['ports']) for name, entry in db['bridges'].items()}
        self.external_ids = dict(db['external_ids'])

    def store(self, db):
        db['bridges'] = {name: {'ports': ports} for name, ports in self.bridges.items()}
        db['external_ids'] = self.external_ids

    def ports(self):
        """port name -> (bridge, type), the bridges' local ports included."""
        out = {}
        for bridge, ports in self.bridges.items():
            out[bridge] = (bridge, 'internal')
            for port, kind in ports.items():
                out[port] = (bridge, kind)
        return out

    def rows(self, table):
        """(record name, {column: datum}) of every row; a datum is ('atom', value), ('set', [...]) or ('map', {...})."""
        if table == 'Open_vSwitch':
            return [('.', {'_uuid': ('uuid', ROOT_UUID), 'bridges': ('set', [('uuid', _uuid('Bridge', name))
                                                                             for name in sorted(self.bridges)]),
                           'external_ids': ('map', self.external_ids)})]
        if table == 'Bridge':
            return [(name, {'_uuid': ('uuid', _uuid('Bridge', name)), 'name': ('atom', name),
                            'ports': ('set', [('uuid', _uuid('Port', port)) for port in [name] + sorted(ports)]),
                            'external_ids': ('map', {})}) for name, ports in sorted(self.bridges.items())]
        if table == 'Port':
            return [(name, {'_uuid': ('uuid', _uuid('Port', name)), 'name': ('atom', name),
                            'interfaces': ('set', [('uuid', _uuid('Interface', name))]), 'external_ids': ('map', {})})
                    for name in sorted(self.ports())]
        rows = []
        for name, (_bridge, kind) in sorted(self.ports().items()):
            error = ovs.interface_error(self.node, name, kind)
            rows.append((name, {'_uuid': ('uuid', _uuid('Interface', name)), 'name': ('atom', name),
                                'type': ('atom', '' if kind == 'system' else kind),
                                'error': ('set', [] if error is None else [('atom', error)]), 'external_ids': ('map', {})}))
        return rows

    def row(self, table, record, must_exist=True):
        for name, columns in self.rows(table):
            if name == record or (table == 'Open_vSwitch' and record == '.'):
                return columns
        if must_exist:
            raise VsctlError('no row "%s" in table %s' % (record, table))
        return None


def _table(name):
    found = [table for table in TABLES if table.lower() == name.lower()]
    if not found:
        found = [table for table in TABLES if table.lower().startswith(name.lower())]
    if len(found) != 1:
        raise VsctlError('unknown table "%s"' % name)
    return found[0]


def _column(table, name):
    if name not in COLUMNS[table]:
        raise VsctlError('%s does not contain a column whose name matches "%s"' % (table, name))
    return name


def _json_atom(value):
    if isinstance(value, tuple):
        kind, item = value
        return ['uuid', item] if kind == 'uuid' else item
    return value


def _datum_json(datum):
    kind, value = datum
    if kind == 'uuid':
        return ['uuid', value]
    if kind == 'atom':
        return value
    if kind == 'map':
        return ['map', [[key, item] for key, item in sorted(value.items())]]
    if len(value) == 1:
        return _json_atom(value[0])
    return ['set', [_json_atom(item) for item in value]]


def _datum_text(datum):
    """The default ("table"/get) rendering of a datum."""
    kind, value = datum
    if kind in ('uuid',):
        return value
    if kind == 'atom':
        # ovsdb_atom_to_string: quoted unless a letter or underscore then letters, digits, '-', '_', '.' (and not a
        # word the parser would read as another type).
        bare = value and (value[0].isalpha() or value[0] == '_') and \
            value.replace('-', '').replace('_', '').replace('.', '').isalnum() and value not in ('true', 'false')
        return value if bare else json.dumps(value)
    if kind == 'map':
        return '{%s}' % ', '.join('%s=%s' % (_datum_text(('atom', k)), _datum_text(('atom', v)))
                                  for k, v in sorted(value.items()))
    items = [_datum_text(item) for item in value]
    return '[%s]' % ', '.join(items)


def _atom(text):
    """ovsdb_atom_from_string for a string column."""
    if text == '':
        raise VsctlError('An empty string is not valid as input; use "" to represent the empty string')
    if text.startswith('"'):
        if len(text) < 2 or not text.endswith('"'):
            raise VsctlError('%s: missing quote at end of quoted string' % text)
        try:
            return json.loads(text)
        except ValueError as error:
            raise VsctlError('%s: %s' % (text, error)) from None
    return text


def _column_key_value(argument):
    """column[:key][=value] as parse_column_key_value splits it (delimiters outside double quotes)."""
    def token(text):
        out, quoted, index = [], False, 0
        while index < len(text):
            char = text[index]
            if char == '\\' and index + 1 < len(text):
                out.append(text[index + 1])
                index += 2
                continue
            if not quoted and char in ':=, []{}!<>':
                break
            if char == '"':
                quoted = not quoted
            out.append(char)
            index += 1
        return ''.join(out), text[index:]
    column, rest = token(argument)
    key = None
    if rest.startswith(':'):
        key, rest = token(rest[1:])
    value = rest[1:] if rest.startswith('=') else None
    if rest and value is None:
        raise VsctlError('%s: trailing garbage "%s" in argument' % (argument, rest))
    return column, key, value


# -- commands ---------------------------------------------------------------------------------------------

def _check_conflicts(db, name, message):
    if name in db.bridges:
        raise VsctlError('%s because a bridge named %s already exists' % (message, name))
    ports = db.ports()
    if name in ports:
        raise VsctlError('%s because a port named %s already exists on bridge %s' % (message, name, ports[name][0]))


def _add_br(db, options, args, out):
    if len(args) != 1:
        raise Unsupported('ovs-vsctl add-br with a parent bridge (fake bridges)')
    name = args[0]
    if not name:
        raise VsctlError('bridge name must not be empty string')
    if '--may-exist' in options and name in db.bridges:
        return
    _check_conflicts(db, name, 'cannot create a bridge named %s' % name)
    db.bridges[name] = {}


def _del_br(db, options, args, out):
    name = args[0]
    if name not in db.bridges:
        if '--if-exists' in options:
            return
        raise VsctlError('no bridge named %s' % name)
    del db.bridges[name]


def _add_port(db, options, args, out):
    bridge, port, settings = args[0], args[1], args[2:]
    if not port:
        raise VsctlError('port name must not be empty string')
    ports = db.ports()
    if '--may-exist' in options and port in ports and port != ports[port][0]:
        if ports[port][0] != bridge:
            raise VsctlError('"--may-exist add-port %s %s" but %s is actually attached to bridge %s'
                             % (bridge, port, port, ports[port][0]))
        return
    if bridge not in db.bridges:
        raise VsctlError('no bridge named %s' % bridge)
    _check_conflicts(db, port, 'cannot create a port named %s' % port)
    db.bridges[bridge][port] = 'system'
    for setting in settings:
        _set_column(db, 'Port', port, setting)


def _del_port(db, options, args, out):
    target = args[-1]
    if target in db.bridges:
        if '--if-exists' not in options:
            raise VsctlError('cannot delete port %s because it is the local port for bridge %s (deleting this port '
                             'requires deleting the entire bridge)' % (target, target))
        return
    ports = db.ports()
    if target not in ports:
        if '--if-exists' in options:
            return
        raise VsctlError('no port named %s' % target)
    owner = ports[target][0]
    if len(args) == 2:
        if args[0] not in db.bridges:
            raise VsctlError('no bridge named %s' % args[0])
        if owner != args[0]:
            raise VsctlError('bridge %s does not have a port %s' % (args[0], target))
    del db.bridges[owner][target]


def _set_column(db, table, record, argument):
    db.row(table, record)  # the record must exist
    column, key, value = _column_key_value(argument)
    column = _column(table, column)
    if value is None:
        raise VsctlError('%s: missing value' % argument)
    if column == 'external_ids' and table == 'Open_vSwitch':
        if key is not None:
            db.external_ids[_atom(key)] = _atom(value)
            return
        raise Unsupported('ovs-vsctl set of a whole map column')
    if table == 'Interface' and column == 'type' and key is None:
        kind = _atom(value) if value != '""' else ''
        bridge = db.ports()[record][0]
        if record == bridge:
            raise Unsupported('changing the type of a bridge\'s local interface')
        db.bridges[bridge][record] = kind or 'system'
        return
    raise Unsupported('ovs-vsctl set %s %s (only Open_vSwitch external_ids and Interface type are modelled)'
                      % (table, column))


def _set(db, options, args, out):
    table = _table(args[0])
    if db.row(table, args[1], must_exist='--if-exists' not in options) is None:
        return
    for argument in args[2:]:
        _set_column(db, table, args[1], argument)


def _remove(db, options, args, out):
    table = _table(args[0])
    if db.row(table, args[1], must_exist='--if-exists' not in options) is None:
        return
    column = _column(table, args[2])
    if table != 'Open_vSwitch' or column != 'external_ids':
        raise Unsupported('ovs-vsctl remove %s %s' % (table, column))
    for item in args[3:]:
        if '=' in item:
            raise Unsupported('ovs-vsctl remove of a key=value pair')
        db.external_ids.pop(_atom(item), None)


def _get(db, options, args, out):
    table = _table(args[0])
    row = db.row(table, args[1], must_exist='--if-exists' not in options)
    if row is None:
        return
    for argument in args[2:]:
        column, key, _value = _column_key_value(argument)
        datum = row[_column(table, column)]
        if key is None:
            out.append(_datum_text(datum))
            continue
        if datum[0] != 'map':
            raise VsctlError('cannot specify key to get for non-map column %s' % column)
        key = _atom(key)
        if key in datum[1]:
            out.append(_datum_text(('atom', datum[1][key])))
        elif '--if-exists' in options:
            out.append('')
        else:
            raise VsctlError('no key "%s" in %s record "%s" column %s' % (key, table, args[1], column))


def _list(db, options, args, out, table_format):
    table = _table(args[0])
    columns = options.get('--columns')
    columns = [_column(table, name) for name in columns.split(',')] if columns else sorted(COLUMNS[table])
    wanted = args[1:]
    rows = db.rows(table)
    if wanted:
        rows = [(name, db.row(table, name, must_exist='--if-exists' not in options)) for name in wanted]
        rows = [row for row in rows if row[1] is not None]
    if table_format != 'json':
        raise Unsupported('ovs-vsctl list without --format=json')
    out.append(json.dumps({'data': [[_datum_json(row[column]) for column in columns] for _name, row in rows],
                           'headings': columns}, separators=(',', ':')))


def _list_br(db, options, args, out):
    out.extend(sorted(db.bridges))


def _br_exists(db, options, args, out):
    if args[0] not in db.bridges:
        raise VsctlError('', exit_code=2)


COMMANDS = {
    'add-br': (_add_br, 1, 3), 'del-br': (_del_br, 1, 1), 'add-port': (_add_port, 2, None),
    'del-port': (_del_port, 1, 2), 'set': (_set, 3, None), 'remove': (_remove, 4, None), 'get': (_get, 3, None),
    'list': (_list, 1, None), 'list-br': (_list_br, 0, 0), 'br-exists': (_br_exists, 1, 1),
}
CHANGES = ('add-br', 'del-br', 'add-port', 'del-port', 'set', 'remove')
GLOBAL_OPTIONS = ('--no-wait', '--timeout', '--format', '--oneline', '--dry-run')


def _parse(argv):
    """(global options, [(command options, name, args)])."""
    global_options, first_options = {}, {}
    index = 0
    while index < len(argv) and argv[index].startswith('--') and argv[index] != '--':
        name, _separator, value = argv[index].partition('=')
        if name in GLOBAL_OPTIONS:
            global_options[name] = value
        else:
            first_options[name] = value
        index += 1
    commands, current = [], []
    for word in argv[index:] + ['--']:
        if word == '--':
            if current:
                commands.append(current)
            current = []
        else:
            current.append(word)
    parsed = []
    for number, words in enumerate(commands):
        options = dict(first_options) if number == 0 else {}
        while words and words[0].startswith('--'):
            name, _separator, value = words.pop(0).partition('=')
            options[name] = value
        if not words:
            raise VsctlError('missing command name (use --help for help)')
        name, args = words[0], words[1:]
        if name not in COMMANDS:
            raise VsctlError("unknown command '%s'; use --help for help" % name)
        low, high = COMMANDS[name][1:]
        if len(args) < low or (high is not None and len(args) > high):
            raise VsctlError("'%s' command requires at least %d arguments" % (name, low) if len(args) < low
                             else "'%s' command takes at most %d arguments" % (name, high))
        parsed.append((options, name, args))
    if not parsed:
        raise VsctlError('missing command name (use --help for help)')
    return global_options, parsed


def ovs_vsctl(host, words, input_items):
    node = host.node
    argv = native_argv(words)
    try:
        global_options, commands = _parse(argv)
        if not ovs.db_running(node):
            raise VsctlError('unix:C:\\ProgramData\\openvswitch\\db.sock: database connection failed '
                             '(No such file or directory)')
        changes = any(name in CHANGES for _options, name, _args in commands)
        if changes and '--no-wait' not in global_options:
            raise Unsupported('ovs-vsctl waiting for ovs-vswitchd to apply a change (no --no-wait)')
        state = ovs.model(node)
        if state['db'] is None:
            state['db'] = {'bridges': {}, 'external_ids': {}}
        db = Database(node, state['db'])
        out = []
        for options, name, args in commands:
            if name == 'list':
                _list(db, options, args, out, global_options.get('--format'))
            else:
                COMMANDS[name][0](db, options, args, out)
        if changes and '--dry-run' not in global_options:
            db.store(state['db'])
        return _result(out)
    except VsctlError as error:
        if error.exit_code == 2:
            return _result([], [], 2)
        return _result([], ['ovs-vsctl: %s' % error], error.exit_code)


PROGRAMS = {'ovs-vsctl.exe': ovs_vsctl}
