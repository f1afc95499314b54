"""The calico topology before any host is touched: the IP plan's rules, the Calico version matrix, the refusal of site.yml.

Each rule's source is named next to it in plugins/plugin_utils/_ip_plan.py and _versions.py; these tests hold
the code to those facts with literal values.
"""

import copy
from pathlib import Path

import pytest
import yaml

from ansible_collections.kubewin.node.plugins.plugin_utils import _node_plan, _plan_picture, _preflight
from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import (
    IPPlanError,
    cni_config,
    exception_list,
    normalize_plan,
)
from ansible_collections.kubewin.node.plugins.plugin_utils._versions import (
    CALICO_RELEASES,
    SUPPORTED_KUBERNETES_MINORS,
    VersionPolicyError,
    version_policy,
)

# The good inventory of the preflight tests (an overlay fleet with a control-plane host).
BASE = yaml.safe_load((Path(__file__).resolve().parents[2] / "test_data" / "broken_inventories.yml")
                      .read_text(encoding="utf-8"))["base"]


def inventory(case):
    """(hostvars, groups) of the base inventory with ``case['all']`` over its group all (None removes)."""
    every = {name: value for name, value in dict(copy.deepcopy(BASE["all"]), **case["all"]).items() if value is not None}
    groups = BASE["groups"]
    hosts = sorted({host for members in groups.values() for host in members})
    return {host: dict(every, **BASE["hosts"].get(host, {})) for host in hosts}, dict(groups)


# Calico's own default IP pool, 192.168.0.0/16, as the operator creates it.
CALICO = {
    "topology": "calico",
    "cluster_cidr": "192.168.0.0/16",
    "service_cidr": "10.96.0.0/12",
    "management_cidr": "10.127.130.0/24",
    "nodes": [{"name": "win-1", "management_ip": "10.127.130.41"}, {"name": "win-2", "management_ip": "10.127.130.42"}],
}


def calico(**changes):
    return dict(CALICO, **changes)


def refused(plan, *fragments):
    with pytest.raises(IPPlanError) as error:
        normalize_plan(plan)
    for fragment in fragments:
        assert fragment in str(error.value), str(error.value)


def test_a_calico_plan_gets_calicos_defaults():
    assert normalize_plan(CALICO) == {
        "topology": "calico",
        "cluster_cidr": "192.168.0.0/16",
        "service_cidr": "10.96.0.0/12",
        "dns_service_ip": "10.96.0.10",
        "management_cidr": "10.127.130.0/24",
        "extra_exceptions": [],
        # One Calico IPAM block of /26 per node, 4 addresses of it reserved on Windows: 60 pods.
        "node_prefix_length": 26,
        "node_prefix_length_ipv6": None,
        "max_pods": 60,
        "node_count": 2,
        "vxlan_vni": 4096,
        "vxlan_port": 4789,
        "network_name": "Calico",
        "l2bridge_routing": None,
        "calico_backend": "vxlan",
        "placeholder_cidr": None,
        "cluster_domain": "cluster.local",
        "nodes": [{"name": "win-1", "management_ip": "10.127.130.41", "pod_cidr": None},
                  {"name": "win-2", "management_ip": "10.127.130.42", "pod_cidr": None}],
    }


def test_normalizing_a_calico_plan_again_changes_nothing():
    for plan in (CALICO, calico(calico_backend="bgp", node_prefix_length=24)):
        once = normalize_plan(plan)
        assert normalize_plan(once) == once


@pytest.mark.parametrize("prefix, pods", [(26, 60), (24, 110), (28, 12)])
def test_max_pods_defaults_to_what_one_block_holds_and_never_above_kubelets_default(prefix, pods):
    assert normalize_plan(calico(node_prefix_length=prefix))["max_pods"] == pods


def test_bgp_is_the_other_backend():
    assert normalize_plan(calico(calico_backend="bgp"))["calico_backend"] == "bgp"


