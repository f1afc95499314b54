# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Version policy: parsing, skew, kubeadm, Windows builds, advisories, runtimes and the pause image."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.plugin_utils import _versions
from ansible_collections.kubewin.node.plugins.plugin_utils._versions import (
    Version,
    VersionPolicyError,
    kubelet_skew,
    max_kubelet_skew,
    parse_version,
    parse_windows_build,
    pause_image,
    version_policy,
    windows_build_label,
    windows_kubelet_advisories,
)

SUPPORTED_MINORS = list(range(29, 38))
# A patch release of each minor that no advisory of the table affects.
CLEAN = {minor: f"1.{minor}.20" for minor in SUPPORTED_MINORS}


def problems_of(data):
    with pytest.raises(VersionPolicyError) as excinfo:
        version_policy(data)
    return excinfo.value.problems


# ---------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["1.31.4", "v1.31.4", " v1.31.4 "])
def test_parse_version_accepts_both_spellings(text):
    assert parse_version(text) == Version(1, 31, 4)
    assert str(parse_version(text)) == "1.31.4"


@pytest.mark.parametrize("value", ["1.31", "1.31.4-rc.1", "1.31.x", "", 1.31, None, "V1.31.4"])
def test_parse_version_refuses_anything_but_a_release(value):
    with pytest.raises(VersionPolicyError, match="must be a Kubernetes release such as 1.31.4") as excinfo:
        parse_version(value, "kubeadm_version")
    assert "kubeadm_version" in str(excinfo.value)
    assert repr(value) in str(excinfo.value)


def test_errors_are_ansible_filter_errors():
    assert issubclass(VersionPolicyError, AnsibleFilterError)


def test_supported_range_is_one_constant():
    assert _versions.SUPPORTED_KUBERNETES_MINORS == ((1, 29), (1, 37))
    assert _versions.supported_range_text() == "1.29-1.37"


@pytest.mark.parametrize("version", ["1.28.15", "1.38.0", "2.0.0", "1.1.0"])
def test_versions_outside_the_range_fail_with_the_range(version):
    assert problems_of({"kubernetes_version": version}) == [
        f"kubernetes_version {version} is outside the range this collection supports (1.29-1.37)"
    ]


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_every_supported_minor_passes_alone(minor):
    result = version_policy({"kubernetes_version": f"v{CLEAN[minor]}"})
    assert result["kubernetes_version"] == CLEAN[minor]
    assert result["minor"] == f"1.{minor}"
    assert result["kubeadm_version"] == CLEAN[minor]


def test_normalized_output():
    result = version_policy(
        {
            "kubernetes_version": "v1.33.4",
            "control_plane_version": "v1.34.1",
            "kubeadm_version": "v1.34.1",
            "windows_build": "10.0.20348.2527",
        }
    )
    assert result == {
        "kubernetes_version": "1.33.4",
        "minor": "1.33",
        "control_plane_version": "1.34.1",
        "kubeadm_version": "1.34.1",
        "windows_build": 20348,
        "windows_build_label": "10.0.20348",
        "windows_release": "Windows Server 2022",
        "container_runtime": "containerd",
        "runtime_endpoint": "npipe:////./pipe/containerd-containerd",
        "needs_cri_dockerd": False,
        "pause_image": "registry.k8s.io/pause:3.10",
        "acknowledged_cves": [],
        "installed_version": None,
        "upgrade": False,
        "calico_version": None,
        "warnings": [],
    }


def test_unknown_and_missing_keys():
    with pytest.raises(VersionPolicyError, match="unknown version policy key.*kubelet_version"):
        version_policy({"kubernetes_version": "1.31.4", "kubelet_version": "1.31.4"})
    with pytest.raises(VersionPolicyError, match="needs kubernetes_version"):
        version_policy({"control_plane_version": "1.31.4"})
    with pytest.raises(VersionPolicyError, match="must be a dictionary"):
        version_policy("1.31.4")
    with pytest.raises(VersionPolicyError, match="container_runtime must be one of containerd, docker; got 'cri-o'"):
        version_policy({"kubernetes_version": "1.31.6", "container_runtime": "cri-o"})


