# kubewin-script: node_service_apply
# Creates, reconfigures, starts, stops, restarts or removes one Windows service,
# then reports its state. The command line arrives already quoted for Windows.
# A service to run whose program is missing fails the call before anything changes; a running service
# that does not start again with a binary artifact_fetch just replaced, or with its new settings, gets its
# previous binary and settings back and runs again.
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

function Get-ProgramAsides {
    # What artifact_fetch.ps1 moved aside of a program: <file>.kubewin-old-<id>.
    param([Parameter(Mandatory)][string]$Program)
    $directory = Split-Path -Path $Program -Parent
    $leaf = Split-Path -Path $Program -Leaf
    return @(Get-ChildItem -LiteralPath $directory -Filter "$leaf.kubewin-old-*" -Force -ErrorAction SilentlyContinue)
}

function Remove-StaleAsides {
    # artifact_fetch.ps1 replaces the binary of a running service by moving the old one aside (Windows lets a running
    # program be renamed, not deleted). An aside stays after the restart that ran the new binary, and is stale from
    # then on: taken for "the release it ran" it would downgrade the service on a later failed start. Before anything
    # stops, an aside a running process executes cannot be deleted (DeleteFile of a mapped image: access denied);
    # every other one goes, so what is left is the release the service runs now.
    foreach ($program in (Get-ServicePrograms)) {
        Get-ProgramAsides -Program $program | Remove-Item -Force -ErrorAction SilentlyContinue
    }
}

function Restore-PreviousPrograms {
    # While the service is stopped after a failed start, the aside left by Remove-StaleAsides is the release it ran.
    # Returns the programs put back.
    $restored = @()
    foreach ($program in (Get-ServicePrograms)) {
        $previous = @(Get-ProgramAsides -Program $program | Sort-Object -Property LastWriteTimeUtc -Descending)
        if (-not $previous -or -not (Test-Path -LiteralPath $program)) { continue }
        $failed = "$program.kubewin-failed-" + [guid]::NewGuid().ToString('N')
        Move-Item -LiteralPath $program -Destination $failed
        Move-Item -LiteralPath $previous[0].FullName -Destination $program
        Remove-Item -LiteralPath $failed -Force -ErrorAction SilentlyContinue
        $restored += $program
    }
    return $restored
}

function Get-ServiceSettings {
    # What the call may change, as the service control manager and nssm keep it (lib/services), without the state.
    $service = Get-KubeWinService -Name $Name
    return [ordered]@{
        command_line = $service.command_line; display_name = $service.display_name; description = $service.description
        start_mode = $service.start_mode; dependencies = $service.dependencies; environment = $service.environment
        recovery = $service.recovery; nssm = $service.nssm
    }
}

function Get-NssmParameters {
    # Every value of nssm's Parameters key (nssm.cc, "Usage"), not only those lib/services reports; $null without it.
    $values = Get-ItemProperty -LiteralPath "$key\Parameters" -ErrorAction SilentlyContinue
    if (-not $values) { return $null }
    return @($values.PSObject.Properties | Where-Object { $_.Name -notlike 'PS*' })
}

function Set-NssmParameters {
    # Each value as nssm reads it: numbers as REG_DWORD, text as REG_EXPAND_SZ.
    param([object[]]$Entries)
    $parameters = "$key\Parameters"
    if (-not (Test-Path -LiteralPath $parameters)) { $null = New-Item -Path $parameters -Force }
    foreach ($entry in $Entries) {
        $type = 'ExpandString'
        if ($entry.Value -is [int] -or $entry.Value -is [long]) { $type = 'DWord' }
        New-ItemProperty -LiteralPath $parameters -Name $entry.Name -PropertyType $type -Value $entry.Value -Force | Out-Null
    }
}

function Set-ServiceSettings {
    # The settings go through the service control manager's interfaces (Win32_Service.Change, sc.exe, Set-Service),
    # whether they are new or put back; nssm's own live under Parameters.
    param([string]$PathName, [string]$Display, [string]$Mode, [string[]]$DependOn, [string]$Text, [string[]]$Variables,
          [string]$Actions, [int]$Reset, [object[]]$Nssm, [switch]$Created)
    if (-not $Created) {
        $service = Get-CimInstance -ClassName Win32_Service -Filter "Name='$Name'"
        $changed = Invoke-CimMethod -InputObject $service -MethodName Change -Arguments @{
            PathName = $PathName
            DisplayName = $Display
        }
        if ($changed.ReturnValue -ne 0) { throw "Win32_Service.Change failed for $Name with code $($changed.ReturnValue)" }
    }
    $startArgument = @{ auto = 'auto'; delayed = 'delayed-auto'; manual = 'demand'; disabled = 'disabled' }[$Mode]
    $dependArgument = '/'
    if ($DependOn.Count -gt 0) { $dependArgument = $DependOn -join '/' }
    Invoke-Sc config $Name start= $startArgument depend= $dependArgument
    # Set-Service's -Description takes no empty string ([ValidateNotNullOrEmpty]); no description is no value.
    if ($Text) { Set-Service -Name $Name -Description $Text }
    else { Remove-ItemProperty -LiteralPath $key -Name Description -ErrorAction SilentlyContinue }
    # The SCM passes the Environment value to the service process when it starts.
    if ($Variables.Count -gt 0) {
        New-ItemProperty -LiteralPath $key -Name Environment -PropertyType MultiString -Value $Variables -Force | Out-Null
    }
    else {
        Remove-ItemProperty -LiteralPath $key -Name Environment -ErrorAction SilentlyContinue
    }
    if ($Actions) {
        Invoke-Sc failure $Name reset= $Reset actions= $Actions
    }
    else {
        Invoke-Sc failure $Name reset= 0 actions= '""'
    }
    if ($Nssm) {
        # nssm opens its output files with CreateFile, which creates no folder; without the folder
        # nssm does not start the application at all.
        foreach ($entry in $Nssm) {
            if ($entry.Name -in @('AppStdout', 'AppStderr') -and $entry.Value) {
                New-KubeWinDirectory -Path (Split-Path -Path $entry.Value -Parent)
            }
        }
        Set-NssmParameters -Entries $Nssm
    }
    elseif (Get-KubeWinNssmSettings -Name $Name) {
        # The service was nssm's (the SDN scripts' start.ps1 installs the kubelet, kube-proxy and flanneld with
        # nssm) and now runs its program itself. nssm keeps its settings under Parameters (nssm.cc, "Usage") and
        # nothing else removes them; left there they describe a wrapper the service no longer has.
        Remove-Item -LiteralPath "$key\Parameters" -Recurse -Force
    }
}

