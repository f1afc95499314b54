# kubewin-script: detached_status
# Reports whether a detached worker is still running, finished, or vanished.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][ValidatePattern('^[a-z0-9-]+$')][string]$OperationId
)
$ErrorActionPreference = 'Stop'

# kubewin-include: files

$status = [ordered]@{ operation_id = $OperationId; state = 'unknown'; result = $null }
$resultPath = Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.result.json'
$pidPath = Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.pid'

function Read-WorkerResult {
    # The worker renames its result into place whole (lib/worker). Written by Write-KubeWinTextFile (UTF-8 without a
    # byte order mark), which Get-Content reads in the ANSI code page unless told.
    if (Test-Path -LiteralPath $resultPath) { return Get-Content -LiteralPath $resultPath -Raw -Encoding UTF8 | ConvertFrom-Json }
    return $null
}

function Test-WorkerRunning {
    # The worker's process: its id, and its start time as detached_start read it (Windows reuses the id of a process
    # that is gone; another process with it started later).
    if (-not (Test-Path -LiteralPath $pidPath)) { return $false }
    $lines = @(Get-Content -LiteralPath $pidPath -Encoding UTF8)
    $process = Get-Process -Id ([int]$lines[0]) -ErrorAction SilentlyContinue
    if (-not $process -or $lines.Count -lt 2 -or -not $lines[1]) { return $false }
    return $process.StartTime.ToUniversalTime().ToString('o') -eq $lines[1]
}

$status.result = Read-WorkerResult
if ($null -eq $status.result) {
    if (Test-WorkerRunning) { $status.state = 'running' }
    # The worker may have ended between the two reads: then its result is there now.
    else { $status.result = Read-WorkerResult }
}
if ($null -ne $status.result) { $status.state = $status.result.state }

$Ansible.Changed = $false
$Ansible.Result = ConvertTo-Json -InputObject $status -Depth 10 -Compress
