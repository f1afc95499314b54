# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The doctor's diagnosis of one Windows node: pure functions of what playbooks/doctor.yml read.

Internal to kubewin.node, not a public API. The public interface is the filter ``kubewin.node.doctor_findings``.

Inputs: the node's snapshot (``kubewin.node.node_info``), the tails of its kubelet and kube-proxy logs
(``kubewin.node.node_logs``), its share of the plan (``plan_node``, ``plan_cluster``, ``plan_paths``), the cluster's
Services, EndpointSlices and Node objects, the control plane's clock, and the node's variables (the network roles'
options that name its networks and OVS bridge). Nothing here contacts a host. A check whose input is missing (a
snapshot section not read, no cluster, no clock) finds nothing.

This is the one definition of a healthy node: a node is healthy when it has no ``error`` finding. The patch window
verifies a node after its restart with these checks (the verify role's node_health entry point), and keeps a node
with an error finding cordoned.

Each finding is a dict: ``id`` (stable, for scripts that read the report), ``severity`` (``error``: the node does not
work as planned; ``warning``: it works but will not for long, or needs attention), ``what`` (this node's facts),
``cause`` (the likely cause), ``fix`` (what to do) and ``repair``: the safe, idempotent repair doctor.yml applies with
``-e doctor_repair=true`` (one of REPAIRS), or None when the fix needs a person (or site.yml).
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import ntpath
import re
from collections.abc import Mapping

from ansible_collections.kubewin.node.plugins.plugin_utils import (
    _converged, _credentials, _csi_proxy, _defender, _gmsa, _hns, _host_settings, _ip_plan, _kube_proxy_daemonset,
    _monitoring, _port_ranges, _roles)
from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import CALICO_NETWORK_NAME
from ansible_collections.kubewin.node.plugins.plugin_utils._source_vip import recorded_address
from ansible_collections.kubewin.node.plugins.plugin_utils._cluster import windows_label_problems
from ansible_collections.kubewin.node.plugins.plugin_utils._flags import split_windows_command_line

# The repairs doctor.yml knows; everything else is a fix for a person (usually: run site.yml on the node).
REPAIRS = ('remove_stale_load_balancers', 'restart_kube_proxy', 'start_services', 'rewrite_cni_config')

DEFAULT_LIMITS = {
    # Below this much free space on the system drive the kubelet's image garbage collection and eviction thresholds
    # come close (kubelet defaults: imagefs/nodefs.available<10%, image GC from 85% use; kubelet reference).
    'min_free_bytes': 10 * 1024 ** 3,
    # Seconds the node's clock may differ from the control plane's. Certificates and tokens are checked against
    # the clock (NotBefore), and a Node's lease is judged by the control plane's clock (node-monitor-grace-period).
    'max_clock_skew': 30,
    # Log lines older than this many seconds (by the node's clock) are not recent.
    'log_window': 3600,
    # At most this many error lines quoted per log.
    'log_lines': 5,
}

# klog's header (k8s.io/klog/v2 README, "Log format"): Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg,
# L being I, W, E or F. kube-log-runner writes the component's output to the file unchanged.
KLOG = re.compile(r'^([IWEF])(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d+)?\s')
ERROR_LEVELS = ('E', 'F')
# The Node conditions that are a problem when True (all but Ready; Kubernetes "Nodes", Node status/conditions).
PRESSURE_CONDITIONS = ('MemoryPressure', 'DiskPressure', 'PIDPressure', 'NetworkUnavailable')

# The network roles' options (role, option) naming the HNS network that holds the node's vSwitch, besides the pod
# network plan_cluster.network_name: the placeholder of network_l2bridge and network_overlay, the Transparent network
# of network_ovn. Read from the node's variables, else the role's default.
VSWITCH_NETWORK_OPTION = {
    'l2bridge': ('network_l2bridge', 'network_l2bridge_placeholder_name'),
    'overlay': ('network_overlay', 'network_overlay_placeholder_name'),
    'ovn': ('network_ovn', 'network_ovn_network_name'),
}
# calico: calico-node-windows makes the vSwitch's network External itself (projectcalico/calico
# node/windows-packaging/CalicoWindows/node/node-service.ps1: Overlay with VSID 9999 for VXLAN, L2Bridge for BGP),
# then, once the kubelet runs, its start-up sets up the pod network Calico on the node's IPAM block with the host
# endpoint Calico_ep (node/pkg/lifecycle/startup/startup_windows.go, ensureNetworkForOS), so a joined calico node
# has both. The operator writes the CNI config
# (plan_paths.calico_cni_config_file), a conflist named Calico with one plugin of type calico (tigera/operator
# pkg/render/windows.go); the plan has no text to compare it with, so its shape is checked.
CALICO_VSWITCH_NETWORK = 'External'
# ovn: the OVS bridge network_ovn makes on the vSwitch, and the services of Open vSwitch and OVN (network_ovn).
OVN_BRIDGE_OPTION = ('network_ovn', 'network_ovn_bridge')
OVN_SERVICES = ('ovsdb-server', 'ovs-vswitchd', 'ovn-controller')


def finding(finding_id, severity, what, cause, fix, repair=None, targets=()):
    """One finding; ``targets`` are what its repair acts on (policy list IDs, service names)."""
    if repair is not None and repair not in REPAIRS:
        raise ValueError('unknown repair %r' % repair)
    return {'id': finding_id, 'severity': severity, 'what': what, 'cause': cause, 'fix': fix, 'repair': repair,
            'targets': list(targets)}


# -- what the plan expects -------------------------------------------------------------------------

def expected_services(plan_node, plan_cluster, kube_proxy_mode='service', csi_proxy_mode='none'):
    """The services site.yml runs on the node: the runtime (Docker Engine with cri-dockerd: every supported Kubernetes
    release has no dockershim), csi-proxy's (kubewin_csi_proxy service), the kubelet, and by topology kube-proxy
    (unless kubewin_kube_proxy_mode daemonset makes it a HostProcess pod) and flanneld, or Open vSwitch and
    ovn-controller (ovn, where ovn-kubernetes routes Services)."""
    runtime = (plan_node or {}).get('container_runtime') or 'containerd'
    services = ['docker', 'cri-dockerd'] if runtime == 'docker' else [runtime]
    if csi_proxy_mode == 'service':
        services.append(_csi_proxy.SERVICE_NAME)
    services.append('kubelet')
    topology = (plan_cluster or {}).get('topology')
    if topology in ('overlay', 'l2bridge') and kube_proxy_mode == 'service':
        services.append('kube-proxy')
    if topology == 'overlay' or (topology == 'l2bridge' and (plan_cluster or {}).get('l2bridge_routing') == 'flannel'):
        services.append('flanneld')
    if topology == 'ovn':
        services += list(OVN_SERVICES)
    return services


def _role_option(node_vars, role, option):
    value = node_vars.get(option) if node_vars is not None else None
    return str(value if value is not None else _roles.role_defaults(role).get(option))


def expected_networks(plan_cluster, node_vars=None):
    """The HNS networks site.yml leaves on the node: the one holding its vSwitch, then the pod network (for calico
    both are calico-node-windows's: External, then Calico)."""
    topology = (plan_cluster or {}).get('topology')
    if topology == 'calico':
        return [CALICO_VSWITCH_NETWORK, CALICO_NETWORK_NAME]
    if topology not in VSWITCH_NETWORK_OPTION:
        return []
    names = [_role_option(node_vars, *VSWITCH_NETWORK_OPTION[topology])]
    if (plan_cluster or {}).get('network_name'):
        names.append(plan_cluster['network_name'])
    return names


def _node_object(cluster, name):
    for node in (cluster or {}).get('nodes') or []:
        if ((node.get('metadata') or {}).get('name') or '').lower() == name.lower():
            return node
    return None


def _pod_cidr(node_object, plan_node):
    """The node's pod subnet: the Node's spec.podCIDR (the controller manager assigns it), else the plan's."""
    return ((node_object or {}).get('spec') or {}).get('podCIDR') or (plan_node or {}).get('pod_cidr')


# -- the checks ----------------------------------------------------------------------------------

def check_hns_networks(snapshot, plan_cluster, pod_cidr, node_vars=None):
    hns = snapshot.get('hns') or {}
    names = expected_networks(plan_cluster, node_vars)
    if not names:
        return []
    if not hns.get('available'):
        return [finding('hns-unavailable', 'error', 'the Host Networking Service is not running',
                        'the Containers feature is missing or the node was not restarted after installing it',
                        'run site.yml on the node (it installs the feature and restarts the node)')]
    found = []
    for name in names:
        if _hns.networks_named(hns.get('networks') or [], name):
            continue
        if (plan_cluster or {}).get('topology') == 'calico':
            cause = ('calico-node-windows has not made it: its pod is not running on the node (the operator\'s '
                     'DaemonSet) or has not finished its start-up (Calico: once the kubelet runs), or it was removed, or it did '
                     'not survive a restart')
            fix = ('look at the calico-node-windows pod of the node (kubectl -n calico-system get pods -o wide) and its '
                   'log; it makes the network when it starts')
        elif name == (plan_cluster or {}).get('network_name'):
            cause = ('flanneld has not created it since the last restart (an Overlay/L2Bridge network may not survive '
                     'a reboot), or it was removed')
            fix = 'run site.yml on the node: the network role recreates the network and restarts flanneld'
        else:
            cause = 'it holds the node\'s vSwitch, which the network role made; it was removed, or did not survive a restart'
            fix = 'run site.yml on the node: the network role recreates it'
        found.append(finding('hns-network-missing', 'error', 'HNS network %s does not exist' % name, cause, fix))
    name = (plan_cluster or {}).get('network_name')
    networks = _hns.networks_named(hns.get('networks') or [], name) if name else []
    subnets = sorted(s.get('address_prefix') or '' for n in networks for s in n.get('subnets') or [])
    # calico: the network's subnet is the node's Calico IPAM block, which the Node's podCIDR does not name.
    if networks and pod_cidr and subnets != [pod_cidr] and (plan_cluster or {}).get('topology') != 'calico':
        found.append(finding('hns-network-subnet', 'error',
                             'HNS network %s has subnet %s, the node\'s pod subnet is %s'
                             % (name, ', '.join(subnets) or 'none', pod_cidr),
                             'the node was given another podCIDR (a rejoin) and flanneld still holds its old lease',
                             'run site.yml on the node: the network role recreates the network from the new lease'))
    return found


def _exception_list(cni_config):
    """The ExceptionList of the OutBoundNAT policy in a CNI config (flannel's delegate or the plugin itself)."""
    stack = [cni_config]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if str(value.get('Type') or value.get('type') or '').lower() == 'outboundnat' and 'ExceptionList' in value:
                return list(value['ExceptionList'])
            if 'Settings' in value and isinstance(value['Settings'], dict) and 'Exceptions' in value['Settings']:
                return list(value['Settings']['Exceptions'])
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return None


def check_calico_bgp_router(snapshot):
    """calico with the bgp backend: Remote Access installed as a LAN router and its service running, which Calico's
    confd configures BGP through (tigera/docs CalicoWindowsInstall.js; the prerequisites role's
    kubewin.node.remote_access_routing). Without them the node peers with nobody and its pods are unreachable from
    other nodes."""
    remote = snapshot.get('remote_access')
    if remote is None:
        return []  # not read in this snapshot
    fix = 'run site.yml on the node: its prerequisites install Remote Access as a LAN router and start its service'
    if remote.get('routing') != 'Installed':
        status = remote.get('routing') or 'unknown: no RemoteAccess module'
        return [finding('bgp-router-missing', 'error',
                        'Remote Access is not installed as a LAN router (RoutingStatus %s)' % status,
                        'the features RemoteAccess, RSAT-RemoteAccess-PowerShell and Routing or Install-RemoteAccess '
                        '-VpnType RoutingOnly are missing: Calico\'s confd cannot add its BGP router', fix)]
    if remote.get('service') != 'Running':
        return [finding('bgp-router-stopped', 'error',
                        'the service RemoteAccess is %s' % (remote.get('service') or 'absent'),
                        'it was stopped, or failed at its restart by calico-node-windows: the node serves no BGP', fix)]
    return []


def check_calico_cni_config(snapshot, plan_cluster, plan_paths):
    """calico: the operator's CNI config exists, is JSON and is Calico's (a conflist named as the plan's network with
    a plugin of type calico). The collection does not write it, so no repair: calico-node-windows writes it again."""
    path = (plan_paths or {}).get('calico_cni_config_file')
    contents = snapshot.get('contents') or {}
    if not path or path not in contents:
        return []  # not read in this snapshot
    entry = contents[path] or {}
    fix = ('restart the node\'s calico-node-windows pod (kubectl -n calico-system delete pod ...): its install-cni step '
           'writes the config')
    if not entry.get('exists'):
        return [finding('cni-config-missing', 'error', 'the CNI config %s does not exist' % path,
                        'calico-node-windows has not written it: its pod has not run on the node, or the Installation\'s '
                        'windowsNodes.cniConfigDir names another folder', fix)]
    try:
        current = json.loads((entry.get('text') or '').lstrip('\ufeff'))
    except ValueError:
        current = None
    if not isinstance(current, dict):
        return [finding('cni-config-invalid', 'error', 'the CNI config %s is not a JSON object' % path,
                        'it was edited by hand; the CNI plugin refuses it, so no pod starts', fix)]
    name = (plan_cluster or {}).get('network_name')
    types = [p.get('type') for p in current.get('plugins') or [] if isinstance(p, dict)]
    if current.get('name') != name or 'calico' not in types:
        return [finding('cni-config-differs', 'error',
                        'the CNI config %s is not Calico\'s (name %s, plugin types %s; expected name %s with a plugin '
                        'of type calico)' % (path, current.get('name'), ', '.join(str(t) for t in types) or 'none', name),
                        'it was edited by hand, or another network plugin wrote it', fix)]
    return []


def check_cni_config(snapshot, plan_node, plan_paths):
    path = (plan_paths or {}).get('cni_config_file')
    wanted = (plan_node or {}).get('cni_config_text')
    if not path or not wanted:
        return []
    entry = ((snapshot.get('contents') or {}).get(path)) or {}
    fix = 'rewrite it from the plan (doctor repair, or site.yml)'
    if not entry.get('exists'):
        return [finding('cni-config-missing', 'error', 'the CNI config %s does not exist' % path,
                        'it was removed, or the network role never ran on the node', fix, 'rewrite_cni_config')]
    text = entry.get('text') or ''
    if text == wanted:
        return []
    try:
        current = json.loads(text.lstrip('\ufeff'))
    except ValueError:
        return [finding('cni-config-invalid', 'error', 'the CNI config %s is not JSON' % path,
                        'it was edited by hand or written with a byte order mark; the CNI plugins refuse it, so no pod '
                        'starts', fix, 'rewrite_cni_config')]
    planned = json.loads(wanted)
    if current == planned:
        return []  # the same document, formatted differently
    ours, theirs = _exception_list(planned), _exception_list(current)
    if ours is not None and sorted(theirs or []) != sorted(ours):
        missing = sorted(set(ours) - set(theirs or []))
        extra = sorted(set(theirs or []) - set(ours))
        return [finding('cni-exception-list', 'error',
                        'the OutBoundNAT ExceptionList of %s differs from the plan (missing: %s; not planned: %s)'
                        % (path, ', '.join(missing) or 'none', ', '.join(extra) or 'none'),
                        'the config was edited, or the plan (cluster, service or management CIDR) changed since; '
                        'traffic to addresses missing from the list is NATed and pods cannot reach them',
                        fix, 'rewrite_cni_config')]
    return [finding('cni-config-differs', 'error', 'the CNI config %s differs from the plan' % path,
                    'it was edited by hand, or the plan changed since site.yml last ran on the node',
                    fix, 'rewrite_cni_config')]


def check_source_vip(snapshot, plan_cluster, pod_cidr, kube_proxy_mode='service', plan_paths=None):
    """The source VIP kube-proxy runs with (kube-proxy reference, --source-vip), where kube-proxy takes it from: the
    service's flags (overlay, service mode), or what the DaemonSet's start script reads (daemonset mode): the
    SourceVip.json the collection reserved (overlay; microsoft/SDN Kubernetes/flannel/overlay start scripts reserve it
    with host-local), or the address of Calico's host endpoint on a VXLAN network (calico)."""
    topology = (plan_cluster or {}).get('topology')
    if kube_proxy_mode == 'daemonset':
        if topology == 'overlay':
            return _check_recorded_source_vip(snapshot, pod_cidr, plan_paths)
        if topology == 'calico':
            return _check_calico_source_vip(snapshot)
        return []
    if topology != 'overlay':
        return []
    service = ((snapshot.get('services') or {}).get('kube-proxy')) or {}
    if not service.get('exists'):
        return []  # the services check reports it
    argv = split_windows_command_line(_program_command_line(service))
    vip = None
    for index, word in enumerate(argv):
        if word.startswith('--source-vip='):
            vip = word.split('=', 1)[1]
        elif word == '--source-vip' and index + 1 < len(argv):
            vip = argv[index + 1]
    if not vip:
        return [finding('source-vip-missing', 'error', 'kube-proxy runs without --source-vip',
                        'its service was registered by hand or by another tool; on overlay, Service traffic from the '
                        'node then has no source address in the overlay',
                        'run site.yml on the node: it reserves the source VIP and registers kube-proxy with it')]
    return _source_vip_in_pod_subnet(vip, pod_cidr, 'restarts kube-proxy')


def _source_vip_in_pod_subnet(vip, pod_cidr, restart):
    if pod_cidr and ipaddress.ip_address(vip) not in ipaddress.ip_network(pod_cidr, strict=False):
        return [finding('source-vip-subnet', 'error',
                        'kube-proxy\'s source VIP %s is not in the node\'s pod subnet %s' % (vip, pod_cidr),
                        'the node was given another podCIDR (a rejoin) after the source VIP was reserved',
                        'run site.yml on the node: it reserves a new source VIP and %s' % restart)]
    return []


def _check_recorded_source_vip(snapshot, pod_cidr, plan_paths):
    """Overlay in daemonset mode: the record the pod's start script reads (kube_proxy_start.ps1, SourceVipFile)."""
    if not (plan_paths or {}).get('kubernetes_dir'):
        return []
    path = _kube_proxy_daemonset.node_files(plan_paths)['source_vip_file']
    entry = (snapshot.get('contents') or {}).get(path)
    if entry is None:
        return []  # not read
    address = recorded_address(entry.get('text') or '') if entry.get('exists') else None
    if address is None:
        state = 'holds no address' if entry.get('exists') else 'does not exist'
        return [finding('source-vip-missing', 'error', 'kube-proxy\'s pod has no source VIP: %s %s' % (path, state),
                        'the network_overlay role has not reserved it on this node, or the file was removed or edited; '
                        'the pod\'s start script fails without it and the kubelet restarts it with a back-off',
                        'run site.yml on the node: it reserves the source VIP and restarts kube-proxy\'s pod')]
    return _source_vip_in_pod_subnet(str(address.ip), pod_cidr, 'restarts kube-proxy\'s pod')


def _check_calico_source_vip(snapshot):
    """Calico in daemonset mode: on a VXLAN network (HNS type Overlay) the pod's start script waits for the host endpoint
    Calico_ep and takes its address (kube_proxy_start.ps1, SourceVipEndpoint); BGP (L2Bridge) needs none. The network
    itself is Calico's (its absence is not kube-proxy's finding)."""
    hns = snapshot.get('hns') or {}
    networks = _hns.networks_named(hns.get('networks') or [], CALICO_NETWORK_NAME) if hns.get('available') else []
    if not networks or str(networks[0].get('type') or '').lower() != 'overlay':
        return []
    name = _kube_proxy_daemonset.CALICO_SOURCE_VIP_ENDPOINT
    if any(_hns.same_name(e.get('name'), name) and e.get('network_id') == networks[0].get('id') and e.get('ip_address')
           for e in hns.get('endpoints') or []):
        return []
    return [finding('source-vip-missing', 'error',
                    'HNS network %s has no host endpoint %s, whose address is kube-proxy\'s source VIP'
                    % (CALICO_NETWORK_NAME, name),
                    'calico-node-windows\'s start-up creates it with the network (and Calico\'s CNI plugin when a pod '
                    'starts); it was removed since, so kube-proxy\'s pod waits for it and then fails, and the kubelet '
                    'restarts it with a back-off',
                    'restart the node\'s calico-node-windows pod (its start-up makes the endpoint again), then '
                    'kube-proxy\'s pod (doctor repair, or kubectl delete pod)')]


def _program_command_line(service):
    """The command line of the program itself (nssm keeps it under the service's Parameters)."""
    nssm = service.get('nssm')
    if nssm and nssm.get('application'):
        return '"%s" %s' % (nssm['application'], nssm.get('app_parameters') or '')
    return service.get('command_line') or ''


def _cluster_ip_services(cluster):
    """{VIP: 'namespace/name'} of the Services kube-proxy programs a load balancer for: those with a cluster IP and,
    in their EndpointSlices, a ready endpoint (winkernel's syncProxyRules skips a Service it has no endpoint for)."""
    ready = {}
    for endpoint_slice in (cluster or {}).get('endpoint_slices') or []:
        metadata = endpoint_slice.get('metadata') or {}
        service = (metadata.get('labels') or {}).get('kubernetes.io/service-name')
        for endpoint in endpoint_slice.get('endpoints') or []:
            if (endpoint.get('conditions') or {}).get('ready', True) is not False:
                ready.setdefault((metadata.get('namespace'), service), set()).update(endpoint.get('addresses') or [])
    vips = {}
    for service in (cluster or {}).get('services') or []:
        metadata, spec = service.get('metadata') or {}, service.get('spec') or {}
        key = (metadata.get('namespace'), metadata.get('name'))
        for vip in spec.get('clusterIPs') or [spec.get('clusterIP')]:
            if vip and vip != 'None':
                vips[vip] = {'service': '%s/%s' % key, 'addresses': ready.get(key, set())}
    return vips


def check_load_balancers(snapshot, plan_cluster, cluster):
    """kube-proxy's HNS load balancers (v1 policy lists with an ELB policy) against the cluster's Services."""
    # The topologies whose nodes run kube-proxy (as a service or in its DaemonSet's pod).
    if (plan_cluster or {}).get('topology') not in _kube_proxy_daemonset.TOPOLOGIES or cluster is None:
        return []
    hns = snapshot.get('hns') or {}
    if not hns.get('available'):
        return []
    services = _cluster_ip_services(cluster)
    endpoints = {e['id']: e for e in hns.get('endpoints') or []}
    programmed, stale = set(), []
    for policy_list in hns.get('policy_lists') or []:
        vips = policy_list.get('vips') or []
        gone = [endpoint_id for endpoint_id in policy_list.get('endpoints') or [] if endpoint_id not in endpoints]
        known = [vip for vip in vips if vip in services]
        wrong = [endpoints[endpoint_id].get('ip_address') for endpoint_id in policy_list.get('endpoints') or []
                 if endpoint_id in endpoints and known
                 and endpoints[endpoint_id].get('ip_address') not in set().union(*(services[v]['addresses'] for v in known))]
        if vips and not known or gone or wrong:
            stale.append((policy_list, gone, wrong))
        programmed.update(known)
    found = []
    if stale:
        described = ['%s (%s)' % (', '.join(p.get('vips') or []) or p['id'],
                                  'endpoints gone: %s' % ', '.join(gone) if gone
                                  else 'endpoints no longer in the Service: %s' % ', '.join(wrong) if wrong
                                  else 'no such Service')
                     for p, gone, wrong in stale]
        found.append(finding('load-balancer-stale', 'error',
                             '%d stale HNS load balancer(s): %s' % (len(stale), '; '.join(sorted(described))),
                             'kube-proxy was not running when the Services or their endpoints changed, or HNS kept '
                             'policy lists across a kube-proxy restart (kube-proxy does not remove lists it did not '
                             'make in this run); traffic to these VIPs goes to endpoints that no longer exist',
                             'remove the stale policy lists and restart kube-proxy (doctor repair)',
                             'remove_stale_load_balancers', sorted(p['id'] for p, _gone, _wrong in stale)))
    missing = sorted(vip for vip, service in services.items() if service['addresses'] and vip not in programmed)
    if missing:
        found.append(finding('load-balancer-missing', 'error',
                             'no HNS load balancer for %s' % ', '.join('%s (%s)' % (vip, services[vip]['service'])
                                                                       for vip in missing),
                             'kube-proxy is stopped or failing, or its load balancers were lost (a restart of HNS, '
                             'a reboot); pods on this node cannot reach these Services',
                             'restart kube-proxy: it programs a load balancer for every Service (doctor repair)',
                             'restart_kube_proxy'))
    return found


def check_services(snapshot, plan_node, plan_cluster, kube_proxy_mode='service', csi_proxy_mode='none'):
    services = snapshot.get('services') or {}
    found = []
    for name in expected_services(plan_node, plan_cluster, kube_proxy_mode, csi_proxy_mode):
        service = services.get(name)
        if service is None:
            continue  # not asked for in this snapshot
        if not service.get('exists'):
            found.append(finding('service-missing', 'error', 'service %s does not exist' % name,
                                 'site.yml has not run to the end on the node, or the service was removed',
                                 'run site.yml on the node'))
        elif service.get('state') != 'running':
            found.append(finding('service-stopped', 'error', 'service %s is %s (exit code %s)'
                                 % (name, service.get('state'), service.get('exit_code')),
                                 'it was stopped, or its program exits (see its log); its recovery actions did not '
                                 'bring it back', 'start it (doctor repair); if it stops again, read its log',
                                 'start_services', [name]))
    record = _converged.read_record(snapshot)
    if record and 'services' in (record.get('sections') or {}) and snapshot.get('services') is not None:
        # The record holds a digest of the services as site.yml left them (running); with every service taken
        # as running, a digest that still differs means their configuration changed: command line, start mode,
        # dependencies, environment or recovery.
        as_running = dict(snapshot, services={name: dict(service, state='running', exit_code=0)
                                              if service.get('exists') else service
                                              for name, service in services.items()})
        if _converged.section_digests(as_running)['services'] != record['sections']['services']:
            found.append(finding('service-config-changed', 'warning',
                                 'the configuration of the node\'s services (command line, start mode, dependencies, '
                                 'environment or recovery) is not what the last site.yml run left',
                                 'a service was reconfigured by hand or by another tool',
                                 'run site.yml on the node (it registers the services with the planned command lines)'))
    return found


# SERVICE_PRESHUTDOWN_INFO's default time-out from Windows build 15063 on (every Windows Server the collection supports),
# which a service without a PreshutdownTimeout of its own has.
DEFAULT_PRESHUTDOWN_TIMEOUT_MS = 10000


def check_graceful_shutdown(snapshot, node_vars=None):
    """With the kubelet role's kubelet_shutdown_grace_period, the kubelet service runs the kubelet itself (the SCM
    tells a native service, not nssm's child, of a shutdown) with its drop-in folder, where the periods are
    (_flags.shutdown_periods), and the running kubelet took its registration: at its start it raises its service's
    pre-shutdown time-out to the grace period and puts itself before its dependencies in the Control key's
    PreshutdownOrder (kubernetes/kubernetes pkg/kubelet/nodeshutdown/nodeshutdown_manager_windows.go); a kubelet that
    could not logs it and runs on without graceful shutdown."""
    grace = _role_option(node_vars, 'kubelet', 'kubelet_shutdown_grace_period')
    if grace in ('0', 'None'):
        return []
    service = (snapshot.get('services') or {}).get('kubelet') or {}
    if not service.get('exists'):
        return []  # check_services names a missing kubelet service
    flags = {word.split('=', 1)[0] for word in split_windows_command_line(_program_command_line(service))}
    missing = [flag for flag in ('--windows-service', '--config-dir') if flag not in flags]
    if missing:
        return [finding('graceful-shutdown-off', 'warning',
                        'the kubelet runs without %s: a shutdown or restart of the node does not wait for its pods '
                        '(kubelet_shutdown_grace_period is set)' % ' and '.join(missing),
                        'the kubelet service was registered again by hand or by another tool',
                        'run site.yml on the node (it registers the kubelet with its drop-in folder)')]
    if service.get('state') != 'running' or 'preshutdown_timeout_ms' not in service:
        return []  # check_services names a kubelet that does not run; a snapshot without the fields tells nothing
    return _preshutdown_registration(service, int(grace))


def _preshutdown_registration(service, grace_seconds):
    """graceful-shutdown-not-registered: the service's pre-shutdown time-out is shorter than the grace period, or a
    kubelet with dependencies (its runtime) is not in the pre-shutdown order, where it would be notified before
    them."""
    timeout_ms = service.get('preshutdown_timeout_ms')
    timeout_ms = DEFAULT_PRESHUTDOWN_TIMEOUT_MS if timeout_ms is None else timeout_ms
    problems = []
    if timeout_ms < grace_seconds * 1000:
        problems.append('its service\'s pre-shutdown time-out is %g s, shorter than the grace period of %d s: Windows '
                        'goes on shutting down before the pods are stopped' % (timeout_ms / 1000.0, grace_seconds))
    if service.get('dependencies') and not service.get('preshutdown_ordered'):
        problems.append('the kubelet is not in the pre-shutdown order (HKLM\\SYSTEM\\CurrentControlSet\\Control, '
                        'PreshutdownOrder): %s may stop before the pods do' % ', '.join(service['dependencies']))
    if not problems:
        return []
    return [finding('graceful-shutdown-not-registered', 'warning',
                    'the kubelet did not register for graceful shutdown: %s' % '; '.join(problems),
                    'the kubelet registers itself at its start, and did not: the WindowsGracefulNodeShutdown gate is '
                    'off (alpha before 1.34), the kubelet binary is older than 1.32, or its shutdown manager failed '
                    '("Failed to start node shutdown manager" in its log); or another tool lowered the time-out or '
                    'rewrote the order after the kubelet started',
                    'restart the kubelet (Restart-Service kubelet): it registers again at its start; if the finding '
                    'stays, read its log for "Failed to start node shutdown manager" and run site.yml on the node')]


def check_defender_exclusions(snapshot, plan_node, plan_paths, node_vars=None):
    """With the prerequisites role's prerequisites_defender_exclusions, a node whose Defender runs holds the
    collection's exclusions (_defender.exclusions); one whose Defender does not run needs none."""
    if _role_option(node_vars, 'prerequisites', _defender.OPTION) != 'True' or not plan_paths:
        return []
    defender = snapshot.get('defender')
    if not defender or not defender.get('running'):
        return []  # not read in this snapshot, or nothing scans
    wanted = _defender.exclusions(plan_paths, (plan_node or {}).get('container_runtime') or 'containerd')
    missing = _defender.missing(defender, wanted)
    absent = missing['paths'] + missing['processes']
    if not absent:
        return []
    return [finding(_defender.FINDING, 'warning',
                    'Microsoft Defender scans %s, which %s excludes' % (', '.join(absent), _defender.OPTION),
                    'an administrator, a Group Policy or a security baseline removed the exclusions, or site.yml has '
                    'not run on the node since the option was set',
                    'run site.yml on the node: the prerequisites role adds them again')]


def check_credential_providers(snapshot, node_vars=None):
    """The kubelet's image credential providers (the kubelet role's kubelet_credential_providers): the kubelet runs with
    --image-credential-provider-config and --image-credential-provider-bin-dir when providers are configured, and the
    file and each provider's <name>.exe they name are there (the snapshot reads every file the collection wrote). A
    kubelet whose config is gone does not start (it registers the plugins at start, pkg/credentialprovider/plugin),
    one whose binary is gone pulls from that registry without credentials."""
    providers = [provider for provider in (node_vars or {}).get('kubelet_credential_providers') or []
                 if isinstance(provider, Mapping) and provider.get('name')]
    service = (snapshot.get('services') or {}).get('kubelet') or {}
    if not service.get('exists'):
        return []  # check_services names a missing kubelet service
    flags = dict(word.split('=', 1) for word in split_windows_command_line(_program_command_line(service))
                 if word.startswith('--image-credential-provider-') and '=' in word)
    config, bin_dir = flags.get('--image-credential-provider-config'), flags.get('--image-credential-provider-bin-dir')
    if providers and not (config and bin_dir):
        return [finding('credential-provider-missing', 'warning',
                        'the kubelet runs without --image-credential-provider-config and --image-credential-provider-bin-dir: '
                        'kubelet_credential_providers names %s, whose registries it pulls from without credentials'
                        % ', '.join(provider['name'] for provider in providers),
                        'the kubelet service was registered again by hand or by another tool',
                        'run site.yml on the node (it registers the kubelet with both flags)')]
    if not (config or bin_dir):
        return []
    files = snapshot.get('files') or {}
    wanted = [config] + ['%s\\%s.exe' % (bin_dir.rstrip('\\'), provider['name']) for provider in providers if bin_dir]
    # Only a file the snapshot read can be missing: a path it does not list is one the collection never wrote.
    missing = [path for path in wanted if path and (files.get(path) or {}).get('exists') is False]
    if not missing:
        return []
    return [finding('credential-provider-missing', 'error',
                    'the kubelet runs with its image credential providers, but %s %s missing: %s'
                    % (', '.join(missing), 'is' if len(missing) == 1 else 'are',
                       'the kubelet does not start without its config' if config in missing
                       else 'image pulls from those registries get no credentials'),
                    'a file of the node was removed by hand or by another tool',
                    'run site.yml on the node (it installs the providers, verified, and writes their config)')]


def check_monitoring(snapshot, node_vars=None):
    """The monitoring role's endpoints as the inventory configures them: windows_exporter's service running
    (monitoring_windows_exporter), and the firewall rules of windows_exporter and of containerd's metrics (an address
    beyond the loopback) limited to monitoring_allowed_sources."""
    found = []
    services = snapshot.get('services') or {}
    exporter_on = _role_option(node_vars, _monitoring.ROLE, _monitoring.ENABLED_VARIABLE) == 'True'
    service = services.get(_monitoring.SERVICE_NAME)
    if exporter_on and service is not None and service.get('state') != 'running':
        exists = service.get('exists')
        found.append(finding(
            'windows-exporter-stopped', 'warning',
            'service %s %s: Prometheus gets no metrics from the node' % (
                _monitoring.SERVICE_NAME, 'is %s (exit code %s)' % (service.get('state'), service.get('exit_code'))
                if exists else 'does not exist'),
            'it was stopped or removed, or its program exits (see the Application event log, source windows_exporter)'
            if exists else 'site.yml has not run since monitoring_windows_exporter was set, or the service was removed',
            'start it (doctor repair); if it stops again, read its events' if exists else 'run site.yml on the node',
            'start_services' if exists else None, [_monitoring.SERVICE_NAME] if exists else ()))
    rules = {}
    if exporter_on:
        rules[_monitoring.EXPORTER_RULE] = 'windows_exporter'
    address = _role_option(node_vars, 'container_runtime', _monitoring.METRICS_VARIABLE)
    runtime = (node_vars or {}).get('kubewin_container_runtime') or 'containerd'
    parsed = _monitoring.listen_address(address) if address not in ('', 'None') else None
    if runtime == 'containerd' and isinstance(parsed, tuple) and not parsed[2]:
        rules[_monitoring.CONTAINERD_RULE] = "containerd's metrics"
    firewall = snapshot.get('firewall')
    if firewall is None or not rules:
        return found
    try:
        wanted = _ip_plan.parse_networks(_monitoring.SOURCES_VARIABLE, (node_vars or {}).get(_monitoring.SOURCES_VARIABLE)
                                         or [])
    except _ip_plan.IPPlanError:
        wanted = None  # the inventory check names it
    for name, endpoint in rules.items():
        rule = firewall.get(name) or {}
        read = sorted({_ip_plan.read_back_network(text) or text for text in rule.get('remote_address') or []},
                      key=_ip_plan.network_order)
        if rule.get('exists') and rule.get('enabled') and (wanted is None or read == wanted):
            continue
        what = ('firewall rule %s is missing or disabled' % name if not (rule.get('exists') and rule.get('enabled'))
                else 'firewall rule %s admits %s, not monitoring_allowed_sources (%s)'
                % (name, ', '.join(read) or 'every address', ', '.join(wanted)))
        found.append(finding('metrics-rule-changed', 'warning', '%s: %s' % (what, endpoint),
                             'the rule was removed or edited by hand, by a policy or by another tool',
                             'run site.yml on the node (the monitoring role writes the rule)'))
    return found


def check_no_flannel(snapshot):
    """calico: no flanneld service (one left from a flannel topology would take the node's networks and routes)."""
    service = (snapshot.get('services') or {}).get('flanneld') or {}
    if not service.get('exists'):
        return []
    return [finding('service-unexpected', 'error', 'service flanneld exists on a calico node (%s)' % service.get('state'),
                    'it is left from a flannel topology; flanneld and Calico would both program the node\'s HNS networks',
                    'remove it: run reset.yml on the node, then site.yml')]


def check_ovs(snapshot, plan_cluster, node_vars=None):
    """ovn: Open vSwitch's database answers and holds the bridge network_ovn made (the snapshot's ovs section)."""
    if (plan_cluster or {}).get('topology') != 'ovn' or snapshot.get('ovs') is None:
        return []
    ovs = snapshot['ovs']
    if ovs.get('database') is None:
        return [finding('ovs-database-unreadable', 'error', 'the Open vSwitch database cannot be read: %s'
                        % (ovs.get('database_error') or 'ovs-vsctl is not installed'),
                        'ovsdb-server is stopped, or Open vSwitch is not installed',
                        'start ovsdb-server (doctor repair starts stopped services), or run site.yml on the node')]
    bridge = _role_option(node_vars, *OVN_BRIDGE_OPTION)
    if bridge not in (ovs['database'].get('bridges') or {}):
        return [finding('ovs-bridge-missing', 'error', 'the Open vSwitch bridge %s does not exist' % bridge,
                        'it was deleted, or the network role did not run to the end; pods on the node have no network',
                        'run site.yml on the node: the network role recreates the bridge')]
    return []


def check_node_conditions(node_object, name, build=None):
    """The Node is registered, Ready, under no pressure, with the labels Windows workloads select it by."""
    if node_object is None:
        return [finding('node-not-registered', 'error', 'the cluster has no Node %s' % name,
                        'the node never joined, or its Node was deleted', 'run site.yml on the node')]
    found = []
    labels = windows_label_problems(node_object, build)
    if labels:
        found.append(finding('node-labels', 'error', 'Node %s %s' % (name, '; '.join(labels)),
                             'the kubelet sets these labels when it registers the Node; they were removed, or the '
                             'Node was registered by something else; pods that select Windows nodes do not land here',
                             'restart the kubelet, or run site.yml on the node'))
    for condition in (node_object.get('status') or {}).get('conditions') or []:
        kind, status = condition.get('type'), condition.get('status')
        if (kind == 'Ready' and status != 'True') or (kind in PRESSURE_CONDITIONS and status == 'True'):
            found.append(finding('node-condition', 'error' if kind in ('Ready', 'NetworkUnavailable') else 'warning',
                                 'Node condition %s is %s: %s' % (kind, status, condition.get('message') or
                                                                  condition.get('reason') or ''),
                                 'the kubelet reports it (Ready not True: the kubelet or the network is down, or the '
                                 'kubelet cannot reach the API server)',
                                 'see the kubelet\'s log; the other findings of this node name the likely cause'))
    return found


def check_reboot_pending(snapshot):
    if not snapshot.get('reboot_pending'):
        return []
    return [finding('reboot-pending', 'warning', 'Windows has a reboot pending',
                    'an update or a feature installation needs a restart; Windows Update may restart the node '
                    'without a drain', 'drain the node and restart it in a patch window (playbooks/patch.yml)')]


def check_disk(snapshot, limits):
    free = (snapshot.get('os') or {}).get('system_drive_free_bytes')
    if free is None or free >= limits['min_free_bytes']:
        return []
    return [finding('disk-space', 'warning', 'the system drive has %.1f GiB free (less than %.1f GiB)'
                    % (free / 1024 ** 3, limits['min_free_bytes'] / 1024 ** 3),
                    'container images and logs fill the drive; the kubelet evicts pods and garbage-collects images '
                    'at its thresholds', 'remove unused images (crictl rmi --prune) and old logs, or grow the drive')]


def _parse_time(text):
    if not text:
        return None
    text = re.sub(r'(\.\d{6})\d+', r'\1', str(text)).replace('Z', '+00:00')
    return datetime.datetime.fromisoformat(text)


def clock_skew(snapshot, control_plane):
    """Seconds the node's clock is ahead of the control plane's (negative: behind), or None.

    Both clocks are read at a known controller time (the snapshot's ``collected_at['os']``, the control plane's
    ``read_at``); the controller's clock carries one reading to the moment of the other."""
    node_now = _parse_time((snapshot.get('os') or {}).get('now'))
    node_read = (snapshot.get('collected_at') or {}).get('os')
    if node_now is None or node_read is None or not control_plane or control_plane.get('now') is None:
        return None
    return (node_now.timestamp() - float(node_read)) - (float(control_plane['now']) - float(control_plane['read_at']))


def check_clock(snapshot, control_plane, limits):
    skew = clock_skew(snapshot, control_plane)
    if skew is None or abs(skew) <= limits['max_clock_skew']:
        return []
    return [finding('clock-skew', 'error', 'the node\'s clock is %.0f s %s the control plane\'s'
                    % (abs(skew), 'ahead of' if skew > 0 else 'behind'),
                    'the Windows Time service is stopped or has no reachable time source; certificates and tokens '
                    'look not yet valid or expired, and the Node\'s lease looks stale',
                    'configure w32time with a reachable source (w32tm /config /manualpeerlist:... /update) and '
                    'resynchronise (w32tm /resync)')]


def recent_errors(text, now, window, limit):
    """The last ``limit`` klog error lines of ``text`` not older than ``window`` seconds before ``now``."""
    lines = []
    for line in (text or '').splitlines():
        match = KLOG.match(line)
        if not match or match.group(1) not in ERROR_LEVELS:
            continue
        month, day, hour, minute, second = (int(part) for part in match.groups()[1:])
        # klog writes no year: the line's is the node's, or last year's for a date after today.
        try:
            moment = datetime.datetime(now.year, month, day, hour, minute, second, tzinfo=now.tzinfo)
            if moment > now + datetime.timedelta(days=1):
                moment = moment.replace(year=now.year - 1)
        except ValueError:
            continue
        if (now - moment).total_seconds() <= window:
            lines.append(line.strip())
    return lines[-limit:]


def check_logs(snapshot, logs, limits):
    now = _parse_time((snapshot.get('os') or {}).get('now'))
    if now is None:
        return []
    found = []
    for name in sorted(logs or {}):
        lines = recent_errors(logs[name], now, limits['log_window'], limits['log_lines'])
        if lines:
            found.append(finding('log-errors', 'warning', '%s logged errors in the last %d minutes: %s'
                                 % (name, limits['log_window'] // 60, ' | '.join(lines)),
                                 'see the messages', 'see the whole log (playbooks/collect_logs.yml)'))
    return found


def check_gmsa(snapshot, gmsa, events, now, limits):
    """kubewin_gmsa: HNS's EnableCompartmentNamespace, the domain membership or the CCG plugin the mode needs, and the
    errors Container Credential Guard logged lately (the node_logs of its Admin log)."""
    state = snapshot.get('gmsa')
    if not (gmsa or {}).get('enabled') or state is None:
        return []
    found = []
    if state.get('compartment_namespace') != 1:
        found.append(finding('gmsa-compartment-namespace', 'error', 'HNS\'s %s is %s under %s'
                             % (_gmsa.COMPARTMENT_VALUE, state.get('compartment_namespace'), _gmsa.HNS_STATE_KEY),
                             'it was removed or never set; containerd\'s containers cannot reach SMB shares by name, '
                             'which gMSA workloads usually do (kubernetes-sigs/windows-gmsa#30)',
                             'run site.yml on the node, then recreate its gMSA pods'))
    problem = _gmsa.node_problem(state, gmsa, 'the node')
    if problem:
        found.append(finding('gmsa-not-domain-joined', 'error', problem.split(':')[0],
                             'it left the domain, or was never joined; its containers cannot take a gMSA identity',
                             problem.split(': ', 1)[1]))
    clsid = ((gmsa or {}).get('ccg_plugin') or {}).get('clsid')
    if gmsa.get('mode') == 'portable' and clsid and clsid.lower() not in [c.lower() for c in state.get('ccg_plugins') or []]:
        found.append(finding('gmsa-ccg-plugin-missing', 'error', 'the CCG plugin %s is not registered under %s'
                             % (clsid, _gmsa.COMCLASSES_KEY),
                             'it was removed, or its registry file registers another CLSID; Container Credential Guard '
                             'cannot get the accounts\' credentials on this node, which is not domain-joined',
                             'run site.yml on the node'))
    errors = [event for event in events or [] if event.get('level') in ('Error', 'Critical')
              and now is not None and (now - _parse_time(event['time'])).total_seconds() <= limits['log_window']]
    if errors:
        found.append(finding('gmsa-ccg-errors', 'warning', 'Container Credential Guard logged %d error(s) in the last %d '
                             'minutes in %s: %s' % (len(errors), limits['log_window'] // 60, _gmsa.CCG_LOG,
                                                    ' | '.join(e.get('message') or '' for e in errors[-limits['log_lines']:])),
                             'a pod\'s credential spec names an account the node may not retrieve, the domain is not '
                             'reachable, or the CCG plugin failed',
                             'see the messages; kubernetes.io "Configure GMSA for Windows Pods and containers", '
                             'Troubleshooting'))
    return found


def check_csi_proxy(snapshot, mode):
    """kubewin_csi_proxy service or hostprocess: csi-proxy serves the pipes of its v1 API groups."""
    pipes = (snapshot.get('csi_proxy') or {}).get('pipes')
    if mode not in ('service', 'hostprocess') or pipes is None:
        return []
    missing = [name for name in _csi_proxy.V1_PIPES if name not in pipes]
    if not missing:
        return []
    runs = ('its service %s' % _csi_proxy.SERVICE_NAME if mode == 'service'
            else 'its pod of the DaemonSet %s/%s' % (_csi_proxy.NAMESPACE, _csi_proxy.NAME))
    return [finding('csi-proxy-pipes-missing', 'error', 'csi-proxy serves none of the named pipes %s'
                    % ', '.join('\\\\.\\pipe\\' + name for name in missing) if len(missing) == len(_csi_proxy.V1_PIPES)
                    else 'csi-proxy does not serve %s' % ', '.join(missing),
                    '%s is not running (see its log); the CSI node plugins on this node cannot mount volumes' % runs,
                    'start it (a stopped service: doctor repair), or run site.yml on the node'
                    if mode == 'service' else 'see the pod\'s status and log; run site.yml')]


def check_credentials(snapshot):
    if not isinstance(snapshot.get('credentials'), dict):
        return []
    files = _credentials.unrestricted(snapshot['credentials'])
    if not files:
        return []
    return [finding('credentials-open', 'error', 'files holding credentials that others than SYSTEM and '
                    'Administrators may read: %s' % ', '.join(files),
                    'they were copied or restored without their ACL',
                    'run site.yml on the node (the join role restricts them)')]


def check_node_ports(snapshot, node_port_range, guard):
    """With prerequisites_node_port_guard check or exclude, no port of the NodePort range is in the node's dynamic TCP
    or UDP range without an exclusion covering it (_port_ranges.exposed)."""
    ports = snapshot.get('ports')
    if guard == 'off' or not ports or not node_port_range:
        return []
    try:
        exposed = _port_ranges.exposed(ports, _port_ranges.parse(node_port_range))
    except _port_ranges.PortRangeError:
        return []  # the preflight refuses a malformed range; netsh without numbers is no finding of this check
    if not any(exposed.values()):
        return []
    return [finding('dynamic-ports-overlap-nodeports', 'warning',
                    'the dynamic port range of the node hands out ports of the NodePort range %s (%s), which no '
                    'excluded port range covers: a connection over IPv4 or IPv6 (the ranges are the transport\'s) can '
                    'take a NodePort as its local port'
                    % (node_port_range, _port_ranges.describe(exposed)),
                    'the dynamic range was widened or the exclusions were deleted (netsh int ipv4 set dynamicport, '
                    'delete excludedportrange) after the last site.yml run',
                    'run site.yml on the node with prerequisites_node_port_guard: exclude (it adds the exclusions), or '
                    'move the range out of the NodePort range with netsh int ipv4 set dynamicport')]


def content_reads(plan_cluster, plan_paths):
    """The files whose text the checks read from the snapshot's ``contents`` (doctor.yml and patch's health check
    ask node_info for them): the CNI config (calico's is the operator's), kubeadm-flags.env, and SourceVip.json, the
    source VIP kube-proxy's DaemonSet pod reads on overlay."""
    calico = (plan_cluster or {}).get('topology') == 'calico'
    return [plan_paths['calico_cni_config_file'] if calico else plan_paths['cni_config_file'],
            ntpath.join(plan_paths['kubelet_dir'], 'kubeadm-flags.env'),
            _kube_proxy_daemonset.node_files(plan_paths)['source_vip_file']]


def diagnose(name, snapshot, plan_node=None, plan_cluster=None, plan_paths=None, cluster=None, logs=None,
             control_plane=None, limits=None, node_vars=None, event_logs=None):
    """Every finding for node ``name``, most severe first (see the module docstring for the inputs; ``node_vars`` is
    a mapping of the node's variables, of which the network roles' options and ``plan_features`` are read;
    ``event_logs`` the events node_logs read per event log)."""
    limits = dict(DEFAULT_LIMITS, **(limits or {}))
    snapshot = snapshot or {}
    node_object = _node_object(cluster, name) if cluster is not None else None
    pod_cidr = _pod_cidr(node_object, plan_node)
    found = []
    found += check_hns_networks(snapshot, plan_cluster, pod_cidr, node_vars)
    found += check_cni_config(snapshot, plan_node, plan_paths)
    if (plan_cluster or {}).get('topology') == 'calico':
        found += check_calico_cni_config(snapshot, plan_cluster, plan_paths)
        found += check_no_flannel(snapshot)
        if plan_cluster.get('calico_backend') == 'bgp':
            found += check_calico_bgp_router(snapshot)
    kube_proxy_mode = (node_vars or {}).get('plan_kube_proxy_mode', 'service')
    found += check_source_vip(snapshot, plan_cluster, pod_cidr, kube_proxy_mode, plan_paths)
    found += check_load_balancers(snapshot, plan_cluster, cluster)
    features = (node_vars or {}).get('plan_features') or {}
    csi_proxy_mode = features.get('csi_proxy', _csi_proxy.DEFAULT_MODE)
    found += check_services(snapshot, plan_node, plan_cluster, kube_proxy_mode, csi_proxy_mode)
    found += check_graceful_shutdown(snapshot, node_vars)
    found += check_defender_exclusions(snapshot, plan_node, plan_paths, node_vars)
    found += check_credential_providers(snapshot, node_vars)
    found += check_monitoring(snapshot, node_vars)
    found += _host_settings.check_windows_update(snapshot, features, finding)
    found += _host_settings.check_page_file(snapshot, node_vars, finding)
    found += _host_settings.check_commit_limit(snapshot, name, (plan_cluster or {}).get('max_pods'), node_vars, finding)
    found += check_csi_proxy(snapshot, csi_proxy_mode)
    found += check_gmsa(snapshot, features.get('gmsa'), (event_logs or {}).get(_gmsa.CCG_LOG),
                        _parse_time((snapshot.get('os') or {}).get('now')), limits)
    found += check_ovs(snapshot, plan_cluster, node_vars)
    found += check_node_ports(snapshot, features.get('node_port_range'),
                              _role_option(node_vars, 'prerequisites', _port_ranges.GUARD_OPTION))
    if cluster is not None:
        found += check_node_conditions(node_object, name, (snapshot.get('os') or {}).get('build'))
    found += check_reboot_pending(snapshot)
    found += check_disk(snapshot, limits)
    found += check_clock(snapshot, control_plane, limits)
    found += check_logs(snapshot, logs, limits)
    found += check_credentials(snapshot)
    return sorted(found, key=lambda f: 0 if f['severity'] == 'error' else 1)


def repair_plan(findings, kube_proxy_mode='service'):
    """What ``-e doctor_repair=true`` does about ``findings``, as the arguments of its tasks: the policy lists to
    remove, the services to start, how kube-proxy restarts (after the stale lists are gone: it then programs what
    is missing) and whether the CNI config is rewritten from the plan.

    kube-proxy restarts as it runs: a service is restarted on the node (``restart_kube_proxy``); a pod of the
    kube-proxy-windows DaemonSet (kubewin_kube_proxy_mode daemonset) is deleted through the Kubernetes API, where the
    doctor reads the cluster, and the DaemonSet controller creates it again (``restart_kube_proxy_pod``), as the
    kube_proxy role restarts it. There is no kube-proxy service to restart then."""
    def targets(repair):
        return sorted({target for f in findings if f.get('repair') == repair for target in f.get('targets') or []})

    wanted = {f['repair'] for f in findings if f.get('repair')}
    restart = (bool(wanted & {'remove_stale_load_balancers', 'restart_kube_proxy'})
               or 'kube-proxy' in targets('start_services'))
    return {'policy_lists': targets('remove_stale_load_balancers'),
            'start_services': [name for name in targets('start_services') if name != 'kube-proxy'],
            'restart_kube_proxy': restart and kube_proxy_mode != 'daemonset',
            'restart_kube_proxy_pod': restart and kube_proxy_mode == 'daemonset',
            'kube_proxy_pods': {'namespace': _kube_proxy_daemonset.NAMESPACE, 'label_selector': _kube_proxy_daemonset.pod_selector()},
            'rewrite_cni_config': 'rewrite_cni_config' in wanted}