def test_null_means_default():
    result = version_policy(
        {"kubernetes_version": "1.31.6", "kubeadm_version": None, "container_runtime": None, "acknowledged_cves": None}
    )
    assert result["kubeadm_version"] == "1.31.6"
    assert result["container_runtime"] == "containerd"


# ---------------------------------------------------------------------------------------------
# Version skew
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
@pytest.mark.parametrize("ahead", [0, 1, 2, 3])
def test_control_plane_up_to_three_minors_ahead_is_allowed(minor, ahead):
    control_plane = f"1.{minor + ahead}.2"
    result = version_policy(
        {"kubernetes_version": CLEAN[minor], "control_plane_version": control_plane, "kubeadm_version": control_plane}
    )
    assert result["control_plane_version"] == control_plane


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_control_plane_four_minors_ahead_is_refused(minor):
    control_plane = f"1.{minor + 4}.0"
    assert problems_of(
        {"kubernetes_version": CLEAN[minor], "control_plane_version": control_plane, "kubeadm_version": control_plane}
    ) == [
        f"kubelet {CLEAN[minor]} is 4 minor versions older than the control plane {control_plane}; the version skew "
        f"policy allows at most 3 (kubelet 1.{minor + 1} or newer)"
    ]


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_kubelet_newer_than_the_control_plane_is_refused(minor):
    control_plane = f"1.{minor - 1}.9"
    problems = problems_of(
        {"kubernetes_version": CLEAN[minor], "control_plane_version": control_plane, "kubeadm_version": control_plane}
    )
    assert problems == [
        f"kubelet {CLEAN[minor]} is newer than the control plane {control_plane}: the version skew policy forbids a "
        f"kubelet newer than kube-apiserver; use kubernetes_version 1.{minor - 1}.x or older"
    ]


def test_same_minor_newer_kubelet_patch_is_fine():
    assert version_policy({"kubernetes_version": "1.33.9", "control_plane_version": "1.33.1", "kubeadm_version": "1.33.1"})


def test_kubelets_before_1_25_may_only_be_two_minors_behind():
    assert max_kubelet_skew(Version(1, 24, 0)) == 2
    assert max_kubelet_skew(Version(1, 25, 0)) == 3
    # The supported range starts later, so the narrower rule is checked on the rule itself.
    assert _versions._skew_problems(Version(1, 24, 3), Version(1, 27, 0)) == [
        "kubelet 1.24.3 is 3 minor versions older than the control plane 1.27.0; the version skew policy "
        "allows at most 2 (kubelet 1.25 or newer)"
    ]
    assert _versions._skew_problems(Version(1, 25, 3), Version(1, 28, 0)) == []


def test_unknown_control_plane_is_a_warning():
    result = version_policy({"kubernetes_version": "1.31.6"})
    assert result["control_plane_version"] is None
    assert any("control_plane_version is not known yet" in warning for warning in result["warnings"])


def test_control_plane_beyond_the_known_range_is_a_warning():
    result = version_policy({"kubernetes_version": "1.37.1", "control_plane_version": "1.38.0", "kubeadm_version": "1.38.0"})
    assert "control plane 1.38.0 is newer than the newest minor this collection knows (1.37)" in result["warnings"]


# ---------------------------------------------------------------------------------------------
# kubeadm
# ---------------------------------------------------------------------------------------------


def test_kubeadm_defaults_to_the_kubelet_and_must_match_the_control_plane_minor():
    assert problems_of({"kubernetes_version": "1.32.5", "control_plane_version": "1.33.2"}) == [
        "kubeadm 1.32.5 cannot join a control plane at 1.33.2: kubeadm join needs the control plane's minor "
        "version (1.33.x); set kubeadm_version accordingly"
    ]
    result = version_policy({"kubernetes_version": "1.32.5", "control_plane_version": "1.33.2", "kubeadm_version": "v1.33.0"})
    assert result["kubeadm_version"] == "1.33.0"


