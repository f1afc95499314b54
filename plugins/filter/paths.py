# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Windows path helpers for roles; docs in the .yml file of the same name."""

from __future__ import annotations

import ntpath

from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.plugin_utils import _credentials


def windows_path(directory, *names):
    """Join a Windows directory and names with backslashes (Jinja has no reliable backslash literal).

    ``directory`` may also be a sequence of all the parts, e.g. the pairs ``product`` makes.
    """
    parts = [*directory, *names] if isinstance(directory, (list, tuple)) else [directory, *names]
    if not all(isinstance(part, str) and part for part in parts):
        raise AnsibleFilterError('windows_path needs non-empty strings, got %r' % (parts,))
    return ntpath.join(*[part.replace('/', '\\') for part in parts])


def credential_files(paths):
    """The patterns of the files that hold a credential in a node layout (the plan's ``plan_paths``)."""
    missing = [key for key in ('kubernetes_config_dir', 'kubelet_dir', 'flannel_dir')
               if not isinstance((paths or {}).get(key) if isinstance(paths, dict) else None, str)]
    if missing:
        raise AnsibleFilterError('credential_files needs the node layout (plan_paths) with %s' % ', '.join(missing))
    return _credentials.patterns(paths)


class FilterModule:
    """kubewin.node path filters."""

    def filters(self):
        return {'windows_path': windows_path, 'credential_files': credential_files}
