# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Command lines of the Windows node services: kubelet, kube-proxy and flanneld.

Internal to kubewin.node, not a public API: names and signatures may change in any release.
The public interface is the set of filters in plugins/filter/node_flags.py.

Each builder takes a dictionary of inputs and returns the arguments (without the executable) in a
deterministic order, sorted by flag name, plus the environment the service needs. Flags a
Kubernetes release no longer accepts are never emitted for it: the kubelet refuses to start on an
unknown flag. Every rule raises FlagsError with a message that names the offending values.
"""

from __future__ import annotations

import ipaddress
import json
import re
import typing as t
from collections.abc import Mapping

import yaml
from ansible.errors import AnsibleFilterError
from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import default_network_name
from ansible_collections.kubewin.node.plugins.plugin_utils._versions import (
    RUNTIME_ENDPOINTS,
    SUPPORTED_KUBERNETES_MINORS,
    Version,
    parse_version,
    pause_image,
    supported_range_text,
    windows_build_label,
    winkernel_dual_stack_fixed,
    winkernel_dual_stack_releases,
)


class FlagsError(AnsibleFilterError):
    """Inputs for a node service's command line, or a command line itself, break a rule."""


# ---------------------------------------------------------------------------------------------
# Flags that releases removed (the kubelet and kube-proxy exit on an unknown flag)
# ---------------------------------------------------------------------------------------------

# KEP-2845: the klog output flags were removed from all components in 1.26
# (kubernetes/kubernetes#112120; kubernetes-sigs/sig-windows-tools#259 saw kubelet 1.26 refuse them).
_KLOG_REMOVED = {
    flag: (1, 26)
    for flag in (
        "--add-dir-header",
        "--alsologtostderr",
        "--log-backtrace-at",
        "--log-dir",
        "--log-file",
        "--log-file-max-size",
        "--logtostderr",
        "--one-output",
        "--skip-headers",
        "--skip-log-headers",
        "--stderrthreshold",
    )
}

KUBELET_REMOVED_FLAGS: dict[str, tuple[int, int]] = {
    **_KLOG_REMOVED,
    # Removed in 1.15 (the source documents' scripts pass it only to older kubelets).
    "--allow-privileged": (1, 15),
    # dockershim's flags went with it in 1.24 (sig-windows-tools PrepareNode.ps1 gates them < 1.24).
    "--network-plugin": (1, 24),
    "--cni-bin-dir": (1, 24),
    "--cni-conf-dir": (1, 24),
    "--image-pull-progress-deadline": (1, 24),
    # kubernetes/website blog "Kubernetes v1.27: upcoming changes" (projectcalico/calico#7688).
    "--container-runtime": (1, 27),
    # kubernetes/kubernetes#133779; kubeadm 1.35 stops writing it (#133778).
    "--pod-infra-container-image": (1, 35),
}

KUBE_PROXY_REMOVED_FLAGS: dict[str, tuple[int, int]] = dict(_KLOG_REMOVED)


def flag_accepted(removed: Mapping[str, tuple[int, int]], flag: str, version: Version) -> bool:
    removed_in = removed.get(flag)
    return removed_in is None or version.minor_key < removed_in


# Feature gates of kube-proxy's winkernel mode. kubernetes/website feature-gates.md: WinOverlay
# alpha 1.14-1.19, beta (on by default) from 1.20, GA and locked in 1.34 (#133042), removal
# proposed in #142125. WinDSR alpha from 1.14, beta (on) from 1.33, GA in 1.34 (#141988).
WINOVERLAY_ON_BY_DEFAULT_FROM = (1, 20)
WINDSR_ON_BY_DEFAULT_FROM = (1, 33)


# ---------------------------------------------------------------------------------------------
# Input checks
# ---------------------------------------------------------------------------------------------

_DNS_LABEL = r"[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?"
_DNS_SUBDOMAIN_RE = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")
_LABEL_NAME_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.\-]{0,61}[A-Za-z0-9])?")
_LABEL_VALUE_RE = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9_.\-]{0,61}[A-Za-z0-9])?)?")
_QUANTITY_RE = re.compile(r"\d+(?:\.\d+)?(?:m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?")
_UNSAFE_PATH_CHARACTERS = ('"', "\n", "\r", "\x00")


def _check_keys(what: str, data: t.Any, known: t.Sequence[str], required: t.Sequence[str]) -> Mapping:
    if not isinstance(data, Mapping):
        raise FlagsError(f"the {what} input must be a dictionary, got {data!r} ({type(data).__name__})")
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        raise FlagsError(f"unknown {what} key(s) {', '.join(unknown)}; known keys are {', '.join(known)}")
    missing = [key for key in required if data.get(key) is None]
    if missing:
        raise FlagsError(f"the {what} input needs {', '.join(missing)}")
    return data


def _given(data: Mapping, key: str, default: t.Any) -> t.Any:
    # Inventories write null to mean "the default", so null and absent are the same.
    value = data.get(key)
    return default if value is None else value


def _supported_version(value: t.Any) -> Version:
    version = parse_version(value, "kubernetes_version")
    first, last = SUPPORTED_KUBERNETES_MINORS
    if not first <= version.minor_key <= last:
        raise FlagsError(f"kubernetes_version {version} is outside the range this collection supports ({supported_range_text()})")
    return version


def _hostname(value: t.Any) -> str:
    # Node names are lower-case DNS names; Windows reports the computer name in upper case, and a
    # kubelet and kube-proxy that disagree on the case see two different nodes.
    if not isinstance(value, str) or not _DNS_SUBDOMAIN_RE.fullmatch(value.strip().lower()) or len(value.strip()) > 253:
        raise FlagsError(f"hostname must be a DNS name such as win-node-01 (it is lower-cased), got {value!r}")
    return value.strip().lower()


def _ip_address(key: str, value: t.Any) -> str:
    try:
        return str(ipaddress.ip_address(value.strip() if isinstance(value, str) else value))
    except (ValueError, TypeError):
        raise FlagsError(f"{key} must be an IP address, got {value!r}") from None


def _one_per_family(key: str, items: list[t.Any], value: t.Any) -> str:
    """Values of a dual-stack flag, one per IP family and IPv4 first, as kube-proxy's --cluster-cidr and the kubelet's
    --node-ip take them (kubernetes/website dual-stack.md, "Configure IPv4/IPv6 dual-stack")."""
    families = [item.version for item in items]
    if len(items) > 2 or len(set(families)) != len(families) or 4 not in families:
        raise FlagsError(f"{key} takes an IPv4 value, or an IPv4 and an IPv6 one (dual-stack), got {value!r}")
    return ",".join(str(item) for item in sorted(items, key=lambda item: item.version))


def _ip_addresses(key: str, value: t.Any) -> str:
    """One address per IP family (the kubelet's --node-ip)."""
    if not isinstance(value, str):
        raise FlagsError(f"{key} must be an IP address, or an IPv4 and an IPv6 one comma-separated, got {value!r}")
    return _one_per_family(key, [ipaddress.ip_address(_ip_address(key, part)) for part in value.split(",")], value)


def _cluster_cidrs(key: str, value: t.Any) -> str:
    """One CIDR per IP family (kube-proxy's --cluster-cidr)."""
    wrong = f"{key} must be a CIDR such as 10.244.0.0/16 without host bits, got {value!r}"
    if not isinstance(value, str):
        raise FlagsError(wrong)
    try:
        networks = [ipaddress.ip_network(part.strip(), strict=True) for part in value.split(",")]
    except ValueError:
        raise FlagsError(wrong) from None
    return _one_per_family(key, networks, value)


def _path(key: str, value: t.Any) -> str:
    # A double quote cannot occur in a Windows path, and it would break the service command line.
    if not isinstance(value, str) or not value.strip() or any(c in value for c in _UNSAFE_PATH_CHARACTERS):
        raise FlagsError(f"{key} must be a path without quotes or line breaks, got {value!r}")
    return value


