# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Tigera operator's Calico settings compared with what Windows nodes need.

Internal to kubewin.node, not a public API: names and signatures may change in any release.
The public interface is the filter calico_cluster_compare in plugins/filter/cluster_checks.py.

Facts this rests on:
- Calico for Windows through the operator needs IPAM strictAffinity true, an IPv4 pool encapsulated VXLAN (not
  VXLANCrossSubnet) with BGP disabled, or no encapsulation with BGP for the BGP backend, the Kubernetes service
  range in the Installation's serviceCIDRs, calicoNetwork.windowsDataplane HNS, and the ConfigMap
  tigera-operator/kubernetes-services-endpoint with the API server's host and port (tigera/docs
  calico/getting-started/kubernetes/windows-calico/operator.mdx and _includes/components/CalicoWindowsInstall.js).
- The operator renders nothing for Windows while the ConfigMap lacks host or port, serviceCIDRs is empty or the
  IPv4 pool's encapsulation is other than VXLAN or None (tigera/operator pkg/controller/installation/validation.go),
  or strictAffinity is false, an absent IPAMConfiguration counting as false (windows_controller.go).
- Windows supports IPv4 only, no cross-subnet VXLAN, and no overlay together with BGP peering (tigera/docs
  windows-calico/limitations.mdx).
- The operator reconciles the Installation's ipPools into IPPool resources and deletes the pools it made that are no
  longer listed, so a changed CIDR is a new pool (pkg/controller/ippool/pool_controller.go); removing the pool pods
  run from breaks their connectivity, which is why Calico's own procedure adds a pool, disables the old one and
  recreates the pods before deleting it (tigera/docs calico/networking/ipam/migrate-pools.mdx).
