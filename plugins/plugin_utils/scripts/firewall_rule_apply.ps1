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
    [ValidateSet('allow', 'block')][string]$Action = 'allow',
    [switch]$Remove
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

$existing = Get-NetFirewallRule -Name $Name -ErrorAction SilentlyContinue
if ($Remove) {
    if ($existing) { Remove-NetFirewallRule -Name $Name }
}
else {
    $settings = @{
        Direction = @{ inbound = 'Inbound'; outbound = 'Outbound' }[$Direction]
        Action = @{ allow = 'Allow'; block = 'Block' }[$Action]
        Protocol = $Protocol.ToUpperInvariant()
        # No port is the documented keyword Any (an empty array's meaning is not documented).
        LocalPort = $(if ($LocalPort) { $LocalPort } else { 'Any' })
        Enabled = 'True'
    }
    if ($existing) {
        # Next to -Name (set ByName), -DisplayName selects rules (set ByDisplayName): -NewDisplayName renames.
        Set-NetFirewallRule -Name $Name -NewDisplayName $DisplayName @settings
    }
    else {
        $null = New-NetFirewallRule -Name $Name -DisplayName $DisplayName @settings
    }
}
$Ansible.Result = ConvertTo-Json -Depth 5 -Compress -InputObject ([ordered]@{
        state = Get-KubeWinNodeState -Sections @('firewall') -FirewallRules @($Name)
    })
