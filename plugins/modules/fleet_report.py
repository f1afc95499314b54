#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: fleet_report
short_description: Print and write the table of the Windows nodes at the end of a run
version_added: 0.1.0
description:
  - Runs on the controller and contacts no host. Reads what the run left in the host variables of the Windows
    nodes the play targets (the hosts of the C(windows_nodes) group among the play's hosts) and builds one row per
    node - C(node), C(status), C(Windows) (product and build of the node's snapshot), C(runtime), C(Kubernetes)
    (the kubelet version), C(Ready), C(podCIDR), C(network) (the topology), C(credentials), C(changed) (how many things the run
    changed on the node; which ones are listed under the table) and C(calls) (the remote calls the run cost on
    the node).
  - C(status) is C(ok), C(converged) for a node that ended its run early because its snapshot matched the record
    of its last full run (M(kubewin.node.node_converged); it changed nothing and cost the one call of its
    snapshot), or C(failed) for a node Ansible took out of the run after a failed task or an unreachable
    connection. In the report the P(kubewin.node.fleet_report#callback) callback writes when the run stopped
    before this task, a node that did not fail is C(stopped) (C(converged) when it ended early).
  - C(Ready), the versions and the podCIDR come from the Node objects the C(kubewin.node.verify) role read
    (C(verify_windows_nodes) on O(control_plane)) when the run verified; otherwise C(Ready) is empty, the runtime
    is the plan's and the Kubernetes version the one of the kubelet installed on the node (its snapshot), and
    the podCIDR the plan's when the inventory gave one (C(kubewin_pod_cidr)). A Node whose podCIDR is not the
    plan's, which the node's CNI config and routes are made from, shows both, the plan's in brackets.
  - C(credentials) says whether every file on the node that holds a credential (kubeconfigs, the kubelet's
    certificates and keys; P(kubewin.node.credential_files#filter)) was readable only by SYSTEM and Administrators
    when the node's snapshot was last taken - C(restricted), or how many were not (C(2 open)), listed under the
    table; empty when the snapshot did not read them. M(kubewin.node.node_credentials) in the C(join) role restricts
    them, so after a full run of C(site.yml) a node shows C(restricted); a check run or C(collect_logs.yml) shows
    what is open.
  - The changes and calls are those the C(kubewin.node) modules recorded in the node's C(kubewin_activity) fact
    (each module run that changed something, or would in check mode, or made a remote call) and those of the
    C(ansible.windows) tasks the roles run themselves (Windows features, reboot, machine environment
    variables). A script run, a file copy and a module run each count as one call; a reboot counts as one
    (none in check mode, where C(ansible.windows.win_reboot) does not contact the node).
  - Prints the table and, with O(dest), writes it as C(<dest>/<playbook>.md) (Markdown) and
    C(<dest>/<playbook>.json), replacing the previous run's; in check mode as well, saying that the changes
    are predictions.
options:
  playbook:
    description: The playbook the report is of, e.g. C(site); names the files.
    type: str
    required: true
  dest:
    description: Folder on the controller to write the report into (created when missing); empty writes nothing.
    type: path
    default: ''
  started:
    description:
      - When the run started, in seconds since the epoch on the controller. Activity recorded before it belongs to
        an earlier run and is left out, which matters only with a persistent fact cache. Omitted, all of it counts.
    type: float
  control_plane:
    description: The host the C(kubewin.node.verify) role ran on; default where P(kubewin.node.cluster_api#filter) runs the
      cluster-side steps (C(localhost) with C(kubewin_cluster_kubeconfig), else the first host of C(kube_control_plane)).
    type: str
  node_objects:
    description:
      - The cluster's Node objects the playbook read itself (C(doctor.yml) reads every Node), instead of those the
        C(kubewin.node.verify) role left on O(control_plane); C(Ready), the versions and the podCIDR come from them.
    type: list
    elements: dict
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the task run on the controller.
    support: full
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: It changes no host; it writes the report on the controller in check mode as well.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: posix
notes:
  - Ansible drops the facts of a failed or unreachable task, so a C(failed) node's row lacks what that last task
    did and the calls it made.
  - A run that stops before its last play (every node of a batch failed, or the node play's
    C(kubewin_max_fail_percentage) was exceeded) never runs this task; the P(kubewin.node.fleet_report#callback)
    callback, when enabled (C(callbacks_enabled) in C(ansible.cfg)), writes the report then, with this task's
    arguments.
seealso:
  - plugin: kubewin.node.fleet_report
    plugin_type: callback
  - module: kubewin.node.node_converged
  - module: kubewin.node.node_info
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
# The last play of playbooks/site.yml
- name: Report on the Windows nodes
  hosts: windows_nodes:localhost
  gather_facts: false
  tasks:
    - name: Print and write the fleet report
      kubewin.node.fleet_report:
        playbook: site
        dest: "{{ playbook_dir }}/reports"
      run_once: true
'''

RETURN = r'''
report:
  description: The report, as written to C(<playbook>.json).
  returned: success
  type: dict
  contains:
    nodes:
      description: One row per node, with C(node), C(status), C(windows), C(runtime), C(kubernetes), C(ready),
        C(pod_cidr), C(network), C(open_credentials) (the files holding credentials that are not readable only by
        SYSTEM and Administrators; null when the snapshot did not read them), C(changes) (list of
        C(<module> <resource>)), C(calls), and C(reasons) (why the node took the full run, from its convergence
        decision).
      type: list
      elements: dict
    totals:
      description: C(nodes), C(changes), C(calls), and C(by_status), the number of nodes per status.
      type: dict
    complete:
      description: Whether the run got to this task; false in the report the P(kubewin.node.fleet_report#callback)
        callback writes when the run stopped before it.
      type: bool
text:
  description: The report as printed.
  returned: success
  type: str
paths:
  description: The files written.
  returned: success
  type: list
  elements: str
'''
