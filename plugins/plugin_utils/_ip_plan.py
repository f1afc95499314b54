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

REQUIRED_KEYS = ("topology", "cluster_cidr", "service_cidr", "management_cidr")
PLAN_KEYS = (
    "topology",
    "cluster_cidr",
    "service_cidr",
    "dns_service_ip",
    "management_cidr",
    "extra_exceptions",
    "node_prefix_length",
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
_PREFIX_TEXT_RE = re.compile(r"\d{1,2}")
_IPV4_ONLY = "dual-stack/IPv6 is not supported yet (IPv4 only in this release)"


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


def _reject_non_ipv4(key: str, text: str) -> None:
    if "," in text:
        raise IPPlanError(f"{key} {text!r} lists several ranges; {_IPV4_ONLY}")
    if ":" in text:
        raise IPPlanError(f"{key} {text} is IPv6; {_IPV4_ONLY}")


def _ipv4_address_or_none(text: str):
    try:
        return netaddr.IPAddress(text, 4, flags=netaddr.INET_PTON)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return None


def parse_ipv4_network(key: str, value: t.Any):
    """Parse 'a.b.c.d/n' strictly; host bits are an error that names the canonical form."""
    text = _require_text(key, value, "an IPv4 CIDR such as 10.244.0.0/16")
    _reject_non_ipv4(key, text)
    address_text, slash, prefix_text = text.partition("/")
    address = _ipv4_address_or_none(address_text)
    if not slash or address is None or not _PREFIX_TEXT_RE.fullmatch(prefix_text) or int(prefix_text) > 32:
        raise IPPlanError(f"{key} {text!r} is not an IPv4 CIDR (expected address/prefix, e.g. 10.244.0.0/16)")
    network = netaddr.IPNetwork((address.value, int(prefix_text)))
    canonical = network.cidr
    if network.value != canonical.value:
        raise IPPlanError(f"{key} {text} has host bits set; did you mean {canonical}?")
    return canonical


def parse_ipv4_address(key: str, value: t.Any):
    text = _require_text(key, value, "an IPv4 address such as 10.96.0.10")
    _reject_non_ipv4(key, text)
    address = _ipv4_address_or_none(text)
    if address is None:
        raise IPPlanError(f"{key} {text!r} is not an IPv4 address")
    return address


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
    return netaddr.IPAddress(network.first + offset, 4)


# ---------------------------------------------------------------------------------------------
# The plan's network settings (everything but the node inventory)
# ---------------------------------------------------------------------------------------------


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
            "cluster_cidr": str(self.cluster),
            "service_cidr": str(self.service),
            "dns_service_ip": str(self.dns_service_ip),
            "management_cidr": str(self.management),
            "extra_exceptions": [str(network) for network in self.extra_exceptions],
            "node_prefix_length": self.node_prefix_length,
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


def _service_range(plan: Mapping):
    service = parse_ipv4_network("service_cidr", plan["service_cidr"])
    if service.prefixlen < MIN_IPV4_SERVICE_PREFIX:
        raise IPPlanError(
            f"service_cidr {service} is too large: kube-apiserver refuses it "
            f"(an IPv4 service range needs a mask of at least /{MIN_IPV4_SERVICE_PREFIX})"
        )
    return service


def _reject_range_overlaps(cluster, service, management) -> None:
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


def _dns_service_ip(plan: Mapping, service):
    given = plan.get("dns_service_ip")
    if given is not None:
        return parse_ipv4_address("dns_service_ip", given)
    if service.size <= DNS_SERVICE_IP_OFFSET + 1:
        raise IPPlanError(
            f"service_cidr {service} is too small for the default dns_service_ip "
            f"(network + {DNS_SERVICE_IP_OFFSET}); set dns_service_ip or use a larger range"
        )
    return host_address(service, DNS_SERVICE_IP_OFFSET)


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
        raise IPPlanError(f"dns_service_ip {dns} is the broadcast address of service_cidr {service}")


def _check_service_capacity(service) -> None:
    usable = service.size - 2
    needed = 2 + MIN_OTHER_SERVICES
    if usable < needed:
        raise IPPlanError(
            f"service_cidr {service} holds {usable} Service addresses: the kubernetes API, the cluster DNS and at "
            f"least {MIN_OTHER_SERVICES} more Services need {needed} (a /28 or larger)"
        )


def _check_node_subnet_fits_pods(node_prefix_length: int, max_pods: int) -> None:
    addresses = 2 ** (32 - node_prefix_length)
    needed = max_pods + RESERVED_ADDRESSES_PER_NODE_SUBNET
    if addresses < needed:
        longest = 32 - math.ceil(math.log2(needed))
        raise IPPlanError(
            f"node_prefix_length /{node_prefix_length} gives each node {addresses} addresses, fewer than "
            f"max_pods {max_pods} plus {RESERVED_ADDRESSES_PER_NODE_SUBNET} (network, bridge gateway, "
            f"host endpoint, broadcast) = {needed}; use /{longest} or shorter, or lower max_pods"
        )


def _check_node_prefix_inside_cluster(cluster, node_prefix_length: int) -> None:
    if node_prefix_length <= cluster.prefixlen:
        raise IPPlanError(
            f"node_prefix_length /{node_prefix_length} is not longer than the prefix of cluster_cidr "
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

    cluster = parse_ipv4_network("cluster_cidr", plan["cluster_cidr"])
    service = _service_range(plan)
    management = parse_ipv4_network("management_cidr", plan["management_cidr"])
    extras = tuple(
        parse_ipv4_network(f"extra_exceptions[{index}]", value)
        for index, value in enumerate(_require_list("extra_exceptions", _given_or_default(plan, "extra_exceptions")))
    )
    _reject_range_overlaps(cluster, service, management)
    named_ranges = [("cluster_cidr", cluster), ("service_cidr", service), ("management_cidr", management)]
    named_ranges += [(f"extra_exceptions[{index}]", network) for index, network in enumerate(extras)]
    placeholder = _placeholder_range(plan, topology, named_ranges)

    dns_service_ip = _dns_service_ip(plan, service)
    _check_dns_service_ip(dns_service_ip, service)
    _check_service_capacity(service)

    _check_node_prefix_inside_cluster(cluster, node_prefix_length)
    _check_node_subnet_fits_pods(node_prefix_length, max_pods)
    if node_count is not None:
        _check_sizing_rule(cluster, node_count, max_pods)
        _check_node_subnet_count(cluster, node_prefix_length, node_count)
    if topology == "overlay":
        _check_vxlan_port_for_flannel_windows(vxlan_port)
    if topology == "calico":
        _check_calico_windows(vxlan_vni, vxlan_port, extras)

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
        exceptions=_outbound_nat_exceptions(topology, cluster, service, management, extras),
    )


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

    def as_dict(self) -> dict[str, t.Any]:
        return {
            "name": self.name,
            "management_ip": str(self.management_ip),
            "pod_cidr": None if self.pod_cidr is None else str(self.pod_cidr),
        }


def node_management_ip(settings: PlanSettings, key: str, value: t.Any):
    """A node's address on the management network: inside management_cidr and a host address."""
    address = parse_ipv4_address(key, value)
    management = settings.management
    if address not in management:
        raise IPPlanError(f"{key} {address} is outside management_cidr {management}")
    if management.size > 2 and address.value in (management.first, management.last):
        raise IPPlanError(f"{key} {address} is not a host address of management_cidr {management}")
    return address


def node_pod_network(settings: PlanSettings, key: str, value: t.Any):
    """A node's pod CIDR (one node subnet of the cluster range), or None where flannel or Calico IPAM leases it."""
    if settings.uses_flannel:
        if value is not None:
            raise IPPlanError(
                f"{key} {value} must not be given for {settings.describe_routing()}: flannel leases each "
                f"node's pod CIDR itself (from the node's spec.podCIDR), so the plan must not fix one"
            )
        return None
    if settings.topology == "calico":
        if value is not None:
            # projectcalico/calico node/pkg/lifecycle/startup/startup_windows.go: EnsureBlock at start-up.
            raise IPPlanError(
                f"{key} {value} must not be given for {settings.describe_routing()}: Calico IPAM gives each "
                f"Windows node its block of the IP pool when calico-node-windows starts, so the plan must not fix one"
            )
        return None
    if value is None:
        raise IPPlanError(
            f"{key} is required for {settings.describe_routing()}: without flannel nothing else "
            f"leases the node's pod CIDR"
        )
    network = parse_ipv4_network(key, value)
    if not _inside(network, settings.cluster):
        raise IPPlanError(f"{key} {network} is outside cluster_cidr {settings.cluster}")
    if network.prefixlen != settings.node_prefix_length:
        raise IPPlanError(
            f"{key} {network} is a /{network.prefixlen}, but node_prefix_length is /{settings.node_prefix_length}"
        )
    return network


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
    management_ip = node_management_ip(settings, f"{label} management_ip", entry["management_ip"])
    pod_cidr = node_pod_network(settings, f"{label} pod_cidr", entry.get("pod_cidr"))
    return Node(name=str(name), management_ip=management_ip, pod_cidr=pod_cidr)


def _reject_duplicate_names(nodes: t.Sequence[Node]) -> None:
    first_index: dict[str, int] = {}
    for index, node in enumerate(nodes):
        if node.name in first_index:
            raise IPPlanError(
                f"nodes: name {node.name!r} appears twice (nodes[{first_index[node.name]}] and nodes[{index}])"
            )
        first_index[node.name] = index


def _reject_duplicate_management_ips(nodes: t.Sequence[Node]) -> None:
    owner: dict[int, str] = {}
    for node in nodes:
        address = node.management_ip.value
        if address in owner:
            raise IPPlanError(
                f"nodes: management_ip {node.management_ip} is used by both {owner[address]!r} and {node.name!r}"
            )
        owner[address] = node.name


def _reject_overlapping_pod_cidrs(nodes: t.Sequence[Node]) -> None:
    clash = _first_overlap([(node.pod_cidr, node.name) for node in nodes if node.pod_cidr is not None])
    if clash:
        (first, first_name), (second, second_name) = clash
        raise IPPlanError(f"nodes: pod_cidr {second} of {second_name!r} overlaps pod_cidr {first} of {first_name!r}")


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
    return list(settings.exceptions)


def _gateways(pod_network) -> dict[str, str]:
    if pod_network.size < RESERVED_ADDRESSES_PER_NODE_SUBNET:
        raise IPPlanError(
            f"pod_cidr {pod_network} has no room for a bridge gateway and a host endpoint; it needs at least a /30"
        )
    return {"bridge_gateway": str(host_address(pod_network, 1)), "endpoint_gateway": str(host_address(pod_network, 2))}


def pod_gateways(pod_cidr: t.Any) -> dict[str, str]:
    return _gateways(parse_ipv4_network("pod_cidr", pod_cidr))


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
    return {
        node.name: [
            {"destination": str(peer.pod_cidr), "next_hop": str(peer.management_ip), "via_node": peer.name}
            for peer in by_destination
            if peer.name != node.name
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


def _endpoint_policies(settings: PlanSettings, runtime: str, management_ip) -> list[dict[str, t.Any]]:
    # Service traffic must leave through the host so kube-proxy's load balancers see it.
    policies = [
        _outbound_nat_policy(settings.exceptions, runtime),
        _encapsulated_route_policy(str(settings.service), runtime),
    ]
    if settings.topology == "l2bridge":
        # Pods reach their own node's management address through the host endpoint.
        policies.append(_encapsulated_route_policy(f"{management_ip}/32", runtime))
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


def _bridge_cni_config(settings: PlanSettings, runtime: str, management_ip, pod_network) -> dict[str, t.Any]:
    config = _header(settings, runtime, settings.network_name, CNI_PLUGIN_TYPES[("l2bridge", runtime)])
    config["ipam"] = _pod_ipam(pod_network)
    config.update(_plugin_settings(settings, runtime, management_ip))
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
    address = node_management_ip(settings, "management_ip", management_ip)
    pod_network = node_pod_network(settings, "pod_cidr", pod_cidr)
    if settings.uses_flannel:
        return _flannel_cni_config(settings, runtime, address)
    if settings.topology == "ovn":
        return _ovn_cni_config(pod_network)
    return _bridge_cni_config(settings, runtime, address, pod_network)
