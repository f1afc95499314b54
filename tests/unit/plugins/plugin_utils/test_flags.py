# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Node service command lines: kubelet, kube-proxy, flanneld, kubeadm-flags.env, Windows quoting."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.plugin_utils import _flags
from ansible_collections.kubewin.node.plugins.plugin_utils._flags import (
    FlagsError,
    flag_name,
    flanneld_args,
    fold_kubeadm_flags,
    kube_proxy_args,
    kubeadm_flags,
    kubelet_args,
    split_windows_command_line,
    windows_command_line,
)
from ansible_collections.kubewin.node.plugins.plugin_utils._versions import Version, VersionPolicyError

SUPPORTED_MINORS = list(range(29, 38))

KUBELET = {
    "kubernetes_version": "1.33.4",
    "hostname": "WIN-Node-01",
    "node_ip": "10.127.130.38",
    "cluster_dns": "10.96.0.10",
    "windows_build": 20348,
    "kubeconfig": "C:\\etc\\kubernetes\\kubelet.conf",
    "bootstrap_kubeconfig": "C:\\etc\\kubernetes\\bootstrap-kubelet.conf",
    "config": "C:\\var\\lib\\kubelet\\config.yaml",
    "cert_dir": "C:\\var\\lib\\kubelet\\pki",
}

KUBE_PROXY = {
    "kubernetes_version": "1.33.4",
    "hostname": "WIN-Node-01",
    "cluster_cidr": "10.244.0.0/16",
    "kubeconfig": "C:\\k\\config",
    "topology": "l2bridge",
}


def names(args):
    return [flag_name(arg) for arg in args]


def value_of(args, name):
    [value] = [arg.split("=", 1)[1] for arg in args if flag_name(arg) == name]
    return value


# ---------------------------------------------------------------------------------------------
# kubelet
# ---------------------------------------------------------------------------------------------


def test_kubelet_args_in_full():
    result = kubelet_args(KUBELET)
    assert result == {
        "args": [
            "--bootstrap-kubeconfig=C:\\etc\\kubernetes\\bootstrap-kubelet.conf",
            "--cert-dir=C:\\var\\lib\\kubelet\\pki",
            "--cgroups-per-qos=false",
            "--cluster-dns=10.96.0.10",
            "--cluster-domain=cluster.local",
            "--config=C:\\var\\lib\\kubelet\\config.yaml",
            "--container-runtime-endpoint=npipe:////./pipe/containerd-containerd",
            "--enforce-node-allocatable=",
            "--hostname-override=win-node-01",
            "--kubeconfig=C:\\etc\\kubernetes\\kubelet.conf",
            "--node-ip=10.127.130.38",
            "--node-labels=node.kubernetes.io/windows-build=10.0.20348",
            "--pod-infra-container-image=registry.k8s.io/pause:3.10",
            "--resolv-conf=",
            "--system-reserved=memory=2Gi",
            "--v=2",
            "--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS",
            "--windows-service",
        ],
        "env": {},
        "log_file": "C:\\var\\log\\kubelet\\kubelet.log",
        "wrapper": ["C:\\k\\kube-log-runner.exe", "-log-file=C:\\var\\log\\kubelet\\kubelet.log"],
        "dropin": None,
    }


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_kubelet_flags_per_release(minor):
    args = kubelet_args({**KUBELET, "kubernetes_version": f"1.{minor}.3"})["args"]
    version = Version(1, minor, 3)
    # Flags every supported kubelet takes.
    for name in ("--hostname-override", "--container-runtime-endpoint", "--cgroups-per-qos", "--windows-service"):
        assert name in names(args)
    # --pod-infra-container-image only before its removal in 1.35.
    assert ("--pod-infra-container-image" in names(args)) == (minor < 35)
    # The klog file flags were removed in 1.26, before the supported range.
    for removed in ("--log-dir", "--logtostderr", "--log-file", "--network-plugin", "--container-runtime"):
        assert removed not in names(args)
    # No flag the release has dropped is ever passed.
    for name in names(args):
        assert _flags.flag_accepted(_flags.KUBELET_REMOVED_FLAGS, name, version), name


def test_klog_file_flags_only_before_1_26():
    assert _flags.klog_file_flags(Version(1, 25, 9), "C:\\var\\log\\kubelet\\kubelet.log") == {
        "--log-file": "C:\\var\\log\\kubelet\\kubelet.log",
        "--logtostderr": "false",
    }
    assert _flags.klog_file_flags(Version(1, 26, 0), "C:\\x.log") == {}


def test_kubelet_args_are_sorted_and_deterministic():
    first = kubelet_args({**KUBELET, "node_labels": {"zone": "a", "app": "b"}})["args"]
    second = kubelet_args({**KUBELET, "node_labels": {"app": "b", "zone": "a"}})["args"]
    assert first == second
    assert names(first) == sorted(names(first))


def test_kubelet_minimal_input_and_hostname_is_lower_cased():
    args = kubelet_args({"kubernetes_version": "v1.35.1", "hostname": " WIN-01 "})["args"]
    assert args == [
        "--cgroups-per-qos=false",
        "--cluster-domain=cluster.local",
        "--container-runtime-endpoint=npipe:////./pipe/containerd-containerd",
        "--enforce-node-allocatable=",
        "--hostname-override=win-01",
        "--resolv-conf=",
        "--system-reserved=memory=2Gi",
        "--v=2",
        "--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS",
        "--windows-service",
    ]


