"""host-local.exe, the CNI host-local IPAM plugin of containernetworking/plugins, as a program model.

Sources (containernetworking/plugins v1.9.1, the release the collection installs; the files are unchanged on
its main branch): plugins/ipam/host-local/main.go (cmdAdd, cmdDel, cmdCheck), backend/allocator (config.go
LoadIPAMConfig, range.go Canonicalize, range_set.go, allocator.go Get/Release and the round-robin RangeIter),
backend/disk (backend.go: the store on disk, lock.go with go-filemutex), and the CNI library it vendors,
containernetworking/cni v1.3.0 (pkg/skel/skel.go: environment variables, stdin, errors; pkg/utils/utils.go:
name checks; pkg/types: the error document and results of 0.3.x/0.4.0 and 1.x; pkg/version: the versions).

The protocol (skel): CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS (not for DEL), CNI_IFNAME and CNI_PATH come from
the environment (a missing one: error 4 "required env variables [...] missing"), the network configuration
from standard input, read to its end; the configuration must be JSON with a valid "name" (error 6 "error
unmarshall network config: <Go's JSON error>", error 7), its cniVersion one the plugin supports (error 1). A
failure prints {"code", "msg"[, "details"]} indented by four spaces on standard output and exits 1; an error
of the plugin itself is code 999 (ErrInternal). ADD prints the result in the configuration's version, DEL
prints nothing, CHECK (0.4.0 and later) fails when the container has no address.

The store (disk.New): the folder <dataDir>\\<network name> (dataDir default /var/lib/cni/networks, on Windows
\\var\\lib\\cni\\networks of the current drive), created with its parents; a file "lock" in it (go-filemutex
opens it with OPEN_ALWAYS); one file per reserved address, named by the address, holding
"<container id>\\r\\n<ifname>"; "last_reserved_ip.<range set index>" holding the last address reserved. A
reservation for an id and interface that already holds an address in the range set is refused ("<ip> has been
allocated to <id>, duplicate allocation is not allowed"); the next address is the one after the last reserved,
round robin over the range set, skipping the gateway (network + 1 unless given) and the reserved ones; the
range runs from network + 1 (rangeStart) to the last address before broadcast (rangeEnd). DEL removes every
file of the folder (and its subfolders) whose text, trimmed, is "<id>\\r\\n<ifname>" (or the bare id, the old
format). The files live in the node's file system (windows/filesystem.py, node.data['fs']), so Remove-Item
of the data folder releases them as on Windows.

IPv6 ranges (range.go): a subnet of a prefix longer than /126 is "too small to allocate from", the range ends at the
subnet's last address (only IPv4 leaves the broadcast out: lastIP), a result entry has "version": "6" before CNI 1.0.
A dual-stack configuration is two range sets, one address from each (sdnbridge's enableDualStack takes them:
microsoft/windows-container-networking#61). ``ipam.routes`` ({dst, gw} each, types.Route) are copied into the result
as main.go's cmdAdd does (``result.Routes = ipamConf.Routes``).

Not modelled (an engine gap naming it): requested addresses (CNI_ARGS IP, args, runtimeConfig),
resolvConf, configuration versions before 0.3.0, VERSION, GC and STATUS, JSON errors other than a
document that does not start like a JSON value. Range sets are checked as LoadIPAMConfig does (host bits,
size, start and end in the network, overlaps within a set and between sets).
"""

import ipaddress
import json
import re

from ..pwsh.values import Unsupported
from . import filesystem

SUPPORTED_VERSIONS = ('0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0')
DEFAULT_DATA_DIR = '/var/lib/cni/networks'
LINE_BREAK = '\r\n'
_NAME = re.compile(r'^[a-zA-Z0-9][a-zA-Z0-9_.\-]*$')  # utils.cniValidNameChars
# skel's variables in its order, with the commands each is required for.
_VARIABLES = (('CNI_COMMAND', ('ADD', 'CHECK', 'DEL', 'GC', 'STATUS')), ('CNI_CONTAINERID', ('ADD', 'CHECK', 'DEL')),
              ('CNI_NETNS', ('ADD', 'CHECK')), ('CNI_IFNAME', ('ADD', 'CHECK', 'DEL')), ('CNI_ARGS', ()),
              ('CNI_PATH', ('ADD', 'CHECK', 'DEL', 'GC', 'STATUS')), ('CNI_NETNS_OVERRIDE', ()))


