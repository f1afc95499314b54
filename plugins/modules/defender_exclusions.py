#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: defender_exclusions
short_description: Add or remove Microsoft Defender Antivirus exclusions on a Windows node
version_added: 0.1.0
description:
  - Adds the paths and processes to Microsoft Defender Antivirus's exclusion lists (C(Add-MpPreference -ExclusionPath
    -ExclusionProcess)), or removes them (C(Remove-MpPreference)) with O(state=absent). Only the values named change;
    the other entries of the lists stay as they are. Paths are compared without regard to case, as Defender compares
    them.
  - Applies only where Defender runs - C(Get-MpComputerStatus) answers with C(AMServiceEnabled). On a node without
    Defender (Windows Server without the feature C(Windows-Defender)) or whose service C(WinDefend) is stopped (a
    third-party antivirus) it changes nothing and says why in RV(notes).
  - Decides from the C(defender) section of the M(kubewin.node.node_info) snapshot, so a node whose lists already
    hold the values (or whose Defender does not run) costs no remote call; a change costs one call, which re-reads
    the lists.
  - The prerequisites role adds the container runtime's and the kubelet's folders and programs with
    C(prerequisites_defender_exclusions), the list the filter P(kubewin.node.defender_exclusions#filter) makes; the
    reset role removes the same list.
options:
  paths:
    description: Folders or files to exclude from scheduled and real-time scans (C(-ExclusionPath)), absolute paths.
    type: list
    elements: str
    default: []
  processes:
    description:
      - Programs whose opened files are excluded from scans (C(-ExclusionProcess)), absolute paths. Defender excludes
        the files the program opens, not the program itself (Add-MpPreference's reference).
    type: list
    elements: str
    default: []
  state:
    description: Whether the values are in the lists (V(present)) or not (V(absent)).
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - kubewin.node.node_action
notes:
  - Every exclusion is a folder or program Defender no longer scans; add only what the node's performance needs.
    containerd no longer asks for them (its getting-started guide dropped the process exclusion in 2022); AKS's
    Windows nodes exclude the kubelet, kube-proxy and containerd processes.
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Exclude the container runtime's and the kubelet's folders and programs from Defender's scans
  kubewin.node.defender_exclusions:
    paths: "{{ (plan_paths | kubewin.node.defender_exclusions(plan_node.container_runtime)).paths }}"
    processes: "{{ (plan_paths | kubewin.node.defender_exclusions(plan_node.container_runtime)).processes }}"

- name: Remove them again
  kubewin.node.defender_exclusions:
    paths: ['C:\ProgramData\containerd\root', 'C:\ProgramData\containerd\state']
    processes: ['C:\Program Files\containerd\containerd.exe']
    state: absent
'''

RETURN = r'''
defender:
  description: Defender as it now is - C(installed), C(running), C(exclusion_path) and C(exclusion_process).
  returned: success
  type: dict
  sample: {"installed": true, "running": true, "exclusion_path": ["C:\\var\\lib\\kubelet"], "exclusion_process": []}
notes:
  description: Why nothing changed on a node whose Defender is not installed or does not run.
  returned: when Defender does not run
  type: list
  elements: str
'''
