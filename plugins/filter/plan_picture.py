# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The IP plan picture filter; the documentation is in ip_plan_svg.yml."""

from __future__ import annotations

import typing as t

from ansible.errors import AnsibleFilterError
from ansible.module_utils.basic import missing_required_lib
from ansible.utils.display import Display
from ansible_collections.kubewin.node.plugins.filter.ip_plan import _requires_netaddr
from ansible_collections.kubewin.node.plugins.plugin_utils import _plan_picture

display = Display()
WITHOUT_DRAWSVG = ('fail', 'warn')


def ip_plan_svg(plan: t.Any, without_drawsvg: str = 'fail') -> str:
    """The picture of ``plan`` as SVG text; without drawsvg, a failure or (``warn``) a warning and ''."""
    if without_drawsvg not in WITHOUT_DRAWSVG:
        raise AnsibleFilterError('ip_plan_svg: without_drawsvg must be fail or warn, got %r' % (without_drawsvg,))
    if not _plan_picture.HAS_DRAWSVG:
        # missing_required_lib names the package and the interpreter that lacks it.
        message = '%s On the controller: pip install %s' % (
            missing_required_lib('drawsvg', reason='to draw the IP plan'), _plan_picture.DRAWSVG_REQUIREMENT)
        if without_drawsvg == 'fail':
            raise AnsibleFilterError(message)
        display.warning(message + ' (the plan is written without ip-plan.svg)')
        return ''
    return _plan_picture.plan_svg(plan)


class FilterModule:
    """kubewin.node IP plan picture filter."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'ip_plan_svg': _requires_netaddr(ip_plan_svg)}
