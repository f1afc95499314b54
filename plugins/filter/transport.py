# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""WinRM transport preflight filter; the documentation is in transport_preflight.yml."""

from __future__ import annotations

import typing as t

from ansible import constants as C
from ansible import context
from ansible.utils.display import Display
from ansible_collections.kubewin.node.plugins.plugin_utils import _transport

display = Display()


def controller_connection() -> str:
    """What a host that sets no ansible_connection gets: ansible-playbook -c, else the configured default."""
    return context.CLIARGS.get('connection') or C.DEFAULT_TRANSPORT


def transport_preflight(hostvars: t.Mapping[str, t.Mapping[str, t.Any]], hosts: t.Sequence[str],
                        default_connection: str | None = None) -> dict[str, t.Any]:
    """The preflight, with the controller's own default connection and a warning for accepted risks."""
    report = _transport.transport_preflight(hostvars, list(hosts or []), default_connection or controller_connection())
    if report['accepted']:
        display.warning(_transport.acceptance_warning(report['accepted']))
    return report


class FilterModule:
    """kubewin.node transport filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'transport_preflight': transport_preflight}