def test_kubelet_max_pods_is_the_plans():
    assert value_of(kubelet_args({**KUBELET, "max_pods": 60})["args"], "--max-pods") == "60"
    # Not given: no flag, the kubelet configuration's value stands.
    assert not any(arg.startswith("--max-pods") for arg in kubelet_args(KUBELET)["args"])


def test_kubelet_with_docker_talks_to_cri_dockerd():
    args = kubelet_args({**KUBELET, "container_runtime": "docker"})["args"]
    assert value_of(args, "--container-runtime-endpoint") == "npipe:////./pipe/cri-dockerd"


def test_kubelet_pause_image_follows_the_windows_build_and_the_override():
    args = kubelet_args({**KUBELET, "kubernetes_version": "1.34.2", "windows_build": 20348})["args"]
    assert value_of(args, "--pod-infra-container-image") == "registry.k8s.io/pause:3.10.1"
    args = kubelet_args({**KUBELET, "pause_image": "mirror.example.com/pause:3.10"})["args"]
    assert value_of(args, "--pod-infra-container-image") == "mirror.example.com/pause:3.10"


def test_kubelet_labels_taints_and_reservations():
    args = kubelet_args(
        {
            **KUBELET,
            "node_labels": {"node.kubernetes.io/pool": "win", "team": "", "example.com/tier": "web"},
            "register_with_taints": ["os=windows:NoSchedule", {"key": "dedicated", "effect": "NoExecute"}, "os=windows:NoSchedule"],
            "system_reserved": {"memory": "3Gi", "cpu": "500m"},
            "windows_priorityclass": "HIGH_PRIORITY_CLASS",
            "cluster_dns": ["10.96.0.10", "10.96.0.11"],
            "verbosity": 4,
        }
    )["args"]
    assert value_of(args, "--node-labels") == (
        "example.com/tier=web,node.kubernetes.io/pool=win,node.kubernetes.io/windows-build=10.0.20348,team="
    )
    assert value_of(args, "--register-with-taints") == "dedicated:NoExecute,os=windows:NoSchedule"
    assert value_of(args, "--system-reserved") == "cpu=500m,memory=3Gi"
    assert value_of(args, "--windows-priorityclass") == "HIGH_PRIORITY_CLASS"
    assert value_of(args, "--cluster-dns") == "10.96.0.10,10.96.0.11"
    assert value_of(args, "--v") == "4"


def test_kubelet_without_reservations():
    assert "--system-reserved" not in names(kubelet_args({**KUBELET, "system_reserved": {}})["args"])


@pytest.mark.parametrize(
    "labels, message",
    [
        ({"node-role.kubernetes.io/worker": ""}, "node label 'node-role.kubernetes.io/worker' is in the node-role.kubernetes.io namespace"),
        ({"kubernetes.io/role": "agent"}, "node label 'kubernetes.io/role' is in the kubernetes.io namespace"),
        ({"example.k8s.io/x": "y"}, "node label 'example.k8s.io/x' is in the example.k8s.io namespace"),
        ({"team": "a b"}, "node label 'team' has value 'a b'"),
        ({"-bad": "x"}, "node label key '-bad' is not a valid label key"),
        (
            {"node.kubernetes.io/windows-build": "10.0.17763"},
            "node_labels sets node.kubernetes.io/windows-build=10.0.17763, but windows_build 20348 means 10.0.20348",
        ),
    ],
)
def test_kubelet_refuses_labels_it_may_not_set(labels, message):
    with pytest.raises(FlagsError, match=message.replace(".", r"\.").replace("(", r"\(")):
        kubelet_args({**KUBELET, "node_labels": labels})


def test_kubelet_may_set_its_allowed_labels():
    args = kubelet_args({**KUBELET, "node_labels": {"kubernetes.io/os": "windows", "kubelet.kubernetes.io/x": "1"}})["args"]
    assert "kubernetes.io/os=windows" in value_of(args, "--node-labels")


@pytest.mark.parametrize(
    "taint, message",
    [
        ("os=windows:NoPods", "the effect of taint 'os' must be one of NoSchedule, PreferNoSchedule, NoExecute"),
        ("os=windows", "register_with_taints entries must be 'key=value:Effect'"),
        ({"key": "os", "value": "a b", "effect": "NoSchedule"}, "taint 'os' has value 'a b'"),
    ],
)
def test_kubelet_refuses_bad_taints(taint, message):
    with pytest.raises(FlagsError, match=message):
        kubelet_args({**KUBELET, "register_with_taints": [taint]})