def _optional_path(data: Mapping, key: str, default: str | None = None) -> str | None:
    value = data.get(key, default)
    return None if value is None else _path(key, value)


def _bool(key: str, value: t.Any) -> bool:
    if not isinstance(value, bool):
        raise FlagsError(f"{key} must be true or false, got {value!r}")
    return value


def _verbosity(value: t.Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10:
        raise FlagsError(f"verbosity must be an integer from 0 to 10 (klog's --v), got {value!r}")
    return value


def _max_pods(data: Mapping) -> str | None:
    value = data.get("max_pods")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise FlagsError(f"max_pods must be a positive integer (kubelet's --max-pods), got {value!r}")
    return str(value)


def _choice(key: str, value: t.Any, choices: t.Sequence[str]) -> str:
    if value not in choices:
        raise FlagsError(f"{key} must be one of {', '.join(choices)}; got {value!r}")
    return value


def _render(flags: Mapping[str, str | None]) -> list[str]:
    # Sorted by name so that an unchanged input gives an unchanged service command line.
    return [name if value is None else f"{name}={value}" for name, value in sorted(flags.items())]


# ---------------------------------------------------------------------------------------------
# Service manager and logs
# ---------------------------------------------------------------------------------------------

SERVICE_MANAGERS = ("scm", "nssm")
DEFAULT_KUBE_LOG_RUNNER = "C:\\k\\kube-log-runner.exe"


# The flags of kube-log-runner (k8s.io/component-base/logs/kube-log-runner) and the release whose
# archive first ships a runner that has them; Go's flag package makes the runner exit on any other.
# -log-file-size, -log-file-age and -flush-interval came with kubernetes/kubernetes#127667, in 1.34
# (CHANGELOG-1.34.md, v1.34.0-alpha.1).
KUBE_LOG_RUNNER_FLAGS_ADDED: dict[str, tuple[int, int]] = {
    "-log-file": (1, 0),
    "-also-stdout": (1, 0),
    "-redirect-stderr": (1, 0),
    "-log-file-size": (1, 34),
    "-log-file-age": (1, 34),
    "-flush-interval": (1, 34),
}


def kube_log_runner_rotates(version: Version) -> bool:
    """Whether the kube-log-runner of this release rotates its file itself (-log-file-size)."""
    return version.minor_key >= KUBE_LOG_RUNNER_FLAGS_ADDED["-log-file-size"]


def _log_max_size_mb(data: Mapping) -> int | None:
    value = data.get("log_max_size_mb")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise FlagsError(f"log_max_size_mb must be a whole number of MiB of at least 1, got {value!r}")
    return value


def _service(data: Mapping, component: str, version: Version) -> tuple[bool, str, list[str]]:
    """Whether to pass --windows-service, the log file, and the argv to put before the binary.

    A service has no console, so since the klog file flags were removed (1.26) the log exists only
    if something captures the output. Under the SCM that is kube-log-runner (shipped in the
    Kubernetes release archives): it starts the binary and writes its output to a file without
    registering with the SCM itself, so the wrapped kubelet's --windows-service still connects as
    the service and receives stop requests (the layout OpenShift's Windows Machine Config Operator
    uses). nssm instead talks to the SCM itself and captures output (AppStdout/AppStderr); the
    child must then not pass --windows-service, because it would fail to connect to the SCM.

    With log_max_size_mb, a runner that can rotate (1.34 on) gets -log-file-size: it renames the
    file to <name>-<yyyyMMdd-HHmmss>.log once it reaches that size and opens a new one
    (internal/logrotation of kube-log-runner). Older runners only append; the node's log rotation
    task (log_rotate.ps1) copies and empties their file.
    """
    manager = _choice("service_manager", _given(data, "service_manager", "scm"), SERVICE_MANAGERS)
    log_dir = _path("log_dir", _given(data, "log_dir", f"C:\\var\\log\\{component}"))
    log_file = f"{log_dir.rstrip(chr(92) + '/')}\\{component}.log"
    max_size_mb = _log_max_size_mb(data)
    if manager == "nssm":
        return False, log_file, []
    runner = _path("kube_log_runner", _given(data, "kube_log_runner", DEFAULT_KUBE_LOG_RUNNER))
    wrapper = [runner, f"-log-file={log_file}"]
    if max_size_mb is not None and kube_log_runner_rotates(version):
        # A resource.Quantity (the runner's flag type): Mi is 2^20 bytes.
        wrapper.append(f"-log-file-size={max_size_mb}Mi")
    return True, log_file, wrapper


def service_wrapper(data: Mapping, component: str, version: Version) -> tuple[bool, str, list[str]]:
    """What _service gives the node's other Go services (csi-proxy, _csi_proxy): the one way a program runs as a
    service with its output in a log file."""
    return _service(data, component, version)


# ---------------------------------------------------------------------------------------------
# kubelet
# ---------------------------------------------------------------------------------------------

KUBELET_KEYS = (
    "kubernetes_version",
    "hostname",
    "node_ip",
    "container_runtime",
    "cluster_dns",
    "cluster_domain",
    "max_pods",
    "system_reserved",
    "windows_priorityclass",
    "windows_build",
    "node_labels",
    "register_with_taints",
    "kubeconfig",
    "bootstrap_kubeconfig",
    "config",
    "cert_dir",
    "pause_image",
    "service_manager",
    "kube_log_runner",
    "log_dir",
    "log_max_size_mb",
    "verbosity",
    "config_dir",
    "shutdown_grace_period",
    "shutdown_grace_period_critical_pods",
    "node_log_query",
    "credential_providers",
    "credential_provider_config",
    "credential_provider_bin_dir",
)

# Graceful node shutdown on Windows (KEP-4802): the kubelet, run as a native service, takes the SCM's pre-shutdown
# notification and stops the pods within shutdownGracePeriod, the last shutdownGracePeriodCriticalPods of it for the
# critical ones; it raises its service's pre-shutdown timeout to the grace period itself and puts itself in the
# registry's PreshutdownOrder (pkg/kubelet/nodeshutdown/nodeshutdown_manager_windows.go). Feature gate
# WindowsGracefulNodeShutdown: alpha, off by default, in 1.32 and 1.33; beta, on by default, from 1.34
# (kubernetes/website feature-gates/WindowsGracefulNodeShutdown.md).
GRACEFUL_SHUTDOWN_ALPHA = (1, 32)
GRACEFUL_SHUTDOWN_BETA = (1, 34)
# The two periods are KubeletConfiguration fields without a flag: they reach the kubelet in a drop-in file of
# --config-dir (KEP-3983: alpha in 1.28, beta and on by default in 1.30, GA in 1.35), which the kubelet merges over
# --config, so a kubeadm node's cluster-wide config.yaml stays as kubeadm wrote it.

# The kubelet's node log query (KEP-2258: kubectl get --raw /api/v1/nodes/<node>/proxy/logs/?query=<service>): the
# fields enableSystemLogHandler and enableSystemLogQuery, behind the gate NodeLogQuery: alpha 1.27 to 1.29, beta and
# still off by default 1.30 to 1.35, GA and locked on from 1.36 (kubernetes/website feature-gates/NodeLogQuery.md),
# where passing it only draws a warning until it is removed.
NODE_LOG_QUERY_GA = (1, 36)

# The process priority classes Windows defines; seed 001 recommends ABOVE_NORMAL or higher so the
# kubelet keeps getting CPU time on a busy node.
WINDOWS_PRIORITY_CLASSES = (
    "IDLE_PRIORITY_CLASS",
    "BELOW_NORMAL_PRIORITY_CLASS",
    "NORMAL_PRIORITY_CLASS",
    "ABOVE_NORMAL_PRIORITY_CLASS",
    "HIGH_PRIORITY_CLASS",
    "REALTIME_PRIORITY_CLASS",
)
# Seeds 001 and 004: reserve at least 2 GB for Windows, the runtime and the Kubernetes processes.
DEFAULT_SYSTEM_RESERVED = {"memory": "2Gi"}
RESERVABLE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pid")
WINDOWS_BUILD_LABEL = "node.kubernetes.io/windows-build"
# kubelet --node-labels (kubernetes/website kubelet reference): labels in the kubernetes.io and
# k8s.io namespaces are refused unless under these namespaces or in this set; the NodeRestriction
# admission plugin applies the same rule.
_KUBELET_LABEL_NAMESPACES = ("kubelet.kubernetes.io", "node.kubernetes.io")
_KUBELET_LABELS = frozenset(
    (
        "beta.kubernetes.io/arch",
        "beta.kubernetes.io/instance-type",
        "beta.kubernetes.io/os",
        "failure-domain.beta.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/zone",
        "kubernetes.io/arch",
        "kubernetes.io/hostname",
        "kubernetes.io/os",
        "node.kubernetes.io/instance-type",
        "topology.kubernetes.io/region",
        "topology.kubernetes.io/zone",
    )
)
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _in_namespace(namespace: str, parent: str) -> bool:
    return namespace == parent or namespace.endswith("." + parent)


def _label_key(key: t.Any, what: str = "node label") -> str:
    if not isinstance(key, str):
        raise FlagsError(f"{what} keys must be strings, got {key!r}")
    prefix, slash, name = key.rpartition("/")
    if (slash and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN_RE.fullmatch(prefix))) or not _LABEL_NAME_RE.fullmatch(name):
        raise FlagsError(f"{what} key {key!r} is not a valid label key (an optional DNS prefix and '/', then a name of up to 63 characters)")
    return key


