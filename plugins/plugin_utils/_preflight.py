# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one check of an inventory before any host is contacted, shared by plan.yml, site.yml and reset.yml.

Internal to kubewin.node, not a public API. The public interface is the ``kubewin.node.preflight``
filter, which the ``plan`` role runs first.

It collects every problem instead of stopping at the first, so an operator fixes an inventory in
one round: the groups the playbook reads, every ``kubewin_*`` and role variable name (an unknown one
is a typo the playbook would silently ignore), the IP plan, the WinRM transport, the version policy
and every artifact the fleet will install, resolved with its checksum for each node's topology and
runtime. Each problem is one line that names the inventory variable, its value and the fix; the
rules themselves stay where they are (_ip_plan, _versions, _transport, _artifact_catalog), this
module only gathers their verdicts and names the variables.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import typing as t
from collections.abc import Mapping

from ansible.errors import AnsibleError
from ansible_collections.kubewin.node.plugins.plugin_utils import (
    _artifact_catalog,
    _artifacts,
    _cluster_api,
    _csi_proxy,
    _defender,
    _flags,
    _gmsa,
    _host_settings,
    _ip_plan,
    _kube_proxy_daemonset,
    _monitoring,
    _node_plan,
    _port_ranges,
    _roles,
    _transport,
    _versions,
)

PREFIX = _node_plan.VARIABLE_PREFIX
WINDOWS_GROUP = 'windows_nodes'
CONTROL_PLANE_GROUP = _cluster_api.CONTROL_PLANE_GROUP

# ---------------------------------------------------------------------------------------------
# The inventory variables kubewin.node reads: the one list, which the inventory guide and the
# README document (tests/unit/test_docs.py holds them to it).
# ---------------------------------------------------------------------------------------------

# Set per Windows node.
NODE_VARIABLES = ('kubewin_management_ip', 'kubewin_pod_cidr', 'kubewin_container_runtime',
                  _node_plan.NODE_NAME_VARIABLE, _transport.ALLOW_VARIABLE)
# The same on every Windows node: the IP plan (minus its node list, which comes from the hosts),
# the versions and the node layout.
CLUSTER_VARIABLES = tuple(PREFIX + key for key in _node_plan.CLUSTER_KEYS + _node_plan.VERSION_VARIABLES) + (
    'kubewin_node_paths', _kube_proxy_daemonset.VARIABLE) + tuple(PREFIX + 'log_' + key for key in _node_plan.LOG_DEFAULTS) + (
    _gmsa.VARIABLES + (_csi_proxy.VARIABLE, _port_ranges.VARIABLE, 'kubewin_patch_managed'))
# Read by the playbooks themselves (or by this check).
PLAYBOOK_VARIABLES = ('kubewin_plan_dir', 'kubewin_plan_strict', 'kubewin_report_dir', 'kubewin_serial',
                      'kubewin_max_fail_percentage',
                      'kubewin_early_end', 'kubewin_unchecked_variables', _cluster_api.KUBECONFIG_VARIABLE)
INVENTORY_VARIABLES = NODE_VARIABLES + CLUSTER_VARIABLES + PLAYBOOK_VARIABLES
# Not the inventory's: the simulated test bed's host settings (docs/docsite/rst/testing.rst), and the facts
# the modules set (the node state snapshot, what they did in the run), which a persistent fact cache keeps.
OTHER_KNOWN_VARIABLES = ('kubewin_sim', 'kubewin_sim_cluster', 'kubewin_node', 'kubewin_activity')
UNCHECKED_VARIABLE = 'kubewin_unchecked_variables'
# network_ovn's default for it is the first kube_control_plane host (roles/network_ovn/defaults/main.yml).
OVN_CENTRAL_VARIABLE = 'network_ovn_central_address'

# What each playbook needs of the inventory, and which roles' variables it reads.
SITE_ROLES = ('plan', 'prerequisites', 'control_plane', 'upgrade', 'container_runtime', 'kubernetes_binaries',
              'kubelet', 'join', 'network_l2bridge', 'network_overlay', 'network_ovn', 'flannel', 'artifacts',
              'kube_proxy', 'log_rotation', 'verify', 'gmsa', 'csi_proxy', 'monitoring')
# What each check needs of the inventory and whose variables it reads. plan.yml checks for site:
# it shows what site.yml would configure, so it refuses what site.yml would refuse. plan is the plan
# role on its own (included by another playbook): the IP plan, the transport, the versions when given.
# cluster_api: the playbook talks to the Kubernetes API where kubewin.node.cluster_api says (kubewin_cluster_kubeconfig
# is checked).
PLAYBOOKS = {
    'site': {'groups': (WINDOWS_GROUP, CONTROL_PLANE_GROUP), 'roles': SITE_ROLES, 'version_required': True,
             'artifacts': True, 'cluster_api': True},
    # A reset installs nothing and runs whatever versions the nodes have.
    'reset': {'groups': (WINDOWS_GROUP,), 'roles': ('plan', 'reset'), 'version_required': False, 'artifacts': False,
              'cluster_api': True},
    'plan': {'groups': (WINDOWS_GROUP,), 'roles': ('plan',), 'version_required': False, 'artifacts': False,
             'cluster_api': False},
    # The doctor reads the nodes and the cluster; its repairs install nothing.
    'doctor': {'groups': (WINDOWS_GROUP,), 'roles': ('plan',), 'version_required': False, 'artifacts': False,
               'cluster_api': True},
    # A patch window installs Windows updates only, and checks the nodes with the verify role's node_health.
    'patch': {'groups': (WINDOWS_GROUP,), 'roles': ('plan', 'patch', 'verify'), 'version_required': False,
              'artifacts': False, 'cluster_api': True},
}
GROUP_PURPOSE = {
    WINDOWS_GROUP: 'the Windows workers',
    CONTROL_PLANE_GROUP: ('the Linux control-plane hosts; site.yml runs the control_plane and verify roles on the '
                          'first one'),
}

# ---------------------------------------------------------------------------------------------
# What a node installs, per role: (role, component, the variable that holds its version, when).
# The roles build the same lists in their tasks (tests/unit/plugins/plugin_utils/test_preflight.py
# reads them and fails when the two differ). The Kubernetes binaries are the components listed in
# kubernetes_binaries_components, at kubewin_kubernetes_version.
# ---------------------------------------------------------------------------------------------

