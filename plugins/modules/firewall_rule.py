#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: firewall_rule
short_description: Manage a Windows Firewall rule on a node
version_added: 0.1.0
description:
  - Creates, updates or removes one enabled Windows Firewall rule, identified by its name (the rule's
    unique id, not its display name), for the ports a topology needs (kubelet 10250/TCP, VXLAN
    4789/UDP, GENEVE 6081/UDP, ...).
  - M(kubewin.node.node_info) reports every rule whose name starts with C(kubewin-), so rules named that
    way are decided from the snapshot without a remote call on later runs.
options:
  name:
    description: Name (unique id) of the rule; use the C(kubewin-) prefix.
    type: str
    required: true
  display_name:
    description: Name shown in the firewall console; defaults to O(name).
    type: str
  direction:
    description: Direction of the traffic the rule applies to.
    type: str
    choices: [inbound, outbound]
    default: inbound
  protocol:
    description: Transport protocol.
    type: str
    choices: [tcp, udp]
    default: tcp
  local_port:
    description: Local ports or port ranges (C(30000-32767)).
    type: list
    elements: str
    default: []
  action:
    description: Whether matching traffic is allowed or blocked.
    type: str
    choices: [allow, block]
    default: allow
  state:
    description: Whether the rule should exist.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - kubewin.node.node_action
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Let the control plane reach the kubelet
  kubewin.node.firewall_rule:
    name: kubewin-kubelet
    display_name: Kubernetes kubelet (TCP 10250)
    protocol: tcp
    local_port: ['10250']

- name: VXLAN for flannel overlay
  kubewin.node.firewall_rule:
    name: kubewin-vxlan
    protocol: udp
    local_port: ['4789']
'''

RETURN = r'''
rule:
  description: The rule as it now is (C(exists), C(enabled), C(direction), C(action), C(protocol), C(local_port)).
  returned: success
  type: dict
'''