def _check_kubelet_may_set(key: str) -> None:
    prefix = key.rpartition("/")[0]
    restricted = _in_namespace(prefix, "kubernetes.io") or _in_namespace(prefix, "k8s.io")
    if not restricted or key in _KUBELET_LABELS or any(_in_namespace(prefix, ns) for ns in _KUBELET_LABEL_NAMESPACES):
        return
    raise FlagsError(
        f"node label {key!r} is in the {prefix} namespace, which the kubelet may not set (only "
        f"{', '.join(_KUBELET_LABEL_NAMESPACES)} and a fixed list); set it with kubectl after the join"
    )


def _label_value(key: str, value: t.Any) -> str:
    text = value if isinstance(value, str) else None
    if text is None or not _LABEL_VALUE_RE.fullmatch(text):
        raise FlagsError(f"node label {key!r} has value {value!r}; label values are strings of up to 63 letters, digits, '-', '_' or '.'")
    return text


def _node_labels(data: Mapping) -> dict[str, str]:
    given = _given(data, "node_labels", {})
    if not isinstance(given, Mapping):
        raise FlagsError(f"node_labels must be a dictionary of label names to values, got {given!r}")
    labels = {}
    for key, value in given.items():
        _check_kubelet_may_set(_label_key(key))
        labels[key] = _label_value(key, value)
    if data.get("windows_build") is not None:
        build_label = windows_build_label(data["windows_build"])
        if labels.get(WINDOWS_BUILD_LABEL, build_label) != build_label:
            raise FlagsError(
                f"node_labels sets {WINDOWS_BUILD_LABEL}={labels[WINDOWS_BUILD_LABEL]}, but windows_build "
                f"{data['windows_build']} means {build_label}"
            )
        # The kubelet sets this label itself since 1.17 (seed 001); passing it as well makes it
        # part of the registration, so RuntimeClass node selectors match from the first moment.
        labels[WINDOWS_BUILD_LABEL] = build_label
    return labels


_TAINT_RE = re.compile(r"([^=:\s]+)(?:=([^:\s]*))?:([A-Za-z]+)")


def _taint(item: t.Any) -> str:
    if isinstance(item, Mapping):
        key, value, effect = item.get("key"), item.get("value", ""), item.get("effect")
    elif isinstance(item, str) and _TAINT_RE.fullmatch(item.strip()):
        key, value, effect = _TAINT_RE.fullmatch(item.strip()).groups()
    else:
        raise FlagsError(f"register_with_taints entries must be 'key=value:Effect' or a dictionary with key, value and effect, got {item!r}")
    _label_key(key, "taint")
    value = "" if value is None else value
    if not isinstance(value, str) or not _LABEL_VALUE_RE.fullmatch(value):
        raise FlagsError(f"taint {key!r} has value {value!r}; taint values follow the label value rules")
    _choice(f"the effect of taint {key!r}", effect, TAINT_EFFECTS)
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def _taints(data: Mapping) -> list[str]:
    given = _given(data, "register_with_taints", [])
    if not isinstance(given, (list, tuple)):
        raise FlagsError(f"register_with_taints must be a list, got {given!r}")
    return sorted({_taint(item) for item in given})


def _system_reserved(data: Mapping) -> str | None:
    given = _given(data, "system_reserved", DEFAULT_SYSTEM_RESERVED)
    if not isinstance(given, Mapping):
        raise FlagsError(f"system_reserved must be a dictionary such as {{memory: 2Gi}}, got {given!r}")
    pairs = []
    for resource, quantity in sorted(given.items()):
        _choice("system_reserved resource", resource, RESERVABLE_RESOURCES)
        text = str(quantity) if isinstance(quantity, int) and not isinstance(quantity, bool) else quantity
        if not isinstance(text, str) or not _QUANTITY_RE.fullmatch(text):
            raise FlagsError(f"system_reserved {resource} must be a quantity such as 2Gi or 500m, got {quantity!r}")
        pairs.append(f"{resource}={text}")
    return ",".join(pairs) or None


def _cluster_dns(data: Mapping) -> str | None:
    given = data.get("cluster_dns")
    if given is None:
        return None
    items = given.split(",") if isinstance(given, str) else given
    if not isinstance(items, (list, tuple)) or not items:
        raise FlagsError(f"cluster_dns must be an IP address or a list of them, got {given!r}")
    return ",".join(_ip_address("cluster_dns", item) for item in items)


def _cluster_domain(data: Mapping) -> str:
    value = _given(data, "cluster_domain", "cluster.local")
    if not isinstance(value, str) or not _DNS_SUBDOMAIN_RE.fullmatch(value):
        raise FlagsError(f"cluster_domain must be a lower-case DNS name such as cluster.local, got {value!r}")
    return value


