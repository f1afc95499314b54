#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: node_reset
short_description: Remove what the collection set up on a Windows node (services, HNS load balancers and endpoints, files)
version_added: 0.1.0
description:
  - Stops and deletes the given Windows services (stopping a service stops the services that depend on
    it), removes HNS policy lists (the load balancers kube-proxy programs) and the HNS endpoints of the
    given networks (the l2bridge host endpoint C(cbr0_ep) among them), and removes the given files and
    folders with everything under them. All of it in one remote call, in that order, so nothing still
    holds what is removed next.
  - Files under the given folders that the collection recorded in its registry of managed files
    (C(C:\ProgramData\kubewin\managed.json)) are forgotten there too, so
    M(kubewin.node.node_info) stops reporting them.
  - HNS networks are not removed here; use M(kubewin.node.hns_network) with O(kubewin.node.hns_network#module:state=absent),
    which handles the network drop that removing the last vSwitch of an adapter causes.
  - Reports C(changed) only when something is there to remove; a node already reset costs no remote
    call when the C(kubewin_node) snapshot covers the services and paths.
options:
  services:
    description: Names of the services to stop and delete, e.g. V(kube-proxy), V(kubelet), V(flanneld).
    type: list
    elements: str
    default: []
  hns_networks:
    description: Names of the HNS networks whose endpoints are removed (local and remote ones).
    type: list
    elements: str
    default: []
  hns_policy_lists:
    description:
      - Remove every HNS policy list. On a Kubernetes node only kube-proxy creates them; they reference
        endpoints, which HNS does not delete while they are referenced.
    type: bool
    default: false
  paths:
    description:
      - Absolute paths of files and folders to remove; folders with everything under them.
      - A drive root is refused.
    type: list
    elements: str
    default: []
  registry_keys:
    description:
      - Registry keys to remove with their values and subkeys, as Registry provider paths at least two levels below
        C(HKLM:\), e.g. C(HKLM:\SOFTWARE\Tigera\Calico); a hive or one of its top keys is refused.
      - Removed after the files, in the same remote call.
    type: list
    elements: str
    default: []
  stop_timeout:
    description: Seconds to wait for each service to stop, and for its deletion.
    type: int
    default: 60
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.hns_network
  - module: kubewin.node.node_service
  - module: kubewin.node.node_file
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Remove the node components, kube-proxy's load balancers, the flannel endpoints and the node's state
  kubewin.node.node_reset:
    services: [kube-proxy, kubelet, flanneld]
    hns_networks: [cbr0]
    hns_policy_lists: true
    paths:
      - C:\etc\kubernetes
      - C:\var\lib\kubelet
      - C:\run\flannel
      - C:\k\SourceVip.json
'''

RETURN = r'''
removed:
  description:
    - What was (in check mode, would be) removed; empty when nothing was there.
    - C(services), C(hns_policy_lists) (ids), C(hns_endpoints) (name and address), C(paths) (the
      paths removed and the managed files forgotten with them) and C(registry_keys).
  returned: success
  type: dict
'''
