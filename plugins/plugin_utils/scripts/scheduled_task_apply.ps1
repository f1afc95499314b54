# kubewin-script: scheduled_task_apply
# Registers (or replaces) or removes one scheduled task of the collection's task folder \kubewin\, run
# by SYSTEM with the highest privileges: one action, and a trigger that starts at midnight of the day it
# was registered and repeats every IntervalMinutes for ever (no repetition duration: Task Scheduler's
# schema repeats such a pattern indefinitely). Then reports the collection's tasks.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][ValidatePattern('^[A-Za-z0-9_.-]+$')][string]$Name,
    [string]$Description,
    [string]$Execute,
    [string]$Arguments,
    [ValidateRange(1, 1440)][int]$IntervalMinutes = 60,
    [switch]$Remove
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

$taskPath = '\kubewin\'
$existing = Get-ScheduledTask -TaskName $Name -TaskPath $taskPath -ErrorAction SilentlyContinue
# Register-ScheduledTask knows nothing of -WhatIf (its reference page lists no -WhatIf), and Unregister-ScheduledTask
# is a CDXML function, which reads it in the global scope only: the script asks itself (win_powershell's check mode).
if (-not $PSCmdlet.ShouldProcess("scheduled task $taskPath$Name", $(if ($Remove) { 'Unregister' } else { 'Register' }))) {
}
elseif ($Remove) {
    if ($existing) { Unregister-ScheduledTask -TaskName $Name -TaskPath $taskPath -Confirm:$false }
}
else {
    $action = New-ScheduledTaskAction -Execute $Execute -Argument $Arguments
    $trigger = New-ScheduledTaskTrigger -Once -At (Get-Date).Date -RepetitionInterval ([System.TimeSpan]::FromMinutes($IntervalMinutes))
    $principal = New-ScheduledTaskPrincipal -UserId 'SYSTEM' -LogonType ServiceAccount -RunLevel Highest
    # -Force replaces a task of the same name: the task is rewritten whole, never merged.
    $null = Register-ScheduledTask -TaskName $Name -TaskPath $taskPath -Description $Description -Action $action `
        -Trigger $trigger -Principal $principal -Force
}

$state = Get-KubeWinNodeState -Sections @('scheduled_tasks')
$Ansible.Result = ConvertTo-Json -InputObject ([ordered]@{ state = $state }) -Depth 10 -Compress
