#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: node_routes
short_description: Manage the static routes to other nodes' pod subnets on a Windows node
version_added: 0.1.0
description:
  - Makes the static routes of a node within O(scope) exactly O(routes) - for l2bridge without
    flannel, one route to every other node's pod CIDR through that node's management address
    (P(kubewin.node.static_routes#filter) computes them). On a dual-stack plan each node has a pod CIDR of
    each family, and its IPv6 route goes through the peer's IPv6 address.
  - Routes are written to the routing table in use and to the persistent store that Windows restores
    at boot, so they survive reboots. A wanted route that is only in one of the two stores is removed
    and added again in both.
  - Every static route whose destination lies within O(scope) and that is not wanted is removed
    (from both stores), so a route to a node that left the cluster, or through an old next hop,
    does not linger. Routes outside O(scope), and default routes, are never touched.
options:
  routes:
    description: The routes, each C(destination) (a network in CIDR form within O(scope)) and C(next_hop); the
      output of P(kubewin.node.static_routes#filter) for this node can be given as it is.
    type: list
    elements: dict
    required: true
    suboptions:
      destination:
        description: Destination network, e.g. another node's pod CIDR C(10.244.2.0/24).
        type: str
        required: true
      next_hop:
        description: Next hop, e.g. that node's management address.
        type: str
        required: true
      via_node:
        description: Name of the node the destination belongs to; only shown in the diff.
        type: str
  interface_alias:
    description:
      - Interface the routes leave through.
      - Defaults, per route, to the adapter whose subnet of the next hop's family holds it - the management adapter,
        which once the vSwitch exists is its host vNIC C(vEthernet (<adapter>)).
    type: str
  scope:
    description:
      - The range whose static routes this module owns; one per IP family, comma-separated, on a dual-stack plan.
      - Defaults to C(plan_cluster.cluster_cidr), the cluster range the C(plan) role hands every node; without
        that fact it is required.
    type: str
  metric:
    description: Route metric of every route.
    type: int
    default: 256
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.node_info
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Routes to the other nodes' pod subnets
  kubewin.node.node_routes:
    routes:
      - destination: 10.244.2.0/24
        next_hop: 10.127.130.12
      - destination: 10.244.3.0/24
        next_hop: 10.127.130.13
    scope: 10.244.0.0/16

- name: The routes the plan computed for this node
  kubewin.node.node_routes:
    routes: "{{ plan_node.static_routes }}"
'''

RETURN = r'''
routes:
  description: The static routes within O(scope) as they now are (in check mode, as they were), each with
    C(destination), C(next_hop), C(interface_alias), C(interface_index), C(metric), C(active) and C(persistent).
  returned: success
  type: list
  elements: dict
scope:
  description: The range the module managed.
  returned: success
  type: str
'''
