# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inventory preflight filter; the documentation is in preflight.yml."""

from __future__ import annotations

import typing as t

from ansible.utils.display import Display
from ansible_collections.kubewin.node.plugins.filter.ip_plan import _requires_netaddr
from ansible_collections.kubewin.node.plugins.filter.transport import controller_connection
from ansible_collections.kubewin.node.plugins.plugin_utils import _preflight

display = Display()


def preflight(hostvars: t.Mapping, groups: t.Mapping, playbook: str = 'site',
              default_connection: str | None = None, placeholder_pins: str = 'refuse') -> dict[str, t.Any]:
    """The preflight, with the controller's own default connection; its warnings are shown once."""
    report = _preflight.preflight(hostvars, groups, playbook, default_connection or controller_connection(),
                                  placeholder_pins)
    for warning in report['warnings']:
        display.warning(warning)
    return report


class FilterModule:
    """kubewin.node inventory preflight filter."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'preflight': _requires_netaddr(preflight)}
