# --- lib/ovs: Open vSwitch on Windows (the MSI, its Hyper-V switch extension, the OVS database)
$script:KubeWinOvsExtension = 'Cloudbase Open vSwitch Extension'
$script:KubeWinOvsServices = @('ovsdb-server', 'ovs-vswitchd', 'ovn-controller')

function Get-KubeWinOvsProducts {
    # Windows Installer products whose name says Open vSwitch, with the state of each of their
    # features (ADDLOCAL installs a feature "local": state 3).
    $installer = New-Object -ComObject WindowsInstaller.Installer
    $roots = @('HKLM:\SOFTWARE\Microsoft\Windows\CurrentVersion\Uninstall',
        'HKLM:\SOFTWARE\WOW6432Node\Microsoft\Windows\CurrentVersion\Uninstall')
    $products = @()
    foreach ($root in $roots) {
        foreach ($key in @(Get-ChildItem -LiteralPath $root -ErrorAction SilentlyContinue)) {
            $entry = Get-ItemProperty -LiteralPath $key.PSPath
            if (-not $entry.DisplayName -or $entry.DisplayName -notlike '*Open vSwitch*') { continue }
            if ($key.PSChildName -notmatch '^\{[0-9A-Fa-f-]{36}\}$') { continue }
            $code = $key.PSChildName.ToUpperInvariant()
            $features = [ordered]@{}
            foreach ($feature in @($installer.Features($code))) {
                $features[$feature] = @{ 3 = 'local'; 2 = 'absent'; 1 = 'advertised'; 4 = 'source' }[[int]$installer.FeatureState($code, $feature)]
            }
            $products += [ordered]@{
                product_code = $code
                name = $entry.DisplayName
                version = $entry.DisplayVersion
                install_location = $entry.InstallLocation
                features = $features
            }
        }
    }
    return , $products
}

