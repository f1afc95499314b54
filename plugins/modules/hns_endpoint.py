#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: hns_endpoint
short_description: Manage an HNS endpoint on a Windows node
version_added: 0.1.0
description:
  - Creates or removes an HNS endpoint on an HNS network, and attaches it to the host
    compartment, as l2bridge networking without flannel needs for the host endpoint at the
    pod subnet's network address + 2.
  - An endpoint with the same name, network and IP is left alone; one on another network or with
    another IP is replaced. Attaching an endpoint that is already attached is not an error.
options:
  name:
    description: Name of the endpoint; the host vNIC of an attached endpoint is C(vEthernet (<name>)).
    type: str
    required: true
  network:
    description: Name of the HNS network the endpoint belongs to.
    type: str
    required: true
  ip_address:
    description: IPv4 address of the endpoint. Required with O(state=present).
    type: str
  ipv6_address:
    description: The endpoint's IPv6 address on a dual-stack network (hcsshim HNSEndpoint C(IPv6Address)); the host
      endpoint then forwards IPv6 as well as IPv4.
    type: str
  attach_host:
    description: Attach the endpoint to the host compartment (compartment 1) and enable forwarding on it.
    type: bool
    default: true
  state:
    description: Whether the endpoint should exist.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.hns_network
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Host endpoint of an l2bridge pod network routed without flannel
  kubewin.node.hns_endpoint:
    name: cbr0_ep
    network: cbr0
    ip_address: 10.244.3.2
'''

RETURN = r'''
endpoint:
  description: The endpoint as it now is (in check mode, as it would be; its id is then unknown).
  returned: success
  type: dict
  sample: {"id": "5d0c...", "name": "cbr0_ep", "network": "cbr0", "ip_address": "10.244.3.2", "host_attached": true}
'''