INSTALLS = (
    ('container_runtime', 'containerd', 'container_runtime_containerd_version', 'containerd'),
    ('container_runtime', 'crictl', 'container_runtime_crictl_version', 'always'),
    ('container_runtime', 'docker', 'container_runtime_docker_version', 'docker'),
    ('container_runtime', 'cri-dockerd', 'container_runtime_cri_dockerd_version', 'cri_dockerd'),
    ('container_runtime', 'nssm', 'container_runtime_nssm_version', 'cri_dockerd'),
    ('flannel', 'flanneld', 'flannel_version', 'flannel'),
    ('flannel', 'nssm', 'flannel_nssm_version', 'flannel'),
    ('flannel', 'flannel-cni', 'flannel_cni_version', 'flannel'),
    ('flannel', 'cni-plugins', 'flannel_cni_plugins_version', 'flannel'),
    ('flannel', 'sdn-cni', 'flannel_sdn_cni_version', 'flannel_containerd'),
    ('network_l2bridge', 'cni-plugins', 'network_l2bridge_cni_plugins_version', 'l2bridge_without_flannel'),
    ('network_l2bridge', 'sdn-cni', 'network_l2bridge_sdn_cni_version', 'l2bridge_without_flannel_containerd'),
    ('network_ovn', 'openvswitch', 'network_ovn_openvswitch_version', 'ovn'),
    ('csi_proxy', _csi_proxy.COMPONENT, _csi_proxy.VERSION_VARIABLE, 'csi_proxy_service'),
    ('monitoring', _monitoring.COMPONENT, _monitoring.VERSION_VARIABLE, 'windows_exporter'),
)
BINARIES_ROLE = 'kubernetes_binaries'
BINARIES_VARIABLE = 'kubernetes_binaries_components'
VERSION_VARIABLE = 'kubewin_kubernetes_version'
CONDITIONS = {
    'always': lambda node: True,
    'containerd': lambda node: node['runtime'] == 'containerd',
    'docker': lambda node: node['runtime'] == 'docker',
    'cri_dockerd': lambda node: node['runtime'] == 'docker' and node['needs_cri_dockerd'],
    'flannel': lambda node: node['routing'] == 'flannel',
    'flannel_containerd': lambda node: node['routing'] == 'flannel' and node['runtime'] == 'containerd',
    'l2bridge_without_flannel': lambda node: node['topology'] == 'l2bridge' and node['routing'] != 'flannel',
    'l2bridge_without_flannel_containerd': lambda node: (node['topology'] == 'l2bridge' and node['routing'] != 'flannel'
                                                         and node['runtime'] == 'containerd'),
    'ovn': lambda node: node['topology'] == 'ovn',
    'csi_proxy_service': lambda node: node.get('csi_proxy') == 'service',
    'windows_exporter': lambda node: bool(node.get('windows_exporter')),
}
ARTIFACT_ROLE_VARIABLES = ('artifacts_base_urls', 'artifacts_checksum_overrides')

# The names the rules' messages use for what the inventory calls otherwise.
_MESSAGE_NAMES = dict(
    {key: PREFIX + key for key in _ip_plan.PLAN_KEYS if key != 'nodes'},
    **{key: PREFIX + key for key in _node_plan.VERSION_VARIABLES},
    management_ip='kubewin_management_ip', pod_cidr='kubewin_pod_cidr', container_runtime='kubewin_container_runtime',
    cri_dockerd_version='container_runtime_cri_dockerd_version', pause_image='container_runtime_pause_image',
)
_MESSAGE_NAME_RE = re.compile(r'(?<![\w.\-])(%s)(?![\w\-])' % '|'.join(sorted(_MESSAGE_NAMES, key=len, reverse=True)))
# The IP plan labels a node nodes[<index>] (<name>); the inventory knows it by its name.
_NODE_LABEL_RE = re.compile(r'nodes\[\d+\] \(([^)]*)\) ')


def inventory_names(message: str) -> str:
    """A rule's message with the inventory's variable names (cluster_cidr -> kubewin_cluster_cidr)."""
    message = _NODE_LABEL_RE.sub(r'\1: ', message)
    message = re.sub(r'^nodes: ', '', message)
    return _MESSAGE_NAME_RE.sub(lambda match: _MESSAGE_NAMES[match.group(1)], message)


def plain(value: t.Any) -> t.Any:
    """Ansible's lazy containers and tagged scalars as plain Python values."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)) or (not isinstance(value, (str, bytes)) and hasattr(value, '__iter__')):
        return [plain(item) for item in value]
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def _short(value: t.Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + '...'


def _hosts_text(hosts: t.Sequence[str], total: int | None = None, what: str = 'hosts') -> str:
    if total is not None and len(hosts) == total and total > 1:
        return 'all %d %s' % (total, what)
    shown = ', '.join(hosts[:3])
    return shown + (' and %d more' % (len(hosts) - 3) if len(hosts) > 3 else '')


class _Problems:
    """Problems in the order found, each once."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, line: str) -> None:
        line = ' '.join(str(line).split())
        if line not in self.lines:
            self.lines.append(line)

    def extend(self, lines: t.Iterable[str]) -> None:
        for line in lines:
            self.add(line)


def _on_nodes(refused: Mapping[str, t.Sequence[str]], nodes: t.Sequence[str]) -> list[str]:
    """Each problem line with the Windows nodes it was found on: '<line> (on <hosts>)'."""
    return ['%s (on %s)' % (line, _hosts_text(hosts, len(nodes), 'Windows nodes')) for line, hosts in refused.items()]


# ---------------------------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------------------------


def _check_groups(groups: Mapping, spec: Mapping, problems: _Problems, controller_kubeconfig: t.Any = None) -> None:
    for group in spec['groups']:
        if list(groups.get(group) or []):
            continue
        if group == CONTROL_PLANE_GROUP:
            # The cluster-side steps run on localhost instead when the controller has a kubeconfig.
            if controller_kubeconfig is None:
                problems.add('the inventory has no hosts in the group %s (%s) and %s is not set: add it, with its hosts, '
                             'or set %s (in group_vars/all or as an extra var) to a kubeconfig on the controller, with '
                             'which the cluster-side steps run on localhost'
                             % (group, GROUP_PURPOSE[group], _cluster_api.KUBECONFIG_VARIABLE, _cluster_api.KUBECONFIG_VARIABLE))
            continue
        problems.add('the inventory has no hosts in the group %s (%s): add it, with its hosts'
                     % (group, GROUP_PURPOSE[group]))
    both = sorted(set(groups.get(WINDOWS_GROUP) or []) & set(groups.get(CONTROL_PLANE_GROUP) or []))
    if both:
        problems.add('%s: in both %s and %s; the control plane runs on Linux hosts, the Windows nodes join it: '
                     'keep each host in one of them' % (', '.join(both), WINDOWS_GROUP, CONTROL_PLANE_GROUP))


