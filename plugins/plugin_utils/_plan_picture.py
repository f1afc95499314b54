# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The IP plan as a picture: one SVG drawn with drawsvg.

Internal to kubewin.node, not a public API. The public interface is the filter
``kubewin.node.ip_plan_svg`` (plugins/filter/plan_picture.py), with which the plan role writes
``<plan dir>/ip-plan.svg``.

Every range is a bar drawn to its own scale, with its first and last address; what lies inside it (node subnets,
node addresses, the DNS service IP, the placeholder's gateway) is marked where it lies, and named when there are few.
Ranges that one parent holds closely (at most MAX_PARENT_SPAN times the largest) are first drawn together on the
parent's scale, so that their containment and distance show. All addresses and ranges come from
``_ip_plan`` (the one place the plan's arithmetic lives); this module only turns address integers into
x positions. Marks closer than a pixel are drawn as one, and only a readable number of nodes is named,
so a fleet of 500 draws about as many elements as a fleet of 20. The text is a function of the plan
alone (no ids, dates or floating-point noise), so the same plan gives the same bytes.
"""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils import _ip_plan, _node_plan

try:
    import drawsvg
except ImportError as exc:  # reported by the filter when it is used, not when Ansible loads plugins
    drawsvg = None
    DRAWSVG_IMPORT_ERROR: ImportError | None = exc
else:
    DRAWSVG_IMPORT_ERROR = None

HAS_DRAWSVG = drawsvg is not None
# The release requirements.txt pins (tests/unit/plugins/plugin_utils/test_plan_picture.py keeps them in step).
DRAWSVG_REQUIREMENT = 'drawsvg==2.4.0'

WIDTH = 960
MARGIN = 24
BAR_WIDTH = WIDTH - 2 * MARGIN
BAR_HEIGHT = 20
# A mark narrower than this would vanish; a lone address is still drawn this wide.
MIN_MARK_WIDTH = 2.0
# Node subnets (and node addresses) named under their bar, each in its own slot with a leader line; more would not fit.
LABELLED_SUBNETS = 8
# Rows of the node table; the rest is counted, and summary.txt lists every node.
LISTED_NODES = 20
FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif'
MONOSPACE = 'DejaVu Sans Mono, Menlo, Consolas, monospace'
# Monospace glyphs are about 0.6 em wide; used to fit labels into their slots.
MONOSPACE_EM = 0.6
ELLIPSIS = '\u2026'
# Ranges share a bar when one parent holds them all and is at most this many times the largest of them, so that the
# smaller ones stay visible (a /16 in a /8 would be a pixel wide).
MAX_PARENT_SPAN = 64

COLORS = {
    'management': ('#dbe4f0', '#2f5d8f'),
    'cluster': ('#dcefdc', '#2e7d32'),
    'service': ('#fbe7cf', '#c15c00'),
    'placeholder': ('#ece1f3', '#6a3d9a'),
    'extra': ('#eeeeee', '#555555'),
}
TEXT = '#1a1a1a'
QUIET = '#5a5a5a'


def _fixed(value: float) -> float:
    # Two decimals: enough for a drawing, and no float noise that would make two renderings differ.
    return round(value, 2)


def _fit(text: str, font_size: float, width: float) -> str:
    """``text`` shortened with an ellipsis to fit ``width`` pixels of monospace at ``font_size``."""
    room = max(int(width / (font_size * MONOSPACE_EM)), 2)
    return text if len(text) <= room else text[:room - 1] + ELLIPSIS


def _count(number: int, thing: str) -> str:
    plural = thing + ('es' if thing.endswith('s') else 's')
    return '%s %s' % (format(number, ','), thing if number == 1 else plural)


def _listed(names: t.Sequence[str], shown: int = 5) -> str:
    more = len(names) - shown
    return ', '.join(names[:shown]) + (' and %d more' % more if more > 0 else '')


class _Marks:
    """Intervals of a range placed on its bar, those closer than a pixel merged into one mark."""

    def __init__(self, network, x: float, width: float) -> None:
        self.network = network
        self.x = x
        self.scale = width / network.size

    def span(self, first: int, last: int) -> tuple[float, float]:
        start = self.x + (first - self.network.first) * self.scale
        end = self.x + (last + 1 - self.network.first) * self.scale
        if end - start < MIN_MARK_WIDTH:
            middle = (start + end) / 2
            start, end = middle - MIN_MARK_WIDTH / 2, middle + MIN_MARK_WIDTH / 2
        return start, end

    def merged(self, intervals: t.Iterable[tuple[int, int, str]]) -> list[tuple[float, float, list[str]]]:
        """``(first, last, what)`` intervals as ``(x0, x1, [what, ...])`` marks, in address order."""
        marks: list[tuple[float, float, list[str]]] = []
        for first, last, what in sorted(intervals):
            start, end = self.span(first, last)
            if marks and start <= marks[-1][1] + 0.5:
                marks[-1] = (marks[-1][0], max(end, marks[-1][1]), marks[-1][2] + [what])
            else:
                marks.append((start, end, [what]))
        return marks


class _Picture:
    """The drawing, built top to bottom; its height is known only at the end."""

    def __init__(self) -> None:
        self.elements: list[t.Any] = []
        self.y = 0.0
        self.bar_bottom = 0.0

    def text(self, x: float, y: float, text: str, size: float = 12, **attributes: t.Any) -> t.Any:
        attributes.setdefault('fill', TEXT)
        element = drawsvg.Text(text, size, _fixed(x), _fixed(y), **attributes)
        self.elements.append(element)
        return element

    def name(self, x: float, y: float, name: str, size: float, width: float, **attributes: t.Any) -> None:
        """A node name in ``width`` pixels: shortened with an ellipsis if need be, then whole in its tooltip."""
        shown = _fit(name, size, width)
        element = self.text(x, y, shown, size, **attributes)
        if shown != name:
            element.append_title(name)

    def rect(self, x: float, y: float, width: float, height: float, title: str | None = None, **attributes: t.Any):
        element = drawsvg.Rectangle(_fixed(x), _fixed(y), _fixed(width), _fixed(height), **attributes)
        if title:
            element.append_title(title)
        self.elements.append(element)
        return element

    def line(self, x0: float, y0: float, x1: float, y1: float, color: str) -> None:
        self.elements.append(drawsvg.Line(_fixed(x0), _fixed(y0), _fixed(x1), _fixed(y1), stroke=color,
                                          stroke_width=1))

    def heading(self, label: str, value: str, note: str = '') -> None:
        self.y += 30
        heading = self.text(MARGIN, self.y, label + '  ', 14, font_weight='bold')
        heading.append(drawsvg.TSpan(value, font_family=MONOSPACE, font_weight='normal'))
        if note:
            self.text(WIDTH - MARGIN, self.y, note, 11, fill=QUIET, text_anchor='end')

    def range_bar(self, network, kind: str, marks: t.Iterable[tuple[int, int, str]] = ()) -> _Marks:
        """The range as a bar with ``marks`` drawn inside it and its first and last address under its ends.

        Leaves ``y`` below that address; ``bar_bottom`` is where lines from the marks start.
        """
        light, dark = COLORS[kind]
        self.y += 8
        placed = _Marks(network, MARGIN, BAR_WIDTH)
        self.rect(MARGIN, self.y, BAR_WIDTH, BAR_HEIGHT, title='%s (%s)' % (network, _count(network.size, 'address')),
                  fill=light, stroke=dark, stroke_width=1)
        for start, end, whats in placed.merged(marks):
            self.rect(start, self.y + 1, end - start, BAR_HEIGHT - 2, title=_listed(whats), fill=dark)
        self.bar_bottom = self.y + BAR_HEIGHT
        # Where the bar starts and ends.
        self.text(MARGIN, self.bar_bottom + 12, str(network[0]), 10, fill=QUIET, font_family=MONOSPACE)
        self.text(WIDTH - MARGIN, self.bar_bottom + 12, str(network[-1]), 10, fill=QUIET, font_family=MONOSPACE,
                  text_anchor='end')
        self.y = self.bar_bottom + 12
        return placed

    def note(self, text: str, size: float = 11, fill: str = QUIET) -> None:
        self.y += size + 6
        self.text(MARGIN, self.y, text, size, fill=fill)

    def svg(self) -> str:
        height = int(self.y + MARGIN)
        drawing = drawsvg.Drawing(WIDTH, height, font_family=FONT)
        drawing.append(drawsvg.Rectangle(0, 0, WIDTH, height, fill='white'))
        drawing.extend(self.elements)
        return drawing.as_svg() + '\n'


def _family_ranges(settings: _ip_plan.PlanSettings, family: str) -> list[tuple[str, str, t.Any]]:
    """The plan's ranges of one IP family as (kind, label, range)."""
    if family == 'IPv6':
        ipv6 = settings.ipv6
        return [('management', 'management', ipv6.management), ('cluster', 'cluster', ipv6.cluster),
                ('service', 'service', ipv6.service)] + [
            ('extra', 'extra', network) for network in settings.extra_exceptions if network.version == 6]
    ranges = [('management', 'management', settings.management), ('cluster', 'cluster', settings.cluster),
              ('service', 'service', settings.service)]
    if settings.placeholder is not None and settings.topology not in ('ovn', 'calico'):
        ranges.append(('placeholder', 'placeholder', settings.placeholder))
    return ranges + [('extra', 'extra', network) for network in settings.extra_exceptions if network.version == 4]


def _shared_parents(ranges: t.Sequence[tuple[str, str, t.Any]]) -> list[tuple[t.Any, list[tuple[str, str, t.Any]]]]:
    """Ranges of one family grouped by a common parent of at most MAX_PARENT_SPAN times the largest of them: each group
    of two or more as (parent, [(kind, label, range), ...]), for one bar on one scale."""
    groups: list[tuple[t.Any, list[tuple[str, str, t.Any]]]] = []
    for entry in ranges:
        for index, (parent, members) in enumerate(groups):
            joined = _ip_plan.netaddr.spanning_cidr([parent, entry[2]])
            if joined.size <= MAX_PARENT_SPAN * max(member[2].size for member in members + [entry]):
                groups[index] = (joined, members + [entry])
                break
        else:
            groups.append((entry[2], [entry]))
    return [(parent, members) for parent, members in groups if len(members) > 1]


def _address_space(picture: _Picture, settings: _ip_plan.PlanSettings, family: str = 'IPv4') -> None:
    """The ranges that lie close together drawn on one scale, so that their containment and distance show."""
    for parent, members in _shared_parents(_family_ranges(settings, family)):
        picture.heading('Address space', str(parent), 'these ranges on one scale')
        picture.y += 8
        placed = _Marks(parent, MARGIN, BAR_WIDTH)
        picture.rect(MARGIN, picture.y, BAR_WIDTH, BAR_HEIGHT, title='%s (%s)' % (parent, _count(parent.size, 'address')),
                     fill='white', stroke=QUIET, stroke_width=1)
        for kind, label, network in sorted(members, key=lambda member: member[2].first):
            start, end = placed.span(network.first, network.last)
            light, dark = COLORS[kind]
            picture.rect(start, picture.y + 1, end - start, BAR_HEIGHT - 2, title='%s %s' % (label, network),
                         fill=dark)
        picture.bar_bottom = picture.y + BAR_HEIGHT
        picture.text(MARGIN, picture.bar_bottom + 12, str(parent[0]), 10, fill=QUIET, font_family=MONOSPACE)
        picture.text(WIDTH - MARGIN, picture.bar_bottom + 12, str(parent[-1]), 10, fill=QUIET, font_family=MONOSPACE,
                     text_anchor='end')
        picture.y = picture.bar_bottom + 12
        _labels(picture, placed, [(network.first, network.last, label, str(network))
                                  for _kind, label, network in members], QUIET)


def _describe(settings: _ip_plan.PlanSettings, node_count: int) -> str:
    topology = settings.topology
    if topology == 'l2bridge':
        routing = 'flannel host-gw' if settings.uses_flannel else settings.l2bridge_routing.replace('_', ' ')
        topology += ' (%s)' % routing
    elif topology == 'overlay':
        topology += ' (flannel vxlan)'
    elif topology == 'calico':
        topology += ' (%s)' % settings.calico_backend
    if settings.ipv6 is not None:
        topology += ', dual-stack'
    return 'kubewin.node IP plan: %s, %s' % (topology, _count(node_count, 'Windows node'))


def _labels(picture: _Picture, placed: _Marks, items: t.Sequence[tuple[int, int, str, str]], color: str) -> None:
    """``(first, last, node name, what)`` named under the bar, in address order, each with a line to where it lies."""
    slot = BAR_WIDTH / len(items)
    top = picture.y + 12
    for index, (first, last, name, what) in enumerate(sorted(items)):
        start, end = placed.span(first, last)
        centre = MARGIN + slot * (index + 0.5)
        picture.line((start + end) / 2, picture.bar_bottom, centre, top, color)
        picture.name(centre, top + 13, name, 11, slot - 6, text_anchor='middle', font_weight='bold')
        picture.text(centre, top + 26, what, 10, text_anchor='middle', font_family=MONOSPACE)
    picture.y = top + 26


def _ipv6_cluster_range(picture: _Picture, settings: _ip_plan.PlanSettings, nodes: t.Sequence[_ip_plan.Node]) -> None:
    """The IPv6 cluster range of a dual-stack plan (l2bridge without flannel: each node's subnet is the plan's)."""
    ipv6 = settings.ipv6
    subnets = 2 ** (ipv6.node_prefix_length - ipv6.cluster.prefixlen)
    picture.heading('IPv6 cluster (pod) range', str(ipv6.cluster), 'node subnets /%d: %s' % (
        ipv6.node_prefix_length, _count(subnets, 'subnet')))
    placed = picture.range_bar(ipv6.cluster, 'cluster', [(node.pod_cidr6.first, node.pod_cidr6.last,
                                                          '%s %s' % (node.name, node.pod_cidr6)) for node in nodes])
    if len(nodes) <= LABELLED_SUBNETS:
        _labels(picture, placed, [(node.pod_cidr6.first, node.pod_cidr6.last, node.name, str(node.pod_cidr6))
                                  for node in nodes], COLORS['cluster'][1])


def _cluster_range(picture: _Picture, settings: _ip_plan.PlanSettings, nodes: t.Sequence[_ip_plan.Node]) -> None:
    subnets = 2 ** (settings.node_prefix_length - settings.cluster.prefixlen)
    picture.heading('Cluster (pod) range', str(settings.cluster), 'node subnets /%d: %s, up to %s per node' % (
        settings.node_prefix_length, _count(subnets, 'subnet'), _count(settings.max_pods, 'pod')))
    if settings.uses_flannel:
        picture.range_bar(settings.cluster, 'cluster')
        picture.note('flannel leases each node a /%d of this range when the node joins: %s of %s'
                     % (settings.node_prefix_length, _count(len(nodes), 'node'), _count(subnets, 'subnet')))
        return
    if settings.topology == 'calico':
        picture.range_bar(settings.cluster, 'cluster')
        picture.note('the Calico IP pool: Calico IPAM gives each Windows node one /%d block when calico-node-windows '
                     'starts, 4 addresses of it reserved: %s of %s'
                     % (settings.node_prefix_length, _count(len(nodes), 'node'), _count(subnets, 'block')))
        return
    subnets_of_nodes = [(node.pod_cidr.first, node.pod_cidr.last, '%s %s' % (node.name, node.pod_cidr))
                        for node in nodes]
    placed = picture.range_bar(settings.cluster, 'cluster', subnets_of_nodes)
    if len(nodes) <= LABELLED_SUBNETS:
        _labels(picture, placed, [(node.pod_cidr.first, node.pod_cidr.last, node.name, str(node.pod_cidr))
                                  for node in nodes], COLORS['cluster'][1])
    else:
        picture.note('%s of %s in use; the node table below lists them'
                     % (_count(len(nodes), 'node subnet'), _count(subnets, 'subnet')))
    if settings.topology == 'l2bridge':
        picture.note('In each node subnet: network + 1 the bridge gateway, network + 2 the host endpoint, '
                     'pods from network + 3')


def _service_range(picture: _Picture, settings: _ip_plan.PlanSettings, service=None, title: str = 'Service range') -> None:
    """A service range (the IPv4 one unless given), with the cluster DNS address where it lies in it."""
    service = settings.service if service is None else service
    picture.heading(title, str(service), _count(service.size, 'address'))
    if settings.dns_service_ip.version != service.version:
        picture.range_bar(service, 'service')
        return
    dns = settings.dns_service_ip.value
    placed = picture.range_bar(service, 'service', [(dns, dns, 'cluster DNS %s' % settings.dns_service_ip)])
    start, end = placed.span(dns, dns)
    middle = (start + end) / 2
    # The label hangs from the mark, to whichever side has room.
    anchor = 'start' if middle < WIDTH / 2 else 'end'
    picture.line(middle, picture.bar_bottom, middle, picture.y + 8, COLORS['service'][1])
    picture.y += 20
    label = picture.text(middle, picture.y, 'cluster DNS  ', 11, text_anchor=anchor, font_weight='bold')
    label.append(drawsvg.TSpan('%s (svc.%s)' % (settings.dns_service_ip, settings.cluster_domain),
                               font_family=MONOSPACE, font_weight='normal'))


def _management_range(picture: _Picture, settings: _ip_plan.PlanSettings, nodes: t.Sequence[_ip_plan.Node],
                      family: str = 'IPv4') -> None:
    management = settings.management if family == 'IPv4' else settings.ipv6.management
    attribute = 'management_ip' if family == 'IPv4' else 'management_ip6'
    title = 'Management network' if family == 'IPv4' else 'IPv6 management network'
    picture.heading(title, str(management), '%s on it' % _count(len(nodes), 'node address'))
    found = [(node.name, getattr(node, attribute)) for node in nodes]
    addresses = [(address.value, address.value, '%s %s' % (name, address)) for name, address in found]
    placed = picture.range_bar(management, 'management', addresses)
    if len(nodes) <= LABELLED_SUBNETS:
        _labels(picture, placed, [(address.value, address.value, name, str(address)) for name, address in found],
                COLORS['management'][1])


def _placeholder(picture: _Picture, settings: _ip_plan.PlanSettings) -> None:
    """l2bridge and overlay create the vSwitch with a throw-away network first (roles/network_*/tasks)."""
    gateway = _ip_plan.pod_gateways(str(settings.placeholder))['bridge_gateway']
    address = _ip_plan.parse_ipv4_address('gateway', gateway)
    picture.heading('Placeholder network', str(settings.placeholder), 'pre-creates each node\'s vSwitch')
    picture.range_bar(settings.placeholder, 'placeholder', [(address.value, address.value, 'gateway %s' % gateway)])
    picture.note('gateway %s' % gateway)


def _topology_notes(picture: _Picture, settings: _ip_plan.PlanSettings) -> None:
    if settings.topology == 'calico':
        _calico_notes(picture, settings)
        return
    if settings.topology != 'overlay':
        return
    picture.heading('VXLAN', 'VNI %d, UDP port %d' % (settings.vxlan_vni, settings.vxlan_port),
                    'HNS network %s' % settings.network_name)
    # The source VIP is an address of the node subnet flannel leases, so the plan cannot know it yet.
    picture.note('kube-proxy source VIP: one address of each node\'s leased subnet, reserved through host-local '
                 'when the node joins')


def _calico_notes(picture: _Picture, settings: _ip_plan.PlanSettings) -> None:
    if settings.calico_backend == 'vxlan':
        picture.heading('Calico VXLAN', 'VNI %d, UDP port %d' % (settings.vxlan_vni, settings.vxlan_port),
                        'HNS network %s (Overlay)' % settings.network_name)
    else:
        picture.heading('Calico BGP', 'no encapsulation', 'HNS network %s (L2Bridge)' % settings.network_name)
    picture.note('The Tigera operator\'s calico-node-windows pods create the network and write the CNI config; '
                 'the plan decides what the Installation must hold.')


def _exception_list(picture: _Picture, settings: _ip_plan.PlanSettings) -> None:
    picture.heading('OutBoundNAT ExceptionList', '', 'destinations pods reach without NAT to the node address')
    if settings.exceptions is None:
        picture.note('none: ovn_cni.exe applies no OutBoundNAT policy', 12, TEXT)
        return
    kinds = {str(settings.cluster): 'cluster', str(settings.service): 'service', str(settings.management): 'management'}
    exceptions = list(settings.exceptions)
    if settings.ipv6 is not None:
        # One OutBoundNAT policy per family, each with its own list.
        kinds.update({str(settings.ipv6.cluster): 'cluster', str(settings.ipv6.service): 'service',
                      str(settings.ipv6.management): 'management'})
        exceptions += settings.ipv6.exceptions
    picture.y += 8
    x = MARGIN
    for cidr in exceptions:
        width = len(cidr) * 12 * MONOSPACE_EM + 16
        if x + width > WIDTH - MARGIN:
            x, picture.y = MARGIN, picture.y + 28
        light, dark = COLORS[kinds.get(cidr, 'extra')]
        picture.rect(x, picture.y, width, 22, title='%s (%s)' % (cidr, kinds.get(cidr, 'extra exception')),
                     fill=light, stroke=dark, rx=4)
        picture.text(x + 8, picture.y + 15, cidr, 12, font_family=MONOSPACE)
        x += width + 8
    picture.y += 22


def _node_table(picture: _Picture, settings: _ip_plan.PlanSettings, nodes: t.Sequence[_ip_plan.Node]) -> None:
    lessor = 'leased by %s' % settings.pod_cidr_lessor
    picture.heading('Windows nodes', '', 'by name' if len(nodes) > 1 else '')
    columns = (MARGIN, MARGIN + 300, MARGIN + 460)
    picture.y += 20
    for x, title in zip(columns, ('node', 'management IP', 'pod subnet')):
        picture.text(x, picture.y, title, 11, fill=QUIET, font_weight='bold')
    for node in sorted(nodes, key=lambda node: _node_plan.natural_key(node.name))[:LISTED_NODES]:
        picture.y += 16
        picture.name(columns[0], picture.y, node.name, 12, columns[1] - columns[0] - 8, font_family=MONOSPACE)
        picture.text(columns[1], picture.y, str(node.management_ip), 12, font_family=MONOSPACE)
        picture.text(columns[2], picture.y, str(node.pod_cidr) if node.pod_cidr is not None else lessor,
                     12, font_family=MONOSPACE, fill=TEXT if node.pod_cidr is not None else QUIET)
        if node.management_ip6 is not None:
            # A dual-stack node's IPv6 address and pod subnet, on a row under its IPv4 ones.
            picture.y += 16
            picture.text(columns[1], picture.y, _fit(str(node.management_ip6), 12, columns[2] - columns[1] - 8), 12,
                         font_family=MONOSPACE)
            picture.text(columns[2], picture.y, str(node.pod_cidr6), 12, font_family=MONOSPACE)
    if len(nodes) > LISTED_NODES:
        picture.note('%s and %d more (summary.txt lists every node)' % (ELLIPSIS, len(nodes) - LISTED_NODES),
                     12, TEXT)


def plan_svg(plan: t.Any) -> str:
    """The SVG text of the picture of ``plan`` (raw or normalized, with its ``nodes``)."""
    normalized = _ip_plan.normalize_plan(plan)
    settings = _ip_plan.plan_settings(normalized)
    nodes = _ip_plan.parse_nodes(settings, normalized['nodes'])
    picture = _Picture()
    picture.y = 6
    picture.text(MARGIN, picture.y + 24, _describe(settings, len(nodes)), 18, font_weight='bold')
    picture.y += 30
    picture.note('Each bar is one range drawn to its own scale; a mark is where an address or subnet lies in it. '
                 'Ranges that lie close together are drawn on one scale first.')
    _address_space(picture, settings)
    _management_range(picture, settings, nodes)
    _cluster_range(picture, settings, nodes)
    _service_range(picture, settings)
    if settings.ipv6 is not None:
        _address_space(picture, settings, 'IPv6')
        _management_range(picture, settings, nodes, 'IPv6')
        _ipv6_cluster_range(picture, settings, nodes)
        _service_range(picture, settings, settings.ipv6.service, 'IPv6 service range')
    # ovn_cni.exe uses the OVS bridge, and calico-node-windows creates its network itself.
    if settings.topology not in ('ovn', 'calico'):
        _placeholder(picture, settings)
    _topology_notes(picture, settings)
    _exception_list(picture, settings)
    _node_table(picture, settings, nodes)
    return picture.svg()
