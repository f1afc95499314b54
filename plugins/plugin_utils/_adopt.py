# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Adoption of nodes that other tools set up: which layout a node has, and what site.yml does with each part.

Internal to kubewin.node, not a public API. The public interface is the ``kubewin.node.takeover`` filter, which
the prerequisites role runs on the node state snapshot right after it is taken, before anything changes.

Pure functions of the snapshot (``kubewin_node``) and the node's share of the plan: nothing here contacts a host.
The layouts recognised, from the scripts that make them (read in their repositories):

- ``sdn``: Microsoft SDN ``Kubernetes/flannel/start.ps1`` with ``register-svc.ps1`` and ``windows/helper.psm1``
  (microsoft/SDN): binaries and ``config`` (the kubeconfig every service uses) in ``C:\\k``, nssm in ``C:\\k``,
  the services ``kubelet``, ``kube-proxy`` and ``flanneld`` under nssm (flanneld from ``C:\\flannel``), the
  ``External`` placeholder network and flannel's ``cbr0`` (l2bridge) or ``vxlan0`` (overlay), Docker's ``nat``
  network, kube-proxy's source VIP in ``C:\\k\\sourceVip.json``.
- ``sig_windows_tools``: ``hostprocess/Install-Containerd.ps1`` and ``hostprocess/PrepareNode.ps1``
  (kubernetes-sigs/sig-windows-tools): containerd in ``C:\\Program Files\\containerd`` registered with
  ``containerd.exe --register-service``; nssm in ``C:\\Program Files\\nssm``; the ``kubelet`` service under nssm
  running ``powershell.exe ... C:\\k\\StartKubelet.ps1``, which reads kubeadm's flags; kube-proxy and flannel are
  not services but HostProcess DaemonSets of the cluster.
- ``by_hand``: Kubernetes services or files the collection did not install and neither script signature fits.
- ``kubewin``: the collection's own (its artifact record of the kubelet, or its convergence record); ``none``:
  nothing of Kubernetes. Neither has anything to take over.

Each part found becomes an item ``{'what', 'action', 'detail'}``; the actions say what the run does:
``take over`` (kept and managed from now on), ``replace`` (the collection's takes its place), ``remove`` (deleted by
the run) and ``leave`` (the run does not touch it; the detail says whether and how to remove it). A layout the run
cannot take over safely gives ``refusals``: the role fails with them before anything changed.
"""

from __future__ import annotations

import ntpath
import re

from ansible_collections.kubewin.node.plugins.plugin_utils import _converged, _hns

LAYOUTS = {
    'sdn': "Microsoft SDN start.ps1 (C:\\k, services under nssm)",
    'sig_windows_tools': "sig-windows-tools PrepareNode.ps1 / Install-Containerd.ps1",
    'by_hand': 'set up by hand (Kubernetes services or files of no known script)',
    'kubewin': 'the collection (kubewin.node)',
    'none': 'no Kubernetes node yet',
}
ACTIONS = ('take over', 'replace', 'remove', 'leave')

# Where the scripts put things (see the module docstring for the sources).
SDN_FLANNEL_DIR = 'C:\\flannel'
SDN_KUBECONFIG = 'config'
SDN_SOURCE_VIP = 'sourceVip.json'
PREPARE_NODE_SCRIPT = 'StartKubelet.ps1'
PREPARE_NODE_NSSM = 'C:\\Program Files\\nssm\\nssm.exe'
CONTAINERD_DIR = 'C:\\Program Files\\containerd'
# The placeholder network the network roles create (network_overlay_placeholder_name/_vsid and
# network_l2bridge_placeholder_name in their defaults); the SDN scripts' helper.psm1 names theirs the same.
PLACEHOLDER_NAME = 'External'
PLACEHOLDER_VSID = 9999
# Binaries the kubernetes_binaries and flannel roles install into kubernetes_dir.
BINARIES = ('kubelet.exe', 'kube-proxy.exe', 'kubeadm.exe', 'flanneld.exe', 'nssm.exe')
# How each service the collection manages runs: native, or under nssm (flanneld has no service mode;
# cri-dockerd neither).
UNDER_NSSM = ('flanneld', 'cri-dockerd')
RUNTIME_SERVICES = {'containerd': ('containerd',), 'docker': ('docker', 'cri-dockerd')}
POD_NETWORK_TYPES = ('l2bridge', 'overlay')
_HOSTNAME_FLAG = re.compile(r'--hostname-override(?:=|\s+)["\']?([A-Za-z0-9][A-Za-z0-9.-]*)', re.IGNORECASE)


def files_to_read(paths):
    """The files whose state the recognition needs, besides those the snapshot always reads (for node_info)."""
    kdir = paths['kubernetes_dir']
    return ([ntpath.join(kdir, name) for name in BINARIES + (SDN_KUBECONFIG, SDN_SOURCE_VIP, PREPARE_NODE_SCRIPT)]
            + [ntpath.join(SDN_FLANNEL_DIR, 'flanneld.exe'), PREPARE_NODE_NSSM,
               ntpath.join(CONTAINERD_DIR, 'containerd.exe'), ntpath.join(CONTAINERD_DIR, 'config.toml')])


def contents_to_read(paths):
    """The small text files the recognition reads: StartKubelet.ps1 holds the kubelet's node name."""
    return [ntpath.join(paths['kubernetes_dir'], PREPARE_NODE_SCRIPT)]