class _EachHostOnce(Mapping):
    """hostvars with each host's variables computed once. In ansible-core 2.19 every ``hostvars[host]`` is a whole pass
    of the variable manager (inventory, group_vars, host_vars, vars plugins: about 0.7 ms a host), and the checks
    below read a host up to three times; on 1,000 nodes that was two of plan.yml's seconds."""

    def __init__(self, hostvars: Mapping) -> None:
        self._hostvars = hostvars
        self._read: dict[str, t.Any] = {}

    def __getitem__(self, host: str) -> t.Any:
        if host not in self._read:
            self._read[host] = self._hostvars[host]
        return self._read[host]

    def __contains__(self, host: object) -> bool:
        return host in self._hostvars

    def __iter__(self) -> t.Iterator[str]:
        return iter(self._hostvars)

    def __len__(self) -> int:
        return len(self._hostvars)


def _check_stray_hosts(hostvars: Mapping, groups: Mapping, unchecked: t.Collection[str], problems: _Problems,
                       warnings: list[str]) -> None:
    """Hosts no play reads that look meant for one: in a group whose name is close to one the playbooks read (a
    mistyped ``windows_node:`` drops its hosts silently), or carrying a per-node kubewin variable. A variable listed in
    kubewin_unchecked_variables makes its line a warning."""
    read = set(groups.get(WINDOWS_GROUP) or []) | set(groups.get(CONTROL_PLANE_GROUP) or []) | {'localhost'}
    known = (WINDOWS_GROUP, CONTROL_PLANE_GROUP)
    for group, members in sorted(groups.items()):
        if group in known or group in ('all', 'ungrouped'):
            continue
        close = difflib.get_close_matches(group, known, n=1, cutoff=0.75)
        stray = [host for host in members or [] if host not in read]
        if close and stray:
            problems.add('%s: the group %s, which no play reads, holds %s: did you mean %s?'
                         % (group, group, _hosts_text(stray), close[0]))
    for host in groups.get('all') or list(hostvars):
        if host in read:
            continue
        names = [name for name in NODE_VARIABLES if name in (hostvars.get(host) or {})]
        for name in names:
            line = ('%s: set on %s, which is in no group a play reads (%s, %s): add the host to %s, or remove the '
                    'variable' % (name, host, WINDOWS_GROUP, CONTROL_PLANE_GROUP, WINDOWS_GROUP))
            if name in unchecked:
                warnings.append(line)
            else:
                problems.add(line)


def _check_cluster_kubeconfig(hostvars: Mapping, nodes: t.Sequence[str], problems: _Problems) -> t.Any:
    """kubewin_cluster_kubeconfig as the controller sees it, after checking it names a file there; None when unset."""
    name = _cluster_api.KUBECONFIG_VARIABLE
    try:
        value = _cluster_api.controller_kubeconfig(hostvars)
    except AnsibleError as error:  # a value that cannot be templated
        problems.add('%s: %s' % (name, str(error).splitlines()[0]))
        return None
    if value is None:
        # Set only in a group localhost is not in (windows_nodes): the cluster-side steps, on localhost, would not see it.
        on_nodes = [host for host in nodes if (hostvars.get(host) or {}).get(name) not in (None, '')]
        if on_nodes:
            problems.add('%s is set on %s but not for localhost, where the cluster-side steps read it: set it in '
                         'group_vars/all or as an extra var' % (name, _hosts_text(on_nodes, len(nodes), 'Windows nodes')))
        return None
    value = plain(value)
    if not isinstance(value, str):
        problems.add('%s: %s must be the path of a kubeconfig file on the controller' % (name, _short(value)))
    elif not os.path.isfile(os.path.expanduser(value)):
        problems.add('%s: %s does not exist on the controller (the cluster-side steps run on localhost with it): '
                     'give the path of a kubeconfig there (in AWX, a credential whose injector writes it)' % (name, json.dumps(value)))
    return value


def _check_ovn_central(cluster: Mapping | None, variables: Mapping, nodes: t.Sequence[str], problems: _Problems) -> None:
    """ovn without kube_control_plane hosts (the kubeconfig way, or an AWX job slice): the default OVN central
    address, the first of them, is not there."""
    if not cluster or cluster.get('topology') != 'ovn':
        return
    missing = [host for host in nodes if not variables.get(host, {}).get(OVN_CENTRAL_VARIABLE)]
    if missing:
        problems.add('%s is not set on %s, and there is no %s host to take it from: set it to the address of the OVN '
                     'central node (its northbound and southbound databases)'
                     % (OVN_CENTRAL_VARIABLE, _hosts_text(missing, len(nodes), 'Windows nodes'), CONTROL_PLANE_GROUP))


def _role_of(name: str, roles: t.Sequence[str]) -> str | None:
    owners = [role for role in roles if name.startswith(role + '_')]
    return max(owners, key=len) if owners else None


def _read_variables(hostvars: Mapping, hosts: t.Sequence[str], roles: t.Sequence[str],
                    problems: _Problems) -> dict[str, dict[str, t.Any]]:
    """Each host's kubewin_* and role variables, templated and plain; a value that cannot be templated is a problem."""
    prefixes = (PREFIX,) + tuple(role + '_' for role in roles)
    read: dict[str, dict[str, t.Any]] = {}
    for host in hosts:
        host_vars = hostvars[host]
        values = read[host] = {}
        for name in list(host_vars.keys()):
            if not (name.startswith(prefixes) or name == 'ansible_host'):
                continue
            try:
                values[name] = plain(host_vars[name])
            except AnsibleError as error:
                problems.add('%s: %s cannot be read: %s' % (host, name, str(error).splitlines()[0]))
    return read


def _unchecked(variables: Mapping[str, Mapping[str, t.Any]]) -> set[str]:
    """The names kubewin_unchecked_variables lists, on any host."""
    unchecked: set[str] = set()
    for values in variables.values():
        listed = values.get(UNCHECKED_VARIABLE) or []
        unchecked.update(str(item) for item in (listed if isinstance(listed, list) else [listed]))
    return unchecked