def test_newer_kubeadm_minor_is_refused_too():
    problems = problems_of({"kubernetes_version": "1.33.2", "control_plane_version": "1.33.2", "kubeadm_version": "1.34.0"})
    assert problems == [
        "kubeadm 1.34.0 cannot join a control plane at 1.33.2: kubeadm join needs the control plane's minor "
        "version (1.33.x); set kubeadm_version accordingly"
    ]


def test_each_violated_rule_has_its_own_message():
    problems = problems_of(
        {"kubernetes_version": "1.30.2", "control_plane_version": "1.34.0", "windows_build": 26100}
    )
    assert len(problems) == 5
    assert problems[0].startswith("kubelet 1.30.2 is 4 minor versions older than the control plane 1.34.0")
    assert problems[1].startswith("kubeadm 1.30.2 cannot join a control plane at 1.34.0")
    assert problems[2].startswith("Windows Server 2025 (build 26100) is supported by Kubernetes 1.35 and later")
    assert problems[3].startswith("kubelet 1.30.2 on Windows is affected by CVE-2024-5321")
    assert problems[4].startswith("kubelet 1.30.2 on Windows is affected by CVE-2024-9042")
    with pytest.raises(VersionPolicyError) as excinfo:
        version_policy({"kubernetes_version": "1.30.2", "control_plane_version": "1.34.0", "windows_build": 26100})
    assert str(excinfo.value).split("\n") == problems


# ---------------------------------------------------------------------------------------------
# Windows builds
# ---------------------------------------------------------------------------------------------

BUILD_SUPPORT = {
    17763: lambda minor: minor <= 34,
    20348: lambda minor: True,
    26100: lambda minor: minor >= 35,
}


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
@pytest.mark.parametrize("build", sorted(BUILD_SUPPORT))
def test_windows_build_table(minor, build):
    data = {"kubernetes_version": CLEAN[minor], "windows_build": build}
    if BUILD_SUPPORT[build](minor):
        result = version_policy(data)
        assert result["windows_build"] == build
        assert result["windows_build_label"] == f"10.0.{build}"
    else:
        [problem] = problems_of(data)
        release = _versions.WINDOWS_RELEASES[build]
        assert problem.startswith(f"{release.name} (build {build}) is supported by Kubernetes ")
        assert f"; Kubernetes {CLEAN[minor]} supports " in problem


def test_windows_server_2019_message_names_the_range_and_the_alternatives():
    assert problems_of({"kubernetes_version": "1.35.3", "windows_build": 17763}) == [
        "Windows Server 2019 (build 17763) is supported by Kubernetes 1.14-1.34; Kubernetes 1.35.3 supports "
        "Windows Server 2022 (build 20348), Windows Server 2025 (build 26100)"
    ]


def test_windows_server_2025_before_1_35_names_the_first_release():
    assert problems_of({"kubernetes_version": "1.34.4", "windows_build": "10.0.26100"}) == [
        "Windows Server 2025 (build 26100) is supported by Kubernetes 1.35 and later; Kubernetes 1.34.4 supports "
        "Windows Server 2019 (build 17763), Windows Server 2022 (build 20348)"
    ]


@pytest.mark.parametrize(
    "build, expected",
    [
        (18362, "Windows Server version 1903 (build 18362), a Semi-Annual Channel release, is supported by Kubernetes 1.18;"),
        (18363, "Windows Server version 1909 (build 18363), a Semi-Annual Channel release, is supported by Kubernetes 1.18-1.20;"),
        (19041, "Windows Server version 2004 (build 19041), a Semi-Annual Channel release, is supported by Kubernetes 1.19-1.20;"),
        (19042, "Windows Server version 20H2 (build 19042), a Semi-Annual Channel release, is supported by Kubernetes 1.21-1.25;"),
        (25398, "Windows Server version 23H2 (build 25398), an Annual Channel release, is not listed by upstream Kubernetes for any release;"),
    ],
)
def test_channel_releases_are_refused_in_the_supported_range(build, expected):
    [problem] = problems_of({"kubernetes_version": "1.31.6", "windows_build": build})
    assert problem.startswith(expected)


