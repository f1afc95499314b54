# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""IP plan rules, ExceptionList, gateways, CNI configs, net-conf and static routes."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import netaddr
import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _ip_plan
from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import (
    IPPlanError,
    cni_config,
    exception_list,
    flannel_net_conf,
    normalize_plan,
    plan_settings,
    pod_gateways,
    static_routes,
)

CNI_GOLDEN_DIR = Path(__file__).resolve().parents[2] / "test_data" / "cni"

# The IP plan table of the "Adding Windows nodes" source document (seed 004).
SEED_004 = {
    "topology": "l2bridge",
    "cluster_cidr": "10.244.0.0/16",
    "service_cidr": "10.96.0.0/12",
    "management_cidr": "10.127.130.0/24",
}
SEED_004_MANAGEMENT_IP = "10.127.130.38"

# The wincni l2bridge example (seeds 000/002), with the service range kube-apiserver accepts.
WINCNI_STATIC = {
    "topology": "l2bridge",
    "l2bridge_routing": "static_routes",
    "cluster_cidr": "10.10.0.0/16",
    "service_cidr": "10.96.0.0/12",
    "management_cidr": "10.127.132.128/25",
    "node_prefix_length": 26,
    "max_pods": 60,
}
WINCNI_POD_CIDR = "10.10.187.64/26"
WINCNI_MANAGEMENT_IP = "10.127.132.213"


def plan(base=None, **changes):
    merged = dict(SEED_004 if base is None else base)
    merged.update(changes)
    return merged


def rejects(raw_plan, *fragments):
    """Assert normalize_plan refuses the plan with a message holding every fragment, in order."""
    with pytest.raises(IPPlanError) as caught:
        normalize_plan(raw_plan)
    assert_message(caught.value, *fragments)
    return str(caught.value)


def assert_message(error, *fragments):
    message = str(error)
    pattern = ".*".join(re.escape(fragment) for fragment in fragments)
    assert re.search(pattern, message, re.DOTALL), f"{message!r} lacks {fragments!r}"


def three_nodes():
    return [
        {"name": "win-c", "management_ip": "10.127.130.13", "pod_cidr": "10.244.3.0/24"},
        {"name": "win-a", "management_ip": "10.127.130.11", "pod_cidr": "10.244.1.0/24"},
        {"name": "win-b", "management_ip": "10.127.130.12", "pod_cidr": "10.244.2.0/24"},
    ]


STATIC_SEED_004 = plan(l2bridge_routing="static_routes")


# ---------------------------------------------------------------------------------------------
# Normalization and defaults
# ---------------------------------------------------------------------------------------------


def test_seed_004_plan_gets_every_default():
    assert normalize_plan(SEED_004) == {
        "topology": "l2bridge",
        "cluster_cidr": "10.244.0.0/16",
        "service_cidr": "10.96.0.0/12",
        "dns_service_ip": "10.96.0.10",
        "management_cidr": "10.127.130.0/24",
        "extra_exceptions": [],
        "node_prefix_length": 24,
        "node_prefix_length_ipv6": None,
        "max_pods": 110,
        "node_count": None,
        "vxlan_vni": 4096,
        "vxlan_port": 4789,
        "network_name": "cbr0",
        "l2bridge_routing": "flannel",
        "calico_backend": None,
        "placeholder_cidr": "192.168.255.0/30",
        "cluster_domain": "cluster.local",
        "nodes": [],
    }


@pytest.mark.parametrize(
    ("service_cidr", "dns_service_ip"),
    [("10.96.0.0/12", "10.96.0.10"), ("172.20.0.0/16", "172.20.0.10"), ("10.0.0.0/28", "10.0.0.10")],
)
def test_default_dns_service_ip_is_the_tenth_address(service_cidr, dns_service_ip):
    assert normalize_plan(plan(service_cidr=service_cidr))["dns_service_ip"] == dns_service_ip


@pytest.mark.parametrize("service_cidr", ["10.96.0.0/30", "10.96.0.0/29"])
def test_a_service_range_holds_the_api_the_dns_and_ten_more_services(service_cidr):
    rejects(plan(service_cidr=service_cidr, dns_service_ip="10.96.0.2"),
            f"service_cidr {service_cidr} holds")
    rejects(plan(service_cidr=service_cidr, dns_service_ip="10.96.0.2"), "at least 10 more Services need 12 (a /28")


def test_default_dns_needs_room_in_the_service_range():
    rejects(plan(service_cidr="10.96.0.0/29"), "service_cidr 10.96.0.0/29 is too small for the default dns_service_ip")


@pytest.mark.parametrize(
    ("topology", "vni", "network_name", "routing"),
    [
        ("l2bridge", None, "cbr0", "flannel"),
        ("overlay", None, "flannel.4096", "flannel"),
        ("overlay", 5000, "flannel.5000", "flannel"),
        ("ovn", None, None, None),
    ],
)
def test_topology_defaults(topology, vni, network_name, routing):
    normalized = normalize_plan(plan(topology=topology, vxlan_vni=vni))
    assert (normalized["network_name"], normalized["l2bridge_routing"]) == (network_name, routing)


def test_null_means_default():
    assert normalize_plan(plan(max_pods=None, cluster_domain=None, extra_exceptions=None)) == normalize_plan(SEED_004)


@pytest.mark.parametrize(
    "raw_plan",
    [
        SEED_004,
        plan(topology="overlay", vxlan_vni="4097", extra_exceptions=[" 172.16.0.0/12 "]),
        plan(topology="ovn", nodes=three_nodes()),
        plan(STATIC_SEED_004, nodes=three_nodes(), node_count="10", max_pods=100.0),
        plan(WINCNI_STATIC, network_name="l2bridge", cluster_domain="corp.example"),
    ],
)
def test_normalizing_is_idempotent(raw_plan):
    once = normalize_plan(raw_plan)
    assert normalize_plan(once) == once
    assert normalize_plan(copy.deepcopy(once)) == once


def test_normalizing_does_not_change_its_input():
    raw_plan = plan(STATIC_SEED_004, nodes=three_nodes())
    snapshot = copy.deepcopy(raw_plan)
    normalize_plan(raw_plan)
    assert raw_plan == snapshot


def test_canonical_forms_in_output():
    normalized = normalize_plan(plan(cluster_cidr=" 10.244.0.0/16", service_cidr="10.96.0.0/12\n"))
    assert (normalized["cluster_cidr"], normalized["service_cidr"]) == ("10.244.0.0/16", "10.96.0.0/12")


# ---------------------------------------------------------------------------------------------
# Shape of the plan and type coercion
# ---------------------------------------------------------------------------------------------


def test_plan_must_be_a_dict():
    rejects(["10.244.0.0/16"], "the IP plan must be a dictionary", "list")


def test_unknown_key_is_named():
    rejects(plan(clustr_cidr="10.244.0.0/16"), "unknown plan key(s) clustr_cidr")


@pytest.mark.parametrize("key", ["topology", "cluster_cidr", "service_cidr", "management_cidr"])
def test_required_keys(key):
    raw_plan = dict(SEED_004)
    del raw_plan[key]
    rejects(raw_plan, f"the plan needs {key}")


def test_unknown_topology():
    rejects(plan(topology="vxlan"), "topology must be one of l2bridge, overlay, ovn, calico; got 'vxlan'")


@pytest.mark.parametrize(
    ("key", "text", "number"),
    [
        ("node_prefix_length", "25", 25),
        ("max_pods", " 60 ", 60),
        ("node_count", "12", 12),
        ("vxlan_vni", "4096", 4096),
        ("vxlan_port", "4789", 4789),
    ],
)
def test_integer_strings_from_inventories_are_accepted(key, text, number):
    assert normalize_plan(plan(**{key: text}))[key] == number


