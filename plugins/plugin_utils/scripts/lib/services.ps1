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

function Get-KubeWinPreshutdownOrder {
    # The services the service control manager notifies of a shutdown first, in order (the Control key's
    # PreshutdownOrder); the kubelet adds itself there when its graceful shutdown is on.
    $control = Get-ItemProperty -LiteralPath 'HKLM:\SYSTEM\CurrentControlSet\Control' -Name PreshutdownOrder -ErrorAction SilentlyContinue
    if (-not $control) { return ,@() }
    return ,@($control.PreshutdownOrder | Where-Object { $_ })
}

function Remove-KubeWinPreshutdownOrderEntry {
    # A deleted service's name taken out of the pre-shutdown order: the kubelet put itself and its dependencies there
    # (graceful shutdown); the other entries, Windows' own, stay.
    param([Parameter(Mandatory)][string]$Name)
    $order = Get-KubeWinPreshutdownOrder
    if ($Name -notin $order) { return }
    $kept = [string[]]@($order | Where-Object { $_ -ne $Name })
    New-ItemProperty -LiteralPath 'HKLM:\SYSTEM\CurrentControlSet\Control' -Name PreshutdownOrder -PropertyType MultiString -Value $kept -Force | Out-Null
}

function Get-KubeWinService {
    # -PreshutdownOrder: the order as Get-KubeWinPreshutdownOrder read it, for a caller that reads several services
    # (read here when not given).
    param([Parameter(Mandatory)][string]$Name, [string[]]$PreshutdownOrder = $null)
    $service = Get-Service -Name $Name -ErrorAction SilentlyContinue
    if (-not $service) { return [ordered]@{ name = $Name; exists = $false } }
    $key = Get-ItemProperty -LiteralPath "HKLM:\SYSTEM\CurrentControlSet\Services\$Name"
    # SERVICE_PRESHUTDOWN_INFO as the SCM keeps it: none means the default time-out.
    $preshutdownTimeout = $null
    if ($null -ne $key.PreshutdownTimeout) { $preshutdownTimeout = [int64]$key.PreshutdownTimeout }
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
        # A uint32 (Win32_Service): [int] would fail on a code above 2^31.
        exit_code = [int64](Get-CimInstance -ClassName Win32_Service -Filter "Name='$($service.Name)'").ExitCode
        nssm = Get-KubeWinNssmSettings -Name $service.Name
        preshutdown_timeout_ms = $preshutdownTimeout
        preshutdown_ordered = $service.Name -in $(if ($null -eq $PreshutdownOrder) { Get-KubeWinPreshutdownOrder } else { $PreshutdownOrder })
    }
}
function Get-KubeWinServiceExitCode {
    param([Parameter(Mandatory)][string]$Name)
    return (Get-CimInstance -ClassName Win32_Service -Filter "Name='$Name'").ExitCode
}

function Wait-KubeWinServiceStatus {
    # Polls the service until it has one of the statuses, for at most -TimeoutSeconds: Start-Service and Stop-Service
    # wait without end while the service is StartPending or StopPending (PowerShell's Service.cs, DoWaitForStatus),
    # so a service whose program hangs would hang the task. Waiting for Running, a service that is Stopped again has
    # failed: its exit code says why. -StableSeconds: the service must then keep the status that long; a program can
    # report Running and exit a moment later (the kubelet reports Running before it validates most of its
    # configuration: cmd/kubelet/app/server.go, Run).
    param([Parameter(Mandatory)][string]$Name, [string[]]$Status = @('Running'), [int]$TimeoutSeconds = 60,
          [int]$StableSeconds = 0)
    $deadline = (Get-Date).AddSeconds($TimeoutSeconds)
    while (($current = [string](Get-Service -Name $Name).Status) -notin $Status) {
        if ($current -eq 'Stopped' -and 'Stopped' -notin $Status) {
            throw "service $Name stopped while starting (exit code $(Get-KubeWinServiceExitCode -Name $Name))"
        }
        if ((Get-Date) -gt $deadline) {
            throw "service $Name did not reach $($Status -join ' or ') within $TimeoutSeconds s (status $current, exit code $(Get-KubeWinServiceExitCode -Name $Name))"
        }
        Start-Sleep -Milliseconds 500
    }
    $stableUntil = (Get-Date).AddSeconds($StableSeconds)
    while ((Get-Date) -lt $stableUntil) {
        Start-Sleep -Seconds 1
        $now = [string](Get-Service -Name $Name).Status
        if ($now -ne $current) {
            throw "service $Name was $current, then $now within $StableSeconds s (exit code $(Get-KubeWinServiceExitCode -Name $Name))"
        }
    }
}

