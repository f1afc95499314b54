"""netsh.exe interface ipv4 and ipv6: the dynamic (ephemeral) port ranges of TCP and UDP and their excluded port ranges.

Sources:

- "The default dynamic port range for TCP/IP has changed since Windows Vista and in Windows Server 2008"
  (support.microsoft.com, KB 929851; applies to Windows Server 2012 R2 to 2019 and later): the default start port is
  49152 and the default end port 65535 (16384 ports), set separately for each transport; ``netsh int ipv4 show
  dynamicport tcp|udp`` shows a range and ``netsh int <ipv4|ipv6> set dynamic <tcp|udp> start=number num=range`` sets
  one; the smallest range is 255 ports, the lowest start port 1025 and the end may not pass 65535.
- "Netsh interface IP commands" / ``netsh interface ipv4 show|add|delete excludedportrange`` (learn.microsoft.com
  windows-server/networking/technologies/netsh and the command's own usage text): ``[protocol=]tcp|udp``,
  ``[startport=]<integer>``, ``[numberofports=]<integer>``, ``[store=]active|persistent``: an ``active`` exclusion
  lasts until the next boot, ``persistent`` (the default) is kept. ``show excludedportrange protocol=tcp|udp`` lists
  the exclusions as ``Start Port`` / ``End Port`` columns, a ``*`` marking the administered ones (those added with
  ``add excludedportrange``), under the line ``* - Administered port exclusions.``; the others are reservations
  Windows components (Hyper-V, WinNAT, HNS) made from the dynamic range.
- What netsh does when an excluded range cannot be added: when a port of it is in use, netsh answers "The process
  cannot access the file because it is being used by another process." (the Win32 message of
  ERROR_SHARING_VIOLATION; reported by administrators, forum.bigfix.com "BES Support 765 reserve port"); an
  exclusion that is not an administered one cannot be deleted ("Access is denied.", w3toppers.com "What is
  Administered port exclusions in windows 10?"); a range that is not there is not found (ERROR_NOT_FOUND, "Element
  not found."). netsh writes its messages to standard output and ends with exit code 1 on an error, 0 otherwise;
  a value out of range is "The parameter is incorrect." (ERROR_INVALID_PARAMETER). The exact layout of the text is
  what the command prints on Windows Server 2019/2022 (KB 929851's and the pages' transcripts).

**One store per transport, two views.** ``netsh interface ipv6`` has the same ``show dynamicportrange``, ``show|add|
delete excludedportrange`` commands with the same parameters (learn.microsoft.com windows-server/administration/
windows-commands/netsh-interface, MicrosoftDocs/windowsserverdocs ``netsh-interface.md``), but on the Windows releases
the collection supports they read and change what the ``ipv4`` context does, because the port ranges belong to the
transport, not to an IP family:

- Windows' TCP/IP stack has a dual IP layer: one TCP and one UDP implementation serve IPv4 and IPv6 (the "Next
  Generation TCP/IP stack" of Windows Server 2008 and later).
- The administered exclusions are persistent port reservations (the same ERROR_SHARING_VIOLATION for a port in use):
  ``CreatePersistentTcpPortReservation`` / ``CreatePersistentUdpPortReservation`` take a start port and a count and no
  address family, record the reservation "in a persistent store for the TCP module", and a socket of either family
  draws from it; a reservation that "matches or overlaps a persistent reservation ... already created" is refused with
  ERROR_SHARING_VIOLATION (MicrosoftDocs/sdk-api ``nf-iphlpapi-createpersistenttcpportreservation.md``).
- The dynamic range is one setting per transport: ``Set-NetTCPSetting`` / ``Set-NetUDPSetting`` take
  ``-DynamicPortRangeStartPort`` and ``-DynamicPortRangeNumberOfPorts`` and no address family
  (MicrosoftDocs/windows-powershell-docs ``nettcpip/Set-NetUDPSetting.md``); KB 929851's revisions up to 2010 said
  the range was set "for each transport and for each version of IP", the current one (Windows Server 2012 R2 to
  2019) "for each transport (TCP or UDP)" only.

So ``ipv6`` answers from the same state as ``ipv4``: an exclusion added through one context is listed, and deleted,
through the other, and adding it again through the other overlaps it and is refused with ERROR_SHARING_VIOLATION.

What is modelled is what the collection runs: ``interface ipv4|ipv6 show dynamicport``, ``show|add|delete
excludedportrange`` (the object names ``int``/``interface``, ``dynamicport``/``dynamicportrange`` as netsh accepts
them, each parameter tagged or in its position). Anything else (``set dynamicport``, the ``ip`` alias, another
context, an exclusion overlapping one that is not an administered persistent one, whose answer no source gives)
raises Unsupported.

Node state (``node.data['tcpip_ports']``, at first the node profile's ``tcpip_ports``; absent = Windows' defaults): ``dynamic``: {protocol: [start, count]};
``excluded``: {protocol: [{'start', 'end', 'administered', 'persistent'}]}; ``in_use``: {protocol: [ports]} (the
ports some program has bound, a test's knob). ``boot`` drops the exclusions that were not persistent.
"""