def _check_names(variables: Mapping[str, Mapping[str, t.Any]], roles: t.Sequence[str], problems: _Problems) -> bool:
    known_kubewin = set(INVENTORY_VARIABLES + OTHER_KNOWN_VARIABLES)
    options = {role: _roles.role_options(role) for role in roles}
    candidates = sorted(known_kubewin.union(*options.values()))
    unchecked = _unchecked(variables)
    # One line per unknown name and value, naming the hosts that have it (group_vars/all gives it to every host).
    unknown: dict[tuple[str, str], list[str]] = {}
    for host, values in variables.items():
        for name, value in values.items():
            if name in unchecked or name == 'ansible_host':
                continue
            role = None if name.startswith(PREFIX) else _role_of(name, roles)
            if (role is None and name in known_kubewin) or (role is not None and name in options[role]):
                continue
            unknown.setdefault((name, _short(value)), []).append(host)
    for (name, value), hosts in unknown.items():
        close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
        owner = 'a kubewin.node inventory variable' if name.startswith(PREFIX) else (
            'an option of the role kubewin.node.%s' % _role_of(name, roles))
        fix = ('did you mean %s?' % close[0]) if close else (
            'see the inventory guide' if name.startswith(PREFIX) else
            'ansible-doc -t role kubewin.node.%s lists them' % _role_of(name, roles))
        problems.add('%s: %s (on %s) is not %s; %s' % (name, value, _hosts_text(hosts, len(variables)), owner, fix))
    return bool(unknown)


def _check_runtimes(runtimes: Mapping[str, t.Any], problems: _Problems) -> bool:
    bad: dict[str, list[str]] = {}
    for host, runtime in runtimes.items():
        if runtime not in _ip_plan.CONTAINER_RUNTIMES:
            bad.setdefault(_short(runtime), []).append(host)
    for value, hosts in bad.items():
        problems.add('kubewin_container_runtime: %s (on %s) must be one of %s'
                     % (value, _hosts_text(hosts), ', '.join(_ip_plan.CONTAINER_RUNTIMES)))
    return not bad


def _check_node_names(node_names: Mapping[str, t.Any], problems: _Problems) -> None:
    """Each Windows node's Node name: a DNS-1123 subdomain, as the API server requires (kubelet registration fails
    otherwise, after the node was changed), and no two hosts with one name (the second would take over the first's Node)."""
    variable = _node_plan.NODE_NAME_VARIABLE
    holders: dict[str, list[str]] = {}
    for host, name in node_names.items():
        given = name != _node_plan.node_name(host, {})
        if not _ip_plan.is_dns_subdomain(name):
            where = '%s %s' % (variable, _short(name)) if given else 'the inventory name, lower-cased: %s' % json.dumps(name)
            suggestion = re.sub(r'[^a-z0-9.-]+', '-', str(name).lower()).strip('-.')[:253] or 'win-1'
            problems.add('%s: its Node name (%s) is not a DNS-1123 subdomain (lower-case letters, digits, \'-\' and \'.\', '
                         'a letter or digit at each end, at most 253 characters), which Kubernetes requires of a Node: '
                         'set %s: %s on the host, or rename it' % (host, where, variable, suggestion))
            continue
        holders.setdefault(name, []).append(host)
    for name, hosts in holders.items():
        if len(hosts) > 1:
            problems.add('%s: all register as Node %s (%s, else the inventory name lower-cased): give each its own '
                         'name' % (', '.join(hosts), name, variable))


def _check_plan(variables: Mapping, nodes: t.Sequence[str], problems: _Problems) -> dict[str, t.Any]:
    found: dict[str, t.Any] = {}
    try:
        found['inventory'] = _node_plan.plan_input(variables, nodes)
    except _ip_plan.IPPlanError as error:
        problems.add(inventory_names(str(error)))
        return found
    inventory = found['inventory']
    _check_node_names(inventory['node_names'], problems)
    if not _check_runtimes(inventory['container_runtimes'], problems):
        return found
    try:
        found['cluster'] = _ip_plan.normalize_plan(inventory['plan'])
        found['nodes'] = _node_plan.node_network(inventory['plan'], inventory['container_runtimes'],
                                                 inventory['node_names'])
    except _ip_plan.IPPlanError as error:
        problems.add(inventory_names(str(error)))
    return found


def _check_kube_proxy_mode(inventory: Mapping, nodes: t.Sequence[str],
                           role_value_of: t.Callable[[str], t.Callable[[str, str], t.Any]], problems: _Problems) -> None:
    """kubewin_kube_proxy_mode against the topology and each node's container runtime (HostProcess needs containerd 1.6+)."""
    runtimes = inventory['container_runtimes']
    containerd = {host: role_value_of(host)('container_runtime', 'container_runtime_containerd_version') for host in nodes}
    for line in _kube_proxy_daemonset.mode_problems(inventory['kube_proxy_mode'], inventory['plan'].get('topology'),
                                                    runtimes, containerd):
        problems.add(line)


def _cluster_wide(hostvars: Mapping, nodes: t.Sequence[str], name: str, default: t.Any, problems: _Problems) -> t.Any:
    """A variable every Windows node must have alike (one DaemonSet, one set of credential specs serve them all)."""
    try:
        value = _node_plan.same_everywhere(hostvars, nodes, name[len(PREFIX):])
    except _ip_plan.IPPlanError as error:
        problems.add(str(error))
        return default
    return default if value is None else value


def _check_features(variables: Mapping, nodes: t.Sequence[str], inventory: Mapping,
                    role_value_of: t.Callable[[str], t.Callable[[str, str], t.Any]], problems: _Problems) -> dict[str, t.Any]:
    """gMSA (_gmsa) and csi-proxy (_csi_proxy) against the fleet's runtimes, and whether patch.yml owns the updates;
    what the roles read of them."""
    runtimes = inventory['container_runtimes']
    gmsa = [_cluster_wide(variables, nodes, name, default, problems)
            for name, default in ((_gmsa.VARIABLE, False), (_gmsa.PLUGIN_VARIABLE, {}), (_gmsa.SPECS_VARIABLE, []))]
    for line in _gmsa.problems(gmsa[0], gmsa[1], gmsa[2], runtimes):
        problems.add(line)
    csi_proxy = _cluster_wide(variables, nodes, _csi_proxy.VARIABLE, _csi_proxy.DEFAULT_MODE, problems)
    containerd = {host: role_value_of(host)('container_runtime', 'container_runtime_containerd_version') for host in nodes}
    for line in _csi_proxy.mode_problems(csi_proxy, runtimes, containerd):
        problems.add(line)
    # The NodePort range kube-apiserver allocates from, and each node's guard of it (_port_ranges).
    node_port_range = _cluster_wide(variables, nodes, _port_ranges.VARIABLE, _port_ranges.DEFAULT_RANGE, problems)
    guards = {host: plain(role_value_of(host)('prerequisites', _port_ranges.GUARD_OPTION)) for host in nodes}
    for line in _port_ranges.problems(node_port_range, guards):
        problems.add(line)
    # patch.yml owns the nodes' Windows updates: the prerequisites role turns Windows Update's own installs off.
    patch_managed = _cluster_wide(variables, nodes, 'kubewin_patch_managed', False, problems)
    if not isinstance(patch_managed, bool):
        problems.add('kubewin_patch_managed is %r: it must be true (patch.yml installs the updates, Windows Update '
                     'installs none by itself) or false' % (patch_managed,))
    return {'node_port_range': node_port_range if isinstance(node_port_range, str) else _port_ranges.DEFAULT_RANGE,
            'gmsa': _gmsa.settings(gmsa[0] is True, gmsa[1] if isinstance(gmsa[1], Mapping) else {},
                                   gmsa[2] if isinstance(gmsa[2], list) else []),
            'csi_proxy': csi_proxy if csi_proxy in _csi_proxy.MODES else _csi_proxy.DEFAULT_MODE,
            'patch_managed': patch_managed is True}