def kubelet_args(data: t.Any) -> dict[str, t.Any]:
    """kubelet's arguments on a Windows node; see kubelet_args.yml for every input and default."""
    data = _check_keys("kubelet_args", data, KUBELET_KEYS, ("kubernetes_version", "hostname"))
    version = _supported_version(data["kubernetes_version"])
    runtime = _choice("container_runtime", _given(data, "container_runtime", "containerd"), tuple(RUNTIME_ENDPOINTS))
    windows_service, log_file, wrapper = _service(data, "kubelet", version)
    flags: dict[str, str | None] = {
        "--hostname-override": _hostname(data["hostname"]),
        "--container-runtime-endpoint": RUNTIME_ENDPOINTS[runtime],
        # Windows has no cgroups: QoS cgroups and node-allocatable enforcement must be off.
        "--cgroups-per-qos": "false",
        "--enforce-node-allocatable": "",
        # No resolv.conf on Windows; pods get DNS from --cluster-dns (the source documents' "").
        "--resolv-conf": "",
        "--cluster-domain": _cluster_domain(data),
        "--windows-priorityclass": _choice(
            "windows_priorityclass", _given(data, "windows_priorityclass", "ABOVE_NORMAL_PRIORITY_CLASS"), WINDOWS_PRIORITY_CLASSES
        ),
        "--v": str(_verbosity(_given(data, "verbosity", 2))),
    }
    optional = {
        # Both families on a dual-stack node; every supported release takes the pair without a feature gate
        # (IPv6DualStack went GA in 1.23 and was removed in 1.25: kubernetes/website feature-gates-removed).
        "--node-ip": None if data.get("node_ip") is None else _ip_addresses("node_ip", data["node_ip"]),
        "--cluster-dns": _cluster_dns(data),
        # The plan sizes each node's pod subnet for max_pods; the kubelet's own default is 110. kubeadm writes a
        # cluster-wide KubeletConfiguration (maxPods) for every node, and a command-line flag overrides the
        # config file (kubernetes/website, "Set Kubelet Parameters Via A Configuration File"), so the flag is
        # how this node honours the plan.
        "--max-pods": _max_pods(data),
        "--system-reserved": _system_reserved(data),
        "--node-labels": ",".join(f"{k}={v}" for k, v in sorted(_node_labels(data).items())) or None,
        "--register-with-taints": ",".join(_taints(data)) or None,
        "--kubeconfig": _optional_path(data, "kubeconfig"),
        "--bootstrap-kubeconfig": _optional_path(data, "bootstrap_kubeconfig"),
        "--config": _optional_path(data, "config"),
        "--cert-dir": _optional_path(data, "cert_dir"),
    }
    flags.update({name: value for name, value in optional.items() if value is not None})
    if flag_accepted(KUBELET_REMOVED_FLAGS, "--pod-infra-container-image", version):
        # Only a garbage-collection pin since 1.29; the runtime's sandbox_image is what counts.
        flags["--pod-infra-container-image"] = pause_image(version, data.get("windows_build"), data.get("pause_image"))
    flags.update(klog_file_flags(version, log_file))
    if windows_service:
        # The SCM can then stop the kubelet cleanly (and, with the WindowsGracefulNodeShutdown
        # feature, tell it about a node shutdown) instead of killing the process.
        flags["--windows-service"] = None
    fields, gates = dropin_fields(data, version, windows_service)
    providers, provider_gates = credential_providers(_given(data, "credential_providers", []), version)
    if providers:
        # The kubelet takes both or neither (AgentBaker's Validate-CredentialProviderConfigFlags refuses one alone).
        flags["--image-credential-provider-config"] = _path("credential_provider_config", data.get("credential_provider_config") or "")
        flags["--image-credential-provider-bin-dir"] = _path("credential_provider_bin_dir", data.get("credential_provider_bin_dir") or "")
        gates = gates + provider_gates
    dropin = None
    if fields:
        flags["--config-dir"] = _path("config_dir", data.get("config_dir") or "")
        dropin = kubelet_dropin(fields)
    if gates:
        flags["--feature-gates"] = ",".join(f"{gate}=true" for gate in sorted(gates))
    return {"args": _render(flags), "env": {}, "log_file": log_file, "wrapper": wrapper, "dropin": dropin}


def dropin_fields(data: Mapping, version: Version, windows_service: bool,
                  prefix: str = "") -> tuple[dict[str, t.Any], list[str]]:
    """The KubeletConfiguration fields the kubelet gets from the drop-in file, and the feature gates they need on
    this release. ``prefix`` names the inputs in errors as the caller's user knows them (the kubelet role's
    kubelet_...)."""
    fields: dict[str, t.Any] = {}
    gates = []
    grace, critical = shutdown_periods(data, version, windows_service, prefix)
    if grace:
        fields.update(shutdownGracePeriod=f"{grace}s", shutdownGracePeriodCriticalPods=f"{critical}s")
        if version.minor_key < GRACEFUL_SHUTDOWN_BETA:
            gates.append("WindowsGracefulNodeShutdown")
    if _bool(f"{prefix}node_log_query", _given(data, "node_log_query", False)):
        # The kubelet's /logs endpoint with its query (kubectl get --raw /api/v1/nodes/<node>/proxy/logs/?query=...).
        fields.update(enableSystemLogHandler="true", enableSystemLogQuery="true")
        if version.minor_key < NODE_LOG_QUERY_GA:
            gates.append("NodeLogQuery")
    return fields, gates


def _seconds(key: str, value: t.Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FlagsError(f"{key} must be a whole number of seconds, 0 or more, got {value!r}")
    return value


def shutdown_periods(data: Mapping, version: Version, windows_service: bool, prefix: str = "") -> tuple[int, int]:
    """The graceful shutdown's (grace period, of it for critical pods) in seconds; (0, 0) when it is off. ``prefix``
    names the inputs as the caller's user knows them (the kubelet role's kubelet_...)."""
    grace_name, critical_name = f"{prefix}shutdown_grace_period", f"{prefix}shutdown_grace_period_critical_pods"
    grace = _seconds(grace_name, _given(data, "shutdown_grace_period", 0))
    critical = _seconds(critical_name, _given(data, "shutdown_grace_period_critical_pods", 0))
    if critical > grace:
        raise FlagsError(f"{critical_name} ({critical}) must not exceed {grace_name} ({grace}): it is the part of the "
                         f"grace period kept for critical pods")
    if grace and version.minor_key < GRACEFUL_SHUTDOWN_ALPHA:
        raise FlagsError(f"{grace_name} needs Kubernetes 1.32 or later (the kubelet's graceful shutdown on Windows, "
                         f"WindowsGracefulNodeShutdown), not {version}")
    if grace and not windows_service:
        raise FlagsError(f"{grace_name} needs the kubelet to run as a native service ({prefix}service_manager: scm): "
                         f"under nssm the kubelet is no service of its own and gets no pre-shutdown notification")
    return grace, critical


def kubelet_dropin(fields: Mapping[str, t.Any]) -> str:
    """A KubeletConfiguration drop-in file (--config-dir) with ``fields``, in the order given."""
    lines = ["# Managed by kubewin.node (role kubelet); the kubelet merges it over its --config file.",
             "apiVersion: kubelet.config.k8s.io/v1beta1", "kind: KubeletConfiguration"]
    lines += [f"{name}: {value}" for name, value in fields.items()]
    return "\n".join(lines) + "\n"


def klog_file_flags(version: Version, log_file: str) -> dict[str, str]:
    """The klog flags that wrote the log file before 1.26; none for every supported release."""
    if not flag_accepted(KUBELET_REMOVED_FLAGS, "--log-file", version):
        return {}
    return {"--log-file": log_file, "--logtostderr": "false"}


# ---------------------------------------------------------------------------------------------
# Image credential providers
# ---------------------------------------------------------------------------------------------

# The kubelet's exec plugins that fetch registry credentials (KEP-2133; the in-tree cloud providers' own were removed
# in 1.26 to 1.28). --image-credential-provider-config names a CredentialProviderConfig and
# --image-credential-provider-bin-dir the folder the kubelet runs each provider's ``name`` from: both GA in 1.26 (the
# KubeletCredentialProviders gate was removed in 1.28), so every supported release has them. Since
# kubernetes/kubernetes#120291 (1.29) the kubelet looks the name up with exec.LookPath, which finds <name>.exe on
# Windows (before it, AgentBaker's Install-CredentialProvider kept a copy without the extension as well).
CREDENTIAL_PROVIDER_FLAGS_GA = (1, 26)
CREDENTIAL_PROVIDER_CONFIG_API = "kubelet.config.k8s.io/v1"
# The plugin API versions the kubelet speaks to a provider (pkg/credentialprovider/plugin: apiVersions).
CREDENTIAL_PROVIDER_API_VERSIONS = tuple(f"credentialprovider.kubelet.k8s.io/{v}" for v in ("v1", "v1beta1", "v1alpha1"))
# KEP-4412, a service account token for the provider (tokenAttributes): the gate
# KubeletServiceAccountTokenForCredentialProviders is alpha and off in 1.33, beta and on from 1.34 (kubernetes/website
# feature-gates); tokenAttributes.cacheType came, required, in 1.34 (kubernetes/kubernetes#132617). The kubelet takes
# tokenAttributes with the v1 plugin API only (pkg/credentialprovider/plugin/config.go validateCredentialProviderConfig).
PROVIDER_TOKENS_ALPHA = (1, 33)
PROVIDER_TOKENS_BETA = (1, 34)
PROVIDER_TOKEN_CACHE_TYPE_FROM = (1, 34)
PROVIDER_TOKEN_GATE = "KubeletServiceAccountTokenForCredentialProviders"
PROVIDER_TOKEN_CACHE_TYPES = ("ServiceAccount", "Token")
CREDENTIAL_PROVIDER_KEYS = ("name", "version", "url", "checksum", "match_images", "default_cache_duration", "args", "env",
                            "api_version", "token_attributes")
TOKEN_ATTRIBUTE_FIELDS = {
    "service_account_token_audience": "serviceAccountTokenAudience",
    "require_service_account": "requireServiceAccount",
    "required_service_account_annotation_keys": "requiredServiceAccountAnnotationKeys",
    "optional_service_account_annotation_keys": "optionalServiceAccountAnnotationKeys",
    "cache_type": "cacheType",
}
# The provider's binary, <name>.exe in the bin dir: a file name (the kubelet itself refuses '/', a space, '.' and '..').
_PROVIDER_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]*")
# A matchImages pattern: a host whose labels may hold globs, an optional port and path, no scheme. The kubelet parses it
# as the host of https://<pattern> (credentialprovider.ParseSchemelessURL) and matches globs in the host only, label by
# label (keyring.go URLsMatch; kubernetes/website kubelet-credential-provider.md: "Globs can be used in the domain, but
# not in the port or the path").
_MATCH_IMAGE_RE = re.compile(r"(?P<host>[A-Za-z0-9*\-]+(?:\.[A-Za-z0-9*\-]+)*)(?::(?P<port>[0-9]+))?(?P<path>/[^\s*]*)?")
# defaultCacheDuration is a metav1.Duration: Go's time.ParseDuration text, and not negative (config.go).
_DURATION_RE = re.compile(r"0|(?:[0-9]+(?:\.[0-9]+)?(?:ns|us|\u00b5s|ms|s|m|h))+")
_ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _strings(key: str, value: t.Any) -> list[str]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise FlagsError(f"{key} must be a list of strings, got {value!r}")
    return list(value)


