#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: node_credentials
short_description: Make every file that holds a credential on a Windows node readable only by SYSTEM and Administrators
version_added: 0.1.0
description:
  - kubeadm and the kubelet write kubeconfigs, certificates and private keys (C(bootstrap-kubelet.conf),
    C(kubelet.conf), C(kubelet-client-*.pem), C(kubelet.key)) without an ACL of their own, so each inherits its
    folder's; the default ACL of C(C:\) lets the C(Users) group read them.
  - Gives every file the O(patterns) match the C(secret) ACL profile of M(kubewin.node.node_file) (SYSTEM and
    Administrators, full control; not inherited from the folder), and leaves files that have it alone.
  - Decides from the C(credentials) section of the node state snapshot when it covers the patterns (no remote
    call). Only ACLs change; the diff names each file with its ACL profile before and after, never its content.
options:
  patterns:
    description:
      - The files that hold a credential, each an absolute folder and a file name that may hold wildcards
        (C(*), C(?)), such as C(C:\etc\kubernetes\*.conf). A pattern that matches nothing is not an error.
      - The filter P(kubewin.node.credential_files#filter) gives the patterns of the plan's node layout.
    type: list
    elements: str
    required: true
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.node_info
  - module: kubewin.node.node_file
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Let only SYSTEM and Administrators read the node's credentials
  kubewin.node.node_credentials:
    patterns: "{{ plan_paths | kubewin.node.credential_files }}"
'''

RETURN = r'''
files:
  description: Every file the patterns match.
  returned: success
  type: list
  elements: str
restricted:
  description: The files that did not have the C(secret) ACL and were given it (in check mode, would be).
  returned: success
  type: list
  elements: str
'''
