# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Windows path helpers for roles; docs in the .yml file of the same name."""

from __future__ import annotations

import ntpath

from ansible.errors import AnsibleFilterError


def windows_path(directory, *names):
    """Join a Windows directory and names with backslashes (Jinja has no reliable backslash literal).

    ``directory`` may also be a sequence of all the parts, e.g. the pairs ``product`` makes.
    """
    parts = [*directory, *names] if isinstance(directory, (list, tuple)) else [directory, *names]
    if not all(isinstance(part, str) and part for part in parts):
        raise AnsibleFilterError('windows_path needs non-empty strings, got %r' % (parts,))
    return ntpath.join(*[part.replace('/', '\\') for part in parts])


class FilterModule:
    """kubewin.node path filters."""

    def filters(self):
        return {'windows_path': windows_path}
