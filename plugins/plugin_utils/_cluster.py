# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Linux side of the cluster checked against what Windows nodes need.

Internal to kubewin.node, not a public API: names and signatures may change in any release.
The public interface is the filters in plugins/filter/cluster_checks.py.

Facts this rests on (flannel's backend documentation, the Kubernetes Windows guides):
- flannel on Linux defaults an unset ``Backend.Type`` to ``udp``, and for vxlan an unset
  ``VNI`` to 1 and an unset ``Port`` to the kernel's default, 8472. flannel on Windows needs
  VNI 4096 (or more) and port 4789, so the Linux side must set them explicitly.
- ``Backend.Name`` names the HNS network on Windows; flannel on Linux ignores it.
- A kubelet labels its Node ``kubernetes.io/os`` and, on Windows, ``node.kubernetes.io/windows-build``
  (``10.0.<build>``); a node is usable when its ``Ready`` condition is ``True``.
"""

from __future__ import annotations

import copy
import ipaddress
import json
import typing as t

from ansible.errors import AnsibleFilterError
from ansible_collections.kubewin.node.plugins.plugin_utils._node_plan import node_name

FLANNEL_DEFAULT_BACKEND_TYPE = "udp"
FLANNEL_LINUX_DEFAULT_VNI = 1
FLANNEL_LINUX_DEFAULT_PORT = 8472
OS_LABELS = ("kubernetes.io/os", "beta.kubernetes.io/os")
WINDOWS_BUILD_LABEL = "node.kubernetes.io/windows-build"


class ClusterCheckError(AnsibleFilterError):
    """A cluster object handed to a check is not what the check reads."""


# ---------------------------------------------------------------------------------------------
# flannel's net-conf.json
# ---------------------------------------------------------------------------------------------


def _net_conf(document: t.Any, what: str) -> dict[str, t.Any]:
    if isinstance(document, str):
        try:
            document = json.loads(document)
        except ValueError as error:
            raise ClusterCheckError(f"{what} is not JSON: {error}") from error
    if not isinstance(document, dict):
        raise ClusterCheckError(f"{what} must be a JSON object, got {type(document).__name__}")
    if document.get("Backend") is not None and not isinstance(document["Backend"], dict):
        raise ClusterCheckError(f"{what}: Backend must be an object, got {document['Backend']!r}")
    return document


def _same_network(left: t.Any, right: t.Any) -> bool:
    try:
        return ipaddress.ip_network(str(left), strict=False) == ipaddress.ip_network(str(right), strict=False)
    except ValueError:
        return False


def flannel_net_conf_compare(cluster_net_conf: t.Any, windows_net_conf: t.Any) -> dict[str, t.Any]:
    """Compare the cluster's net-conf.json with the one Windows nodes need.

    Returns ``differences`` (one message per field, empty when they agree), ``reconciled``
    (the cluster's document with the fields Windows needs set, everything else kept) and
    ``reconciled_text`` (its JSON text for the ConfigMap).
    """
    cluster = _net_conf(cluster_net_conf, "the cluster's net-conf.json")
    windows = _net_conf(windows_net_conf, "the Windows net-conf")
    wanted_backend = windows.get("Backend") or {}
    if "Network" not in windows or "Type" not in wanted_backend:
        raise ClusterCheckError("the Windows net-conf needs Network and Backend.Type (use kubewin.node.flannel_net_conf)")
    backend = cluster.get("Backend") or {}
    differences = []
    reconciled = copy.deepcopy(cluster)

    if not _same_network(cluster.get("Network"), windows["Network"]):
        differences.append(f"Network: cluster has {cluster.get('Network', 'none')}, Windows nodes need {windows['Network']}")
        reconciled["Network"] = windows["Network"]

    wanted_type = str(wanted_backend["Type"]).lower()
    cluster_type = str(backend.get("Type", FLANNEL_DEFAULT_BACKEND_TYPE)).lower()
    if cluster_type != wanted_type:
        unset = "" if "Type" in backend else " (flannel's default; net-conf.json does not set it)"
        differences.append(f"Backend.Type: cluster has {cluster_type}{unset}, Windows nodes need {wanted_type}")
        # Settings of another backend type mean nothing to the new one.
        reconciled["Backend"] = {"Type": wanted_type}
    else:
        reconciled["Backend"] = dict(backend)
    if wanted_type == "vxlan":
        for field, linux_default in (("VNI", FLANNEL_LINUX_DEFAULT_VNI), ("Port", FLANNEL_LINUX_DEFAULT_PORT)):
            wanted = wanted_backend.get(field)
            if wanted is None:
                continue
            has = backend.get(field, linux_default) if cluster_type == wanted_type else None
            if has != wanted:
                if cluster_type == wanted_type:
                    unset = "" if field in backend else " (flannel's default; net-conf.json does not set it)"
                    differences.append(f"Backend.{field}: cluster has {has}{unset}, Windows nodes need {wanted}")
                reconciled["Backend"][field] = wanted
    return {
        "differences": differences,
        "reconciled": reconciled,
        "reconciled_text": json.dumps(reconciled, indent=2) + "\n",
    }


# ---------------------------------------------------------------------------------------------
# Linux-only workloads
# ---------------------------------------------------------------------------------------------


def _restricts_to_linux(expression: t.Any) -> bool:
    return (
        isinstance(expression, dict)
        and expression.get("key") in OS_LABELS
        and expression.get("operator") == "In"
        and list(expression.get("values") or []) == ["linux"]
    )


def schedules_only_on_linux(workload: t.Any) -> bool:
    """Whether a DaemonSet's (or any pod template's) pods can only land on Linux nodes.

    True when the pod template selects ``kubernetes.io/os: linux`` (or the beta label), or
    when its required node affinity restricts that label to ``linux`` in every term.
    """
    if not isinstance(workload, dict):
        raise ClusterCheckError(f"schedules_only_on_linux needs a workload object, got {type(workload).__name__}")
    pod_spec = ((workload.get("spec") or {}).get("template") or {}).get("spec")
    if not isinstance(pod_spec, dict):
        raise ClusterCheckError(
            f"schedules_only_on_linux: {workload.get('kind', 'the object')} "
            f"{(workload.get('metadata') or {}).get('name', '')} has no spec.template.spec"
        )
    selector = pod_spec.get("nodeSelector") or {}
    if any(selector.get(label) == "linux" for label in OS_LABELS):
        return True
    required = (
        ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
        or {}
    )
    terms = required.get("nodeSelectorTerms") or []
    return bool(terms) and all(
        any(_restricts_to_linux(e) for e in (term or {}).get("matchExpressions") or []) for term in terms
    )


# ---------------------------------------------------------------------------------------------
# Windows Nodes
# ---------------------------------------------------------------------------------------------


def _expected_build(host_vars: t.Any) -> int | None:
    """The Windows build of a node's snapshot fact (kubewin.node.node_info), when it was taken."""
    facts = host_vars.get("ansible_facts") if hasattr(host_vars, "get") else None
    snapshot = (facts or {}).get("kubewin_node") if hasattr(facts or {}, "get") else None
    build = ((snapshot or {}).get("os") or {}).get("build") if isinstance(snapshot, dict) else None
    return int(build) if isinstance(build, int) or (isinstance(build, str) and build.isdigit()) else None


def _ready_condition(node: dict[str, t.Any]) -> dict[str, t.Any] | None:
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition
    return None


def windows_label_problems(node: dict[str, t.Any], build: int | None = None) -> list[str]:
    """The labels a Windows Node lacks: kubernetes.io/os=windows, and the build label (of ``build`` when known)."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    found = []
    if labels.get("kubernetes.io/os") != "windows":
        has = labels.get("kubernetes.io/os")
        found.append("lacks label kubernetes.io/os=windows" + (f" (has kubernetes.io/os={has})" if has is not None else ""))
    wanted_build = f"10.0.{build}" if build is not None else None
    has_build = labels.get(WINDOWS_BUILD_LABEL)
    if has_build is None:
        found.append(f"lacks label {WINDOWS_BUILD_LABEL}" + (f"={wanted_build}" if wanted_build else ""))
    elif wanted_build and has_build != wanted_build:
        found.append(f"lacks label {WINDOWS_BUILD_LABEL}={wanted_build} (has {has_build})")
    return found


def windows_node_problems(nodes: t.Any, hosts: t.Any, hostvars: t.Any = None) -> dict[str, list[str]]:
    """What each expected Windows node lacks, keyed by inventory hostname; empty when all are fine.

    ``nodes`` are Node objects (k8s_info resources); ``hosts`` the inventory hostnames of the
    Windows nodes, each registered under its Node name (kubewin_node_name in ``hostvars``, else the hostname
    lower-cased: _node_plan.node_name). With ``hostvars``, a node whose
    snapshot fact (``kubewin_node.os.build``) is known must carry the matching build label.
    """
    if not isinstance(nodes, list):
        raise ClusterCheckError(f"windows_node_problems needs a list of Node objects, got {type(nodes).__name__}")
    if isinstance(hosts, str) or not isinstance(hosts, (list, tuple)):
        raise ClusterCheckError(f"windows_node_problems needs a list of inventory hostnames, got {hosts!r}")
    by_name = {((node or {}).get("metadata") or {}).get("name"): node for node in nodes if isinstance(node, dict)}
    problems: dict[str, list[str]] = {}
    for host in hosts:
        name = node_name(host, hostvars[host] if hostvars is not None and host in hostvars else {})
        node = by_name.get(name)
        if node is None:
            problems[host] = [f"no Node named {name} (the kubelet has not registered it: not joined, or not running)"]
            continue
        found = []
        ready = _ready_condition(node)
        if ready is None or ready.get("status") != "True":
            detail = "no Ready condition" if ready is None else (
                f"Ready={ready.get('status')}"
                + (f", {ready['reason']}" if ready.get("reason") else "")
                + (f": {ready['message']}" if ready.get("message") else "")
            )
            found.append(f"not Ready ({detail})")
        build = _expected_build(hostvars[host]) if hostvars is not None and host in hostvars else None
        found += windows_label_problems(node, build)
        if found:
            problems[host] = found
    return problems
