#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: node_converged
short_description: Decide from the node state snapshot whether a Windows node is already converged
version_added: 0.1.0
description:
  - Decides on the controller, without contacting the node, whether the node is in the state the last full run
    of C(playbooks/site.yml) left it in, with the same inputs. In C(site.yml), a converged node skips the
    prerequisites play, and the control-plane play leaves the node out of the node play when the credentials it
    hands out have the digest the record holds (P(kubewin.node.converged_nodes#filter)); when every node is
    converged, the cluster plays have nothing to do (P(kubewin.node.fleet_decisions#filter) says which hosts each
    play touches).
    The prerequisites role has M(kubewin.node.node_info) decide the same (its
    O(kubewin.node.node_info#module:decide)) in the task that takes the snapshot, so that a node on which nothing
    changed costs one remote call and one task result. The prerequisites role on its own ends a converged node's
    play right after this decision (C(meta end_host), see its C(prerequisites_end_converged)).
  - At the end of a full run, C(site.yml) writes the node's convergence record
    C(C:\ProgramData\kubewin\converged.json) (the prerequisites role's C(tasks_from=record), with O(record=true)
    and M(kubewin.node.node_file)) from a new snapshot. It holds the digest of the run's inputs, the digest of
    the credentials the node was handed (C(control_plane_credentials)) and the digest of each section of the
    snapshot. M(kubewin.node.node_info) always reads it.
  - The inputs are the node's share of the plan (the C(plan_*) facts), the C(kubewin_*) variables but those only
    the playbooks read (C(kubewin_report_dir), C(kubewin_serial), C(kubewin_cluster_kubeconfig), ...), every
    variable the node roles document in their argument specs, and the collection's own plugins, roles and
    playbooks. A change to any of them, or to any section of the snapshot, makes the node take the full run.
  - Not compared, because they change on a healthy node, are the last boot time and the free disk space,
    and the HNS endpoints and policy lists that pods and kube-proxy create (the host endpoint of the
    l2bridge topology shows as its C(vEthernet) adapter, which is compared).
  - Anything the full run would repair must show in the snapshot, since a re-run of the full path decides from
    the snapshot as well; state outside the node (the cluster's objects) is the control-plane play's.
options:
  enabled:
    description: When false, the node is never reported as converged (the reasons say so).
    type: bool
    default: true
  record:
    description: Return the record to write for the current snapshot and O(inputs), instead of deciding.
    type: bool
    default: false
  inputs:
    description: With O(record=true), the C(inputs) digest of the decision taken at the start of the run.
    type: str
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the task run on the controller.
    support: full
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: It never changes anything.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: windows
notes:
  - A run limited with tags, skipped tags or C(--start-at-task) does not record the node converged, since
    it did not run every stage.
seealso:
  - module: kubewin.node.node_info
  - module: kubewin.node.node_file
  - plugin: kubewin.node.converged_nodes
    plugin_type: filter
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Take the node state snapshot
  kubewin.node.node_info:

- name: Decide whether the node is already converged
  kubewin.node.node_converged:
  register: converged

- name: End a converged node's run here
  ansible.builtin.meta: end_host
  when: converged.converged

# ... every stage of the node ...

- name: Take a new snapshot of the converged node
  kubewin.node.node_info:

- name: Work out the convergence record
  kubewin.node.node_converged:
    record: true
    inputs: "{{ converged.inputs }}"
  register: record

- name: Write the convergence record
  kubewin.node.node_file:
    path: "{{ record.path }}"
    content: "{{ record.content }}"
'''

RETURN = r'''
converged:
  description: Whether the node is converged (not returned with O(record=true)).
  returned: success and not O(record)
  type: bool
reasons:
  description: Why the node is not converged, e.g. C(the node changed since the record - services, files).
  returned: success and not O(record)
  type: list
  elements: str
inputs:
  description: The digest of this run's inputs; pass it to the task that writes the record.
  returned: success and not O(record)
  type: str
credentials:
  description: The digest of the credentials the record was written with (null without a record).
  returned: success and not O(record)
  type: str
path:
  description: Where the record lives on the node.
  returned: success
  type: str
content:
  description: The record to write (JSON text).
  returned: success and O(record)
  type: str
'''
