# kubewin-script: hns_endpoint_apply
# Removes and/or creates an HNS endpoint, and attaches it to the host compartment
# (the l2bridge host endpoint that lets the node reach its own pods). Returns the
# node's HNS state after the change, which is what the module verifies.
[CmdletBinding(SupportsShouldProcess)]
param(
    [string[]]$RemoveIds = @(),
    [string]$Name,
    [string]$NetworkId,
    [string]$IPAddress,
    # A dual-stack host endpoint's IPv6 address (hcsshim HNSEndpoint IPv6Address).
    [string]$IPv6Address,
    [string]$AttachId,
    [switch]$AttachHost
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

function Connect-HostEndpoint {
    param([string]$Id, [string]$EndpointName)
    try {
        $null = Invoke-KubeWinHns -Method POST -Path "/endpoints/$Id/attach" -Body @{ SystemType = 'Host'; CompartmentId = 1 }
    }
    catch {
        # A second attach of the same endpoint fails; that is the state we want.
        if (-not (Get-NetAdapter -Name "vEthernet ($EndpointName)" -ErrorAction SilentlyContinue)) { throw }
    }
    # The node routes between its pods and the host endpoint, in each family the endpoint has.
    Set-NetIPInterface -InterfaceAlias "vEthernet ($EndpointName)" -AddressFamily IPv4 -Forwarding Enabled
    if ($IPv6Address) {
        Set-NetIPInterface -InterfaceAlias "vEthernet ($EndpointName)" -AddressFamily IPv6 -Forwarding Enabled
    }
}

# HNS calls know nothing of -WhatIf: under it (win_powershell in check mode) none is made.
foreach ($id in $RemoveIds) {
    if ($PSCmdlet.ShouldProcess("HNS endpoint $id", 'Delete')) {
        $null = Invoke-KubeWinHns -Method DELETE -Path "/endpoints/$id"
    }
}
$endpoint = $null
if ($Name -and -not $AttachId -and $PSCmdlet.ShouldProcess("HNS endpoint $Name", 'Create')) {
    # hcsshim's HNSEndpoint omits an empty IPAddress (omitempty); HNS is never sent "".
    $request = [ordered]@{ Name = $Name; VirtualNetwork = $NetworkId }
    if ($IPAddress) { $request.IPAddress = $IPAddress }
    if ($IPv6Address) { $request.IPv6Address = $IPv6Address }
    $created = Invoke-KubeWinHns -Method POST -Path '/endpoints/' -Body $request
    $AttachId = $created.ID
}
if ($AttachId -and $AttachHost -and $PSCmdlet.ShouldProcess("HNS endpoint $AttachId", 'Attach to the host')) {
    Connect-HostEndpoint -Id $AttachId -EndpointName $Name
}
if ($AttachId) {
    $endpoint = ConvertTo-KubeWinEndpoint -Endpoint (Invoke-KubeWinHns -Method GET -Path "/endpoints/$AttachId")
}
$Ansible.Result = ConvertTo-Json -Depth 10 -Compress -InputObject ([ordered]@{
        removed = @($RemoveIds)
        endpoint = $endpoint
        state = Get-KubeWinNodeState -Sections @('hns')
    })
