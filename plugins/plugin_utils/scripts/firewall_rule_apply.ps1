# kubewin-script: firewall_rule_apply
# Creates, updates or removes one inbound or outbound Windows Firewall rule by its
# name (its unique id), then reports it.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][ValidatePattern('^[A-Za-z0-9_.-]+$')][string]$Name,
    [string]$DisplayName,
    [ValidateSet('inbound', 'outbound')][string]$Direction = 'inbound',
    [ValidateSet('tcp', 'udp')][string]$Protocol = 'tcp',
    [string[]]$LocalPort = @(),
    [string[]]$RemoteAddress = @(),
    [ValidateSet('allow', 'block')][string]$Action = 'allow',
    [switch]$Remove
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

$existing = Get-NetFirewallRule -Name $Name -ErrorAction SilentlyContinue
# NetSecurity's cmdlets are CDXML functions: they read $WhatIfPreference in the global scope only, where it is when
# win_powershell runs this text but not when it runs a script file (a scope of its own); -WhatIf:$WhatIfPreference
# hands them this script's (check mode).
if ($Remove) {
    if ($existing) { Remove-NetFirewallRule -Name $Name -WhatIf:$WhatIfPreference }
}
else {
    $settings = @{
        Direction = @{ inbound = 'Inbound'; outbound = 'Outbound' }[$Direction]
        Action = @{ allow = 'Allow'; block = 'Block' }[$Action]
        Protocol = $Protocol.ToUpperInvariant()
        # No port is the documented keyword Any (an empty array's meaning is not documented).
        LocalPort = $(if ($LocalPort) { $LocalPort } else { 'Any' })
        # Any remote address is the documented keyword Any, so that an update also lifts a limit set before.
        RemoteAddress = $(if ($RemoteAddress) { $RemoteAddress } else { 'Any' })
        Enabled = 'True'
    }
    if ($existing) {
        # Next to -Name (set ByName), -DisplayName selects rules (set ByDisplayName): -NewDisplayName renames.
        Set-NetFirewallRule -Name $Name -NewDisplayName $DisplayName @settings -WhatIf:$WhatIfPreference
    }
    else {
        $null = New-NetFirewallRule -Name $Name -DisplayName $DisplayName @settings -WhatIf:$WhatIfPreference
    }
}
$Ansible.Result = ConvertTo-Json -Depth 5 -Compress -InputObject ([ordered]@{
        state = Get-KubeWinNodeState -Sections @('firewall') -FirewallRules @($Name)
    })