def _check_commit_limit_options(nodes: t.Sequence[str], role_value_of: t.Callable[[str], t.Callable[[str, str], t.Any]],
                                problems: _Problems) -> None:
    """The prerequisites role's commit limit check (_host_settings): its mode, a per-pod figure in MiB, and the fixed
    page file size."""
    refused: dict[str, list[str]] = {}
    for host in nodes:
        value = role_value_of(host)
        mode = plain(value('prerequisites', 'prerequisites_commit_limit_check'))
        if mode not in _host_settings.COMMIT_LIMIT_CHECKS:
            # YAML 1.1 reads an unquoted off as false.
            hint = ': quote it, "off", which YAML reads as false unquoted' if mode is False else ''
            refused.setdefault('prerequisites_commit_limit_check must be one of %s, got %r%s'
                               % (', '.join(_host_settings.COMMIT_LIMIT_CHECKS), mode, hint), []).append(host)
        pod_mb = plain(value('prerequisites', 'prerequisites_commit_limit_pod_mb'))
        if isinstance(pod_mb, bool) or not isinstance(pod_mb, int) or pod_mb < 0:
            refused.setdefault('prerequisites_commit_limit_pod_mb must be a whole number of MiB, 0 or more, got %r'
                               % (pod_mb,), []).append(host)
        # The fixed page file the commit limit may need (prerequisites_page_file).
        page_file = _host_settings.page_file_problem(plain(value('prerequisites', _host_settings.PAGE_FILE_OPTION)))
        if page_file:
            refused.setdefault(page_file, []).append(host)
    problems.extend(_on_nodes(refused, nodes))


def _check_kubelet_dropin(nodes: t.Sequence[str], kubernetes_version: t.Any,
                          role_value_of: t.Callable[[str], t.Callable[[str, str], t.Any]], problems: _Problems) -> None:
    """The kubelet role's settings of its drop-in file (graceful shutdown, node log query) against the release and the
    kubelet's service manager, as kubelet_args will take them on each node (_flags.dropin_fields)."""
    refused: dict[str, list[str]] = {}
    for host in nodes:
        value = role_value_of(host)
        settings = {name: plain(value('kubelet', 'kubelet_' + name))
                    for name in ('shutdown_grace_period', 'shutdown_grace_period_critical_pods', 'node_log_query')}
        try:
            version = _versions.parse_version(kubernetes_version, VERSION_VARIABLE)
            _flags.dropin_fields(settings, version, plain(value('kubelet', 'kubelet_service_manager')) != 'nssm',
                                 prefix='kubelet_')
        except AnsibleError as error:
            refused.setdefault(str(error).splitlines()[0], []).append(host)
    problems.extend(_on_nodes(refused, nodes))


def _check_defender(nodes: t.Sequence[str], role_value_of: t.Callable[[str], t.Callable[[str, str], t.Any]],
                    problems: _Problems) -> None:
    """prerequisites_defender_exclusions is a boolean on every node (_defender): a string such as 'no' would be true in
    the role's when."""
    refused: dict[str, list[str]] = {}
    for host in nodes:
        problem = _defender.option_problem(plain(role_value_of(host)('prerequisites', _defender.OPTION)))
        if problem:
            refused.setdefault(problem, []).append(host)
    problems.extend(_on_nodes(refused, nodes))


# The catalog's components that are kubelet image credential providers (kubelet_credential_providers' version picks
# one of them by its name); any other provider names its binary with url and checksum.
CREDENTIAL_PROVIDER_COMPONENTS = ('ecr-credential-provider',)
# The role that installs them (through the artifacts role) and whose variable lists them.
CREDENTIAL_PROVIDERS_ROLE = 'kubelet'
CREDENTIAL_PROVIDERS_VARIABLE = 'kubelet_credential_providers'


def _check_credential_providers(nodes: t.Sequence[str], kubernetes_version: t.Any,
                                role_value_of: t.Callable[[str], t.Callable[[str, str], t.Any]],
                                problems: _Problems) -> dict[str, list[Mapping[str, t.Any]]]:
    """kubelet_credential_providers as the kubelet of the release will read them (_flags.credential_providers: fields
    the release does not know, matchImages and defaultCacheDuration as its validation has them) and where each binary
    comes from: a provider of the catalog, or a url with a checksum. Returns {host: providers} of the hosts that
    passed, for _check_artifacts to resolve their downloads."""
    refused: dict[str, list[str]] = {}
    passed: dict[str, list[Mapping[str, t.Any]]] = {}
    for host in nodes:
        providers = plain(role_value_of(host)(CREDENTIAL_PROVIDERS_ROLE, CREDENTIAL_PROVIDERS_VARIABLE))
        lines = []
        try:
            _flags.credential_providers(providers, _versions.parse_version(kubernetes_version, VERSION_VARIABLE),
                                        prefix='kubelet_')
        except AnsibleError as error:
            lines.append(str(error).splitlines()[0])
        else:
            for index, provider in enumerate(providers or []):
                where = '%s[%d] (%s)' % (CREDENTIAL_PROVIDERS_VARIABLE, index, provider['name'])
                if provider.get('version') is not None and provider['name'] not in CREDENTIAL_PROVIDER_COMPONENTS:
                    lines.append('%s: the artifact catalog has no provider of that name (it has %s): give the url of its '
                                 'Windows binary and its checksum instead of version'
                                 % (where, ', '.join(CREDENTIAL_PROVIDER_COMPONENTS)))
                elif provider.get('version') is None and not provider['url'].startswith('https://'):
                    lines.append('%s: url %s must be https://' % (where, json.dumps(provider['url'])))
                elif provider.get('version') is None and not _artifacts.is_placeholder(provider['checksum']):
                    try:
                        _artifacts.parse_checksum(provider['checksum'])
                    except _artifacts.ChecksumError as error:
                        lines.append('%s: %s' % (where, error))
        for line in lines:
            refused.setdefault(line, []).append(host)
        if not lines:
            passed[host] = list(providers or [])
    problems.extend(_on_nodes(refused, nodes))
    return passed


