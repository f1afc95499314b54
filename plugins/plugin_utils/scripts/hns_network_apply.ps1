# kubewin-script: hns_network_apply
# Removes and/or creates an HNS network on a node whose adapter already carries a
# vSwitch (no network drop expected). The first network on an adapter goes through
# hns_network_worker instead. Returns the node's HNS and adapter state after the
# change, which is what the module verifies.
[CmdletBinding(SupportsShouldProcess)]
param(
    [string[]]$RemoveIds = @(),
    [string]$Name,
    [ValidateSet('L2Bridge', 'Overlay', 'Transparent')][string]$Type,
    [string]$AddressPrefix,
    [string]$Gateway,
    # The IPv6 subnet of a dual-stack L2Bridge network.
    [string]$Ipv6AddressPrefix,
    [string]$Ipv6Gateway,
    [string]$AdapterName,
    [int]$Vsid
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

# HNS calls know nothing of -WhatIf: under it (win_powershell in check mode) none is made.
foreach ($id in $RemoveIds) {
    if ($PSCmdlet.ShouldProcess("HNS network $id", 'Delete')) { Remove-KubeWinHnsNetwork -Id $id }
}
$created = $null
if ($Name -and $PSCmdlet.ShouldProcess("HNS network $Name", 'Create')) {
    $vsidValue = $null
    if ($PSBoundParameters.ContainsKey('Vsid')) { $vsidValue = $Vsid }
    $created = New-KubeWinHnsNetwork -Spec ([ordered]@{
            name = $Name; type = $Type; address_prefix = $AddressPrefix
            gateway = $Gateway; adapter = $AdapterName; vsid = $vsidValue
            ipv6_address_prefix = $Ipv6AddressPrefix; ipv6_gateway = $Ipv6Gateway
        })
}
$Ansible.Result = ConvertTo-Json -Depth 10 -Compress -InputObject ([ordered]@{
        removed = @($RemoveIds)
        created = $created
        state = Get-KubeWinNodeState -Sections @('adapters', 'hns')
    })
