#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: calico_node
short_description: Wait until the Tigera operator's calico-node-windows pod has set up a Windows node
version_added: 0.1.0
description:
  - With Calico for Windows the operator's C(calico-node-windows) DaemonSet sets up each Windows node. Its
    C(install-cni) init container writes the CNI config (C(10-calico.conflist)) and its C(node) container
    creates the HNS network C(External), which creates the node's vSwitch and drops the node's network for
    seconds (projectcalico/calico node/windows-packaging/CalicoWindows/node/node-service.ps1). This module
    changes nothing itself; it waits, for at most O(timeout) seconds, until the node has both, reconnecting
    through the network drop with exponential backoff and jitter as M(kubewin.node.hns_network) does.
  - It reports C(changed) when the node, read afresh, lacked either (the pod changed the node during the task); a
    node that has both costs no remote call when the snapshot shows them. Check mode reports what
    the pod will create and waits for nothing.
  - The HNS network C(Calico) and its host endpoint C(Calico_ep) are created by the pod's start-up once the
    kubelet runs; kube-proxy's pod waits for them, so this module does not.
options:
  cni_config_file:
    description: The CNI config the pod writes (the Installation's C(windowsNodes.cniConfigDir) and C(10-calico.conflist)).
    type: str
    required: true
  network_name:
    description: The HNS network the pod's node container creates.
    type: str
    default: External
  timeout:
    description: Seconds to wait for both, and for the node to answer again after its network dropped.
    type: int
    default: 300
  pod_state:
    description: The state of the node's calico-node-windows pod as the caller read it, named in the error on timeout.
    type: str
    default: ""
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.hns_network
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Wait for the operator's pod to write the CNI config and create the External network
  kubewin.node.calico_node:
    cni_config_file: C:\etc\cni\net.d\10-calico.conflist
    timeout: 300
'''

RETURN = r'''
network:
  description: The HNS network O(network_name) as it now is (empty in check mode when it does not exist yet).
  returned: success
  type: dict
  sample: {"id": "9b1e...", "name": "External", "type": "Overlay", "address_prefix": "192.168.255.0/30",
           "gateway": "192.168.255.1", "adapter": "Ethernet", "vsid": 9999}
'''