def _lower(path):
    return (path or '').lower()


def _file(snapshot, path):
    """The snapshot's entry of a file, looked up as Windows does (case-insensitively); None when absent."""
    for known, entry in ((snapshot or {}).get('files') or {}).items():
        if _lower(known) == _lower(path) and isinstance(entry, dict) and entry.get('exists'):
            return entry
    return None


def _content(snapshot, path):
    for known, entry in ((snapshot or {}).get('contents') or {}).items():
        if _lower(known) == _lower(path) and isinstance(entry, dict) and entry.get('exists'):
            return entry.get('text') or ''
    return None


def _services(snapshot):
    return {name: service for name, service in ((snapshot or {}).get('services') or {}).items()
            if isinstance(service, dict) and service.get('exists')}


def _program(service):
    """What a service runs: nssm's application and parameters, or its command line."""
    nssm = service.get('nssm') or None
    if nssm:
        return ' '.join(part for part in (nssm.get('application'), nssm.get('app_parameters')) if part)
    return service.get('command_line') or ''


def _is_collections(snapshot):
    """The collection has been at work on this node: its artifact records (kubewin.node.artifact writes one per
    verified download), or its convergence record."""
    if (snapshot or {}).get('artifacts'):
        return True
    return _content(snapshot, _converged.RECORD_PATH) is not None


