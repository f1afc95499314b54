# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""IP plan arithmetic for Windows nodes.

Internal to kubewin.node, not a public API: names and signatures may change in any release.
The public interface is the set of filters in plugins/filter/ip_plan.py.

Everything here is pure netaddr integer arithmetic on plain data. Every rule raises
IPPlanError with a message that names the key and the offending values.
"""

from __future__ import annotations

import math
import re
import typing as t
from collections.abc import Mapping
from dataclasses import dataclass

from ansible.errors import AnsibleFilterError

try:
    import netaddr
except ImportError as exc:  # reported by the filters when they are used, not at import time
    netaddr = None
    NETADDR_IMPORT_ERROR: ImportError | None = exc
else:
    NETADDR_IMPORT_ERROR = None

HAS_NETADDR = netaddr is not None


class IPPlanError(AnsibleFilterError):
    """An IP plan, or an argument checked against it, breaks a rule."""


# ---------------------------------------------------------------------------------------------
# Vocabulary and defaults (the only place defaults are decided)
# ---------------------------------------------------------------------------------------------

TOPOLOGIES = ("l2bridge", "overlay", "ovn", "calico")
CONTAINER_RUNTIMES = ("containerd", "docker")
L2BRIDGE_ROUTINGS = ("flannel", "static_routes", "upstream")
# Calico's two networking backends on Windows (tigera/docs windows-calico/requirements.mdx: "Calico CNI
# with BGP or VXLAN"); the operator names them vxlan and windows-bgp (tigera/operator
# pkg/render/windows.go, getWindowsBackend).
CALICO_BACKENDS = ("vxlan", "bgp")
# The IP families, spelled as Kubernetes spells them (Service.spec.ipFamilies). A plan is IPv4, or dual-stack: IPv4
# and IPv6 (kubernetes/website concepts/services-networking/dual-stack.md, "Windows support": no IPv6-only).
FAMILIES = ("IPv4", "IPv6")

REQUIRED_KEYS = ("topology", "cluster_cidr", "service_cidr", "management_cidr")
PLAN_KEYS = (
    "topology",
    "cluster_cidr",
    "service_cidr",
    "dns_service_ip",
    "management_cidr",
    "extra_exceptions",
    "node_prefix_length",
    "node_prefix_length_ipv6",
    "max_pods",
    "node_count",
    "vxlan_vni",
    "vxlan_port",
    "network_name",
    "l2bridge_routing",
    "calico_backend",
    "placeholder_cidr",
    "cluster_domain",
    "nodes",
)
NODE_KEYS = ("name", "management_ip", "pod_cidr")

PLAN_DEFAULTS: dict[str, t.Any] = {
    "extra_exceptions": (),
    "node_prefix_length": 24,
    "max_pods": 110,
    "vxlan_vni": 4096,
    "vxlan_port": 4789,
    "placeholder_cidr": "192.168.255.0/30",
    "cluster_domain": "cluster.local",
}
# kubeadm and the source documents put kube-dns at the 10th address of the service range.
DNS_SERVICE_IP_OFFSET = 10


def default_network_name(topology: str, vxlan_vni: int) -> str | None:
    """The HNS network name flannel uses when net-conf sets no Backend.Name.

    ovn_cni.exe attaches pods to the OVS bridge, so ovn has no HNS network name to agree on.
    calico-node-windows names its network Calico for both backends (projectcalico/calico
    node/pkg/lifecycle/startup/startup_windows.go), and nothing in the operator's API changes it.
    """
    return {"l2bridge": "cbr0", "overlay": f"flannel.{vxlan_vni}", "ovn": None, "calico": CALICO_NETWORK_NAME}[topology]


def default_l2bridge_routing(topology: str) -> str | None:
    # Overlay is always flannel vxlan; OVN and Calico route pod traffic themselves.
    return {"l2bridge": "flannel", "overlay": "flannel", "ovn": None, "calico": None}[topology]


def default_node_prefix_length(topology: str) -> int:
    # For calico a node's pod subnet is one Calico IPAM block, /26 unless the IP pool's blockSize says
    # otherwise (tigera/docs windows-calico/limitations.mdx, "IPs reserved for Windows").
    return CALICO_DEFAULT_BLOCK_PREFIX if topology == "calico" else PLAN_DEFAULTS["node_prefix_length"]


def default_max_pods(topology: str, node_prefix_length: int) -> int:
    """kubelet's 110, but for calico never more than one IPAM block holds.

    A Windows node uses a single block and never borrows addresses from another node's block
    (tigera/docs windows-calico/limitations.mdx, "Single IP block per host", "IP mobility/ borrowing"),
    so a kubelet that admitted more pods than the block holds would leave the rest without an address.
    """
    if topology != "calico":
        return PLAN_DEFAULTS["max_pods"]
    return max(1, min(PLAN_DEFAULTS["max_pods"], 2 ** (32 - node_prefix_length) - RESERVED_ADDRESSES_PER_NODE_SUBNET))


# ---------------------------------------------------------------------------------------------
# Facts about the platform the rules rest on
# ---------------------------------------------------------------------------------------------

# kube-apiserver refuses an IPv4 service range with a mask shorter than this.
MIN_IPV4_SERVICE_PREFIX = 12
# kube-apiserver refuses a service range with more than 20 host bits (cmd/kube-apiserver/app/options/validation.go,
# validateMaxCIDRRange with maxCIDRBits 20; its test: "for 128-bit addresses, the mask must be >= 108"), the same rule
# that gives IPv4 its /12.
MIN_IPV6_SERVICE_PREFIX = 108
# The node subnets of IPv6: kube-controller-manager's --node-cidr-mask-size-ipv6 defaults to /64 (dual-stack.md,
# "Configure IPv4/IPv6 dual-stack"); the collection takes /64 or longer. Its node IPAM refuses a node mask more than 16
# bits longer than an IPv6 cluster range (pkg/controller/nodeipam/ipam/cidrset/cidr_set.go, clusterSubnetMaxDiff: "the
# subnet mask for IPv6 cluster cidr needs to be >= 48 as default mask size for IPv6 is 64").
DEFAULT_NODE_PREFIX_LENGTH_IPV6 = 64
MIN_NODE_PREFIX_LENGTH_IPV6 = 64
MAX_NODE_SUBNET_BITS_IPV6 = 16
# Where dual-stack is refused, and why (each with its source). Kubernetes documents dual-stack on Windows for l2bridge
# only: "Overlay (VXLAN) networks on Windows do not support dual-stack networking" (kubernetes/website dual-stack.md,
# "Windows support"; concepts/services-networking/windows-networking.md, "IPv4/IPv6 dual-stack").
DUAL_STACK_REFUSALS = {
    "overlay": "Overlay (VXLAN) networks on Windows do not support dual-stack networking (kubernetes/website "
               "dual-stack.md, \"Windows support\"; microsoft/Windows-Containers#82)",
    "flannel": "flannel on Windows has no IPv6 path: host-gw leases one IPv4 subnet and makes an HNS network of it "
               "(flannel-io/flannel pkg/backend/hostgw/hostgw_windows.go)",
    "calico": "Calico for Windows lists \"IPv6 and dual stack\" as not supported (tigera/docs "
              "windows-calico/limitations.mdx, \"Networking\")",
    "ovn": "ovn_cni.exe's configuration (the source documents' example) has one host-local subnet, and no upstream "
           "documents dual-stack for OVN on Windows",
    "docker": "dual-stack on Windows is sdnbridge's enableDualStack with containerd (microsoft/windows-container-"
              "networking#61: l2bridge only, one IPv4 and one IPv6 address per endpoint); with Docker the collection "
              "runs win-bridge with one IPv4 subnet",
}
DUAL_STACK_WHERE = "dual-stack runs on l2bridge with static routes or upstream routing, on containerd"
# Services a service range must hold besides the kubernetes API's and the cluster DNS's addresses: the
# collection's own floor (kube-apiserver takes any range; a /28, 14 addresses, is the smallest that passes). The
# ClusterIP allocator hands out neither the network nor the broadcast address of an IPv4 range
# (kubernetes pkg/registry/core/service/ipallocator: the range's base + 1 to its last address - 1).
MIN_OTHER_SERVICES = 10
# Network address, bridge gateway (network + 1), host endpoint (network + 2) and broadcast. Calico
# reserves four per Windows block as well: the first three and the last (tigera/docs
# windows-calico/limitations.mdx, "IPs reserved for Windows"; projectcalico/calico
# node/pkg/lifecycle/startup/startup_windows.go, StartOfBlock 3 and EndOfBlock 1).
RESERVED_ADDRESSES_PER_NODE_SUBNET = 4
# flannel's Windows vxlan backend refuses anything else.
FLANNEL_WINDOWS_MIN_VNI = 4096
FLANNEL_WINDOWS_VXLAN_PORT = 4789
# Calico on Windows: VXLAN runs on UDP 4789 only, "the only port supported by Windows" (tigera/docs
# windows-calico/requirements.mdx). The Windows CNI refuses a VNI below 4096 (projectcalico/calico
# cni-plugin/pkg/dataplane/windows/dataplane_windows.go) and the operator hands calico-node-windows the
# FelixConfiguration's vxlanVNI, whose default is 4096 (tigera/operator pkg/controller/installation/
# windows_controller.go; Felix's VXLANVNI parameter). The plan holds the default, which is the value
# the cluster side can compare without a FelixConfiguration of its own.
CALICO_WINDOWS_VXLAN_VNI = 4096
CALICO_WINDOWS_VXLAN_PORT = 4789
CALICO_NETWORK_NAME = "Calico"
# Calico IPAM's default block size for IPv4 pools.
CALICO_DEFAULT_BLOCK_PREFIX = 26
MAX_VNI = 2**24 - 1
# HNS needs a gateway inside the placeholder network, so it must have host addresses.
MAX_PLACEHOLDER_PREFIX = 30
# sdnbridge's forceBridgeGateway overwrites the last octet with 2 instead of adding 2.
MAX_PREFIX_FOR_FORCE_BRIDGE_GATEWAY = 24

CNI_VERSIONS = {"docker": "0.2.0", "containerd": "0.3.0"}
CNI_PLUGIN_TYPES = {
    ("l2bridge", "docker"): "win-bridge",
    ("l2bridge", "containerd"): "sdnbridge",
    ("overlay", "docker"): "win-overlay",
    ("overlay", "containerd"): "sdnoverlay",
}
# The source documents' ovn_cni.exe example has no cniVersion; 0.2.0 is what that plugin's era spoke.
OVN_CNI_VERSION = "0.2.0"
OVN_CNI_NETWORK_NAME = "net"

_CNI_NETWORK_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
_DNS_LABEL = r"[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?"
_DNS_SUBDOMAIN_RE = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")
_INTEGER_TEXT_RE = re.compile(r"[+-]?\d+")
_PREFIX_TEXT_RE = re.compile(r"\d{1,3}")


# ---------------------------------------------------------------------------------------------
# Parsing single values
# ---------------------------------------------------------------------------------------------


def kind_of(value: t.Any) -> str:
    """What a value is, in the words an inventory author uses (Ansible hands lists and dicts over as its own
    lazy types, whose class names mean nothing to them)."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "a dictionary"
    if isinstance(value, (list, tuple, set)) or (hasattr(value, "__iter__") and hasattr(value, "__len__")):
        return "a list"
    return type(value).__name__