class CniError(Exception):
    """A types.Error: what the plugin prints on standard output before it exits 1."""

    def __init__(self, code, msg, details=''):
        super().__init__(msg)
        self.document = {'code': code, 'msg': msg}
        if details:
            self.document['details'] = details


def _result(text='', exit_code=0):
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    return ProgramResult(exit_code=exit_code, stdout=text, stderr='')


def _print(document):
    # json.MarshalIndent(obj, "", "    "): no line end after the document.
    return json.dumps(document, indent=4)


def _go_quote_char(byte):
    """encoding/json's quoteChar: the byte as a rune, quoted as strconv.Quote does it."""
    char = chr(byte)
    if char == "'":
        return "'\\''"
    if char == '"':
        return '\'"\''
    if char.isprintable():
        return "'%s'" % char
    return "'\\x%02x'" % byte


def _parse_json(data):
    """json.Unmarshal of the configuration, with Go's error for a document that does not start like a value."""
    stripped = data.lstrip(b' \t\r\n')
    if not stripped:
        raise CniError(6, 'error unmarshall network config: unexpected end of JSON input')
    if chr(stripped[0]) not in '{["-0123456789tfn':
        raise CniError(6, 'error unmarshall network config: invalid character %s looking for beginning of value'
                       % _go_quote_char(stripped[0]))
    try:
        return json.loads(data.decode('utf-8', errors='replace'))
    except ValueError as error:
        raise Unsupported('host-local: Go\'s wording of this JSON error (%s)' % error) from None


def _environment(host, environment):
    # Go's os.Getenv on Windows looks names up case-insensitively.
    block = environment if environment is not None else host.environment()
    return {str(name).upper(): str(value) for name, value in block.items()}


def _check_name(value, missing_code, missing, invalid_code, invalid):
    if not value:
        raise CniError(missing_code, missing)
    if not _NAME.match(value):
        raise CniError(invalid_code, invalid, value)


def _check_interface(name):
    # utils.ValidateInterfaceName
    if len(name) > 15:
        raise CniError(4, 'interface name is too long', 'interface name should be less than 16 characters')
    if name in ('.', '..'):
        raise CniError(4, 'interface name is . or ..')
    if any(char in '/:' or char.isspace() for char in name):
        raise CniError(4, 'interface name contains / or : or whitespace characters')


def _arguments(env):
    """skel's getCmdArgsFromEnv: the command and the checked variables."""
    command = env.get('CNI_COMMAND', '')
    missing = []
    for name, required_for in _VARIABLES:
        value = env.get(name, '')
        if not value:
            if command in required_for or name == 'CNI_COMMAND':
                missing.append(name)
        elif command in required_for and name == 'CNI_CONTAINERID':
            _check_name(value, 3, 'missing containerID', 4, 'invalid characters in containerID')
        elif command in required_for and name == 'CNI_IFNAME':
            _check_interface(value)
    if missing:
        if not command:
            raise Unsupported('host-local without CNI_COMMAND (it prints its about text)')
        raise CniError(4, 'required env variables [%s] missing' % ','.join(missing))
    return command


def _version_of(config):
    version = config.get('cniVersion') or '0.1.0'
    if version not in SUPPORTED_VERSIONS:
        raise CniError(1, 'incompatible CNI versions', 'config is "%s", plugin supports [%s]'
                       % (version, ' '.join('"%s"' % v for v in SUPPORTED_VERSIONS)))
    return version


def _at_least(version, floor):
    return tuple(int(part) for part in version.split('.')) >= tuple(int(part) for part in floor.split('.'))


