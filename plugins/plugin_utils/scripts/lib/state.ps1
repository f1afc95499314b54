# --- lib/state: the node state node_info reports, also returned by apply scripts ----
# kubewin-include: hns
# kubewin-include: netconfig
# kubewin-include: services

function Test-KubeWinRebootPending {
    $keys = @(
        'HKLM:\SOFTWARE\Microsoft\Windows\CurrentVersion\Component Based Servicing\RebootPending',
        'HKLM:\SOFTWARE\Microsoft\Windows\CurrentVersion\WindowsUpdate\Auto Update\RebootRequired'
    )
    foreach ($key in $keys) {
        if (Test-Path -LiteralPath $key) { return $true }
    }
    return $false
}

function Get-KubeWinNodeState {
    param(
        [string[]]$Sections = @(),
        [string[]]$Features = @(),
        [string[]]$Services = @(),
        [string[]]$Files = @()
    )
    $state = [ordered]@{ sections = @($Sections) }

    if ('os' -in $Sections) {
        $current = Get-ItemProperty -LiteralPath 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion'
        $system = Get-CimInstance -ClassName Win32_OperatingSystem
        $disk = Get-CimInstance -ClassName Win32_LogicalDisk | Where-Object { $_.DeviceID -eq $env:SystemDrive }
        $displayVersion = $current.DisplayVersion
        if (-not $displayVersion) { $displayVersion = $current.ReleaseId }
        $state.os = [ordered]@{
            hostname = $env:COMPUTERNAME
            version = $system.Version
            build = [int]$current.CurrentBuildNumber
            ubr = [int]$current.UBR
            product_name = $current.ProductName
            edition = $current.EditionID
            display_version = $displayVersion
            installation_type = $current.InstallationType
            last_boot = $system.LastBootUpTime.ToUniversalTime().ToString('o')
            system_drive_free_bytes = [int64]$disk.FreeSpace
        }
    }

    if ('features' -in $Sections) {
        $state.features = [ordered]@{}
        if ($Features) {
            foreach ($feature in @(Get-WindowsFeature -Name $Features)) {
                $state.features[$feature.Name] = ([string]$feature.InstallState).ToLowerInvariant()
            }
        }
        $state.reboot_pending = Test-KubeWinRebootPending
    }

    if ('adapters' -in $Sections) {
        $state.adapters = Get-KubeWinAdapters
    }

    if ('hns' -in $Sections) {
        $state.hns = Get-KubeWinHnsState
    }

    if ('services' -in $Sections) {
        $state.services = [ordered]@{}
        foreach ($name in $Services) {
            $state.services[$name] = Get-KubeWinService -Name $name
        }
    }

    if ('files' -in $Sections) {
        $state.files = [ordered]@{}
        foreach ($path in $Files) {
            $item = Get-Item -LiteralPath $path -Force -ErrorAction SilentlyContinue
            if (-not $item) {
                $state.files[$path] = [ordered]@{ exists = $false }
            }
            elseif ($item.PSIsContainer) {
                $state.files[$path] = [ordered]@{ exists = $true; type = 'directory' }
            }
            else {
                $state.files[$path] = [ordered]@{
                    exists = $true
                    type = 'file'
                    size = [int64]$item.Length
                    sha256 = (Get-FileHash -LiteralPath $path -Algorithm SHA256).Hash.ToLowerInvariant()
                }
            }
        }
    }
    return $state
}
# --- end lib/state ----------------------------------------------------------------