def _require_text(key: str, value: t.Any, expected: str) -> str:
    if not isinstance(value, str):
        raise IPPlanError(f"{key} must be {expected}, got {value!r} ({kind_of(value)})")
    return value.strip()


def family_of(value) -> str:
    """IPv4 or IPv6, as Kubernetes names the families (Service.spec.ipFamilies)."""
    return "IPv4" if value.version == 4 else "IPv6"


def _address_or_none(text: str, families: t.Sequence[str] = FAMILIES):
    for version, family in ((4, "IPv4"), (6, "IPv6")):
        if family not in families:
            continue
        try:
            # INET_PTON: no "10.1" or "010.0.0.1" shorthands for IPv4 (IPv6 has only one text form).
            return netaddr.IPAddress(text, version, flags=netaddr.INET_PTON if version == 4 else 0)
        except (netaddr.AddrFormatError, ValueError, TypeError):
            continue
    return None


def _reject_other_family(key: str, text: str, families: t.Sequence[str], why: str) -> None:
    if "," in text:
        raise IPPlanError(f"{key} {text!r} lists several ranges; it takes one{why}")
    if families == ("IPv4",) and ":" in text:
        raise IPPlanError(f"{key} {text} is IPv6; {key} takes IPv4 only{why}")


def parse_network(key: str, value: t.Any, families: t.Sequence[str] = FAMILIES, why: str = ""):
    """One CIDR of the given families, parsed strictly; host bits are an error that names the canonical form."""
    ipv4_only = tuple(families) == ("IPv4",)
    example = "10.244.0.0/16" if ipv4_only else "10.244.0.0/16 or fd00:10:244::/56"
    text = _require_text(key, value, f"{'an IPv4 CIDR' if ipv4_only else 'a CIDR'} such as {example}")
    _reject_other_family(key, text, tuple(families), why)
    address_text, slash, prefix_text = text.partition("/")
    # What the text looks like decides the family its error names: IPv6 is the family with colons.
    family = "IPv6" if ":" in address_text else "IPv4"
    address = _address_or_none(address_text, (family,))
    bits = 128 if family == "IPv6" else 32
    if not slash or address is None or not _PREFIX_TEXT_RE.fullmatch(prefix_text) or int(prefix_text) > bits:
        raise IPPlanError(f"{key} {text!r} is not an {family} CIDR (expected address/prefix, e.g. "
                          f"{'fd00:10:244::/56' if family == 'IPv6' else '10.244.0.0/16'})")
    network = netaddr.IPNetwork((address.value, int(prefix_text)), version=address.version)
    canonical = network.cidr
    if network.value != canonical.value:
        raise IPPlanError(f"{key} {text} has host bits set; did you mean {canonical}?")
    return canonical


def parse_networks(key: str, value: t.Any) -> list[str]:
    """A list of CIDRs of either family (a firewall rule's remote addresses), each parsed as parse_network does,
    in their canonical text, sorted and without repeats."""
    if not isinstance(value, (list, tuple)):
        raise IPPlanError(f"{key} must be a list of CIDRs such as [10.0.0.0/24, fd00::/64], got {value!r} "
                          f"({kind_of(value)})")
    items = list(value)
    networks = {str(parse_network(f"{key}[{index}]", item)) for index, item in enumerate(items)}
    return sorted(networks, key=network_order)


def network_order(text: str) -> tuple:
    """Sort key of CIDR texts: IPv4 before IPv6, then by address and prefix; text that is no network last."""
    network = read_back_network(text)
    if network is None:
        return (1, 0, 0, 0, str(text))
    parsed = netaddr.IPNetwork(network)
    return (0, parsed.version, parsed.value, parsed.prefixlen, network)


def read_back_network(text: str) -> str | None:
    """The CIDR a Windows Firewall address filter entry stands for ('10.0.0.5', '10.0.0.0/255.255.255.0', 'fd00::/64':
    Get-NetFirewallAddressFilter reads an IPv4 subnet back with its mask), or None for one that is no single network
    (a keyword, a range)."""
    address_text, slash, suffix = str(text).strip().partition("/")
    address = _address_or_none(address_text)
    if address is None:
        return None
    bits = 32 if address.version == 4 else 128
    if not slash:
        prefix = bits
    elif _PREFIX_TEXT_RE.fullmatch(suffix):
        prefix = int(suffix)
    else:
        mask = _address_or_none(suffix, ("IPv4",))
        if mask is None or address.version != 4 or not mask.is_netmask():
            return None
        prefix = mask.netmask_bits()
    if prefix > bits:
        return None
    return str(netaddr.IPNetwork((address.value, prefix), version=address.version).cidr)


def parse_ipv4_network(key: str, value: t.Any, why: str = ""):
    """Parse 'a.b.c.d/n' strictly, for the ranges that exist in IPv4 only."""
    return parse_network(key, value, ("IPv4",), why)


def parse_address(key: str, value: t.Any, families: t.Sequence[str] = FAMILIES, why: str = ""):
    ipv4_only = tuple(families) == ("IPv4",)
    text = _require_text(key, value, "an IPv4 address such as 10.96.0.10" if ipv4_only else
                         "an IP address such as 10.96.0.10 or fd00:10:96::a")
    _reject_other_family(key, text, tuple(families), why)
    family = "IPv6" if ":" in text else "IPv4"
    address = _address_or_none(text, (family,))
    if address is None:
        raise IPPlanError(f"{key} {text!r} is not an {family} address")
    return address


def parse_ipv4_address(key: str, value: t.Any, why: str = ""):
    return parse_address(key, value, ("IPv4",), why)


def _one_per_family(key: str, items: t.Sequence[t.Any], what: str) -> tuple[t.Any, t.Any]:
    """(the IPv4 value, the IPv6 value or None) of a key that takes one value per IP family, as Kubernetes' dual-stack
    flags do (kubernetes/website concepts/services-networking/dual-stack.md, "Configure IPv4/IPv6 dual-stack":
    --cluster-cidr=<IPv4 CIDR>,<IPv6 CIDR>, --node-ip with a comma-separated pair). IPv6 alone is refused: "Kubernetes on
    Windows does not support single-stack IPv6-only networking" (same page, "Windows support")."""
    by_family: dict[str, t.Any] = {}
    for item in items:
        family = family_of(item)
        if family in by_family:
            raise IPPlanError(f"{key} gives two {family} {what}s ({by_family[family]} and {item}); it takes one per IP "
                              f"family: IPv4, or IPv4 and IPv6 for dual-stack")
        by_family[family] = item
    if "IPv4" not in by_family:
        raise IPPlanError(f"{key} {by_family['IPv6']} is IPv6 only; Kubernetes on Windows does not support IPv6-only "
                          f"networking (kubernetes/website dual-stack.md, \"Windows support\"): give an IPv4 {what} "
                          f"first, and the IPv6 one with it for dual-stack")
    return by_family["IPv4"], by_family.get("IPv6")


