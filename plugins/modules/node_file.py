#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: node_file
short_description: Manage a text file on a Windows node (configs, kubeconfigs)
version_added: 0.1.0
description:
  - Writes a text file as UTF-8 without a byte order mark (CNI, JSON and TOML parsers on Windows reject
    one), replacing the old file only once the new one is complete, or removes it.
  - The file gets an ACL that does not inherit from its folder; missing folders are created with the
    C(protected) profile.
  - Reports C(changed) only when the content (compared by SHA-256 of the bytes) or the ACL differs.
    The diff shows the old and new text, except for O(secret_content), whose text never appears in the
    diff or the result.
  - Every file written is recorded in the node's registry of managed files, so
    M(kubewin.node.node_info) reports it and later runs decide without a remote call.
options:
  path:
    description: Absolute path of the file on the node.
    type: str
    required: true
  content:
    description: The text of the file. Mutually exclusive with O(secret_content).
    type: str
  secret_content:
    description:
      - The text of a file that holds a secret (a kubeconfig, a token). It is passed to the node as a
        SecureString, never shown, and the file gets the C(secret) ACL whatever O(acl) says.
      - Use C(no_log) on the task as well.
    type: str
  acl:
    description:
      - C(protected) lets SYSTEM and Administrators change the file and Users only read it.
      - C(secret) lets only SYSTEM and Administrators in.
    type: str
    choices: [protected, secret]
    default: protected
  state:
    description: Whether the file should exist.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.artifact
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Write the CNI config the plan rendered
  kubewin.node.node_file:
    path: C:\etc\cni\net.d\10-flannel.conf
    content: "{{ plan_node.cni_config_text }}"

- name: Write the kubelet's kubeconfig
  kubewin.node.node_file:
    path: C:\etc\kubernetes\kubelet.conf
    secret_content: "{{ kubelet_kubeconfig }}"
  no_log: true
'''

RETURN = r'''
path:
  description: The path of the file.
  returned: success
  type: str
sha256:
  description: SHA-256 of the file now (in check mode, of the file as it is).
  returned: success
  type: str
acl:
  description: ACL profile of the file now (C(protected), C(secret), C(inherited) or C(custom)).
  returned: success
  type: str
'''
