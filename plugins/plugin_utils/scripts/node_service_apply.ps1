# kubewin-script: node_service_apply
# Creates, reconfigures, starts, stops, restarts or removes one Windows service,
# then reports its state. The command line arrives already quoted for Windows.
# A service to run whose program is missing fails the call before anything changes; a service
# that does not start with a binary artifact_fetch just replaced gets its previous binary back.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][ValidatePattern('^[A-Za-z0-9_.-]+$')][string]$Name,
    [string]$CommandLine,
    [string]$DisplayName,
    [string]$Description,
    [ValidateSet('auto', 'delayed', 'manual', 'disabled')][string]$StartMode = 'auto',
    [string[]]$Dependencies = @(),
    [string[]]$Environment = @(),
    # sc.exe failure syntax: restart/10000/restart/30000; empty clears the actions.
    [string]$FailureActions = '',
    [int]$ResetPeriodSeconds = 86400,
    # nssm settings (Application, AppParameters, ...) as JSON, when nssm wraps the service.
    [string]$NssmJson,
    [ValidateSet('running', 'stopped', 'absent')][string]$Ensure = 'running',
    [switch]$Restart,
    [int]$StartTimeoutSeconds = 60
)
$ErrorActionPreference = 'Stop'

# kubewin-include: services
# kubewin-include: files

$key = "HKLM:\SYSTEM\CurrentControlSet\Services\$Name"

function Invoke-Sc {
    # sc.exe writes its errors to stdout and sets the exit code.
    $output = & "$env:SystemRoot\System32\sc.exe" @args 2>&1
    if ($LASTEXITCODE -ne 0) { throw "sc.exe $($args -join ' ') failed ($LASTEXITCODE): $output" }
}

function Get-ServicePrograms {
    # The programs a service command line names (the one Windows starts, and the component a wrapper such as
    # kube-log-runner starts), quoted or not, and the application nssm starts.
    $found = @(foreach ($match in [regex]::Matches($CommandLine, '"([^"]+?\.exe)"|([^\s"]+?\.exe)(?=\s|$)')) {
            if ($match.Groups[1].Success) { $match.Groups[1].Value } else { $match.Groups[2].Value }
        })
    if ($NssmJson) { $found += (ConvertFrom-Json -InputObject $NssmJson).Application }
    return $found
}

function Restore-PreviousPrograms {
    # artifact_fetch.ps1 replaces the binary of a running service by moving the old one aside as
    # <file>.kubewin-old-<id> (Windows lets a running program be renamed, not deleted); while the service
    # is stopped after a failed start that file is the release it ran. Returns the programs put back.
    $restored = @()
    foreach ($program in (Get-ServicePrograms)) {
        $directory = Split-Path -Path $program -Parent
        $leaf = Split-Path -Path $program -Leaf
        $previous = @(Get-ChildItem -LiteralPath $directory -Filter "$leaf.kubewin-old-*" -Force -ErrorAction SilentlyContinue |
                Sort-Object -Property LastWriteTimeUtc -Descending)
        if (-not $previous -or -not (Test-Path -LiteralPath $program)) { continue }
        $failed = "$program.kubewin-failed-" + [guid]::NewGuid().ToString('N')
        Move-Item -LiteralPath $program -Destination $failed
        Move-Item -LiteralPath $previous[0].FullName -Destination $program
        Remove-Item -LiteralPath $failed -Force -ErrorAction SilentlyContinue
        $restored += $program
    }
    return $restored
}