def test_integral_float_is_accepted():
    assert normalize_plan(plan(max_pods=100.0))["max_pods"] == 100


@pytest.mark.parametrize("key", ["node_prefix_length", "max_pods", "node_count", "vxlan_vni", "vxlan_port"])
@pytest.mark.parametrize("value", [True, False])
def test_booleans_are_not_integers(key, value):
    rejects(plan(**{key: value}), f"{key} must be an integer, got the boolean {value}")


@pytest.mark.parametrize("key", ["node_prefix_length", "max_pods", "node_count", "vxlan_vni", "vxlan_port"])
@pytest.mark.parametrize("value", ["twenty", "24.5", 24.5, [24]])
def test_non_numeric_values_name_the_key(key, value):
    rejects(plan(**{key: value}), f"{key} must be an integer, got {value!r}")


@pytest.mark.parametrize(
    ("key", "value", "bounds"),
    [
        ("node_prefix_length", 33, "between 1 and 32"),
        ("max_pods", 0, "at least 1"),
        ("node_count", 0, "at least 1"),
        ("vxlan_vni", 2**24, "between 1 and 16777215"),
        ("vxlan_port", 70000, "between 1 and 65535"),
    ],
)
def test_integer_bounds(key, value, bounds):
    rejects(plan(**{key: value}), f"{key} must be {bounds}, got {value}")


def test_cached_settings_never_confuse_a_boolean_with_an_integer():
    assert normalize_plan(plan(vxlan_port=1))["vxlan_port"] == 1
    rejects(plan(vxlan_port=True), "vxlan_port must be an integer, got the boolean True")


def test_settings_are_computed_once_per_plan():
    raw_plan = plan(STATIC_SEED_004, nodes=three_nodes())
    assert plan_settings(raw_plan) is plan_settings(copy.deepcopy(raw_plan))


@pytest.mark.parametrize("value", ["Cluster.Local", "cluster.local.", "-bad.local", "", 5])
def test_cluster_domain_must_be_a_dns_name(value):
    rejects(plan(cluster_domain=value), "cluster_domain must be a lower-case DNS name", repr(value))


@pytest.mark.parametrize("value", ["flannel 4096", ".cbr0", "", 7])
def test_network_name_must_be_a_cni_name(value):
    rejects(plan(network_name=value), "network_name must start with a letter or digit", repr(value))


def test_extra_exceptions_must_be_a_list():
    rejects(plan(extra_exceptions="172.16.0.0/12"), "extra_exceptions must be a list, got '172.16.0.0/12'")


# ---------------------------------------------------------------------------------------------
# CIDR syntax
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["10.244.0.0", "10.244.0.0/33", "banana", "10.244/16", "010.244.0.0/16", "10.244.0.0/1a"]
)
def test_malformed_cidr(value):
    rejects(plan(cluster_cidr=value), f"cluster_cidr {value!r} is not an IPv4 CIDR")


def test_cidr_must_be_text():
    rejects(plan(cluster_cidr=10), "cluster_cidr must be an IPv4 CIDR such as 10.244.0.0/16, or one per IP family "
            "([10.244.0.0/16, fd00:10:244::/56]) for dual-stack, got 10 (a number)")


def test_host_bits_name_the_canonical_form():
    message = rejects(
        plan(cluster_cidr="10.244.1.0/16"), "10.244.1.0/16 has host bits set; did you mean 10.244.0.0/16?"
    )
    assert message.startswith("cluster_cidr ")


@pytest.mark.parametrize(
    ("key", "value", "canonical"),
    [
        ("service_cidr", "10.96.0.1/12", "10.96.0.0/12"),
        ("management_cidr", "10.127.130.38/24", "10.127.130.0/24"),
        ("placeholder_cidr", "192.168.255.1/30", "192.168.255.0/30"),
    ],
)
def test_host_bits_in_every_range(key, value, canonical):
    rejects(plan(**{key: value}), f"{key} {value} has host bits set; did you mean {canonical}?")


def test_host_bits_in_an_extra_exception():
    rejects(
        plan(extra_exceptions=["172.16.0.0/12", "10.1.2.3/8"]),
        "extra_exceptions[1] 10.1.2.3/8 has host bits set; did you mean 10.0.0.0/8?",
    )


@pytest.mark.parametrize(("key", "value"), [("cluster_cidr", "fd00:10:244::/56"), ("service_cidr", "fd00:10:96::/112")])
def test_ipv6_only_is_refused_clearly(key, value):
    rejects(plan(**{key: value}), f"{key} {value} is IPv6 only; Kubernetes on Windows does not support IPv6-only "
                                  f"networking (kubernetes/website dual-stack.md")


def test_a_dual_stack_pair_on_flannel_is_refused_naming_why():
    rejects(
        plan(cluster_cidr="10.244.0.0/16,fd00:10:244::/56"),
        "cluster_cidr fd00:10:244::/56 makes the plan dual-stack, which l2bridge with flannel cannot "
        "run: flannel on Windows has no IPv6 path",
        "flannel-io/flannel pkg/backend/hostgw/hostgw_windows.go",
    )


def test_ipv6_dns_service_ip_is_refused_in_an_ipv4_plan():
    rejects(plan(dns_service_ip="fd00::a"), "dns_service_ip fd00::a is IPv6; dns_service_ip takes IPv4 only in an "
                                            "IPv4-only plan")


# ---------------------------------------------------------------------------------------------
# Service range and DNS
# ---------------------------------------------------------------------------------------------


def test_wincni_seed_service_range_is_refused_as_kube_apiserver_would():
    # The wincni example of the older source documents: service 11.0.0.0/8, cluster 10.10.0.0/16.
    wincni = {
        "topology": "l2bridge",
        "cluster_cidr": "10.10.0.0/16",
        "service_cidr": "11.0.0.0/8",
        "dns_service_ip": "11.0.0.10",
        "management_cidr": "10.127.132.128/25",
    }
    with pytest.raises(IPPlanError) as caught:
        normalize_plan(wincni)
    assert str(caught.value) == (
        "service_cidr 11.0.0.0/8 is too large: kube-apiserver refuses it "
        "(an IPv4 service range needs a mask of at least /12)"
    )


def test_service_range_of_exactly_slash_12_is_accepted_and_slash_11_is_not():
    assert normalize_plan(plan(service_cidr="10.96.0.0/12"))["service_cidr"] == "10.96.0.0/12"
    rejects(plan(service_cidr="10.96.0.0/11"), "service_cidr 10.96.0.0/11 is too large", "at least /12")


def test_dns_outside_service_range():
    rejects(plan(dns_service_ip="10.112.0.10"), "dns_service_ip 10.112.0.10 is outside service_cidr 10.96.0.0/12")


def test_dns_on_network_address():
    rejects(
        plan(dns_service_ip="10.96.0.0"), "dns_service_ip 10.96.0.0 is the network address of service_cidr 10.96.0.0/12"
    )


def test_dns_on_api_service_ip():
    rejects(
        plan(dns_service_ip="10.96.0.1"),
        "dns_service_ip 10.96.0.1 is the first host of service_cidr 10.96.0.0/12",
        "kubernetes API service",
    )


def test_dns_on_broadcast_address():
    rejects(
        plan(dns_service_ip="10.111.255.255"),
        "dns_service_ip 10.111.255.255 is the broadcast address of service_cidr 10.96.0.0/12",
    )


def test_dns_second_host_is_accepted():
    assert normalize_plan(plan(dns_service_ip="10.96.0.2"))["dns_service_ip"] == "10.96.0.2"


