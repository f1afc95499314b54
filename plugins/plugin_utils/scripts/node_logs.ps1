# kubewin-script: node_logs
# Read-only: everything needed to troubleshoot a node, in one call. For each service
# it finds where the program writes its output (nssm's AppStdout/AppStderr, the
# -log-file of kube-log-runner, containerd's --log-file) and returns the end of
# those files and of the extra paths; the last events of the given event log
# providers (dockerd logs to the Application log) and of the given event logs (Container Credential Guard's
# Microsoft-Windows-Containers-CCG/Admin, for gMSA); the HNS networks, endpoints
# and policy lists as HNS itself returns them; and the Open vSwitch state (product,
# bridges, external_ids, the switch extension on each vSwitch) as node_info reads it.
[CmdletBinding(SupportsShouldProcess)]
param(
    [ValidatePattern('^[A-Za-z0-9_.-]+$')][string[]]$Services = @(),
    [string[]]$Paths = @(),
    [string[]]$EventProviders = @(),
    [string[]]$EventLogs = @(),
    [ValidateRange(1, 10000)][int]$EventCount = 200,
    [ValidateRange(1024, 67108864)][int]$TailBytes = 1048576
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state
# kubewin-include: ovs

function Get-ServiceLogFile {
    param([Parameter(Mandatory)][string]$Name)
    $files = @()
    $nssm = Get-KubeWinNssmSettings -Name $Name
    if ($nssm) {
        $files = @($nssm.app_stdout, $nssm.app_stderr)
    }
    else {
        $key = Get-ItemProperty -LiteralPath "HKLM:\SYSTEM\CurrentControlSet\Services\$Name" -ErrorAction SilentlyContinue
        # --log-file=<path>, --log-file <path> or with the path quoted; a bare --log-file (Open vSwitch's
        # default folder) names no file.
        if ($key -and $key.ImagePath -match '(?:^|\s)"?--?log-file(?:=|\s+)(?:"([^"]+)"|([^"\s-][^"\s]*))') {
            $files = @(@($Matches[1], $Matches[2]) | Where-Object { $_ } | Select-Object -First 1)
        }
    }
    return @($files | Where-Object { $_ } | Sort-Object -Unique)
}

function Get-LogTail {
    # The services hold their log files open for writing: open them sharing read and write.
    param([Parameter(Mandatory)][string]$Path)
    $item = Get-Item -LiteralPath $Path -Force -ErrorAction SilentlyContinue
    if (-not $item -or $item.PSIsContainer) { return [ordered]@{ exists = $false } }
    $stream = [System.IO.File]::Open($Path, [System.IO.FileMode]::Open, [System.IO.FileAccess]::Read,
        [System.IO.FileShare]::ReadWrite)
    try {
        $length = $stream.Length
        $start = [Math]::Max([int64]0, $length - $TailBytes)
        $null = $stream.Seek($start, [System.IO.SeekOrigin]::Begin)
        $buffer = New-Object -TypeName byte[] -ArgumentList ([int]($length - $start))
        $read = 0
        while ($read -lt $buffer.Length) {
            $count = $stream.Read($buffer, $read, $buffer.Length - $read)
            if ($count -le 0) { break }
            $read += $count
        }
    }
    finally {
        $stream.Dispose()
    }
    return [ordered]@{
        exists = $true
        size = [int64]$length
        truncated = ($start -gt 0)
        text = $KubeWinUtf8.GetString($buffer, 0, $read)
    }
}

# Not $services: variable names are case-insensitive, and $Services is the [string[]] parameter, whose type
# constraint would turn the dictionary into one string (about_Variables, Types of variables).
$serviceStates = [ordered]@{}
$logs = [ordered]@{}
foreach ($name in $Services) {
    $serviceStates[$name] = Get-KubeWinService -Name $name
    $serviceStates[$name].log_files = @()
    if ($serviceStates[$name].exists) { $serviceStates[$name].log_files = @(Get-ServiceLogFile -Name $name) }
    foreach ($path in $serviceStates[$name].log_files) {
        if (-not $logs.Contains($path)) { $logs[$path] = Get-LogTail -Path $path }
    }
}
foreach ($path in $Paths) {
    if (-not $logs.Contains($path)) { $logs[$path] = Get-LogTail -Path $path }
}

function ConvertTo-KubeWinEvent {
    param([Parameter(ValueFromPipeline)]$Record)
    process {
        [ordered]@{
            time = $Record.TimeCreated.ToUniversalTime().ToString('o')
            level = [string]$Record.LevelDisplayName
            message = [string]$Record.Message
        }
    }
}

$events = [ordered]@{}
foreach ($provider in $EventProviders) {
    $events[$provider] = @(Get-WinEvent -FilterHashtable @{ LogName = 'Application'; ProviderName = $provider } `
            -MaxEvents $EventCount -ErrorAction SilentlyContinue | Sort-Object -Property TimeCreated | ConvertTo-KubeWinEvent)
}
# A log that is not there (a node without the Containers feature has no CCG log) has no events either. Not
# $eventLogs: that is the [string[]] parameter $EventLogs (variable names are case-insensitive).
$logEvents = [ordered]@{}
foreach ($log in $EventLogs) {
    $logEvents[$log] = @(Get-WinEvent -FilterHashtable @{ LogName = $log } -MaxEvents $EventCount `
            -ErrorAction SilentlyContinue | Sort-Object -Property TimeCreated | ConvertTo-KubeWinEvent)
}

$hns = [ordered]@{ available = $false; networks = @(); endpoints = @(); policy_lists = @() }
if (Get-Service -Name hns -ErrorAction SilentlyContinue) {
    $hns.available = $true
    $hns.networks = @(Invoke-KubeWinHns -Method GET -Path '/networks/' | Where-Object { $null -ne $_ })
    $hns.endpoints = @(Invoke-KubeWinHns -Method GET -Path '/endpoints/' | Where-Object { $null -ne $_ })
    $hns.policy_lists = @(Invoke-KubeWinHns -Method GET -Path '/policylists/' | Where-Object { $null -ne $_ })
}

$Ansible.Changed = $false
$Ansible.Result = ConvertTo-Json -Depth 12 -Compress -InputObject ([ordered]@{
        hostname = $env:COMPUTERNAME
        collected_at = (Get-Date).ToUniversalTime().ToString('o')
        services = $serviceStates
        logs = $logs
        events = $events
        event_logs = $logEvents
        hns = $hns
        ovs = Get-KubeWinOvsState
    })