def _credential_provider_downloads(host: str, providers: t.Sequence[Mapping[str, t.Any]], catalog: Mapping,
                                   role_value: t.Callable[[str, str], t.Any],
                                   failures: dict[str, list[str]], placeholders: dict[str, list[str]]) -> list[dict[str, t.Any]]:
    """The downloads of a node's credential providers, for the staging step: the catalog's resolved (its pin, or your
    artifacts_checksum_overrides), the others as given."""
    downloads = []
    for index, provider in enumerate(providers):
        where = '%s[%d] (%s)' % (CREDENTIAL_PROVIDERS_VARIABLE, index, provider['name'])
        if provider.get('version') is None:
            source: t.Any = {'url': provider['url'], 'checksum': provider['checksum']}
        else:
            source = _resolve(catalog, {'component': provider['name'], 'version': provider['version']},
                              role_value('artifacts', 'artifacts_base_urls'),
                              role_value('artifacts', 'artifacts_checksum_overrides'))
        if isinstance(source, str):
            failures.setdefault('%s %s: %s' % (where, provider['version'], source), []).append(host)
            continue
        if _artifacts.is_placeholder(source['checksum']):
            placeholders.setdefault('%s: its checksum is %s' % (where, _artifacts.PLACEHOLDER_FIX), []).append(host)
        download = {'url': source['url'], 'checksum': source['checksum'], 'component': provider['name']}
        if provider.get('version') is not None:
            download['version'] = str(provider['version'])
        downloads.append(download)
    return downloads


def _check_monitoring(nodes: t.Sequence[str], runtimes: Mapping[str, str],
                      role_value_of: t.Callable[[str], t.Callable[[str, str], t.Any]], problems: _Problems) -> None:
    """The monitoring role's settings (windows_exporter, containerd's metrics endpoint) on each node
    (_monitoring.problems)."""
    refused: dict[str, list[str]] = {}
    for host in nodes:
        value = role_value_of(host)
        for line in _monitoring.problems(lambda role, name: plain(value(role, name)), runtimes.get(host, 'containerd')):
            refused.setdefault(line, []).append(host)
    problems.extend(_on_nodes(refused, nodes))


def _version_hint(value: t.Any) -> str:
    if isinstance(value, float):
        return (' (YAML reads an unquoted version as a number, so 1.30 became %r): quote it and give the patch '
                'release, e.g. %s: "1.30.14"' % (value, VERSION_VARIABLE))
    return ''


def _check_versions(inventory: Mapping, spec: Mapping, role_value: t.Callable[[str, str], t.Any],
                    problems: _Problems) -> dict[str, t.Any]:
    """The version policy for each container runtime in the fleet; {runtime: policy} when it passes."""
    versions = inventory['versions']
    if versions.get('kubernetes_version') is None:
        if spec['version_required']:
            problems.add('%s is not set: the release of the nodes\' kubelet, kube-proxy and kubeadm, such as "1.33.13" '
                         '(the artifact catalog, roles/artifacts/vars/main.yml, lists the releases it verifies)'
                         % VERSION_VARIABLE)
        return {}
    policies = {}
    # A runtime that is not one of the known ones is a problem of its own already.
    for runtime in sorted(set(inventory['container_runtimes'].values()) & set(_ip_plan.CONTAINER_RUNTIMES)):
        policy_input = dict(versions, container_runtime=runtime)
        if runtime == 'docker':
            policy_input['cri_dockerd_version'] = plain(role_value('container_runtime', 'container_runtime_cri_dockerd_version'))
        try:
            policies[runtime] = _versions.version_policy(policy_input)
        except _versions.VersionPolicyError as error:
            for problem in error.problems:
                problem = inventory_names(problem)
                if VERSION_VARIABLE not in problem and not problem.startswith(PREFIX):
                    problem = '%s %s: %s' % (VERSION_VARIABLE, versions['kubernetes_version'], problem)
                problems.add(problem + _version_hint(versions['kubernetes_version']))
    return policies


def _network_choice(plan: Mapping[str, t.Any]) -> dict[str, t.Any] | None:
    """Topology and routing of a plan that failed elsewhere, so its artifacts are still checked; None if they are bad too."""
    topology = plan.get('topology')
    if topology not in _ip_plan.TOPOLOGIES:
        return None
    routing = plan.get('l2bridge_routing') or _ip_plan.default_l2bridge_routing(topology)
    if routing is not None and routing not in _ip_plan.L2BRIDGE_ROUTINGS:
        return None
    return {'topology': topology, 'l2bridge_routing': routing}


def node_installs(node: Mapping[str, t.Any], role_value: t.Callable[[str, str], t.Any]) -> list[dict[str, t.Any]]:
    """What the roles install on one node: [{component, version, variable}], in the order of site.yml's stages.

    ``node`` has topology, routing (l2bridge_routing), runtime and needs_cri_dockerd; ``role_value(role,
    name)`` is the value the node's roles see for a variable (the inventory's, else the role default).
    """
    installs = []
    for role, component, variable, when in INSTALLS[:5]:
        if CONDITIONS[when](node):
            installs.append({'component': component, 'version': role_value(role, variable), 'variable': variable})
    if node['kubernetes_version'] is not None:
        for component in role_value(BINARIES_ROLE, BINARIES_VARIABLE) or []:
            # The ovn topology runs no kube-proxy (kubernetes_binaries leaves it out).
            if not (component == 'kube-proxy' and node['topology'] == 'ovn'):
                installs.append({'component': component, 'version': node['kubernetes_version'],
                                 'variable': VERSION_VARIABLE})
    for role, component, variable, when in INSTALLS[5:]:
        if CONDITIONS[when](node):
            installs.append({'component': component, 'version': role_value(role, variable), 'variable': variable})
    return installs


# A checksum pinned as the placeholder of zeros (_artifacts.is_placeholder): plan.yml renders a plan with it and
# warns; site.yml refuses it before any host is contacted.
OVN_CNI_PLUGIN_VARIABLE = 'network_ovn_cni_plugin'


