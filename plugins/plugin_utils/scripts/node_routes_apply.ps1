# kubewin-script: node_routes_apply
# Removes and adds static routes (IPv4, and IPv6 on a dual-stack node), then reports the node's static routes. A route is
# added to the routing table in use and to the persistent one Windows restores at boot;
# one is removed from both.
[CmdletBinding(SupportsShouldProcess)]
param(
    # Each @{destination; next_hop; interface_index}. Lists come as parameters, not JSON text: in Windows
    # PowerShell 5.1 ConvertFrom-Json writes a parsed array as one object, so a loop over it ran once.
    [hashtable[]]$Remove = @(),
    # Each @{destination; next_hop; interface_alias; metric; family (IPv4 or IPv6)}
    [hashtable[]]$Add = @()
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

# NetTCPIP's cmdlets are CDXML functions: they read $WhatIfPreference in the global scope only, where it is when
# win_powershell runs this text but not when it runs a script file (a scope of its own); -WhatIf:$WhatIfPreference
# hands them this script's (check mode).
foreach ($route in $Remove) {
    foreach ($store in @('ActiveStore', 'PersistentStore')) {
        $found = @(Get-NetRoute -DestinationPrefix $route.destination -InterfaceIndex $route.interface_index `
                -PolicyStore $store -ErrorAction SilentlyContinue | Where-Object { $_.NextHop -eq $route.next_hop })
        foreach ($entry in $found) { $entry | Remove-NetRoute -Confirm:$false -WhatIf:$WhatIfPreference }
    }
}
foreach ($route in $Add) {
    # Without -PolicyStore New-NetRoute writes both stores, so the route survives a reboot.
    $null = New-NetRoute -AddressFamily $route.family -DestinationPrefix $route.destination -InterfaceAlias $route.interface_alias `
        -NextHop $route.next_hop -RouteMetric ([uint16]$route.metric) -Confirm:$false -WhatIf:$WhatIfPreference
}
$Ansible.Result = ConvertTo-Json -Depth 6 -Compress -InputObject ([ordered]@{
        state = Get-KubeWinNodeState -Sections @('adapters', 'routes')
    })
