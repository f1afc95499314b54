# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether PowerShell on a node runs the collection's scripts; docs in script_policy_problem.yml."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils._windows import script_policy_problem


class FilterModule:
    """kubewin.node execution policy filter."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'script_policy_problem': script_policy_problem}
