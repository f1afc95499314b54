# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that turn inventory variables into each node's plan; docs in the .yml files of the same name."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.filter.ip_plan import _requires_netaddr
from ansible_collections.kubewin.node.plugins.plugin_utils._node_plan import node_network, plan_input


class FilterModule:
    """kubewin.node inventory-to-plan filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {
            'plan_input': plan_input,
            'node_network': _requires_netaddr(node_network),
        }