def test_malformed_dns_service_ip():
    rejects(plan(dns_service_ip="10.96.0.300"), "dns_service_ip '10.96.0.300' is not an IPv4 address")


# ---------------------------------------------------------------------------------------------
# Overlaps
# ---------------------------------------------------------------------------------------------


def test_cluster_inside_service_range():
    rejects(
        plan(cluster_cidr="10.100.0.0/16"),
        "cluster_cidr 10.100.0.0/16 overlaps service_cidr 10.96.0.0/12",
        "10.100.0.0/16 lies inside 10.96.0.0/12",
    )


def test_cluster_containing_service_range():
    rejects(
        plan(cluster_cidr="10.0.0.0/8", management_cidr="172.16.0.0/24"),
        "cluster_cidr 10.0.0.0/8 overlaps service_cidr 10.96.0.0/12",
        "10.0.0.0/8 contains 10.96.0.0/12",
    )


def test_cluster_equal_to_service_range():
    rejects(plan(cluster_cidr="10.96.0.0/12"), "10.96.0.0/12 is the same range as 10.96.0.0/12")


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"management_cidr": "10.244.5.0/24"}, "management_cidr 10.244.5.0/24 overlaps cluster_cidr 10.244.0.0/16"),
        ({"management_cidr": "10.0.0.0/8"}, "management_cidr 10.0.0.0/8 overlaps cluster_cidr 10.244.0.0/16"),
        ({"management_cidr": "10.97.0.0/24"}, "management_cidr 10.97.0.0/24 overlaps service_cidr 10.96.0.0/12"),
        (
            {"management_cidr": "10.64.0.0/10", "cluster_cidr": "172.16.0.0/16"},
            "management_cidr 10.64.0.0/10 overlaps service_cidr 10.96.0.0/12",
        ),
    ],
)
def test_management_overlapping_cluster_or_service(changes, fragment):
    rejects(plan(**changes), fragment)


# ---------------------------------------------------------------------------------------------
# Placeholder network
# ---------------------------------------------------------------------------------------------


def test_reference_scripts_overlay_sample_collides_with_the_placeholder():
    # Microsoft/SDN's overlay sample uses cluster 192.168.0.0/16 with the 192.168.255.0/30 placeholder.
    rejects(
        plan(topology="overlay", cluster_cidr="192.168.0.0/16"),
        "cluster_cidr 192.168.0.0/16 overlaps placeholder_cidr 192.168.255.0/30",
        "192.168.0.0/16 contains 192.168.255.0/30",
        "pre-create the vSwitch",
    )


def test_moving_the_placeholder_resolves_the_collision():
    normalized = normalize_plan(
        plan(topology="overlay", cluster_cidr="192.168.0.0/16", placeholder_cidr="172.31.255.0/30")
    )
    assert normalized["placeholder_cidr"] == "172.31.255.0/30"


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"management_cidr": "192.168.0.0/16"}, "management_cidr 192.168.0.0/16"),
        ({"service_cidr": "192.168.240.0/20"}, "service_cidr 192.168.240.0/20"),
        ({"extra_exceptions": ["192.168.255.2/31"]}, "extra_exceptions[0] 192.168.255.2/31"),
        ({"placeholder_cidr": "10.244.9.0/30"}, "cluster_cidr 10.244.0.0/16"),
    ],
)
def test_every_range_is_checked_against_the_placeholder(changes, key):
    rejects(plan(**changes), f"{key} overlaps placeholder_cidr")


def test_placeholder_needs_host_addresses():
    rejects(plan(placeholder_cidr="192.168.255.0/31"), "placeholder_cidr 192.168.255.0/31 is too small", "/30")


# ---------------------------------------------------------------------------------------------
# Node subnets and the sizing rule
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cluster_cidr", "node_prefix_length"), [("10.244.0.0/24", 24), ("10.244.0.0/16", 16), ("10.244.0.0/16", 12)]
)
def test_node_prefix_must_be_longer_than_cluster_prefix(cluster_cidr, node_prefix_length):
    rejects(
        plan(cluster_cidr=cluster_cidr, node_prefix_length=node_prefix_length),
        f"node_prefix_length /{node_prefix_length} is not longer than the prefix of cluster_cidr {cluster_cidr}",
    )


def test_node_subnet_fitting_exactly_passes():
    # A /25 has 128 addresses: 124 pods + network, bridge gateway, host endpoint, broadcast.
    assert normalize_plan(plan(node_prefix_length=25, max_pods=124))["max_pods"] == 124


def test_node_subnet_one_pod_too_many_fails():
    rejects(
        plan(node_prefix_length=25, max_pods=125),
        "node_prefix_length /25 gives each node 128 addresses, fewer than max_pods 125 plus 4",
        "= 129",
        "use /24 or shorter",
    )


def test_default_max_pods_does_not_fit_a_slash_26():
    rejects(
        plan(node_prefix_length=26),
        "gives each node 64 addresses, fewer than max_pods 110 plus 4",
        "= 114",
        "use /25 or shorter",
    )


def test_sizing_rule_exactly_fitting_passes():
    # 590 + 590 * 110 = 65490 <= 65536 addresses of a /16: the sizing rule passes, so the
    # node-subnet count (256 /24s) is what refuses it.
    message = rejects(
        plan(node_count=590), "cluster_cidr 10.244.0.0/16 holds 256 node subnets of /24, fewer than node_count 590"
    )
    assert "sizing rule" not in message


def test_sizing_rule_one_node_more_fails():
    rejects(
        plan(node_count=591),
        "cluster_cidr 10.244.0.0/16 has 65536 addresses, fewer than the sizing rule",
        "591 + 591 * 110 = 65601",
    )


def test_node_subnet_count_exactly_fitting_passes_and_one_more_fails():
    assert normalize_plan(plan(node_count=256))["node_count"] == 256
    rejects(plan(node_count=257), "holds 256 node subnets of /24, fewer than node_count 257")


def test_sizing_rule_with_small_subnets():
    # /26 node subnets in a /20: 64 subnets; sizing rule 64 + 64 * 60 = 3904 <= 4096.
    raw_plan = plan(cluster_cidr="10.244.0.0/20", node_prefix_length=26, max_pods=60)
    assert normalize_plan(plan(raw_plan, node_count=64))["node_count"] == 64
    rejects(plan(raw_plan, node_count=65), "fewer than node_count 65")


# ---------------------------------------------------------------------------------------------
# Overlay (flannel vxlan on Windows) and routing
# ---------------------------------------------------------------------------------------------


def test_overlay_vni_below_4096_is_refused():
    rejects(plan(topology="overlay", vxlan_vni=4095), "vxlan_vni 4095 is outside the overlay range 4096-16777215: "
            "flannel on Windows refuses a VNI below 4096")
    # Out of every VXLAN's range too: the message still gives the overlay's.
    rejects(plan(topology="overlay", vxlan_vni=0), "vxlan_vni 0 is outside the overlay range 4096-16777215")
    rejects(plan(topology="overlay", vxlan_vni=2**24), "vxlan_vni 16777216 is outside the overlay range 4096-16777215")


def test_overlay_vni_from_kubespray_defaults_is_refused():
    rejects(plan(topology="overlay", vxlan_vni=1, vxlan_port=8472), "vxlan_vni 1 is outside the overlay range 4096-")


def test_overlay_port_other_than_4789_is_refused():
    rejects(
        plan(topology="overlay", vxlan_port=8472),
        "vxlan_port 8472 is not 4789: flannel on Windows only accepts UDP port 4789",
    )


def test_vxlan_settings_are_not_windows_checked_for_l2bridge():
    assert normalize_plan(plan(vxlan_vni=1, vxlan_port=8472))["vxlan_vni"] == 1