function Get-KubeWinOvsVsctl {
    # The MSI puts its bin folder on the machine PATH, which a session opened before it ran lacks.
    # Entries are as servers have them: empty, in double quotes, with a trailing backslash, on a drive the node does
    # not have. The name is put together as text: 5.1's Join-Path resolves the drive of its -Path and throws
    # DriveNotFoundException for 'E:\tools' or '"C:\...' (a drive named '"C'); Test-Path says False for those.
    $machinePath = [Environment]::GetEnvironmentVariable('Path', 'Machine')
    foreach ($entry in @($machinePath -split ';') + @($env:Path -split ';')) {
        $folder = $entry.Trim().Trim('"').TrimEnd('\')
        if (-not $folder) { continue }
        $candidate = $folder + '\ovs-vsctl.exe'
        if (Test-Path -LiteralPath $candidate -PathType Leaf) { return $candidate }
    }
    return $null
}

function Invoke-KubeWinOvsVsctl {
    param([Parameter(Mandatory)][string]$Vsctl, [Parameter(Mandatory)][string[]]$Arguments)
    # In Windows PowerShell 5.1 each stderr line of a native program, redirected with 2>&1, becomes an error
    # record (NativeCommandError), which under the callers' Stop ends the script even when ovs-vsctl only warned
    # and exited 0. Continue, local to this function's scope, lets the exit code decide; the stderr lines go into
    # the failure message only, never into the output (the callers parse it as JSON).
    $ErrorActionPreference = 'Continue'
    $merged = @(& $Vsctl @Arguments 2>&1)
    $output = @($merged | Where-Object { $_ -isnot [System.Management.Automation.ErrorRecord] } | ForEach-Object { [string]$_ })
    if ($LASTEXITCODE -ne 0) {
        throw "ovs-vsctl $($Arguments -join ' ') failed with exit code ${LASTEXITCODE}: $(@($merged | ForEach-Object { [string]$_ }) -join ' ')"
    }
    return , $output
}

function ConvertFrom-KubeWinOvsDatum {
    # The OVSDB JSON encoding of a column value: an atom, ["set", [...]], ["map", [[k, v], ...]] or ["uuid", id].
    param($Datum)
    if ($Datum -is [array] -and $Datum.Count -eq 2 -and $Datum[0] -is [string]) {
        switch ($Datum[0]) {
            'map' {
                $map = [ordered]@{}
                foreach ($pair in @($Datum[1])) { $map[[string]$pair[0]] = [string]$pair[1] }
                return $map
            }
            'set' { return , @($Datum[1] | ForEach-Object { ConvertFrom-KubeWinOvsDatum -Datum $_ }) }
            'uuid' { return [string]$Datum[1] }
        }
    }
    return $Datum
}

function Get-KubeWinOvsTable {
    param([Parameter(Mandatory)][string]$Vsctl, [Parameter(Mandatory)][string]$Table, [Parameter(Mandatory)][string[]]$Columns)
    $text = (Invoke-KubeWinOvsVsctl -Vsctl $Vsctl -Arguments @('--timeout=10', '--format=json',
            "--columns=$($Columns -join ',')", 'list', $Table)) -join "`n"
    $document = ConvertFrom-Json -InputObject $text
    $rows = @()
    foreach ($row in @($document.data)) {
        $record = [ordered]@{}
        for ($i = 0; $i -lt $document.headings.Count; $i++) {
            $record[$document.headings[$i]] = ConvertFrom-KubeWinOvsDatum -Datum $row[$i]
        }
        $rows += $record
    }
    return , $rows
}

function Get-KubeWinOvsDatabase {
    # Bridges with their ports (name, type, error) and the Open_vSwitch row's external_ids.
    param([Parameter(Mandatory)][string]$Vsctl)
    $interfaces = @{}
    foreach ($row in (Get-KubeWinOvsTable -Vsctl $Vsctl -Table 'Interface' -Columns @('_uuid', 'name', 'type', 'error'))) {
        $interfaces[$row._uuid] = $row
    }
    $ports = @{}
    foreach ($row in (Get-KubeWinOvsTable -Vsctl $Vsctl -Table 'Port' -Columns @('_uuid', 'name', 'interfaces'))) {
        $ports[$row._uuid] = $row
    }
    $bridges = [ordered]@{}
    foreach ($row in (Get-KubeWinOvsTable -Vsctl $Vsctl -Table 'Bridge' -Columns @('name', 'ports'))) {
        $members = [ordered]@{}
        foreach ($portId in @($row.ports)) {
            $port = $ports[[string]$portId]
            if (-not $port) { continue }
            $interface = $interfaces[[string](@($port.interfaces)[0])]
            $portError = $null
            if ($interface -and $interface.error -is [string] -and $interface.error) { $portError = $interface.error }
            $members[$port.name] = [ordered]@{ type = [string]$interface.type; error = $portError }
        }
        $bridges[$row.name] = [ordered]@{ ports = $members }
    }
    $system = @(Get-KubeWinOvsTable -Vsctl $Vsctl -Table 'Open_vSwitch' -Columns @('external_ids'))
    $externalIds = [ordered]@{}
    if ($system.Count -gt 0 -and $system[0].external_ids -is [System.Collections.IDictionary]) {
        $externalIds = $system[0].external_ids
    }
    return [ordered]@{ bridges = $bridges; external_ids = $externalIds }
}

function Get-KubeWinOvsSwitches {
    # Every Hyper-V switch with the adapter it is bound to and the state of the OVS extension on it.
    $switches = @()
    if (-not (Get-Command -Name Get-VMSwitch -ErrorAction SilentlyContinue)) { return , $switches }
    $adapters = @{}
    foreach ($adapter in @(Get-NetAdapter -IncludeHidden -ErrorAction SilentlyContinue)) {
        $adapters[$adapter.InterfaceDescription] = $adapter.Name
    }
    foreach ($switch in @(Get-VMSwitch -ErrorAction SilentlyContinue)) {
        $extension = Get-VMSwitchExtension -VMSwitchName $switch.Name -Name $script:KubeWinOvsExtension -ErrorAction SilentlyContinue
        $switches += [ordered]@{
            name = $switch.Name
            adapter = $adapters[$switch.NetAdapterInterfaceDescription]
            extension = $(if ($extension) { [ordered]@{ enabled = [bool]$extension.Enabled } } else { $null })
        }
    }
    return , $switches
}

function Get-KubeWinOvsState {
    $products = Get-KubeWinOvsProducts
    $vsctl = Get-KubeWinOvsVsctl
    $database = $null
    $databaseError = $null
    $server = Get-Service -Name 'ovsdb-server' -ErrorAction SilentlyContinue
    if ($vsctl -and $server -and $server.Status -eq 'Running') {
        try { $database = Get-KubeWinOvsDatabase -Vsctl $vsctl }
        catch { $databaseError = $_.Exception.Message }
    }
    return [ordered]@{
        products = $products
        vsctl = $vsctl
        database = $database
        database_error = $databaseError
        switches = Get-KubeWinOvsSwitches
    }
}
# --- end lib/ovs --------------------------------------------------------------------