def recognise(snapshot, paths):
    """``(layout, evidence)``: which of LAYOUTS the node has, and the facts that say so."""
    if _is_collections(snapshot):
        return 'kubewin', ['the collection recorded what it installed (kubewin.node.artifact) or the node converged']
    kdir = paths['kubernetes_dir']
    services = _services(snapshot)
    networks = ((snapshot or {}).get('hns') or {}).get('networks') or []
    evidence = {'sdn': [], 'sig_windows_tools': []}
    for name, service in sorted(services.items()):
        program = _lower(_program(service))
        nssm = service.get('nssm')
        command = _lower(service.get('command_line')).strip('"')
        if nssm and ntpath.dirname(command) == _lower(kdir) and command.endswith('nssm.exe'):
            evidence['sdn'].append('service %s runs %s under %s'
                                   % (name, nssm.get('application'), service.get('command_line')))
        if nssm and PREPARE_NODE_SCRIPT.lower() in program:
            evidence['sig_windows_tools'].append('service %s runs %s under nssm' % (name, _program(service)))
        if name == 'containerd' and _lower(service.get('command_line')).lstrip('"').startswith(
                _lower(ntpath.join(CONTAINERD_DIR, 'containerd.exe'))):
            evidence['sig_windows_tools'].append('service containerd runs %s (containerd.exe --register-service)'
                                                 % service.get('command_line'))
    for name in (SDN_KUBECONFIG, SDN_SOURCE_VIP):
        if _file(snapshot, ntpath.join(kdir, name)):
            evidence['sdn'].append('%s exists' % ntpath.join(kdir, name))
    if _file(snapshot, PREPARE_NODE_NSSM):
        evidence['sig_windows_tools'].append('%s exists' % PREPARE_NODE_NSSM)
    if any((network.get('name') or '') in ('vxlan0', 'cbr0') for network in networks) and evidence['sdn']:
        evidence['sdn'].append('HNS network %s exists' % ', '.join(
            sorted(n['name'] for n in networks if n.get('name') in ('vxlan0', 'cbr0'))))
    # PrepareNode.ps1's kubelet names the layout; containerd of Install-Containerd.ps1 alone is a runtime installed
    # ahead, which the container_runtime role takes over as it is.
    if any(PREPARE_NODE_SCRIPT in line for line in evidence['sig_windows_tools']):
        return 'sig_windows_tools', evidence['sig_windows_tools']
    if evidence['sdn']:
        return 'sdn', evidence['sdn']
    kubernetes = sorted(name for name in services if name in ('kubelet', 'kube-proxy', 'flanneld'))
    binaries = [ntpath.join(kdir, name) for name in BINARIES if _file(snapshot, ntpath.join(kdir, name))]
    if kubernetes or binaries:
        return 'by_hand', (['service %s exists' % name for name in kubernetes]
                           + ['%s exists' % path for path in binaries])
    return 'none', []


def managed_services(node, cluster):
    """The services site.yml registers on the node, each with whether it runs under nssm."""
    names = ['kubelet'] + list(RUNTIME_SERVICES.get(node.get('container_runtime') or 'containerd', ()))
    if cluster.get('topology') != 'ovn':
        names.append('kube-proxy')
    if cluster.get('l2bridge_routing') == 'flannel':
        names.append('flanneld')
    return {name: name in UNDER_NSSM for name in names}


def node_name_of_kubelet(snapshot, paths):
    """The Node name the existing kubelet registers as: its --hostname-override (from its service or from
    PrepareNode.ps1's StartKubelet.ps1), else the computer name lower-cased as the kubelet does; None when there
    is no kubelet service."""
    service = _services(snapshot).get('kubelet')
    if not service:
        return None
    texts = [_program(service), _content(snapshot, ntpath.join(paths['kubernetes_dir'], PREPARE_NODE_SCRIPT)) or '']
    for text in texts:
        match = _HOSTNAME_FLAG.search(text)
        if match:
            return match.group(1).lower()
    return (((snapshot or {}).get('os') or {}).get('hostname') or '').lower() or None