def test_unknown_routing():
    rejects(plan(l2bridge_routing="bgp"), "l2bridge_routing must be one of flannel, static_routes, upstream; got 'bgp'")


@pytest.mark.parametrize("routing", ["static_routes", "upstream"])
def test_overlay_only_routes_through_flannel(routing):
    rejects(
        plan(topology="overlay", l2bridge_routing=routing),
        f"l2bridge_routing {routing} does not apply to the overlay topology",
    )


def test_overlay_accepts_explicit_flannel_routing():
    assert normalize_plan(plan(topology="overlay", l2bridge_routing="flannel"))["l2bridge_routing"] == "flannel"


def test_ovn_takes_no_routing():
    rejects(
        plan(topology="ovn", l2bridge_routing="flannel"), "l2bridge_routing flannel does not apply to the ovn topology"
    )


def test_ovn_takes_no_network_name():
    rejects(plan(topology="ovn", network_name="external"), "network_name 'external' does not apply to the ovn topology")


# ---------------------------------------------------------------------------------------------
# Nodes
# ---------------------------------------------------------------------------------------------


def test_nodes_are_normalized_and_counted():
    normalized = normalize_plan(plan(STATIC_SEED_004, nodes=three_nodes()))
    assert normalized["node_count"] == 3
    assert normalized["nodes"][0] == {"name": "win-c", "management_ip": "10.127.130.13", "pod_cidr": "10.244.3.0/24"}


def test_flannel_nodes_have_no_pod_cidr():
    nodes = [{"name": "win-a", "management_ip": "10.127.130.11"}]
    assert normalize_plan(plan(nodes=nodes))["nodes"] == [
        {"name": "win-a", "management_ip": "10.127.130.11", "pod_cidr": None}
    ]


def test_flannel_nodes_must_not_fix_a_pod_cidr():
    rejects(
        plan(nodes=three_nodes()),
        "nodes[0] (win-c) pod_cidr 10.244.3.0/24 must not be given",
        "flannel leases each node's pod CIDR itself",
    )


@pytest.mark.parametrize(
    ("changes", "what"),
    [
        ({"topology": "ovn"}, "the ovn topology"),
        ({"l2bridge_routing": "upstream"}, "l2bridge with l2bridge_routing upstream"),
    ],
)
def test_pod_cidrs_required_without_flannel(changes, what):
    nodes = [{"name": "win-a", "management_ip": "10.127.130.11"}]
    rejects(plan(nodes=nodes, **changes), f"nodes[0] (win-a) pod_cidr is required for {what}")


def test_node_count_smaller_than_nodes():
    rejects(
        plan(STATIC_SEED_004, nodes=three_nodes(), node_count=2), "node_count 2 is smaller than the 3 entries in nodes"
    )


def test_nodes_count_towards_the_subnet_count():
    nodes = [
        {"name": f"n{i}", "management_ip": f"10.127.130.{i + 1}", "pod_cidr": f"10.244.{i}.0/24"} for i in range(5)
    ]
    rejects(
        plan(
            STATIC_SEED_004, cluster_cidr="10.244.0.0/22", nodes=nodes[:4] + [dict(nodes[4], pod_cidr="10.244.3.0/24")]
        ),
        "holds 4 node subnets of /24, fewer than node_count 5",
    )


def test_duplicate_node_names():
    nodes = three_nodes()
    nodes[2]["name"] = "win-c"
    rejects(plan(STATIC_SEED_004, nodes=nodes), "nodes: name 'win-c' appears twice (nodes[0] and nodes[2])")


def test_duplicate_management_ips():
    nodes = three_nodes()
    nodes[2]["management_ip"] = "10.127.130.13"
    rejects(
        plan(STATIC_SEED_004, nodes=nodes), "nodes: management_ip 10.127.130.13 is used by both 'win-c' and 'win-b'"
    )


def test_overlapping_pod_cidrs_are_found_wherever_they_are_listed():
    nodes = [
        {"name": f"n{i}", "management_ip": f"10.127.130.{i + 1}", "pod_cidr": f"10.244.{i}.0/24"} for i in range(40)
    ]
    nodes[31]["pod_cidr"] = "10.244.7.0/24"
    rejects(
        plan(STATIC_SEED_004, nodes=nodes), "nodes: pod_cidr 10.244.7.0/24 of", "overlaps pod_cidr 10.244.7.0/24 of"
    )


@pytest.mark.parametrize(
    ("pod_cidr", "fragment"),
    [
        ("10.245.1.0/24", "pod_cidr 10.245.1.0/24 is outside cluster_cidr 10.244.0.0/16"),
        ("10.244.1.0/25", "pod_cidr 10.244.1.0/25 is a /25, but node_prefix_length is /24"),
        ("10.244.0.0/23", "pod_cidr 10.244.0.0/23 is a /23, but node_prefix_length is /24"),
        ("10.244.1.5/24", "pod_cidr 10.244.1.5/24 has host bits set; did you mean 10.244.1.0/24?"),
    ],
)
def test_pod_cidr_rules(pod_cidr, fragment):
    nodes = three_nodes()
    nodes[1]["pod_cidr"] = pod_cidr
    rejects(plan(STATIC_SEED_004, nodes=nodes), f"nodes[1] (win-a) {fragment}")


@pytest.mark.parametrize(
    ("address", "fragment"),
    [
        ("10.127.131.5", "management_ip 10.127.131.5 is outside management_cidr 10.127.130.0/24"),
        ("10.127.130.0", "management_ip 10.127.130.0 is not a host address of management_cidr 10.127.130.0/24"),
        ("10.127.130.255", "management_ip 10.127.130.255 is not a host address"),
        ("win-a.example", "management_ip 'win-a.example' is not an IPv4 address"),
    ],
)
def test_management_ip_rules(address, fragment):
    nodes = three_nodes()
    nodes[0]["management_ip"] = address
    rejects(plan(STATIC_SEED_004, nodes=nodes), f"nodes[0] (win-c) {fragment}")


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        ({"name": "", "management_ip": "10.127.130.11"}, "nodes[0] needs a name (a non-empty string), got ''"),
        ({"management_ip": "10.127.130.11"}, "nodes[0] needs a name"),
        ({"name": "win-a"}, "nodes[0] (win-a) needs a management_ip"),
        (
            {"name": "win-a", "management_ip": "10.127.130.11", "podCIDR": "10.244.1.0/24"},
            "nodes[0] has unknown key(s) podCIDR",
        ),
        ("win-a", "nodes[0] must be a dictionary"),
    ],
)
def test_node_entry_shape(entry, fragment):
    rejects(plan(nodes=[entry]), fragment)


def test_nodes_must_be_a_list():
    rejects(plan(nodes={"win-a": {}}), "nodes must be a list")


# ---------------------------------------------------------------------------------------------
# ExceptionList
# ---------------------------------------------------------------------------------------------


def test_seed_004_exception_list():
    assert exception_list(SEED_004, "l2bridge") == ["10.244.0.0/16", "10.96.0.0/12", "10.127.130.0/24"]


def test_overlay_exception_list_leaves_out_the_management_range():
    assert exception_list(plan(topology="overlay")) == ["10.244.0.0/16", "10.96.0.0/12"]


def test_extras_come_last_deduplicated_in_order_of_first_appearance():
    extras = ["10.244.0.0/16", "172.16.0.0/12", "172.16.5.0/24", "192.168.10.0/24", "10.0.0.0/8"]
    # 10.0.0.0/8 swallows cluster, service and management; 172.16.5.0/24 lies inside 172.16.0.0/12.
    assert exception_list(plan(extra_exceptions=extras)) == ["172.16.0.0/12", "192.168.10.0/24", "10.0.0.0/8"]


