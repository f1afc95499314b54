# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which hosts each play of site.yml touches: the decisions of a run, each by its name, all made here.

Internal to kubewin.node, not a public API. The public interface is the ``kubewin.node.fleet_decisions`` filter,
whose named decisions the plays of ``site.yml`` read in ``hosts:`` (one decision a play); the fleet report reads
the same decisions to say which nodes ended early.

They are made from what the run has left so far, so a play reads them when it starts:

- each Windows node's convergence decision (``prerequisites_converged``, _converged.py), which the snapshot play
  registers: a node found converged ended early and skips the prerequisites play; when every Windows node of the
  inventory did, the fleet ended early and the cluster plays have nothing to do;
- the group ``kubewin_converged``, where the control-plane play puts the nodes that ended early and were recorded
  with the credentials it hands out (``kubewin.node.converged_nodes``): they skip the node play;
- where the cluster-side steps run (_cluster_api.py).

Lists of Windows nodes keep the inventory's order, which the node play's serial batches follow. A host that
``--limit`` or an AWX job slice leaves out may be in a list: Ansible leaves it out of the play all the same.
"""

from __future__ import annotations

import typing as t
from collections.abc import Mapping

from ansible_collections.kubewin.node.plugins.plugin_utils import _cluster_api, _converged

WINDOWS_GROUP = 'windows_nodes'
# The group the control-plane play of site.yml adds the nodes to that skip the node play with its credentials.
CONVERGED_GROUP = 'kubewin_converged'


def fleet_decisions(hostvars: Mapping, groups: Mapping) -> dict[str, t.Any]:
    """The decisions by name (plugins/filter/fleet_decisions.yml documents each)."""
    nodes = list((groups or {}).get(WINDOWS_GROUP) or [])
    early_end = _converged.early_end(hostvars, groups)
    ended_early = set(early_end['hosts'])
    skip_node_play = ended_early if early_end['fleet'] else set((groups or {}).get(CONVERGED_GROUP) or [])
    cluster_side = _cluster_api.cluster_api(hostvars, groups)['hosts']
    return {
        'ended_early': early_end['hosts'],
        'fleet_ended_early': early_end['fleet'],
        'to_prepare': [host for host in nodes if host not in ended_early],
        'converged': [host for host in nodes if host in skip_node_play],
        'to_converge': [host for host in nodes if host not in skip_node_play],
        'cluster_side': cluster_side,
        'to_prepare_cluster': [] if early_end['fleet'] else cluster_side,
    }
