#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: kubeadm_join
short_description: Join a Windows node to the cluster with kubeadm, once
version_added: 0.1.0
description:
  - Runs C(kubeadm join) with a bootstrap token and the cluster CA's public key hash, so kubeadm trusts
    only the API server it was told about, and waits for the kubelet to finish its TLS bootstrap.
  - A node whose kubelet kubeconfig (O(kubelet_kubeconfig)) exists has joined; it is not joined again
    (kubeadm refuses a second join of the same node).
  - The bootstrap token goes to the node as a SecureString inside a kubeadm JoinConfiguration file that
    only SYSTEM and Administrators can read and that is removed when kubeadm ends; it never appears on a
    command line, in the task result or in an error message. Use C(no_log) on the task as well.
  - The kubelet service must exist before the join (kubeadm starts it); the C(kubelet) role registers it.
options:
  api_endpoint:
    description: The API server as kubeadm discovers it, C(host:port).
    type: str
    required: true
  token:
    description: Bootstrap token, C([a-z0-9]{6}.[a-z0-9]{16}).
    type: str
    required: true
  ca_cert_hash:
    description: C(sha256:<hex>) of the cluster CA certificate's public key (discovery-token-ca-cert-hash).
    type: str
    required: true
  node_name:
    description: Name the node registers under (lower case).
    type: str
    required: true
  cri_socket:
    description: The container runtime's CRI endpoint, such as C(npipe:////./pipe/containerd-containerd).
    type: str
    required: true
  kubernetes_version:
    description: Version of kubeadm; decides the JoinConfiguration API version (v1beta4 from 1.31).
    type: str
    required: true
  kubeadm_path:
    description: Path of kubeadm.exe.
    type: str
    default: C:\k\kubeadm.exe
  kubelet_kubeconfig:
    description: The kubeconfig the kubelet writes when it has joined.
    type: str
    default: C:\etc\kubernetes\kubelet.conf
  kubeadm_flags_file:
    description: The file kubeadm writes the kubelet's flags to (returned in the snapshot for folding).
    type: str
    default: C:\var\lib\kubelet\kubeadm-flags.env
  ignore_preflight_errors:
    description: kubeadm preflight checks to ignore, by name (C(all) is refused).
    type: list
    elements: str
    default: []
  timeout:
    description: Seconds kubeadm join may take.
    type: int
    default: 600
extends_documentation_fragment:
  - kubewin.node.node_action
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Join the node
  kubewin.node.kubeadm_join:
    api_endpoint: 10.127.130.10:6443
    token: "{{ control_plane_credentials.token }}"
    ca_cert_hash: "{{ control_plane_credentials.ca_cert_hash }}"
    node_name: "{{ plan_node.node_name }}"
    cri_socket: npipe:////./pipe/containerd-containerd
    kubernetes_version: 1.32.6
  no_log: true
'''

RETURN = r'''
joined:
  description: Whether the node has joined (in check mode, whether it would have).
  returned: success
  type: bool
'''
