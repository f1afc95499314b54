#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: node_info
short_description: Read a Windows node's state in one remote call
version_added: 0.1.0
description:
  - Reads, in one call, what the other kubewin.node modules decide from and returns it as the
    fact C(kubewin_node), the node state snapshot.
  - Windows version and build with its product name, installed features and whether a reboot
    is pending, network adapters with their IPv4 configuration (which one holds the default
    route, and the physical adapter behind each C(vEthernet) adapter), static IPv4 routes, HNS networks and
    endpoints, services of interest with state, start mode and command line, files of
    interest with their SHA256, and every file that holds a credential with its ACL profile.
  - Later modules that find what they need in a fresh snapshot make no remote call when they
    have nothing to change. Run this module again after anything outside this collection
    changed the node (a reboot, a script).
  - A whole read (without O(merge)) is also trusted, for the rest of the run that took it, to plan a change without
    reading the node again first, for what nothing but kubewin.node modules has changed since
    (RV(ansible_facts.kubewin_node.trusted)).
options:
  gather:
    description: Sections to read.
    type: list
    elements: str
    choices: [os, features, adapters, routes, hns, services, files, artifacts, contents, environment, firewall, ovs,
              credentials, scheduled_tasks, registry, remote_access, gmsa, csi_proxy, folders, ports, defender]
    default: [os, features, adapters, routes, hns, services, files, artifacts, contents, environment, firewall,
              ovs, credentials, scheduled_tasks, registry, remote_access, gmsa, csi_proxy, folders, ports, defender]
  features:
    description: Windows features whose install state to report.
    type: list
    elements: str
    default: [Containers, Hyper-V, Hyper-V-PowerShell, RemoteAccess, Routing, RSAT-RemoteAccess-PowerShell]
  services:
    description: Services to report (a missing service is reported with C(exists=false)).
    type: list
    elements: str
    default: [containerd, docker, cri-dockerd, kubelet, kube-proxy, flanneld, ovs-vswitchd, ovsdb-server,
              ovn-controller, csiproxy, windows_exporter]
  files:
    description: Absolute paths of files whose existence, size, SHA256 and ACL profile to report, besides every
      file the collection manages (which are always reported).
    type: list
    elements: str
    default: []
  contents:
    description: Absolute paths of small text files (up to 1 MiB) whose content to report, besides every managed
      file whose module asked for its content to be tracked (such as the C(SourceVip.json) of
      M(kubewin.node.source_vip)), which is always reported, and the convergence record
      C(C:\ProgramData\kubewin\converged.json) M(kubewin.node.node_converged) decides from, which is always read.
    type: list
    elements: str
    default: ['C:\var\lib\kubelet\kubeadm-flags.env']
  environment:
    description: Names of machine-scope environment variables whose value to report.
    type: list
    elements: str
    default: [HTTP_PROXY, HTTPS_PROXY, NO_PROXY, CRI_CONFIG_FILE]
  firewall_rules:
    description: Names (ids) of Windows Firewall rules to report.
    type: list
    elements: str
    default: []
  credentials:
    description:
      - Files that hold a credential, each a folder and a file name that may hold wildcards (C(*), C(?)). Every file
        they match is reported with its ACL profile, which must be C(secret) (only SYSTEM and Administrators may
        open it); M(kubewin.node.node_credentials) repairs any that is not.
      - The default is the node layout's kubeconfigs (kubeadm's, the kubelet's, kube-proxy's and flanneld's) and
        the kubelet's certificates and keys; the prerequisites role passes the same for the plan's folders.
    type: list
    elements: str
    default: ['C:\etc\kubernetes\*.conf', 'C:\var\lib\kubelet\pki\*.pem', 'C:\var\lib\kubelet\pki\*.key',
              'C:\etc\kube-flannel\kubeconfig']
  registry_keys:
    description:
      - Registry keys whose existence and values to report, as Registry provider paths below C(HKLM:\), e.g.
        C(HKLM:\SOFTWARE\Tigera\Calico) (what Calico for Windows keeps there; the reset removes it) or
        C(HKLM:\SOFTWARE\Policies\Microsoft\Windows\WindowsUpdate\AU) (the policy M(kubewin.node.registry_values)
        sets with C(kubewin_patch_managed)).
    type: list
    elements: str
    default: []
  folders:
    description:
      - Folders whose entries to list, by name (nothing is hashed). A module asking for a file of one that is not
        listed, or under one that is missing, plans from the snapshot (the file is not there); the prerequisites role
        passes the node layout's folders, so that a fresh node's converge reads none of its files again.
    type: list
    elements: str
    default: []
  max_age:
    description: Seconds for which other modules may use the snapshot instead of reading the node.
    type: int
    default: 900
  merge:
    description:
      - Fold the sections read into the existing C(kubewin_node) fact instead of replacing it. Sections not
        read keep their content and their age.
      - For a loop that waits for one thing (an HNS network) without discarding the rest of the snapshot.
    type: bool
    default: false
  decide:
    description:
      - Also decide, on the controller, whether the node is converged, as M(kubewin.node.node_converged) does, from
        the snapshot just read, and return its RV(converged), RV(reasons), RV(inputs), RV(credentials) and RV(path).
        The prerequisites role does, so that a converged node costs one task.
    type: bool
    default: false
  early_end:
    description: With O(decide), when false the node is never reported as converged (the reasons say so).
    type: bool
    default: true
