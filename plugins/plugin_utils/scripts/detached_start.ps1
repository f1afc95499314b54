# kubewin-script: detached_start
# Starts a worker script as a process of its own, outside the WinRM session, so it
# finishes even when the operation it performs drops the node's network.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][ValidatePattern('^[a-z0-9-]+$')][string]$OperationId,
    [Parameter(Mandatory)][string]$WorkerScript,
    [Parameter(Mandatory)][string]$ArgumentsJson
)
$ErrorActionPreference = 'Stop'

# kubewin-include: files

$workerPath = Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.ps1'
Write-KubeWinTextFile -Path $workerPath -Text $WorkerScript
Write-KubeWinTextFile -Path (Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.args.json') -Text $ArgumentsJson

# Win32_Process.Create starts the process outside the job object WinRM kills
# when the session ends.
$commandLine = 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -File "{0}" -OperationId {1}' -f @(
    $workerPath, $OperationId)
$process = Invoke-CimMethod -ClassName Win32_Process -MethodName Create -Arguments @{ CommandLine = $commandLine }
if ($process.ReturnValue -ne 0) {
    throw "Win32_Process.Create failed with code $($process.ReturnValue) for $workerPath"
}
# The process id and the process's start time: once the worker is gone Windows gives its id to other processes, so
# detached_status takes a process for the worker only when both match. An empty start time: the worker was gone
# already.
$worker = Get-Process -Id $process.ProcessId -ErrorAction SilentlyContinue
$startTime = ''
if ($worker) { $startTime = $worker.StartTime.ToUniversalTime().ToString('o') }
Write-KubeWinTextFile -Path (Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.pid') `
    -Text ('{0}{1}{2}' -f $process.ProcessId, "`n", $startTime)

$Ansible.Result = ConvertTo-Json -Compress -InputObject ([ordered]@{
        operation_id = $OperationId
        process_id = [int]$process.ProcessId
    })
