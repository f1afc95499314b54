#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: node_repair
short_description: Apply the doctor's safe repairs on a Windows node (stale HNS load balancers, stopped services)
version_added: 0.1.0
description:
  - Removes the given HNS policy lists (the load balancers kube-proxy programs; the stale ones
    C(playbooks/doctor.yml) finds), then starts the given services and restarts others, all in one remote call.
    kube-proxy programs a load balancer for every Service when it starts; it does not remove lists it did not
    make, which is why stale ones are removed first (the C(start-kubeproxy.ps1) of microsoft/SDN removes every
    list before starting it for the same reason).
  - Policy lists that are already gone are not an error. A restart always reports C(changed).
  - A service that does not exist fails the task before anything is changed.
options:
  policy_lists:
    description: IDs of the HNS policy lists to remove.
    type: list
    elements: str
    default: []
  start:
    description: Services to start when they are not running.
    type: list
    elements: str
    default: []
  restart:
    description: Services to restart (started when stopped); the services depending on them that ran run again.
    type: list
    elements: str
    default: []
  start_timeout:
    description: Seconds to wait for each service to reach Running.
    type: int
    default: 60
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.node_service
  - module: kubewin.node.node_reset
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Remove two stale load balancers and let kube-proxy program the Services again
  kubewin.node.node_repair:
    policy_lists:
      - 6c4b9f5e-1f0a-4a3e-9d55-0b7b1a8f6a10
      - 0f2d4c7a-8e7b-4d3c-a1b2-9c8d7e6f5a40
    restart: [kube-proxy]
'''

RETURN = r'''
repaired:
  description: What was (in check mode, would be) done, by operation - C(remove_policy_lists) (IDs), C(start) and
    C(restart) (service names); empty when nothing was to do.
  returned: always
  type: dict
'''
