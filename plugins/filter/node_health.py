# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a Windows node's networking works as the plan says; docs in node_health_problems.yml."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils._node_health import node_health_problems


class FilterModule:
    """kubewin.node node health filter."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'node_health_problems': node_health_problems}
