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
  remote_addresses:
    description:
      - The remote networks the rule matches, as CIDRs of either family (C(10.20.0.0/16), C(fd00:20::/64); one
        host is C(192.0.2.7/32)), checked before the node is asked (host bits set are refused). Empty, the default,
        is any remote address (the keyword C(Any)), which also lifts a limit set before.
      - Windows reads an IPv4 subnet back with its mask (C(10.20.0.0/255.255.0.0)); the module compares networks,
        so either form of the same network is no change.
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

- name: Let only the monitoring network scrape windows_exporter
  kubewin.node.firewall_rule:
    name: kubewin-windows-exporter
    local_port: ['9182']
    remote_addresses: [10.20.0.0/16]
'''

RETURN = r'''
rule:
  description: The rule as it now is (C(exists), C(enabled), C(direction), C(action), C(protocol), C(local_port),
    C(remote_address) as Windows reads it back).
  returned: success
  type: dict
'''