def _token_attributes(where: str, given: t.Any, api_version: str, version: Version) -> dict[str, t.Any]:
    """A provider's tokenAttributes (KEP-4412) in the kubelet's names, checked as the kubelet checks them."""
    key = f"{where}.token_attributes"
    if version.minor_key < PROVIDER_TOKENS_ALPHA:
        raise FlagsError(f"{key}: the kubelet has tokenAttributes from 1.33 ({PROVIDER_TOKEN_GATE}, KEP-4412), not in {version}")
    data = _check_keys(key, given, tuple(TOKEN_ATTRIBUTE_FIELDS), ("service_account_token_audience", "require_service_account"))
    if api_version != CREDENTIAL_PROVIDER_API_VERSIONS[0]:
        raise FlagsError(f"{key} needs api_version {CREDENTIAL_PROVIDER_API_VERSIONS[0]}, not {api_version}")
    audience = data["service_account_token_audience"]
    if not isinstance(audience, str) or not audience.strip():
        raise FlagsError(f"{key}.service_account_token_audience must be the audience of the token, got {audience!r}")
    attributes: dict[str, t.Any] = {"serviceAccountTokenAudience": audience,
                                    "requireServiceAccount": _bool(f"{key}.require_service_account", data["require_service_account"])}
    keys = {}
    for name in ("required_service_account_annotation_keys", "optional_service_account_annotation_keys"):
        keys[name] = _strings(f"{key}.{name}", _given(data, name, []))
        for annotation in keys[name]:
            # Annotation keys: a qualified name, case aside (apimachinery objectmeta.go, as config.go checks them).
            _label_key(annotation.lower(), f"{key}.{name}")
        if len(set(keys[name])) != len(keys[name]):
            raise FlagsError(f"{key}.{name} lists a key twice: {keys[name]!r}")
        if keys[name]:
            attributes[TOKEN_ATTRIBUTE_FIELDS[name]] = keys[name]
    required, optional = keys["required_service_account_annotation_keys"], keys["optional_service_account_annotation_keys"]
    if required and not attributes["requireServiceAccount"]:
        raise FlagsError(f"{key}: require_service_account cannot be false with required_service_account_annotation_keys")
    both = sorted(set(required) & set(optional))
    if both:
        raise FlagsError(f"{key}: annotation keys cannot be both required and optional: {', '.join(both)}")
    cache_type = data.get("cache_type")
    if version.minor_key < PROVIDER_TOKEN_CACHE_TYPE_FROM:
        if cache_type is not None:
            raise FlagsError(f"{key}.cache_type: the kubelet has tokenAttributes.cacheType from 1.34 (kubernetes/kubernetes#132617), not in {version}")
    else:
        attributes["cacheType"] = _choice(f"{key}.cache_type (required from 1.34)", cache_type, PROVIDER_TOKEN_CACHE_TYPES)
    return attributes


def _credential_provider(where: str, given: t.Any, version: Version) -> tuple[dict[str, t.Any], bool]:
    """One provider of the CredentialProviderConfig in the kubelet's names, and whether it asks for a token."""
    data = _check_keys(where, given, CREDENTIAL_PROVIDER_KEYS, ("name", "match_images", "default_cache_duration"))
    name = data["name"]
    if not isinstance(name, str) or not _PROVIDER_NAME_RE.fullmatch(name) or name.lower().endswith(".exe"):
        raise FlagsError(f"{where}.name must be the provider's binary name without .exe (letters, digits, '.', '_', '-'), "
                         f"such as ecr-credential-provider, got {name!r}")
    if (data.get("version") is None) == (data.get("url") is None and data.get("checksum") is None):
        raise FlagsError(f"{where} ({name}) needs where its binary comes from: version (a provider of the artifact catalog) "
                         f"or url and checksum, not both")
    if data.get("version") is None and (not isinstance(data.get("url"), str) or not isinstance(data.get("checksum"), str)):
        raise FlagsError(f"{where} ({name}) needs both url and checksum (sha256:<hex>): nothing is downloaded unverified")
    images = data["match_images"]
    if not isinstance(images, (list, tuple)) or not images:
        raise FlagsError(f"{where}.match_images ({name}) must list at least one image pattern, such as '*.dkr.ecr.*.amazonaws.com'")
    for image in images:
        match = _MATCH_IMAGE_RE.fullmatch(image) if isinstance(image, str) else None
        if match is None:
            raise FlagsError(f"{where}.match_images ({name}): {image!r} is not a registry pattern such as '*.azurecr.io' or "
                             f"'registry.example.com:5000/team' (no scheme; globs only in the host)")
        if match.group("port") is not None and not 0 < int(match.group("port")) < 65536:
            raise FlagsError(f"{where}.match_images ({name}): {image!r} has no valid port")
    duration = data["default_cache_duration"]
    if not isinstance(duration, str) or not _DURATION_RE.fullmatch(duration):
        raise FlagsError(f"{where}.default_cache_duration ({name}) must be a duration such as 12h, 10m or 0s "
                         f"(the kubelet requires it and refuses a negative one), got {duration!r}")
    api_version = _choice(f"{where}.api_version ({name})", _given(data, "api_version", CREDENTIAL_PROVIDER_API_VERSIONS[0]),
                          CREDENTIAL_PROVIDER_API_VERSIONS)
    provider: dict[str, t.Any] = {"name": name, "matchImages": list(images), "defaultCacheDuration": duration,
                                  "apiVersion": api_version}
    args = _strings(f"{where}.args ({name})", _given(data, "args", []))
    if args:
        provider["args"] = args
    env = _given(data, "env", {})
    if not isinstance(env, Mapping) or not all(isinstance(key, str) and _ENV_NAME_RE.fullmatch(key) and isinstance(value, str)
                                               for key, value in env.items()):
        # The values may be secrets: never in the message.
        keys = sorted(map(str, env)) if isinstance(env, Mapping) else type(env).__name__
        raise FlagsError(f"{where}.env ({name}) must map variable names to string values (keys: {keys})")
    if env:
        provider["env"] = [{"name": key, "value": env[key]} for key in sorted(env)]
    token = data.get("token_attributes")
    if token is not None:
        provider["tokenAttributes"] = _token_attributes(f"{where} ({name})", token, api_version, version)
    return provider, token is not None


