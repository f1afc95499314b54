#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: remote_access_routing
short_description: Install Remote Access as a LAN router on a node, for Calico's BGP backend
version_added: 0.1.0
description:
  - Runs C(Install-RemoteAccess -VpnType RoutingOnly) when the node's Remote Access is not installed as a router
    (C(Get-RemoteAccess) reports C(RoutingStatus) other than C(Installed)), then starts the service
    C(RemoteAccess) when it is not running. Calico's C(bgp) backend needs both - its confd configures BGP through
    the RemoteAccess module's BgpRouter cmdlets, and calico-node-windows restarts the service after it creates its
    network. Source, tigera/docs C(CalicoWindowsInstall.js).
  - The features C(RemoteAccess), C(RSAT-RemoteAccess-PowerShell) and C(Routing) must be installed and the node
    restarted first (the prerequisites role does that for C(kubewin_calico_backend=bgp)); without them the module
    fails, naming them.
  - Decides from the C(remote_access) section of the M(kubewin.node.node_info) snapshot, so a configured node costs
    no remote call.
options: {}
extends_documentation_fragment:
  - kubewin.node.node_action
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Install Remote Access as a LAN router for Calico's BGP
  kubewin.node.remote_access_routing:
'''

RETURN = r'''
remote_access:
  description: Remote Access as it now is (C(module), C(routing), C(service), C(start_type)).
  returned: success
  type: dict
'''
