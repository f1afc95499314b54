#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: node_logs
short_description: Read the logs and the HNS state of a Windows node for troubleshooting
version_added: 0.1.0
description:
  - Reads, in one remote call and without changing anything, what troubleshooting a Windows node needs.
  - For each service in O(services), where its program writes its output (nssm's C(AppStdout) and
    C(AppStderr), the C(-log-file) of kube-log-runner, containerd's C(--log-file)) and the end of
    those files; the end of the files in O(paths); the last events of the Application event log
    providers in O(event_providers) (the Docker service logs there); the HNS networks, endpoints
    and policy lists as the HNS API returns them; and the Open vSwitch state (C(ovn) topology).
  - A service's log file is found from nssm's settings or from a C(--log-file=<path>) (or C(-log-file <path>)) on
    its command line. Open vSwitch services started with a bare C(--log-file) write to Open vSwitch's default log
    folder, which the command line does not name; read those files with O(paths).
  - Log files are opened sharing read and write access, so the running services keep writing.
  - C(playbooks/collect_logs.yml) writes the result into a folder per node on the controller.
options:
  services:
    description: Services whose log files are read; a service that does not exist is reported as such.
    type: list
    elements: str
    default: [kubelet, kube-proxy, flanneld, containerd, docker, cri-dockerd, ovsdb-server, ovs-vswitchd, ovn-controller]
  paths:
    description: More files to read the end of (absolute paths).
    type: list
    elements: str
    default: []
  event_providers:
    description: Providers of the Application event log whose last events are read.
    type: list
    elements: str
    default: [docker]
  event_logs:
    description: Event logs (channels) whose last events are read, such as Container Credential Guard's
      C(Microsoft-Windows-Containers-CCG/Admin); a log the node does not have reads as no events.
    type: list
    elements: str
    default: []
  event_count:
    description: How many of the last events of each provider and log are read (1-10000).
    type: int
    default: 200
  tail_bytes:
    description: How many bytes at most are read from the end of each file (1 KiB to 64 MiB).
    type: int
    default: 1048576
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the task run on the controller.
    support: full
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: It only reads, in check mode as well.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: windows
seealso:
  - module: kubewin.node.node_info
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Read the node's logs and HNS state
  kubewin.node.node_logs:
  register: node_logs

- name: Read the kubelet's log and one more file, at most 64 KiB of each
  kubewin.node.node_logs:
    services: [kubelet]
    paths: [C:\ProgramData\kubewin\operations\example.log]
    tail_bytes: 65536
'''

RETURN = r'''
hostname:
  description: The node's computer name.
  returned: success
  type: str
collected_at:
  description: When the node was read (UTC, ISO 8601).
  returned: success
  type: str
services:
  description: Per service, its state as M(kubewin.node.node_info) reports it, plus C(log_files), the files its output goes to.
  returned: success
  type: dict
logs:
  description: Per file, C(exists), C(size) (bytes), C(truncated) (only the end was read) and C(text).
  returned: success
  type: dict
events:
  description: Per event log provider, the events read (C(time), C(level), C(message)), oldest first.
  returned: success
  type: dict
event_logs:
  description: Per event log of O(event_logs), the events read (C(time), C(level), C(message)), oldest first.
  returned: success
  type: dict
hns:
  description: C(available), and C(networks), C(endpoints) and C(policy_lists) as the HNS API returns them.
  returned: success
  type: dict
ovs:
  description:
    - The Open vSwitch state, as the C(ovs) section of M(kubewin.node.node_info) reports it - C(products) (empty
      when Open vSwitch is not installed), C(database) (C(bridges) with their ports, C(external_ids)) and
      C(switches) (each vSwitch with the state of the Open vSwitch extension).
  returned: success
  type: dict
'''