def _listed(key: str, value: t.Any, expected: str) -> list[t.Any]:
    """The items of a value that takes one per IP family: a list, or text with commas as Kubernetes' flags have it."""
    if isinstance(value, str):
        items: list[t.Any] = [part.strip() for part in value.split(",")]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise IPPlanError(f"{key} must be {expected}, got {value!r} ({kind_of(value)})")
    if not 1 <= len(items) <= len(FAMILIES):
        raise IPPlanError(f"{key} lists {len(items)} values; it takes one per IP family: IPv4, or IPv4 and IPv6 for "
                          f"dual-stack")
    return items


def parse_ranges(key: str, value: t.Any) -> tuple[t.Any, t.Any]:
    """(IPv4 range, IPv6 range or None) of kubewin_cluster_cidr, _service_cidr, _management_cidr, a node's _pod_cidr."""
    expected = "an IPv4 CIDR such as 10.244.0.0/16, or one per IP family ([10.244.0.0/16, fd00:10:244::/56]) for dual-stack"
    items = _listed(key, value, expected)
    names = [key if len(items) == 1 else f"{key}[{index}]" for index in range(len(items))]
    return _one_per_family(key, [parse_network(name, item) for name, item in zip(names, items)], "range")


def parse_addresses(key: str, value: t.Any) -> tuple[t.Any, t.Any]:
    """(IPv4 address, IPv6 address or None) of a node's kubewin_management_ip."""
    items = _listed(key, value, "an IPv4 address such as 10.127.130.41, or one per IP family ([10.127.130.41, "
                                "fd00:127:130::41]) for dual-stack")
    names = [key if len(items) == 1 else f"{key}[{index}]" for index in range(len(items))]
    return _one_per_family(key, [parse_address(name, item) for name, item in zip(names, items)], "address")


def joined(*values: t.Any) -> str:
    """Values of both families as Kubernetes' flags take them: comma-separated, IPv4 first; None ones left out."""
    return ",".join(str(value) for value in values if value is not None)


def coerce_int(key: str, value: t.Any, minimum: int, maximum: int | None = None) -> int:
    """Accept ints, integral floats and digit strings (inventories hand over "24"); never bools."""
    if isinstance(value, bool):
        raise IPPlanError(f"{key} must be an integer, got the boolean {value!r}")
    if isinstance(value, int):
        number = int(value)
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _INTEGER_TEXT_RE.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        raise IPPlanError(f"{key} must be an integer, got {value!r} ({kind_of(value)})")
    if number < minimum or (maximum is not None and number > maximum):
        bounds = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
        raise IPPlanError(f"{key} must be {bounds}, got {number}")
    return number


