# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The early end of converged nodes, for the plays after the snapshot; docs in converged_nodes.yml and early_end.yml."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils import _converged


def converged_nodes(hosts, hostvars, credentials=None):
    """The hosts whose decision found them converged with the credentials the control plane hands out now."""
    decisions = {host: dict(hostvars[host].get(_converged.DECISION) or {}) for host in hosts}
    return _converged.converged_hosts(decisions, credentials)


def early_end(hostvars, groups):
    """Which Windows nodes ended early, and whether all of them did (then the cluster plays have nothing to do)."""
    return _converged.early_end(hostvars, groups)


class FilterModule:
    """kubewin.node early-end filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'converged_nodes': converged_nodes, 'early_end': early_end}