@pytest.mark.parametrize("changes, fragments", [
    ({"vxlan_vni": 4097}, ["vxlan_vni 4097 is not 4096", "FelixConfiguration's vxlanVNI"]),
    ({"vxlan_vni": 1}, ["vxlan_vni 1 is not 4096"]),
    ({"vxlan_port": 8472}, ["vxlan_port 8472 is not 4789", "UDP port 4789 only"]),
    ({"calico_backend": "bgp", "vxlan_port": 4790}, ["vxlan_port 4790 is not 4789"]),
    ({"calico_backend": "ipip"}, ["calico_backend must be one of vxlan, bgp; got 'ipip'"]),
    ({"cluster_cidr": "fd00:10::/56"}, ["cluster_cidr fd00:10::/56 is IPv6 only", "IPv6-only networking"]),
    ({"cluster_cidr": "192.168.0.0/16,fd00:10::/56"}, ["makes the plan dual-stack, which calico networks cannot run",
                                                       "\"IPv6 and dual stack\" as not supported",
                                                       "windows-calico/limitations.mdx"]),
    ({"extra_exceptions": ["10.200.0.0/16"]}, ["extra_exceptions 10.200.0.0/16 cannot be applied",
                                               "ExceptionList is the Installation's serviceCIDRs only"]),
    ({"network_name": "vxlan0"}, ["network_name 'vxlan0' cannot be chosen", "names its HNS network Calico"]),
    ({"l2bridge_routing": "flannel"}, ["l2bridge_routing flannel does not apply to topology calico"]),
    ({"placeholder_cidr": "172.31.255.0/30"}, ["placeholder_cidr 172.31.255.0/30 does not apply to topology calico"]),
    ({"max_pods": 61}, ["node_prefix_length /26 gives each node 64 addresses, fewer than max_pods 61 plus 4"]),
    ({"nodes": [{"name": "win-1", "management_ip": "10.127.130.41", "pod_cidr": "192.168.1.0/26"}]},
     ["pod_cidr 192.168.1.0/26 must not be given for topology calico", "Calico IPAM gives each Windows node its block"]),
])
def test_calicos_rules_on_windows_are_refused_with_what_to_change(changes, fragments):
    refused(calico(**changes), *fragments)


def test_the_calico_network_name_and_the_default_vxlan_settings_may_be_spelt_out():
    plan = normalize_plan(calico(network_name="Calico", vxlan_vni=4096, vxlan_port="4789"))
    assert (plan["network_name"], plan["vxlan_vni"], plan["vxlan_port"]) == ("Calico", 4096, 4789)


def test_calico_backend_belongs_to_calico_only():
    refused(dict(CALICO, topology="overlay", cluster_cidr="10.244.0.0/16", calico_backend="vxlan", nodes=[]),
            "calico_backend 'vxlan' applies only to topology calico, not overlay")


def test_the_operator_writes_the_cni_config_and_the_plan_holds_its_exception_list():
    # tigera/operator pkg/render/windows.go: OutBoundNAT ExceptionList = Installation.serviceCIDRs.
    assert exception_list(CALICO, "calico") == ["10.96.0.0/12"]
    with pytest.raises(IPPlanError, match="the Tigera operator's calico-node-windows pods write it"):
        cni_config(CALICO, "calico", "containerd", "10.127.130.41")
    nodes = _node_plan.node_network(CALICO, {"win-1": "containerd"})
    assert nodes["win-1"]["cni_config"] is None and nodes["win-1"]["cni_config_text"] is None
    assert nodes["win-2"]["exception_list"] == ["10.96.0.0/12"] and nodes["win-2"]["pod_cidr"] is None


def test_the_picture_names_the_topology_and_its_backend():
    svg = _plan_picture.plan_svg(CALICO)
    assert "kubewin.node IP plan: calico (vxlan), 2 Windows nodes" in svg
    assert "Calico VXLAN" in svg and "HNS network Calico (Overlay)" in svg and "leased by Calico IPAM" in svg
    assert "Placeholder network" not in svg
    bgp = _plan_picture.plan_svg(calico(calico_backend="bgp"))
    assert "calico (bgp)" in bgp and "HNS network Calico (L2Bridge)" in bgp


