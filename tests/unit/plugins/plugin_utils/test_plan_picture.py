# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The IP plan picture (_plan_picture.plan_svg and the ip_plan_svg filter), read back as XML."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from ansible.errors import AnsibleFilterError
from ansible_collections.kubewin.node.plugins.filter import plan_picture
from ansible_collections.kubewin.node.plugins.plugin_utils import _plan_picture
from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import IPPlanError

ROOT = Path(__file__).resolve().parents[4]
SVG = '{http://www.w3.org/2000/svg}'


def l2bridge_static(count=3):
    """win-node-1..count at 10.127.130.(1+i), pod subnet 10.244.i.0/24."""
    return {
        'topology': 'l2bridge', 'l2bridge_routing': 'static_routes', 'cluster_cidr': '10.244.0.0/16',
        'service_cidr': '10.96.0.0/12', 'management_cidr': '10.127.130.0/24', 'extra_exceptions': ['172.16.0.0/12'],
        'nodes': [{'name': 'win-node-%d' % i, 'management_ip': '10.127.130.%d' % (1 + i),
                   'pod_cidr': '10.244.%d.0/24' % i} for i in range(1, count + 1)],
    }


def big_fleet(count=500):
    """windows-worker-000.., routed upstream, in a /14 of /24 node subnets and a /22 management network."""
    return {
        'topology': 'l2bridge', 'l2bridge_routing': 'upstream', 'cluster_cidr': '10.0.0.0/14',
        'service_cidr': '10.96.0.0/12', 'management_cidr': '10.200.0.0/22',
        'nodes': [{'name': 'windows-worker-%03d' % i, 'management_ip': '10.200.%d.%d' % (i // 250, 1 + i % 250),
                   'pod_cidr': '10.%d.%d.0/24' % (i // 256, i % 256)} for i in range(count)],
    }


OVERLAY = {
    'topology': 'overlay', 'cluster_cidr': '10.244.0.0/16', 'service_cidr': '10.96.0.0/12',
    'dns_service_ip': '10.96.0.10', 'management_cidr': '10.127.130.0/24',
    'nodes': [{'name': 'win-ovl-%d' % i, 'management_ip': '10.127.130.%d' % (40 + i)} for i in (1, 2, 3)],
}
OVN = {
    'topology': 'ovn', 'cluster_cidr': '10.244.0.0/16', 'service_cidr': '10.96.0.0/12',
    'management_cidr': '10.127.130.0/24',
    'nodes': [{'name': 'win-ovn-1', 'management_ip': '10.127.130.41', 'pod_cidr': '10.244.11.0/24'}],
}


def parsed(plan):
    """The SVG text of the plan's picture, and its XML tree (which proves it is well-formed)."""
    text = _plan_picture.plan_svg(plan)
    root = ET.fromstring(text.encode('utf-8'))
    assert root.tag == SVG + 'svg'
    return text, root


def drawn(plan):
    return parsed(plan)[1]


def texts(root):
    """Every <text> as the string a reader sees: its tspans joined, runs of spaces as one, tooltips left out."""
    def seen(element):
        parts = [element.text or '']
        for child in element:
            if child.tag == SVG + 'tspan':
                parts.append(child.text or '')
            parts.append(child.tail or '')
        return ' '.join(''.join(parts).split())
    return [seen(element) for element in root.iter(SVG + 'text')]


def titles(root):
    return [element.text for element in root.iter(SVG + 'title')]


def rect_titled(root, title):
    found = [element for element in root.iter(SVG + 'rect')
             if element.find(SVG + 'title') is not None and element.find(SVG + 'title').text == title]
    assert len(found) == 1, (title, titles(root))
    return found[0]


def test_names_every_node_subnet_the_service_range_dns_and_the_exception_list():
    root = drawn(l2bridge_static())
    shown = texts(root)
    assert shown[0] == 'kubewin.node IP plan: l2bridge (static routes), 3 Windows nodes'
    for i in (1, 2, 3):
        # Under the management bar (name, then address), under the cluster bar (name, then subnet) and in the node
        # table (name, management IP, subnet).
        assert shown.count('win-node-%d' % i) == 3 and shown.count('10.244.%d.0/24' % i) == 2
        assert shown.count('10.127.130.%d' % (1 + i)) == 2
    assert 'Service range 10.96.0.0/12' in shown and 'cluster DNS 10.96.0.10 (svc.cluster.local)' in shown
    assert 'Management network 10.127.130.0/24' in shown and 'Cluster (pod) range 10.244.0.0/16' in shown
    assert 'Placeholder network 192.168.255.0/30' in shown and 'gateway 192.168.255.1' in shown
    exceptions = shown.index('OutBoundNAT ExceptionList')
    assert shown[exceptions + 2:exceptions + 6] == ['10.244.0.0/16', '10.96.0.0/12', '10.127.130.0/24', '172.16.0.0/12']


def test_marks_sit_where_their_addresses_lie_in_the_range():
    plan = l2bridge_static(1)
    plan['nodes'][0]['pod_cidr'] = '10.244.128.0/24'
    root = drawn(plan)
    subnet = rect_titled(root, 'win-node-1 10.244.128.0/24')
    # Half way along a /16 bar, a /24 is 1/256 of it.
    assert float(subnet.get('x')) == pytest.approx(_plan_picture.MARGIN + _plan_picture.BAR_WIDTH / 2, abs=0.01)
    assert float(subnet.get('width')) == pytest.approx(_plan_picture.BAR_WIDTH / 256, abs=0.01)
    # A lone address (the DNS service IP, the 11th of a /12) is drawn at its place, wide enough to see.
    dns = rect_titled(root, 'cluster DNS 10.96.0.10')
    assert float(dns.get('width')) == _plan_picture.MIN_MARK_WIDTH
    assert float(dns.get('x')) == pytest.approx(_plan_picture.MARGIN + _plan_picture.BAR_WIDTH * 10.5 / 2 ** 20
                                                - _plan_picture.MIN_MARK_WIDTH / 2, abs=0.01)


def test_each_bar_shows_its_first_and_last_address_and_close_ranges_share_one_scale():
    root = drawn(l2bridge_static())
    shown = texts(root)
    for first, last in (('10.127.130.0', '10.127.130.255'), ('10.244.0.0', '10.244.255.255'),
                        ('10.96.0.0', '10.111.255.255')):
        assert first in shown and last in shown
    # The service range and the management network lie within one /11: drawn there together, each where it lies.
    assert 'Address space 10.96.0.0/11' in shown
    service = rect_titled(root, 'service 10.96.0.0/12')
    management = rect_titled(root, 'management 10.127.130.0/24')
    assert float(service.get('x')) == pytest.approx(_plan_picture.MARGIN, abs=0.01)
    assert float(service.get('width')) == pytest.approx(_plan_picture.BAR_WIDTH / 2, abs=0.01)
    # 10.127.130.0/24 starts (31 * 256 + 130) * 256 addresses into the /11; too narrow to see, it is drawn 2 px wide.
    middle = _plan_picture.MARGIN + _plan_picture.BAR_WIDTH * ((31 * 256 + 130.5) * 256) / 2 ** 21
    assert float(management.get('x')) == pytest.approx(middle - _plan_picture.MIN_MARK_WIDTH / 2, abs=0.01)
    # The cluster range is 256 times the span of a parent holding it with the others: on its own scale only.
    assert not [t for t in titles(root) if t == 'cluster 10.244.0.0/16']


def test_one_node():
    root = drawn(l2bridge_static(1))
    shown = texts(root)
    assert shown[0].endswith(', 1 Windows node')
    assert shown.count('win-node-1') == 3 and '10.244.1.0/24' in shown


def test_flannel_leases_the_subnets_and_overlay_shows_vxlan_and_the_source_vip():
    root = drawn(OVERLAY)
    shown = texts(root)
    assert shown[0] == 'kubewin.node IP plan: overlay (flannel vxlan), 3 Windows nodes'
    assert 'flannel leases each node a /24 of this range when the node joins: 3 nodes of 256 subnets' in shown
    assert shown.count('leased by flannel') == 3 and not any(re.fullmatch(r'10\.244\.\d+\.0/24', s) for s in shown)
    assert 'VXLAN VNI 4096, UDP port 4789' in shown and 'HNS network flannel.4096' in shown
    assert any(s.startswith('kube-proxy source VIP: one address of each node') for s in shown)
    exceptions = shown.index('OutBoundNAT ExceptionList')
    assert shown[exceptions + 2:exceptions + 4] == ['10.244.0.0/16', '10.96.0.0/12'] and 'Windows nodes' == shown[exceptions + 4]


def test_ovn_has_no_placeholder_and_no_outbound_nat():
    root = drawn(OVN)
    shown = texts(root)
    assert not any(s.startswith('Placeholder network') for s in shown)
    assert 'none: ovn_cni.exe applies no OutBoundNAT policy' in shown and 'win-ovn-1' in shown


def test_deterministic_and_the_same_for_the_normalized_plan():
    from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import normalize_plan

    plan = l2bridge_static(5)
    text = _plan_picture.plan_svg(plan)
    assert _plan_picture.plan_svg(plan) == text == _plan_picture.plan_svg(normalize_plan(plan))
    assert text.endswith('</svg>\n') and 'id="' not in text


def test_a_big_fleet_is_aggregated():
    text, root = parsed(big_fleet())
    shown = texts(root)
    assert shown[0].endswith(', 500 Windows nodes')
    listed = [s for s in shown if re.fullmatch(r'windows-worker-\d{3}', s)]
    assert listed == ['windows-worker-%03d' % i for i in range(_plan_picture.LISTED_NODES)]
    assert '\u2026 and 480 more (summary.txt lists every node)' in shown
    assert '500 node subnets of 1,024 subnets in use; the node table below lists them' in shown
    # Neighbouring subnets and addresses are drawn as one mark each, whose tooltip counts the rest.
    assert len(list(root.iter(SVG + 'rect'))) < 20 and len(text) < 25000
    assert 'windows-worker-000 10.0.0.0/24, windows-worker-001 10.0.1.0/24, windows-worker-002 10.0.2.0/24, ' \
        'windows-worker-003 10.0.3.0/24, windows-worker-004 10.0.4.0/24 and 495 more' in titles(root)


def test_long_names_are_shortened_but_kept_whole_in_a_tooltip():
    long_name = 'win-' + 'x' * 90  # wider than its slot under the bar and its table column
    plan = l2bridge_static(2)
    plan['nodes'][1]['name'] = long_name
    root = drawn(plan)
    assert long_name not in texts(root) and long_name in titles(root)
    assert any(s.startswith('win-xxx') and s.endswith('\u2026') for s in texts(root))


def test_names_are_escaped():
    plan = l2bridge_static(1)
    plan['nodes'][0]['name'] = 'a&b<c>'
    root = drawn(plan)
    assert 'a&b<c>' in texts(root)


def test_a_bad_plan_is_refused_with_the_plan_message():
    plan = l2bridge_static(1)
    plan['nodes'][0]['pod_cidr'] = '10.245.0.0/24'
    with pytest.raises(IPPlanError, match='outside cluster_cidr'):
        _plan_picture.plan_svg(plan)


def test_filter_draws_the_plan():
    assert plan_picture.FilterModule().filters()['ip_plan_svg'](OVN) == _plan_picture.plan_svg(OVN)


def test_filter_without_drawsvg_fails_or_warns(monkeypatch):
    warnings = []
    monkeypatch.setattr(_plan_picture, 'HAS_DRAWSVG', False)
    monkeypatch.setattr(plan_picture.display, 'warning', warnings.append)
    ip_plan_svg = plan_picture.FilterModule().filters()['ip_plan_svg']
    with pytest.raises(AnsibleFilterError, match=r'\(drawsvg\).*pip install drawsvg==2\.4\.0'):
        ip_plan_svg(OVN)
    assert ip_plan_svg(OVN, without_drawsvg='warn') == ''
    assert len(warnings) == 1 and 'pip install drawsvg==2.4.0' in warnings[0] and 'without ip-plan.svg' in warnings[0]
    with pytest.raises(AnsibleFilterError, match='without_drawsvg must be fail or warn'):
        ip_plan_svg(OVN, without_drawsvg='skip')


def test_the_pin_is_the_one_requirements_and_the_execution_environment_install():
    requirement = _plan_picture.DRAWSVG_REQUIREMENT
    assert requirement in (ROOT / 'requirements.txt').read_text().splitlines()
    assert requirement in (ROOT / 'tests' / 'unit' / 'requirements.txt').read_text().splitlines()
    environment = yaml.safe_load((ROOT / 'meta' / 'execution-environment.yml').read_text())
    assert requirement in environment['dependencies']['python']


def dual_stack(count=2):
    """l2bridge_static with an IPv6 range of each kind and each node's IPv6 address and pod subnet."""
    plan = l2bridge_static(count)
    plan.update(cluster_cidr='10.244.0.0/16,fd00:10:244::/56', service_cidr='10.96.0.0/12,fd00:10:96::/112',
                management_cidr='10.127.130.0/24,fd00:127:130::/64')
    for i, node in enumerate(plan['nodes'], start=1):
        node.update(management_ip='%s,fd00:127:130::%d' % (node['management_ip'], 1 + i),
                    pod_cidr='%s,fd00:10:244:%d::/64' % (node['pod_cidr'], i))
    return plan


def test_a_dual_stack_plan_draws_both_families():
    root = drawn(dual_stack())
    shown = texts(root)
    assert shown[0] == 'kubewin.node IP plan: l2bridge (static routes), dual-stack, 2 Windows nodes'
    for heading in ('IPv6 management network fd00:127:130::/64', 'IPv6 cluster (pod) range fd00:10:244::/56',
                    'IPv6 service range fd00:10:96::/112'):
        assert heading in shown
    for i in (1, 2):
        # Under the IPv6 management and cluster bars, and in the node table under the node's IPv4 row.
        assert shown.count('fd00:127:130::%d' % (1 + i)) == 2 and shown.count('fd00:10:244:%d::/64' % i) == 2
    # Each node subnet lies where it is in the IPv6 cluster range: the marks' tooltips name them (adjacent /64s of a
    # /56 are closer than a pixel, so they share one mark).
    assert any('win-node-1 fd00:10:244:1::/64' in title for title in titles(root))
    exceptions = shown.index('OutBoundNAT ExceptionList')
    assert shown[exceptions + 6:exceptions + 9] == ['fd00:10:244::/56', 'fd00:10:96::/112', 'fd00:127:130::/64']
