# Log and result file of a detached worker (started by detached_start). Both use the worker's
# own $OperationId, which PowerShell's dynamic scoping makes visible here: every worker declares
# it as its mandatory parameter.

function Write-WorkerLog {
    # UTF-8 without a byte order mark, as every file the collection writes: Add-Content -Encoding ASCII would turn each
    # character outside ASCII (a localised Windows error, an adapter's name) into '?'.
    param([string]$Message)
    $path = Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.log'
    $line = '{0} {1}{2}' -f (Get-Date).ToUniversalTime().ToString('o'), $Message, [Environment]::NewLine
    [System.IO.File]::AppendAllText($path, $line, $KubeWinUtf8)
}

# detached_status reads this file: the worker's last word, written even when it failed. Written aside and renamed into
# place, so that its name only ever holds the whole document: a write cut off (a full disk, the process ended) or
# read while it is written would otherwise be read as a result.
function Save-WorkerOutcome {
    param([Parameter(Mandatory)]$Outcome)
    $resultPath = Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.result.json'
    $partPath = Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.result.json.part'
    Write-KubeWinTextFile -Path $partPath -Text (ConvertTo-Json -InputObject $Outcome -Depth 10 -Compress)
    [System.IO.File]::Move($partPath, $resultPath)
    Write-WorkerLog "finished: $($Outcome.state)"
}
