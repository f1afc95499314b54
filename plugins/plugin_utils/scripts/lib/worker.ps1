# Log and result file of a detached worker (started by detached_start). Both use the worker's
# own $OperationId, which PowerShell's dynamic scoping makes visible here: every worker declares
# it as its mandatory parameter.

function Write-WorkerLog {
    param([string]$Message)
    $path = Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.log'
    Add-Content -LiteralPath $path -Value ('{0} {1}' -f (Get-Date).ToUniversalTime().ToString('o'), $Message) -Encoding ASCII
}

# detached_status reads this file: the worker's last word, written even when it failed.
function Save-WorkerOutcome {
    param([Parameter(Mandatory)]$Outcome)
    $resultPath = Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.result.json'
    Write-KubeWinTextFile -Path $resultPath -Text (ConvertTo-Json -InputObject $Outcome -Depth 10 -Compress)
    Write-WorkerLog "finished: $($Outcome.state)"
}
