# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kube-proxy as a HostProcess DaemonSet on the Windows nodes; docs in kube_proxy_daemonset.yml."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils._kube_proxy_daemonset import kube_proxy_daemonset


class FilterModule:
    """kubewin.node kube-proxy DaemonSet filter."""

    def filters(self):
        return {'kube_proxy_daemonset': kube_proxy_daemonset}
