# --- lib/services: Windows service configuration as the service control manager keeps it
function Get-KubeWinServiceRecovery {
    # FailureActions is a SERVICE_FAILURE_ACTIONS blob: reset period, two string
    # pointers, the action count, a pointer, then (type, delay in ms) pairs.
    param([byte[]]$Blob)
    if ($null -eq $Blob -or $Blob.Length -lt 20) { return $null }
    $count = [BitConverter]::ToUInt32($Blob, 12)
    $types = @{ 0 = 'none'; 1 = 'restart'; 2 = 'reboot'; 3 = 'run_command' }
    return [ordered]@{
        reset_period_seconds = [int][BitConverter]::ToUInt32($Blob, 0)
        actions = @(for ($i = 0; $i -lt $count -and (20 + 8 * $i + 8) -le $Blob.Length; $i++) {
                [ordered]@{
                    type = $types[[int][BitConverter]::ToUInt32($Blob, 20 + 8 * $i)]
                    delay_ms = [int][BitConverter]::ToUInt32($Blob, 24 + 8 * $i)
                }
            })
    }
}

function Get-KubeWinNssmSettings {
    # nssm keeps what it runs under the service's Parameters key.
    param([Parameter(Mandatory)][string]$Name)
    $parameters = Get-ItemProperty -LiteralPath "HKLM:\SYSTEM\CurrentControlSet\Services\$Name\Parameters" -ErrorAction SilentlyContinue
    if (-not $parameters -or -not $parameters.Application) { return $null }
    return [ordered]@{
        application = $parameters.Application
        app_parameters = $parameters.AppParameters
        app_directory = $parameters.AppDirectory
        app_stdout = $parameters.AppStdout
        app_stderr = $parameters.AppStderr
        app_rotate_bytes = [int64]$parameters.AppRotateBytes
    }
}

function Get-KubeWinService {
    param([Parameter(Mandatory)][string]$Name)
    $service = Get-Service -Name $Name -ErrorAction SilentlyContinue
    if (-not $service) { return [ordered]@{ name = $Name; exists = $false } }
    $key = Get-ItemProperty -LiteralPath "HKLM:\SYSTEM\CurrentControlSet\Services\$Name"
    $startModes = @{ 0 = 'boot'; 1 = 'system'; 2 = 'auto'; 3 = 'manual'; 4 = 'disabled' }
    $startMode = $startModes[[int]$key.Start]
    if ($startMode -eq 'auto' -and $key.DelayedAutostart -eq 1) { $startMode = 'delayed' }
    return [ordered]@{
        name = $service.Name
        exists = $true
        display_name = $service.DisplayName
        description = $key.Description
        state = ([string]$service.Status).ToLowerInvariant()
        start_mode = $startMode
        command_line = $key.ImagePath
        dependencies = @($key.DependOnService | Where-Object { $_ })
        environment = @($key.Environment | Where-Object { $_ })
        account = $key.ObjectName
        recovery = Get-KubeWinServiceRecovery -Blob $key.FailureActions
        exit_code = [int](Get-CimInstance -ClassName Win32_Service -Filter "Name='$($service.Name)'").ExitCode
        nssm = Get-KubeWinNssmSettings -Name $service.Name
    }
}
function Wait-KubeWinServiceStatus {
    # Start-Service and Restart-Service return once the service control manager has the request; a program
    # that exits at once leaves the service Stopped, seen only by polling. The exit code says why.
    param([Parameter(Mandatory)][string]$Name, [string]$Status = 'Running', [int]$TimeoutSeconds = 60)
    $deadline = (Get-Date).AddSeconds($TimeoutSeconds)
    while ((Get-Service -Name $Name).Status -ne $Status) {
        if ((Get-Date) -gt $deadline) {
            $exitCode = (Get-CimInstance -ClassName Win32_Service -Filter "Name='$Name'").ExitCode
            throw "service $Name did not reach $Status within $TimeoutSeconds s (status $((Get-Service -Name $Name).Status), exit code $exitCode)"
        }
        Start-Sleep -Milliseconds 500
    }
}

function Start-KubeWinServiceFirst {
    # Starts a service (with -Restart, stopped first with its dependents: Stop-Service -Force), waits for it, then
    # starts the dependents the caller saw running. Not Restart-Service -Force: it starts the dependents it stopped
    # before the service itself (PowerShell's Service.cs, RestartServiceCommand: DoStopService lists the dependents,
    # then each is started), and the service control manager starts a dependent's dependencies first, so a service
    # that does not start fails as its dependent's error ("Cannot start service kube-proxy" for a kubelet that does
    # not start). Started on its own, the service names its own failure.
    param(
        [Parameter(Mandatory)][string]$Name,
        [string[]]$Dependents = @(),
        [switch]$Restart,
        [int]$TimeoutSeconds = 60
    )
    if ($Restart -and (Get-Service -Name $Name).Status -ne 'Stopped') { Stop-Service -Name $Name -Force }
    if ((Get-Service -Name $Name).Status -ne 'Running') { Start-Service -Name $Name }
    Wait-KubeWinServiceStatus -Name $Name -TimeoutSeconds $TimeoutSeconds
    foreach ($dependent in $Dependents) { Start-Service -Name $dependent }
}

# --- end lib/services --------------------------------------------------------------
