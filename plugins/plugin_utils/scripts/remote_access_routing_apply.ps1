# kubewin-script: remote_access_routing_apply
# Installs Remote Access as a LAN router (Calico's bgp backend configures BGP through it) and starts its
# service, as tigera/docs CalicoWindowsInstall.js does after the features and the restart; then reports it.
[CmdletBinding(SupportsShouldProcess)]
param()
$ErrorActionPreference = 'Stop'

# kubewin-include: state

# A second Install-RemoteAccess on an installed router is not what its reference page describes: check first.
if ([string](Get-RemoteAccess).RoutingStatus -ne 'Installed') {
    # A CDXML function: it reads $WhatIfPreference in the global scope only (not where a script file has it).
    Install-RemoteAccess -VpnType RoutingOnly -WhatIf:$WhatIfPreference
}
# The install starts the service, "sometimes" not (tigera/docs): start it when it is not running.
if ((Get-Service -Name RemoteAccess).Status -ne 'Running') {
    Start-Service -Name RemoteAccess
}
$Ansible.Result = ConvertTo-Json -Depth 5 -Compress -InputObject ([ordered]@{
        state = Get-KubeWinNodeState -Sections @('remote_access')
    })