def _service_items(snapshot, node, cluster, refusals, host):
    items = []
    managed = managed_services(node, cluster)
    for name, service in sorted(_services(snapshot).items()):
        running = service.get('state') == 'running'
        nssm = service.get('nssm')
        was = ('runs %s under nssm' % _program(service)) if nssm else ('runs %s' % _program(service))
        if name in managed:
            if managed[name]:
                becomes = "stays under nssm with the collection's nssm settings (program, flags, log file)"
            elif nssm:
                becomes = ("becomes a native service running the collection's binary with its flags; nssm's "
                           "settings (the service's Parameters key) are removed")
            else:
                becomes = "is registered again with the collection's binary and flags"
            restart = ''
            if running and name == 'kubelet':
                restart = ('; it is stopped when it is registered again and the node is NotReady until the join '
                           'has finished')
            elif running:
                restart = '; it is restarted once the new program is in place'
            items.append({'what': 'service %s' % name, 'action': 'replace',
                          'detail': '%s; %s%s' % (was, becomes, restart)})
        elif name in ('docker', 'containerd', 'cri-dockerd'):
            items.append({'what': 'service %s' % name, 'action': 'leave',
                          'detail': '%s; not the runtime of the plan (%s): the kubelet no longer uses it, and its '
                                    'containers keep running until you stop and remove it'
                                    % (was, node.get('container_runtime'))})
        elif name in ('kube-proxy', 'flanneld') and running:
            refusals.append('%s: service %s %s, and the plan has no %s (topology %s%s): it would keep programming '
                            "the node's HNS beside the collection's network. Stop and delete it first "
                            '(sc.exe stop %s; sc.exe delete %s).'
                            % (host, name, was, name, cluster.get('topology'),
                               ', routing %s' % cluster.get('l2bridge_routing') if cluster.get('l2bridge_routing')
                               else '', name, name))
        elif name in ('kube-proxy', 'flanneld'):
            items.append({'what': 'service %s' % name, 'action': 'leave',
                          'detail': '%s, stopped; the plan does not use it' % was})
    return items


def _placeholder_item(hns, adapters, cluster, placeholder_name, placeholder_vsid):
    """What the network role's hns_network task does with the placeholder, decided by the same planning code."""
    if cluster.get('topology') not in POD_NETWORK_TYPES:
        return None
    network_type = 'Overlay' if cluster['topology'] == 'overlay' else 'L2Bridge'
    args = {'name': placeholder_name, 'type': network_type, 'state': 'present',
            'address_prefix': cluster.get('placeholder_cidr'), 'gateway': None,
            'vsid': placeholder_vsid if network_type == 'Overlay' else None, 'adapter_name': None}
    if not _hns.networks_named(hns.get('networks') or [], placeholder_name):
        return None
    try:
        operations, before, after, disruptive = _hns.plan_network(args, hns, adapters)
    except _hns.PlanError as exc:
        return {'what': 'HNS network %s' % placeholder_name, 'action': 'leave', 'detail': str(exc)}
    if not operations:
        return {'what': 'HNS network %s' % placeholder_name, 'action': 'take over',
                'detail': 'the vSwitch placeholder already as the plan wants it (%s %s)'
                          % (network_type, after.get('address_prefix'))}
    differences = _hns.network_differences(before, after)
    return {'what': 'HNS network %s' % placeholder_name, 'action': 'replace',
            'detail': 'differs from the plan in %s; removed and created again as %s %s%s'
                      % (', '.join(differences), network_type, after.get('address_prefix'),
                         " (the node's network drops for seconds)" if disruptive else '')}


def _endpoints_on(hns, network):
    return [endpoint for endpoint in hns.get('endpoints') or []
            if endpoint.get('network_name') == network.get('name') or endpoint.get('network_id') == network.get('id')]


