# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Version policy and node service command-line filters; the documentation of each is in the .yml file of the same name."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils._flags import (
    credential_provider_binaries,
    credential_provider_config,
    flanneld_args,
    fold_kubeadm_flags,
    kube_proxy_args,
    kubeadm_flags,
    kubelet_args,
    split_windows_command_line,
    windows_command_line,
)
from ansible_collections.kubewin.node.plugins.plugin_utils._preflight import inventory_names
from ansible_collections.kubewin.node.plugins.plugin_utils._versions import kubelet_skew, version_policy


def kubelet_skew_of_inventory(kubelet: t.Any, control_plane: t.Any) -> dict[str, t.Any]:
    """kubelet_skew with its problems in the inventory's words (kubewin_kubernetes_version), as the preflight's."""
    skew = kubelet_skew(kubelet, control_plane)
    return dict(skew, problems=[inventory_names(problem) for problem in skew["problems"]])


class FilterModule:
    """kubewin.node version policy and node service command-line filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {
            "version_policy": version_policy,
            "kubelet_skew": kubelet_skew_of_inventory,
            "kubelet_args": kubelet_args,
            "credential_provider_config": credential_provider_config,
            "credential_provider_binaries": credential_provider_binaries,
            "kube_proxy_args": kube_proxy_args,
            "flanneld_args": flanneld_args,
            "kubeadm_flags": kubeadm_flags,
            "fold_kubeadm_flags": fold_kubeadm_flags,
            "windows_command_line": windows_command_line,
            "split_windows_command_line": split_windows_command_line,
        }
