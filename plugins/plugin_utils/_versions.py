# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Version policy for Windows worker nodes: skew, Windows builds, advisories, runtimes, pause image.

Internal to kubewin.node, not a public API: names and signatures may change in any release.
The public interface is the set of filters in plugins/filter/node_flags.py.

Everything here is pure data and arithmetic on version numbers; nothing contacts a host. Every
rule raises VersionPolicyError with a message that names the offending values. Each table row
says where its fact comes from, so it can be checked again when upstream moves.
"""

from __future__ import annotations

import re
import typing as t
from collections.abc import Mapping
from dataclasses import dataclass

from ansible.errors import AnsibleFilterError


class VersionPolicyError(AnsibleFilterError):
    """A version, Windows build or runtime combination breaks the support policy."""

    def __init__(self, problems: str | t.Sequence[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


# ---------------------------------------------------------------------------------------------
# Versions
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Version:
    """A Kubernetes release, MAJOR.MINOR.PATCH."""

    major: int
    minor: int
    patch: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    @property
    def minor_key(self) -> tuple[int, int]:
        return (self.major, self.minor)

    @property
    def minor_text(self) -> str:
        return f"{self.major}.{self.minor}"


_VERSION_RE = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")


def parse_version(value: t.Any, key: str = "version") -> Version:
    """Parse "1.31.4" or "v1.31.4"; pre-releases and bare minors are refused.

    The advisories below are fixed in specific patch releases, so a version without its patch
    number cannot be checked and is an error rather than a guess.
    """
    if isinstance(value, Version):
        return value
    if not isinstance(value, str) or not _VERSION_RE.fullmatch(value.strip()):
        raise VersionPolicyError(
            f"{key} must be a Kubernetes release such as 1.31.4 or v1.31.4 (major.minor.patch), got {value!r}"
        )
    major, minor, patch = (int(part) for part in _VERSION_RE.fullmatch(value.strip()).groups())
    return Version(major, minor, patch)


def _minor_text(minor: tuple[int, int]) -> str:
    return f"{minor[0]}.{minor[1]}"


def _minor_range_text(first: tuple[int, int], last: tuple[int, int] | None) -> str:
    if last is None:
        return f"{_minor_text(first)} and later"
    if first == last:
        return _minor_text(first)
    return f"{_minor_text(first)}-{_minor_text(last)}"


# The Kubernetes minors this collection supports, as kubelet and kube-proxy on Windows nodes.
# Upper end: 1.37 is the newest minor released by late 2026 and the newest one kubernetes-validate
# 1.37.0 (requirements-dev.txt) ships schemas for. Lower end: from 1.29 on the kubelet no longer
# pins the pause image itself (kubernetes/kubernetes#118544, #123144), so one containerd
# sandbox_image setting serves the whole range, and every kubelet in it may be three minors
# behind the API server.
SUPPORTED_KUBERNETES_MINORS = ((1, 29), (1, 37))


def supported_range_text() -> str:
    return _minor_range_text(*SUPPORTED_KUBERNETES_MINORS)


def _in_supported_range(version: Version) -> bool:
    first, last = SUPPORTED_KUBERNETES_MINORS
    return first <= version.minor_key <= last


# ---------------------------------------------------------------------------------------------
# Version skew (kubernetes/website: content/en/releases/version-skew-policy.md)
# ---------------------------------------------------------------------------------------------

# "kubelet may be up to three minor versions older than kube-apiserver (kubelet < 1.25 may only
# be up to two minor versions older)"; the policy page states this since 1.28 (KEP-3935).
KUBELET_SKEW_WIDENED_FROM = (1, 25)


def max_kubelet_skew(kubelet: Version) -> int:
    return 3 if kubelet.minor_key >= KUBELET_SKEW_WIDENED_FROM else 2


def _skew_problems(kubelet: Version, control_plane: Version | None) -> list[str]:
    if control_plane is None:
        return []
    if kubelet.major != control_plane.major:
        return [f"kubelet {kubelet} and the control plane {control_plane} have different major versions"]
    if kubelet.minor > control_plane.minor:
        return [
            f"kubelet {kubelet} is newer than the control plane {control_plane}: the version skew policy "
            f"forbids a kubelet newer than kube-apiserver; use kubernetes_version {control_plane.minor_text}.x "
            f"or older"
        ]
    allowed = max_kubelet_skew(kubelet)
    if control_plane.minor - kubelet.minor > allowed:
        oldest = f"{control_plane.major}.{control_plane.minor - allowed}"
        return [
            f"kubelet {kubelet} is {control_plane.minor - kubelet.minor} minor versions older than the "
            f"control plane {control_plane}; the version skew policy allows at most {allowed} "
            f"(kubelet {oldest} or newer)"
        ]
    return []


def kubelet_skew(kubelet: t.Any, control_plane: t.Any) -> dict[str, t.Any]:
    """The skew rule alone, for a control plane whose version was read from the cluster.

    version_policy checks it too, with every other rule; this is for the moment the running
    API server's version is known and the nodes' kubeadm is not what is being decided. What the rule
    refuses is returned in ``problems`` (one line each, for a task to fail with); a value that is no
    release at all raises.
    """
    wanted = parse_version(kubelet, "kubernetes_version")
    server = parse_version(control_plane, "control_plane_version")
    return {
        "kubernetes_version": str(wanted),
        "control_plane_version": str(server),
        "max_minor_skew": max_kubelet_skew(wanted),
        "problems": _skew_problems(wanted, server),
    }


# ---------------------------------------------------------------------------------------------
# Upgrades of a node's kubelet (kubernetes/website: version-skew-policy.md, "kubelet"; kubeadm
# upgrade docs: "Skipping MINOR versions when upgrading is unsupported")
# ---------------------------------------------------------------------------------------------


def _upgrade_problems(kubelet: Version, installed: Version | None) -> list[str]:
    if installed is None or installed.minor_key == kubelet.minor_key:
        return []
    if installed.major != kubelet.major:
        return [f"the node runs kubelet {installed}; an upgrade to {kubelet} changes the major version, "
                f"which is not supported"]
    if kubelet.minor < installed.minor:
        return [
            f"the node runs kubelet {installed}; going back to {kubelet} is a minor-version downgrade, "
            f"which Kubernetes does not support; use kubernetes_version {installed.minor_text}.x or newer"
        ]
    if kubelet.minor > installed.minor + 1:
        step = f"{installed.major}.{installed.minor + 1}"
        return [
            f"the node runs kubelet {installed}; upgrading to {kubelet} skips minor versions, which is "
            f"not supported: upgrade one minor at a time (kubernetes_version {step}.x first, run the "
            f"playbook, then the next)"
        ]
    return []


def _kubeadm_problems(kubeadm: Version, control_plane: Version | None) -> list[str]:
    # kubernetes/website create-cluster-kubeadm.md: the kubeadm that joins must match the
    # version the cluster was created or last upgraded with; kubeadm also writes the kubelet
    # configuration of that control plane minor, so a different minor is refused.
    if control_plane is None or kubeadm.minor_key == control_plane.minor_key:
        return []
    return [
        f"kubeadm {kubeadm} cannot join a control plane at {control_plane}: kubeadm join needs the "
        f"control plane's minor version ({control_plane.minor_text}.x); set kubeadm_version accordingly"
    ]


# ---------------------------------------------------------------------------------------------
# Windows Server builds
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WindowsRelease:
    build: int
    name: str
    # First and last Kubernetes minor upstream lists the release for; None = never or still.
    first: tuple[int, int] | None
    last: tuple[int, int] | None
    note: str = ""

    def supports(self, minor: tuple[int, int]) -> bool:
        if self.first is None:
            return False
        return self.first <= minor and (self.last is None or minor <= self.last)

    def describe(self) -> str:
        return f"{self.name} (build {self.build})"

    def support_text(self) -> str:
        kind = f", {self.note}," if self.note else ""
        if self.first is None:
            return f"{self.describe()}{kind} is not listed by upstream Kubernetes for any release"
        return f"{self.describe()}{kind} is supported by Kubernetes {_minor_range_text(self.first, self.last)}"


WINDOWS_RELEASES = {
    release.build: release
    for release in (
        # Seed 004 (1.14) lists only 17763; seed 001 lists it for 1.18-1.20; kubernetes/website
        # windows/intro.md lists Windows Server 2019 as LTSC up to the 1.34 docs and dropped it
        # when Windows Server 2025 was added (kubernetes/website#53724, #55103, #55058).
        WindowsRelease(17763, "Windows Server 2019", (1, 14), (1, 34)),
        # Seed 001: Windows Server version 1903 (SAC) is listed for 1.18 only.
        WindowsRelease(18362, "Windows Server version 1903", (1, 18), (1, 18), "a Semi-Annual Channel release"),
        # Seed 001: version 1909 (SAC) for 1.18-1.20.
        WindowsRelease(18363, "Windows Server version 1909", (1, 18), (1, 20), "a Semi-Annual Channel release"),
        # Seed 001: version 2004 (SAC) for 1.19-1.20.
        WindowsRelease(19041, "Windows Server version 2004", (1, 19), (1, 20), "a Semi-Annual Channel release"),
        # registry.k8s.io/pause gained a 20H2 image in 3.4.1 (kubernetes/kubernetes#97322; kubeadm's
        # default from 1.21) and lost it in 3.9 (#112924; kubeadm's default from 1.26), and
        # Microsoft ended 20H2 servicing in August 2022. windows/intro.md kept listing it later,
        # but without a pause image no pod can start on it, so 1.25 is the last usable minor.
        WindowsRelease(19042, "Windows Server version 20H2", (1, 21), (1, 25), "a Semi-Annual Channel release"),
        # windows/intro.md lists Windows Server 2022 as LTSC; the pause image has carried an
        # ltsc2022 variant since 3.6 (kubernetes/kubernetes#104438; kubeadm's default from 1.23).
        WindowsRelease(20348, "Windows Server 2022", (1, 23), None),
        # Windows Server version 23H2 (Annual Channel for containers, used by AKS) is named by no
        # upstream Kubernetes release or pause image (AgentBaker maps it to ltsc2022 images).
        WindowsRelease(25398, "Windows Server version 23H2", None, None, "an Annual Channel release"),
        # windows/intro.md lists Windows Server 2025 with 2022 from the 1.35 docs on
        # (kubernetes/website#53724); its pause image arrived in 3.10.2 (kubernetes/kubernetes#136960).
        WindowsRelease(26100, "Windows Server 2025", (1, 35), None),
    )
}

_BUILD_TEXT_RE = re.compile(r"(?:10\.0\.)?(\d{4,6})(?:\.\d+)?")


def parse_windows_build(value: t.Any, key: str = "windows_build") -> int:
    """Accept 20348, "20348", "10.0.20348" or "10.0.20348.2527" (with the update revision)."""
    if isinstance(value, bool):
        raise VersionPolicyError(f"{key} must be a Windows build number such as 20348, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _BUILD_TEXT_RE.fullmatch(value.strip()):
        return int(_BUILD_TEXT_RE.fullmatch(value.strip()).group(1))
    raise VersionPolicyError(
        f"{key} must be a Windows build number such as 20348 or 10.0.20348, got {value!r}"
    )


def windows_release(build: t.Any) -> WindowsRelease:
    number = parse_windows_build(build)
    release = WINDOWS_RELEASES.get(number)
    if release is None:
        known = ", ".join(f"{r.build} ({r.name})" for r in WINDOWS_RELEASES.values())
        raise VersionPolicyError(f"unknown Windows build {number}; known builds are {known}")
    return release


def windows_build_label(build: t.Any) -> str:
    """The value kubelet (1.17+) gives the node.kubernetes.io/windows-build label (seed 001)."""
    return f"10.0.{parse_windows_build(build)}"


def supported_windows_releases(version: Version) -> list[WindowsRelease]:
    return [release for release in WINDOWS_RELEASES.values() if release.supports(version.minor_key)]


def _windows_problems(version: Version, build: int | None) -> list[str]:
    if build is None:
        return []
    try:
        release = windows_release(build)
    except VersionPolicyError as exc:
        return exc.problems
    if release.supports(version.minor_key):
        return []
    supported = ", ".join(r.describe() for r in supported_windows_releases(version)) or "no Windows release"
    return [f"{release.support_text()}; Kubernetes {version} supports {supported}"]


# ---------------------------------------------------------------------------------------------
# Advisories for kubelet on Windows
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Advisory:
    cve: str
    summary: str
    # First fixed patch per minor, as the advisory lists them.
    fixed: Mapping[tuple[int, int], int]
    # Minors from this one on were released with the fix.
    fixed_from_minor: tuple[int, int]
    source: str

    def affects(self, version: Version) -> bool:
        if version.minor_key >= self.fixed_from_minor:
            return False
        first_fix = self.fixed.get(version.minor_key)
        return first_fix is None or version.patch < first_fix

    def remedy(self, version: Version) -> str:
        first_fix = self.fixed.get(version.minor_key)
        if first_fix is None:
            oldest = min(self.fixed)
            return (
                f"no {version.minor_text} release fixes it (fixes start with "
                f"{_minor_text(oldest)}.{self.fixed[oldest]})"
            )
        return f"the first fixed {version.minor_text} release is {version.minor_text}.{first_fix}"


WINDOWS_KUBELET_ADVISORIES = {
    advisory.cve: advisory
    for advisory in (
        Advisory(
            "CVE-2023-3676",
            "a user who can create pods on Windows nodes can gain administrator rights on them "
            "(insufficient input sanitization)",
            {(1, 24): 17, (1, 25): 13, (1, 26): 8, (1, 27): 5, (1, 28): 1},
            (1, 29),
            "kubernetes/kubernetes#119339",
        ),
        Advisory(
            "CVE-2023-3955",
            "a second input sanitization flaw lets pod creators gain administrator rights on Windows nodes",
            {(1, 24): 17, (1, 25): 13, (1, 26): 8, (1, 27): 5, (1, 28): 1},
            (1, 29),
            "kubernetes/kubernetes#119595",
        ),
        Advisory(
            "CVE-2023-5528",
            "a user who can create pods and persistent volumes with an in-tree storage plugin can "
            "gain administrator rights on Windows nodes",
            {(1, 25): 16, (1, 26): 11, (1, 27): 8, (1, 28): 4},
            (1, 29),
            "kubernetes/kubernetes#121879",
        ),
        Advisory(
            "CVE-2024-5321",
            "container log files on Windows nodes are readable by BUILTIN\\Users and writable by "
            "Authenticated Users",
            {(1, 27): 16, (1, 28): 12, (1, 29): 7, (1, 30): 3},
            (1, 31),
            "kubernetes/kubernetes#126161",
        ),
        Advisory(
            "CVE-2024-9042",
            "command injection on Windows nodes through the node log query API, nodes/*/logs/query",
            {(1, 29): 13, (1, 30): 9, (1, 31): 5, (1, 32): 1},
            (1, 33),
            "kubernetes/kubernetes#129654",
        ),
    )
}

_CVE_RE = re.compile(r"CVE-\d{4}-\d{4,}")


def windows_kubelet_advisories(version: t.Any) -> list[Advisory]:
    """The advisories above that a kubelet of this version on Windows is affected by."""
    release = parse_version(version, "kubernetes_version")
    return [advisory for advisory in WINDOWS_KUBELET_ADVISORIES.values() if advisory.affects(release)]


def _coerce_acknowledged(value: t.Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise VersionPolicyError(f"acknowledged_cves must be a list of CVE ids, got {value!r}")
    acknowledged = []
    for item in value:
        text = item.strip().upper() if isinstance(item, str) else item
        if not isinstance(text, str) or not _CVE_RE.fullmatch(text):
            raise VersionPolicyError(f"acknowledged_cves entries must look like CVE-2024-9042, got {item!r}")
        if text not in WINDOWS_KUBELET_ADVISORIES:
            raise VersionPolicyError(
                f"acknowledged_cves names {text}, which this policy does not check; it checks "
                f"{', '.join(WINDOWS_KUBELET_ADVISORIES)}"
            )
        if text not in acknowledged:
            acknowledged.append(text)
    return acknowledged


def _advisory_problems(version: Version, acknowledged: t.Sequence[str]) -> tuple[list[str], list[str]]:
    problems, warnings = [], []
    affecting = windows_kubelet_advisories(version)
    for advisory in affecting:
        text = (
            f"kubelet {version} on Windows is affected by {advisory.cve} ({advisory.summary}; "
            f"{advisory.source}): {advisory.remedy(version)}"
        )
        if advisory.cve in acknowledged:
            warnings.append(f"{text}; accepted because acknowledged_cves lists it")
        else:
            problems.append(f"{text}. Upgrade, or add {advisory.cve} to acknowledged_cves to accept the risk")
    affecting_ids = {advisory.cve for advisory in affecting}
    for cve in acknowledged:
        if cve not in affecting_ids:
            warnings.append(f"acknowledged_cves lists {cve}, which does not affect kubelet {version}; remove it")
    return problems, warnings


# ---------------------------------------------------------------------------------------------
# Container runtimes
# ---------------------------------------------------------------------------------------------

CONTAINER_RUNTIMES = ("containerd", "docker")
# kubernetes/website install-kubeadm.md, "Windows container runtimes"; cri-dockerd's own default.
RUNTIME_ENDPOINTS = {
    "containerd": "npipe:////./pipe/containerd-containerd",
    "docker": "npipe:////./pipe/cri-dockerd",
}
# Kubernetes 1.24 removed dockershim (kubernetes/website dockershim FAQ): Docker Engine then
# needs the cri-dockerd adapter, which Mirantis builds for Windows (cri-dockerd-<v>.win.amd64.zip,
# Mirantis/cri-dockerd packaging/static/Makefile, target cross-win).
DOCKERSHIM_REMOVED_IN = (1, 24)
# Kubernetes 1.26 speaks only CRI v1 (kubernetes/kubernetes#110618); cri-dockerd implements it
# from 0.3.0 on (Mirantis/cri-dockerd#125, #136).
CRI_V1_ONLY_FROM = (1, 26)
CRI_DOCKERD_MIN_FOR_CRI_V1 = (0, 3, 0)


def _cri_dockerd_version(value: t.Any) -> tuple[int, int, int]:
    if not isinstance(value, str) or not _VERSION_RE.fullmatch(value.strip()):
        raise VersionPolicyError(f"cri_dockerd_version must look like 0.3.16, got {value!r}")
    major, minor, patch = (int(part) for part in _VERSION_RE.fullmatch(value.strip()).groups())
    return (major, minor, patch)


def _runtime_problems(version: Version, runtime: str, cri_dockerd: t.Any) -> tuple[list[str], list[str], bool]:
    if runtime != "docker":
        return [], [], False
    needs_adapter = version.minor_key >= DOCKERSHIM_REMOVED_IN
    problems: list[str] = []
    warnings = [
        "container_runtime docker means Docker Engine (Mirantis Container Runtime or Moby) plus the "
        "cri-dockerd adapter on the node; containerd is the runtime the upstream Windows docs mark stable"
    ]
    if cri_dockerd is not None:
        adapter = _cri_dockerd_version(cri_dockerd)
        minimum = ".".join(str(part) for part in CRI_DOCKERD_MIN_FOR_CRI_V1)
        if version.minor_key >= CRI_V1_ONLY_FROM and adapter < CRI_DOCKERD_MIN_FOR_CRI_V1:
            problems.append(
                f"cri-dockerd {cri_dockerd} speaks only CRI v1alpha2, which kubelet {version} no longer "
                f"accepts (CRI v1 only since 1.26); use cri-dockerd {minimum} or newer"
            )
    return problems, warnings, needs_adapter


# ---------------------------------------------------------------------------------------------
# The pause (sandbox) image
# ---------------------------------------------------------------------------------------------

PAUSE_REPOSITORY = "registry.k8s.io"
# kubeadm's PauseVersion per minor, which is what the kubelet of that release is tested with:
# 3.9 for 1.26-1.30 (cmd/kubeadm/app/constants/constants.go; kubesphere/kubekey#2138),
# 3.10 from 1.31 (kubernetes/kubernetes#125112), 3.10.1 from 1.34 (#130713; kubeadm 1.35 keeps
# it), 3.10.2 from 1.36 (kubeclipper/kubeclipper#947; #136960 added the ltsc2025 image). 1.37
# is assumed to keep 3.10.2 until a newer tag is announced.
PAUSE_TAGS = {
    (1, 29): "3.9",
    (1, 30): "3.9",
    (1, 31): "3.10",
    (1, 32): "3.10",
    (1, 33): "3.10",
    (1, 34): "3.10.1",
    (1, 35): "3.10.1",
    (1, 36): "3.10.2",
    (1, 37): "3.10.2",
}
# The oldest multi-arch pause tag with a Windows image for the build (build/pause/CHANGELOG.md:
# 1809 since 3.4, ltsc2022 since 3.6, ltsc2025 since 3.10.2). Process isolation needs the pause
# image to match the host build (seed 004 troubleshooting, windows/intro.md), so an older tag
# would leave every pod in ContainerCreating.
PAUSE_MIN_TAG_FOR_BUILD = {17763: "3.4", 20348: "3.6", 26100: "3.10.2"}


def _tag_key(tag: str) -> tuple[int, ...]:
    return tuple(int(part) for part in tag.split("."))


_IMAGE_REFERENCE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-/:@]*")


def pause_image(
    kubernetes_version: t.Any,
    windows_build: t.Any = None,
    image: t.Any = None,
    repository: t.Any = None,
) -> str:
    """The sandbox image for containerd's sandbox_image and the kubelet (where it still has the flag).

    ``image`` overrides everything (a mirror, or Microsoft's signed
    mcr.microsoft.com/oss/kubernetes/pause build that windows/intro.md recommends for production);
    ``repository`` replaces registry.k8s.io and keeps the computed tag.
    """
    if image is not None:
        if not isinstance(image, str) or not _IMAGE_REFERENCE_RE.fullmatch(image):
            raise VersionPolicyError(f"pause image must be an image reference such as registry.k8s.io/pause:3.10, got {image!r}")
        return image
    version = parse_version(kubernetes_version, "kubernetes_version")
    tag = PAUSE_TAGS.get(version.minor_key)
    if tag is None:
        raise VersionPolicyError(
            f"no pause image is known for Kubernetes {version}; this collection supports {supported_range_text()}"
        )
    if windows_build is not None:
        build = windows_release(windows_build).build
        needed = PAUSE_MIN_TAG_FOR_BUILD.get(build)
        if needed is None:
            raise VersionPolicyError(f"registry.k8s.io/pause has no image for Windows build {build}")
        if _tag_key(tag) < _tag_key(needed):
            tag = needed
    registry = PAUSE_REPOSITORY if repository is None else repository
    if not isinstance(registry, str) or not _IMAGE_REFERENCE_RE.fullmatch(registry.rstrip("/")):
        raise VersionPolicyError(f"pause image repository must be a registry such as registry.k8s.io, got {repository!r}")
    return f"{registry.rstrip('/')}/pause:{tag}"


# ---------------------------------------------------------------------------------------------
# Calico for Windows (the calico topology)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CalicoRelease:
    minor: tuple[int, int]
    # The Kubernetes minors Tigera tests this release against, first and last.
    kubernetes: tuple[tuple[int, int], tuple[int, int]]
    # The Windows Server builds its Windows requirements list.
    windows_builds: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"Calico {_minor_text(self.minor)}"

    def tests(self, minor: tuple[int, int]) -> bool:
        return self.kubernetes[0] <= minor <= self.kubernetes[1]


# tigera/docs (read at f2a27624, August 2026) calico_versioned_docs/version-<minor>/_includes/partials/_system-requirements.mdx, "Supported
# versions" ("We test Calico <version> against the following Kubernetes versions"), and
# .../getting-started/kubernetes/windows-calico/requirements.mdx, "Windows platform requirements" (every
# release lists Windows Server 1809, build 17763.1432 or later, and 2022, build 20348.169 or later). The
# operator install with HostProcess containers, the only one Tigera supports for Windows, needs Calico 3.27
# or later (same page). 3.29 is the oldest release tigera/docs still carries; it alone tests 1.29 and 1.30.
CALICO_RELEASES = {
    release.minor: release
    for release in (
        CalicoRelease((3, 29), ((1, 29), (1, 32)), (17763, 20348)),
        CalicoRelease((3, 30), ((1, 31), (1, 35)), (17763, 20348)),
        CalicoRelease((3, 31), ((1, 32), (1, 35)), (17763, 20348)),
        CalicoRelease((3, 32), ((1, 34), (1, 36)), (17763, 20348)),
    )
}
# Windows Server 2025 is in no release's Windows requirements, and the request to support it is open
# (projectcalico/calico#11691, "Currently, Calico only supports Windows Server 2019 and 2022").
CALICO_WINDOWS_2025_REQUEST = "projectcalico/calico#11691"


def parse_calico_version(value: t.Any) -> Version:
    if isinstance(value, str) and _VERSION_RE.fullmatch(value.strip()):
        return parse_version(value)
    raise VersionPolicyError(f"calico_version must be a Calico release such as 3.30.3 or v3.30.3, got {value!r}")


def _releases_text(releases: t.Sequence[CalicoRelease]) -> str:
    return ", ".join(release.name for release in releases) or "no Calico release this collection accepts"


def calico_release(value: t.Any) -> CalicoRelease:
    version = parse_calico_version(value)
    release = CALICO_RELEASES.get(version.minor_key)
    if release is None:
        raise VersionPolicyError(
            f"calico_version {version} is not one this collection accepts; it accepts "
            f"{_releases_text(list(CALICO_RELEASES.values()))} (the operator install with HostProcess containers)"
        )
    return release


def _calico_problems(topology: t.Any, given: t.Any, kubelet: Version, control_plane: Version | None,
                     build: int | None, runtime: str) -> list[str]:
    if topology is not None and topology != "calico":
        if given is not None:
            return [f"calico_version {given} applies only to topology calico, not {topology}; leave it unset"]
        return []
    if topology == "calico" and runtime != "containerd":
        # tigera/docs windows-calico/operator.mdx, "HPC requirements": containerd v1.6+.
        return [f"container_runtime {runtime} cannot run Calico for Windows: the Tigera operator installs it "
                f"in HostProcess containers, which need containerd 1.6 or later; use container_runtime containerd "
                f"on every node"]
    if given is None:
        if topology == "calico":
            return [f"calico_version is not set: topology calico needs the Calico release the cluster runs, "
                    f"such as 3.30.3 ({_releases_text(list(CALICO_RELEASES.values()))} are accepted)"]
        return []
    try:
        release = calico_release(given)
    except VersionPolicyError as exc:
        return exc.problems
    problems = []
    for what, version in (("kubernetes_version", kubelet), ("control_plane_version", control_plane)):
        if version is None or release.tests(version.minor_key):
            continue
        testing = [other for other in CALICO_RELEASES.values() if other.tests(version.minor_key)]
        problems.append(
            f"calico_version {given}: {release.name} is tested with Kubernetes "
            f"{_minor_range_text(*release.kubernetes)}, not {what} {version}; Kubernetes {version.minor_text} is "
            f"tested by {_releases_text(testing)}"
        )
    if build is not None and build not in release.windows_builds:
        known = WINDOWS_RELEASES.get(build)
        named = known.describe() if known else f"Windows build {build}"
        supported = ", ".join(WINDOWS_RELEASES[number].describe() for number in release.windows_builds)
        request = f" (support is requested in {CALICO_WINDOWS_2025_REQUEST})" if build == 26100 else ""
        problems.append(f"calico_version {given}: {release.name} does not support {named}{request}; "
                        f"it supports {supported}")
    return problems


# ---------------------------------------------------------------------------------------------
# IPv4/IPv6 dual-stack (the plan's l2bridge rules are _ip_plan's)
# ---------------------------------------------------------------------------------------------

# kube-proxy (winkernel) shared HNS load balancers between a Service's IPv4 and IPv6 addresses, programming IPv6
# endpoints behind IPv4 VIPs and the reverse (kubernetes/kubernetes#136240), until #136241 gave each family its own
# load balancer: in 1.36.0, and cherry-picked into 1.35.1 (#136373), 1.34.4 (#136374) and 1.33.8 (#136375) (their
# CHANGELOG-1.3x.md: "Fixed an issue in the Windows kube-proxy (winkernel) where IPv4 and IPv6 Service load balancers
# could be incorrectly shared"). No 1.32 or older release has it.
WINKERNEL_DUAL_STACK_FIXED_IN = {(1, 33): 8, (1, 34): 4, (1, 35): 1}
WINKERNEL_DUAL_STACK_FIXED_FROM = (1, 36)
WINKERNEL_DUAL_STACK_FIX = "kubernetes/kubernetes#136241"
# "On Windows, using IPv6 with Kubernetes require Windows Server, version 2004 (kernel version 10.0.19041.610) or
# later" (kubernetes/website windows-networking, "IPv4/IPv6 dual-stack", as of 1.20); Microsoft's "What's new in
# Windows Server 2022" lists IPv6 dual stack for L2bridge container networks. Of the releases Kubernetes 1.29 and
# later support, Windows Server 2022 and 2025 qualify; Windows Server 2019 (17763) does not.
DUAL_STACK_MIN_WINDOWS_BUILD = 19041


def winkernel_dual_stack_fixed(version: Version) -> bool:
    """Whether this kube-proxy keeps IPv4 and IPv6 load balancers apart (WINKERNEL_DUAL_STACK_FIXED_IN)."""
    if version.minor_key >= WINKERNEL_DUAL_STACK_FIXED_FROM:
        return True
    first_patch = WINKERNEL_DUAL_STACK_FIXED_IN.get(version.minor_key)
    return first_patch is not None and version.patch >= first_patch


def winkernel_dual_stack_releases() -> str:
    fixed = [f"{major}.{minor}.{patch}" for (major, minor), patch in sorted(WINKERNEL_DUAL_STACK_FIXED_IN.items())]
    return ", ".join(fixed) + f" or later patches, or {_minor_text(WINKERNEL_DUAL_STACK_FIXED_FROM)} and later"


def _dual_stack_problems(dual_stack: t.Any, kubelet: Version, build: int | None) -> list[str]:
    if not dual_stack:
        return []
    problems = []
    if not winkernel_dual_stack_fixed(kubelet):
        problems.append(
            f"kubernetes_version {kubelet} cannot run a dual-stack node: its kube-proxy (winkernel) shares load balancers "
            f"between IPv4 and IPv6 Services (kubernetes/kubernetes#136240, fixed by {WINKERNEL_DUAL_STACK_FIX}); use "
            f"{winkernel_dual_stack_releases()}"
        )
    if build is not None and build < DUAL_STACK_MIN_WINDOWS_BUILD:
        known = WINDOWS_RELEASES.get(build)
        named = known.describe() if known else f"Windows build {build}"
        problems.append(
            f"{named} cannot run a dual-stack node: Kubernetes needs Windows Server version 2004 (build "
            f"{DUAL_STACK_MIN_WINDOWS_BUILD}) or later for IPv6 (kubernetes/website windows-networking, \"IPv4/IPv6 "
            f"dual-stack\"); use Windows Server 2022 or 2025 nodes, or an IPv4-only plan"
        )
    # The container runtime is the IP plan's rule (_ip_plan.cni_config): the CNI plugin decides it.
    return problems


# ---------------------------------------------------------------------------------------------
# The policy
# ---------------------------------------------------------------------------------------------

POLICY_KEYS = (
    "kubernetes_version",
    "control_plane_version",
    "kubeadm_version",
    "windows_build",
    "container_runtime",
    "acknowledged_cves",
    "cri_dockerd_version",
    "pause_image",
    "installed_version",
    "topology",
    "calico_version",
    "dual_stack",
)


def _require_mapping(value: t.Any) -> Mapping:
    if not isinstance(value, Mapping):
        raise VersionPolicyError(f"the version policy input must be a dictionary, got {value!r} ({type(value).__name__})")
    unknown = sorted(str(key) for key in value if key not in POLICY_KEYS)
    if unknown:
        raise VersionPolicyError(f"unknown version policy key(s) {', '.join(unknown)}; known keys are {', '.join(POLICY_KEYS)}")
    if value.get("kubernetes_version") is None:
        raise VersionPolicyError("the version policy needs kubernetes_version")
    return value


def version_policy(data: t.Any) -> dict[str, t.Any]:
    """Check the versions of a Windows node before any host is touched; see version_policy.yml."""
    data = _require_mapping(data)
    kubelet = parse_version(data["kubernetes_version"], "kubernetes_version")
    control_plane = (
        None if data.get("control_plane_version") is None
        else parse_version(data["control_plane_version"], "control_plane_version")
    )
    kubeadm = kubelet if data.get("kubeadm_version") is None else parse_version(data["kubeadm_version"], "kubeadm_version")
    build = None if data.get("windows_build") is None else parse_windows_build(data["windows_build"])
    installed = (
        None if data.get("installed_version") is None
        else parse_version(data["installed_version"], "installed_version")
    )
    runtime = "containerd" if data.get("container_runtime") is None else data["container_runtime"]
    if runtime not in CONTAINER_RUNTIMES:
        raise VersionPolicyError(f"container_runtime must be one of {', '.join(CONTAINER_RUNTIMES)}; got {runtime!r}")
    acknowledged = _coerce_acknowledged(data.get("acknowledged_cves"))

    problems: list[str] = []
    warnings: list[str] = []
    if not _in_supported_range(kubelet):
        # Nothing else can be judged for a release the tables do not describe.
        raise VersionPolicyError(
            f"kubernetes_version {kubelet} is outside the range this collection supports ({supported_range_text()})"
        )
    problems += _skew_problems(kubelet, control_plane)
    problems += _upgrade_problems(kubelet, installed)
    problems += _kubeadm_problems(kubeadm, control_plane)
    problems += _windows_problems(kubelet, build)
    problems += _calico_problems(data.get("topology"), data.get("calico_version"), kubelet, control_plane, build, runtime)
    problems += _dual_stack_problems(data.get("dual_stack"), kubelet, build)
    advisory_problems, advisory_warnings = _advisory_problems(kubelet, acknowledged)
    problems += advisory_problems
    warnings += advisory_warnings
    runtime_problems, runtime_warnings, needs_cri_dockerd = _runtime_problems(
        kubelet, runtime, data.get("cri_dockerd_version")
    )
    problems += runtime_problems
    warnings += runtime_warnings
    if problems:
        raise VersionPolicyError(problems)

    if control_plane is None:
        warnings.append(
            "control_plane_version is not known yet: the skew and kubeadm rules are checked again once it is"
        )
    elif control_plane.minor_key > SUPPORTED_KUBERNETES_MINORS[1]:
        warnings.append(
            f"control plane {control_plane} is newer than the newest minor this collection knows "
            f"({_minor_text(SUPPORTED_KUBERNETES_MINORS[1])})"
        )
    if build is None:
        warnings.append("windows_build is not known yet: the Windows release is checked again once the node reports it")
    release = None if build is None else WINDOWS_RELEASES[build]

    return {
        "kubernetes_version": str(kubelet),
        "minor": kubelet.minor_text,
        "control_plane_version": None if control_plane is None else str(control_plane),
        "kubeadm_version": str(kubeadm),
        "windows_build": build,
        "windows_build_label": None if build is None else windows_build_label(build),
        "windows_release": None if release is None else release.name,
        "container_runtime": runtime,
        "runtime_endpoint": RUNTIME_ENDPOINTS[runtime],
        "needs_cri_dockerd": needs_cri_dockerd,
        "pause_image": pause_image(kubelet, build, data.get("pause_image")),
        "acknowledged_cves": acknowledged,
        "installed_version": None if installed is None else str(installed),
        "upgrade": installed is not None and installed != kubelet,
        "calico_version": None if data.get("calico_version") is None else str(parse_calico_version(data["calico_version"])),
        "warnings": warnings,
    }