def test_unknown_build_fails_naming_it():
    [problem] = problems_of({"kubernetes_version": "1.31.6", "windows_build": 22631})
    assert problem.startswith("unknown Windows build 22631; known builds are 17763 (Windows Server 2019), ")
    assert "26100 (Windows Server 2025)" in problem


def test_unknown_build_is_a_warning_not_an_error():
    result = version_policy({"kubernetes_version": "1.31.6"})
    assert result["windows_build"] is None and result["windows_build_label"] is None
    assert any("windows_build is not known yet" in warning for warning in result["warnings"])


@pytest.mark.parametrize("value, build", [(20348, 20348), ("20348", 20348), ("10.0.20348", 20348), ("10.0.17763.6532", 17763)])
def test_parse_windows_build(value, build):
    assert parse_windows_build(value) == build
    assert windows_build_label(value) == f"10.0.{build}"


@pytest.mark.parametrize("value", [True, "Windows Server 2022", "10.0", 20348.0, None])
def test_parse_windows_build_refuses(value):
    with pytest.raises(VersionPolicyError, match="windows_build must be a Windows build number"):
        parse_windows_build(value)


# ---------------------------------------------------------------------------------------------
# Advisories
# ---------------------------------------------------------------------------------------------

ADVISORY_CASES = [
    (advisory.cve, minor, first_fix)
    for advisory in _versions.WINDOWS_KUBELET_ADVISORIES.values()
    for minor, first_fix in advisory.fixed.items()
]


def test_the_five_advisories_are_checked():
    assert sorted(_versions.WINDOWS_KUBELET_ADVISORIES) == [
        "CVE-2023-3676", "CVE-2023-3955", "CVE-2023-5528", "CVE-2024-5321", "CVE-2024-9042"
    ]


@pytest.mark.parametrize("cve, minor, first_fix", ADVISORY_CASES)
def test_advisory_tables(cve, minor, first_fix):
    advisory = _versions.WINDOWS_KUBELET_ADVISORIES[cve]
    assert advisory.affects(Version(minor[0], minor[1], first_fix - 1))
    assert not advisory.affects(Version(minor[0], minor[1], first_fix))
    assert not advisory.affects(Version(minor[0], minor[1], first_fix + 7))


@pytest.mark.parametrize("advisory", list(_versions.WINDOWS_KUBELET_ADVISORIES.values()), ids=lambda a: a.cve)
def test_advisories_before_the_first_fixed_minor_and_after_the_fixed_releases(advisory):
    oldest = min(advisory.fixed)
    older = Version(oldest[0], oldest[1] - 1, 99)
    assert advisory.affects(older)
    assert advisory.remedy(older).startswith(f"no 1.{oldest[1] - 1} release fixes it")
    assert not advisory.affects(Version(*advisory.fixed_from_minor, 0))


@pytest.mark.parametrize(
    "version, cves",
    [
        ("1.29.6", ["CVE-2024-5321", "CVE-2024-9042"]),
        ("1.29.7", ["CVE-2024-9042"]),
        ("1.29.13", []),
        ("1.30.2", ["CVE-2024-5321", "CVE-2024-9042"]),
        ("1.30.8", ["CVE-2024-9042"]),
        ("1.30.9", []),
        ("1.31.0", ["CVE-2024-9042"]),
        ("1.31.4", ["CVE-2024-9042"]),
        ("1.31.5", []),
        ("1.32.0", ["CVE-2024-9042"]),
        ("1.32.1", []),
        ("1.33.0", []),
        ("1.28.0", ["CVE-2023-3676", "CVE-2023-3955", "CVE-2023-5528", "CVE-2024-5321", "CVE-2024-9042"]),
        ("1.28.4", ["CVE-2024-5321", "CVE-2024-9042"]),
    ],
)
def test_known_vulnerable_kubelets(version, cves):
    assert [advisory.cve for advisory in windows_kubelet_advisories(version)] == cves


