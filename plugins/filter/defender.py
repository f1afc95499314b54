# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Microsoft Defender Antivirus exclusions of a Windows node; docs in defender_exclusions.yml."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.plugin_utils import _defender


def defender_exclusions(paths, container_runtime='containerd', parts=_defender.PARTS):
    """The exclusion paths and processes of a node (plugin_utils/_defender.py)."""
    try:
        return _defender.exclusions(paths, container_runtime, parts)
    except (KeyError, TypeError, ValueError) as error:
        raise AnsibleFilterError('defender_exclusions: %s (the input must be the node layout, plan_paths)' % error)


class FilterModule:
    """kubewin.node Defender filters."""

    def filters(self):
        return {'defender_exclusions': defender_exclusions}
