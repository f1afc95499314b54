# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which converged nodes skip the node play of site.yml; the documentation is in converged_nodes.yml."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils import _converged


def converged_nodes(hosts, hostvars, credentials=None):
    """The hosts whose decision found them converged with the credentials the control plane hands out now."""
    decisions = {host: dict(hostvars[host].get(_converged.DECISION) or {}) for host in hosts}
    return _converged.converged_hosts(decisions, credentials)


class FilterModule:
    """kubewin.node early-end filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'converged_nodes': converged_nodes}