def _coerce_choice(key: str, value: t.Any, choices: t.Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise IPPlanError(f"{key} must be one of {', '.join(choices)}; got {value!r}")
    return str(value)


def _coerce_network_name(value: t.Any) -> str:
    # The CNI spec's rule for network names; HNS and kube-proxy take the same string.
    if not isinstance(value, str) or not _CNI_NETWORK_NAME_RE.fullmatch(value):
        raise IPPlanError(
            f"network_name must start with a letter or digit and contain only letters, digits, '_', '.' "
            f"or '-' (a CNI network name), got {value!r}"
        )
    return str(value)


def _coerce_cluster_domain(value: t.Any) -> str:
    if not is_dns_subdomain(value):
        raise IPPlanError(
            f"cluster_domain must be a lower-case DNS name without a trailing dot, as kubelet's "
            f"--cluster-domain takes it (e.g. cluster.local), got {value!r}"
        )
    return str(value)


def is_dns_subdomain(value: t.Any) -> bool:
    """A DNS-1123 subdomain: what Kubernetes requires of a Node's name (apimachinery's IsDNS1123Subdomain: lower-case
    letters, digits, '-' and '.', a letter or digit at each end of each label, at most 253 characters)."""
    return isinstance(value, str) and len(value) <= 253 and bool(_DNS_SUBDOMAIN_RE.fullmatch(value))


def _require_list(key: str, value: t.Any) -> t.Sequence[t.Any]:
    if not isinstance(value, (list, tuple)):
        raise IPPlanError(f"{key} must be a list, got {value!r} ({kind_of(value)})")
    return value


def _require_mapping(key: str, value: t.Any) -> Mapping:
    if not isinstance(value, Mapping):
        raise IPPlanError(f"{key} must be a dictionary, got {value!r} ({kind_of(value)})")
    return value


def _given_or_default(plan: Mapping, key: str) -> t.Any:
    # Inventories write null to mean "the default", so null and absent are the same.
    value = plan.get(key)
    return PLAN_DEFAULTS[key] if value is None else value


# ---------------------------------------------------------------------------------------------
# Relations between ranges
# ---------------------------------------------------------------------------------------------


def _relation(a, b) -> str | None:
    """How range a meets range b, or None when they are disjoint (CIDRs never partly overlap)."""
    if a.first > b.last or b.first > a.last:
        return None
    if a.first == b.first and a.last == b.last:
        return "is the same range as"
    if _inside(a, b):
        return "lies inside"
    return "contains"


def _reject_overlap(key_a: str, a, key_b: str, b, consequence: str = "") -> None:
    relation = _relation(a, b)
    if relation:
        raise IPPlanError(f"{key_a} {a} overlaps {key_b} {b}: {a} {relation} {b}{consequence}")


def _first_overlap(items: t.Sequence[tuple[t.Any, t.Any]]):
    """First pair of (network, label) items whose networks overlap, in O(n log n).

    Sorted by start, a range overlaps an earlier one exactly when it starts before the widest
    earlier range ends, so comparing with that one range is enough.
    """
    ordered = sorted(items, key=lambda item: (item[0].first, -item[0].last))
    widest = None
    for item in ordered:
        if widest is not None and item[0].first <= widest[0].last:
            return widest, item
        if widest is None or item[0].last > widest[0].last:
            widest = item
    return None


def _without_nested_ranges(ranges: t.Sequence[t.Any]) -> list[t.Any]:
    """Drop every range equal to or inside another; the rest keep their order of first appearance.

    Windows Server 2019 keeps only one ExceptionList rule per network address, and a nested
    range adds nothing, so both are dropped here rather than left for HNS to mishandle.
    """
    order = sorted(range(len(ranges)), key=lambda i: (ranges[i].first, -ranges[i].last, i))
    covered = set()
    widest_last = -1
    for index in order:
        if ranges[index].last <= widest_last:
            covered.add(index)
        else:
            widest_last = ranges[index].last
    return [network for index, network in enumerate(ranges) if index not in covered]


def _inside(inner, outer) -> bool:
    return outer.first <= inner.first and inner.last <= outer.last


def host_address(network, offset: int):
    """network + offset as an address, by integer arithmetic (never by editing the last octet)."""
    return netaddr.IPAddress(network.first + offset, network.version)


# ---------------------------------------------------------------------------------------------
# The plan's network settings (everything but the node inventory)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IPv6Ranges:
    """The IPv6 half of a dual-stack plan: the IPv4 ranges stay in PlanSettings' own fields."""

    cluster: t.Any
    service: t.Any
    management: t.Any
    node_prefix_length: int
    exceptions: tuple[str, ...]


@dataclass(frozen=True)
class PlanSettings:
    """A validated plan without its node inventory; immutable, so it can be cached and shared."""

    topology: str
    cluster: t.Any
    service: t.Any
    dns_service_ip: t.Any
    management: t.Any
    extra_exceptions: tuple
    node_prefix_length: int
    max_pods: int
    node_count: int | None
    vxlan_vni: int
    vxlan_port: int
    network_name: str | None
    l2bridge_routing: str | None
    calico_backend: str | None
    placeholder: t.Any
    cluster_domain: str
    exceptions: tuple[str, ...] | None
    ipv6: IPv6Ranges | None = None

    @property
    def uses_flannel(self) -> bool:
        return self.l2bridge_routing == "flannel"

    @property
    def pod_cidr_lessor(self) -> str | None:
        """What hands each node its pod subnet when the plan does not fix one: flannel, Calico IPAM, or nothing."""
        if self.uses_flannel:
            return "flannel"
        return "Calico IPAM" if self.topology == "calico" else None

    def describe_routing(self) -> str:
        if self.topology == "l2bridge":
            return f"l2bridge with l2bridge_routing {self.l2bridge_routing}"
        if self.topology == "calico":
            return f"topology calico (calico_backend {self.calico_backend})"
        return f"the {self.topology} topology"

    def as_dict(self) -> dict[str, t.Any]:
        return {
            "topology": self.topology,
            "cluster_cidr": joined(self.cluster, self.ipv6 and self.ipv6.cluster),
            "service_cidr": joined(self.service, self.ipv6 and self.ipv6.service),
            "dns_service_ip": str(self.dns_service_ip),
            "management_cidr": joined(self.management, self.ipv6 and self.ipv6.management),
            "extra_exceptions": [str(network) for network in self.extra_exceptions],
            "node_prefix_length": self.node_prefix_length,
            "node_prefix_length_ipv6": self.ipv6 and self.ipv6.node_prefix_length,
            "max_pods": self.max_pods,
            "node_count": self.node_count,
            "vxlan_vni": self.vxlan_vni,
            "vxlan_port": self.vxlan_port,
            "network_name": self.network_name,
            "l2bridge_routing": self.l2bridge_routing,
            "calico_backend": self.calico_backend,
            "placeholder_cidr": None if self.placeholder is None else str(self.placeholder),
            "cluster_domain": self.cluster_domain,
        }


def _check_plan_keys(plan: Mapping) -> None:
    unknown = sorted(str(key) for key in plan if key not in PLAN_KEYS)
    if unknown:
        raise IPPlanError(f"unknown plan key(s) {', '.join(unknown)}; known keys are {', '.join(PLAN_KEYS)}")
    missing = [key for key in REQUIRED_KEYS if plan.get(key) is None]
    if missing:
        raise IPPlanError(f"the plan needs {', '.join(missing)}")


def _check_service_range_size(service) -> None:
    smallest = MIN_IPV4_SERVICE_PREFIX if service.version == 4 else MIN_IPV6_SERVICE_PREFIX
    if service.prefixlen < smallest:
        raise IPPlanError(
            f"service_cidr {service} is too large: kube-apiserver refuses it "
            f"(an {family_of(service)} service range needs a mask of at least /{smallest})"
        )


def _reject_range_overlaps(cluster, service, management) -> None:
    """Within one family: ranges of different families never meet."""
    _reject_overlap("cluster_cidr", cluster, "service_cidr", service)
    _reject_overlap("management_cidr", management, "cluster_cidr", cluster)
    _reject_overlap("management_cidr", management, "service_cidr", service)


def _placeholder_range(plan: Mapping, topology: str, named_ranges: t.Sequence[tuple[str, t.Any]]):
    if topology == "calico":
        # calico-node-windows creates the HNS network, and with it the vSwitch, itself
        # (projectcalico/calico node/pkg/lifecycle/startup/startup_windows.go), so there is nothing to
        # pre-create; Calico's default IP pool, 192.168.0.0/16, would also hold the default placeholder.
        if plan.get("placeholder_cidr") is not None:
            raise IPPlanError(
                f"placeholder_cidr {plan['placeholder_cidr']} does not apply to topology calico: calico-node-windows "
                f"creates the HNS network and its vSwitch itself; leave placeholder_cidr unset"
            )
        return None
    placeholder = parse_ipv4_network("placeholder_cidr", _given_or_default(plan, "placeholder_cidr"))
    if placeholder.prefixlen > MAX_PLACEHOLDER_PREFIX:
        raise IPPlanError(
            f"placeholder_cidr {placeholder} is too small: the network that pre-creates the vSwitch "
            f"needs a gateway and a host address, so at least a /{MAX_PLACEHOLDER_PREFIX}"
        )
    for key, network in named_ranges:
        _reject_overlap(
            key,
            network,
            "placeholder_cidr",
            placeholder,
            " (the network used to pre-create the vSwitch); change that range or set placeholder_cidr to an unused /30",
        )
    return placeholder


def _dns_service_ip(plan: Mapping, service, service6):
    """kube-dns's address: the given one inside the service range of its family, else network + 10 of the IPv4 one
    (kubeadm's default). The cluster DNS Service is single-stack, in its first family, unless made otherwise."""
    given = plan.get("dns_service_ip")
    if given is not None:
        address = parse_address("dns_service_ip", given, ("IPv4", "IPv6") if service6 is not None else ("IPv4",),
                                "" if service6 is not None else " in an IPv4-only plan")
        return address, (service6 if address.version == 6 else service)
    if service.size <= DNS_SERVICE_IP_OFFSET + 1:
        raise IPPlanError(
            f"service_cidr {service} is too small for the default dns_service_ip "
            f"(network + {DNS_SERVICE_IP_OFFSET}); set dns_service_ip or use a larger range"
        )
    return host_address(service, DNS_SERVICE_IP_OFFSET), service


def _check_dns_service_ip(dns, service) -> None:
    if dns not in service:
        raise IPPlanError(f"dns_service_ip {dns} is outside service_cidr {service}")
    if dns.value == service.first:
        raise IPPlanError(f"dns_service_ip {dns} is the network address of service_cidr {service}")
    if dns.value == service.first + 1:
        raise IPPlanError(
            f"dns_service_ip {dns} is the first host of service_cidr {service}, "
            f"which kube-apiserver gives to the kubernetes API service"
        )
    if dns.value == service.last:
        # kube-apiserver's ClusterIP allocator hands out neither end of a range (pkg/registry/core/service/ipallocator).
        last = "broadcast address" if service.version == 4 else "last address"
        raise IPPlanError(f"dns_service_ip {dns} is the {last} of service_cidr {service}")


def _check_service_capacity(service) -> None:
    usable = service.size - 2
    needed = 2 + MIN_OTHER_SERVICES
    if usable < needed:
        raise IPPlanError(
            f"service_cidr {service} holds {usable} Service addresses: the kubernetes API, the cluster DNS and at "
            f"least {MIN_OTHER_SERVICES} more Services need {needed} (a /28 or larger)"
        )


def _check_node_subnet_fits_pods(node_prefix_length: int, max_pods: int, bits: int = 32,
                                 key: str = "node_prefix_length") -> None:
    addresses = 2 ** (bits - node_prefix_length)
    needed = max_pods + RESERVED_ADDRESSES_PER_NODE_SUBNET
    if addresses < needed:
        longest = bits - math.ceil(math.log2(needed))
        raise IPPlanError(
            f"{key} /{node_prefix_length} gives each node {addresses} addresses, fewer than "
            f"max_pods {max_pods} plus {RESERVED_ADDRESSES_PER_NODE_SUBNET} (network, bridge gateway, "
            f"host endpoint, broadcast) = {needed}; use /{longest} or shorter, or lower max_pods"
        )


def _check_node_prefix_inside_cluster(cluster, node_prefix_length: int, key: str = "node_prefix_length") -> None:
    if node_prefix_length <= cluster.prefixlen:
        raise IPPlanError(
            f"{key} /{node_prefix_length} is not longer than the prefix of cluster_cidr "
            f"{cluster}: each node's pod subnet is carved out of the cluster range"
        )


def _check_sizing_rule(cluster, node_count: int, max_pods: int) -> None:
    # The source documents' minimum: (number of nodes) + (number of nodes * maximum pods per node).
    needed = node_count + node_count * max_pods
    if needed > cluster.size:
        raise IPPlanError(
            f"cluster_cidr {cluster} has {cluster.size} addresses, fewer than the sizing rule "
            f"nodes + nodes * max_pods = {node_count} + {node_count} * {max_pods} = {needed} needs"
        )


def _check_node_subnet_count(cluster, node_prefix_length: int, node_count: int) -> None:
    subnets = 2 ** (node_prefix_length - cluster.prefixlen)
    if subnets < node_count:
        raise IPPlanError(
            f"cluster_cidr {cluster} holds {subnets} node subnets of /{node_prefix_length}, "
            f"fewer than node_count {node_count}"
        )


def _node_count(plan: Mapping, listed_nodes: int | None) -> int | None:
    given = plan.get("node_count")
    if given is None:
        return listed_nodes or None
    node_count = coerce_int("node_count", given, 1)
    if listed_nodes and node_count < listed_nodes:
        raise IPPlanError(f"node_count {node_count} is smaller than the {listed_nodes} entries in nodes")
    return node_count


def _vxlan_vni(value: t.Any, topology: str) -> int:
    """The VNI, within the range the topology's VXLAN takes (overlay: flannel on Windows, 4096 and up)."""
    if topology != "overlay":
        return coerce_int("vxlan_vni", value, 1, MAX_VNI)
    vni = coerce_int("vxlan_vni", value, -MAX_VNI)
    if not FLANNEL_WINDOWS_MIN_VNI <= vni <= MAX_VNI:
        raise IPPlanError(
            f"vxlan_vni {vni} is outside the overlay range {FLANNEL_WINDOWS_MIN_VNI}-{MAX_VNI}: flannel on Windows "
            f"refuses a VNI below {FLANNEL_WINDOWS_MIN_VNI} (set VNI {FLANNEL_WINDOWS_MIN_VNI} on the Linux side too)"
        )
    return vni


def _check_vxlan_port_for_flannel_windows(vxlan_port: int) -> None:
    if vxlan_port != FLANNEL_WINDOWS_VXLAN_PORT:
        raise IPPlanError(
            f"vxlan_port {vxlan_port} is not {FLANNEL_WINDOWS_VXLAN_PORT}: flannel on Windows only "
            f"accepts UDP port {FLANNEL_WINDOWS_VXLAN_PORT} (set it on the Linux side too)"
        )


def _l2bridge_routing(plan: Mapping, topology: str) -> str | None:
    given = plan.get("l2bridge_routing")
    if given is None:
        return default_l2bridge_routing(topology)
    routing = _coerce_choice("l2bridge_routing", given, L2BRIDGE_ROUTINGS)
    if topology == "overlay" and routing != "flannel":
        raise IPPlanError(
            f"l2bridge_routing {routing} does not apply to the overlay topology: overlay always routes "
            f"pod traffic through flannel vxlan"
        )
    if topology == "ovn":
        raise IPPlanError(
            f"l2bridge_routing {routing} does not apply to the ovn topology (OVN routes pod traffic "
            f"itself); leave it unset"
        )
    if topology == "calico":
        raise IPPlanError(
            f"l2bridge_routing {routing} does not apply to topology calico (Calico routes pod traffic "
            f"itself); choose VXLAN or BGP with calico_backend and leave l2bridge_routing unset"
        )
    return routing


def _calico_backend(plan: Mapping, topology: str) -> str | None:
    given = plan.get("calico_backend")
    if topology != "calico":
        if given is not None:
            raise IPPlanError(
                f"calico_backend {given!r} applies only to topology calico, not {topology}; leave it unset"
            )
        return None
    return CALICO_BACKENDS[0] if given is None else _coerce_choice("calico_backend", given, CALICO_BACKENDS)


def _check_calico_windows(vxlan_vni: int, vxlan_port: int, extras: t.Sequence[t.Any]) -> None:
    """Calico's rules on Windows that the plan's values can break; see CALICO_WINDOWS_VXLAN_VNI for the sources."""
    if vxlan_vni != CALICO_WINDOWS_VXLAN_VNI:
        raise IPPlanError(
            f"vxlan_vni {vxlan_vni} is not {CALICO_WINDOWS_VXLAN_VNI}: this collection supports Calico on "
            f"Windows with Felix's default VNI {CALICO_WINDOWS_VXLAN_VNI} only (Calico's Windows CNI refuses "
            f"VNIs below it); leave vxlan_vni unset and keep the FelixConfiguration's vxlanVNI at "
            f"{CALICO_WINDOWS_VXLAN_VNI}"
        )
    if vxlan_port != CALICO_WINDOWS_VXLAN_PORT:
        raise IPPlanError(
            f"vxlan_port {vxlan_port} is not {CALICO_WINDOWS_VXLAN_PORT}: Calico's VXLAN on Windows runs on "
            f"UDP port {CALICO_WINDOWS_VXLAN_PORT} only; leave vxlan_port unset and keep the "
            f"FelixConfiguration's vxlanPort at {CALICO_WINDOWS_VXLAN_PORT}"
        )
    if extras:
        # tigera/operator pkg/render/windows.go: the OutBoundNAT ExceptionList is Installation.serviceCIDRs.
        raise IPPlanError(
            f"extra_exceptions {', '.join(str(network) for network in extras)} cannot be applied with "
            f"topology calico: the Tigera operator writes the Windows CNI config, whose OutBoundNAT "
            f"ExceptionList is the Installation's serviceCIDRs only; leave extra_exceptions empty"
        )


def _network_name(plan: Mapping, topology: str, vxlan_vni: int) -> str | None:
    given = plan.get("network_name")
    if given is None:
        return default_network_name(topology, vxlan_vni)
    if topology == "ovn":
        raise IPPlanError(
            f"network_name {given!r} does not apply to the ovn topology: ovn_cni.exe attaches pods to "
            f"the OVS bridge br-int, not to an HNS network looked up by name; leave it unset"
        )
    if topology == "calico" and given != CALICO_NETWORK_NAME:
        raise IPPlanError(
            f"network_name {given!r} cannot be chosen with topology calico: calico-node-windows always "
            f"names its HNS network {CALICO_NETWORK_NAME}; leave network_name unset"
        )
    return _coerce_network_name(given)


def _outbound_nat_exceptions(topology: str, cluster, service, management, extras) -> tuple[str, ...] | None:
    """One family's ExceptionList (a dual-stack node has one OutBoundNAT policy per family: microsoft/windows-container-
    networking example/l2bridgedualstack_host-local_ipam.conf)."""
    if topology == "ovn":
        return None
    if topology == "calico":
        # What the operator writes from Installation.serviceCIDRs (tigera/operator pkg/render/windows.go),
        # so the cluster side can hold serviceCIDRs to it.
        return (str(service),)
    leading = (cluster, service, management) if topology == "l2bridge" else (cluster, service)
    return tuple(str(network) for network in _without_nested_ranges([*leading, *extras]))


def _listed_node_count(plan: Mapping) -> int | None:
    nodes = plan.get("nodes")
    return None if nodes is None else len(_require_list("nodes", nodes))


def _build_settings(plan: Mapping) -> PlanSettings:
    topology = _coerce_choice("topology", plan["topology"], TOPOLOGIES)
    given_prefix = plan.get("node_prefix_length")
    node_prefix_length = coerce_int(
        "node_prefix_length", default_node_prefix_length(topology) if given_prefix is None else given_prefix, 1, 32
    )
    given_max_pods = plan.get("max_pods")
    max_pods = coerce_int(
        "max_pods", default_max_pods(topology, node_prefix_length) if given_max_pods is None else given_max_pods, 1
    )
    node_count = _node_count(plan, _listed_node_count(plan))
    vxlan_vni = _vxlan_vni(_given_or_default(plan, "vxlan_vni"), topology)
    vxlan_port = coerce_int("vxlan_port", _given_or_default(plan, "vxlan_port"), 1, 65535)
    cluster_domain = _coerce_cluster_domain(_given_or_default(plan, "cluster_domain"))
    l2bridge_routing = _l2bridge_routing(plan, topology)
    calico_backend = _calico_backend(plan, topology)
    network_name = _network_name(plan, topology, vxlan_vni)

    cluster, cluster6 = parse_ranges("cluster_cidr", plan["cluster_cidr"])
    service, service6 = parse_ranges("service_cidr", plan["service_cidr"])
    management, management6 = parse_ranges("management_cidr", plan["management_cidr"])
    dual_stack = _dual_stack(topology, l2bridge_routing, cluster6, service6, management6)
    extras = tuple(
        parse_network(f"extra_exceptions[{index}]", value, FAMILIES if dual_stack else ("IPv4",),
                      "" if dual_stack else " in an IPv4-only plan")
        for index, value in enumerate(_require_list("extra_exceptions", _given_or_default(plan, "extra_exceptions")))
    )
    extras4 = tuple(network for network in extras if network.version == 4)
    for service_range in (service, service6):
        if service_range is not None:
            _check_service_range_size(service_range)
    _reject_range_overlaps(cluster, service, management)
    named_ranges = [("cluster_cidr", cluster), ("service_cidr", service), ("management_cidr", management)]
    named_ranges += [(f"extra_exceptions[{index}]", network) for index, network in enumerate(extras) if network.version == 4]
    placeholder = _placeholder_range(plan, topology, named_ranges)

    dns_service_ip, dns_range = _dns_service_ip(plan, service, service6)
    _check_dns_service_ip(dns_service_ip, dns_range)
    _check_service_capacity(service)

    _check_node_prefix_inside_cluster(cluster, node_prefix_length)
    _check_node_subnet_fits_pods(node_prefix_length, max_pods)
    if node_count is not None:
        _check_sizing_rule(cluster, node_count, max_pods)
        _check_node_subnet_count(cluster, node_prefix_length, node_count)
    ipv6 = None
    if dual_stack:
        ipv6 = _ipv6_ranges(plan, topology, (cluster6, service6, management6),
                            tuple(network for network in extras if network.version == 6), max_pods, node_count)
    elif plan.get("node_prefix_length_ipv6") is not None:
        raise IPPlanError(f"node_prefix_length_ipv6 {plan['node_prefix_length_ipv6']} applies to a dual-stack plan "
                          f"only (an IPv6 range in cluster_cidr); leave it unset")
    if topology == "overlay":
        _check_vxlan_port_for_flannel_windows(vxlan_port)
    if topology == "calico":
        _check_calico_windows(vxlan_vni, vxlan_port, extras4)

    return PlanSettings(
        topology=topology,
        cluster=cluster,
        service=service,
        dns_service_ip=dns_service_ip,
        management=management,
        extra_exceptions=extras,
        node_prefix_length=node_prefix_length,
        max_pods=max_pods,
        node_count=node_count,
        vxlan_vni=vxlan_vni,
        vxlan_port=vxlan_port,
        network_name=network_name,
        l2bridge_routing=l2bridge_routing,
        calico_backend=calico_backend,
        placeholder=placeholder,
        cluster_domain=cluster_domain,
        exceptions=_outbound_nat_exceptions(topology, cluster, service, management, extras4),
        ipv6=ipv6,
    )


def _dual_stack(topology: str, routing: str | None, cluster6, service6, management6) -> bool:
    """Whether the plan is dual-stack: an IPv6 range in each of the three, where Windows nodes can run it."""
    given = {"cluster_cidr": cluster6, "service_cidr": service6, "management_cidr": management6}
    present = [(key, network) for key, network in given.items() if network is not None]
    if not present:
        return False
    reason = None
    if topology != "l2bridge":
        reason = DUAL_STACK_REFUSALS[topology]
    elif routing == "flannel":
        reason = DUAL_STACK_REFUSALS["flannel"]
    if reason:
        # Worded without the plan's key names, which the preflight turns into longer inventory variable names.
        where = "l2bridge with flannel" if topology == "l2bridge" else f"{topology} networks"
        raise IPPlanError(f"{present[0][0]} {present[0][1]} makes the plan dual-stack, which {where} cannot run: "
                          f"{reason}; {DUAL_STACK_WHERE}")
    missing = [key for key, network in given.items() if network is None]
    if missing:
        raise IPPlanError(
            f"{', '.join(f'{key} {network}' for key, network in present)} {'is' if len(present) == 1 else 'are'} "
            f"IPv6, but {' and '.join(missing)} {'has' if len(missing) == 1 else 'have'} no IPv6 range: a dual-stack "
            f"plan gives one range per family in each of cluster_cidr, service_cidr and management_cidr "
            f"(kube-apiserver's and kube-controller-manager's ranges, the nodes' addresses: kubernetes/website "
            f"dual-stack.md)"
        )
    return True


def _ipv6_node_prefix_length(plan: Mapping, cluster6, max_pods: int) -> int:
    key = "node_prefix_length_ipv6"
    given = plan.get(key)
    length = coerce_int(key, DEFAULT_NODE_PREFIX_LENGTH_IPV6 if given is None else given, 1, 128)
    if length < MIN_NODE_PREFIX_LENGTH_IPV6:
        raise IPPlanError(
            f"{key} /{length} is shorter than /{MIN_NODE_PREFIX_LENGTH_IPV6}: each node takes a /64 of the IPv6 "
            f"cluster range (kube-controller-manager's --node-cidr-mask-size-ipv6 default) or a longer prefix"
        )
    _check_node_prefix_inside_cluster(cluster6, length, key)
    if length - cluster6.prefixlen > MAX_NODE_SUBNET_BITS_IPV6:
        raise IPPlanError(
            f"{key} /{length} is more than {MAX_NODE_SUBNET_BITS_IPV6} bits longer than cluster_cidr {cluster6}: "
            f"kube-controller-manager's node IPAM refuses it (pkg/controller/nodeipam/ipam/cidrset, "
            f"clusterSubnetMaxDiff); use an IPv6 cluster range of /{length - MAX_NODE_SUBNET_BITS_IPV6} or larger"
        )
    _check_node_subnet_fits_pods(length, max_pods, 128, key)
    return length


def _ipv6_ranges(plan: Mapping, topology: str, ranges, extras6, max_pods: int, node_count: int | None) -> IPv6Ranges:
    """The IPv6 half of a dual-stack plan, checked as the IPv4 ranges are."""
    cluster6, service6, management6 = ranges
    # Service capacity needs no check: an IPv6 service range holds 2 ** 20 addresses at least.
    _reject_range_overlaps(cluster6, service6, management6)
    node_prefix_length = _ipv6_node_prefix_length(plan, cluster6, max_pods)
    if node_count is not None:
        _check_sizing_rule(cluster6, node_count, max_pods)
        _check_node_subnet_count(cluster6, node_prefix_length, node_count)
    return IPv6Ranges(cluster=cluster6, service=service6, management=management6,
                      node_prefix_length=node_prefix_length,
                      exceptions=_outbound_nat_exceptions(topology, cluster6, service6, management6, extras6))


def _cache_token(value: t.Any) -> t.Hashable:
    # The type is part of the token so that "24", 24, 24.0 and True never share a cache entry.
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_cache_token(item) for item in value))
    if value is None or isinstance(value, (str, int, float)):
        return (type(value), value)
    raise TypeError("not cacheable")


