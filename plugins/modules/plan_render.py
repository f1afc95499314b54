#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: plan_render
short_description: Write the rendered IP plan of a fleet into a folder on the controller, in one task
version_added: 0.1.0
description:
  - Runs on the controller and contacts no host. Writes, under O(dest), each node's C(<node>/cni.conf) and, for the
    flannel topologies, C(<node>/net-conf.json) (the exact texts the C(plan) role hands the nodes,
    C(cni_config_text) and C(flannel_net_conf_text) of P(kubewin.node.node_network#filter)), the plan's
    C(summary.txt) and its picture C(ip-plan.svg).
  - One task whatever the fleet's size, so that C(playbooks/plan.yml) renders a thousand nodes in seconds rather
    than running a file task per node. A file whose text is already the plan's is not written again; every file
    is replaced whole.
  - Without a picture (no drawsvg on the controller) a picture of an earlier plan is removed rather than left stale.
options:
  dest:
    description: The folder to write into; created when missing.
    type: path
    required: true
  nodes:
    description: The nodes' share of the plan, keyed by inventory name (C(plan_nodes) of the C(plan) role).
    type: dict
    required: true
  summary:
    description: The text of C(summary.txt).
    type: str
    required: true
  picture:
    description: The SVG text of C(ip-plan.svg) (P(kubewin.node.ip_plan_svg#filter)); empty for none.
    type: str
    default: ''
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the task run on the controller.
    support: full
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: In check mode it writes nothing and reports the files it would write.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: posix
seealso:
  - module: kubewin.node.fleet_report
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Write the plan of every Windows node
  kubewin.node.plan_render:
    dest: ./plan
    nodes: "{{ plan_nodes }}"
    summary: "{{ lookup('ansible.builtin.template', 'summary.txt.j2') }}"
    picture: "{{ plan_cluster | kubewin.node.ip_plan_svg(without_drawsvg='warn') }}"
'''

RETURN = r'''
dest:
  description: The folder written into.
  returned: always
  type: str
files:
  description: Every file of the plan, relative to O(dest).
  returned: always
  type: list
  elements: str
  sample: [summary.txt, win-1/cni.conf, win-1/net-conf.json, ip-plan.svg]
written:
  description: The files whose text changed (in check mode, would change), relative to O(dest).
  returned: always
  type: list
  elements: str
removed:
  description: A picture of an earlier plan removed because this run drew none.
  returned: always
  type: list
  elements: str
'''
