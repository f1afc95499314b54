# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host settings a node gets from the inventory, and whether its commit limit holds its pods; docs in
registry_settings.yml, commit_limit_problem.yml and page_file_restart.yml."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils._host_settings import (
    commit_limit_problem, page_file_restart, registry_settings)


class FilterModule:
    """kubewin.node host settings filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'registry_settings': registry_settings, 'commit_limit_problem': commit_limit_problem,
                'page_file_restart': page_file_restart}
