# kubewin-script: log_rotate
# The node's log rotation task (a scheduled task runs this file with powershell.exe -File): rotates the
# logs whose writer only appends, and keeps the newest rotated files of every log.
#
# A log whose writer rotates it itself (nssm's AppRotateOnline, kube-log-runner's -log-file-size) is only
# pruned. One whose writer never rotates it (containerd's --log-file, kube-log-runner before 1.34) is
# copied and cut short once it reaches the size: its writer holds it open through Go's os.OpenFile
# (O_APPEND), which shares reading and writing but not deleting (FILE_SHARE_READ|FILE_SHARE_WRITE), so
# it cannot be renamed while the service runs; writing is shared, so a second handle may empty it, and
# the writer, appending (FILE_APPEND_DATA), goes on at the new end. Lines written between the copy and
# the cut are lost, as with logrotate's copytruncate.
#
# The configuration is a JSON file: {max_bytes, files_kept, logs: [{path, copy_truncate}]}. What the run
# did is written next to it, last-run.json, for the operator and for doctor.
param(
    [Parameter(Mandatory)][string]$ConfigPath
)
$ErrorActionPreference = 'Stop'

$config = [System.IO.File]::ReadAllText($ConfigPath) | ConvertFrom-Json
$maxBytes = [int64]$config.max_bytes
$filesKept = [int]$config.files_kept

function Get-RotatedLogFile {
    # The rotated files of a log, newest first: <name>-<yyyyMMdd-HHmmss><ext> (kube-log-runner's and
    # this task's) or <name>-<yyyyMMddTHHmmss.fff><ext> (nssm's).
    param([string]$Path)
    $folder = Split-Path -Path $Path -Parent
    $name = [System.IO.Path]::GetFileNameWithoutExtension($Path)
    $extension = [System.IO.Path]::GetExtension($Path)
    $pattern = '^' + [regex]::Escape($name) + '-\d{8}(-\d{6}|T\d{6}\.\d{3})' + [regex]::Escape($extension) + '$'
    if (-not (Test-Path -LiteralPath $folder)) { return , @() }
    return , @(Get-ChildItem -LiteralPath $folder -File | Where-Object { $_.Name -match $pattern } |
            Sort-Object -Property LastWriteTimeUtc, Name -Descending)
}

function Invoke-CopyTruncate {
    # Copies the log to its rotated name and empties it through one handle that shares reading and
    # writing with the service that writes it.
    param([string]$Path)
    $folder = Split-Path -Path $Path -Parent
    $name = [System.IO.Path]::GetFileNameWithoutExtension($Path)
    $extension = [System.IO.Path]::GetExtension($Path)
    # The invariant culture: a custom date format takes the year from the current culture's calendar, so a th-TH
    # node would name the Buddhist year (2569 for 2026) and an ar-SA one a Hijri date.
    $stamp = (Get-Date).ToString('yyyyMMdd-HHmmss', [System.Globalization.CultureInfo]::InvariantCulture)
    $target = Join-Path -Path $folder -ChildPath ('{0}-{1}{2}' -f $name, $stamp, $extension)
    $source = [System.IO.File]::Open($Path, [System.IO.FileMode]::Open, [System.IO.FileAccess]::ReadWrite, [System.IO.FileShare]::ReadWrite)
    try {
        # CreateNew: a rotated file of the same second is never overwritten.
        $copy = [System.IO.File]::Open($target, [System.IO.FileMode]::CreateNew, [System.IO.FileAccess]::Write, [System.IO.FileShare]::None)
        try { $source.CopyTo($copy) }
        finally { $copy.Dispose() }
        $source.SetLength(0)
    }
    finally { $source.Dispose() }
    return $target
}

$results = @()
foreach ($log in @($config.logs)) {
    $result = [ordered]@{ path = $log.path; rotated_to = $null; removed = @(); error = $null }
    try {
        if ($log.copy_truncate -and (Test-Path -LiteralPath $log.path)) {
            $size = (Get-Item -LiteralPath $log.path).Length
            if ($size -ge $maxBytes) { $result.rotated_to = Invoke-CopyTruncate -Path $log.path }
        }
        $rotated = Get-RotatedLogFile -Path $log.path
        if ($rotated.Count -gt $filesKept) {
            foreach ($old in $rotated[$filesKept..($rotated.Count - 1)]) {
                Remove-Item -LiteralPath $old.FullName -Force
                $result.removed += $old.FullName
            }
        }
    }
    catch {
        # One log that cannot be rotated (a file held by another program) does not keep the others from it.
        $result.error = $_.Exception.Message
    }
    $results += $result
}

$outcome = [ordered]@{ finished = (Get-Date).ToUniversalTime().ToString('o'); logs = $results }
$lastRun = Join-Path -Path (Split-Path -Path $ConfigPath -Parent) -ChildPath 'last-run.json'
[System.IO.File]::WriteAllText($lastRun, (ConvertTo-Json -InputObject $outcome -Depth 5 -Compress))
if (@($results | Where-Object { $_.error }).Count -gt 0) { exit 1 }
