# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster's NodePort range kept out of a Windows node's dynamic (ephemeral) port range.

Internal to kubewin.node, not a public API. The public interfaces are the inventory variable
``kubewin_service_node_port_range`` (checked by ``kubewin.node.preflight``), the prerequisites role's
``prerequisites_node_port_guard``, the module ``kubewin.node.port_ranges`` and the doctor's
``dynamic-ports-overlap-nodeports``.

Facts this module relies on, with their sources:

- kube-apiserver allocates NodePorts from ``--service-node-port-range``, ``30000-32767`` by default (kubernetes.io,
  kube-apiserver reference; "Service", type NodePort). The value is ``<first>-<last>``, both included.
- Windows hands out ephemeral ports from a dynamic range per transport, ``49152-65535`` by default, which ``netsh int
  ipv4 show dynamicport tcp|udp`` shows; the smallest range is 255 ports from port 1025 (KB 929851). A port of an
  excluded port range (``netsh int ipv4 add excludedportrange``) is never handed out as an ephemeral port, and an
  exclusion cannot be added over a port in use (windows/netsh.py names the sources). Windows components (Hyper-V,
  WinNAT, HNS) reserve ranges of their own, shown without the administered mark.
- A node whose dynamic range reaches into the NodePort range (a VM image with a widened range, e.g. 1025-65535 or
  10000-65535) can give a connection the same local port a NodePort uses, and the two collide. AKS moves the TCP
  range to 33000-65535, or, when it widens the range to 16385-65535 for kube-proxy's port use, adds the excluded range
  30000-32767 (2768 ports) for TCP and for UDP (Azure/AgentBaker staging/cse/windows/configfunc.ps1,
  ``Adjust-DynamicPortRange``, whose comment names the NodePort range).
- The dynamic range and the exclusions belong to the transport, not to an IP family: ``netsh int ipv6`` shows and
  changes the store ``netsh int ipv4`` does. A persistent port reservation takes no address family and is kept "in a
  persistent store for the TCP module" (CreatePersistentTcpPortReservation, MicrosoftDocs/sdk-api), the dynamic range
  is one setting per transport (Set-NetTCPSetting / Set-NetUDPSetting, no family), and KB 929851 now says the range
  is set "for each transport (TCP or UDP)" (its revisions up to 2010 added "and for each version of IP"). So on a
  dual-stack node the one exclusion also keeps the IPv6 NodePorts clear, the ``ports`` section (read through the
  ``ipv4`` context) is the whole truth for both families, and an exclusion added again through ``ipv6`` would overlap
  the first and be refused (windows/netsh.py in the simulation models exactly this).

The collection excludes rather than moves: an exclusion changes nothing else of the node (a firewall that allows
the dynamic range between servers, KB 929851, keeps working), keeps Windows components from reserving those ports
later, takes effect at once (no restart: a bind to a port excluded a moment before is refused, KB 3039044) and persists
(``store=persistent``), and reset removes exactly it. So ``exclude`` adds,
when the node's dynamic range overlaps the NodePort range with ports no exclusion covers, an administered exclusion
for each part of the NodePort range no exclusion covers yet; ``check`` only refuses such a node. Reset removes the
administered exclusions inside the NodePort range (those the collection adds; an administrator's own exclusion of
part of it goes too, which the documentation says).
"""

from __future__ import annotations

import re
import typing as t

VARIABLE = 'kubewin_service_node_port_range'
DEFAULT_RANGE = '30000-32767'
GUARD_OPTION = 'prerequisites_node_port_guard'
GUARDS = ('off', 'check', 'exclude')
DEFAULT_GUARD = 'off'
PROTOCOLS = ('tcp', 'udp')
MAX_PORT = 65535
# Windows' default dynamic range (KB 929851): a NodePort range that covers all of it would leave a default node
# without ephemeral ports once excluded.
DEFAULT_DYNAMIC = (49152, 65535)
# kube-apiserver also takes "<base>+<size>" (k8s.io/apimachinery util/net ParsePortRange); inventories write the
# first-last form, the one its --help and the Service documentation show.
_RANGE = re.compile(r'^(\d{1,5})-(\d{1,5})$')


class PortRangeError(ValueError):
    """A NodePort range that is not ``<first>-<last>`` inside 1-65535."""


def parse(value: t.Any) -> tuple[int, int]:
    """``(first, last)`` of a NodePort range as kube-apiserver's --service-node-port-range takes it."""
    found = _RANGE.match(value) if isinstance(value, str) else None
    if not found:
        raise PortRangeError('%s must be "<first>-<last>" as kube-apiserver\'s --service-node-port-range, e.g. "%s"; '
                             'got %r' % (VARIABLE, DEFAULT_RANGE, value))
    first, last = int(found.group(1)), int(found.group(2))
    if not 1 <= first <= last <= MAX_PORT:
        raise PortRangeError('%s %r must name ports from 1 to %d, the first not above the last'
                             % (VARIABLE, value, MAX_PORT))
    return first, last