def _check_artifacts(nodes: t.Sequence[str], found: Mapping, policies: Mapping, version_ok: bool,
                     role_value_of: t.Callable[[str], t.Callable[[str, str], t.Any]],
                     problems: _Problems, placeholders: list[str], features: Mapping[str, t.Any],
                     credential_providers: Mapping[str, t.Sequence[Mapping[str, t.Any]]] | None = None,
                     ) -> dict[str, list[dict[str, t.Any]]]:
    """Every download of each node, resolved with its checksum: the catalog's components, then the two files the
    inventory names itself (the OVN CNI plugin, the gMSA CCG plugin's files), which the staging step fetches too."""
    csi_proxy = features['csi_proxy']
    cluster = found['cluster']
    catalog = _roles.role_vars('artifacts').get('artifacts_catalog') or {}
    resolved: dict[str, list[dict[str, t.Any]]] = {}
    failures: dict[tuple[str, str], tuple[list[str], list[str], str]] = {}
    placeholder_hosts: dict[tuple[str, str, str], list[str]] = {}
    cache: dict[tuple, t.Any] = {}
    for host in nodes:
        role_value = role_value_of(host)
        runtime = found['inventory']['container_runtimes'][host]
        node = {'topology': cluster['topology'], 'routing': cluster['l2bridge_routing'], 'runtime': runtime,
                'needs_cri_dockerd': policies.get(runtime, {}).get('needs_cri_dockerd', runtime == 'docker'),
                'kubernetes_version': found['inventory']['versions']['kubernetes_version'] if version_ok else None,
                'csi_proxy': csi_proxy,
                'windows_exporter': role_value(_monitoring.ROLE, _monitoring.ENABLED_VARIABLE) is True}
        base_urls = role_value('artifacts', 'artifacts_base_urls')
        overrides = role_value('artifacts', 'artifacts_checksum_overrides')
        sources = (_short(base_urls), _short(overrides))
        resolved[host] = []
        for install in node_installs(node, role_value):
            version = install['version']
            key = (install['component'], _short(version)) + sources
            if key not in cache:
                cache[key] = _resolve(catalog, install, base_urls, overrides)
            outcome = cache[key]
            if isinstance(outcome, str):
                hosts, components, message = failures.setdefault((install['variable'], _short(version)), ([], [], outcome))
                if host not in hosts:
                    hosts.append(host)
                if install['component'] not in components:
                    components.append(install['component'])
            else:
                if _artifacts.is_placeholder(outcome.get('checksum')):
                    placeholder_hosts.setdefault((install['variable'], _short(version), install['component']), []).append(host)
                resolved[host].append(dict(outcome, component=install['component'], version=str(version)))
    for (variable, version), (hosts, components, message) in failures.items():
        problems.add('%s %s (%s, on %s): %s' % (variable, version, ', '.join(components),
                                                _hosts_text(hosts, len(nodes), 'Windows nodes'), message))
    for (variable, version, component), hosts in placeholder_hosts.items():
        placeholders.append(
            '%s %s (%s, on %s): artifacts_checksum_overrides pins the placeholder of zeros, which no file has: pin '
            'the sha256 of the %s you downloaded and verified' % (variable, version, component,
                                                                  _hosts_text(hosts, len(nodes), 'Windows nodes'),
                                                                  component))
    provider_failures: dict[str, list[str]] = {}
    provider_placeholders: dict[str, list[str]] = {}
    for host, providers in (credential_providers or {}).items():
        resolved[host] += _credential_provider_downloads(host, providers, catalog, role_value_of(host), provider_failures,
                                                         provider_placeholders)
    problems.extend(_on_nodes(provider_failures, nodes))
    placeholders += _on_nodes(provider_placeholders, nodes)
    if cluster['topology'] == 'ovn':
        for host, plugin in _check_ovn_cni_plugin(nodes, role_value_of, problems, placeholders).items():
            resolved[host].append({'url': plugin['url'], 'checksum': plugin['checksum'], 'component': 'ovn-cni'})
    gmsa = features['gmsa']
    if gmsa['enabled'] and gmsa['mode'] == 'portable' and not _gmsa.plugin_problems(gmsa['ccg_plugin']):
        for name in _gmsa.PLUGIN_FILES:
            download = gmsa['ccg_plugin'][name]
            if _artifacts.is_placeholder(download['checksum']):
                placeholders.append('%s.%s.checksum (on %s): %s' % (_gmsa.PLUGIN_VARIABLE, name, _hosts_text(
                    nodes, len(nodes), 'Windows nodes'), _artifacts.PLACEHOLDER_FIX))
            for host in nodes:
                resolved[host].append({'url': download['url'], 'checksum': download['checksum'],
                                       'component': 'ccg-plugin ' + name})
    return resolved


def _check_ovn_cni_plugin(nodes: t.Sequence[str], role_value_of: t.Callable[[str], t.Callable[[str, str], t.Any]],
                          problems: _Problems, placeholders: list[str]) -> dict[str, Mapping[str, t.Any]]:
    """network_ovn_cni_plugin, the one download whose checksum is not the catalog's: {} or {url, checksum}, with a
    checksum the artifact module takes and not the placeholder. Returns {host: plugin} of the nodes whose plugin
    passed, a placeholder pin included as the catalog's are (site.yml refuses it before anything is staged)."""
    verdicts: dict[str, tuple[str, list[str], t.Any]] = {}
    for host in nodes:
        value = role_value_of(host)('network_ovn', OVN_CNI_PLUGIN_VARIABLE)
        if value in (None, {}):
            continue
        key = _short(value)
        if key in verdicts:
            verdicts[key][1].append(host)
            continue
        verdict = ''
        if not isinstance(value, Mapping) or set(value) != {'url', 'checksum'} or not str(value['url']).startswith('https://'):
            verdict = 'must be {} or {url: https://..., checksum: "sha256:<hex>"}'
        elif _artifacts.is_placeholder(value['checksum']):
            verdict = 'placeholder'
        else:
            try:
                _artifacts.parse_checksum(value['checksum'])
            except _artifacts.ChecksumError as error:
                verdict = str(error)
        verdicts[key] = (verdict, [host], value)
    valid: dict[str, Mapping[str, t.Any]] = {}
    for key, (verdict, hosts, value) in verdicts.items():
        where = '%s %s (on %s)' % (OVN_CNI_PLUGIN_VARIABLE, key, _hosts_text(hosts, len(nodes), 'Windows nodes'))
        if verdict == 'placeholder':
            placeholders.append('%s: its checksum is %s' % (where, _artifacts.PLACEHOLDER_FIX))
        elif verdict:
            problems.add('%s: %s' % (where, verdict))
        if verdict in ('', 'placeholder'):
            valid.update(dict.fromkeys(hosts, value))
    return valid