import copy

from ..pwsh.values import Unsupported

PROTOCOLS = ('tcp', 'udp')
# The contexts that show and change the port ranges, both of the one store per transport (see above).
FAMILIES = ('ipv4', 'ipv6')
DEFAULT_DYNAMIC = (49152, 16384)
MIN_START = 1025
MIN_COUNT = 255
MAX_PORT = 65535
OK = 'Ok.'
INVALID = 'The parameter is incorrect.'
IN_USE = 'The process cannot access the file because it is being used by another process.'
NOT_FOUND = 'Element not found.'
DENIED = 'Access is denied.'
ERROR = 1


def state(node):
    """The node's port state, Windows' defaults filled in (a copy to change and ``save``)."""
    found = copy.deepcopy(node.data.get('tcpip_ports') or node.profile.get('tcpip_ports') or {})
    dynamic = found.setdefault('dynamic', {})
    excluded = found.setdefault('excluded', {})
    in_use = found.setdefault('in_use', {})
    for protocol in PROTOCOLS:
        dynamic[protocol] = list(dynamic.get(protocol) or DEFAULT_DYNAMIC)
        excluded[protocol] = list(excluded.get(protocol) or [])
        in_use[protocol] = list(in_use.get(protocol) or [])
    return found


def save(node, ports):
    node.data['tcpip_ports'] = ports


def boot(node):
    """A restart keeps the persistent exclusions only (``store=active`` lasts until the next boot)."""
    if not (node.data.get('tcpip_ports') or node.profile.get('tcpip_ports')):
        return
    ports = state(node)
    for protocol in PROTOCOLS:
        ports['excluded'][protocol] = [entry for entry in ports['excluded'][protocol] if entry['persistent']]
    save(node, ports)


def _arguments(words, names):
    """The parameters of a netsh command by name: ``name=value`` or in position (netsh takes both)."""
    found = {}
    for position, word in enumerate(words):
        tag, separator, value = word.partition('=')
        if separator:
            if tag.lower() not in names:
                return None
            found[tag.lower()] = value
        elif position < len(names):
            found[names[position]] = word
        else:
            return None
    return found


def _number(text):
    return int(text) if text is not None and text.isdigit() else None


def _show_dynamic(ports, protocol):
    start, count = ports['dynamic'][protocol]
    return ['', 'Protocol %s Dynamic Port Range' % protocol, '---------------------------------',
            'Start Port      : %d' % start, 'Number of Ports : %d' % count, '']


def _show_excluded(ports, protocol):
    lines = ['', 'Protocol %s Port Exclusion Ranges' % protocol, '', 'Start Port    End Port',
             '----------    --------']
    for entry in sorted(ports['excluded'][protocol], key=lambda item: item['start']):
        lines.append('%10d  %10d%s' % (entry['start'], entry['end'], '     *' if entry['administered'] else ''))
    return lines + ['', '* - Administered port exclusions.', '']


