# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Microsoft Defender Antivirus exclusions for the container runtime and the kubelet, off unless asked.

Internal to kubewin.node, not a public API. The public interfaces are the prerequisites role's option
``prerequisites_defender_exclusions`` (checked by ``kubewin.node.preflight``), the filter
``kubewin.node.defender_exclusions`` (the one list the prerequisites role adds, the reset role removes and the doctor
checks) and the module ``kubewin.node.defender_exclusions``.

Facts this module relies on, with their sources:

- Defender's real-time scanning of the files a container runtime unpacks and the kubelet writes slows image pulls and
  container starts (microsoft/Windows-Containers#92, #201). AKS's Windows nodes exclude the processes kubelet.exe,
  kube-proxy.exe and containerd.exe (Azure/AgentBaker staging/cse/windows/kubernetesfunc.ps1,
  ``Update-DefenderPreferences``: ``Add-MpPreference -ExclusionProcess``); kubernetes/website#26600 added the same
  containerd process exclusion to the install guide in 2021, and containerd's getting-started guide dropped it in
  2022 once Defender had fixed its image validation (containerd/containerd#6875, citing microsoft/Windows-Containers#92),
  hence off by default: a node works without them, and every exclusion is a folder Defender no longer scans.
- Add-MpPreference's page (MicrosoftDocs/windows-powershell-docs docset/winserver2022-ps/Defender): process image
  entries "exclude files opened by executable programs only, not the processes themselves"; path entries exclude a
  folder from scheduled and real-time scanning.
- The folders: containerd keeps images and snapshots in its root and containers' state in its state folder,
  ``%ProgramData%\\containerd\\root`` and ``state`` on Windows (containerd/containerd defaults/defaults_windows.go;
  the collection's config.toml keeps those defaults); Docker keeps its data in ``%ProgramData%\\docker`` and asks
  for it to be excluded from antivirus scans (docs.docker.com, engine/security/antivirus). The kubelet's root
  folder holds the pods' volumes and its certificates (``--root-dir``, the node layout's ``kubelet_dir``), its
  configuration folder the kubeconfigs and the CA (``kubernetes_config_dir``). The programs are where the roles
  install them: ``kubernetes_dir`` and the runtime's folder.
- A node whose Defender does not run (a third-party antivirus, the feature Windows-Defender removed) gets none
  (the ``defender`` section of the snapshot, ``Get-MpComputerStatus``).
"""

from __future__ import annotations

import ntpath
import typing as t
from collections.abc import Mapping

OPTION = 'prerequisites_defender_exclusions'
FINDING = 'defender-exclusions-missing'
# The data folders of each runtime, which no option of the collection moves.
CONTAINERD_DATA = 'C:\\ProgramData\\containerd'
DOCKER_DATA = 'C:\\ProgramData\\docker'
PARTS = ('runtime', 'kubernetes')


def exclusions(paths: Mapping[str, str], container_runtime: str = 'containerd',
               parts: t.Sequence[str] = PARTS) -> dict[str, list[str]]:
    """The exclusions of a node with layout ``paths`` (plan_paths) and ``container_runtime``: ``{'paths': [...],
    'processes': [...]}``. ``parts`` picks the runtime's (its data folders and program) and the Kubernetes ones (the
    kubelet's folders, the kubelet's and kube-proxy's programs)."""
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise ValueError('defender_exclusions: parts are %s, got %s' % (', '.join(PARTS), ', '.join(unknown)))
    folders: list[str] = []
    programs: list[str] = []
    if 'runtime' in parts:
        if container_runtime == 'docker':
            folders.append(DOCKER_DATA)
            programs.append(ntpath.join(paths['docker_dir'], 'dockerd.exe'))
        else:
            folders += [ntpath.join(CONTAINERD_DATA, 'root'), ntpath.join(CONTAINERD_DATA, 'state')]
            programs.append(ntpath.join(paths['containerd_dir'], 'containerd.exe'))
    if 'kubernetes' in parts:
        folders += [paths['kubelet_dir'], paths['kubernetes_config_dir']]
        programs += [ntpath.join(paths['kubernetes_dir'], name) for name in ('kubelet.exe', 'kube-proxy.exe')]
    return {'paths': folders, 'processes': programs}


def held(values: t.Iterable[str], value: str) -> bool:
    """Whether an exclusion list holds ``value``: Defender compares paths without regard to case."""
    return value.lower() in (item.lower() for item in values)


def missing(defender: Mapping[str, t.Any], wanted: Mapping[str, t.Sequence[str]]) -> dict[str, list[str]]:
    """The exclusions of ``wanted`` that the snapshot's ``defender`` section does not list."""
    return {'paths': [path for path in wanted['paths'] if not held(defender.get('exclusion_path') or [], path)],
            'processes': [name for name in wanted['processes']
                          if not held(defender.get('exclusion_process') or [], name)]}


def option_problem(value: t.Any) -> str | None:
    """Why a value of ``prerequisites_defender_exclusions`` is refused, or None."""
    if isinstance(value, bool):
        return None
    return '%s must be true or false, got %r (%s)' % (OPTION, value, type(value).__name__)
