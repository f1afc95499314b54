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

function Wait-KubeWinRunning {
    param([Parameter(Mandatory)][string]$Name)
    $deadline = (Get-Date).AddSeconds($StartTimeoutSeconds)
    while ((Get-Service -Name $Name).Status -ne 'Running') {
        if ((Get-Date) -gt $deadline) {
            $exitCode = (Get-CimInstance -ClassName Win32_Service -Filter "Name='$Name'").ExitCode
            throw "service $Name did not reach Running within $StartTimeoutSeconds s (exit code $exitCode)"
        }
        Start-Sleep -Milliseconds 500
    }
}

# A list may have gone since the snapshot (kube-proxy removes its own): only those still there are deleted.
$existing = @((Get-KubeWinHnsState).policy_lists | ForEach-Object { $_.id })
foreach ($id in $PolicyListIds) {
    if ($id.ToLowerInvariant() -in $existing) { $null = Invoke-KubeWinHns -Method DELETE -Path "/policylists/$id" }
}

foreach ($name in $Start) {
    if ((Get-Service -Name $name).Status -ne 'Running') { Start-Service -Name $name }
    Wait-KubeWinRunning -Name $name
}
foreach ($name in $Restart) {
    $service = Get-Service -Name $name
    if ($service.Status -eq 'Running') {
        # Restart-Service leaves the dependents it stopped stopped.
        $running = @($service.DependentServices | Where-Object { $_.Status -eq 'Running' } | ForEach-Object { $_.Name })
        Restart-Service -Name $name -Force
        Wait-KubeWinRunning -Name $name
        foreach ($dependent in $running) { Start-Service -Name $dependent }
    }
    else {
        Start-Service -Name $name
        Wait-KubeWinRunning -Name $name
    }
}

$state = Get-KubeWinNodeState -Sections @('services', 'hns') -Services (@($Start) + @($Restart))
$Ansible.Result = ConvertTo-Json -InputObject ([ordered]@{ state = $state }) -Depth 10 -Compress
