# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""csi-proxy on the Windows nodes; docs in csi_proxy_service.yml and csi_proxy_daemonset.yml."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _csi_proxy


def csi_proxy_daemonset(image=None):
    """The objects of csi-proxy's HostProcess DaemonSet (plugin_utils/_csi_proxy.py)."""
    return {'objects': _csi_proxy.daemonset(image), 'namespace': _csi_proxy.NAMESPACE, 'name': _csi_proxy.NAME,
            'owner_labels': dict(_csi_proxy.OWNER_LABELS)}


class FilterModule:
    """kubewin.node csi-proxy filters."""

    def filters(self):
        return {'csi_proxy_service': _csi_proxy.csi_proxy_service, 'csi_proxy_daemonset': csi_proxy_daemonset}
