# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""IP plan filters; the documentation of each is in the .yml file of the same name."""

from __future__ import annotations

import functools
import typing as t

from ansible.module_utils.basic import missing_required_lib
from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import (
    HAS_NETADDR,
    IPPlanError,
    cni_config,
    exception_list,
    flannel_net_conf,
    normalize_plan,
    pod_gateways,
    static_routes,
)


def _requires_netaddr(func: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
    # Fail when a filter is used, not when Ansible loads the plugin: playbooks that never touch
    # the IP plan must keep working on a controller without netaddr.
    @functools.wraps(func)
    def wrapper(*args: t.Any, **kwargs: t.Any) -> t.Any:
        if not HAS_NETADDR:
            raise IPPlanError(f"{missing_required_lib('netaddr')} On the controller: pip install netaddr")
        return func(*args, **kwargs)

    return wrapper


class FilterModule:
    """kubewin.node IP plan filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {
            "ip_plan": _requires_netaddr(normalize_plan),
            "exception_list": _requires_netaddr(exception_list),
            "pod_gateways": _requires_netaddr(pod_gateways),
            "cni_config": _requires_netaddr(cni_config),
            "flannel_net_conf": _requires_netaddr(flannel_net_conf),
            "static_routes": _requires_netaddr(static_routes),
        }
