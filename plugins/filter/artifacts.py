# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The artifact catalog filter; its documentation is in the .yml file of the same name."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils._artifact_catalog import artifact_sources


class FilterModule:
    """kubewin.node artifact catalog filter."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {
            'artifact_sources': artifact_sources,
        }
