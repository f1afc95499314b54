#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: port_ranges
short_description: Keep the cluster's NodePort range out of a Windows node's dynamic port ranges
version_added: 0.1.0
description:
  - Windows hands out ephemeral (client) ports from a dynamic port range per transport, 49152-65535 by default
    (Microsoft KB 929851, C(netsh int ipv4 show dynamicport tcp|udp)). A node whose range reaches into the cluster's
    NodePort range (kube-apiserver C(--service-node-port-range), 30000-32767 by default) can give a connection the
    local port of a NodePort, and the two collide.
  - With O(state=excluded), when the TCP or UDP dynamic range of the node holds NodePorts that no excluded port range
    covers, adds a persistent administered exclusion (C(netsh interface ipv4 add excludedportrange ...
    store=persistent)) for each part of the NodePort range no exclusion covers yet, as AKS does for 30000-32767
    (Azure/AgentBaker C(configfunc.ps1)). Windows then never hands those ports out, and no Windows component
    reserves them later. It takes effect at once; no restart is needed.
  - The dynamic ranges and the exclusions belong to the transport, not to an IP family (C(netsh interface ipv6) shows
    and changes the same ones; Microsoft's C(CreatePersistentTcpPortReservation) and C(Set-NetUDPSetting) take no
    address family). On a dual-stack node the one exclusion keeps the IPv6 NodePorts clear as well.
  - Adding an exclusion fails while a program holds one of its ports; the module fails with netsh's message. It
    refuses to exclude every port of a dynamic range.
  - With O(state=checked), fails when the dynamic ranges hold such NodePorts, and changes nothing.
  - With O(state=absent), removes the administered exclusions that lie inside the NodePort range (what
    O(state=excluded) added; an administrator's own exclusion inside the range goes too).
  - Decides from the C(ports) section of the M(kubewin.node.node_info) snapshot, so a node that is already right
    costs no remote call, and a change costs one.
options:
  node_port_range:
    description:
      - The cluster's NodePort range, C(<first>-<last>), as kube-apiserver's C(--service-node-port-range).
    type: str
    default: 30000-32767
  state:
    description:
      - V(excluded) adds the exclusions the node needs, V(checked) only fails when it needs some, V(absent) removes
        the administered exclusions inside the range.
    type: str
    choices: [excluded, checked, absent]
    default: excluded
extends_documentation_fragment:
  - kubewin.node.node_action
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Keep the NodePorts out of the ephemeral ports
  kubewin.node.port_ranges:
    node_port_range: 30000-32767

- name: Remove the exclusions on reset
  kubewin.node.port_ranges:
    node_port_range: 30000-32767
    state: absent
'''

RETURN = r'''
ports:
  description: The node's port ranges as they now are, per protocol (C(tcp), C(udp)) C(dynamic_start),
    C(dynamic_count) and the C(excluded) ranges (C(start), C(end), C(administered)).
  returned: success
  type: dict
  sample: {"tcp": {"dynamic_start": 1025, "dynamic_count": 64511,
           "excluded": [{"start": 30000, "end": 32767, "administered": true}]}}
operations:
  description: The exclusions added or removed, e.g. C(tcp 30000-32767).
  returned: changed
  type: list
  elements: str
'''