def test_overlay_extras():
    assert exception_list(plan(topology="overlay", extra_exceptions=["10.127.0.0/16"])) == [
        "10.244.0.0/16",
        "10.96.0.0/12",
        "10.127.0.0/16",
    ]


@pytest.mark.parametrize(
    ("ranges", "kept"),
    [
        (["10.240.0.0/12", "10.0.0.0/8"], ["10.0.0.0/8"]),
        (["10.0.0.0/8", "10.0.0.0/16"], ["10.0.0.0/8"]),
        (["10.0.0.0/16", "10.240.0.0/12", "10.0.0.0/8"], ["10.0.0.0/8"]),
        (["10.1.0.0/16", "10.1.0.0/16", "10.2.0.0/16"], ["10.1.0.0/16", "10.2.0.0/16"]),
        (["10.2.0.0/16", "10.1.0.0/16"], ["10.2.0.0/16", "10.1.0.0/16"]),
        ([], []),
    ],
)
def test_nested_and_equal_ranges_are_dropped(ranges, kept):
    networks = [netaddr.IPNetwork(text) for text in ranges]
    assert [str(network) for network in _ip_plan._without_nested_ranges(networks)] == kept


def test_ovn_has_no_exception_list():
    with pytest.raises(IPPlanError, match="the ovn topology has no OutBoundNAT ExceptionList"):
        exception_list(plan(topology="ovn"), "ovn")


def test_exception_list_topology_must_match_the_plan():
    with pytest.raises(IPPlanError, match="topology argument 'overlay' does not match the plan's topology 'l2bridge'"):
        exception_list(SEED_004, "overlay")


def test_exception_list_topology_must_be_known():
    with pytest.raises(IPPlanError, match="topology must be one of l2bridge, overlay, ovn, calico; got 'L2Bridge'"):
        exception_list(SEED_004, "L2Bridge")


# ---------------------------------------------------------------------------------------------
# Pod gateways
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod_cidr", "bridge", "endpoint"),
    [
        ("10.244.3.0/24", "10.244.3.1", "10.244.3.2"),
        ("10.10.187.64/26", "10.10.187.65", "10.10.187.66"),
        ("10.20.0.0/16", "10.20.0.1", "10.20.0.2"),
        ("10.0.0.252/30", "10.0.0.253", "10.0.0.254"),
        ("10.0.2.0/23", "10.0.2.1", "10.0.2.2"),
    ],
)
def test_pod_gateways(pod_cidr, bridge, endpoint):
    assert pod_gateways(pod_cidr) == {"bridge_gateway": bridge, "endpoint_gateway": endpoint}


@pytest.mark.parametrize("pod_cidr", ["10.0.0.0/31", "10.0.0.1/32"])
def test_pod_gateways_need_a_slash_30(pod_cidr):
    with pytest.raises(IPPlanError, match=re.escape(f"pod_cidr {pod_cidr} has no room") + ".*at least a /30"):
        pod_gateways(pod_cidr)


def test_pod_gateways_host_bits():
    with pytest.raises(
        IPPlanError, match=re.escape("pod_cidr 10.10.187.65/26 has host bits set; did you mean 10.10.187.64/26?")
    ):
        pod_gateways("10.10.187.65/26")


def test_pod_gateways_of_an_ipv6_pod_subnet():
    # The same layout as IPv4: bridge gateway network + 1, host endpoint network + 2.
    assert pod_gateways("fd00:10:244:10::/64") == {"bridge_gateway": "fd00:10:244:10::1",
                                                   "endpoint_gateway": "fd00:10:244:10::2"}


# ---------------------------------------------------------------------------------------------
# CNI configs
# ---------------------------------------------------------------------------------------------


def golden(name):
    return json.loads((CNI_GOLDEN_DIR / f"{name}.json").read_text(encoding="utf-8"))


CNI_VARIANTS = [
    ("l2bridge_docker", SEED_004, "l2bridge", "docker", SEED_004_MANAGEMENT_IP, None),
    ("l2bridge_containerd", SEED_004, "l2bridge", "containerd", SEED_004_MANAGEMENT_IP, None),
    ("overlay_docker", plan(topology="overlay"), "overlay", "docker", SEED_004_MANAGEMENT_IP, None),
    ("overlay_containerd", plan(topology="overlay"), "overlay", "containerd", SEED_004_MANAGEMENT_IP, None),
    ("l2bridge_static_docker", WINCNI_STATIC, "l2bridge", "docker", WINCNI_MANAGEMENT_IP, WINCNI_POD_CIDR),
    ("l2bridge_static_containerd", WINCNI_STATIC, "l2bridge", "containerd", WINCNI_MANAGEMENT_IP, WINCNI_POD_CIDR),
    ("ovn", plan(topology="ovn"), "ovn", "docker", SEED_004_MANAGEMENT_IP, "10.244.3.0/24"),
    ("ovn", plan(topology="ovn"), "ovn", "containerd", SEED_004_MANAGEMENT_IP, "10.244.3.0/24"),
]


@pytest.mark.parametrize(("name", "raw_plan", "topology", "runtime", "management_ip", "pod_cidr"), CNI_VARIANTS)
def test_cni_config_matches_golden(name, raw_plan, topology, runtime, management_ip, pod_cidr):
    config = cni_config(raw_plan, topology, runtime, management_ip, pod_cidr)
    assert config == golden(name)
    assert json.loads(json.dumps(config)) == config


@pytest.mark.parametrize(("name", "raw_plan", "topology", "runtime", "management_ip", "pod_cidr"), CNI_VARIANTS)
def test_cni_config_from_a_normalized_plan_is_the_same(name, raw_plan, topology, runtime, management_ip, pod_cidr):
    assert cni_config(normalize_plan(raw_plan), topology, runtime, management_ip, pod_cidr) == golden(name)


@pytest.mark.parametrize(
    ("topology", "runtime"),
    [("l2bridge", "docker"), ("l2bridge", "containerd"), ("overlay", "docker"), ("overlay", "containerd")],
)
def test_flannel_delegate_carries_no_name_or_ipam(topology, runtime):
    config = cni_config(plan(topology=topology), topology, runtime, SEED_004_MANAGEMENT_IP)
    assert config["type"] == "flannel"
    assert config["name"] == {"l2bridge": "cbr0", "overlay": "flannel.4096"}[topology]
    assert "name" not in config["delegate"] and "ipam" not in config["delegate"]


def test_l2bridge_docker_config_is_the_reference_scripts_config():
    # TV1: what Microsoft/SDN's Update-CNIConfig writes for the seed 004 plan.
    reference = {
        "cniVersion": "0.2.0",
        "name": "cbr0",
        "type": "flannel",
        "delegate": {
            "type": "win-bridge",
            "dns": {"Nameservers": ["10.96.0.10"], "Search": ["svc.cluster.local"]},
            "policies": [
                {
                    "Name": "EndpointPolicy",
                    "Value": {
                        "Type": "OutBoundNAT",
                        "ExceptionList": ["10.244.0.0/16", "10.96.0.0/12", "10.127.130.0/24"],
                    },
                },
                {
                    "Name": "EndpointPolicy",
                    "Value": {"Type": "ROUTE", "DestinationPrefix": "10.96.0.0/12", "NeedEncap": True},
                },
                {
                    "Name": "EndpointPolicy",
                    "Value": {"Type": "ROUTE", "DestinationPrefix": "10.127.130.38/32", "NeedEncap": True},
                },
            ],
        },
    }
    assert cni_config(SEED_004, "l2bridge", "docker", "10.127.130.38") == reference


