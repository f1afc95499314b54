# kubewin-script: node_repair_apply
# The doctor's safe repairs, in one call: removes the given HNS policy lists (stale
# load balancers), then starts the given services and restarts others (kube-proxy
# programs its load balancers again when it starts). Returns the node state the
# module verifies.
[CmdletBinding(SupportsShouldProcess)]
param(
    [string[]]$PolicyListIds = @(),
    [ValidatePattern('^[A-Za-z0-9_.-]+$')][string[]]$Start = @(),
    [ValidatePattern('^[A-Za-z0-9_.-]+$')][string[]]$Restart = @(),
    [int]$StartTimeoutSeconds = 60
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

# A list may have gone since the snapshot (kube-proxy removes its own): only those still there are deleted.
$existing = @((Get-KubeWinHnsState).policy_lists | ForEach-Object { $_.id })
# HNS calls and the waits for services know nothing of -WhatIf: under it (win_powershell in check mode) the script
# does none of them.
foreach ($id in $PolicyListIds) {
    if ($id.ToLowerInvariant() -in $existing -and $PSCmdlet.ShouldProcess("HNS policy list $id", 'Delete')) {
        $null = Invoke-KubeWinHns -Method DELETE -Path "/policylists/$id"
    }
}

foreach ($name in $Start) {
    if (-not $PSCmdlet.ShouldProcess($name, 'Start the service')) { continue }
    Start-KubeWinService -Name $name -TimeoutSeconds $StartTimeoutSeconds
}
foreach ($name in $Restart) {
    if (-not $PSCmdlet.ShouldProcess($name, 'Restart the service')) { continue }
    # Stopped with its dependents, started on its own, then the dependents that ran (lib/services.ps1); a stopped
    # service is started.
    $runningDependents = @((Get-Service -Name $name).DependentServices | Where-Object { $_.Status -eq 'Running' } |
            ForEach-Object { $_.Name })
    Start-KubeWinServiceFirst -Name $name -Dependents $runningDependents -Restart -TimeoutSeconds $StartTimeoutSeconds
}

$state = Get-KubeWinNodeState -Sections @('services', 'hns') -Services (@($Start) + @($Restart))
$Ansible.Result = ConvertTo-Json -InputObject ([ordered]@{ state = $state }) -Depth 10 -Compress