@pytest.mark.parametrize(
    "change, message",
    [
        ({"hostname": "win_01"}, "hostname must be a DNS name such as win-node-01 (it is lower-cased), got 'win_01'"),
        ({"node_ip": "10.0.0.300"}, "node_ip must be an IP address, got '10.0.0.300'"),
        ({"cluster_dns": []}, "cluster_dns must be an IP address or a list of them"),
        ({"cluster_domain": "Cluster.Local"}, "cluster_domain must be a lower-case DNS name"),
        ({"windows_priorityclass": "ABOVE_NORMAL"}, "windows_priorityclass must be one of IDLE_PRIORITY_CLASS"),
        ({"system_reserved": {"memory": "2 GB"}}, "system_reserved memory must be a quantity such as 2Gi or 500m, got '2 GB'"),
        ({"system_reserved": {"gpu": "1"}}, "system_reserved resource must be one of cpu, memory, ephemeral-storage, pid; got 'gpu'"),
        ({"kubeconfig": 'C:\\k\\"config'}, "kubeconfig must be a path without quotes or line breaks"),
        ({"verbosity": 11}, "verbosity must be an integer from 0 to 10"),
        ({"max_pods": 0}, "max_pods must be a positive integer (kubelet's --max-pods), got 0"),
        ({"max_pods": "60"}, "max_pods must be a positive integer (kubelet's --max-pods), got '60'"),
        ({"container_runtime": "cri-o"}, "container_runtime must be one of containerd, docker; got 'cri-o'"),
        ({"service_manager": "winsw"}, "service_manager must be one of scm, nssm; got 'winsw'"),
        ({"kubernetes_version": "1.28.9"}, "kubernetes_version 1.28.9 is outside the range this collection supports (1.29-1.37)"),
        ({"flags": ["--x"]}, "unknown kubelet_args key(s) flags; known keys are kubernetes_version, hostname"),
        ({"hostname": None}, "the kubelet_args input needs hostname"),
    ],
)
def test_kubelet_input_errors_name_the_value(change, message):
    with pytest.raises(AnsibleFilterError) as excinfo:
        kubelet_args({**KUBELET, **change})
    assert message in str(excinfo.value)


def test_kubelet_bad_version_text():
    with pytest.raises(VersionPolicyError, match="kubernetes_version must be a Kubernetes release"):
        kubelet_args({**KUBELET, "kubernetes_version": "1.33"})


def test_kubelet_under_nssm_has_no_windows_service_flag_and_no_wrapper():
    result = kubelet_args({**KUBELET, "service_manager": "nssm", "log_dir": "D:\\logs\\kubelet\\"})
    assert "--windows-service" not in result["args"]
    assert result["wrapper"] == []
    assert result["log_file"] == "D:\\logs\\kubelet\\kubelet.log"


def test_kubelet_under_the_scm_is_wrapped_by_kube_log_runner():
    result = kubelet_args({**KUBELET, "kube_log_runner": "C:\\Program Files\\k\\kube-log-runner.exe"})
    assert "--windows-service" in result["args"]
    assert result["wrapper"] == ["C:\\Program Files\\k\\kube-log-runner.exe", "-log-file=C:\\var\\log\\kubelet\\kubelet.log"]


SHUTDOWN = {"shutdown_grace_period": 60, "shutdown_grace_period_critical_pods": 20,
            "config_dir": "C:\\etc\\kubernetes\\kubelet.conf.d"}


@pytest.mark.parametrize("minor, gate", [(32, True), (33, True), (34, False), (37, False)])
def test_kubelet_graceful_shutdown_takes_a_dropin_and_the_gate_where_it_is_off(minor, gate):
    # WindowsGracefulNodeShutdown: alpha and off in 1.32 and 1.33, beta and on from 1.34.
    result = kubelet_args({**KUBELET, **SHUTDOWN, "kubernetes_version": f"1.{minor}.3"})
    assert value_of(result["args"], "--config-dir") == "C:\\etc\\kubernetes\\kubelet.conf.d"
    assert ("--feature-gates=WindowsGracefulNodeShutdown=true" in result["args"]) == gate
    assert "--windows-service" in result["args"]
    dropin = yaml.safe_load(result["dropin"])
    assert dropin == {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
                      "shutdownGracePeriod": "60s", "shutdownGracePeriodCriticalPods": "20s"}


@pytest.mark.parametrize("minor, gate", [(29, True), (35, True), (36, False), (37, False)])
def test_kubelet_node_log_query_takes_the_dropin_and_the_gate_before_it_is_ga(minor, gate):
    # NodeLogQuery: alpha to 1.29, beta and off by default to 1.35, GA and locked on from 1.36.
    result = kubelet_args({**KUBELET, "node_log_query": True, "config_dir": "C:\\etc\\kubernetes\\kubelet.conf.d",
                           "kubernetes_version": f"1.{minor}.3"})
    assert ("--feature-gates=NodeLogQuery=true" in result["args"]) == gate
    assert yaml.safe_load(result["dropin"]) == {"apiVersion": "kubelet.config.k8s.io/v1beta1",
                                                "kind": "KubeletConfiguration", "enableSystemLogHandler": True,
                                                "enableSystemLogQuery": True}


def test_kubelet_gates_of_both_settings_are_one_flag():
    result = kubelet_args({**KUBELET, **SHUTDOWN, "node_log_query": True, "kubernetes_version": "1.33.3"})
    assert value_of(result["args"], "--feature-gates") == "NodeLogQuery=true,WindowsGracefulNodeShutdown=true"
    assert set(yaml.safe_load(result["dropin"])) == {"apiVersion", "kind", "shutdownGracePeriod",
                                                     "shutdownGracePeriodCriticalPods", "enableSystemLogHandler",
                                                     "enableSystemLogQuery"}


