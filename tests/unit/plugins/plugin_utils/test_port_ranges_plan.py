"""_port_ranges: which NodePorts a node's dynamic ranges expose, what an exclusion adds and what a reset removes."""

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _port_ranges

NODE_PORTS = (30000, 32767)


def ports(tcp=(49152, 16384), udp=(49152, 16384), tcp_excluded=(), udp_excluded=()):
    return {'tcp': {'dynamic_start': tcp[0], 'dynamic_count': tcp[1], 'excluded': list(tcp_excluded)},
            'udp': {'dynamic_start': udp[0], 'dynamic_count': udp[1], 'excluded': list(udp_excluded)}}


def excluded(start, end, administered=True):
    return {'start': start, 'end': end, 'administered': administered}


def test_windows_default_range_exposes_no_node_port():
    assert _port_ranges.exposed(ports(), NODE_PORTS) == {'tcp': [], 'udp': []}
    assert _port_ranges.exclusions_to_add(ports(), NODE_PORTS) == []


def test_a_range_reaching_into_the_node_ports_exposes_the_overlap_only():
    # 31000-65535: the upper part of the NodePort range is exposed; the exclusion covers the whole range, as AKS's.
    state = ports(udp=(31000, 34536))
    assert _port_ranges.exposed(state, NODE_PORTS) == {'tcp': [], 'udp': [(31000, 32767)]}
    assert _port_ranges.exclusions_to_add(state, NODE_PORTS) == [{'protocol': 'udp', 'start': 30000, 'end': 32767}]


def test_existing_exclusions_are_not_added_again_and_windows_reservations_are_left_alone():
    state = ports(tcp=(1025, 64511), tcp_excluded=[excluded(30000, 30999), excluded(32000, 32099, administered=False)])
    assert _port_ranges.exposed(state, NODE_PORTS)['tcp'] == [(31000, 31999), (32100, 32767)]
    assert _port_ranges.exclusions_to_add(state, NODE_PORTS) == [
        {'protocol': 'tcp', 'start': 31000, 'end': 31999}, {'protocol': 'tcp', 'start': 32100, 'end': 32767}]
    # Reset removes the administered exclusions inside the range, not Windows' reservation.
    assert _port_ranges.exclusions_to_remove(state, NODE_PORTS) == [{'protocol': 'tcp', 'start': 30000, 'end': 30999}]


def test_a_dynamic_range_netsh_did_not_show_is_an_error():
    state = ports()
    state['tcp']['dynamic_count'] = None
    with pytest.raises(_port_ranges.PortRangeError, match='no dynamic tcp port range'):
        _port_ranges.exposed(state, NODE_PORTS)


@pytest.mark.parametrize('value', ['30000', '0-100', '30000 - 32767', 30000, None, '3-2'])
def test_only_a_first_last_range_inside_the_ports_parses(value):
    with pytest.raises(_port_ranges.PortRangeError):
        _port_ranges.parse(value)
