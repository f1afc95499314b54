# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""From inventory variables to each Windows node's share of the IP plan.

Internal to kubewin.node, not a public API. The public interface is the
filters in plugins/filter/node_plan.py, used by the ``plan`` role that both
``playbooks/plan.yml`` and ``playbooks/site.yml`` run, so the two render the
same configuration by construction.
"""

from __future__ import annotations

import json
import ntpath
import re
import typing as t
from collections.abc import Mapping

from ansible_collections.kubewin.node.plugins.plugin_utils import _ip_plan
from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import IPPlanError

VARIABLE_PREFIX = 'kubewin_'
# Plan keys that describe the cluster: every Windows node must carry the same value.
CLUSTER_KEYS = tuple(key for key in _ip_plan.PLAN_KEYS if key != 'nodes')
DEFAULT_CONTAINER_RUNTIME = 'containerd'
# How kube-proxy runs when kubewin_kube_proxy_mode is unset: daemonset on calico, whose source VIP only the DaemonSet's
# start script can read (_kube_proxy_daemonset.mode_problems says why), service elsewhere.
DEFAULT_KUBE_PROXY_MODE = 'service'
DEFAULT_KUBE_PROXY_MODE_BY_TOPOLOGY = {'calico': 'daemonset'}
# Where things live on a Windows node, shared by the roles. kubeadm and flannel fix some of
# these on Windows (C:\var\lib\kubelet, C:\etc\kubernetes, C:\etc\kube-flannel, C:\run\flannel);
# kubewin_node_paths may move the others.
NODE_PATHS = {
    'kubernetes_dir': 'C:\\k',
    'cni_bin_dir': 'C:\\opt\\cni\\bin',
    'cni_conf_dir': 'C:\\etc\\cni\\net.d',
    'kubelet_dir': 'C:\\var\\lib\\kubelet',
    'kubernetes_config_dir': 'C:\\etc\\kubernetes',
    'flannel_dir': 'C:\\etc\\kube-flannel',
    'flannel_run_dir': 'C:\\run\\flannel',
    'log_dir': 'C:\\var\\log',
    # The container runtime's program folders (the upstream install guides' and sig-windows-tools' defaults); in the
    # layout so that the snapshot lists them (a fresh node's config.toml is known absent without a query).
    'containerd_dir': 'C:\\Program Files\\containerd',
    'docker_dir': 'C:\\Program Files\\docker',
}
# Versions are cluster-wide too; the version policy decides what they may be.
VERSION_VARIABLES = ('kubernetes_version', 'control_plane_version', 'acknowledged_cves', 'calico_version')
# How big the node services' log files grow and how many rotated files each keeps (kubewin_log_*).
# Cluster-wide, so every node's logs are rotated alike; the roles read them as plan_logs.
LOG_DEFAULTS = {'max_size_mb': 100, 'files_kept': 5}
# nssm keeps the rotation size in AppRotateBytes, a REG_DWORD (nssm.cc, "File rotation"), which
# node_service_apply.ps1 writes through the registry provider as an Int32 (RegistryKey.SetValue converts
# a DWord value with Convert.ToInt32): 2047 MiB is the most that holds in whole MiB.
LOG_MAX_SIZE_MB = 2047
LOG_MAX_FILES_KEPT = 1000
# The Node name of a host whose inventory name is not one (kubespray's kube_override_hostname).
NODE_NAME_VARIABLE = 'kubewin_node_name'


def _variable(host_vars: t.Mapping, name: str) -> t.Any:
    value = host_vars.get(name)
    # An inventory variable set to nothing (``kubewin_node_count:``) means "use the default".
    return None if value == '' else value


def _same_everywhere(hostvars: t.Mapping, hosts: t.Sequence[str], key: str) -> t.Any:
    variable = VARIABLE_PREFIX + key
    values = [_variable(hostvars[host], variable) for host in hosts]
    # The usual case (group_vars/all) with one comparison a host; the grouping below names the hosts of a difference.
    if all(value == values[0] and type(value) is type(values[0]) for value in values):
        return values[0]
    seen: dict[str, tuple[t.Any, list[str]]] = {}
    for host in hosts:
        value = _variable(hostvars[host], variable)
        seen.setdefault(json.dumps(value, sort_keys=True, default=str), (value, []))[1].append(host)
    if len(seen) > 1:
        described = '; '.join('%s on %s' % (value if value is not None else 'unset', ', '.join(names[:3])
                                            + (' and %d more' % (len(names) - 3) if len(names) > 3 else ''))
                              for value, names in seen.values())
        raise IPPlanError('%s must be the same on every Windows node, found: %s' % (variable, described))
    return next(iter(seen.values()))[0]


def natural_key(name: str) -> list[t.Any]:
    """Sorts names as people count (win-2 before win-10): digit runs compare as numbers."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r'(\d+)', str(name))]