_SETTINGS_CACHE: dict[t.Hashable, PlanSettings] = {}
_SETTINGS_CACHE_SIZE = 64


def plan_settings(plan: t.Any) -> PlanSettings:
    """Validate everything in a plan except the entries of its node inventory.

    Rendering one CNI config per node calls this once per node with the same plan, so the result
    (including the ExceptionList) is computed once per distinct plan and then reused.
    """
    plan = _require_mapping("the IP plan", plan)
    _check_plan_keys(plan)
    try:
        key = tuple(_cache_token(plan.get(name)) for name in PLAN_KEYS if name != "nodes")
        key += (_listed_node_count(plan),)
    except TypeError:
        return _build_settings(plan)
    settings = _SETTINGS_CACHE.get(key)
    if settings is None:
        settings = _build_settings(plan)
        if len(_SETTINGS_CACHE) >= _SETTINGS_CACHE_SIZE:
            _SETTINGS_CACHE.clear()
        _SETTINGS_CACHE[key] = settings
    return settings


# ---------------------------------------------------------------------------------------------
# Nodes
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    name: str
    management_ip: t.Any
    pod_cidr: t.Any
    # The IPv6 ones of a dual-stack plan.
    management_ip6: t.Any = None
    pod_cidr6: t.Any = None

    def as_dict(self) -> dict[str, t.Any]:
        return {
            "name": self.name,
            "management_ip": joined(self.management_ip, self.management_ip6),
            "pod_cidr": None if self.pod_cidr is None else joined(self.pod_cidr, self.pod_cidr6),
        }


