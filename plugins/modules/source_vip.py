#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: source_vip
short_description: Reserve kube-proxy's source VIP on an overlay (flannel vxlan) Windows node
version_added: 0.1.0
description:
  - kube-proxy on an overlay network needs a source VIP (C(--source-vip)) - an address of the node's pod
    subnet that no pod may get. This module reserves one through the host-local CNI IPAM plugin in the
    reservation store the pods' host-local uses (the directory O(network) under O(data_dir)), once per pod
    subnet, and records host-local's answer in O(path) (C(SourceVip.json)), as the reference setup scripts do.
  - The request is written as UTF-8 without a byte order mark; host-local rejects the UTF-16 that
    PowerShell's C(Out-File) writes.
  - The pod subnet is the subnet of the HNS network O(network), which flanneld creates with the node's
    lease. The recorded address is kept while it lies inside that subnet. When the subnet changed (the
    node got a new lease, for example after it was deleted and joined again), the stale reservation is
    released (C(CNI_COMMAND=DEL)) and a new address reserved - a stale C(SourceVip.json) breaks
    kube-proxy on a rejoined node.
  - The recorded file's text is part of the node state snapshot (M(kubewin.node.node_info) reports it
    without being asked), so a node whose source VIP is in place costs no remote call.
options:
  network:
    description: Name of the HNS network (flannel's C(Backend.Name), e.g. C(flannel.4096)); also the CNI
      network name under which host-local keeps the reservation.
    type: str
    required: true
  path:
    description: Where the reservation is recorded, e.g. C(C:\k\SourceVip.json). The request goes next to it as
      C(SourceVipRequest.json).
    type: str
    required: true
  host_local:
    description: Path of C(host-local.exe), e.g. C(C:\opt\cni\bin\host-local.exe).
    type: str
    required: true
  data_dir:
    description: host-local's reservation store; the one the pods' host-local uses by default
      (C(/var/lib/cni/networks) on the system drive).
    type: str
    default: C:\var\lib\cni\networks
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.hns_network
  - module: kubewin.node.node_info
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Source VIP for kube-proxy
  kubewin.node.source_vip:
    network: flannel.4096
    path: C:\k\SourceVip.json
    host_local: C:\opt\cni\bin\host-local.exe
  register: vip

- name: Hand it to kube-proxy
  ansible.builtin.set_fact:
    kube_proxy_source_vip: "{{ vip.source_vip }}"
'''

RETURN = r'''
source_vip:
  description: The reserved address (without prefix length). Null in check mode when it would be reserved anew.
  returned: success
  type: str
  sample: 10.244.4.2
subnet:
  description: The pod subnet (of the HNS network) the address belongs to; null when the network does not exist yet.
  returned: success
  type: str
  sample: 10.244.4.0/24
path:
  description: Where the reservation is recorded.
  returned: success
  type: str
'''