def _network_items(snapshot, node, cluster, refusals, host, placeholder_name, placeholder_vsid):
    hns = (snapshot or {}).get('hns') or {}
    items = []
    placeholder = _placeholder_item(hns, (snapshot or {}).get('adapters') or [], cluster, placeholder_name,
                                    placeholder_vsid)
    if placeholder:
        items.append(placeholder)
    pod_network = cluster.get('network_name')
    for network in sorted(hns.get('networks') or [], key=lambda n: n.get('name') or ''):
        name = network.get('name') or ''
        if _hns.same_name(name, placeholder_name) and placeholder:
            continue
        described = _hns.describe_network(network)
        endpoints = _endpoints_on(hns, network)
        kind = (network.get('type') or '').lower()
        what = 'HNS network %s' % name
        if pod_network and _hns.same_name(name, pod_network):
            wanted = 'Overlay' if cluster.get('topology') == 'overlay' else 'L2Bridge'
            if kind != wanted.lower():
                refusals.append('%s: HNS network %s is %s, and the plan wants its pod network %s of type %s: '
                                'the pods on it keep their addresses. Drain the node, remove the network '
                                '(Get-HnsNetwork | Where-Object Name -eq %s | Remove-HnsNetwork) and run again.'
                                % (host, name, network.get('type'), pod_network, wanted, name))
                continue
            lease = node.get('pod_cidr')
            if lease and described.get('address_prefix') == lease:
                items.append({'what': what, 'action': 'take over',
                              'detail': 'the pod network on the node\'s podCIDR %s, kept' % lease})
            else:
                # flanneld keeps a network of its name, type and lease and creates it again otherwise
                # (flannel-io/flannel pkg/backend/vxlan/device_windows.go); hns_network does the same for static
                # routes (_hns.plan_network).
                items.append({'what': what, 'action': 'take over',
                              'detail': 'the pod network (%s %s, %d endpoints): kept when its subnet is the node\'s '
                                        'lease, else created again on it, and its endpoints go with it (the kubelet '
                                        'starts the pods again)' % (network.get('type'), described.get('address_prefix'),
                                                                    len(endpoints))})
        elif kind in POD_NETWORK_TYPES:
            refusals.append('%s: HNS network %s (%s %s, %d endpoints) is a pod network of another name than the '
                            "plan's (%s): site.yml would create %s beside it and the pods on %s would keep the old "
                            'addresses. Set kubewin_network_name: %s in group_vars/all to take it over (it names '
                            'the pod network of every Windows node of the fleet), and the next run goes through; or '
                            'drain the node and remove it '
                            '(Get-HnsNetwork | Where-Object Name -eq %s | Remove-HnsNetwork) first.'
                            % (host, name, network.get('type'), described.get('address_prefix'), len(endpoints),
                               pod_network, pod_network, name, name, name))
        elif kind == 'nat':
            items.append({'what': what, 'action': 'leave',
                          'detail': 'the NAT network of Docker or of the Containers feature; the pod network does '
                                    'not use it'})
        else:
            items.append({'what': what, 'action': 'leave',
                          'detail': '%s %s; the plan does not use it' % (network.get('type'), described.get('address_prefix'))})
    return items


def _file_items(snapshot, node, cluster, paths, layout):
    kdir = paths['kubernetes_dir']
    items = []
    managed = managed_services(node, cluster)
    for name in BINARIES:
        path = ntpath.join(kdir, name)
        installs = {'flanneld.exe': 'flanneld' in managed, 'nssm.exe': 'flanneld' in managed
                    or 'cri-dockerd' in managed, 'kube-proxy.exe': 'kube-proxy' in managed}.get(name, True)
        if _file(snapshot, path):
            items.append({'what': path, 'action': 'replace' if installs else 'leave',
                          'detail': 'replaced by the verified release of the inventory' if installs
                          else 'the plan does not use it'})
    sdn_kubeconfig = ntpath.join(kdir, SDN_KUBECONFIG)
    if _file(snapshot, sdn_kubeconfig):
        items.append({'what': sdn_kubeconfig, 'action': 'leave',
                      'detail': "the kubeconfig the old services used (the SDN guide copies the cluster admin's): "
                                'it holds a credential nothing of the collection uses; delete it once the node is Ready'})
    source_vip = ntpath.join(kdir, SDN_SOURCE_VIP)
    if _file(snapshot, source_vip):
        if cluster.get('topology') == 'overlay':
            items.append({'what': source_vip, 'action': 'take over',
                          'detail': "kube-proxy's source VIP record (SourceVip.json: Windows names are not case "
                                    'sensitive): kubewin.node.source_vip keeps the address when it is in the pod '
                                    'network\'s subnet, else releases it and reserves a new one'})
        else:
            items.append({'what': source_vip, 'action': 'leave', 'detail': 'an overlay record; the plan is not overlay'})
    for path, detail in ((ntpath.join(SDN_FLANNEL_DIR, 'flanneld.exe'),
                          'flanneld of the SDN scripts; the collection runs %s' % ntpath.join(kdir, 'flanneld.exe')),
                         (ntpath.join(kdir, PREPARE_NODE_SCRIPT), 'the kubelet service no longer runs it'),
                         (PREPARE_NODE_NSSM, 'no service of the collection runs it')):
        if _file(snapshot, path):
            items.append({'what': path, 'action': 'leave', 'detail': detail})
    containerd = ntpath.join(CONTAINERD_DIR, 'containerd.exe')
    if _file(snapshot, containerd) and layout != 'kubewin':
        if 'containerd' in managed:
            items.append({'what': CONTAINERD_DIR, 'action': 'replace',
                          'detail': 'containerd.exe and config.toml are replaced by the verified release and the '
                                    "collection's config (the container_runtime role's default folder)"})
        else:
            items.append({'what': CONTAINERD_DIR, 'action': 'leave', 'detail': 'not the runtime of the plan'})
    return items