function Restore-PreviousSettings {
    # The settings the service ran with before this call, nssm's Parameters key as it was (values this call added
    # go with it). Restart actions in sc.exe's syntax (restart/<ms>, reboot/<ms>, run/<ms>).
    $verbs = @{ restart = 'restart'; reboot = 'reboot'; run_command = 'run' }
    $actions = @(foreach ($action in @($previousSettings.recovery.actions)) {
            if ($action -and $verbs.ContainsKey($action.type)) { "$($verbs[$action.type])/$($action.delay_ms)" }
        }) -join '/'
    $reset = 0
    if ($previousSettings.recovery) { $reset = $previousSettings.recovery.reset_period_seconds }
    if ($previousNssm -and (Test-Path -LiteralPath "$key\Parameters")) { Remove-Item -LiteralPath "$key\Parameters" -Recurse -Force }
    Set-ServiceSettings -PathName $previousSettings.command_line -Display $previousSettings.display_name `
        -Mode $previousSettings.start_mode -DependOn @($previousSettings.dependencies) -Text $previousSettings.description `
        -Variables @($previousSettings.environment) -Actions $actions -Reset $reset -Nssm $previousNssm
}

$existing = Get-Service -Name $Name -ErrorAction SilentlyContinue
if ($Ensure -eq 'running') { Remove-StaleAsides }
# What a rollback puts back: the settings of a running service before this call changes them.
$previousSettings = $null
$previousNssm = $null
if ($existing -and $existing.Status -eq 'Running') {
    $previousSettings = Get-ServiceSettings
    $previousNssm = Get-NssmParameters
}
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
# sc.exe and the waits for the service know nothing of -WhatIf: under it (win_powershell in check mode) the script
# changes nothing and reports the service as it is.
if (-not $PSCmdlet.ShouldProcess($Name, 'Configure the service')) {
}
elseif ($Ensure -eq 'absent') {
    if ($existing) {
        Stop-KubeWinService -Name $Name -TimeoutSeconds $StartTimeoutSeconds
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
    $nssm = $null
    if ($NssmJson) { $nssm = @((ConvertFrom-Json -InputObject $NssmJson).PSObject.Properties) }
    Set-ServiceSettings -PathName $CommandLine -Display $DisplayName -Mode $StartMode -DependOn $Dependencies `
        -Text $Description -Variables $Environment -Actions $FailureActions -Reset $ResetPeriodSeconds -Nssm $nssm `
        -Created:(-not $existing)
    $status = (Get-Service -Name $Name).Status
    if ($Ensure -eq 'stopped' -and $status -ne 'Stopped') {
        Stop-KubeWinService -Name $Name -TimeoutSeconds $StartTimeoutSeconds
    }
    elseif ($Ensure -eq 'running') {
        try {
            # The dependents that ran start again once the service runs (lib/services.ps1 says why not
            # Restart-Service -Force).
            Start-KubeWinServiceFirst -Name $Name -Dependents $runningDependents -Restart:$Restart `
                -TimeoutSeconds $StartTimeoutSeconds
        }
        catch {
            # A running service that does not start again with a new binary or new settings: the previous ones go
            # back and it runs again, and the call still fails.
            $failure = $_.Exception.Message
            $settingsChanged = $previousSettings -and ((ConvertTo-Json -Depth 4 -Compress -InputObject $previousSettings) -ne
                (ConvertTo-Json -Depth 4 -Compress -InputObject (Get-ServiceSettings)))
            $restored = @(Restore-PreviousPrograms)
            if ($settingsChanged) { Restore-PreviousSettings }
            if (-not $restored -and -not $settingsChanged) { throw }
            $new = @()
            $old = @()
            if ($restored) { $new += "the new $($restored -join ', ')"; $old += 'binary' }
            if ($settingsChanged) { $new += 'its new settings'; $old += 'settings' }
            $what = "service $Name did not start with $($new -join ' and ') ($failure); the previous $($old -join ' and ')"
            if ($settingsChanged) { $what += ' were' } else { $what += ' was' }
            try {
                # -Restart: whatever runs now (the failed program, should it have come back) runs the previous one.
                Start-KubeWinServiceFirst -Name $Name -Dependents $runningDependents -Restart -TimeoutSeconds $StartTimeoutSeconds
            }
            catch {
                throw "$what put back but did not start either: $($_.Exception.Message)"
            }
            if (-not $settingsChanged) { throw "$what put back and the service runs it again" }
            throw "$what put back and the service runs with them again"
        }
    }
}

$services = [ordered]@{ $Name = Get-KubeWinService -Name $Name }
foreach ($dependent in $dependents) { $services[$dependent] = Get-KubeWinService -Name $dependent }
$Ansible.Result = ConvertTo-Json -Depth 6 -Compress -InputObject ([ordered]@{
        state = [ordered]@{ sections = @('services'); services = $services }
    })