# ---------------------------------------------------------------------------------------------
# The version matrix (tigera/docs, per release: "Supported versions" and the Windows requirements)
# ---------------------------------------------------------------------------------------------


def policy(**data):
    return version_policy(dict({"topology": "calico", "container_runtime": "containerd"}, **data))


def problems(**data):
    with pytest.raises(VersionPolicyError) as error:
        policy(**data)
    return error.value.problems


def test_the_matrix_is_the_one_the_sources_give():
    assert {".".join(map(str, minor)): (release.kubernetes, release.windows_builds)
            for minor, release in CALICO_RELEASES.items()} == {
        "3.29": (((1, 29), (1, 32)), (17763, 20348)),
        "3.30": (((1, 31), (1, 35)), (17763, 20348)),
        "3.31": (((1, 32), (1, 35)), (17763, 20348)),
        "3.32": (((1, 34), (1, 36)), (17763, 20348)),
    }


def _combinations():
    """Every (Calico minor, Kubernetes minor, Windows build) the matrix and the Kubernetes policy both accept."""
    first, last = SUPPORTED_KUBERNETES_MINORS
    for minor, release in CALICO_RELEASES.items():
        for kubernetes in range(release.kubernetes[0][1], release.kubernetes[1][1] + 1):
            if first <= (1, kubernetes) <= last:
                for build in release.windows_builds:
                    # Kubernetes lists Windows Server 2019 up to 1.34 (the Windows build table of _versions).
                    if not (build == 17763 and kubernetes > 34):
                        # Patch 20 of every minor is past the Windows kubelet advisories the policy checks.
                        yield "%d.%d.2" % minor, "1.%d.20" % kubernetes, build


@pytest.mark.parametrize("calico_version, kubernetes_version, build", list(_combinations()))
def test_every_combination_in_the_matrix_is_accepted(calico_version, kubernetes_version, build):
    result = policy(calico_version=calico_version, kubernetes_version=kubernetes_version, windows_build=build)
    assert result["calico_version"] == calico_version


def test_the_accepted_combinations_are_counted():
    # 3.29: 1.29-1.32 x 2 builds; 3.30: 1.31-1.34 x 2 + 1.35 on 2022; 3.31: 1.32-1.34 x 2 + 1.35;
    # 3.32: 1.34 x 2 + 1.35, 1.36 on 2022.
    assert len(list(_combinations())) == 8 + 9 + 7 + 4


def test_a_kubernetes_minor_the_release_is_not_tested_with_is_refused_naming_the_releases_that_are():
    assert problems(calico_version="3.29.4", kubernetes_version="1.33.5") == [
        "calico_version 3.29.4: Calico 3.29 is tested with Kubernetes 1.29-1.32, not kubernetes_version 1.33.5; "
        "Kubernetes 1.33 is tested by Calico 3.30, Calico 3.31"]
    found = problems(calico_version="3.32.0", kubernetes_version="1.36.1", control_plane_version="1.37.0",
                     kubeadm_version="1.37.0")
    assert found == [
        "calico_version 3.32.0: Calico 3.32 is tested with Kubernetes 1.34-1.36, not control_plane_version 1.37.0; "
        "Kubernetes 1.37 is tested by no Calico release this collection accepts"]


def test_windows_server_2025_is_refused_by_every_release():
    for minor in CALICO_RELEASES:
        found = problems(calico_version="%d.%d.0" % minor, kubernetes_version="1.35.2", windows_build="10.0.26100.1")
        assert any("does not support Windows Server 2025 (build 26100) (support is requested in "
                   "projectcalico/calico#11691); it supports Windows Server 2019 (build 17763), Windows Server 2022 "
                   "(build 20348)" in line for line in found), found