def takeover(snapshot, host, node, cluster, paths, placeholder_name=PLACEHOLDER_NAME,
             placeholder_vsid=PLACEHOLDER_VSID, hostprocess_removed=False):
    """The takeover plan of a node: ``{layout, description, evidence, items, refusals}`` (see the module docstring).

    ``host`` is the inventory name, ``node``, ``cluster`` and ``paths`` the node's share of the plan (``plan_node``,
    ``plan_cluster``, ``plan_paths``); ``hostprocess_removed`` is the operator's word that the HostProcess
    DaemonSets of a sig-windows-tools node no longer run on it (the node cannot see them).
    """
    layout, evidence = recognise(snapshot, paths)
    result = {'layout': layout, 'description': LAYOUTS[layout], 'evidence': evidence, 'items': [], 'refusals': []}
    if layout in ('kubewin', 'none'):
        return result
    refusals = result['refusals']
    wanted = node['node_name']
    registered = node_name_of_kubelet(snapshot, paths)
    if registered and registered != wanted:
        refusals.append("%s: the kubelet set up by %s registers this node as Node '%s', and site.yml registers it "
                        "as '%s' (kubewin_node_name, else the inventory name lower-cased): Node %s would stay behind, "
                        'NotReady, with its pods. Set kubewin_node_name: %s on the host, or drain and delete Node %s '
                        '(kubectl drain, kubectl delete node) and delete the kubelet service (sc.exe delete kubelet) first.'
                        % (host, LAYOUTS[layout], registered, wanted, registered, registered, registered))
    if layout == 'sig_windows_tools' and cluster.get('topology') != 'ovn' and not hostprocess_removed:
        refusals.append('%s: %s runs kube-proxy and flannel as HostProcess DaemonSets of the cluster, and site.yml '
                        "runs them as services of the node: both would program the node's HNS. Delete those "
                        'DaemonSets (kube-proxy-windows and kube-flannel-ds-windows-amd64 in kube-system) or keep '
                        'them off this node, then set prerequisites_adopt_hostprocess_removed: true for it.'
                        % (host, LAYOUTS[layout]))
    result['items'] = (_service_items(snapshot, node, cluster, refusals, host)
                       + _network_items(snapshot, node, cluster, refusals, host, placeholder_name, placeholder_vsid)
                       + _file_items(snapshot, node, cluster, paths, layout))
    return result


def lines(plan):
    """The takeover plan as the run prints it, one line per part."""
    if not plan['items'] and not plan['refusals']:
        return ['layout: %s; nothing to take over' % plan['description']]
    out = ['layout: %s (%s)' % (plan['description'], '; '.join(plan['evidence']))]
    out += ['%s: %s - %s' % (item['action'], item['what'], item['detail']) for item in plan['items']]
    out += ['refused: %s' % refusal for refusal in plan['refusals']]
    return out
