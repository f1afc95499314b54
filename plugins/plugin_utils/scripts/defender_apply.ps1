# kubewin-script: defender_apply
# Adds or removes Microsoft Defender Antivirus exclusion paths and processes (Add-MpPreference and Remove-MpPreference
# change only the values they name), then reports the defender section of the node state.
[CmdletBinding(SupportsShouldProcess)]
param(
    [string[]]$AddPaths = @(),
    [string[]]$AddProcesses = @(),
    [string[]]$RemovePaths = @(),
    [string[]]$RemoveProcesses = @()
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

# The lists as they are now, compared without regard to case as Defender compares paths (-contains does): a value
# added twice or removed while absent is left alone. An empty list is $null.
$preference = Get-MpPreference
$paths = @($preference.ExclusionPath | Where-Object { $_ })
$processes = @($preference.ExclusionProcess | Where-Object { $_ })

$add = @{}
$newPaths = @($AddPaths | Where-Object { $paths -notcontains $_ })
$newProcesses = @($AddProcesses | Where-Object { $processes -notcontains $_ })
if ($newPaths.Count -gt 0) { $add.ExclusionPath = $newPaths }
if ($newProcesses.Count -gt 0) { $add.ExclusionProcess = $newProcesses }
# Neither cmdlet supports -WhatIf (their reference pages list no -WhatIf): in check mode the script asks first.
if ($add.Count -gt 0 -and $PSCmdlet.ShouldProcess('Microsoft Defender Antivirus', 'Add exclusions')) {
    Add-MpPreference @add -Force
}

$remove = @{}
$oldPaths = @($RemovePaths | Where-Object { $paths -contains $_ })
$oldProcesses = @($RemoveProcesses | Where-Object { $processes -contains $_ })
if ($oldPaths.Count -gt 0) { $remove.ExclusionPath = $oldPaths }
if ($oldProcesses.Count -gt 0) { $remove.ExclusionProcess = $oldProcesses }
if ($remove.Count -gt 0 -and $PSCmdlet.ShouldProcess('Microsoft Defender Antivirus', 'Remove exclusions')) {
    Remove-MpPreference @remove -Force
}

$Ansible.Result = ConvertTo-Json -Depth 5 -Compress -InputObject ([ordered]@{
        state = Get-KubeWinNodeState -Sections @('defender')
    })