# -- the configuration (allocator.LoadIPAMConfig, Range.Canonicalize) -------------------------------------------

def _address(text):
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        raise CniError(999, 'invalid IP address: %s' % text) from None


def _range(spec):
    """A canonical range: network, start, end and gateway (Range.Canonicalize)."""
    subnet_text = spec.get('subnet') or ''
    try:
        interface = ipaddress.ip_interface(subnet_text)
    except ValueError:
        raise CniError(999, 'invalid CIDR address: %s' % subnet_text) from None
    network = interface.network
    if network.prefixlen > network.max_prefixlen - 2:
        raise CniError(999, 'Network %s too small to allocate from' % interface.with_prefixlen)
    if interface.ip != network.network_address:
        raise CniError(999, 'Network has host bits set. For a subnet mask of length %d the network address is %s'
                       % (network.prefixlen, network.network_address))
    gateway = _address(spec['gateway']) if spec.get('gateway') else network.network_address + 1
    start = _address(spec['rangeStart']) if spec.get('rangeStart') else network.network_address + 1
    # lastIP: the subnet's last address, less one for IPv4 (its broadcast).
    last = network.broadcast_address - 1 if network.version == 4 else network.broadcast_address
    end = _address(spec['rangeEnd']) if spec.get('rangeEnd') else last
    for name, value in (('RangeStart', start), ('RangeEnd', end)):
        if value not in network:
            raise CniError(999, '%s %s not in network %s' % (name, value, network))
    return {'network': network, 'start': start, 'end': end, 'gateway': gateway}


def _in_range(address, spec):
    return address.version == spec['network'].version and address in spec['network'] \
        and spec['start'] <= address <= spec['end']


def _overlap(one, other):
    # Range.Overlaps
    return any(_in_range(address, one) for address in (other['start'], other['end'])) or \
        any(_in_range(address, other) for address in (one['start'], one['end']))


def _text(spec):
    # Range.String
    return '%s-%s' % (spec['start'], spec['end'])


def _load(config):
    ipam = config.get('ipam')
    if not isinstance(ipam, dict):
        raise CniError(999, "IPAM config missing 'ipam' key")
    if ipam.get('resolvConf'):
        raise Unsupported('host-local: ipam.resolvConf')
    if (config.get('args') or {}).get('cni') or (config.get('runtimeConfig') or {}).get('ips') \
            or (config.get('runtimeConfig') or {}).get('ipRanges'):
        raise Unsupported('host-local: requested addresses or ranges (args, runtimeConfig)')
    range_sets = list(ipam.get('ranges') or [])
    if ipam.get('subnet'):
        range_sets.insert(0, [{key: ipam.get(key) for key in ('subnet', 'rangeStart', 'rangeEnd', 'gateway')}])
    if not range_sets:
        raise CniError(999, 'no IP ranges specified')
    canonical = []
    for index, range_set in enumerate(range_sets):
        if not range_set:
            raise CniError(999, 'invalid range set %d: empty range set' % index)
        try:
            ranges = [_range(spec) for spec in range_set]
            for at, first in enumerate(ranges):
                for second in ranges[at + 1:]:
                    if _overlap(first, second):
                        raise CniError(999, 'subnets %s and %s overlap' % (_text(first), _text(second)))
        except CniError as error:
            raise CniError(999, 'invalid range set %d: %s' % (index, error.document['msg'])) from None
        canonical.append(ranges)
    for at, first in enumerate(canonical):
        for offset, second in enumerate(canonical[at + 1:]):
            if any(_overlap(one, other) for one in first for other in second):
                raise CniError(999, 'range set %d overlaps with %d' % (at, at + offset + 1))
    data_dir = ipam.get('dataDir') or DEFAULT_DATA_DIR
    return canonical, filesystem.normalize(data_dir.rstrip('\\/') + '\\' + config['name']), _routes(ipam)