def test_kubelet_without_a_grace_period_has_no_dropin_and_no_config_dir():
    result = kubelet_args({**KUBELET, **SHUTDOWN, "shutdown_grace_period": 0, "shutdown_grace_period_critical_pods": 0})
    assert result["dropin"] is None and "--config-dir" not in names(result["args"])
    assert "--feature-gates" not in names(result["args"])


@pytest.mark.parametrize("change, message", [
    ({"kubernetes_version": "1.31.14"}, "shutdown_grace_period needs Kubernetes 1.32 or later"),
    ({"service_manager": "nssm"}, "shutdown_grace_period needs the kubelet to run as a native service"),
    ({"shutdown_grace_period_critical_pods": 61}, r"shutdown_grace_period_critical_pods \(61\) must not exceed"),
    ({"shutdown_grace_period": "60s"}, "shutdown_grace_period must be a whole number of seconds"),
    ({"shutdown_grace_period": -1}, "shutdown_grace_period must be a whole number of seconds"),
    ({"config_dir": None}, "config_dir must be a path"),
    ({"node_log_query": "yes"}, "node_log_query must be true or false"),
])
def test_kubelet_graceful_shutdown_refusals(change, message):
    with pytest.raises(_flags.FlagsError, match=message):
        kubelet_args({**KUBELET, **SHUTDOWN, "kubernetes_version": "1.34.3", **change})


# ---------------------------------------------------------------------------------------------
# kube-proxy
# ---------------------------------------------------------------------------------------------


def test_kube_proxy_l2bridge_in_full():
    assert kube_proxy_args(KUBE_PROXY) == {
        "args": [
            "--cluster-cidr=10.244.0.0/16",
            "--enable-dsr=false",
            "--hostname-override=win-node-01",
            "--kubeconfig=C:\\k\\config",
            "--network-name=cbr0",
            "--proxy-mode=kernelspace",
            "--v=2",
            "--windows-service",
        ],
        "env": {"KUBE_NETWORK": "cbr0"},
        "log_file": "C:\\var\\log\\kube-proxy\\kube-proxy.log",
        "wrapper": ["C:\\k\\kube-log-runner.exe", "-log-file=C:\\var\\log\\kube-proxy\\kube-proxy.log"],
    }


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_kube_proxy_overlay_per_release(minor):
    result = kube_proxy_args({**KUBE_PROXY, "kubernetes_version": f"1.{minor}.0", "topology": "overlay", "source_vip": "10.244.3.2"})
    args = result["args"]
    assert value_of(args, "--source-vip") == "10.244.3.2"
    assert value_of(args, "--network-name") == "flannel.4096"
    assert result["env"] == {"KUBE_NETWORK": "flannel.4096"}
    # WinOverlay has been on by default since 1.20: no feature gate anywhere in the range.
    assert "--feature-gates" not in names(args)
    for removed in ("--log-dir", "--logtostderr"):
        assert removed not in names(args)
    assert names(args) == sorted(names(args))


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_kube_proxy_dsr_gate_only_where_still_off_by_default(minor):
    args = kube_proxy_args({**KUBE_PROXY, "kubernetes_version": f"1.{minor}.0", "enable_dsr": True})["args"]
    assert value_of(args, "--enable-dsr") == "true"
    if minor < 33:
        assert value_of(args, "--feature-gates") == "WinDSR=true"
    else:
        assert "--feature-gates" not in names(args)


def test_kube_proxy_feature_gate_rules_outside_the_range():
    assert _flags._kube_proxy_feature_gates(Version(1, 19, 0), "overlay", True) == "WinDSR=true,WinOverlay=true"
    assert _flags._kube_proxy_feature_gates(Version(1, 20, 0), "overlay", False) is None


def test_kube_proxy_network_name_and_nssm():
    result = kube_proxy_args(
        {**KUBE_PROXY, "topology": "overlay", "source_vip": "10.244.3.2", "vxlan_vni": 4097, "service_manager": "nssm"}
    )
    assert value_of(result["args"], "--network-name") == "flannel.4097"
    assert "--windows-service" not in result["args"] and result["wrapper"] == []
    result = kube_proxy_args({**KUBE_PROXY, "network_name": "vxlan0"})
    assert value_of(result["args"], "--network-name") == "vxlan0" and result["env"] == {"KUBE_NETWORK": "vxlan0"}


