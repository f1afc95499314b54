#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: scheduled_task
short_description: Manage a scheduled task of the collection on a node
version_added: 0.1.0
description:
  - Registers, replaces or removes one scheduled task in the task folder C(\kubewin\). The task runs as
    C(SYSTEM) with the highest privileges, whether or not anyone is logged on; it runs one program, first at
    midnight of the day it was registered and then every O(interval_minutes), for ever.
  - M(kubewin.node.node_info) reports every task of C(\kubewin\), so a later run decides from the snapshot
    without a remote call.
options:
  name:
    description: Task name in C(\kubewin\) (letters, digits, C(_), C(.) and C(-)).
    type: str
    required: true
  description:
    description: Description shown in Task Scheduler.
    type: str
    default: ''
  execute:
    description: Program the task runs; required with O(state=present).
    type: str
  arguments:
    description: The program's command-line arguments, as one string quoted for Windows.
    type: str
    default: ''
  interval_minutes:
    description: Minutes between two runs, 1 to 1440.
    type: int
    default: 60
  state:
    description: Whether the task should exist.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - kubewin.node.node_action
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Rotate the node services' logs every hour
  kubewin.node.scheduled_task:
    name: log-rotation
    description: Rotates the logs of the Kubernetes node services (kubewin.node)
    execute: powershell.exe
    arguments: >-
      -NoProfile -NonInteractive -ExecutionPolicy Bypass -File C:\ProgramData\kubewin\log-rotation\rotate.ps1
      -ConfigPath C:\ProgramData\kubewin\log-rotation\config.json
    interval_minutes: 60
'''

RETURN = r'''
task:
  description: The task as it now is (C(description), C(state), C(actions), C(triggers), C(user_id), C(run_level));
    null when it does not exist.
  returned: success
  type: dict
'''
