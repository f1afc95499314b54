# --- lib/state: the node state node_info reports, also returned by apply scripts ----
# kubewin-include: hns
# kubewin-include: netconfig
# kubewin-include: services
# kubewin-include: files
# kubewin-include: ovs

function Test-KubeWinRebootPending {
    $keys = @(
        'HKLM:\SOFTWARE\Microsoft\Windows\CurrentVersion\Component Based Servicing\RebootPending',
        'HKLM:\SOFTWARE\Microsoft\Windows\CurrentVersion\WindowsUpdate\Auto Update\RebootRequired'
    )
    foreach ($key in $keys) {
        if (Test-Path -LiteralPath $key) { return $true }
    }
    # Files an installer could not replace while in use wait for the next boot: MoveFileEx with
    # MOVEFILE_DELAY_UNTIL_REBOOT lists them in this REG_MULTI_SZ value, which the boot carries out and removes.
    $renames = Get-ItemProperty -LiteralPath 'HKLM:\SYSTEM\CurrentControlSet\Control\Session Manager' `
        -Name PendingFileRenameOperations -ErrorAction SilentlyContinue
    if ($renames -and @($renames.PendingFileRenameOperations | Where-Object { $_ }).Count -gt 0) { return $true }
    return $false
}

function Get-KubeWinFirewallRule {
    param([Parameter(Mandatory)][string]$Name)
    $rule = Get-NetFirewallRule -Name $Name -ErrorAction SilentlyContinue
    if (-not $rule) { return [ordered]@{ name = $Name; exists = $false } }
    $ports = $rule | Get-NetFirewallPortFilter
    $addresses = $rule | Get-NetFirewallAddressFilter
    return [ordered]@{
        name = $rule.Name
        exists = $true
        display_name = $rule.DisplayName
        enabled = ([string]$rule.Enabled -eq 'True')
        direction = ([string]$rule.Direction).ToLowerInvariant()
        action = ([string]$rule.Action).ToLowerInvariant()
        protocol = ([string]$ports.Protocol).ToLowerInvariant()
        # A rule without a local port lists the keyword Any: reported as no port.
        local_port = @($ports.LocalPort | Where-Object { [string]$_ -ne 'Any' } | ForEach-Object { [string]$_ })
        # As Windows reads them back (an IPv4 subnet with its mask: 10.0.0.0/255.255.255.0); Any is reported as none.
        remote_address = @($addresses.RemoteAddress | Where-Object { [string]$_ -ne 'Any' } | ForEach-Object { [string]$_ })
    }
}

function Get-KubeWinRemoteAccess {
    # Calico's bgp backend needs Remote Access installed as a LAN router and its service running (tigera/docs
    # CalicoWindowsInstall.js). The service comes with the RemoteAccess feature, the cmdlets with
    # RSAT-RemoteAccess-PowerShell; RoutingStatus is 'Installed' once Install-RemoteAccess -VpnType RoutingOnly ran.
    $remote = [ordered]@{ module = $false; routing = $null; service = $null; start_type = $null }
    $service = Get-Service -Name RemoteAccess -ErrorAction SilentlyContinue
    if ($service) {
        $remote.service = [string]$service.Status
        $remote.start_type = [string]$service.StartType
    }
    if (Get-Command -Name Get-RemoteAccess -ErrorAction SilentlyContinue) {
        $remote.module = $true
        $remote.routing = [string](Get-RemoteAccess).RoutingStatus
    }
    return $remote
}

function Get-KubeWinPortRanges {
    # The dynamic (ephemeral) port range of TCP and UDP over IPv4 and their excluded port ranges, as netsh shows them
    # (KB 929851; netsh interface ipv4 show dynamicport / show excludedportrange). The labels are translated on a
    # localised Windows: only the numbers are read, in their order (start, then count; start and end of each
    # exclusion, an asterisk marking an administered one). Python decides what they mean (_port_ranges.py).
    # The ranges are the transport's, not the IP family's: netsh interface ipv6 shows the same ones, so a dual-stack
    # node is not read twice (_port_ranges.py names the sources).
    $netsh = "$env:SystemRoot\System32\netsh.exe"
    $ports = [ordered]@{}
    foreach ($protocol in @('tcp', 'udp')) {
        $dynamic = @(& $netsh interface ipv4 show dynamicport $protocol)
        if ($LASTEXITCODE -ne 0) { throw "netsh interface ipv4 show dynamicport $protocol failed ($LASTEXITCODE): $dynamic" }
        $numbers = @(foreach ($line in $dynamic) { if ([string]$line -match ':\s*(\d+)\s*$') { [int]$Matches[1] } })
        $excludedText = @(& $netsh interface ipv4 show excludedportrange "protocol=$protocol")
        if ($LASTEXITCODE -ne 0) { throw "netsh interface ipv4 show excludedportrange $protocol failed ($LASTEXITCODE): $excludedText" }
        $excluded = @(foreach ($line in $excludedText) {
                if ([string]$line -match '^\s*(\d+)\s+(\d+)\s*(\*?)\s*$') {
                    [ordered]@{ start = [int]$Matches[1]; end = [int]$Matches[2]; administered = ($Matches[3] -eq '*') }
                }
            })
        $range = [ordered]@{ dynamic_start = $null; dynamic_count = $null; excluded = $excluded }
        if ($numbers.Count -eq 2) {
            $range.dynamic_start = $numbers[0]
            $range.dynamic_count = $numbers[1]
        }
        $ports[$protocol] = $range
    }
    return $ports
}

function Get-KubeWinGmsa {
    # gMSA on the node (plugins/plugin_utils/_gmsa.py): whether it is domain-joined (Win32_ComputerSystem), HNS's
    # EnableCompartmentNamespace, and the CLSIDs registered with Container Credential Guard (the subkeys of
    # CCG\COMClasses; null when the key is not there).
    $computer = Get-CimInstance -ClassName Win32_ComputerSystem
    $gmsa = [ordered]@{
        part_of_domain = [bool]$computer.PartOfDomain
        domain = [string]$computer.Domain
        compartment_namespace = $null
        ccg_plugins = $null
    }
    $hnsState = Get-ItemProperty -LiteralPath 'HKLM:\SYSTEM\CurrentControlSet\Services\hns\State' -ErrorAction SilentlyContinue
    if ($hnsState -and $null -ne $hnsState.EnableCompartmentNamespace) {
        $gmsa.compartment_namespace = [int]$hnsState.EnableCompartmentNamespace
    }
    $classes = 'HKLM:\SYSTEM\CurrentControlSet\Control\CCG\COMClasses'
    if (Test-Path -LiteralPath $classes) {
        $gmsa.ccg_plugins = @(Get-ChildItem -LiteralPath $classes | ForEach-Object { [string]$_.PSChildName } | Sort-Object)
    }
    return $gmsa
}

function Get-KubeWinCsiProxyPipes {
    # The named pipes csi-proxy serves (\\.\pipe\csi-proxy-<API group>-<version>), as the pipe file system lists them.
    $folder = '\\.\pipe\'
    return @([System.IO.Directory]::GetFiles($folder) | ForEach-Object { $_.Substring($folder.Length) } |
            Where-Object { $_ -like 'csi-proxy-*' } | Sort-Object)
}

function Get-KubeWinScheduledTasks {
    # The tasks the collection registers, all in the task folder \kubewin\ (Get-ScheduledTask writes
    # ObjectNotFound for a folder that does not exist yet).
    $tasks = [ordered]@{}
    foreach ($task in @(Get-ScheduledTask -TaskPath '\kubewin\' -ErrorAction SilentlyContinue)) {
        $tasks[$task.TaskName] = [ordered]@{
            name = $task.TaskName
            description = $task.Description
            state = [string]$task.State
            actions = @($task.Actions | ForEach-Object { [ordered]@{ execute = $_.Execute; arguments = $_.Arguments } })
            # XML durations as Task Scheduler keeps them (PT1H); no interval is a trigger that does not repeat.
            triggers = @($task.Triggers | ForEach-Object { [ordered]@{ start = $_.StartBoundary; interval = $_.Repetition.Interval } })
            user_id = $task.Principal.UserId
            run_level = [string]$task.Principal.RunLevel
        }
    }
    return $tasks
}

function Get-KubeWinDefender {
    # Microsoft Defender Antivirus (_defender.py): whether its module is there (Windows Server removes it with the
    # feature Windows-Defender), whether its service answers (Get-MpComputerStatus fails with HRESULT 0x800106ba while
    # WinDefend is stopped) and the exclusion lists, which only a running Defender reports.
    $defender = [ordered]@{ installed = $false; running = $false; exclusion_path = @(); exclusion_process = @() }
    if (-not (Get-Command -Name Get-MpComputerStatus -ErrorAction SilentlyContinue)) { return $defender }
    $defender.installed = $true
    $status = Get-MpComputerStatus -ErrorAction SilentlyContinue
    if (-not $status -or -not $status.AMServiceEnabled) { return $defender }
    $defender.running = $true
    # An empty list is $null.
    $preference = Get-MpPreference
    $defender.exclusion_path = @($preference.ExclusionPath | Where-Object { $_ } | ForEach-Object { [string]$_ })
    $defender.exclusion_process = @($preference.ExclusionProcess | Where-Object { $_ } | ForEach-Object { [string]$_ })
    return $defender
}

function Get-KubeWinTextContent {
    # Small text files a module decides from (kubeadm-flags.env, artifact manifests).
    param([Parameter(Mandatory)][string]$Path)
    $item = Get-Item -LiteralPath $Path -Force -ErrorAction SilentlyContinue
    if (-not $item -or $item.PSIsContainer) { return [ordered]@{ exists = $false; text = $null } }
    if ($item.Length -gt 1MB) { throw "$Path is larger than 1 MiB; not read as text" }
    return [ordered]@{ exists = $true; text = [System.IO.File]::ReadAllText($Path) }
}

function Get-KubeWinCredentialFiles {
    # The files a pattern names (a folder and a file name that may hold wildcards, e.g. the kubelet's
    # kubelet-client-*.pem), each with its ACL profile; a file that holds a credential must be 'secret'.
    # -Filter rather than a wildcard -Path: a pattern that matches nothing is no error.
    param([Parameter(Mandatory)][string]$Pattern)
    $found = [ordered]@{}
    $folder = Split-Path -Path $Pattern -Parent
    if (-not (Test-Path -LiteralPath $folder -PathType Container)) { return $found }
    $items = @(Get-ChildItem -LiteralPath $folder -Filter (Split-Path -Path $Pattern -Leaf) -File -Force)
    foreach ($item in @($items | Sort-Object -Property Name)) {
        $found[$item.FullName] = Get-KubeWinAclProfile -Path $item.FullName
    }
    return $found
}

function Get-KubeWinExecutionPolicies {
    # The PowerShell execution policy of each scope, in precedence order (Get-ExecutionPolicy -List): a Group Policy
    # scope overrides the -ExecutionPolicy Bypass of the collection's powershell.exe command lines.
    $policies = [ordered]@{}
    foreach ($entry in @(Get-ExecutionPolicy -List)) { $policies[[string]$entry.Scope] = [string]$entry.ExecutionPolicy }
    return $policies
}

# Keys where Windows keeps values of its own beside the one the collection sets (_host_settings): only that one is
# read, so that the snapshot holds what the collection decides from and no value Windows rewrites.
$KubeWinSharedRegistryValues = @{
    'HKLM:\SYSTEM\CurrentControlSet\Control\Session Manager\Memory Management' = @('PagingFiles')
}

function Get-KubeWinRegistryKey {
    param([Parameter(Mandatory)][string]$Key)
    $entry = [ordered]@{ exists = [bool](Test-Path -LiteralPath $Key) }
    if ($entry.exists) {
        $entry.values = [ordered]@{}
        $handle = [Microsoft.Win32.Registry]::LocalMachine.OpenSubKey($Key.Substring('HKLM:\'.Length))
        try {
            $names = $KubeWinSharedRegistryValues[$Key]
            $listed = $null -eq $names
            if ($listed) { $names = @($handle.GetValueNames() | Sort-Object) }
            foreach ($name in @($names)) {
                # A shared key's value that is not there: absent, as it would be from a listing.
                if (-not $listed -and $null -eq $handle.GetValue($name)) { continue }
                $entry.values[$name] = [ordered]@{
                    kind = [string]$handle.GetValueKind($name)
                    data = $handle.GetValue($name, $null, 'DoNotExpandEnvironmentNames')
                }
            }
        }
        finally { $handle.Close() }
    }
    return $entry
}

function Get-KubeWinNodeState {
    param(
        [string[]]$Sections = @(),
        [string[]]$Features = @(),
        [string[]]$Services = @(),
        [string[]]$Files = @(),
        [string[]]$Contents = @(),
        [string[]]$Environment = @(),
        [string[]]$FirewallRules = @(),
        [string[]]$Credentials = @(),
        [string[]]$RegistryKeys = @(),
        [string[]]$Folders = @()
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
            # The node's clock, for the doctor's skew check against the control plane's.
            now = (Get-Date).ToUniversalTime().ToString('o')
            system_drive_free_bytes = [int64]$disk.FreeSpace
            # Win32_OperatingSystem in kilobytes: the physical memory, what the page files hold, and the commit limit (the
            # two added), which the prerequisites role and the doctor hold against the pods the node may run.
            memory_kb = [int64]$system.TotalVisibleMemorySize
            page_files_kb = [int64]$system.SizeStoredInPagingFiles
            commit_limit_kb = [int64]$system.TotalVirtualMemorySize
            execution_policies = Get-KubeWinExecutionPolicies
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

    if ('routes' -in $Sections) {
        $state.routes = Get-KubeWinStaticRoutes
    }

    if ('hns' -in $Sections) {
        $state.hns = Get-KubeWinHnsState
    }

    if ('services' -in $Sections) {
        $state.services = [ordered]@{}
        # Read once for all the services (each entry says whether it is in that order).
        $preshutdownOrder = Get-KubeWinPreshutdownOrder
        foreach ($name in $Services) {
            $state.services[$name] = Get-KubeWinService -Name $name -PreshutdownOrder $preshutdownOrder
        }
    }

    if ('files' -in $Sections) {
        # The files asked for and every file the collection manages on this node.
        $registry = Get-KubeWinRegistry
        $state.files = [ordered]@{}
        foreach ($path in @($Files) + @($registry.files.Keys | Sort-Object)) {
            if (-not $state.files.Contains($path)) {
                $state.files[$path] = Get-KubeWinFileState -Path $path -Registry $registry
            }
        }
    }

    if ('credentials' -in $Sections) {
        # Per pattern asked for, the files holding a credential and their ACL profile.
        $state.credentials = [ordered]@{}
        foreach ($pattern in $Credentials) {
            if (-not $state.credentials.Contains($pattern)) {
                $state.credentials[$pattern] = Get-KubeWinCredentialFiles -Pattern $pattern
            }
        }
    }

    if ('artifacts' -in $Sections) {
        # Where each artifact destination came from, as recorded when it was verified.
        $state.artifacts = [ordered]@{}
        $artifacts = (Get-KubeWinRegistry).artifacts
        foreach ($key in @($artifacts.Keys | Sort-Object)) { $state.artifacts[$key] = $artifacts[$key] }
    }

    if ('contents' -in $Sections) {
        # The files asked for and every managed file registered with -TrackContent.
        $tracked = @((Get-KubeWinRegistry).files.GetEnumerator() | Where-Object { $_.Value.track_content } |
                ForEach-Object { $_.Key } | Sort-Object)
        $state.contents = [ordered]@{}
        foreach ($path in @($Contents) + $tracked) {
            if (-not $state.contents.Contains($path)) { $state.contents[$path] = Get-KubeWinTextContent -Path $path }
        }
    }

    if ('folders' -in $Sections) {
        # The names in each folder asked for, null for a missing folder: a module asking for a file of it that is not
        # listed knows it is not there. Names only, nothing hashed: cheap on a node whose folders are full.
        $state.folders = [ordered]@{}
        foreach ($folder in $Folders) {
            $state.folders[$folder] = $null
            if (Test-Path -LiteralPath $folder -PathType Container) {
                $state.folders[$folder] = @(Get-ChildItem -LiteralPath $folder -Force | ForEach-Object { $_.Name } |
                        Sort-Object)
            }
        }
    }

    if ('environment' -in $Sections) {
        $state.environment = [ordered]@{}
        foreach ($name in $Environment) {
            $state.environment[$name] = [Environment]::GetEnvironmentVariable($name, 'Machine')
        }
    }

    if ('firewall' -in $Sections) {
        # The rules asked for and every rule the collection created (their names start with kubewin-).
        $state.firewall = [ordered]@{}
        $managed = @(Get-NetFirewallRule -Name 'kubewin-*' -ErrorAction SilentlyContinue | ForEach-Object { $_.Name })
        foreach ($name in @($FirewallRules) + @($managed | Sort-Object)) {
            if (-not $state.firewall.Contains($name)) { $state.firewall[$name] = Get-KubeWinFirewallRule -Name $name }
        }
    }

    if ('scheduled_tasks' -in $Sections) {
        $state.scheduled_tasks = Get-KubeWinScheduledTasks
    }

    if ('registry' -in $Sections) {
        # Whether each registry key asked for (HKLM:\...) exists (keys other programs left, which a reset removes), and
        # the values of one that does, each with its kind as stored (RegistryValueKind) and its data unexpanded: a
        # policy value of the wrong kind is not the policy.
        $state.registry = [ordered]@{}
        foreach ($key in $RegistryKeys) {
            if (-not $state.registry.Contains($key)) {
                $state.registry[$key] = Get-KubeWinRegistryKey -Key $key
            }
        }
    }

    if ('remote_access' -in $Sections) {
        $state.remote_access = Get-KubeWinRemoteAccess
    }

    if ('gmsa' -in $Sections) {
        $state.gmsa = Get-KubeWinGmsa
    }

    if ('ports' -in $Sections) {
        $state.ports = Get-KubeWinPortRanges
    }

    if ('csi_proxy' -in $Sections) {
        $state.csi_proxy = [ordered]@{ pipes = @(Get-KubeWinCsiProxyPipes) }
    }

    if ('defender' -in $Sections) {
        $state.defender = Get-KubeWinDefender
    }

    if ('ovs' -in $Sections) {
        # Open vSwitch: the MSI product, the switch extension on each vSwitch, bridges and external ids.
        $state.ovs = Get-KubeWinOvsState
    }

    return $state
}
# --- end lib/state ----------------------------------------------------------------
