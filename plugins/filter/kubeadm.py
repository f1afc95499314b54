# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters for kubeadm join credentials and the cluster's kubeadm configuration; docs in the .yml files."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils._kubeadm import (
    bootstrap_token,
    ca_cert_hash,
    cluster_network_differences,
    kubeadm_networking,
)


class FilterModule:
    """kubewin.node kubeadm filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {
            "ca_cert_hash": ca_cert_hash,
            "bootstrap_token": bootstrap_token,
            "cluster_network_differences": cluster_network_differences,
            "kubeadm_networking": kubeadm_networking,
        }