@pytest.mark.parametrize("topology, network", [("l2bridge", "cbr0"), ("overlay", "flannel.4096"), ("calico", "Calico")])
def test_kube_proxy_per_node_false_leaves_out_the_node_name_and_the_source_vip(topology, network):
    """The DaemonSet's pod template: the same flags as the service's, without the ones the node adds."""
    common = {**KUBE_PROXY, "topology": topology, "service_manager": "nssm"}
    template = kube_proxy_args({**common, "hostname": None, "per_node": False})
    assert value_of(template["args"], "--network-name") == network and template["env"] == {"KUBE_NETWORK": network}
    assert not {"--hostname-override", "--source-vip"} & set(names(template["args"]))
    if topology != "calico":
        service = kube_proxy_args({**common, "source_vip": "10.244.3.2" if topology == "overlay" else None})
        assert [a for a in service["args"] if not a.startswith(("--hostname-override=", "--source-vip="))] == template["args"]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"topology": "overlay"}, "topology overlay needs source_vip"),
        ({"source_vip": "10.244.3.2"}, "source_vip '10.244.3.2' is only used by the overlay topology, not l2bridge"),
        ({"topology": "ovn"}, "topology ovn runs no kube-proxy"),
        ({"topology": "nat"}, "topology must be one of l2bridge, overlay, calico; got 'nat'"),
        ({"topology": "calico"}, "topology calico runs kube-proxy in the kube-proxy-windows DaemonSet only (per_node false)"),
        ({"hostname": None}, "the kube_proxy_args input needs hostname (or per_node false"),
        ({"per_node": "no"}, "per_node must be true or false, got 'no'"),
        ({"per_node": False}, "hostname cannot be given with per_node false"),
        ({"per_node": False, "hostname": None, "topology": "overlay", "source_vip": "10.244.3.2"},
         "source_vip cannot be given with per_node false"),
        ({"cluster_cidr": "10.244.0.1/16"}, "cluster_cidr must be a CIDR such as 10.244.0.0/16 without host bits, got '10.244.0.1/16'"),
        ({"network_name": "my net"}, "network_name must be the HNS network name"),
        ({"vxlan_vni": 1}, "vxlan_vni must be an integer from 4096"),
        ({"enable_dsr": "yes"}, "enable_dsr must be true or false, got 'yes'"),
        ({"kubeconfig": None}, "the kube_proxy_args input needs kubeconfig"),
    ],
)
def test_kube_proxy_input_errors(change, message):
    with pytest.raises(FlagsError) as excinfo:
        kube_proxy_args({**KUBE_PROXY, **change})
    assert message in str(excinfo.value)


# ---------------------------------------------------------------------------------------------
# flanneld
# ---------------------------------------------------------------------------------------------


def test_flanneld_as_the_source_documents_register_it():
    assert flanneld_args({"hostname": "WIN-Node-01", "management_ip": "10.127.130.38", "kubeconfig": "c:\\k\\config"}) == {
        "args": [
            "--iface=10.127.130.38",
            "--ip-masq=1",
            "--kube-subnet-mgr=1",
            "--kubeconfig-file=c:\\k\\config",
            "--net-config-path=C:\\etc\\kube-flannel\\net-conf.json",
            "--subnet-file=C:\\run\\flannel\\subnet.env",
        ],
        "env": {"NODE_NAME": "win-node-01"},
        "log_file": "C:\\var\\log\\flanneld\\flanneld.log",
    }


def test_flanneld_options():
    result = flanneld_args(
        {
            "hostname": "n1",
            "management_ip": "10.0.0.5",
            "kubeconfig": "C:\\k\\config",
            "ip_masq": False,
            "net_conf_path": "D:\\flannel\\net-conf.json",
            "subnet_file": "D:\\flannel\\subnet.env",
            "log_dir": "D:\\logs",
        }
    )
    assert "--ip-masq" not in names(result["args"])
    assert value_of(result["args"], "--net-config-path") == "D:\\flannel\\net-conf.json"
    assert value_of(result["args"], "--subnet-file") == "D:\\flannel\\subnet.env"
    assert result["log_file"] == "D:\\logs\\flanneld.log"
    with pytest.raises(FlagsError, match="management_ip must be an IP address, got 'eth0'"):
        flanneld_args({"hostname": "n1", "management_ip": "eth0", "kubeconfig": "C:\\k\\config"})


# ---------------------------------------------------------------------------------------------
# kubeadm-flags.env (recorded contents)
# ---------------------------------------------------------------------------------------------

# kubeadm 1.31 join on a Windows node with containerd (kubeadm writes with Go's %q and a newline).
ENV_1_31 = 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=npipe:////./pipe/containerd-containerd --pod-infra-container-image=registry.k8s.io/pause:3.10"\n'
# The same file after Windows PowerShell 5 rewrote it with Set-Content -Encoding UTF8 (BOM, CRLF).
ENV_BOM_CRLF = "\ufeff" + ENV_1_31.replace("\n", "\r\n")
# kubeadm 1.26 still wrote --container-runtime=remote.
ENV_1_26 = (
    'KUBELET_KUBEADM_ARGS="--container-runtime=remote --container-runtime-endpoint=npipe:////./pipe/containerd-containerd '
    '--pod-infra-container-image=registry.k8s.io/pause:3.9"\n'
)
# kubeletExtraArgs with a value containing spaces and a Windows path, as %q escapes them.
ENV_EXTRA = (
    "# written by kubeadm\n"
    'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=npipe:////./pipe/containerd-containerd '
    '--hostname-override=win-node-01 --node-labels=\\"team=a b\\" --root-dir=C:\\\\var\\\\lib\\\\kubelet"\n'
)


