# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a Windows node's networking works as the plan says, from its snapshot and its Node.

Internal to kubewin.node, not a public API: names and signatures may change in any release.
The public interface is the filter kubewin.node.node_health_problems (plugins/filter/node_health.py), which
the verify role's node_health entry point runs after a patch window's restart (and a doctor can run any time).

What a working node has, per the roles that set it up:
- the HNS networks of its topology: the placeholder network that holds the vSwitch (network_l2bridge,
  network_overlay) and the pod network flanneld or the role creates (plan_cluster.network_name); for ovn the
  Transparent network of network_ovn;
- its services running: the container runtime of the plan (and cri-dockerd when the node has it), the kubelet,
  kube-proxy (not with ovn, where ovn-kubernetes routes Services, nor in kubewin_kube_proxy_mode daemonset, where it is
  a pod), flanneld when flannel routes the pods, and for ovn Open vSwitch (ovsdb-server, ovs-vswitchd) and ovn-controller;
- for ovn, the OVS bridge of network_ovn (network_ovn_bridge) in Open vSwitch's database;
- its Node Ready with its labels (the cluster checks' windows_node_problems).
"""

from __future__ import annotations

import typing as t

from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.plugin_utils import _roles
from ansible_collections.kubewin.node.plugins.plugin_utils._cluster import windows_node_problems

# The role option that names each topology's network besides plan_cluster.network_name, read from the host's
# variables or the role's default.
EXTRA_NETWORK_OPTION = {
    'l2bridge': ('network_l2bridge', 'network_l2bridge_placeholder_name'),
    'overlay': ('network_overlay', 'network_overlay_placeholder_name'),
    'ovn': ('network_ovn', 'network_ovn_network_name'),
}
OVN_SERVICES = ('ovsdb-server', 'ovs-vswitchd', 'ovn-controller')
OVN_BRIDGE_OPTION = 'network_ovn_bridge'
# Services a node may have or not (the runtime's policy decides), which must run when it has them.
RUN_WHEN_PRESENT = ('cri-dockerd',)


def expected_networks(host_vars: t.Mapping[str, t.Any]) -> list[str]:
    cluster = host_vars['plan_cluster']
    role, option = EXTRA_NETWORK_OPTION[cluster['topology']]
    names = [host_vars.get(option, _roles.role_defaults(role).get(option))]
    if cluster.get('network_name'):
        names.append(cluster['network_name'])
    return [str(name) for name in names if name]


def expected_services(host_vars: t.Mapping[str, t.Any]) -> list[str]:
    cluster, node = host_vars['plan_cluster'], host_vars['plan_node']
    services = [node['container_runtime'], 'kubelet']
    if cluster['topology'] == 'ovn':
        services += list(OVN_SERVICES)
    elif host_vars.get('plan_kube_proxy_mode', 'service') == 'service':
        # With kubewin_kube_proxy_mode daemonset kube-proxy is a pod of the DaemonSet, not a service of the node.
        services.append('kube-proxy')
    if cluster.get('l2bridge_routing') == 'flannel':
        services.append('flanneld')
    return services


def node_health_problems(snapshot: t.Any, nodes: t.Any, host: str, hostvars: t.Mapping[str, t.Any]) -> list[str]:
    """What is wrong with ``host``'s networking: a list of sentences, empty when it works.

    ``snapshot`` is the host's node snapshot (kubewin_node) with its hns and services sections, ``nodes`` the
    Node objects read from the cluster (the host's among them), ``hostvars`` Ansible's (plan_cluster and
    plan_node of the host, as the plan role hands them out).
    """
    host_vars = hostvars.get(host) if isinstance(hostvars, t.Mapping) else None
    if not isinstance(host_vars, t.Mapping) or 'plan_cluster' not in host_vars or 'plan_node' not in host_vars:
        raise AnsibleFilterError(f"node_health_problems: {host} has no plan_cluster and plan_node (the plan role hands "
                                 "them out in the playbook's first play)")
    if not isinstance(snapshot, t.Mapping) or 'hns' not in snapshot or 'services' not in snapshot:
        raise AnsibleFilterError('node_health_problems needs the node snapshot (kubewin.node.node_info) with its hns '
                                 'and services sections')
    problems = []
    present = {str(network['name']).lower() for network in snapshot['hns']['networks']}
    for name in expected_networks(host_vars):
        if name.lower() not in present:
            problems.append(f"the HNS network {name} is missing")
    services = snapshot['services']
    wanted = expected_services(host_vars) + [name for name in RUN_WHEN_PRESENT if (services.get(name) or {}).get('exists')]
    for name in wanted:
        service = services.get(name) or {}
        if not service.get('exists'):
            problems.append(f"the service {name} is not installed")
        elif service.get('state') != 'running':
            problems.append(f"the service {name} is {service.get('state')}")
    if host_vars['plan_cluster']['topology'] == 'ovn':
        problems += _ovs_problems(snapshot.get('ovs'), host_vars)
    problems += windows_node_problems(list(nodes or []), [host], hostvars).get(host, [])
    return problems


def _ovs_problems(ovs: t.Any, host_vars: t.Mapping[str, t.Any]) -> list[str]:
    """ovn: the OVS bridge network_ovn made on the vSwitch is in Open vSwitch's database."""
    bridge = str(host_vars.get(OVN_BRIDGE_OPTION, _roles.role_defaults('network_ovn').get(OVN_BRIDGE_OPTION)))
    if not isinstance(ovs, t.Mapping):
        raise AnsibleFilterError('node_health_problems needs the ovs section of the node snapshot on an ovn node')
    if ovs.get('database') is None:
        return [f"the Open vSwitch database cannot be read: {ovs.get('database_error') or 'ovs-vsctl is not installed'}"]
    if bridge not in (ovs['database'].get('bridges') or {}):
        return [f"the Open vSwitch bridge {bridge} is missing"]
    return []