def node_name(host: str, host_vars: t.Mapping) -> t.Any:
    """The name a Windows host's Node registers as: kubewin_node_name, else the inventory name lower-cased (the kubelet
    lower-cases its --hostname-override). The preflight holds it to the Node name rule (_ip_plan.is_dns_subdomain)."""
    value = _variable(host_vars, NODE_NAME_VARIABLE)
    return str(host).lower() if value is None else value


def _management_ip(host: str, host_vars: t.Mapping) -> t.Any:
    address = _variable(host_vars, 'kubewin_management_ip') or _variable(host_vars, 'ansible_host')
    if not address:
        raise IPPlanError('%s has neither kubewin_management_ip nor ansible_host; set kubewin_management_ip '
                          'to its IPv4 address on the management network' % host)
    return address


def plan_input(hostvars: t.Mapping, hosts: t.Sequence[str]) -> dict[str, t.Any]:
    """Gather the IP plan, the versions and each node's container runtime from the inventory.

    Returns ``{'plan': <input for ip_plan>, 'versions': {kubernetes_version,
    control_plane_version, acknowledged_cves}, 'container_runtimes': {host: runtime}, 'node_names': {host: Node
    name}, ...}``.
    """
    hosts = list(hosts or [])
    if not hosts:
        raise IPPlanError('the inventory has no Windows nodes: put them in the group windows_nodes')
    plan: dict[str, t.Any] = {}
    for key in CLUSTER_KEYS:
        value = _same_everywhere(hostvars, hosts, key)
        if value is not None:
            plan[key] = value
    plan['nodes'] = [{'name': host,
                      'management_ip': _management_ip(host, hostvars[host]),
                      'pod_cidr': _variable(hostvars[host], 'kubewin_pod_cidr')} for host in hosts]
    runtimes = {host: _variable(hostvars[host], 'kubewin_container_runtime') or DEFAULT_CONTAINER_RUNTIME
                for host in hosts}
    versions = {key: _same_everywhere(hostvars, hosts, key) for key in VERSION_VARIABLES}
    cves = versions['acknowledged_cves']
    if cves is not None and (isinstance(cves, (str, bytes)) or not isinstance(cves, (list, tuple))):
        raise IPPlanError('kubewin_acknowledged_cves must be a list of CVE ids such as [CVE-2024-9042], got %r (%s)'
                          % (cves, _ip_plan.kind_of(cves)))
    versions['acknowledged_cves'] = list(cves or [])
    # The version policy holds kubewin_calico_version to the topology, on the controller and on each node.
    versions['topology'] = plan.get('topology')
    # Dual-stack needs a kube-proxy with the winkernel fix and a Windows build with IPv6 (_versions._dual_stack_problems).
    versions['dual_stack'] = _ip_plan.is_dual_stack(plan)
    # How kube-proxy runs (service or daemonset, _kube_proxy_daemonset.MODES): cluster-wide, since one DaemonSet
    # selects every Windows node; preflight checks the value against the topology and the runtimes.
    kube_proxy_mode = _same_everywhere(hostvars, hosts, 'kube_proxy_mode')
    return {'plan': plan, 'versions': versions, 'container_runtimes': runtimes,
            'node_names': {host: node_name(host, hostvars[host]) for host in hosts},
            'kube_proxy_mode': (DEFAULT_KUBE_PROXY_MODE_BY_TOPOLOGY.get(plan.get('topology'), DEFAULT_KUBE_PROXY_MODE)
                                if kube_proxy_mode is None else kube_proxy_mode),
            'paths': node_paths(_same_everywhere(hostvars, hosts, 'node_paths')),
            'logs': node_logs({key: _same_everywhere(hostvars, hosts, 'log_' + key) for key in LOG_DEFAULTS})}