@pytest.mark.parametrize("text", [ENV_1_31, ENV_BOM_CRLF, ENV_BOM_CRLF.encode("utf-8")])
def test_kubeadm_flags_recorded(text):
    assert kubeadm_flags(text) == [
        "--container-runtime-endpoint=npipe:////./pipe/containerd-containerd",
        "--pod-infra-container-image=registry.k8s.io/pause:3.10",
    ]


def test_kubeadm_flags_quotes_and_backslashes():
    assert kubeadm_flags(ENV_EXTRA) == [
        "--container-runtime-endpoint=npipe:////./pipe/containerd-containerd",
        "--hostname-override=win-node-01",
        "--node-labels=team=a b",
        "--root-dir=C:\\var\\lib\\kubelet",
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", []),
        ("\ufeff\r\n  \r\n", []),
        ("# nothing yet\n", []),
        ("KUBELET_KUBEADM_ARGS=\n", []),
        ('KUBELET_KUBEADM_ARGS=""', []),
        ("KUBELET_KUBEADM_ARGS=--v=2 --node-ip=10.0.0.5", ["--v=2", "--node-ip=10.0.0.5"]),
        ("KUBELET_KUBEADM_ARGS='--node-labels=\"a=b c\"'", ["--node-labels=a=b c"]),
        ('OTHER=1\nexport KUBELET_KUBEADM_ARGS="--v=3"', ["--v=3"]),
        ('KUBELET_KUBEADM_ARGS="--x=\\u00e9\\t"', ["--x=\u00e9"]),
    ],
)
def test_kubeadm_flags_variants(text, expected):
    assert kubeadm_flags(text) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("OTHER=1\n", "kubeadm-flags.env does not set KUBELET_KUBEADM_ARGS; it sets OTHER"),
        ("--v=2\n", "kubeadm-flags.env has a line that is not NAME=value: '--v=2'"),
        ('KUBELET_KUBEADM_ARGS="--v=2', "unterminated double-quoted value"),
        ('KUBELET_KUBEADM_ARGS="--v=\\q"', "unknown escape \\q"),
        ('KUBELET_KUBEADM_ARGS="--v=\\x4"', "broken escape"),
        ('KUBELET_KUBEADM_ARGS="--node-labels=\\"a b"', "unterminated \" inside KUBELET_KUBEADM_ARGS"),
        ('KUBELET_KUBEADM_ARGS="v=2"', "KUBELET_KUBEADM_ARGS holds 'v=2', which is not a --flag"),
        ('KUBELET_KUBEADM_ARGS="--v=2"\nKUBELET_KUBEADM_ARGS="--v=3"', "sets KUBELET_KUBEADM_ARGS twice"),
        (None, "kubeadm-flags.env content must be text"),
    ],
)
def test_kubeadm_flags_errors(text, message):
    with pytest.raises(FlagsError) as excinfo:
        kubeadm_flags(text)
    assert message in str(excinfo.value)


def test_fold_our_flags_win_and_kubeadm_fills_in():
    ours = kubelet_args({**KUBELET, "container_runtime": "docker", "node_ip": None})["args"]
    folded = fold_kubeadm_flags(ours, ENV_EXTRA)
    assert names(folded) == sorted(names(folded))
    assert len(set(names(folded))) == len(folded)
    # Managed here: ours wins.
    assert value_of(folded, "--container-runtime-endpoint") == "npipe:////./pipe/cri-dockerd"
    assert value_of(folded, "--hostname-override") == "win-node-01"
    assert value_of(folded, "--node-labels") == "node.kubernetes.io/windows-build=10.0.20348"
    # Not managed here: kubeadm's is added.
    assert value_of(folded, "--root-dir") == "C:\\var\\lib\\kubelet"
    assert set(ours) <= set(folded)


def test_fold_drops_flags_the_kubelet_no_longer_accepts():
    ours = kubelet_args({**KUBELET, "kubernetes_version": "1.35.2"})["args"]
    assert "--pod-infra-container-image" not in names(ours)
    folded = fold_kubeadm_flags(ours, ENV_1_26, "1.35.2")
    assert "--pod-infra-container-image" not in names(folded)
    assert "--container-runtime" not in names(folded)
    # Without a version nothing is judged.
    kept = fold_kubeadm_flags(["--v=2"], ENV_1_26)
    assert kept == [
        "--container-runtime=remote",
        "--container-runtime-endpoint=npipe:////./pipe/containerd-containerd",
        "--pod-infra-container-image=registry.k8s.io/pause:3.9",
        "--v=2",
    ]
    # 1.31 still takes --pod-infra-container-image but not --container-runtime.
    assert fold_kubeadm_flags(["--v=2"], ENV_1_26, "v1.31.0") == [
        "--container-runtime-endpoint=npipe:////./pipe/containerd-containerd",
        "--pod-infra-container-image=registry.k8s.io/pause:3.9",
        "--v=2",
    ]


def test_fold_kubeadm_duplicates_keep_the_last_value_and_empty_file():
    assert fold_kubeadm_flags(["--v=2"], 'KUBELET_KUBEADM_ARGS="--node-ip=10.0.0.1 --node-ip=10.0.0.2"') == [
        "--node-ip=10.0.0.2",
        "--v=2",
    ]
    assert fold_kubeadm_flags(["--windows-service", "--v=2"], "") == ["--v=2", "--windows-service"]


