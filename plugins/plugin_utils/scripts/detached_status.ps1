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
# Both files are written by Write-KubeWinTextFile (UTF-8 without a byte order mark), which Get-Content
# reads in the ANSI code page unless told.
if (Test-Path -LiteralPath $resultPath) {
    $status.result = Get-Content -LiteralPath $resultPath -Raw -Encoding UTF8 | ConvertFrom-Json
    $status.state = $status.result.state
}
elseif (Test-Path -LiteralPath $pidPath) {
    $workerPid = [int](Get-Content -LiteralPath $pidPath -Raw -Encoding UTF8)
    if (Get-Process -Id $workerPid -ErrorAction SilentlyContinue) { $status.state = 'running' }
}

$Ansible.Changed = $false
$Ansible.Result = ConvertTo-Json -InputObject $status -Depth 10 -Compress
