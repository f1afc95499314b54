# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Adoption of nodes other tools set up; docs in takeover.yml and adoption_reads.yml."""

from __future__ import annotations

import typing as t

from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.plugin_utils import _adopt


def takeover(snapshot, host, node, cluster, paths, hostprocess_removed=False):
    """The takeover plan of a node from its snapshot and its share of the plan, with the lines the run prints."""
    if not isinstance(snapshot, dict):
        raise AnsibleFilterError('takeover needs the node state snapshot (kubewin_node, a dictionary), got %r'
                                 % type(snapshot).__name__)
    for name, value in (('plan_node', node), ('plan_cluster', cluster), ('plan_paths', paths)):
        if not isinstance(value, dict):
            raise AnsibleFilterError('takeover needs %s (a dictionary from the plan role), got %r'
                                     % (name, type(value).__name__))
    plan = _adopt.takeover(snapshot, str(host), node, cluster, paths, hostprocess_removed=bool(hostprocess_removed))
    plan['lines'] = _adopt.lines(plan)
    plan['message'] = '\n'.join(plan['refusals'])
    return plan


def adoption_reads(paths):
    """The files (``files``) and text files (``contents``) the node state snapshot reads for the recognition."""
    if not isinstance(paths, dict) or 'kubernetes_dir' not in paths:
        raise AnsibleFilterError('adoption_reads needs plan_paths (a dictionary with kubernetes_dir), got %r' % (paths,))
    return {'files': _adopt.files_to_read(paths), 'contents': _adopt.contents_to_read(paths)}


class FilterModule:
    """kubewin.node adoption filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'takeover': takeover, 'adoption_reads': adoption_reads}