def test_vulnerable_kubelet_is_refused_with_the_cve_what_it_is_and_the_fix():
    assert problems_of({"kubernetes_version": "1.31.4"}) == [
        "kubelet 1.31.4 on Windows is affected by CVE-2024-9042 (command injection on Windows nodes through the node "
        "log query API, nodes/*/logs/query; kubernetes/kubernetes#129654): the first fixed 1.31 release is 1.31.5. "
        "Upgrade, or add CVE-2024-9042 to acknowledged_cves to accept the risk"
    ]


def test_acknowledged_cve_is_accepted_with_a_warning():
    result = version_policy({"kubernetes_version": "1.30.2", "acknowledged_cves": ["cve-2024-5321", "CVE-2024-9042"]})
    assert result["acknowledged_cves"] == ["CVE-2024-5321", "CVE-2024-9042"]
    accepted = [warning for warning in result["warnings"] if "accepted because acknowledged_cves lists it" in warning]
    assert len(accepted) == 2


def test_acknowledging_one_cve_leaves_the_other_refused():
    problems = problems_of({"kubernetes_version": "1.30.2", "acknowledged_cves": ["CVE-2024-9042"]})
    assert len(problems) == 1 and "CVE-2024-5321" in problems[0] and "1.30.3" in problems[0]


def test_acknowledging_a_cve_that_does_not_apply_is_a_warning():
    result = version_policy({"kubernetes_version": "1.33.2", "acknowledged_cves": ["CVE-2024-9042"]})
    assert "acknowledged_cves lists CVE-2024-9042, which does not affect kubelet 1.33.2; remove it" in result["warnings"]


@pytest.mark.parametrize(
    "acknowledged, message",
    [
        (["CVE-2021-25749"], "acknowledged_cves names CVE-2021-25749, which this policy does not check"),
        (["9042"], "acknowledged_cves entries must look like CVE-2024-9042, got '9042'"),
        ("CVE-2024-9042", "acknowledged_cves must be a list of CVE ids"),
    ],
)
def test_acknowledged_cves_are_checked(acknowledged, message):
    with pytest.raises(VersionPolicyError, match=message):
        version_policy({"kubernetes_version": "1.33.2", "acknowledged_cves": acknowledged})


# ---------------------------------------------------------------------------------------------
# Container runtimes
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_docker_means_cri_dockerd_in_every_supported_release(minor):
    result = version_policy({"kubernetes_version": CLEAN[minor], "container_runtime": "docker"})
    assert result["needs_cri_dockerd"] is True
    assert result["runtime_endpoint"] == "npipe:////./pipe/cri-dockerd"
    assert any("cri-dockerd adapter" in warning for warning in result["warnings"])


def test_containerd_needs_no_adapter():
    result = version_policy({"kubernetes_version": "1.33.2"})
    assert result["needs_cri_dockerd"] is False
    assert result["runtime_endpoint"] == "npipe:////./pipe/containerd-containerd"


def test_cri_dockerd_without_cri_v1_is_refused():
    assert problems_of({"kubernetes_version": "1.33.2", "container_runtime": "docker", "cri_dockerd_version": "0.2.6"}) == [
        "cri-dockerd 0.2.6 speaks only CRI v1alpha2, which kubelet 1.33.2 no longer accepts (CRI v1 only since 1.26); "
        "use cri-dockerd 0.3.0 or newer"
    ]
    assert version_policy({"kubernetes_version": "1.33.2", "container_runtime": "docker", "cri_dockerd_version": "v0.3.16"})
    with pytest.raises(VersionPolicyError, match="cri_dockerd_version must look like 0.3.16, got '0.3'"):
        version_policy({"kubernetes_version": "1.33.2", "container_runtime": "docker", "cri_dockerd_version": "0.3"})