def _overlaps(first_start, first_end, second_start, second_end):
    return first_start <= second_end and second_start <= first_end


def _excluded_range(node, verb, arguments):
    """add or delete excludedportrange: (output lines, exit code)."""
    protocol = (arguments.get('protocol') or '').lower()
    start, count = _number(arguments.get('startport')), _number(arguments.get('numberofports'))
    store = (arguments.get('store') or 'persistent').lower()
    if protocol not in PROTOCOLS or start is None or count is None or store not in ('active', 'persistent'):
        return [INVALID, ''], ERROR
    end = start + count - 1
    if start < 1 or count < 1 or end > MAX_PORT:
        return [INVALID, ''], ERROR
    ports = state(node)
    ranges = ports['excluded'][protocol]
    if verb == 'delete':
        matching = [entry for entry in ranges if entry['start'] == start and entry['end'] == end]
        if not matching:
            return [NOT_FOUND, ''], ERROR
        if not matching[0]['administered']:
            return [DENIED, ''], ERROR
        ranges.remove(matching[0])
        save(node, ports)
        return [OK, ''], 0
    overlapping = [entry for entry in ranges if _overlaps(start, end, entry['start'], entry['end'])]
    if any(entry['administered'] and entry['persistent'] for entry in overlapping):
        return [IN_USE, ''], ERROR  # a persistent reservation overlapping one already created (sdk-api, see above)
    if overlapping:
        raise Unsupported('netsh add excludedportrange overlapping a reservation that is not an administered persistent '
                          'one (no source says what it answers)')
    if any(start <= port <= end for port in ports['in_use'][protocol]):
        return [IN_USE, ''], ERROR
    ranges.append({'start': start, 'end': end, 'administered': True, 'persistent': store == 'persistent'})
    save(node, ports)
    return [OK, ''], 0


def run(node, argv):
    """netsh.exe with ``argv``: (standard output lines, exit code)."""
    words = [word.lower() for word in argv[:4]]
    if len(words) < 4 or words[0] not in ('int', 'interface') or words[1] not in FAMILIES:
        raise Unsupported('netsh.exe %s (only "netsh interface ipv4|ipv6 show|add|delete ..." port ranges are '
                          'modelled)' % ' '.join(argv))
    verb, what, rest = words[2], words[3], argv[4:]
    if verb == 'show' and what in ('dynamicport', 'dynamicportrange'):
        arguments = _arguments(rest, ('protocol',))
        protocol = (arguments or {}).get('protocol', '').lower()
        if arguments is None or protocol not in PROTOCOLS or len(arguments) != 1:
            return [INVALID, ''], ERROR
        return _show_dynamic(state(node), protocol), 0
    if what == 'excludedportrange' and verb == 'show':
        arguments = _arguments(rest, ('protocol', 'store'))
        protocol = (arguments or {}).get('protocol', '').lower()
        if arguments is None or protocol not in PROTOCOLS or 'store' in arguments:
            # "store=active|persistent" on show lists one store only: not modelled.
            if arguments is not None and protocol in PROTOCOLS:
                raise Unsupported('netsh show excludedportrange with store=')
            return [INVALID, ''], ERROR
        return _show_excluded(state(node), protocol), 0
    if what == 'excludedportrange' and verb in ('add', 'delete'):
        arguments = _arguments(rest, ('protocol', 'startport', 'numberofports', 'store'))
        if arguments is None:
            return [INVALID, ''], ERROR
        return _excluded_range(node, verb, arguments)
    raise Unsupported('netsh.exe interface %s %s %s' % (words[1], verb, what))


def netsh_exe(host, words, input_items, environment=None):  # pylint: disable=unused-argument
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    from .processes import native_argv  # pylint: disable=import-outside-toplevel
    lines, code = run(host.node, native_argv(words))
    if code == 0 and lines[:1] == [OK]:
        host.node.record('netsh: %s' % ' '.join(native_argv(words)))
    return ProgramResult(lines, [], code)


PROGRAMS = {'netsh.exe': netsh_exe}
