#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: openvswitch
short_description: Open vSwitch and the OVN host settings on a Windows node
version_added: 0.1.0
description:
  - Brings a Windows node to the OVN/OVS host setup of the source documents, changing only what differs.
  - Installs the Open vSwitch MSI unattended (C(msiexec /i <msi> ADDLOCAL="<features>" /qn)) unless a Windows
    Installer product named Open vSwitch is installed with all of O(features) (and, when given, at O(version)).
  - Makes the OVS bridge O(bridge) on the vSwitch of the Transparent HNS network O(network) - the host vNIC
    (V(vEthernet (<adapter>\)), or O(internal_port)) as an internal port and the network's physical adapter as a
    port, with the C(Cloudbase Open vSwitch Extension) enabled on that vSwitch. When the bridge is missing, lacks
    either port, a port reports an error, or the extension is disabled (as on a vSwitch created anew), it stops
    C(ovs-vswitchd), disables the extension, recreates the bridge, adds both ports, enables the extension and
    starts C(ovs-vswitchd) again. Other ports on the bridge are left alone when nothing else is wrong.
  - Sets O(external_ids) in the C(Open_vSwitch) table (C(system-id), C(ovn-remote), C(ovn-nb), C(ovn-encap-ip),
    C(ovn-encap-type), ...); keys not given are left alone.
  - Starts C(ovsdb-server), C(ovs-vswitchd) and, with the C(OVNHost) feature, C(ovn-controller) when they are not
    running.
  - With O(state=absent), takes the node out of OVN and leaves Open vSwitch installed - stops C(ovn-controller),
    deletes the bridge O(bridge) (first disabling the extension on the vSwitch of any adapter that is a port of it,
    so that vSwitch forwards on its own again) and removes the OVN keys (C(system-id), C(ovn-remote), C(ovn-nb),
    C(ovn-encap-ip), C(ovn-encap-type)) and the keys of O(external_ids) from the C(Open_vSwitch) table.
    The C(kubewin.node.reset) role does this after removing the Transparent network.
  - Installing the switch extension and moving the adapter under the bridge interrupt the node's network, so the
    changes run detached on the node and the module reconnects, as M(kubewin.node.hns_network) does.
  - Decides from the C(ovs) section of the M(kubewin.node.node_info) snapshot (when it is at least as new as the
    snapshot's HNS networks), so a node that needs nothing costs no remote call. Needs the Hyper-V PowerShell
    module on the node (the C(Hyper-V-PowerShell) feature) for the vSwitch extension.
options:
  msi:
    description:
      - Absolute path of the Open vSwitch MSI on the node (verified, for example with M(kubewin.node.artifact)).
      - Required when Open vSwitch is not installed as requested.
    type: str
  features:
    description: MSI features to install (C(ADDLOCAL)); all must be installed locally.
    type: list
    elements: str
    default: [OpenvSwitchCLI, OpenvSwitchDriver, OVNHost]
  version:
    description: Version the installed product's version must start with; installs O(msi) when it does not.
    type: str
  network:
    description:
      - Name of the Transparent HNS network whose vSwitch carries the bridge.
      - Required with O(state=present).
    type: str
  adapter:
    description:
      - Physical adapter, only used while O(network) does not exist (a check run on a fresh node); the network's
        adapter otherwise. Default, the adapter that holds the default route.
    type: str
  bridge:
    description: Name of the OVS bridge.
    type: str
    default: br-ex
  internal_port:
    description: Name of the internal port, which must be the name of the vSwitch's host vNIC; default
      V(vEthernet (<adapter>\)).
    type: str
  external_ids:
    description:
      - Keys and values to set in the C(external_ids) of the C(Open_vSwitch) table.
      - With O(state=absent), keys to remove besides the OVN keys (their values are ignored).
    type: dict
    default: {}
  timeout:
    description: Seconds to wait for the node to finish and answer again.
    type: int
    default: 600
  state:
    description:
      - V(present) sets the node up as described; V(absent) takes it out of OVN (Open vSwitch stays installed).
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.hns_network
  - module: kubewin.node.node_info
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: OVS bridge on the Transparent network, connected to the OVN central node
  kubewin.node.openvswitch:
    msi: C:\k\ovs\openvswitch.msi
    network: external
    external_ids:
      system-id: win-1
      ovn-remote: tcp:10.127.130.10:6642
      ovn-nb: tcp:10.127.130.10:6641
      ovn-encap-ip: 10.127.130.41
      ovn-encap-type: geneve

- name: Take the node out of OVN after its Transparent network is removed
  kubewin.node.openvswitch:
    state: absent
'''

RETURN = r'''
openvswitch:
  description:
    - The Open vSwitch setup as it now is (as it would be, in check mode, when it changes).
    - With O(state=absent), C(bridge) holds only C(name) and C(exists), C(external_ids) every OVN key, and
      C(services) only C(ovn-controller).
  returned: success
  type: dict
  contains:
    product:
      description: C(installed), C(version) and the locally installed C(features).
      type: dict
    bridge:
      description: C(name), C(exists), C(ports) (each with C(type) and C(error)), C(switch) and C(extension_enabled).
      type: dict
    external_ids:
      description: The value of each key of O(external_ids).
      type: dict
    services:
      description: State of each OVS/OVN service.
      type: dict
operations:
  description:
    - What was done (C(install), C(rebuild_bridge), C(set_external_ids), C(start_services); with O(state=absent)
      C(stop_services), C(remove_bridge), C(remove_external_ids)).
  returned: changed and not check mode
  type: list
  elements: str
reboot_required:
  description: Whether the MSI asked for a reboot (exit code 3010).
  returned: changed and not check mode
  type: bool
'''