def credential_providers(given: t.Any, version: Version, prefix: str = "") -> tuple[list[dict[str, t.Any]], list[str]]:
    """The providers of the kubelet's CredentialProviderConfig in its own names, in the order given, and the feature
    gates they need on this release. ``prefix`` names the input as the caller's user knows it (kubelet_)."""
    key = f"{prefix}credential_providers"
    if not isinstance(given, (list, tuple)):
        raise FlagsError(f"{key} must be a list of providers, got {given!r}")
    if given and version.minor_key < CREDENTIAL_PROVIDER_FLAGS_GA:
        raise FlagsError(f"{key}: the kubelet takes --image-credential-provider-config without a gate from 1.26, not {version}")
    providers, tokens = [], False
    for index, item in enumerate(given):
        provider, token = _credential_provider(f"{key}[{index}]", item, version)
        if provider["name"] in (known["name"] for known in providers):
            raise FlagsError(f"{key} names the provider {provider['name']} twice (the kubelet refuses a duplicate name)")
        providers.append(provider)
        tokens = tokens or token
    gates = [PROVIDER_TOKEN_GATE] if tokens and version.minor_key < PROVIDER_TOKENS_BETA else []
    return providers, gates


def credential_provider_config(data: t.Any) -> str | None:
    """The kubelet's CredentialProviderConfig for {kubernetes_version, providers}; None without providers."""
    data = _check_keys("credential_provider_config", data, ("kubernetes_version", "providers"), ("kubernetes_version",))
    providers, _gates = credential_providers(_given(data, "providers", []), _supported_version(data["kubernetes_version"]))
    if not providers:
        return None
    # Through JSON: plain str and list, whatever subclasses Ansible's templating handed in (SafeDumper takes no other).
    document = json.loads(json.dumps({"apiVersion": CREDENTIAL_PROVIDER_CONFIG_API, "kind": "CredentialProviderConfig",
                                      "providers": providers}))
    return ("# Managed by kubewin.node (role kubelet, kubelet_credential_providers).\n"
            + yaml.safe_dump(document, sort_keys=False, default_flow_style=False, allow_unicode=True))


def credential_provider_binaries(providers: t.Any, bin_dir: t.Any, plan_artifacts: t.Any = None,
                                 files: t.Any = None) -> dict[str, list[t.Any]]:
    """What the kubelet role installs in the providers' bin dir and what it removes there.

    ``install``: one kubewin.node.artifact_batch entry per provider, ``<bin_dir>\\<name>.exe``: from its url and
    checksum, or for a catalog provider (``version``) the download the preflight resolved for this node
    (``plan_artifacts``, the entries the staging step fetched). ``remove``: the files of the snapshot's ``files``
    (the node's managed files) in the bin dir that no provider installs any more.
    """
    folder = _path("credential_provider_bin_dir", bin_dir).rstrip("\\")
    resolved = {(item.get("component"), str(item.get("version"))): item for item in plan_artifacts or []
                if isinstance(item, Mapping)}
    install = []
    for provider in providers or []:
        name = provider["name"]
        entry = {"name": f"credential provider {name}", "dest": f"{folder}\\{name}.exe"}
        if provider.get("version") is None:
            entry.update(url=provider["url"], checksum=provider["checksum"])
        else:
            download = resolved.get((name, str(provider["version"])))
            if download is None:
                raise FlagsError(f"credential provider {name} {provider['version']}: the plan has no download for it "
                                 f"(plan_artifacts); run the plan role first, as site.yml does")
            entry.update(url=download["url"], checksum=download["checksum"], version=str(provider["version"]))
        install.append(entry)
    wanted = {entry["dest"].lower() for entry in install}
    remove = sorted(path for path, state in (files or {}).items()
                    if path.lower().startswith(folder.lower() + "\\") and path.lower() not in wanted
                    and isinstance(state, Mapping) and state.get("exists"))
    return {"install": install, "remove": remove}


# ---------------------------------------------------------------------------------------------
# kube-proxy
# ---------------------------------------------------------------------------------------------

KUBE_PROXY_KEYS = (
    "kubernetes_version",
    "hostname",
    "cluster_cidr",
    "kubeconfig",
    "topology",
    "network_name",
    "vxlan_vni",
    "source_vip",
    "enable_dsr",
    "service_manager",
    "kube_log_runner",
    "log_dir",
    "log_max_size_mb",
    "verbosity",
    "per_node",
)
KUBE_PROXY_TOPOLOGIES = ("l2bridge", "overlay", "calico")
# The flags that differ from node to node. With per_node false (the DaemonSet: one pod template for every node) they
# are left out, and the pod's start script adds them on the node (kube_proxy_start.ps1).
KUBE_PROXY_PER_NODE_FLAGS = ("--hostname-override", "--source-vip")


def _kube_proxy_feature_gates(version: Version, topology: str, enable_dsr: bool) -> str | None:
    gates = {}
    if topology == "overlay" and version.minor_key < WINOVERLAY_ON_BY_DEFAULT_FROM:
        gates["WinOverlay"] = "true"
    if enable_dsr and version.minor_key < WINDSR_ON_BY_DEFAULT_FROM:
        gates["WinDSR"] = "true"
    return ",".join(f"{name}={value}" for name, value in sorted(gates.items())) or None


def _kube_proxy_cluster_cidr(value: t.Any, version: Version, topology: str) -> str:
    """--cluster-cidr, with both families on a dual-stack node: winkernel runs a dual-stack proxier on l2bridge only
    (kubernetes/kubernetes#101047: not on overlay), and keeps the families' load balancers apart only with #136241."""
    cidrs = _cluster_cidrs("cluster_cidr", value)
    if "," in cidrs:
        if topology != "l2bridge":
            raise FlagsError(f"cluster_cidr {cidrs} is dual-stack, which kube-proxy runs on l2bridge only, not {topology} "
                             f"(kubernetes/kubernetes#101047: overlay networks on Windows do not support dual-stack)")
        if not winkernel_dual_stack_fixed(version):
            raise FlagsError(f"cluster_cidr {cidrs} is dual-stack, and kube-proxy {version} shares load balancers between "
                             f"IPv4 and IPv6 Services (kubernetes/kubernetes#136240); use {winkernel_dual_stack_releases()}")
    return cidrs