def _routes(ipam):
    """ipam.routes as types.Route reads them: dst a CIDR, gw an address (or none)."""
    routes = []
    for route in ipam.get('routes') or []:
        if not isinstance(route, dict) or not isinstance(route.get('dst'), str):
            raise Unsupported('host-local: Go\'s wording for a route without a dst text')
        try:
            destination = ipaddress.ip_network(route['dst'])
            gateway = ipaddress.ip_address(route['gw']) if route.get('gw') else None
        except ValueError:
            raise Unsupported('host-local: Go\'s wording for a malformed route %r' % (route,)) from None
        routes.append({'dst': str(destination), **({'gw': str(gateway)} if gateway else {})})
    return routes


# -- the store (disk.Store) ---------------------------------------------------------------------------------------

def _open_store(node, folder):
    """disk.New: the folder with its parents, and its lock file (OPEN_ALWAYS)."""
    filesystem.make_directories(node, folder)
    if filesystem.lookup(node, folder + '\\lock') is None:
        filesystem.create(node, folder + '\\lock', False)


def _files(node, folder):
    """filepath.Walk of the store: every file under it, in lexical order, with its text."""
    entries = [entry for entry in filesystem.walk(node, folder) if not entry['dir']]
    return sorted(((entry['path'], filesystem.content_bytes(entry).decode('utf-8', errors='replace'))
                   for entry in entries), key=lambda item: item[0])


def reservations(node, folder):
    """The addresses reserved in a store folder (``<dataDir>\\<network>``), each with ``<id>/<ifname>``, for tests."""
    found = {}
    for path, text in _files(node, folder):
        name = path.rsplit('\\', 1)[-1]
        try:
            ipaddress.ip_address(name)
        except ValueError:
            continue
        found[name] = '/'.join(text.strip().split(LINE_BREAK))
    return found


def _owned_by(node, folder, container_id, ifname):
    """GetByID: the addresses whose file holds this id and interface (or the id alone, the old format)."""
    keys = (container_id.strip() + LINE_BREAK + ifname, container_id.strip())
    found = []
    for path, text in _files(node, folder):
        if text.strip() in keys:
            try:
                found.append(ipaddress.ip_address(path.rsplit('\\', 1)[-1]))
            except ValueError:
                pass
    return found


def _release(node, folder, container_id, ifname):
    """ReleaseByID: remove the files of this id and interface; if there were none, those of the bare id."""
    for key in (container_id.strip() + LINE_BREAK + ifname, container_id.strip()):
        matching = [path for path, text in _files(node, folder) if text.strip() == key]
        for path in matching:
            del filesystem.tree(node)[path.lower()]
        if matching:
            return


def _reserve(node, folder, container_id, ifname, address, range_id):
    path = '%s\\%s' % (folder, address)
    if filesystem.lookup(node, path) is not None:
        return False  # O_EXCL: the address is taken
    filesystem.create(node, path, False, (container_id.strip() + LINE_BREAK + ifname).encode('utf-8'))
    filesystem.write_file(node, '%s\\last_reserved_ip.%d' % (folder, range_id), str(address).encode('ascii'))
    return True


def _last_reserved(node, folder, range_id):
    entry = filesystem.lookup(node, '%s\\last_reserved_ip.%d' % (folder, range_id))
    if entry is None:
        return None
    try:
        return ipaddress.ip_address(filesystem.content_bytes(entry).decode('ascii', errors='replace').strip())
    except ValueError:
        return None


def _candidates(range_set, last):
    """RangeIter: from the address after the last reserved one (when the set holds it), else from the first
    range's start, once round the set; the gateways are skipped. A generator: an IPv6 range holds 2 ** 64 addresses,
    and the allocator stops at the first free one."""
    index = next((i for i, spec in enumerate(range_set) if last is not None and _in_range(last, spec)), None)
    if index is None:
        index, current = 0, range_set[0]['start']
        first = current
        if current != range_set[0]['gateway']:
            yield current, range_set[0]
    else:
        current, first = last, None
    while True:
        spec = range_set[index]
        if current == spec['end']:
            index = (index + 1) % len(range_set)
            spec = range_set[index]
            current = spec['start']
        else:
            current = current + 1
        if first is None:
            first = current
        elif current == first:
            return
        if current != spec['gateway']:
            yield current, spec


