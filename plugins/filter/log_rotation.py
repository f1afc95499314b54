# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's log rotation task for roles; docs in log_rotation.yml."""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils._log_rotation import log_rotation


class FilterModule:
    """kubewin.node log rotation filter."""

    def filters(self):
        return {'log_rotation': log_rotation}