def test_static_gateway_route_is_the_wincni_host_endpoint():
    # Seed 002: pod CIDR 10.10.187.64/26, "gateway of cbr0 (10.10.187.66)"; string surgery would say .2.
    config = cni_config(WINCNI_STATIC, "l2bridge", "docker", WINCNI_MANAGEMENT_IP, WINCNI_POD_CIDR)
    assert config["ipam"]["routes"] == [{"dst": "0.0.0.0/0", "gw": "10.10.187.66"}]


def test_config_carries_extras_and_cluster_domain():
    raw_plan = plan(extra_exceptions=["172.16.0.0/12"], cluster_domain="corp.example")
    config = cni_config(raw_plan, "l2bridge", "docker", SEED_004_MANAGEMENT_IP)
    assert config["delegate"]["dns"]["Search"] == ["svc.corp.example"]
    assert config["delegate"]["policies"][0]["Value"]["ExceptionList"] == [
        "10.244.0.0/16",
        "10.96.0.0/12",
        "10.127.130.0/24",
        "172.16.0.0/12",
    ]


def test_custom_network_name_names_the_config():
    assert (
        cni_config(plan(topology="overlay", network_name="vxlan0"), "overlay", "docker", SEED_004_MANAGEMENT_IP)["name"]
        == "vxlan0"
    )


def test_changing_a_returned_config_does_not_leak_into_the_next():
    first = cni_config(SEED_004, "l2bridge", "containerd", SEED_004_MANAGEMENT_IP)
    first["delegate"]["AdditionalArgs"][0]["Value"]["Settings"]["Exceptions"].append("0.0.0.0/0")
    assert cni_config(SEED_004, "l2bridge", "containerd", SEED_004_MANAGEMENT_IP) == golden("l2bridge_containerd")


@pytest.mark.parametrize("runtime", ["cri-o", "Docker", None])
def test_cni_config_unknown_runtime(runtime):
    with pytest.raises(IPPlanError, match=re.escape(f"runtime must be one of containerd, docker; got {runtime!r}")):
        cni_config(SEED_004, "l2bridge", runtime, SEED_004_MANAGEMENT_IP)


def test_cni_config_topology_must_match_the_plan():
    with pytest.raises(IPPlanError, match="topology argument 'overlay' does not match the plan's topology 'l2bridge'"):
        cni_config(SEED_004, "overlay", "docker", SEED_004_MANAGEMENT_IP)


def test_cni_config_management_ip_outside_management_range():
    with pytest.raises(
        IPPlanError, match=re.escape("management_ip 10.0.0.5 is outside management_cidr 10.127.130.0/24")
    ):
        cni_config(SEED_004, "l2bridge", "docker", "10.0.0.5")


@pytest.mark.parametrize("topology", ["l2bridge", "overlay"])
def test_cni_config_refuses_a_pod_cidr_under_flannel(topology):
    with pytest.raises(
        IPPlanError,
        match=re.escape("pod_cidr 10.244.3.0/24 must not be given") + ".*flannel leases each node's pod CIDR itself",
    ):
        cni_config(plan(topology=topology), topology, "docker", SEED_004_MANAGEMENT_IP, "10.244.3.0/24")


@pytest.mark.parametrize(
    ("raw_plan", "topology", "what"),
    [
        (WINCNI_STATIC, "l2bridge", "l2bridge with l2bridge_routing static_routes"),
        (plan(topology="ovn"), "ovn", "the ovn topology"),
    ],
)
def test_cni_config_needs_a_pod_cidr_without_flannel(raw_plan, topology, what):
    with pytest.raises(IPPlanError, match=re.escape(f"pod_cidr is required for {what}")):
        cni_config(
            raw_plan, topology, "docker", WINCNI_MANAGEMENT_IP if topology == "l2bridge" else SEED_004_MANAGEMENT_IP
        )


def test_cni_config_pod_cidr_must_be_a_node_subnet():
    with pytest.raises(IPPlanError, match=re.escape("pod_cidr 10.10.187.0/24 is a /24, but node_prefix_length is /26")):
        cni_config(WINCNI_STATIC, "l2bridge", "docker", WINCNI_MANAGEMENT_IP, "10.10.187.0/24")


def test_force_bridge_gateway_is_refused_for_subnets_smaller_than_slash_24():
    small_subnets = plan(node_prefix_length=25, max_pods=100)
    with pytest.raises(
        IPPlanError,
        match=re.escape("l2bridge with flannel on containerd needs node_prefix_length /24 or shorter, got /25"),
    ):
        cni_config(small_subnets, "l2bridge", "containerd", SEED_004_MANAGEMENT_IP)
    # win-bridge adds 2 to the network address, so Docker is fine with the same plan.
    assert cni_config(small_subnets, "l2bridge", "docker", SEED_004_MANAGEMENT_IP)["delegate"]["type"] == "win-bridge"


def test_invalid_plan_fails_cni_config_too():
    with pytest.raises(IPPlanError, match="service_cidr 11.0.0.0/8 is too large"):
        cni_config(plan(service_cidr="11.0.0.0/8"), "l2bridge", "docker", SEED_004_MANAGEMENT_IP)


# ---------------------------------------------------------------------------------------------
# flannel net-conf
# ---------------------------------------------------------------------------------------------


def test_flannel_net_conf_vxlan():
    assert flannel_net_conf(plan(topology="overlay")) == {
        "Network": "10.244.0.0/16",
        "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789, "Name": "flannel.4096"},
    }


def test_flannel_net_conf_vxlan_with_another_vni():
    assert flannel_net_conf(plan(topology="overlay", vxlan_vni="4100"))["Backend"] == {
        "Type": "vxlan",
        "VNI": 4100,
        "Port": 4789,
        "Name": "flannel.4100",
    }


def test_flannel_net_conf_host_gw():
    assert flannel_net_conf(SEED_004) == {"Network": "10.244.0.0/16", "Backend": {"Type": "host-gw", "Name": "cbr0"}}


@pytest.mark.parametrize(
    ("raw_plan", "what"),
    [(plan(topology="ovn"), "the ovn topology"), (WINCNI_STATIC, "l2bridge with l2bridge_routing static_routes")],
)
def test_flannel_net_conf_without_flannel(raw_plan, what):
    with pytest.raises(IPPlanError, match=re.escape(f"{what} does not run flannel, so it has no flannel net-conf")):
        flannel_net_conf(raw_plan)


# ---------------------------------------------------------------------------------------------
# Static routes
# ---------------------------------------------------------------------------------------------


def test_static_routes_for_three_nodes():
    assert static_routes(STATIC_SEED_004, three_nodes()) == {
        "win-a": [
            {"destination": "10.244.2.0/24", "next_hop": "10.127.130.12", "via_node": "win-b"},
            {"destination": "10.244.3.0/24", "next_hop": "10.127.130.13", "via_node": "win-c"},
        ],
        "win-b": [
            {"destination": "10.244.1.0/24", "next_hop": "10.127.130.11", "via_node": "win-a"},
            {"destination": "10.244.3.0/24", "next_hop": "10.127.130.13", "via_node": "win-c"},
        ],
        "win-c": [
            {"destination": "10.244.1.0/24", "next_hop": "10.127.130.11", "via_node": "win-a"},
            {"destination": "10.244.2.0/24", "next_hop": "10.127.130.12", "via_node": "win-b"},
        ],
    }


def test_static_routes_order_does_not_depend_on_input_order():
    routes = static_routes(STATIC_SEED_004, three_nodes())
    reordered = static_routes(STATIC_SEED_004, list(reversed(three_nodes())))
    assert list(routes) == list(reordered) == ["win-a", "win-b", "win-c"]
    assert routes == reordered