def problems(value: t.Any, guards: t.Mapping[str, t.Any]) -> list[str]:
    """What preflight refuses: a malformed range, an unknown guard (per host), a range that cannot be kept clear."""
    found = []
    try:
        first, last = parse(value)
    except PortRangeError as error:
        found.append(str(error))
        first = last = None
    unknown = sorted(host for host, guard in guards.items() if guard not in GUARDS)
    if unknown:
        found.append('%s must be one of %s; %s has %s' % (
            GUARD_OPTION, ', '.join(GUARDS), ', '.join(unknown), ', '.join(sorted({repr(guards[h]) for h in unknown}))))
    if first is not None and any(guard == 'exclude' for guard in guards.values()) \
            and first <= DEFAULT_DYNAMIC[0] and last >= DEFAULT_DYNAMIC[1]:
        found.append('%s %s covers all of Windows\' default dynamic port range %d-%d: excluded, no ephemeral port '
                     'would be left (%s exclude); give the cluster a NodePort range below it'
                     % (VARIABLE, value, DEFAULT_DYNAMIC[0], DEFAULT_DYNAMIC[1], GUARD_OPTION))
    return found


def subtract(first: int, last: int, covered: t.Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of first-last outside every range of ``covered``."""
    parts = [(first, last)]
    for start, end in sorted(covered):
        rest = []
        for low, high in parts:
            if end < low or start > high:
                rest.append((low, high))
                continue
            if low < start:
                rest.append((low, start - 1))
            if high > end:
                rest.append((end + 1, high))
        parts = rest
    return parts


def dynamic_range(protocol_state: t.Mapping[str, t.Any]) -> tuple[int, int] | None:
    start, count = protocol_state.get('dynamic_start'), protocol_state.get('dynamic_count')
    if start is None or count is None:
        return None
    return start, start + count - 1


def exposed(ports: t.Mapping[str, t.Any], node_ports: tuple[int, int]) -> dict[str, list[tuple[int, int]]]:
    """Per protocol, the NodePorts the node may hand out as ephemeral ports: those of its dynamic range that no
    exclusion covers. Empty lists: the range is clear."""
    found = {}
    for protocol in PROTOCOLS:
        state = ports.get(protocol) or {}
        dynamic = dynamic_range(state)
        if dynamic is None:
            raise PortRangeError('netsh showed no dynamic %s port range on the node (its output had not a start '
                                 'and a count)' % protocol)
        low, high = max(dynamic[0], node_ports[0]), min(dynamic[1], node_ports[1])
        covered = [(entry['start'], entry['end']) for entry in state.get('excluded') or []]
        found[protocol] = subtract(low, high, covered) if low <= high else []
    return found


def exclusions_to_add(ports: t.Mapping[str, t.Any], node_ports: tuple[int, int]) -> list[dict[str, t.Any]]:
    """For each protocol whose dynamic range exposes NodePorts, the parts of the NodePort range no exclusion covers
    yet, as exclusions to add (the whole range, as AKS excludes it, not only the overlap: a later change of the
    dynamic range keeps it clear)."""
    adds = []
    for protocol, parts in exposed(ports, node_ports).items():
        if not parts:
            continue
        covered = [(entry['start'], entry['end']) for entry in (ports.get(protocol) or {}).get('excluded') or []]
        adds += [{'protocol': protocol, 'start': low, 'end': high}
                 for low, high in subtract(node_ports[0], node_ports[1], covered)]
    return adds


def exclusions_to_remove(ports: t.Mapping[str, t.Any], node_ports: tuple[int, int]) -> list[dict[str, t.Any]]:
    """The administered exclusions inside the NodePort range: what ``exclude`` added, which reset removes."""
    return [{'protocol': protocol, 'start': entry['start'], 'end': entry['end']}
            for protocol in PROTOCOLS for entry in (ports.get(protocol) or {}).get('excluded') or []
            if entry['administered'] and node_ports[0] <= entry['start'] and entry['end'] <= node_ports[1]]


def describe(exposed_ports: t.Mapping[str, list[tuple[int, int]]]) -> str:
    """'tcp 30000-32767, udp 30000-30999' for what ``exposed`` found."""
    return ', '.join('%s %s' % (protocol, ' '.join('%d-%d' % part for part in parts))
                     for protocol, parts in exposed_ports.items() if parts)