def _families_given(settings: PlanSettings, key: str, pair: tuple[t.Any, t.Any], what: str) -> None:
    """A node's value has an IPv6 member exactly when the plan is dual-stack."""
    if settings.ipv6 is None and pair[1] is not None:
        raise IPPlanError(f"{key} {pair[1]} is IPv6, but the plan is IPv4-only (cluster_cidr has no IPv6 range); "
                          f"give the IPv4 {what} alone")
    if settings.ipv6 is not None and pair[1] is None:
        raise IPPlanError(f"{key} {joined(*pair)} has no IPv6 {what}: in a dual-stack plan each node gives one per "
                          f"family, such as [{pair[0]}, {_example_ipv6(settings, what)}]")


def _example_ipv6(settings: PlanSettings, what: str):
    if what == "address":
        return host_address(settings.ipv6.management, 41)
    return netaddr.IPNetwork((settings.ipv6.cluster.first, settings.ipv6.node_prefix_length), version=6)


def _management_address(key: str, address, management) -> None:
    if address not in management:
        raise IPPlanError(f"{key} {address} is outside management_cidr {management}")
    if management.size > 2 and address.value in (management.first, management.last):
        raise IPPlanError(f"{key} {address} is not a host address of management_cidr {management}")


def node_management_ip(settings: PlanSettings, key: str, value: t.Any) -> tuple[t.Any, t.Any]:
    """A node's addresses on the management network, (IPv4, IPv6 or None): inside management_cidr, host addresses.
    The kubelet's --node-ip takes both on a dual-stack node (dual-stack.md, "Configure IPv4/IPv6 dual-stack")."""
    pair = parse_addresses(key, value)
    _families_given(settings, key, pair, "address")
    _management_address(key, pair[0], settings.management)
    if pair[1] is not None:
        _management_address(key, pair[1], settings.ipv6.management)
    return pair


def _node_subnet(key: str, network, cluster, node_prefix_length: int, prefix_key: str) -> None:
    if not _inside(network, cluster):
        raise IPPlanError(f"{key} {network} is outside cluster_cidr {cluster}")
    if network.prefixlen != node_prefix_length:
        raise IPPlanError(f"{key} {network} is a /{network.prefixlen}, but {prefix_key} is /{node_prefix_length}")


