# kubewin-script: node_info
# Read-only snapshot of everything kubewin.node modules decide from, in one call.
# Sections lets a module ask for only the part it needs.
[CmdletBinding(SupportsShouldProcess)]
param(
    [string[]]$Sections = @('os', 'features', 'adapters', 'routes', 'hns', 'services', 'files', 'artifacts'),
    [string[]]$Features = @(),
    [string[]]$Services = @(),
    [string[]]$Files = @(),
    [string[]]$Contents = @(),
    [string[]]$Environment = @(),
    [string[]]$FirewallRules = @(),
    [string[]]$Credentials = @(),
    [string[]]$RegistryKeys = @(),
    [string[]]$Folders = @()
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

$state = Get-KubeWinNodeState -Sections $Sections -Features $Features -Services $Services -Files $Files `
    -Contents $Contents -Environment $Environment -FirewallRules $FirewallRules -Credentials $Credentials `
    -RegistryKeys $RegistryKeys -Folders $Folders
$Ansible.Changed = $false
$Ansible.Result = ConvertTo-Json -InputObject $state -Depth 10 -Compress
