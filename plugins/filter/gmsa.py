# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gMSA for the Windows nodes' pods; docs in gmsa_objects.yml, gmsa_stale_objects.yml, gmsa_cluster_problem.yml,
gmsa_node_problem.yml and gmsa_plugin_files.yml."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _gmsa


def gmsa_node_problem(snapshot_gmsa, gmsa, host):
    """Why the node cannot host gMSA pods as the inventory asks, or ''."""
    return _gmsa.node_problem(snapshot_gmsa, gmsa, host) or ''


def gmsa_cluster_problem(crds, mutating, validating):
    """Why the cluster cannot serve gMSA credential specs, or ''."""
    return _gmsa.cluster_problem(crds, mutating, validating) or ''


class FilterModule:
    """kubewin.node gMSA filters."""

    def filters(self):
        return {'gmsa_objects': _gmsa.objects, 'gmsa_cluster_problem': gmsa_cluster_problem,
                'gmsa_node_problem': gmsa_node_problem, 'gmsa_plugin_files': _gmsa.plugin_files,
                'gmsa_stale_objects': _gmsa.stale}