def test_fold_errors():
    with pytest.raises(FlagsError, match="the kubelet arguments set --v twice"):
        fold_kubeadm_flags(["--v=2", "--v=3"], ENV_1_31)
    with pytest.raises(FlagsError, match="needs a list of --flags"):
        fold_kubeadm_flags(["v=2"], ENV_1_31)
    with pytest.raises(VersionPolicyError):
        fold_kubeadm_flags(["--v=2"], ENV_1_31, "1.31")


# ---------------------------------------------------------------------------------------------
# Windows command lines
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arg, quoted",
    [
        ("--v=2", "--v=2"),
        ("", '""'),
        ("a b", '"a b"'),
        ("a\tb", '"a\tb"'),
        ('say "hi"', '"say \\"hi\\""'),
        ('"', '"\\""'),
        ("C:\\k\\kubelet.exe", "C:\\k\\kubelet.exe"),
        ("C:\\dir with space\\", '"C:\\dir with space\\\\"'),
        ('a\\"b', '"a\\\\\\"b"'),
        ("a\\\\b c", '"a\\\\b c"'),
        ("--resolv-conf=", "--resolv-conf="),
    ],
)
def test_quote_windows_argument(arg, quoted):
    assert _flags.quote_windows_argument(arg) == quoted
    assert split_windows_command_line(f"prog.exe {quoted}") == ["prog.exe", arg]


def test_command_line_quotes_a_program_path_with_spaces():
    line = windows_command_line("C:\\Program Files\\kubernetes\\kubelet.exe", ["--v=2", "x y", ""])
    assert line == '"C:\\Program Files\\kubernetes\\kubelet.exe" --v=2 "x y" ""'
    assert windows_command_line("C:\\k\\kubelet.exe", []) == "C:\\k\\kubelet.exe"


@pytest.mark.parametrize(
    "line, expected",
    [
        # The examples of Microsoft's CommandLineToArgvW documentation.
        ('prog "abc" d e', ["prog", "abc", "d", "e"]),
        ('prog a\\\\\\b d"e f"g h', ["prog", "a\\\\\\b", "de fg", "h"]),
        ('prog a\\\\\\"b c d', ["prog", 'a\\"b', "c", "d"]),
        ('prog a\\\\\\\\"b c" d e', ["prog", "a\\\\b c", "d", "e"]),
        # Two quotes inside a quoted part: a literal quote, and the part ends.
        ('prog a"b"" c d', ["prog", 'ab"', "c", "d"]),
        # The program name keeps its backslashes and loses its quotes.
        ('"C:\\Program Files\\k\\kubelet.exe" --v=2', ["C:\\Program Files\\k\\kubelet.exe", "--v=2"]),
        ("  C:\\k\\kubelet.exe\t --v=2  ", ["C:\\k\\kubelet.exe", "--v=2"]),
        ("", []),
        ("   ", []),
        ('prog ""', ["prog", ""]),
        ("prog a\\", ["prog", "a\\"]),
    ],
)
def test_split_windows_command_line(line, expected):
    assert split_windows_command_line(line) == expected


@pytest.mark.parametrize(
    "path, args, message",
    [
        ('C:\\k\\"kubelet.exe', [], "the executable path must be a file path without quotes"),
        ("", [], "the executable path must be a file path"),
        ("C:\\k\\", [], "the executable path must be a file path"),
        ("C:\\k\\kubelet.exe", "--v=2", "the arguments must be a list of strings"),
        ("C:\\k\\kubelet.exe", ["--v=2", 2], "every argument must be a string without NUL characters, got 2"),
        ("C:\\k\\kubelet.exe", ["a\x00b"], "every argument must be a string without NUL characters"),
    ],
)
def test_command_line_errors(path, args, message):
    with pytest.raises(FlagsError, match=message):
        windows_command_line(path, args)


def test_split_refuses_non_text():
    with pytest.raises(FlagsError, match="a command line must be a string"):
        split_windows_command_line(["a"])


ALPHABET = ["a", "b", "Z", "0", "-", "=", " ", "\t", '"', "\\", "\\", "é", ":", "/", "\n", "'"]


def random_text(rng, alphabet, shortest, longest):
    return "".join(rng.choice(alphabet) for unused in range(rng.randint(shortest, longest)))


def random_path(rng):
    parts = [random_text(rng, "abc XY._-", 1, 6).strip() or "d" for unused in range(rng.randint(1, 3))]
    return "C:\\" + "\\".join(parts) + "\\prog.exe"


def test_split_inverts_join_for_random_arguments():
    # hypothesis is not in the pinned dev requirements, so a seeded generator stands in for it.
    rng = random.Random(20261)
    for unused in range(3000):
        path = random_path(rng)
        args = [random_text(rng, ALPHABET, 0, 9) for unused_too in range(rng.randint(0, 6))]
        line = windows_command_line(path, args)
        assert split_windows_command_line(line) == [path, *args], line


