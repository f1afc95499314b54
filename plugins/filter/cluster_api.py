# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where the cluster-side steps reach the Kubernetes API from; the documentation is in cluster_api.yml."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils import _cluster_api


def cluster_api(hostvars: t.Mapping, groups: t.Mapping) -> dict[str, t.Any]:
    """The host, kubeconfig and become of the cluster-side steps (plugin_utils/_cluster_api.py)."""
    return _cluster_api.cluster_api(hostvars, groups)


class FilterModule:
    """kubewin.node cluster access filter."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'cluster_api': cluster_api}
