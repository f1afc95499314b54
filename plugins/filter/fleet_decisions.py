# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which hosts each play of site.yml touches; the documentation is in fleet_decisions.yml."""

from __future__ import annotations

import typing as t
from collections.abc import Mapping

from ansible_collections.kubewin.node.plugins.plugin_utils import _fleet_decisions

try:
    # ansible-core 2.19 skips a filter whose input is undefined unless it says it takes one (ansible.template).
    from ansible.template import accept_args_markers
except ImportError:  # earlier releases hand the filter the undefined value itself
    def accept_args_markers(plugin):
        return plugin


@accept_args_markers
def fleet_decisions(hostvars: t.Any, groups: t.Mapping) -> dict[str, t.Any]:
    """The decisions by name (plugin_utils/_fleet_decisions.py). A syntax check templates a play's ``hosts:``
    before any host variable exists: without ``hostvars`` no node has decided anything."""
    return _fleet_decisions.fleet_decisions(hostvars if isinstance(hostvars, Mapping) else {}, groups)


class FilterModule:
    """kubewin.node fleet decisions filter."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'fleet_decisions': fleet_decisions}
