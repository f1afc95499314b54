# kubewin-script: hns_network_worker
# Runs detached (started by detached_start): creating the first external HNS
# network on an adapter creates a vSwitch, which drops the node's network for
# seconds and, on some builds, leaves the new host vNIC without its static IPv4
# configuration (APIPA or DHCP). This worker records the configuration first,
# makes the change, waits for the host vNIC and re-applies a wiped static
# configuration itself, because nobody can reach the node to do it afterwards.
param(
    [Parameter(Mandatory)][ValidatePattern('^[a-z0-9-]+$')][string]$OperationId
)
$ErrorActionPreference = 'Stop'

# kubewin-include: files
# kubewin-include: worker
# kubewin-include: hns
# kubewin-include: netconfig


function Test-UsableIPv4 {
    param($Config)
    foreach ($address in @($Config.ipv4)) {
        if ($address.address -and -not $address.address.StartsWith('169.254.')) { return $true }
    }
    return $false
}

function Test-SameStaticConfig {
    param($Expected, $Actual)
    $actualAddress = @($Actual.ipv4 | Where-Object { $_.address -eq $Expected.address -and $_.prefix_length -eq $Expected.prefix_length })
    $sameDns = (@($Expected.dns_servers) -join ',') -eq (@($Actual.dns_servers) -join ',')
    return ($actualAddress.Count -eq 1 -and -not $Actual.dhcp -and $Actual.gateway -eq $Expected.gateway -and $sameDns)
}

function Restore-StaticConfig {
    # The NetTCPIP and DnsClient cmdlets are CDXML functions of their modules: they read $ErrorActionPreference in
    # the global scope, not in this script's (powershell.exe -File gives the script a scope of its own), so the
    # 'Stop' above does not reach them (PowerShell/PowerShell#4568, #6556). Each says -ErrorAction Stop itself.
    param([string]$Alias, $Expected)
    Set-NetIPInterface -InterfaceAlias $Alias -AddressFamily IPv4 -Dhcp Disabled -ErrorAction Stop
    Get-NetIPAddress -InterfaceAlias $Alias -AddressFamily IPv4 -ErrorAction SilentlyContinue |
        Remove-NetIPAddress -Confirm:$false -ErrorAction Stop
    Get-NetRoute -InterfaceAlias $Alias -DestinationPrefix '0.0.0.0/0' -ErrorAction SilentlyContinue |
        Remove-NetRoute -Confirm:$false -ErrorAction Stop
    $addressArgs = @{
        InterfaceAlias = $Alias
        IPAddress = $Expected.address
        PrefixLength = $Expected.prefix_length
        ErrorAction = 'Stop'
    }
    if ($Expected.gateway) { $addressArgs.DefaultGateway = $Expected.gateway }
    $null = New-NetIPAddress @addressArgs
    if (@($Expected.dns_servers).Count -gt 0) {
        Set-DnsClientServerAddress -InterfaceAlias $Alias -ServerAddresses @($Expected.dns_servers) -ErrorAction Stop
    }
}

$outcome = [ordered]@{
    operation_id = $OperationId
    state = 'failed'
    created = $null
    removed = @()
    ip_restored = $false
    error = $null
}
try {
    # detached_start wrote the arguments with Write-KubeWinTextFile: UTF-8 without a byte order mark, which
    # Get-Content reads in the ANSI code page unless told.
    $spec = Get-Content -LiteralPath (Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.args.json') -Raw `
        -Encoding UTF8 | ConvertFrom-Json
    Write-WorkerLog "started: remove $(@($spec.remove_ids).Count) network(s), create '$($spec.create.name)'"
    foreach ($id in @($spec.remove_ids)) {
        if ($id) {
            Remove-KubeWinHnsNetwork -Id $id
            $outcome.removed += $id
        }
    }
    if ($spec.create) {
        $outcome.created = New-KubeWinHnsNetwork -Spec $spec.create
        Write-WorkerLog "created network $($outcome.created.id)"
    }
    $management = $spec.management
    if ($management) {
        $alias = "vEthernet ($($management.adapter))"
        $deadline = (Get-Date).AddSeconds([int]$spec.settle_seconds)
        $current = $null
        do {
            Start-Sleep -Seconds 1
            $adapter = Get-NetAdapter -Name $alias -ErrorAction SilentlyContinue
            if ($adapter) { $current = Get-KubeWinIPv4Config -InterfaceIndex $adapter.ifIndex }
        } until ((Test-UsableIPv4 -Config $current) -or ((Get-Date) -gt $deadline))
        if (-not $adapter) {
            throw "the host vNIC '$alias' did not appear within $($spec.settle_seconds) s"
        }
        if (-not $management.dhcp -and -not (Test-SameStaticConfig -Expected $management -Actual $current)) {
            Write-WorkerLog "static IPv4 configuration of '$alias' was lost; re-applying $($management.address)/$($management.prefix_length)"
            Restore-StaticConfig -Alias $alias -Expected $management
            $outcome.ip_restored = $true
        }
    }
    $outcome.state = 'done'
}
catch {
    $outcome.error = $_.Exception.Message
    Write-WorkerLog "failed: $($_.Exception.Message)"
}
finally {
    Save-WorkerOutcome -Outcome $outcome
}