def test_round_trip_of_the_service_command_lines():
    result = kubelet_args({**KUBELET, "kube_log_runner": "C:\\Program Files\\k\\kube-log-runner.exe"})
    argv = [*result["wrapper"], "C:\\Program Files\\k\\kubelet.exe", *result["args"]]
    line = windows_command_line(argv[0], argv[1:])
    assert line.startswith('"C:\\Program Files\\k\\kube-log-runner.exe" -log-file=C:\\var\\log\\kubelet\\kubelet.log ')
    assert split_windows_command_line(line) == argv


# ---------------------------------------------------------------------------------------------
# kube-log-runner's rotation (log_max_size_mb)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
@pytest.mark.parametrize("builder, data", [(kubelet_args, KUBELET), (kube_proxy_args, KUBE_PROXY)])
def test_the_runner_gets_only_flags_its_release_defines(builder, data, minor):
    wrapper = builder({**data, "kubernetes_version": f"1.{minor}.2", "log_max_size_mb": 64})["wrapper"]
    flags = [word.split("=", 1)[0] for word in wrapper[1:]]
    version = Version(1, minor, 2)
    for flag in flags:
        assert version.minor_key >= _flags.KUBE_LOG_RUNNER_FLAGS_ADDED[flag], (flag, minor)
    # The runner rotates itself from 1.34 (kubernetes/kubernetes#127667); older ones only append.
    assert ("-log-file-size" in flags) == (minor >= 34)
    if minor >= 34:
        assert "-log-file-size=64Mi" in wrapper


def test_the_runner_table_is_the_simulated_runners():
    # The simulation is importable once a test that runs it put it on the path; this test alone puts it there too.
    simulation = str(Path(__file__).resolve().parents[3] / "simulation")
    if simulation not in sys.path:
        sys.path.insert(0, simulation)
    from kubewin_sim import programs  # the program model that refuses an undefined flag on the simulated node
    assert programs.KUBE_LOG_RUNNER_FLAGS == _flags.KUBE_LOG_RUNNER_FLAGS_ADDED


def test_without_a_size_the_runner_only_appends():
    wrapper = kubelet_args({**KUBELET, "kubernetes_version": "1.35.0"})["wrapper"]
    assert wrapper == ["C:\\k\\kube-log-runner.exe", "-log-file=C:\\var\\log\\kubelet\\kubelet.log"]


def test_nssm_rotates_so_the_size_adds_no_runner():
    result = kubelet_args({**KUBELET, "kubernetes_version": "1.35.0", "service_manager": "nssm", "log_max_size_mb": 10})
    assert result["wrapper"] == []


@pytest.mark.parametrize("size", [0, -1, True, "100", 1.5])
def test_a_log_size_that_is_not_whole_mib_is_refused(size):
    with pytest.raises(FlagsError, match="log_max_size_mb must be a whole number"):
        kubelet_args({**KUBELET, "log_max_size_mb": size})


# ---------------------------------------------------------------------------------------------
# Dual-stack: --node-ip and --cluster-cidr take one value per IP family
# ---------------------------------------------------------------------------------------------


def test_a_dual_stack_kubelet_gets_both_node_addresses_ipv4_first():
    args = kubelet_args({**KUBELET, "node_ip": "fd00:127:130::38, 10.127.130.38"})["args"]
    assert value_of(args, "--node-ip") == "10.127.130.38,fd00:127:130::38"


@pytest.mark.parametrize("node_ip", ["fd00:127:130::38", "10.127.130.38,10.127.130.39", "10.127.130.38,fd00::1,fd00::2"])
def test_the_node_ip_takes_ipv4_or_one_address_per_family(node_ip):
    with pytest.raises(AnsibleFilterError, match="node_ip takes an IPv4 value, or an IPv4 and an IPv6 one"):
        kubelet_args({**KUBELET, "node_ip": node_ip})


def test_a_dual_stack_kube_proxy_gets_both_cluster_ranges():
    args = kube_proxy_args({**KUBE_PROXY, "kubernetes_version": "1.33.8",
                            "cluster_cidr": "10.244.0.0/16,fd00:10:244::/56"})["args"]
    assert value_of(args, "--cluster-cidr") == "10.244.0.0/16,fd00:10:244::/56"


def test_a_dual_stack_kube_proxy_needs_the_winkernel_fix():
    with pytest.raises(AnsibleFilterError, match=r"kube-proxy 1\.33\.7 shares load balancers between IPv4 and IPv6 "
                                                 r"Services \(kubernetes/kubernetes#136240\); use 1\.33\.8, 1\.34\.4, "
                                                 r"1\.35\.1 or later patches, or 1\.36 and later"):
        kube_proxy_args({**KUBE_PROXY, "kubernetes_version": "1.33.7", "cluster_cidr": "10.244.0.0/16,fd00:10:244::/56"})


def test_a_dual_stack_kube_proxy_runs_on_l2bridge_only():
    with pytest.raises(AnsibleFilterError, match="which kube-proxy runs on l2bridge only, not overlay"):
        kube_proxy_args({**KUBE_PROXY, "kubernetes_version": "1.35.8", "topology": "overlay", "source_vip": "10.244.1.2",
                         "cluster_cidr": "10.244.0.0/16,fd00:10:244::/56"})
