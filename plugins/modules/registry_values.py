#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: registry_values
short_description: Set or remove named values of one registry key on a node
version_added: 0.1.0
description:
  - Sets the named values of one key below C(HKLM:\) (creating the key and its parents when it is missing) with
    C(New-ItemProperty -PropertyType), or removes them with O(state=absent) - only the values named, never the key
    or its other values.
  - Decides from the C(registry) section of the M(kubewin.node.node_info) snapshot (each value's kind and data as
    stored), so a key whose values are already right costs no remote call; a value of the right data but another
    kind is set again.
options:
  key:
    description: The key, two levels or more below C(HKLM:\), e.g. C(HKLM:\SOFTWARE\Policies\Microsoft\Windows\WindowsUpdate\AU).
    type: str
    required: true
  values:
    description: The values to set or remove.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: The value's name.
        type: str
        required: true
      type:
        description: Its kind (C(New-ItemProperty -PropertyType)).
        type: str
        choices: [dword, qword, string, expandstring, multistring]
        default: dword
      data:
        description: Its data, required with O(state=present); a whole number for C(dword) and C(qword), a list for C(multistring).
        type: raw
  state:
    description: C(present) sets the values, C(absent) removes those of them that are there.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - kubewin.node.node_action
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Automatic Updates notify only, never install by themselves
  kubewin.node.registry_values:
    key: HKLM:\SOFTWARE\Policies\Microsoft\Windows\WindowsUpdate\AU
    values:
      - {name: NoAutoUpdate, data: 0}
      - {name: AUOptions, data: 2}
'''

RETURN = r'''
values:
  description: The named values as they now are, each C({kind, data}) (kind as C(RegistryValueKind) names it); a value that is not there is left out.
  returned: success
  type: dict
'''
