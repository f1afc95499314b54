# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where the cluster-side steps of kubewin.node talk to the Kubernetes API from: the one rule.

Internal to kubewin.node, not a public API. The public interface is the ``kubewin.node.cluster_api``
filter, which site.yml's cluster plays (``hosts:``, ``become:``) and the defaults of the roles that
reach the API (control_plane, verify, upgrade, reset) call; the preflight and the fleet report read it
here.

Two ways, chosen by the inventory:

- ``kubewin_cluster_kubeconfig`` set, as the controller sees it (``hostvars['localhost']``: group_vars/all,
  the inventory's own variables in AWX, or an extra var): every cluster-side step runs on ``localhost``
  (the controller, or the AWX execution node) with the ``kubernetes.core`` modules and that kubeconfig,
  without become, and no ``kube_control_plane`` host is needed. This is what lets AWX job slicing run
  ``site.yml``: a slice's inventory holds only its share of the hosts, so the control-plane host is in
  one slice at most (AWX userguide, job_slices.rst), but every slice has ``localhost``.
- otherwise, as before: the first host of ``kube_control_plane``, with become and kubeadm's admin
  kubeconfig, which only root may read (kubeadm writes it with mode 0600; kubeadm reference,
  "kubeadm init", files in /etc/kubernetes).
"""

from __future__ import annotations

import typing as t
from collections.abc import Mapping

KUBECONFIG_VARIABLE = 'kubewin_cluster_kubeconfig'
CONTROLLER = 'localhost'
CONTROL_PLANE_GROUP = 'kube_control_plane'
# kubeadm's admin kubeconfig on a control-plane host.
CONTROL_PLANE_KUBECONFIG = '/etc/kubernetes/admin.conf'


def controller_kubeconfig(hostvars: Mapping) -> t.Any:
    """kubewin_cluster_kubeconfig as the controller sees it (None when unset or empty); any type, the preflight checks it."""
    controller = hostvars.get(CONTROLLER) if CONTROLLER in hostvars else None
    value = (controller or {}).get(KUBECONFIG_VARIABLE)
    return value if value not in (None, '') else None


def cluster_api(hostvars: Mapping, groups: Mapping) -> dict[str, t.Any]:
    """Where the cluster-side steps run and how they reach the API.

    ``hosts``: a list of at most one host (a play's ``hosts:``; empty when neither way is given, which the
    preflight refuses first); ``host``: that host or ``''`` (``delegate_to``); ``kubeconfig``: the path the
    ``kubernetes.core`` modules get; ``become``; ``controller``: true in the kubeconfig way.
    """
    kubeconfig = controller_kubeconfig(hostvars)
    if kubeconfig is not None:
        return {'hosts': [CONTROLLER], 'host': CONTROLLER, 'kubeconfig': str(kubeconfig), 'become': False,
                'controller': True}
    first = list((groups or {}).get(CONTROL_PLANE_GROUP) or [])[:1]
    return {'hosts': first, 'host': first[0] if first else '', 'kubeconfig': CONTROL_PLANE_KUBECONFIG, 'become': True,
            'controller': False}