$existing = Get-Service -Name $Name -ErrorAction SilentlyContinue
if ($Ensure -eq 'running') {
    # The replacement must be able to start before anything stops the service that runs now: a program that is
    # not there fails the call with the node as it was.
    $absent = @(Get-ServicePrograms | Where-Object { -not (Test-Path -LiteralPath $_ -PathType Leaf) })
    if ($absent) {
        throw "service $Name was not changed: its program $($absent -join ', ') does not exist"
    }
}
# Stopping a service stops every service that depends on it (kubelet on containerd, kube-proxy on
# the kubelet); their state is reported too, and those that were running run again after a rollback.
$dependents = @()
$runningDependents = @()
if ($existing) {
    $dependents = @($existing.DependentServices | ForEach-Object { $_.Name })
    $runningDependents = @($existing.DependentServices | Where-Object { $_.Status -eq 'Running' } | ForEach-Object { $_.Name })
}
if ($Ensure -eq 'absent') {
    if ($existing) {
        if ($existing.Status -ne 'Stopped') { Stop-Service -Name $Name -Force; Wait-KubeWinServiceStatus -Name $Name -Status Stopped -TimeoutSeconds $StartTimeoutSeconds }
        Invoke-Sc delete $Name
        # The SCM removes the name only when no handle to the service is open.
        $deadline = (Get-Date).AddSeconds($StartTimeoutSeconds)
        while ((Get-Service -Name $Name -ErrorAction SilentlyContinue) -and (Get-Date) -lt $deadline) { Start-Sleep -Milliseconds 500 }
    }
}
else {
    $startType = @{ auto = 'Automatic'; delayed = 'Automatic'; manual = 'Manual'; disabled = 'Disabled' }[$StartMode]
    if (-not $existing) {
        $null = New-Service -Name $Name -BinaryPathName $CommandLine -DisplayName $DisplayName -StartupType $startType
    }
    else {
        $service = Get-CimInstance -ClassName Win32_Service -Filter "Name='$Name'"
        $changed = Invoke-CimMethod -InputObject $service -MethodName Change -Arguments @{
            PathName = $CommandLine
            DisplayName = $DisplayName
        }
        if ($changed.ReturnValue -ne 0) { throw "Win32_Service.Change failed for $Name with code $($changed.ReturnValue)" }
    }
    $startArgument = @{ auto = 'auto'; delayed = 'delayed-auto'; manual = 'demand'; disabled = 'disabled' }[$StartMode]
    $dependArgument = '/'
    if ($Dependencies.Count -gt 0) { $dependArgument = $Dependencies -join '/' }
    Invoke-Sc config $Name start= $startArgument depend= $dependArgument
    # Set-Service's -Description takes no empty string ([ValidateNotNullOrEmpty]); no description is no value.
    if ($Description) { Set-Service -Name $Name -Description $Description }
    else { Remove-ItemProperty -LiteralPath $key -Name Description -ErrorAction SilentlyContinue }
    # The SCM passes the Environment value to the service process when it starts.
    if ($Environment.Count -gt 0) {
        New-ItemProperty -LiteralPath $key -Name Environment -PropertyType MultiString -Value $Environment -Force | Out-Null
    }
    else {
        Remove-ItemProperty -LiteralPath $key -Name Environment -ErrorAction SilentlyContinue
    }
    if ($FailureActions) {
        Invoke-Sc failure $Name reset= $ResetPeriodSeconds actions= $FailureActions
    }
    else {
        Invoke-Sc failure $Name reset= 0 actions= '""'
    }
    if ($NssmJson) {
        $parameters = "$key\Parameters"
        if (-not (Test-Path -LiteralPath $parameters)) { $null = New-Item -Path $parameters -Force }
        $settings = ConvertFrom-Json -InputObject $NssmJson
        # nssm opens its output files with CreateFile, which creates no folder; without the folder
        # nssm does not start the application at all.
        foreach ($file in @($settings.AppStdout, $settings.AppStderr)) {
            if ($file) { New-KubeWinDirectory -Path (Split-Path -Path $file -Parent) }
        }
        foreach ($entry in $settings.PSObject.Properties) {
            $type = 'ExpandString'
            if ($entry.Value -is [int] -or $entry.Value -is [long]) { $type = 'DWord' }
            New-ItemProperty -LiteralPath $parameters -Name $entry.Name -PropertyType $type -Value $entry.Value -Force | Out-Null
        }
    }
    elseif (Get-KubeWinNssmSettings -Name $Name) {
        # The service was nssm's (the SDN scripts' start.ps1 installs the kubelet, kube-proxy and flanneld with
        # nssm) and now runs its program itself. nssm keeps its settings under Parameters (nssm.cc, "Usage") and
        # nothing else removes them; left there they describe a wrapper the service no longer has.
        Remove-Item -LiteralPath "$key\Parameters" -Recurse -Force
    }
    $status = (Get-Service -Name $Name).Status
    if ($Ensure -eq 'stopped' -and $status -ne 'Stopped') {
        Stop-Service -Name $Name -Force
        Wait-KubeWinServiceStatus -Name $Name -Status Stopped -TimeoutSeconds $StartTimeoutSeconds
    }
    elseif ($Ensure -eq 'running') {
        try {
            # Restart-Service -Force starts again the running dependents it stopped (PowerShell's Service.cs,
            # RestartServiceCommand).
            if ($Restart -and $status -ne 'Stopped') { Restart-Service -Name $Name -Force }
            elseif ($status -ne 'Running') { Start-Service -Name $Name }
            Wait-KubeWinServiceStatus -Name $Name -TimeoutSeconds $StartTimeoutSeconds
        }
        catch {
            # A new binary that does not start: the previous one goes back and runs again, and the call still fails.
            $failure = $_.Exception.Message
            $restored = @(Restore-PreviousPrograms)
            if (-not $restored) { throw }
            try {
                Start-Service -Name $Name
                Wait-KubeWinServiceStatus -Name $Name -TimeoutSeconds $StartTimeoutSeconds
                foreach ($dependent in $runningDependents) { Start-Service -Name $dependent }
            }
            catch {
                throw "service $Name did not start with the new $($restored -join ', ') ($failure); the previous binary was put back but did not start either: $($_.Exception.Message)"
            }
            throw "service $Name did not start with the new $($restored -join ', ') ($failure); the previous binary was put back and the service runs it again"
        }
    }
}

$services = [ordered]@{ $Name = Get-KubeWinService -Name $Name }
foreach ($dependent in $dependents) { $services[$dependent] = Get-KubeWinService -Name $dependent }
$Ansible.Result = ConvertTo-Json -Depth 6 -Compress -InputObject ([ordered]@{
        state = [ordered]@{ sections = @('services'); services = $services }
    })