def test_docker_is_accepted_on_windows_server_2025():
    result = version_policy({"kubernetes_version": "1.35.2", "container_runtime": "docker", "windows_build": 26100})
    assert result["needs_cri_dockerd"] is True


# ---------------------------------------------------------------------------------------------
# The pause image
# ---------------------------------------------------------------------------------------------

PAUSE_BY_MINOR = {29: "3.9", 30: "3.9", 31: "3.10", 32: "3.10", 33: "3.10", 34: "3.10.1", 35: "3.10.1", 36: "3.10.2", 37: "3.10.2"}


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_pause_tag_per_minor(minor):
    assert pause_image(f"1.{minor}.0") == f"registry.k8s.io/pause:{PAUSE_BY_MINOR[minor]}"
    assert pause_image(f"1.{minor}.0", 20348) == f"registry.k8s.io/pause:{PAUSE_BY_MINOR[minor]}"


@pytest.mark.parametrize("minor", [35, 36, 37])
def test_windows_server_2025_needs_a_pause_tag_with_an_ltsc2025_image(minor):
    assert pause_image(f"1.{minor}.1", 26100) == "registry.k8s.io/pause:3.10.2"
    assert version_policy({"kubernetes_version": f"1.{minor}.1", "windows_build": 26100})["pause_image"] == (
        "registry.k8s.io/pause:3.10.2"
    )


def test_pause_image_overrides():
    assert pause_image("1.31.0", 20348, "mcr.microsoft.com/oss/kubernetes/pause:3.10") == "mcr.microsoft.com/oss/kubernetes/pause:3.10"
    assert pause_image("1.31.0", repository="mirror.example.com/k8s/") == "mirror.example.com/k8s/pause:3.10"
    result = version_policy({"kubernetes_version": "1.31.6", "pause_image": "mirror.example.com/pause:3.10"})
    assert result["pause_image"] == "mirror.example.com/pause:3.10"
    with pytest.raises(VersionPolicyError, match="pause image must be an image reference"):
        pause_image("1.31.0", image="not an image")


def test_pause_image_errors():
    with pytest.raises(VersionPolicyError, match="no pause image is known for Kubernetes 1.28.0; this collection supports 1.29-1.37"):
        pause_image("1.28.0")
    with pytest.raises(VersionPolicyError, match="registry.k8s.io/pause has no image for Windows build 19042"):
        pause_image("1.31.0", 19042)
    with pytest.raises(VersionPolicyError, match="unknown Windows build 1"):
        pause_image("1.31.0", 1)


# ---------------------------------------------------------------------------------------------
# Upgrades of an installed kubelet
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("installed, wanted, upgrade", [
    ("1.31.14", "1.31.14", False),
    ("v1.31.14", "1.31.14", False),
    ("1.31.14", "1.32.13", True),
    ("1.31.4", "1.31.14", True),
    # a patch back within the minor is allowed (a bad patch release is rolled back this way)
    ("1.31.14", "1.31.12", True),
])
def test_upgrades_one_minor_at_a_time_are_allowed(installed, wanted, upgrade):
    result = version_policy({"kubernetes_version": wanted, "installed_version": installed})
    assert result["installed_version"] == installed.lstrip("v")
    assert result["upgrade"] is upgrade


def test_no_installed_kubelet_is_no_upgrade():
    assert version_policy({"kubernetes_version": "1.32.13", "installed_version": None})["upgrade"] is False


def test_skipping_a_minor_is_refused_naming_the_next_step():
    assert problems_of({"kubernetes_version": "1.33.13", "installed_version": "1.31.14"}) == [
        "the node runs kubelet 1.31.14; upgrading to 1.33.13 skips minor versions, which is not supported: "
        "upgrade one minor at a time (kubernetes_version 1.32.x first, run the playbook, then the next)"
    ]