def _resolve(catalog: Mapping, install: Mapping, base_urls: t.Any, overrides: t.Any) -> t.Any:
    """The artifact's url and checksum, or the reason it has none (a message)."""
    version = install['version']
    if isinstance(version, bool) or not isinstance(version, (str, int, float)) or str(version).strip() == '':
        return 'must be a version such as "1.2.3", got %s (%s)' % (_short(version), _ip_plan.kind_of(version))
    if isinstance(version, float):
        return 'is a number: quote it ("%s" would have been read as %r) so it keeps its digits' % (version, version)
    if not isinstance(overrides, Mapping) or not all(isinstance(item, Mapping) for item in overrides.values()):
        return ('artifacts_checksum_overrides must be {component: {version: "sha256:<hex>"}}, got %s'
                % _short(overrides))
    try:
        return _artifact_catalog.resolve(catalog, install['component'], str(version), base_urls,
                                         {name: {str(key): item for key, item in pins.items()}
                                          for name, pins in overrides.items()})
    except _artifact_catalog.CatalogError as error:
        # A component upstream publishes no hash for needs a pin; a release the catalog lacks is better changed.
        if 'no pinned checksum' in str(error):
            return '%s: {%s: {"%s": "sha256:<the hash you verified>"}}' % (error, install['component'], version)
        return str(error)


def preflight(hostvars: Mapping, groups: Mapping, playbook: str = 'site', default_connection: str = 'ssh',
              placeholder_pins: str = 'refuse') -> dict[str, t.Any]:
    """Check an inventory for ``playbook`` (site, reset, or plan: the plan role on its own) without contacting a host.

    ``placeholder_pins``: ``refuse`` makes a problem of what only rendering may accept (a checksum pinned as the
    placeholder of zeros); ``warn`` (plan.yml, which only renders)
    makes each a warning that site.yml will refuse it.

    Returns ``{'problems': [line, ...], 'warnings': [...], 'inventory', 'cluster', 'nodes', 'transport',
    'versions', 'artifacts'}``; the last six are what the checks computed (the plan role hands them
    out), complete only when there are no problems.
    """
    if placeholder_pins not in ('refuse', 'warn'):
        raise AnsibleError('preflight: placeholder_pins must be refuse or warn, got %r' % (placeholder_pins,))
    if playbook not in PLAYBOOKS:
        raise AnsibleError('preflight: playbook must be one of %s, got %r' % (', '.join(PLAYBOOKS), playbook))
    spec = PLAYBOOKS[playbook]
    hostvars = _EachHostOnce(hostvars)
    problems = _Problems()
    groups = {name: list(members or []) for name, members in (groups or {}).items()}
    nodes = groups.get(WINDOWS_GROUP) or []
    kubeconfig = _check_cluster_kubeconfig(hostvars, nodes, problems) if spec['cluster_api'] else None
    _check_groups(groups, spec, problems, kubeconfig)
    # The control-plane hosts' variables are read too where the playbook runs roles there.
    control_plane = (groups.get(CONTROL_PLANE_GROUP) or []) if CONTROL_PLANE_GROUP in spec['groups'] else []
    hosts = list(dict.fromkeys(nodes + control_plane))
    variables = _read_variables(hostvars, hosts, spec['roles'], problems)
    result: dict[str, t.Any] = {'inventory': None, 'cluster': None, 'nodes': None, 'transport': None,
                                'versions': {}, 'artifacts': {}, 'features': None, 'warnings': [], 'notes': []}
    _check_stray_hosts(hostvars, groups, _unchecked(variables), problems, result['warnings'])
    if _check_names(variables, spec['roles'], problems):
        result['notes'].append('A name another tool reads from the same inventory can be listed in %s.'
                               % UNCHECKED_VARIABLE)

    try:
        result['transport'] = _transport.transport_preflight(hostvars, nodes, default_connection)
        if result['transport']['accepted']:
            result['warnings'].append(_transport.acceptance_warning(result['transport']['accepted']))
    except AnsibleError as error:  # a TransportError, or a connection variable that cannot be templated
        problems.add(str(error).splitlines()[0])

    if nodes:
        found = _check_plan(variables, nodes, problems)
        result.update({key: found.get(key) for key in ('inventory', 'cluster', 'nodes')})
        if CONTROL_PLANE_GROUP in spec['groups'] and not control_plane:
            _check_ovn_central(result['cluster'], variables, nodes, problems)
        if result['inventory'] is not None:
            def role_value_of(host: str) -> t.Callable[[str, str], t.Any]:
                def role_value(role: str, name: str) -> t.Any:
                    return variables[host][name] if name in variables[host] else _roles.role_defaults(role).get(name)
                return role_value
            _check_kube_proxy_mode(result['inventory'], nodes, role_value_of, problems)
            if 'prerequisites' in spec['roles']:
                _check_commit_limit_options(nodes, role_value_of, problems)
            result['features'] = _check_features(variables, nodes, result['inventory'], role_value_of, problems)
            if 'prerequisites' in spec['roles']:
                _check_defender(nodes, role_value_of, problems)
            if _monitoring.ROLE in spec['roles']:
                _check_monitoring(nodes, result['inventory']['container_runtimes'], role_value_of, problems)
            before = len(problems.lines)
            result['versions'] = _check_versions(result['inventory'], spec, role_value_of(nodes[0]), problems)
            version_ok = len(problems.lines) == before
            credential_providers = None
            if version_ok and result['versions'] and 'kubelet' in spec['roles']:
                _check_kubelet_dropin(nodes, result['inventory']['versions']['kubernetes_version'], role_value_of,
                                      problems)
                credential_providers = _check_credential_providers(
                    nodes, result['inventory']['versions']['kubernetes_version'], role_value_of, problems)
            network = result['cluster'] or _network_choice(result['inventory']['plan'])
            if spec['artifacts'] and network is not None:
                placeholders: list[str] = []
                result['artifacts'] = _check_artifacts(nodes, dict(found, cluster=network), result['versions'], version_ok,
                                                       role_value_of, problems, placeholders, result['features'],
                                                       credential_providers)
                for line in placeholders:
                    if placeholder_pins == 'refuse':
                        problems.add(line)
                    else:
                        result['warnings'].append('site.yml will refuse this inventory: ' + line)
    result['problems'] = problems.lines
    result['message'] = message(problems.lines, playbook, result['notes'])
    return result


def message(problems: t.Sequence[str], playbook: str, notes: t.Sequence[str] = ()) -> str:
    """The failure message: a count, then one problem per line, then the notes."""
    if not problems:
        return ''
    return '\n'.join(['%d problem(s) in the inventory for %s, found before any host was contacted:'
                      % (len(problems), playbook + '.yml' if playbook != 'plan' else 'the IP plan')] + ['- ' + line for line in problems] + list(notes))
