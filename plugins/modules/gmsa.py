#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: gmsa
short_description: Make a Windows node ready for the gMSA identities of its pods
version_added: 0.1.0
description:
  - Sets HNS's registry value C(EnableCompartmentNamespace) (REG_DWORD 1 under
    C(HKLM\SYSTEM\CurrentControlSet\Services\hns\State)), without which containerd's containers cannot reach SMB
    shares by name (kubernetes.io, "Configure GMSA for Windows Pods and containers"; kubernetes-sigs/windows-gmsa#30).
    Pods created afterwards pick it up; no service restarts.
  - With O(ccg_plugin), for a node that is not domain-joined, registers a Container Credential Guard plugin whose files
    are already on the node - its registry file and its event manifest, as the P(kubewin.node.gmsa#role) role
    downloads them, verified. The key C(HKLM\SYSTEM\CurrentControlSet\Control\CCG\COMClasses) belongs to
    TrustedInstaller, so the module takes it over for Administrators (with the take-ownership privilege) and gives
    them full control, as AKS's C(Install-GmsaPlugin) does, then runs C(reg.exe import) on the registry file and
    C(wevtutil.exe im) on the manifest, and checks that the CLSID is registered under C(COMClasses).
  - Decides from the C(gmsa) section of the M(kubewin.node.node_info) snapshot, so a node that is ready costs no
    remote call.
options:
  compartment_namespace:
    description: Set C(EnableCompartmentNamespace) to 1.
    type: bool
    default: true
  ccg_plugin:
    description: The CCG plugin of a node that is not domain-joined.
    type: dict
    suboptions:
      clsid:
        description: The plugin's COM class id, in braces; the registry file must register it under C(COMClasses).
        type: str
        required: true
      registration:
        description: Path on the node of the plugin's registry file (C(.reg)).
        type: str
        required: true
      events_manifest:
        description: Path on the node of the plugin's event manifest (C(.man)).
        type: str
        required: true
  reregister:
    description: Import the registry file and the manifest again although the CLSID is registered (their files changed).
    type: bool
    default: false
extends_documentation_fragment:
  - kubewin.node.node_action
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Let containerd's containers reach SMB shares by name
  kubewin.node.gmsa:

- name: Register a CCG plugin on a node that is not domain-joined
  kubewin.node.gmsa:
    ccg_plugin:
      clsid: "{CCC2A336-D7F3-4818-A213-272B7924213E}"
      registration: C:\k\ccg\registerplugin.reg
      events_manifest: C:\k\ccg\CCGEvents.man
'''

RETURN = r'''
gmsa:
  description: The node's gMSA state (C(part_of_domain), C(domain), C(compartment_namespace), C(ccg_plugins)).
  returned: success
  type: dict
'''