def test_static_routes_from_the_plan_nodes_and_for_upstream_routing():
    raw_plan = plan(l2bridge_routing="upstream", nodes=three_nodes())
    assert static_routes(raw_plan) == static_routes(STATIC_SEED_004, three_nodes())
    assert static_routes(normalize_plan(raw_plan), three_nodes()) == static_routes(raw_plan)


def test_static_routes_nodes_in_two_places_must_agree():
    other = three_nodes()[:2]
    with pytest.raises(IPPlanError, match="differs from the plan's nodes"):
        static_routes(plan(STATIC_SEED_004, nodes=three_nodes()), other)


def test_static_routes_need_nodes():
    with pytest.raises(IPPlanError, match="static_routes needs the node list"):
        static_routes(STATIC_SEED_004)


@pytest.mark.parametrize(
    ("raw_plan", "what"),
    [
        (SEED_004, "l2bridge with l2bridge_routing flannel"),
        (plan(topology="overlay"), "the overlay topology"),
        (plan(topology="ovn"), "the ovn topology"),
    ],
)
def test_static_routes_only_for_l2bridge_without_flannel(raw_plan, what):
    with pytest.raises(IPPlanError, match=re.escape(f"{what} programs its routes itself")):
        static_routes(raw_plan, [{"name": "win-a", "management_ip": "10.127.130.11"}])


def _broken_nodes(field, index, value):
    nodes = three_nodes()
    if value is None:
        del nodes[index][field]
    else:
        nodes[index][field] = value
    return nodes


@pytest.mark.parametrize(
    ("field", "index", "value", "fragment"),
    [
        ("name", 2, "win-c", "name 'win-c' appears twice"),
        ("management_ip", 2, "10.127.130.13", "management_ip 10.127.130.13 is used by both 'win-c' and 'win-b'"),
        ("pod_cidr", 2, "10.244.3.0/24", "pod_cidr 10.244.3.0/24 of"),
        (
            "pod_cidr",
            1,
            "10.250.1.0/24",
            "nodes[1] (win-a) pod_cidr 10.250.1.0/24 is outside cluster_cidr 10.244.0.0/16",
        ),
        (
            "pod_cidr",
            1,
            "10.244.1.0/26",
            "nodes[1] (win-a) pod_cidr 10.244.1.0/26 is a /26, but node_prefix_length is /24",
        ),
        ("pod_cidr", 1, None, "nodes[1] (win-a) pod_cidr is required for l2bridge with l2bridge_routing static_routes"),
    ],
)
def test_static_routes_rejections(field, index, value, fragment):
    with pytest.raises(IPPlanError) as caught:
        static_routes(STATIC_SEED_004, _broken_nodes(field, index, value))
    assert_message(caught.value, fragment)


# ---------------------------------------------------------------------------------------------
# Without netaddr
# ---------------------------------------------------------------------------------------------