def node_pod_network(settings: PlanSettings, key: str, value: t.Any) -> tuple[t.Any, t.Any]:
    """A node's pod CIDRs, (IPv4, IPv6 or None): one node subnet of each cluster range; (None, None) where flannel or
    Calico IPAM leases it."""
    if settings.uses_flannel:
        if value is not None:
            raise IPPlanError(
                f"{key} {value} must not be given for {settings.describe_routing()}: flannel leases each "
                f"node's pod CIDR itself (from the node's spec.podCIDR), so the plan must not fix one"
            )
        return None, None
    if settings.topology == "calico":
        if value is not None:
            # projectcalico/calico node/pkg/lifecycle/startup/startup_windows.go: EnsureBlock at start-up.
            raise IPPlanError(
                f"{key} {value} must not be given for {settings.describe_routing()}: Calico IPAM gives each "
                f"Windows node its block of the IP pool when calico-node-windows starts, so the plan must not fix one"
            )
        return None, None
    if value is None:
        raise IPPlanError(
            f"{key} is required for {settings.describe_routing()}: without flannel nothing else "
            f"leases the node's pod CIDR"
        )
    pair = parse_ranges(key, value)
    _families_given(settings, key, pair, "range")
    _node_subnet(key, pair[0], settings.cluster, settings.node_prefix_length, "node_prefix_length")
    if pair[1] is not None:
        _node_subnet(key, pair[1], settings.ipv6.cluster, settings.ipv6.node_prefix_length, "node_prefix_length_ipv6")
    return pair


def _node_label(index: int, name: t.Any) -> str:
    return f"nodes[{index}] ({name})" if isinstance(name, str) and name else f"nodes[{index}]"


def _parse_node(settings: PlanSettings, index: int, entry: t.Any) -> Node:
    entry = _require_mapping(f"nodes[{index}]", entry)
    unknown = sorted(str(key) for key in entry if key not in NODE_KEYS)
    if unknown:
        raise IPPlanError(
            f"nodes[{index}] has unknown key(s) {', '.join(unknown)}; known keys are {', '.join(NODE_KEYS)}"
        )
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise IPPlanError(f"nodes[{index}] needs a name (a non-empty string), got {name!r}")
    label = _node_label(index, name)
    if entry.get("management_ip") is None:
        raise IPPlanError(f"{label} needs a management_ip")
    management_ip, management_ip6 = node_management_ip(settings, f"{label} management_ip", entry["management_ip"])
    pod_cidr, pod_cidr6 = node_pod_network(settings, f"{label} pod_cidr", entry.get("pod_cidr"))
    return Node(name=str(name), management_ip=management_ip, pod_cidr=pod_cidr, management_ip6=management_ip6,
                pod_cidr6=pod_cidr6)


def _reject_duplicate_names(nodes: t.Sequence[Node]) -> None:
    first_index: dict[str, int] = {}
    for index, node in enumerate(nodes):
        if node.name in first_index:
            raise IPPlanError(
                f"nodes: name {node.name!r} appears twice (nodes[{first_index[node.name]}] and nodes[{index}])"
            )
        first_index[node.name] = index


def _reject_duplicate_management_ips(nodes: t.Sequence[Node]) -> None:
    owner: dict[t.Any, str] = {}
    for node in nodes:
        for address in (node.management_ip, node.management_ip6):
            if address is None:
                continue
            if (address.version, address.value) in owner:
                raise IPPlanError(
                    f"nodes: management_ip {address} is used by both {owner[(address.version, address.value)]!r} and "
                    f"{node.name!r}"
                )
            owner[(address.version, address.value)] = node.name


def _reject_overlapping_pod_cidrs(nodes: t.Sequence[Node]) -> None:
    for attribute in ("pod_cidr", "pod_cidr6"):
        clash = _first_overlap([(getattr(node, attribute), node.name) for node in nodes
                                if getattr(node, attribute) is not None])
        if clash:
            (first, first_name), (second, second_name) = clash
            raise IPPlanError(
                f"nodes: pod_cidr {second} of {second_name!r} overlaps pod_cidr {first} of {first_name!r}")


def parse_nodes(settings: PlanSettings, raw_nodes: t.Any) -> list[Node]:
    nodes = [_parse_node(settings, index, entry) for index, entry in enumerate(_require_list("nodes", raw_nodes))]
    _reject_duplicate_names(nodes)
    _reject_duplicate_management_ips(nodes)
    _reject_overlapping_pod_cidrs(nodes)
    return nodes


# ---------------------------------------------------------------------------------------------
# Public operations (one per filter)
# ---------------------------------------------------------------------------------------------


def normalize_plan(plan: t.Any) -> dict[str, t.Any]:
    """The whole plan validated, with defaults filled; normalizing a normalized plan changes nothing."""
    settings = plan_settings(plan)
    raw_nodes = plan.get("nodes")
    nodes = [] if raw_nodes is None else parse_nodes(settings, raw_nodes)
    normalized = settings.as_dict()
    normalized["nodes"] = [node.as_dict() for node in nodes]
    return normalized


def is_dual_stack(plan: t.Any) -> bool:
    """Whether a plan, checked or not, asks for dual-stack (an IPv6 range in cluster_cidr); plan_settings holds it to
    the rules. The version policy reads it before the plan is checked, so that both report at once."""
    value = plan.get("cluster_cidr") if isinstance(plan, Mapping) else None
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, (list, tuple)) else []
    return any(isinstance(item, str) and ":" in item for item in items)


def split_families(value: str | None) -> tuple[str | None, str | None]:
    """A normalized value (one per family, IPv4 first, comma-separated) as (IPv4, IPv6 or None)."""
    if value is None:
        return None, None
    first, _comma, second = value.partition(",")
    return first, second or None


def _check_topology_argument(settings: PlanSettings, topology: t.Any) -> None:
    # Roles name the topology they render for, so a plan for another topology fails loudly.
    _coerce_choice("topology", topology, TOPOLOGIES)
    if topology != settings.topology:
        raise IPPlanError(f"topology argument {topology!r} does not match the plan's topology {settings.topology!r}")


def exception_list(plan: t.Any, topology: str | None = None) -> list[str]:
    settings = plan_settings(plan)
    if topology is not None:
        _check_topology_argument(settings, topology)
    if settings.exceptions is None:
        raise IPPlanError(
            "the ovn topology has no OutBoundNAT ExceptionList: ovn_cni.exe does not apply an OutBoundNAT policy"
        )
    # A dual-stack plan: the IPv4 list, then the IPv6 one (each family's OutBoundNAT policy takes its own).
    return list(settings.exceptions) + (list(settings.ipv6.exceptions) if settings.ipv6 else [])


def _gateways(pod_network) -> dict[str, str]:
    if pod_network.size < RESERVED_ADDRESSES_PER_NODE_SUBNET:
        raise IPPlanError(
            f"pod_cidr {pod_network} has no room for a bridge gateway and a host endpoint; it needs at least a /30"
        )
    return {"bridge_gateway": str(host_address(pod_network, 1)), "endpoint_gateway": str(host_address(pod_network, 2))}


def pod_gateways(pod_cidr: t.Any) -> dict[str, str]:
    """The bridge gateway (network + 1) and host endpoint (network + 2) of one pod subnet, of either family."""
    return _gateways(parse_network("pod_cidr", pod_cidr))


def flannel_net_conf(plan: t.Any) -> dict[str, t.Any]:
    settings = plan_settings(plan)
    if not settings.uses_flannel:
        raise IPPlanError(f"{settings.describe_routing()} does not run flannel, so it has no flannel net-conf")
    if settings.topology == "overlay":
        backend = {
            "Type": "vxlan",
            "VNI": settings.vxlan_vni,
            "Port": settings.vxlan_port,
            "Name": settings.network_name,
        }
    else:
        backend = {"Type": "host-gw", "Name": settings.network_name}
    return {"Network": str(settings.cluster), "Backend": backend}


def static_routes(plan: t.Any, nodes: t.Any = None) -> dict[str, list[dict[str, str]]]:
    settings = plan_settings(plan)
    if settings.topology != "l2bridge" or settings.uses_flannel:
        raise IPPlanError(
            f"static routes are for l2bridge without flannel (l2bridge_routing static_routes or upstream); "
            f"{settings.describe_routing()} programs its routes itself"
        )
    listed = parse_nodes(settings, plan.get("nodes") or [])
    given = listed if nodes is None else parse_nodes(settings, nodes)
    if nodes is not None and listed and given != listed:
        raise IPPlanError(
            "static_routes got a nodes argument that differs from the plan's nodes; give the nodes in one place"
        )
    if not given:
        raise IPPlanError("static_routes needs the node list, in the plan's nodes or as its argument")
    by_destination = sorted(given, key=lambda node: node.pod_cidr.first)
    # Each family's routes go through the peer's address of that family: the IPv4 ones first, then the IPv6 ones.
    families = (("pod_cidr", "management_ip"), ("pod_cidr6", "management_ip6"))
    return {
        node.name: [
            {"destination": str(getattr(peer, subnet)), "next_hop": str(getattr(peer, address)), "via_node": peer.name}
            for subnet, address in families
            for peer in by_destination
            if peer.name != node.name and getattr(peer, subnet) is not None
        ]
        for node in sorted(given, key=lambda node: node.name)
    }


# ---------------------------------------------------------------------------------------------
# CNI configuration
# ---------------------------------------------------------------------------------------------


