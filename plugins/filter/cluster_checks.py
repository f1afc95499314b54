# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that check the Linux side of a cluster against what Windows nodes need; docs in the .yml files."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils._calico import calico_cluster_compare
from ansible_collections.kubewin.node.plugins.plugin_utils._cluster import (
    flannel_net_conf_compare,
    schedules_only_on_linux,
    windows_node_problems,
)


class FilterModule:
    """kubewin.node cluster check filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {
            "calico_cluster_compare": calico_cluster_compare,
            "flannel_net_conf_compare": flannel_net_conf_compare,
            "schedules_only_on_linux": schedules_only_on_linux,
            "windows_node_problems": windows_node_problems,
        }