@pytest.mark.parametrize("data, expected", [
    ({"calico_version": None}, "calico_version is not set: topology calico needs the Calico release"),
    ({"calico_version": "3.28.5"}, "calico_version 3.28.5 is not one this collection accepts; it accepts Calico 3.29, "
                                   "Calico 3.30, Calico 3.31, Calico 3.32"),
    ({"calico_version": "3.30"}, "calico_version must be a Calico release such as 3.30.3 or v3.30.3, got '3.30'"),
    ({"calico_version": 3.3}, "calico_version must be a Calico release such as 3.30.3 or v3.30.3, got 3.3"),
    ({"calico_version": "3.30.1", "topology": "overlay"}, "calico_version 3.30.1 applies only to topology calico, not overlay"),
    ({"calico_version": "3.30.1", "container_runtime": "docker"}, "container_runtime docker cannot run Calico for Windows"),
])
def test_a_calico_version_outside_the_policy_is_refused(data, expected):
    found = problems(**dict({"kubernetes_version": "1.33.5"}, **data))
    assert any(line.startswith(expected) for line in found), found


def test_a_v_prefix_is_accepted_and_other_topologies_need_no_calico_version():
    assert policy(calico_version="v3.31.1", kubernetes_version="1.33.5")["calico_version"] == "3.31.1"
    assert version_policy({"kubernetes_version": "1.33.5", "topology": "overlay"})["calico_version"] is None


# ---------------------------------------------------------------------------------------------
# The preflight: every playbook takes calico, with either backend
# ---------------------------------------------------------------------------------------------

CALICO_INVENTORY = {"all": {"kubewin_topology": "calico", "kubewin_cluster_cidr": "192.168.0.0/16",
                            "kubewin_calico_version": "3.30.3"}}


def test_every_playbook_takes_calico_with_either_backend():
    hostvars, groups = inventory(CALICO_INVENTORY)
    for playbook in ("site", "reset", "doctor", "patch"):
        assert _preflight.preflight(hostvars, groups, playbook)["problems"] == []
    rendered = _preflight.preflight(hostvars, groups, "site", placeholder_pins="warn")
    assert rendered["problems"] == [] and not [w for w in rendered["warnings"] if "will refuse" in w]
    assert rendered["cluster"]["topology"] == "calico" and rendered["versions"]["containerd"]["calico_version"] == "3.30.3"
    # Calico adds no artifact of the collection's: the operator pulls its images.
    assert [a["component"] for a in rendered["artifacts"]["win-1"]][:2] == ["containerd", "crictl"]
    assert not {"flanneld", "flannel-cni", "sdn-cni", "cni-plugins"} & {a["component"] for a in rendered["artifacts"]["win-1"]}

    # bgp: the prerequisites role installs its RemoteAccess and Routing features (prerequisites_topology_features).
    hostvars, groups = inventory({"all": dict(CALICO_INVENTORY["all"], kubewin_calico_backend="bgp")})
    for playbook in ("site", "reset", "doctor", "patch"):
        assert _preflight.preflight(hostvars, groups, playbook)["problems"] == []
    rendered = _preflight.preflight(hostvars, groups, "site", placeholder_pins="warn")
    assert rendered["cluster"]["calico_backend"] == "bgp"
    assert rendered["problems"] == [] and not [w for w in rendered["warnings"] if "will refuse" in w]


def test_the_preflight_names_the_calico_variables():
    hostvars, groups = inventory({"all": dict(CALICO_INVENTORY["all"], kubewin_calico_version=None,
                                              kubewin_vxlan_vni=5000)})
    found = _preflight.preflight(hostvars, groups, "site", placeholder_pins="warn")["problems"]
    assert found[0].startswith("kubewin_vxlan_vni 5000 is not 4096"), found
    hostvars, groups = inventory({"all": dict(CALICO_INVENTORY["all"], kubewin_calico_version=None)})
    found = _preflight.preflight(hostvars, groups, "site", placeholder_pins="warn")["problems"]
    assert found == ["kubewin_calico_version is not set: kubewin_topology calico needs the Calico release the cluster "
                     "runs, such as 3.30.3 (Calico 3.29, Calico 3.30, Calico 3.31, Calico 3.32 are accepted)"]