extends_documentation_fragment:
  - kubewin.node.node_action
attributes:
  diff_mode:
    support: none
    details: It changes nothing.
seealso:
  - module: kubewin.node.hns_network
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Take the node state snapshot
  kubewin.node.node_info:
    files:
      - C:\k\kubelet.exe

- name: Show the Windows release
  ansible.builtin.debug:
    msg: "{{ kubewin_node.os.product }} build {{ kubewin_node.os.build }}"
'''

RETURN = r'''
ansible_facts:
  description: The facts the module sets.
  returned: success
  type: dict
  contains:
    kubewin_node:
      description: The snapshot (returned only as this fact).
      type: dict
      contains:
        os:
          description: Hostname, version, build, UBR, product, release, edition, last boot time, free bytes on
            the system drive, and in kilobytes the physical memory (C(memory_kb)), what the page files hold
            (C(page_files_kb)) and the commit limit, the two added (C(commit_limit_kb)).
          type: dict
          sample: {"build": 20348, "product": "Windows Server 2022", "release": "21H2", "version": "10.0.20348"}
        features:
          description: Install state (C(installed), C(available), C(installpending), ...) of each feature asked for.
          type: dict
          sample: {"Containers": "installed"}
        reboot_pending:
          description: Whether Windows waits for a reboot.
          type: bool
        adapters:
          description: Network adapters with C(name), C(if_index), C(mac_address), C(status), C(virtual),
            C(physical_adapter), C(default_route), C(ipv4), C(gateway), C(dns_servers), C(dhcp).
          type: list
          elements: dict
        routes:
          description: Static IPv4 routes (protocol NetMgmt) other than default routes, each with C(destination),
            C(next_hop), C(interface_alias), C(interface_index), C(metric), and whether it is C(active) (in the
            routing table in use) and C(persistent) (restored at boot).
          type: list
          elements: dict
        hns:
          description: C(available), C(networks) and C(endpoints) of the Host Networking Service.
          type: dict
        services:
          description: Each service asked for, by name.
          type: dict
        files:
          description: Each file asked for, by path, with C(exists), C(size) and C(sha256).
          type: dict
        artifacts:
          description: Each artifact destination M(kubewin.node.artifact) installed, with its C(url), C(checksum)
            and the verified SHA-256 of each of its C(files).
          type: dict
        contents:
          description: Each text file asked for, each managed file whose content is tracked and the convergence
            record, by path, with C(exists) and C(text).
          type: dict
        environment:
          description: Each machine environment variable asked for, by name (null when unset).
          type: dict
        firewall:
          description: Each firewall rule asked for, by name, with C(exists), C(enabled), C(direction), C(action),
            C(protocol), C(local_port) and C(remote_address) (as Windows reads it back; empty for any).
          type: dict
        ovs:
          description: Open vSwitch - C(products) (the installed Open vSwitch MSI with its C(version) and the state of
            each of its C(features)), C(vsctl) (path of ovs-vsctl), C(database) (C(bridges) with their C(ports), and the
            C(external_ids) of the Open_vSwitch table; null while ovsdb-server is not running) and C(switches) (each
            vSwitch with its C(adapter) and the state of the OVS C(extension)).
          type: dict
        credentials:
          description: Each credential pattern asked for, with the files it matches and the ACL profile of each
            (C(secret), C(protected), C(inherited) or C(custom)).
          type: dict
          sample: {"C:\\etc\\kubernetes\\*.conf": {"C:\\etc\\kubernetes\\kubelet.conf": "secret"}}
        scheduled_tasks:
          description: The scheduled tasks of the collection's task folder C(\\kubewin\\), by name, with C(description),
            C(state), C(actions) (C(execute), C(arguments)), C(triggers) (C(start), C(interval) as Task Scheduler keeps it,
            e.g. C(PT1H)), C(user_id) and C(run_level).
          type: dict
        registry:
          description: Each registry key asked for, by its C(HKLM:\) path, with C(exists) and, for a key that exists,
            C(values), each value by name as C({kind, data}) - its kind as C(RegistryValueKind) names it (C(DWord),
            C(String), C(ExpandString), C(MultiString), C(QWord), C(Binary)) and its data as stored (a C(DWord) as a
            signed 32-bit number, an C(ExpandString) unexpanded).
          type: dict
        remote_access:
          description: Remote Access as a LAN router, which calico's C(bgp) backend needs. C(module) whether the
            RemoteAccess PowerShell module is installed; C(routing) its C(RoutingStatus) (C(Installed) once
            C(Install-RemoteAccess -VpnType RoutingOnly) ran), null without the module; C(service) and C(start_type)
            of the service RemoteAccess, null without the Remote Access role.
          type: dict
        folders:
          description: Each folder asked for, with the names of its entries, null when it is missing.
          type: dict
        ports:
          description: Per protocol (C(tcp), C(udp)) of IPv4, the dynamic (ephemeral) port range as
            C(netsh interface ipv4 show dynamicport) shows it (C(dynamic_start), C(dynamic_count)) and the C(excluded)
            port ranges (C(start), C(end), C(administered) for one added with C(netsh ... add excludedportrange)).
            M(kubewin.node.port_ranges) decides from it.
          type: dict
          sample: {"tcp": {"dynamic_start": 49152, "dynamic_count": 16384, "excluded": []}}
        defender:
          description: Microsoft Defender Antivirus. C(installed) whether its PowerShell module is there (Windows
            Server removes it with the feature C(Windows-Defender)); C(running) whether its service answers
            C(Get-MpComputerStatus) with C(AMServiceEnabled); C(exclusion_path) and C(exclusion_process) its
            exclusion lists (empty unless it runs).
          type: dict
          sample: {"installed": true, "running": true, "exclusion_path": [], "exclusion_process": []}
        collected_at:
          description: Controller time at which each section was read.
          type: dict
        trusted:
          description:
            - For a whole read, the run that took it (C(run)), the sections read (C(sections)) and what the node's
              running programs and the later modules' changes may have moved since (C(distrusted), per section the
              names or folders, or C(*) for all of it). A later module of the same run plans its change from what is
              trusted without reading the node first. Absent where the controller cannot name its run (no C(/proc)).
          type: dict
        max_age:
          description: Seconds for which the snapshot is used.
          type: int
converged:
  description: Whether the node is converged (M(kubewin.node.node_converged)).
  returned: success and O(decide)
  type: bool
reasons:
  description: Why the node is not converged.
  returned: success and O(decide)
  type: list
  elements: str
inputs:
  description: The digest of this run's inputs, for the record the end of a full run writes.
  returned: success and O(decide)
  type: str
credentials:
  description: The digest of the credentials the record was written with (null without a record).
  returned: success and O(decide)
  type: str
path:
  description: Where the convergence record lives on the node.
  returned: success and O(decide)
  type: str
'''