def test_module_imports_without_netaddr():
    # The module must load so the filter can report the missing library when it is used.
    script = (
        "import importlib.util, sys\n"
        "sys.modules['netaddr'] = None\n"
        f"spec = importlib.util.spec_from_file_location('ip_plan_without_netaddr', {str(Path(_ip_plan.__file__))!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules[spec.name] = module\n"
        "spec.loader.exec_module(module)\n"
        "print(module.HAS_NETADDR, isinstance(module.NETADDR_IMPORT_ERROR, ImportError))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "True"]


# ---------------------------------------------------------------------------------------------
# Dual-stack (l2bridge without flannel, containerd): one range per family in each range key
# ---------------------------------------------------------------------------------------------

DUAL_STACK = {
    "topology": "l2bridge",
    "l2bridge_routing": "static_routes",
    "cluster_cidr": "10.244.0.0/16,fd00:10:244::/56",
    "service_cidr": ["10.96.0.0/12", "fd00:10:96::/112"],
    "management_cidr": "10.127.130.0/24, fd00:127:130::/64",
}
DUAL_NODES = [
    {"name": "win-1", "management_ip": "10.127.130.41,fd00:127:130::41", "pod_cidr": ["10.244.10.0/24", "fd00:10:244:10::/64"]},
    {"name": "win-2", "management_ip": ["10.127.130.42", "fd00:127:130::42"], "pod_cidr": "10.244.11.0/24,fd00:10:244:11::/64"},
]


def dual(**changes):
    return plan(DUAL_STACK, **changes)


def test_a_dual_stack_plan_normalizes_to_kubernetes_comma_form_and_back():
    normalized = normalize_plan(dual(nodes=copy.deepcopy(DUAL_NODES)))
    assert (normalized["cluster_cidr"], normalized["service_cidr"], normalized["management_cidr"]) == (
        "10.244.0.0/16,fd00:10:244::/56", "10.96.0.0/12,fd00:10:96::/112", "10.127.130.0/24,fd00:127:130::/64")
    # kube-controller-manager's default IPv6 node mask; the DNS address stays the IPv4 range's tenth.
    assert normalized["node_prefix_length_ipv6"] == 64 and normalized["dns_service_ip"] == "10.96.0.10"
    assert normalized["nodes"][1] == {"name": "win-2", "management_ip": "10.127.130.42,fd00:127:130::42",
                                      "pod_cidr": "10.244.11.0/24,fd00:10:244:11::/64"}
    assert normalize_plan(normalized) == normalized


def test_the_ipv6_range_may_come_first_and_in_capitals():
    normalized = normalize_plan(dual(cluster_cidr=["FD00:10:244::/56", "10.244.0.0/16"]))
    assert normalized["cluster_cidr"] == "10.244.0.0/16,fd00:10:244::/56"


@pytest.mark.parametrize(("changes", "fragments"), [
    ({"topology": "overlay", "l2bridge_routing": None},
     ["makes the plan dual-stack, which overlay networks cannot run", "Overlay (VXLAN) networks on Windows do not "
      "support dual-stack", "microsoft/Windows-Containers#82"]),
    ({"topology": "ovn", "l2bridge_routing": None}, ["which ovn networks cannot run"]),
    ({"l2bridge_routing": "flannel"}, ["which l2bridge with flannel cannot run"]),
    ({"service_cidr": "10.96.0.0/12"}, ["cluster_cidr fd00:10:244::/56, management_cidr fd00:127:130::/64 are IPv6, "
                                        "but service_cidr has no IPv6 range"]),
    ({"management_cidr": "10.127.130.0/24"}, ["but management_cidr has no IPv6 range"]),
    ({"cluster_cidr": "10.244.0.0/16,10.245.0.0/16"}, ["cluster_cidr gives two IPv4 ranges (10.244.0.0/16 and "
                                                       "10.245.0.0/16); it takes one per IP family"]),
    ({"cluster_cidr": ["10.244.0.0/16", "fd00:10:244::/56", "fd01::/56"]}, ["cluster_cidr lists 3 values"]),
    ({"cluster_cidr": "10.244.0.0/16,fd00:10:244::1/56"}, ["cluster_cidr[1] fd00:10:244::1/56 has host bits set; did "
                                                           "you mean fd00:10:244::/56?"]),
    ({"cluster_cidr": "10.244.0.0/16,fd00:10:244::/129"}, ["cluster_cidr[1] 'fd00:10:244::/129' is not an IPv6 CIDR"]),
    ({"service_cidr": "10.96.0.0/12,fd00:10:96::/64"}, ["service_cidr fd00:10:96::/64 is too large: kube-apiserver "
                                                        "refuses it (an IPv6 service range needs a mask of at least /108)"]),
    ({"service_cidr": "10.96.0.0/12,fd00:10:244:1::/112"}, ["cluster_cidr fd00:10:244::/56 overlaps service_cidr "
                                                            "fd00:10:244:1::/112"]),
    ({"node_prefix_length_ipv6": 56}, ["node_prefix_length_ipv6 /56 is shorter than /64"]),
    ({"cluster_cidr": "10.244.0.0/16,fd00:20::/32"}, ["node_prefix_length_ipv6 /64 is more than 16 bits longer than "
                                                      "cluster_cidr fd00:20::/32", "clusterSubnetMaxDiff",
                                                      "an IPv6 cluster range of /48 or larger"]),
    ({"cluster_cidr": "10.244.0.0/16,fd00:10:244::/112", "node_prefix_length_ipv6": 122},
     ["node_prefix_length_ipv6 /122 gives each node 64 addresses, fewer than max_pods 110 plus 4", "use /121 or shorter"]),
    ({"dns_service_ip": "fd00:10:96::1"}, ["dns_service_ip fd00:10:96::1 is the first host of service_cidr "
                                           "fd00:10:96::/112"]),
    ({"dns_service_ip": "fd00:10:97::a"}, ["dns_service_ip fd00:10:97::a is outside service_cidr fd00:10:96::/112"]),
])
def test_dual_stack_rules(changes, fragments):
    rejects(dual(**changes), *fragments)


def test_node_prefix_length_ipv6_belongs_to_dual_stack_plans():
    rejects(plan(node_prefix_length_ipv6=64), "node_prefix_length_ipv6 64 applies to a dual-stack plan only")


def test_an_ipv6_dns_service_ip_of_the_ipv6_service_range_is_taken():
    assert normalize_plan(dual(dns_service_ip="fd00:10:96::a"))["dns_service_ip"] == "fd00:10:96::a"


@pytest.mark.parametrize(("node", "fragment"), [
    ({"management_ip": "10.127.130.41"}, "win-1) management_ip 10.127.130.41 has no IPv6 address: in a dual-stack plan "
                                         "each node gives one per family, such as [10.127.130.41, fd00:127:130::29]"),
    ({"management_ip": "10.127.130.41,fd00:127:131::41"}, "management_ip fd00:127:131::41 is outside management_cidr "
                                                          "fd00:127:130::/64"),
    ({"pod_cidr": "10.244.10.0/24"}, "pod_cidr 10.244.10.0/24 has no IPv6 range"),
    ({"pod_cidr": "10.244.10.0/24,fd00:10:244:10::/80"}, "pod_cidr fd00:10:244:10::/80 is a /80, but "
                                                         "node_prefix_length_ipv6 is /64"),
    ({"pod_cidr": "10.244.10.0/24,fd00:10:245::/64"}, "pod_cidr fd00:10:245::/64 is outside cluster_cidr "
                                                      "fd00:10:244::/56"),
])
def test_each_dual_stack_node_gives_both_families(node, fragment):
    nodes = copy.deepcopy(DUAL_NODES)
    nodes[0].update(node)
    rejects(dual(nodes=nodes), fragment)


def test_ipv6_on_a_node_of_an_ipv4_plan_is_refused():
    rejects(plan(WINCNI_STATIC, nodes=[{"name": "a", "management_ip": "10.127.132.213,fd00::1",
                                        "pod_cidr": WINCNI_POD_CIDR}]),
            "management_ip fd00::1 is IPv6, but the plan is IPv4-only")


def test_dual_stack_nodes_share_no_ipv6_address_or_subnet():
    nodes = copy.deepcopy(DUAL_NODES)
    nodes[1]["management_ip"] = "10.127.130.42,fd00:127:130::41"
    rejects(dual(nodes=nodes), "management_ip fd00:127:130::41 is used by both 'win-1' and 'win-2'")
    nodes = copy.deepcopy(DUAL_NODES)
    nodes[1]["pod_cidr"] = "10.244.11.0/24,fd00:10:244:10::/64"
    rejects(dual(nodes=nodes), "pod_cidr fd00:10:244:10::/64 of 'win-2' overlaps pod_cidr fd00:10:244:10::/64 of 'win-1'")


def test_each_family_has_its_exception_list_and_extra_exceptions_join_their_family():
    settings = plan_settings(dual(extra_exceptions=["fd00:aaaa::/48", "172.16.0.0/12"]))
    assert settings.exceptions == ("10.244.0.0/16", "10.96.0.0/12", "10.127.130.0/24", "172.16.0.0/12")
    assert settings.ipv6.exceptions == ("fd00:10:244::/56", "fd00:10:96::/112", "fd00:127:130::/64", "fd00:aaaa::/48")
    assert exception_list(dual()) == ["10.244.0.0/16", "10.96.0.0/12", "10.127.130.0/24", "fd00:10:244::/56",
                                      "fd00:10:96::/112", "fd00:127:130::/64"]
    rejects(plan(extra_exceptions=["fd00:aaaa::/48"]), "extra_exceptions[0] fd00:aaaa::/48 is IPv6; extra_exceptions[0] "
                                                       "takes IPv4 only in an IPv4-only plan")


def test_static_routes_go_to_each_peer_per_family():
    routes = static_routes(dual(nodes=copy.deepcopy(DUAL_NODES)))
    assert routes["win-1"] == [
        {"destination": "10.244.11.0/24", "next_hop": "10.127.130.42", "via_node": "win-2"},
        {"destination": "fd00:10:244:11::/64", "next_hop": "fd00:127:130::42", "via_node": "win-2"},
    ]


def test_the_dual_stack_cni_config_is_sdnbridges_dual_stack_mode():
    config = cni_config(dual(), "l2bridge", "containerd", "10.127.130.41,fd00:127:130::41",
                        "10.244.10.0/24,fd00:10:244:10::/64")
    assert config["type"] == "sdnbridge" and config["optionalFlags"] == {"enableDualStack": True}
    assert config["ipam"] == {
        "type": "host-local",
        "ranges": [[{"subnet": "10.244.10.0/24", "rangeStart": "10.244.10.3", "gateway": "10.244.10.2"}],
                   [{"subnet": "fd00:10:244:10::/64", "rangeStart": "fd00:10:244:10::3", "gateway": "fd00:10:244:10::2"}]],
        "routes": [{"dst": "0.0.0.0/0", "gw": "10.244.10.2"}, {"dst": "::/0", "gw": "fd00:10:244:10::2"}],
    }
    policies = [(p["Value"]["Type"], p["Value"]["Settings"]) for p in config["AdditionalArgs"]]
    assert policies == [
        ("OutBoundNAT", {"Exceptions": ["10.244.0.0/16", "10.96.0.0/12", "10.127.130.0/24"]}),
        ("OutBoundNAT", {"Exceptions": ["fd00:10:244::/56", "fd00:10:96::/112", "fd00:127:130::/64"]}),
        ("SDNRoute", {"DestinationPrefix": "10.96.0.0/12", "NeedEncap": True}),
        ("SDNRoute", {"DestinationPrefix": "fd00:10:96::/112", "NeedEncap": True}),
        ("SDNRoute", {"DestinationPrefix": "10.127.130.41/32", "NeedEncap": True}),
        ("SDNRoute", {"DestinationPrefix": "fd00:127:130::41/128", "NeedEncap": True}),
    ]


def test_a_dual_stack_node_on_docker_is_refused():
    with pytest.raises(IPPlanError, match=re.escape("container_runtime docker cannot run a dual-stack node: dual-stack "
                                                    "on Windows is sdnbridge's enableDualStack with containerd")):
        cni_config(dual(), "l2bridge", "docker", "10.127.130.41,fd00:127:130::41", "10.244.10.0/24,fd00:10:244:10::/64")