- A pool's blockSize "can only be set when the pool is created" (tigera/docs calico/reference/resources/ippool.mdx);
  the API server refuses a change ("IPPool BlockSize cannot be modified", projectcalico/calico
  libcalico-go/lib/clientv3/ippool.go; the CRD's rule "Block size cannot be changed; follow IP pool migration
  guide", api/pkg/apis/projectcalico/v3/ippool.go). The operator defaults it to 26 for IPv4 (ippool/defaults.go).
- Felix's VXLAN VNI and port come from the FelixConfiguration ``default``: vxlanVNI 4096 and vxlanPort 4789 when unset
  (tigera/docs calico/reference/resources/felixconfig.mdx, config-params.json; projectcalico/calico
  felix/config/config_params.go), which the operator also writes back into it (tigera/operator
  pkg/controller/installation/core_controller.go, setDefaultsOnFelixConfiguration); the operator hands that VNI to
  calico-node-windows (windows_controller.go, pkg/render/windows.go), whose CNI refuses a VNI below 4096 when it
  creates the Overlay network (projectcalico/calico cni-plugin/pkg/dataplane/windows/dataplane_windows.go). The
  settings hold for every node, Linux ones too. vxlanEnabled is optional ("Felix determines this based on the
  existing IP pools"); an explicit false keeps Felix on Linux nodes from making the VXLAN device.
"""

from __future__ import annotations

import copy
import ipaddress
import typing as t
from urllib.parse import urlsplit

from ansible_collections.kubewin.node.plugins.plugin_utils._cluster import ClusterCheckError, _same_network

BACKENDS = {
    # backend: (the IPv4 pool's encapsulation, calicoNetwork.bgp)
    "vxlan": ("VXLAN", "Disabled"),
    "bgp": ("None", "Enabled"),
}
OPERATOR_NAMESPACE = "tigera-operator"
# The label the operator puts on the IPPools it makes from the Installation (pkg/controller/ippool/pool_controller.go).
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
SERVICES_ENDPOINT = "kubernetes-services-endpoint"
# What the operator fills in when the Installation leaves them unset (core_controller.go, ippool/defaults.go).
OPERATOR_DEFAULT_BGP = "Enabled"
OPERATOR_DEFAULT_ENCAPSULATION = "IPIP"
OPERATOR_DEFAULT_WINDOWS_DATAPLANE = "Disabled"
MIGRATE_POOLS = "Calico's 'Migrate from one IP pool to another' (networking/ipam/migrate-pools)"
# Felix's defaults for the fields the Windows side depends on (felixconfig.mdx; felix/config/config_params.go).
FELIX_DEFAULT_VXLAN_VNI = 4096
FELIX_DEFAULT_VXLAN_PORT = 4789
# The block size Calico IPAM uses when a pool does not set one (ippool.mdx; tigera/operator ippool/defaults.go).
DEFAULT_IPV4_BLOCK_SIZE = 26
# What the compare reads of the normalized plan (plan_cluster).
PLAN_KEYS = ("cluster_cidr", "service_cidr", "node_prefix_length", "vxlan_vni", "vxlan_port")
ALLOW_NETWORK_HINT = " (set control_plane_patch_calico_network to true to have it patched)"


def _spec(obj: t.Any, what: str) -> dict[str, t.Any]:
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise ClusterCheckError(f"calico_cluster_compare: {what} must be an object, got {type(obj).__name__}")
    spec = obj.get("spec") or {}
    if not isinstance(spec, dict):
        raise ClusterCheckError(f"calico_cluster_compare: {what}.spec must be an object, got {spec!r}")
    return spec


def _version(cidr: t.Any) -> int | None:
    try:
        return ipaddress.ip_network(str(cidr), strict=False).version
    except ValueError:
        return None


def _api_server(server: t.Any) -> tuple[str, str]:
    """(host, port) of an API server URL such as cluster-info's ``https://10.1.2.3:6443``."""
    parts = urlsplit(str(server))
    if parts.scheme != "https" or not parts.hostname:
        raise ClusterCheckError(f"calico_cluster_compare: api_server must be an https URL, got {server!r}")
    return parts.hostname, str(parts.port or 443)


def _in_service_range(host: str, service_cidr: str) -> bool:
    try:
        return ipaddress.ip_address(host) in ipaddress.ip_network(service_cidr, strict=False)
    except ValueError:  # a DNS name is never a Service IP
        return False


def _shown(value: t.Any, default: str) -> tuple[str, str]:
    """(the value the operator acts on, how a message shows it): unset fields are the operator's defaults."""
    if value is None or value == "":
        return default, f"{default} (the operator's default; the Installation does not set it)"
    return str(value), str(value)


class _Report:
    """Differences, each either patched or refused."""

    def __init__(self) -> None:
        self.differences: list[str] = []
        self.refused: list[str] = []

    def patched(self, message: str) -> None:
        self.differences.append(message)

    def refuse(self, message: str) -> None:
        self.differences.append(message)
        self.refused.append(message)


def _compare_block_size(report: _Report, what: str, block_size: t.Any, plan: dict[str, t.Any]) -> None:
    """A pool's blockSize against the plan's node_prefix_length: each Windows node gets one block and no more."""
    wanted = int(plan["node_prefix_length"])
    has, shown = _shown(block_size, str(DEFAULT_IPV4_BLOCK_SIZE))
    if has == str(wanted):
        return
    report.refuse(f"{what} blockSize: cluster has {shown}, Windows nodes need {wanted} (the plan's node_prefix_length, "
                  f"from which max_pods is derived); not patched: a pool's block size is fixed when the pool is "
                  f"created, see {MIGRATE_POOLS}, or set kubewin_node_prefix_length to {has}")


def _compare_pools(report: _Report, network: dict[str, t.Any], ip_pools: list[t.Any], plan: dict[str, t.Any],
                   encapsulation: str, allow_network: bool) -> list[dict[str, t.Any]] | None:
    """Check the pools; returns the Installation's ipPools to send when an encapsulation must change, else None."""
    cluster_cidr = plan["cluster_cidr"]
    installation_pools = network.get("ipPools")
    if installation_pools is not None and not isinstance(installation_pools, list):
        raise ClusterCheckError(f"calico_cluster_compare: spec.calicoNetwork.ipPools must be a list, got {installation_pools!r}")
    pools_to_send = None
    allocating = []
    for index, pool in enumerate(installation_pools or []):
        if not isinstance(pool, dict):
            raise ClusterCheckError(f"calico_cluster_compare: spec.calicoNetwork.ipPools[{index}] must be an object, got {pool!r}")
        if pool.get("disableNewAllocations"):
            continue  # a pool being retired (Calico's migration procedure): no pod gets an address from it any more
        allocating.append(pool)
        name = pool.get("name") or f"ipPools[{index}]"
        cidr = pool.get("cidr")
        if _version(cidr) != 4:
            report.refuse(f"Installation IP pool {name}: {cidr} is not an IPv4 range; Calico for Windows supports "
                          "IPv4 only (no IPv6, no dual stack)")
            continue
        if not _same_network(cidr, cluster_cidr):
            report.refuse(f"Installation IP pool {name}: cluster has {cidr}, Windows nodes need {cluster_cidr} "
                          f"(kubewin_cluster_cidr); not patched: the operator would replace the pool under running "
                          f"pods, see {MIGRATE_POOLS}, or change the plan")
            continue
        _compare_block_size(report, f"Installation IP pool {name}", pool.get("blockSize"), plan)
        has, shown = _shown(pool.get("encapsulation"), OPERATOR_DEFAULT_ENCAPSULATION)
        if has != encapsulation:
            message = f"Installation IP pool {name} encapsulation: cluster has {shown}, Windows nodes need {encapsulation}"
            if allow_network:
                report.patched(message)
                pools_to_send = pools_to_send or copy.deepcopy(installation_pools)
                pools_to_send[index]["encapsulation"] = encapsulation
            else:
                report.refuse(message + ALLOW_NETWORK_HINT)
    enabled = [p for p in ip_pools if isinstance(p, dict) and not _spec(p, "an IPPool").get("disabled")]
    for pool in enabled:
        if ((pool.get("metadata") or {}).get("labels") or {}).get(MANAGED_BY_LABEL) == "tigera-operator":
            continue  # the operator's copy of an Installation pool, compared above
        cidr = _spec(pool, "an IPPool").get("cidr")
        name = (pool.get("metadata") or {}).get("name", "?")
        if _version(cidr) == 4 and _same_network(cidr, cluster_cidr):
            _compare_block_size(report, f"IPPool {name}", _spec(pool, "an IPPool").get("blockSize"), plan)
        elif _version(cidr) == 4:
            report.refuse(f"IPPool {name}: cluster has {cidr}, Windows nodes need {cluster_cidr} (kubewin_cluster_cidr); "
                          f"Calico may give Windows pods addresses from any enabled pool: disable or remove it "
                          f"({MIGRATE_POOLS})")
    if not any(_version(p.get("cidr")) == 4 for p in allocating) and not any(
            _version(_spec(p, "an IPPool").get("cidr")) == 4 for p in enabled):
        report.refuse(f"no IPv4 IP pool: Windows nodes need one with {cluster_cidr} (kubewin_cluster_cidr) in the "
                      "Installation's spec.calicoNetwork.ipPools")
    return pools_to_send


def calico_cluster_compare(cluster: t.Any, plan: t.Any, api_server: t.Any, backend: t.Any = "vxlan",
                           allow_network: t.Any = False) -> dict[str, t.Any]:
    """Compare the operator's objects with what Windows nodes need.

    ``cluster`` holds ``installation`` (the Installation ``default``), ``ipam_configuration`` (IPAMConfiguration
    ``default`` or None), ``felix_configuration`` (FelixConfiguration ``default`` or None), ``ip_pools`` (the IPPool
    resources) and ``services_endpoint`` (the ConfigMap or None).
    ``plan`` is the normalized IP plan; ``api_server`` the API server URL Windows nodes join through (cluster-info);
    ``allow_network`` whether changes to the Linux pod network (encapsulation, BGP, Felix's VXLAN settings) may be
    patched.

    Returns ``differences`` (every message), ``refused`` (those that are not patched) and the definitions to
    apply: ``installation_patch`` (the Installation as a JSON merge patch, None when nothing changes),
    ``ipam_configuration``, ``felix_configuration`` (JSON merge patches that create the object when absent) and
    ``services_endpoint`` (a whole object), each None when nothing changes.
    """
    if not isinstance(cluster, dict) or not isinstance(cluster.get("installation"), dict):
        raise ClusterCheckError("calico_cluster_compare needs a dict with the Installation object as 'installation'")
    if not isinstance(plan, dict) or any(key not in plan for key in PLAN_KEYS):
        raise ClusterCheckError("calico_cluster_compare needs the normalized IP plan (the plan_cluster fact)")
    if backend not in BACKENDS:
        raise ClusterCheckError(f"calico_cluster_compare: backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    ip_pools = cluster.get("ip_pools") or []
    if not isinstance(ip_pools, list):
        raise ClusterCheckError(f"calico_cluster_compare: ip_pools must be a list, got {type(ip_pools).__name__}")
    host, port = _api_server(api_server)
    encapsulation, bgp = BACKENDS[backend]
    report = _Report()
    spec = _spec(cluster["installation"], "the Installation")
    network = spec.get("calicoNetwork") or {}
    patch: dict[str, t.Any] = {}
    network_patch: dict[str, t.Any] = {}

    has_bgp, shown = _shown(network.get("bgp"), OPERATOR_DEFAULT_BGP)
    if has_bgp != bgp:
        message = f"Installation spec.calicoNetwork.bgp: cluster has {shown}, Windows nodes need {bgp} ({backend} backend)"
        if allow_network:
            report.patched(message)
            network_patch["bgp"] = bgp
        else:
            report.refuse(message + ALLOW_NETWORK_HINT)
    pools = _compare_pools(report, network, ip_pools, plan, encapsulation, bool(allow_network))
    if pools is not None:
        network_patch["ipPools"] = pools

    dataplane, shown = _shown(network.get("windowsDataplane"), OPERATOR_DEFAULT_WINDOWS_DATAPLANE)
    if dataplane != "HNS":
        report.patched(f"Installation spec.calicoNetwork.windowsDataplane: cluster has {shown}, Windows nodes need HNS")
        network_patch["windowsDataplane"] = "HNS"

    service_cidrs = spec.get("serviceCIDRs") or []
    if not any(_same_network(cidr, plan["service_cidr"]) for cidr in service_cidrs):
        shown = ", ".join(map(str, service_cidrs)) or "none"
        report.patched(f"Installation spec.serviceCIDRs: cluster has {shown}, Windows nodes need "
                       f"{plan['service_cidr']} (kubewin_service_cidr)")
        # The IPv4 entry is the plan's (kubeadm's serviceSubnet, checked earlier); IPv6 entries stay.
        patch["serviceCIDRs"] = [plan["service_cidr"]] + [c for c in service_cidrs if _version(c) == 6]
    if network_patch:
        patch["calicoNetwork"] = network_patch

    ipam = _spec(cluster.get("ipam_configuration"), "the IPAMConfiguration")
    ipam_definition = None
    if ipam.get("strictAffinity") is not True:
        has = "no IPAMConfiguration default (Calico's default, false)" if cluster.get("ipam_configuration") is None \
            else str(ipam.get("strictAffinity", False)).lower()
        report.patched(f"IPAMConfiguration default strictAffinity: cluster has {has}, Windows nodes need true")
        ipam_definition = {"apiVersion": "projectcalico.org/v3", "kind": "IPAMConfiguration",
                           "metadata": {"name": "default"}, "spec": {"strictAffinity": True}}

    felix_definition = _compare_felix_configuration(report, cluster.get("felix_configuration"), plan, backend,
                                                    bool(allow_network))
    endpoint_definition = _compare_services_endpoint(report, cluster.get("services_endpoint"), host, port, plan)
    return {
        "differences": report.differences,
        "refused": report.refused,
        "installation_patch": {"apiVersion": "operator.tigera.io/v1", "kind": "Installation",
                               "metadata": {"name": "default"}, "spec": patch} if patch else None,
        "ipam_configuration": ipam_definition,
        "felix_configuration": felix_definition,
        "services_endpoint": endpoint_definition,
    }


def _compare_felix_configuration(report: _Report, felix: t.Any, plan: dict[str, t.Any], backend: str,
                                 allow_network: bool) -> dict[str, t.Any] | None:
    """FelixConfiguration default's VXLAN settings, which the operator hands to calico-node-windows.

    Only the VXLAN backend encapsulates pod traffic, so only it is checked. The settings are global: changing them
    changes the VXLAN device of every Linux node too, so they are patched only when the Linux pod network may be
    (allow_network), as the pools' encapsulation is. Returns the definition to apply as a JSON merge patch, or None.
    """
    if backend != "vxlan":
        return None
    spec = _spec(felix, "the FelixConfiguration")
    where = "FelixConfiguration default"
    messages = []
    patch: dict[str, t.Any] = {}
    for field, plan_key, default in (("vxlanVNI", "vxlan_vni", FELIX_DEFAULT_VXLAN_VNI),
                                     ("vxlanPort", "vxlan_port", FELIX_DEFAULT_VXLAN_PORT)):
        wanted = int(plan[plan_key])
        value = spec.get(field)
        if (default if value is None else value) == wanted:
            continue
        shown = f"{default} (Felix's default; unset)" if value is None else str(value)
        messages.append(f"{where} {field}: cluster has {shown}, Windows nodes need {wanted} (kubewin_{plan_key})")
        patch[field] = wanted
    if spec.get("vxlanEnabled") is False:
        messages.append(f"{where} vxlanEnabled: cluster has false, which keeps Felix from making its VXLAN device; "
                        "Windows nodes need it unset (Felix then follows the VXLAN IP pool)")
        patch["vxlanEnabled"] = None  # JSON merge patch: null removes the field
    for message in messages:
        if allow_network:
            report.patched(message)
        else:
            report.refuse(message + ALLOW_NETWORK_HINT)
    if not patch or not allow_network:
        return None
    return {"apiVersion": "projectcalico.org/v3", "kind": "FelixConfiguration", "metadata": {"name": "default"},
            "spec": patch}


def _compare_services_endpoint(report: _Report, config_map: t.Any, host: str, port: str,
                               plan: dict[str, t.Any]) -> dict[str, t.Any] | None:
    """The ConfigMap Calico's Windows pods build their kubeconfig from.

    They start before kube-proxy can serve Service IPs on the node (kube-proxy needs the HNS network Calico
    creates), so a Service IP there is wrong and is replaced; another real address is the user's choice
    (a load balancer, a DNS name) and is refused rather than overwritten.
    """
    where = f"ConfigMap {OPERATOR_NAMESPACE}/{SERVICES_ENDPOINT}"
    wanted = {"KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": port}
    definition = {"apiVersion": "v1", "kind": "ConfigMap",
                  "metadata": {"name": SERVICES_ENDPOINT, "namespace": OPERATOR_NAMESPACE}, "data": wanted}
    if config_map is None:
        report.patched(f"{where}: absent, Windows nodes need KUBERNETES_SERVICE_HOST={host}, KUBERNETES_SERVICE_PORT={port} "
                       "(the API server's address in kube-public/cluster-info)")
        return definition
    data = (config_map.get("data") or {}) if isinstance(config_map, dict) else {}
    has_host, has_port = data.get("KUBERNETES_SERVICE_HOST") or "", str(data.get("KUBERNETES_SERVICE_PORT") or "")
    if has_host == host and has_port == port:
        return None
    shown = f"KUBERNETES_SERVICE_HOST={has_host or '(unset)'}, KUBERNETES_SERVICE_PORT={has_port or '(unset)'}"
    needed = f"KUBERNETES_SERVICE_HOST={host}, KUBERNETES_SERVICE_PORT={port}"
    if not has_host or not has_port or _in_service_range(has_host, plan["service_cidr"]):
        reason = "a Service IP, which Windows nodes cannot reach before Calico runs" if has_host and has_port else "incomplete"
        report.patched(f"{where}: cluster has {shown} ({reason}), Windows nodes need {needed}")
        return definition
    report.refuse(f"{where}: cluster has {shown}, another address than the API server's in kube-public/cluster-info "
                  f"({needed}); not overwritten: set it to that address, or make cluster-info name the same one")
    return None
