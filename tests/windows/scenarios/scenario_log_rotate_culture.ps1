# log_rotate_culture: the log rotation task (log_rotate.ps1, run as the scheduled task runs it: powershell.exe -File)
# on an account whose format culture is Thai (th-TH, the ThaiBuddhistCalendar: the year 2026 is 2569): the rotated
# log's name carries the Gregorian date. Set-Culture changes the current user's culture for new sessions; the one
# this scenario found is put back. Everything else lives in a folder of its own, removed at the end.
$folder = Join-Path -Path $env:ProgramData -ChildPath 'kubewin-scenarios-culture'
if (Test-Path -LiteralPath $folder) { Skip-KubeWinScenario "$folder exists already; the scenario writes only where nothing is" }
$culture = (Get-Culture).Name
$log = Join-Path -Path $folder -ChildPath 'app.log'
$config = Join-Path -Path $folder -ChildPath 'config.json'
$script = Join-Path -Path $folder -ChildPath 'rotate.ps1'
try {
    $null = New-Item -Path $folder -ItemType Directory
    [System.IO.File]::WriteAllText($log, ('x' * 150))
    [System.IO.File]::WriteAllText($config, (ConvertTo-Json -Compress -Depth 4 -InputObject ([ordered]@{
                    max_bytes = 100; files_kept = 2; logs = @([ordered]@{ path = $log; copy_truncate = $true }) })))
    [System.IO.File]::WriteAllText($script, (Get-KubeWinComposedScript -ScriptName log_rotate))
    Set-Culture -CultureInfo th-TH
    $year = (Get-Date).ToString('yyyy', [System.Globalization.CultureInfo]::InvariantCulture)
    & powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -File $script -ConfigPath $config
    Assert-KubeWin $LASTEXITCODE 0 'the exit code of log_rotate.ps1'
    $lastRun = ConvertFrom-Json -InputObject ([System.IO.File]::ReadAllText((Join-Path -Path $folder -ChildPath 'last-run.json')))
    $rotated = Split-Path -Path $lastRun.logs[0].rotated_to -Leaf
    Assert-KubeWin ($rotated -match "^app-$year\d{4}-\d{6}\.log$") 'True' "the rotated name $rotated carries the Gregorian year"
}
finally {
    Set-Culture -CultureInfo $culture
    if (Test-Path -LiteralPath $folder) { Remove-Item -LiteralPath $folder -Recurse -Force }
}