def kube_proxy_args(data: t.Any) -> dict[str, t.Any]:
    """kube-proxy's arguments and environment (winkernel mode); see kube_proxy_args.yml."""
    data = _check_keys("kube_proxy_args", data, KUBE_PROXY_KEYS, ("kubernetes_version", "cluster_cidr", "kubeconfig", "topology"))
    per_node = _bool("per_node", _given(data, "per_node", True))
    if per_node and data.get("hostname") is None:
        raise FlagsError("the kube_proxy_args input needs hostname (or per_node false, for the DaemonSet's pod template)")
    version = _supported_version(data["kubernetes_version"])
    if data["topology"] == "ovn":
        raise FlagsError("topology ovn runs no kube-proxy: OVN load-balances services itself (seed 000, ovn-kubernetes)")
    topology = _choice("topology", data["topology"], KUBE_PROXY_TOPOLOGIES)
    if not per_node:
        given = [key for key in ("hostname", "source_vip") if data.get(key) is not None]
        if given:
            raise FlagsError(f"{' and '.join(given)} cannot be given with per_node false: the flags that differ from node "
                             f"to node ({', '.join(KUBE_PROXY_PER_NODE_FLAGS)}) are left out, for the node to add them")
    elif topology == "calico":
        # Calico VXLAN's source VIP is the address of the host endpoint Calico_ep, which calico-node-windows creates
        # only after the node joined (sig-windows-tools hostprocess/calico/kube-proxy/start.ps1, before #383), so no
        # flag fixed ahead of time can carry it: the DaemonSet's start script reads it on the node.
        raise FlagsError("topology calico runs kube-proxy in the kube-proxy-windows DaemonSet only (per_node false): its "
                         "source VIP is the address of the HNS endpoint Calico_ep, which Calico creates on the node "
                         "after it joined, and the DaemonSet's start script reads it there")
    vni = _given(data, "vxlan_vni", 4096)
    if isinstance(vni, bool) or not isinstance(vni, int) or not 4096 <= vni < 2**24:
        raise FlagsError(f"vxlan_vni must be an integer from 4096 (flannel's minimum on Windows) to {2**24 - 1}, got {vni!r}")
    network = _given(data, "network_name", default_network_name(topology, vni))
    if not isinstance(network, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", network):
        raise FlagsError(f"network_name must be the HNS network name, such as cbr0 or flannel.4096, got {network!r}")
    enable_dsr = _bool("enable_dsr", _given(data, "enable_dsr", False))
    windows_service, log_file, wrapper = _service(data, "kube-proxy", version)
    flags: dict[str, str | None] = {
        "--proxy-mode": "kernelspace",
        "--cluster-cidr": _kube_proxy_cluster_cidr(data["cluster_cidr"], version, topology),
        "--kubeconfig": _path("kubeconfig", data["kubeconfig"]),
        # winkernel reads --network-name first and falls back to KUBE_NETWORK (pkg/proxy/winkernel).
        "--network-name": network,
        "--enable-dsr": "true" if enable_dsr else "false",
        "--v": str(_verbosity(_given(data, "verbosity", 2))),
    }
    if per_node:
        # Without it the HNS endpoints (vNICs) of the pods get deleted (seed 004 troubleshooting).
        flags["--hostname-override"] = _hostname(data["hostname"])
        if topology == "overlay":
            if data.get("source_vip") is None:
                raise FlagsError("topology overlay needs source_vip, the address kube-proxy gives service traffic it sends into the overlay")
            flags["--source-vip"] = _ip_address("source_vip", data["source_vip"])
        elif data.get("source_vip") is not None:
            raise FlagsError(f"source_vip {data['source_vip']!r} is only used by the overlay topology, not {topology}")
    gates = _kube_proxy_feature_gates(version, topology, enable_dsr)
    if gates:
        flags["--feature-gates"] = gates
    if windows_service:
        flags["--windows-service"] = None
    # KUBE_NETWORK as well, for the helper scripts of the source documents that read it.
    return {"args": _render(flags), "env": {"KUBE_NETWORK": network}, "log_file": log_file, "wrapper": wrapper}


# ---------------------------------------------------------------------------------------------
# flanneld
# ---------------------------------------------------------------------------------------------

FLANNELD_KEYS = ("hostname", "management_ip", "kubeconfig", "net_conf_path", "subnet_file", "ip_masq", "log_dir")
# flanneld's defaults are /etc/kube-flannel/net-conf.json and /run/flannel/subnet.env, which
# Windows resolves on the drive of the working directory; naming C: keeps them where the CNI
# plugin and the source documents (C:\run\flannel\subnet.env) look.
DEFAULT_NET_CONF_PATH = "C:\\etc\\kube-flannel\\net-conf.json"
DEFAULT_SUBNET_FILE = "C:\\run\\flannel\\subnet.env"


def flanneld_args(data: t.Any) -> dict[str, t.Any]:
    """flanneld's arguments and environment on a Windows node; see flanneld_args.yml.

    flanneld has no Windows service mode, so it runs under nssm (seed 004), which writes its output
    to log_file through AppStdout/AppStderr.
    """
    data = _check_keys("flanneld_args", data, FLANNELD_KEYS, ("hostname", "management_ip", "kubeconfig"))
    hostname = _hostname(data["hostname"])
    log_dir = _path("log_dir", _given(data, "log_dir", "C:\\var\\log\\flanneld"))
    flags: dict[str, str | None] = {
        "--kubeconfig-file": _path("kubeconfig", data["kubeconfig"]),
        "--iface": _ip_address("management_ip", data["management_ip"]),
        "--kube-subnet-mgr": "1",
        "--net-config-path": _path("net_conf_path", _given(data, "net_conf_path", DEFAULT_NET_CONF_PATH)),
        "--subnet-file": _path("subnet_file", _given(data, "subnet_file", DEFAULT_SUBNET_FILE)),
    }
    if _bool("ip_masq", _given(data, "ip_masq", True)):
        flags["--ip-masq"] = "1"
    return {
        "args": _render(flags),
        # With --kube-subnet-mgr outside a pod, flanneld finds its node through NODE_NAME.
        "env": {"NODE_NAME": hostname},
        "log_file": f"{log_dir.rstrip(chr(92) + '/')}\\flanneld.log",
    }


# ---------------------------------------------------------------------------------------------
# kubeadm-flags.env
# ---------------------------------------------------------------------------------------------

KUBEADM_ENV_VARIABLE = "KUBELET_KUBEADM_ARGS"
_ENV_LINE_RE = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)")
_SIMPLE_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_HEX_ESCAPE_LENGTHS = {"x": 2, "u": 4, "U": 8}


def flag_name(arg: str) -> str:
    return arg.split("=", 1)[0]


def _unescape_go_string(body: str, line: str) -> str:
    # kubeadm writes the value with Go's %q, whose escapes are these.
    out, i = [], 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        code = body[i + 1: i + 2]
        if code in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[code])
            i += 2
        elif code in _HEX_ESCAPE_LENGTHS:
            digits = body[i + 2: i + 2 + _HEX_ESCAPE_LENGTHS[code]]
            if len(digits) != _HEX_ESCAPE_LENGTHS[code] or not re.fullmatch(r"[0-9A-Fa-f]+", digits):
                raise FlagsError(f"kubeadm-flags.env has a broken escape \\{code}{digits} in: {line}")
            out.append(chr(int(digits, 16)))
            i += 2 + len(digits)
        else:
            raise FlagsError(f"kubeadm-flags.env has an unknown escape \\{code} in: {line}")
    return "".join(out)


def _env_value(raw: str, line: str) -> str:
    raw = raw.strip()
    if raw.startswith('"'):
        match = re.fullmatch(r'"((?:[^"\\]|\\.)*)"', raw)
        if not match:
            raise FlagsError(f"kubeadm-flags.env has an unterminated double-quoted value: {line}")
        return _unescape_go_string(match.group(1), line)
    if raw.startswith("'"):
        if len(raw) < 2 or not raw.endswith("'") or "'" in raw[1:-1]:
            raise FlagsError(f"kubeadm-flags.env has an unterminated single-quoted value: {line}")
        return raw[1:-1]
    return raw