def test_a_minor_downgrade_is_refused():
    assert problems_of({"kubernetes_version": "1.31.14", "installed_version": "1.32.13"}) == [
        "the node runs kubelet 1.32.13; going back to 1.31.14 is a minor-version downgrade, which Kubernetes "
        "does not support; use kubernetes_version 1.32.x or newer"
    ]


def test_an_upgrade_past_the_control_plane_fails_on_both_rules():
    problems = problems_of({"kubernetes_version": "1.34.11", "installed_version": "1.32.13",
                            "control_plane_version": "1.33.4", "kubeadm_version": "1.33.4"})
    assert len(problems) == 2
    assert problems[0].startswith("kubelet 1.34.11 is newer than the control plane 1.33.4")
    assert "skips minor versions" in problems[1]


def test_installed_version_must_be_a_release():
    with pytest.raises(VersionPolicyError, match="installed_version must be a Kubernetes release"):
        version_policy({"kubernetes_version": "1.32.13", "installed_version": "1.32"})


def test_kubelet_skew_alone():
    assert kubelet_skew("1.32.13", "v1.32.4") == {
        "kubernetes_version": "1.32.13", "control_plane_version": "1.32.4", "max_minor_skew": 3, "problems": []}
    assert kubelet_skew("v1.29.15", "v1.32.4")["max_minor_skew"] == 3
    # What the rule refuses is returned for the role's fail task: one clean message, not a templating error.
    assert kubelet_skew("1.33.13", "v1.32.4")["problems"] == [
        "kubelet 1.33.13 is newer than the control plane 1.32.4: the version skew policy forbids a kubelet newer than "
        "kube-apiserver; use kubernetes_version 1.32.x or older"]
    assert "4 minor versions older than the control plane 1.33.4" in kubelet_skew("1.29.15", "v1.33.4")["problems"][0]
    with pytest.raises(VersionPolicyError, match="control_plane_version must be a Kubernetes release"):
        kubelet_skew("1.32.13", None)


# ---------------------------------------------------------------------------------------------
# Dual-stack: a kube-proxy with the winkernel fix (kubernetes/kubernetes#136241) and a Windows build with IPv6
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "fixed"), [
    ("1.32.13", False), ("1.33.7", False), ("1.33.8", True), ("1.34.3", False), ("1.34.4", True),
    ("1.35.0", False), ("1.35.1", True), ("1.36.0", True), ("1.37.0", True),
])
def test_the_winkernel_dual_stack_fix_is_in_these_releases(version, fixed):
    assert _versions.winkernel_dual_stack_fixed(_versions.parse_version(version)) is fixed
    data = {"kubernetes_version": version, "dual_stack": True, "windows_build": 20348}
    if fixed:
        assert _versions.version_policy(data)["kubernetes_version"] == version
    else:
        with pytest.raises(_versions.VersionPolicyError, match=f"kubernetes_version {version} cannot run a dual-stack "
                                                               f"node: its kube-proxy .winkernel. shares load balancers"):
            _versions.version_policy(data)


def test_an_ipv4_node_takes_any_release():
    assert _versions.version_policy({"kubernetes_version": "1.32.13", "dual_stack": False})["minor"] == "1.32"


@pytest.mark.parametrize("build", [20348, 26100])
def test_windows_server_2022_and_2025_run_dual_stack(build):
    assert _versions.version_policy({"kubernetes_version": "1.35.8", "dual_stack": True,
                                     "windows_build": build})["windows_build"] == build


def test_windows_server_2019_cannot_run_dual_stack():
    with pytest.raises(_versions.VersionPolicyError) as error:
        _versions.version_policy({"kubernetes_version": "1.33.13", "dual_stack": True, "windows_build": 17763})
    assert error.value.problems == [
        "Windows Server 2019 (build 17763) cannot run a dual-stack node: Kubernetes needs Windows Server version 2004 "
        "(build 19041) or later for IPv6 (kubernetes/website windows-networking, \"IPv4/IPv6 dual-stack\"); use Windows "
        "Server 2022 or 2025 nodes, or an IPv4-only plan"]