function Stop-KubeWinService {
    # Stops the service and the services that depend on it, the dependents first (DependentServices lists each
    # before those it depends on), each asked with Stop-Service -NoWait and waited for with a bound.
    param([Parameter(Mandatory)][string]$Name, [int]$TimeoutSeconds = 60)
    $target = Get-Service -Name $Name
    foreach ($service in @($target.DependentServices) + @($target)) {
        $service.Refresh()
        # A service still starting takes no stop request (ERROR_SERVICE_CANNOT_ACCEPT_CTRL): let it finish.
        if ($service.Status -eq 'StartPending') {
            Wait-KubeWinServiceStatus -Name $service.Name -Status Running, Stopped -TimeoutSeconds $TimeoutSeconds
            $service.Refresh()
        }
        if ($service.Status -eq 'Running') { Stop-Service -Name $service.Name -Force -NoWait }
        Wait-KubeWinServiceStatus -Name $service.Name -Status Stopped -TimeoutSeconds $TimeoutSeconds
    }
}

function Start-KubeWinService {
    # ServiceController.Start, then the bounded wait for Running (Start-Service would wait without end for a service
    # that stays StartPending) and -StableSeconds of it. A service still stopping is waited for first.
    param([Parameter(Mandatory)][string]$Name, [int]$TimeoutSeconds = 60, [int]$StableSeconds = 5)
    $service = Get-Service -Name $Name
    if ($service.Status -eq 'StopPending') {
        Wait-KubeWinServiceStatus -Name $Name -Status Stopped -TimeoutSeconds $TimeoutSeconds
        $service.Refresh()
    }
    if ($service.Status -eq 'Stopped') {
        try { $service.Start() }
        catch {
            # MethodInvocationException > InvalidOperationException ("Cannot start service ...") > the SCM's Win32 error.
            $reason = $_.Exception.InnerException
            $detail = ''
            if ($reason.InnerException) { $detail = " ($($reason.InnerException.Message))" }
            throw "service $Name did not start: $($reason.Message)$detail"
        }
    }
    Wait-KubeWinServiceStatus -Name $Name -TimeoutSeconds $TimeoutSeconds -StableSeconds $StableSeconds
}

function Start-KubeWinServiceFirst {
    # Starts a service (with -Restart, stopped first with its dependents), waits for it and for it to stay Running
    # -StableSeconds, then starts the dependents the caller saw running, each held to the same. Not
    # Restart-Service -Force: it starts the dependents it stopped before the service itself (PowerShell's
    # Service.cs, RestartServiceCommand: DoStopService lists the dependents, then each is started), and the service
    # control manager starts a dependent's dependencies first, so a service that does not start fails as its
    # dependent's error ("Cannot start service kube-proxy" for a kubelet that does not start). Started on its own,
    # the service names its own failure.
    param(
        [Parameter(Mandatory)][string]$Name,
        [string[]]$Dependents = @(),
        [switch]$Restart,
        [int]$TimeoutSeconds = 60,
        [int]$StableSeconds = 5
    )
    if ($Restart) { Stop-KubeWinService -Name $Name -TimeoutSeconds $TimeoutSeconds }
    Start-KubeWinService -Name $Name -TimeoutSeconds $TimeoutSeconds -StableSeconds $StableSeconds
    foreach ($dependent in $Dependents) {
        Start-KubeWinService -Name $dependent -TimeoutSeconds $TimeoutSeconds -StableSeconds $StableSeconds
    }
}

# --- end lib/services --------------------------------------------------------------
