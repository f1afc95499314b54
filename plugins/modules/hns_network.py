#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: hns_network
short_description: Manage a Host Networking Service (HNS) network on a Windows node
version_added: 0.1.0
description:
  - Creates, replaces or removes an HNS network (L2Bridge, Overlay or Transparent).
  - A network with the same name and settings is left alone; one with other settings is removed
    and created again (shown in the diff); two networks with the same name are an error that
    names their ids.
  - Creating the first external network on an adapter creates a vSwitch, which drops the node's
    network for seconds. That change runs detached on the node; the module reconnects with
    exponential backoff and jitter for up to O(reconnect_timeout) seconds, then verifies that the
    network exists exactly once and that the management adapter kept its IPv4 address, prefix,
    gateway and DNS servers. A static configuration that the vSwitch wiped (the adapter came back
    with a 169.254.x.x or DHCP address) is re-applied on the node and reported as RV(ip_restored).
options:
  name:
    description: Name of the network (compared case-insensitively, as HNS does).
    type: str
    required: true
  type:
    description: Network type. Required with O(state=present).
    type: str
    choices: [L2Bridge, Overlay, Transparent]
  address_prefix:
    description: Subnet of the network in CIDR form. Required with O(state=present).
    type: str
  gateway:
    description:
      - Gateway address of the subnet.
      - Defaults to the first address after the network address for L2Bridge and Overlay networks.
    type: str
  ipv6_address_prefix:
    description:
      - The IPv6 subnet of a dual-stack C(L2Bridge) network (a node's IPv6 pod CIDR), created beside the IPv4 one with
        HNS's C(IPv6) flag, as C(New-HnsNetwork -IPv6) of microsoft/SDN's hns.psm1 does. L2Bridge only
        (microsoft/windows-container-networking#61).
    type: str
  ipv6_gateway:
    description: Gateway of the IPv6 subnet; defaults to its network + 1.
    type: str
  adapter_name:
    description: Network adapter to bind the network to. Defaults to the adapter that holds the default route.
    type: str
  vsid:
    description: Virtual subnet id (VXLAN network id) added as a VSID subnet policy.
    type: int
  state:
    description: Whether the network should exist.
    type: str
    choices: [present, absent]
    default: present
  reconnect_timeout:
    description: Seconds to wait for the node to answer again after creating a vSwitch.
    type: int
    default: 120
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.hns_endpoint
  - module: kubewin.node.node_info
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Pre-create the vSwitch with the placeholder network (drops the network once)
  kubewin.node.hns_network:
    name: External
    type: L2Bridge
    address_prefix: 192.168.255.0/30
    gateway: 192.168.255.1

- name: Placeholder network for flannel vxlan
  kubewin.node.hns_network:
    name: External
    type: Overlay
    address_prefix: 192.168.255.0/30
    gateway: 192.168.255.1
    vsid: 9999
'''

RETURN = r'''
network:
  description: The network as it now is (in check mode, as it would be; its id is then unknown).
  returned: success
  type: dict
  sample: {"id": "9b1e...", "name": "External", "type": "L2Bridge", "address_prefix": "192.168.255.0/30",
           "gateway": "192.168.255.1", "adapter": "Ethernet", "vsid": null}
disruptive:
  description: Whether the change created or removed a vSwitch and so dropped the node's network.
  returned: changed and not check mode
  type: bool
ip_restored:
  description: Whether the static IPv4 configuration of the management adapter had to be re-applied.
  returned: changed and not check mode
  type: bool
operation_id:
  description: Id of the detached operation whose log is kept on the node, when it failed.
  returned: failure of a detached change
  type: str
'''