def _endpoint_policy(value: dict[str, t.Any]) -> dict[str, t.Any]:
    return {"Name": "EndpointPolicy", "Value": value}


def _outbound_nat_policy(exceptions: t.Sequence[str], runtime: str) -> dict[str, t.Any]:
    if runtime == "docker":
        return _endpoint_policy({"Type": "OutBoundNAT", "ExceptionList": list(exceptions)})
    return _endpoint_policy({"Type": "OutBoundNAT", "Settings": {"Exceptions": list(exceptions)}})


def _encapsulated_route_policy(destination: str, runtime: str) -> dict[str, t.Any]:
    if runtime == "docker":
        return _endpoint_policy({"Type": "ROUTE", "DestinationPrefix": destination, "NeedEncap": True})
    return _endpoint_policy({"Type": "SDNRoute", "Settings": {"DestinationPrefix": destination, "NeedEncap": True}})


def _provider_address_policy(management_ip) -> dict[str, t.Any]:
    return _endpoint_policy({"Type": "ProviderAddress", "Settings": {"ProviderAddress": str(management_ip)}})


def _endpoint_policies(settings: PlanSettings, runtime: str, addresses) -> list[dict[str, t.Any]]:
    """``addresses``: the node's management addresses, (IPv4, IPv6 or None). A dual-stack node has each policy once
    per family, the IPv4 one first (microsoft/windows-container-networking example/l2bridgedualstack_host-local_ipam.conf:
    an OutBoundNAT with the IPv4 exceptions, one with the IPv6 ones, an SDNRoute per family)."""
    management_ip, management_ip6 = addresses
    ipv6 = settings.ipv6
    # Service traffic must leave through the host so kube-proxy's load balancers see it.
    policies = [_outbound_nat_policy(settings.exceptions, runtime)]
    if ipv6:
        policies.append(_outbound_nat_policy(ipv6.exceptions, runtime))
    policies.append(_encapsulated_route_policy(str(settings.service), runtime))
    if ipv6:
        policies.append(_encapsulated_route_policy(str(ipv6.service), runtime))
    if settings.topology == "l2bridge":
        # Pods reach their own node's management address through the host endpoint.
        policies.append(_encapsulated_route_policy(f"{management_ip}/32", runtime))
        if ipv6:
            policies.append(_encapsulated_route_policy(f"{management_ip6}/128", runtime))
    elif runtime == "containerd":
        # win-overlay adds this itself; sdnoverlay needs it spelled out.
        policies.append(_provider_address_policy(management_ip))
    return policies


def _plugin_settings(settings: PlanSettings, runtime: str, management_ip) -> dict[str, t.Any]:
    """What win-bridge/win-overlay (docker) or sdnbridge/sdnoverlay (containerd) need, named their way."""
    if runtime == "docker":
        return {
            # dockershim hands plugins no runtime DNS, so the config carries it.
            "dns": {"Nameservers": [str(settings.dns_service_ip)], "Search": [f"svc.{settings.cluster_domain}"]},
            "policies": _endpoint_policies(settings, runtime, management_ip),
        }
    return {"AdditionalArgs": _endpoint_policies(settings, runtime, management_ip)}


def _runtime_capabilities(runtime: str) -> dict[str, t.Any]:
    # containerd passes kubelet's DNS settings and port mappings at run time when asked to.
    return {"capabilities": {"portMappings": True, "dns": True}} if runtime == "containerd" else {}


def _header(settings: PlanSettings, runtime: str, name: str, plugin_type: str) -> dict[str, t.Any]:
    return {"cniVersion": CNI_VERSIONS[runtime], "name": name, "type": plugin_type, **_runtime_capabilities(runtime)}


def _force_bridge_gateway(settings: PlanSettings) -> dict[str, t.Any]:
    # Under flannel the delegate may not carry IPAM, so sdnbridge cannot be told the endpoint
    # gateway; forceBridgeGateway makes it use .2, which is network + 2 only for /24 or larger.
    if settings.node_prefix_length > MAX_PREFIX_FOR_FORCE_BRIDGE_GATEWAY:
        raise IPPlanError(
            f"l2bridge with flannel on containerd needs node_prefix_length /{MAX_PREFIX_FOR_FORCE_BRIDGE_GATEWAY} "
            f"or shorter, got /{settings.node_prefix_length}: sdnbridge's forceBridgeGateway sets the last "
            f"octet to 2 instead of adding 2, which misses the host endpoint of smaller pod subnets"
        )
    return {"optionalFlags": {"forceBridgeGateway": True}}


def _flannel_cni_config(settings: PlanSettings, runtime: str, management_ip) -> dict[str, t.Any]:
    # The flannel plugin fills in name and ipam itself and refuses a delegate that has either.
    delegate: dict[str, t.Any] = {"type": CNI_PLUGIN_TYPES[(settings.topology, runtime)]}
    if settings.topology == "l2bridge" and runtime == "containerd":
        delegate.update(_force_bridge_gateway(settings))
    delegate.update(_plugin_settings(settings, runtime, management_ip))
    return {**_header(settings, runtime, settings.network_name, "flannel"), "delegate": delegate}


def _pod_ipam(pod_network) -> dict[str, t.Any]:
    # Pods leave through the host endpoint (network + 2), as in the wincni l2bridge example;
    # allocation starts after it so no pod takes the bridge gateway or the host endpoint.
    gateways = _gateways(pod_network)
    return {
        "type": "host-local",
        "subnet": str(pod_network),
        "rangeStart": str(host_address(pod_network, 3)),
        "gateway": gateways["endpoint_gateway"],
        "routes": [{"dst": "0.0.0.0/0", "gw": gateways["endpoint_gateway"]}],
    }


def _dual_stack_ipam(pod_networks) -> dict[str, t.Any]:
    """host-local with one range set per family (containernetworking/plugins host-local: "ranges", a list of range
    sets, one address from each), the host endpoint of each family as its gateway and default route. sdnbridge with
    enableDualStack takes the subnets, routes and gateways from the IPAM result alone (microsoft/windows-container-
    networking#61)."""
    ranges, routes = [], []
    for network in pod_networks:
        gateway = _gateways(network)["endpoint_gateway"]
        ranges.append([{"subnet": str(network), "rangeStart": str(host_address(network, 3)), "gateway": gateway}])
        routes.append({"dst": "0.0.0.0/0" if network.version == 4 else "::/0", "gw": gateway})
    return {"type": "host-local", "ranges": ranges, "routes": routes}


def _bridge_cni_config(settings: PlanSettings, runtime: str, addresses, pod_networks) -> dict[str, t.Any]:
    config = _header(settings, runtime, settings.network_name, CNI_PLUGIN_TYPES[("l2bridge", runtime)])
    if settings.ipv6:
        # sdnbridge's dual-stack mode (microsoft/windows-container-networking#61 and its example
        # l2bridgedualstack_host-local_ipam.conf): off unless optionalFlags.enableDualStack.
        config["optionalFlags"] = {"enableDualStack": True}
        config["ipam"] = _dual_stack_ipam(pod_networks)
    else:
        config["ipam"] = _pod_ipam(pod_networks[0])
    config.update(_plugin_settings(settings, runtime, addresses))
    return config


def _ovn_cni_config(pod_network) -> dict[str, t.Any]:
    # The ovn_cni.exe example of the source documents, which spells its flags as strings.
    return {
        "cniVersion": OVN_CNI_VERSION,
        "name": OVN_CNI_NETWORK_NAME,
        "type": "ovn_cni.exe",
        "bridge": "br-int",
        "isGateway": "true",
        "ipMasq": "false",
        "ipam": {"type": "host-local", "subnet": str(pod_network)},
    }


def cni_config(
    plan: t.Any, topology: t.Any, runtime: t.Any, management_ip: t.Any, pod_cidr: t.Any = None
) -> dict[str, t.Any]:
    settings = plan_settings(plan)
    _check_topology_argument(settings, topology)
    if settings.topology == "calico":
        # tigera/operator pkg/render/windows.go: calico-node-windows' install-cni container writes it.
        raise IPPlanError(
            "topology calico has no CNI config from the plan: the Tigera operator's calico-node-windows "
            "pods write it on each node (from the Installation)"
        )
    runtime = _coerce_choice("runtime", runtime, CONTAINER_RUNTIMES)
    if settings.ipv6 and runtime != "containerd":
        raise IPPlanError(f"container_runtime {runtime} cannot run a dual-stack node: {DUAL_STACK_REFUSALS[runtime]}; "
                          f"{DUAL_STACK_WHERE}")
    addresses = node_management_ip(settings, "management_ip", management_ip)
    pod_networks = node_pod_network(settings, "pod_cidr", pod_cidr)
    if settings.uses_flannel:
        return _flannel_cni_config(settings, runtime, addresses)
    if settings.topology == "ovn":
        return _ovn_cni_config(pod_networks[0])
    return _bridge_cni_config(settings, runtime, addresses, pod_networks)