def node_logs(given):
    """The log rotation settings: LOG_DEFAULTS with the inventory's kubewin_log_max_size_mb and kubewin_log_files_kept."""
    limits = {'max_size_mb': (1, LOG_MAX_SIZE_MB), 'files_kept': (1, LOG_MAX_FILES_KEPT)}
    logs = {}
    for key, default in LOG_DEFAULTS.items():
        value = default if given.get(key) is None else given[key]
        low, high = limits[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise IPPlanError('kubewin_log_%s must be a whole number from %d to %d, got %r (%s)'
                              % (key, low, high, value, _ip_plan.kind_of(value)))
        logs[key] = value
    return logs


def node_paths(overrides):
    """The node layout: NODE_PATHS with the inventory's kubewin_node_paths applied."""
    overrides = overrides or {}
    if not isinstance(overrides, Mapping):
        raise IPPlanError("kubewin_node_paths must be a dictionary of folders such as {kubernetes_dir: 'D:\\k'}, got %r (%s)"
                          % (overrides, _ip_plan.kind_of(overrides)))
    unknown = sorted(set(overrides) - set(NODE_PATHS))
    if unknown:
        raise IPPlanError('kubewin_node_paths has unknown keys %s; known: %s' % (unknown, ', '.join(sorted(NODE_PATHS))))
    bad = sorted(key for key, value in overrides.items()
                 if not isinstance(value, str) or not (len(value) > 2 and value[1] == ':' and value[2] == '\\'))
    if bad:
        raise IPPlanError('kubewin_node_paths: %s must be absolute Windows paths such as C:\\k' % ', '.join(bad))
    paths = dict(NODE_PATHS, **overrides)
    # containerd and the kubelet load the first config file of the directory by name.
    paths['cni_config_file'] = ntpath.join(paths['cni_conf_dir'], '10-kubewin.conf')
    # calico: where the Tigera operator's calico-node-windows writes Calico's CNI config (CNI_CONF_NAME in
    # tigera/operator pkg/render/windows.go), in windowsNodes.cniConfigDir, the folder containerd reads; the doctor
    # checks it and the reset removes it.
    paths['calico_cni_config_file'] = ntpath.join(paths['cni_conf_dir'], '10-calico.conflist')
    return paths


def as_file_text(document: t.Any) -> str:
    """The one way a JSON configuration file's text is made (UTF-8, no BOM, trailing newline)."""
    return json.dumps(document, indent=2) + '\n'


def node_network(plan: t.Any, container_runtimes: t.Mapping[str, str],
                 node_names: t.Mapping[str, str] | None = None) -> dict[str, dict[str, t.Any]]:
    """Each node's network configuration, keyed by inventory name.

    For every node: node_name (its Node's name, from ``node_names`` as plan_input gives them), management_ip and
    pod_cidr (IPv4), node_ip (the kubelet's --node-ip: both families on a dual-stack node), ipv6 (None, or the node's
    IPv6 management_ip, pod_cidr and pod_gateways), container_runtime, cni_config (None for
    calico, whose CNI config the Tigera operator writes),
    pod_gateways (when the node's pod CIDR is known), flannel_net_conf (flannel
    topologies), static_routes (l2bridge with static routes) and exception_list
    (topologies with OutBoundNAT); the files the node gets, as the exact text
    written (``cni_config_text``, ``flannel_net_conf_text``), so the plan that
    ``plan.yml`` renders and what ``site.yml`` writes cannot differ.
    """
    normalized = _ip_plan.normalize_plan(plan)
    topology = normalized['topology']
    flannel = normalized['l2bridge_routing'] == 'flannel'
    net_conf = _ip_plan.flannel_net_conf(normalized) if flannel else None
    net_conf_text = as_file_text(net_conf) if flannel else None
    exceptions = _ip_plan.exception_list(normalized) if topology != 'ovn' else None
    routes = (_ip_plan.static_routes(normalized) if normalized['l2bridge_routing'] == 'static_routes'
              else None)
    result = {}
    # In natural order of their names, which the summary and the picture show.
    for node in sorted(normalized['nodes'], key=lambda node: natural_key(node['name'])):
        name = node['name']
        management_ip, management_ip6 = _ip_plan.split_families(node['management_ip'])
        pod_cidr, pod_cidr6 = _ip_plan.split_families(node['pod_cidr'])
        runtime = container_runtimes.get(name, DEFAULT_CONTAINER_RUNTIME)
        # The operator's calico-node-windows writes Calico's CNI config, so the plan has none to hand over.
        cni = (None if topology == 'calico'
               else _ip_plan.cni_config(normalized, topology, runtime, node['management_ip'], node['pod_cidr']))
        result[name] = {
            'node_name': (node_names or {}).get(name) or node_name(name, {}),
            'management_ip': management_ip,
            # The kubelet's --node-ip: both addresses on a dual-stack node (kubernetes/website dual-stack.md).
            'node_ip': node['management_ip'],
            'pod_cidr': pod_cidr,
            'container_runtime': runtime,
            'cni_config': cni,
            'cni_config_text': None if cni is None else as_file_text(cni),
            'pod_gateways': _ip_plan.pod_gateways(pod_cidr) if pod_cidr else None,
            # A dual-stack node's IPv6 side: its address, pod subnet and that subnet's gateways; None on IPv4 plans.
            'ipv6': None if management_ip6 is None else {
                'management_ip': management_ip6, 'pod_cidr': pod_cidr6,
                'pod_gateways': _ip_plan.pod_gateways(pod_cidr6) if pod_cidr6 else None},
            'flannel_net_conf': net_conf,
            'flannel_net_conf_text': net_conf_text,
            'static_routes': routes[name] if routes is not None else None,
            'exception_list': exceptions,
        }
    return result


# The one check that a variable is alike on every Windows node, for the other settings that are cluster-wide
# (_preflight: gMSA and csi-proxy).
same_everywhere = _same_everywhere