def _add(node, range_sets, folder, container_id, ifname, version, routes=()):
    ips = []
    for range_id, range_set in enumerate(range_sets):
        held = [address for address in _owned_by(node, folder, container_id, ifname)
                if any(_in_range(address, spec) for spec in range_set)]
        if held:
            _release_all(node, folder, container_id, ifname, range_id)
            raise CniError(999, 'failed to allocate for range %d: %s has been allocated to %s, duplicate allocation '
                           'is not allowed' % (range_id, held[0], container_id))
        for address, spec in _candidates(range_set, _last_reserved(node, folder, range_id)):
            if _reserve(node, folder, container_id, ifname, address, range_id):
                ips.append((address, spec))
                break
        else:
            _release_all(node, folder, container_id, ifname, range_id)
            raise CniError(999, 'failed to allocate for range %d: no IP addresses available in range set: %s'
                           % (range_id, ','.join(_text(spec) for spec in range_set)))
    entries = []
    for address, spec in ips:
        entry = {'version': str(address.version)} if not _at_least(version, '1.0.0') else {}
        entry.update({'address': '%s/%d' % (address, spec['network'].prefixlen), 'gateway': str(spec['gateway'])})
        entries.append(entry)
    result = {'cniVersion': version, 'ips': entries}
    if routes:
        result['routes'] = list(routes)
    result['dns'] = {}
    return _print(result)


def _release_all(node, folder, container_id, ifname, count):
    # cmdAdd releases what the allocators of the earlier range sets reserved before it fails.
    if count:
        _release(node, folder, container_id, ifname)


def host_local(host, words, input_items, environment=None):  # pylint: disable=unused-argument
    """The plugin run once: ``input_items`` the bytes on its standard input."""
    if input_items is not None and not isinstance(input_items, (bytes, bytearray)):
        raise Unsupported('host-local with pipeline input (its configuration comes from standard input bytes)')
    node = host.node
    env = _environment(host, environment)
    try:
        command = _arguments(env)
        data = bytes(input_items or b'')
        config = _parse_json(data)
        if not isinstance(config, dict):
            raise Unsupported('host-local: Go\'s wording for a configuration that is not a JSON object')
        name = config.get('name')
        if not isinstance(name, str):
            if name is None:
                raise CniError(7, 'missing network name')
            raise Unsupported('host-local: Go\'s wording for a network name that is not a string')
        _check_name(name, 7, 'missing network name', 7, 'invalid characters found in network name')
        if command not in ('ADD', 'DEL', 'CHECK'):
            if command in ('VERSION', 'GC', 'STATUS'):
                raise Unsupported('host-local CNI_COMMAND %s' % command)
            raise CniError(4, 'unknown CNI_COMMAND: %s' % command)
        version = _version_of(config)
        if command == 'CHECK' and not _at_least(version, '0.4.0'):
            raise CniError(1, 'config version does not allow CHECK')
        if not _at_least(version, '0.3.0'):
            raise Unsupported('host-local: the result format of CNI %s' % version)
        range_sets, folder, routes = _load(config)
        _open_store(node, folder)
        container_id, ifname = env['CNI_CONTAINERID'], env['CNI_IFNAME']
        if command == 'DEL':
            _release(node, folder, container_id, ifname)
            return _result()
        if command == 'CHECK':
            if not _owned_by(node, folder, container_id, ifname):
                raise CniError(999, 'host-local: Failed to find address added by container %s' % container_id)
            return _result()
        return _result(_add(node, range_sets, folder, container_id, ifname, version, routes))
    except CniError as error:
        return _result(_print(error.document), 1)


PROGRAMS = {'host-local.exe': host_local}