def _split_words(text: str, line: str) -> list[str]:
    # Shell-like words: quotes group and are removed; backslashes stay literal (Windows paths).
    words, current, quote, in_word = [], [], None, False
    for char in text:
        if quote:
            if char == quote:
                quote = None
            else:
                current.append(char)
        elif char in "\"'":
            quote, in_word = char, True
        elif char.isspace():
            if in_word:
                words.append("".join(current))
            current, in_word = [], False
        else:
            current.append(char)
            in_word = True
    if quote:
        raise FlagsError(f"kubeadm-flags.env has an unterminated {quote} inside {KUBEADM_ENV_VARIABLE}: {line}")
    if in_word:
        words.append("".join(current))
    return words


def kubeadm_flags(text: t.Any) -> list[str]:
    """The kubelet arguments in the text of kubeadm's kubeadm-flags.env, in file order.

    Tolerates a UTF-8 byte order mark, CRLF line ends, comments, blank lines and other variables;
    an empty file gives no arguments.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8-sig")
    if not isinstance(text, str):
        raise FlagsError(f"kubeadm-flags.env content must be text, got {text!r} ({type(text).__name__})")
    text = text.lstrip("\ufeff")
    found, names = None, []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _ENV_LINE_RE.fullmatch(stripped)
        if not match:
            raise FlagsError(f"kubeadm-flags.env has a line that is not NAME=value: {line!r}")
        names.append(match.group(1))
        if match.group(1) == KUBEADM_ENV_VARIABLE:
            if found is not None:
                raise FlagsError(f"kubeadm-flags.env sets {KUBEADM_ENV_VARIABLE} twice")
            found = (_env_value(match.group(2), line), line)
    if found is None:
        if names:
            raise FlagsError(f"kubeadm-flags.env does not set {KUBEADM_ENV_VARIABLE}; it sets {', '.join(names)}")
        return []
    words = _split_words(*found)
    for word in words:
        if not word.startswith("--") or len(word) < 3:
            raise FlagsError(f"{KUBEADM_ENV_VARIABLE} holds {word!r}, which is not a --flag")
    return words


def fold_kubeadm_flags(args: t.Any, env_text: t.Any, kubernetes_version: t.Any = None) -> list[str]:
    """kubelet arguments with those of kubeadm-flags.env folded in.

    A native Windows service cannot source an environment file the way kubeadm's systemd drop-in
    does, so the flags kubeadm writes at join time must become part of the command line.
    Precedence: a flag in ``args`` (the flags this collection computes and manages) wins over the
    same flag from kubeadm; every other kubeadm flag is added; a flag kubeadm lists twice keeps its
    last value, as the kubelet's own parser would. With ``kubernetes_version``, kubeadm flags that
    kubelet release no longer accepts are left out, as kubeadm upgrade itself removes them
    (e.g. --pod-infra-container-image from 1.35). The result is sorted by flag name.
    """
    if not isinstance(args, (list, tuple)) or not all(isinstance(arg, str) and arg.startswith("--") for arg in args):
        raise FlagsError(f"fold_kubeadm_flags needs a list of --flags as its input, got {args!r}")
    ours: dict[str, str] = {}
    for arg in args:
        if flag_name(arg) in ours:
            raise FlagsError(f"the kubelet arguments set {flag_name(arg)} twice: {ours[flag_name(arg)]!r} and {arg!r}")
        ours[flag_name(arg)] = arg
    version = None if kubernetes_version is None else parse_version(kubernetes_version, "kubernetes_version")
    theirs: dict[str, str] = {}
    for arg in kubeadm_flags(env_text):
        name = flag_name(arg)
        if name in ours or (version is not None and not flag_accepted(KUBELET_REMOVED_FLAGS, name, version)):
            continue
        theirs[name] = arg
    merged = {**theirs, **ours}
    return [merged[name] for name in sorted(merged)]


# ---------------------------------------------------------------------------------------------
# Windows command lines (a service's ImagePath)
# ---------------------------------------------------------------------------------------------

_NEEDS_QUOTES = (" ", "\t", "\n", "\v", '"')


def quote_windows_argument(arg: str) -> str:
    """Quote one argument so that the Windows argument parsers give it back unchanged.

    The parsers (CommandLineToArgvW, the Microsoft C runtime, Go's os.Args) treat backslashes
    literally except before a double quote: 2n backslashes and a quote are n backslashes and a
    delimiter, 2n+1 backslashes and a quote are n backslashes and a literal quote.
    """
    if arg == "":
        return '""'
    if not any(char in arg for char in _NEEDS_QUOTES):
        return arg
    out, backslashes = ['"'], 0
    for char in arg:
        if char == "\\":
            backslashes += 1
            continue
        if char == '"':
            out.append("\\" * (2 * backslashes + 1) + '"')
        else:
            out.append("\\" * backslashes + char)
        backslashes = 0
    # Backslashes before the closing quote are doubled so the quote still closes the argument.
    out.append("\\" * (2 * backslashes) + '"')
    return "".join(out)


def windows_command_line(path: t.Any, args: t.Any) -> str:
    """A service command line (ImagePath): the executable, then each argument quoted as needed.

    The executable is quoted when it contains a space: the SCM otherwise tries each space-separated
    prefix as a program (C:\\Program.exe for C:\\Program Files\\...), the unquoted service path
    weakness (CWE-428).
    """
    if not isinstance(path, str) or not path or any(c in path for c in _UNSAFE_PATH_CHARACTERS) or path.endswith("\\"):
        raise FlagsError(f"the executable path must be a file path without quotes or line breaks, got {path!r}")
    if not isinstance(args, (list, tuple)):
        raise FlagsError(f"the arguments must be a list of strings, got {args!r}")
    for arg in args:
        if not isinstance(arg, str) or "\x00" in arg:
            raise FlagsError(f"every argument must be a string without NUL characters, got {arg!r}")
    program = f'"{path}"' if any(c in path for c in " \t") else path
    return " ".join([program, *(quote_windows_argument(arg) for arg in args)])


def _read_program(text: str, i: int) -> tuple[str, int]:
    # The program name follows simpler rules: quotes toggle, backslashes are always literal.
    out, in_quotes = [], False
    while i < len(text):
        char = text[i]
        if char == '"':
            in_quotes = not in_quotes
        elif char in " \t" and not in_quotes:
            break
        else:
            out.append(char)
        i += 1
    return "".join(out), i


def _read_argument(text: str, i: int) -> tuple[str, int]:
    out, in_quotes, backslashes = [], False, 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            backslashes += 1
            i += 1
            continue
        if char == '"':
            out.append("\\" * (backslashes // 2))
            if backslashes % 2:
                out.append('"')
            elif in_quotes and text[i + 1: i + 2] == '"':
                # Two quotes inside a quoted part give one literal quote and end the quoted part
                # (the pre-2008 C runtime rule, which CommandLineToArgvW and Go follow).
                out.append('"')
                i += 1
                in_quotes = False
            else:
                in_quotes = not in_quotes
            backslashes = 0
            i += 1
            continue
        out.append("\\" * backslashes)
        backslashes = 0
        if char in " \t" and not in_quotes:
            break
        out.append(char)
        i += 1
    out.append("\\" * backslashes)
    return "".join(out), i


def split_windows_command_line(text: t.Any) -> list[str]:
    """The program and arguments of a Windows command line, as the program itself would see them."""
    if not isinstance(text, str):
        raise FlagsError(f"a command line must be a string, got {text!r}")
    words, i = [], 0
    while i < len(text) and text[i] in " \t":
        i += 1
    if i == len(text):
        return []
    program, i = _read_program(text, i)
    words.append(program)
    while True:
        while i < len(text) and text[i] in " \t":
            i += 1
        if i >= len(text):
            return words
        word, i = _read_argument(text, i)
        words.append(word)
