# kubewin-script: openvswitch_worker
# Runs detached (started by detached_start): installing the Open vSwitch MSI (a switch
# extension driver) and moving the adapter under the OVS bridge both interrupt the node's
# network, so the steps run outside the WinRM session. In order, each only when asked:
#   state=absent (taking the node out of OVN; Open vSwitch stays installed):
#   a. stop ovn-controller;
#   b. disable the OVS extension on the vSwitches of the bridge's adapters (a vSwitch whose
#      extension forwards through a bridge that is gone carries nothing), delete the bridge;
#   c. remove the OVN keys from the Open_vSwitch table's external_ids;
#   state=present:
#   1. msiexec /i <msi> ADDLOCAL=<features> /qn (the source documents' unattended install);
#   2. the bridge: stop ovs-vswitchd, disable the OVS extension on the adapter's vSwitch,
#      recreate the bridge with the host vNIC as internal port and the adapter as port,
#      re-enable the extension, start ovs-vswitchd;
#   3. the OVN settings in the Open_vSwitch table's external_ids;
#   4. start the OVS/OVN services that are not running.
param(
    [Parameter(Mandatory)][ValidatePattern('^[a-z0-9-]+$')][string]$OperationId
)
$ErrorActionPreference = 'Stop'

# kubewin-include: files
# kubewin-include: services
# kubewin-include: worker
# kubewin-include: ovs


function Install-OvsMsi {
    param([Parameter(Mandatory)]$Install)
    if (-not (Test-Path -LiteralPath $Install.msi -PathType Leaf)) { throw "the MSI $($Install.msi) does not exist" }
    $msiLog = Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.msi.log'
    $arguments = @('/i', ('"{0}"' -f $Install.msi), ('ADDLOCAL="{0}"' -f (@($Install.features) -join ',')),
        '/qn', '/norestart', '/l*v', ('"{0}"' -f $msiLog))
    Write-WorkerLog "msiexec $($arguments -join ' ')"
    $process = Start-Process -FilePath 'msiexec.exe' -ArgumentList $arguments -Wait -PassThru
    # 3010: installed, a reboot completes it.
    if ($process.ExitCode -eq 3010) { return $true }
    if ($process.ExitCode -ne 0) {
        throw "msiexec failed with exit code $($process.ExitCode); see $msiLog on the node"
    }
    return $false
}

function Get-AdapterSwitch {
    param([Parameter(Mandatory)][string]$Adapter)
    # Get-NetAdapter is a CDXML function: this script's $ErrorActionPreference does not reach it (Restore-StaticConfig
    # of hns_network_worker.ps1 says why).
    $description = (Get-NetAdapter -Name $Adapter -ErrorAction Stop).InterfaceDescription
    $switch = @(Get-VMSwitch | Where-Object { $_.NetAdapterInterfaceDescription -eq $description })
    if ($switch.Count -ne 1) { throw "expected one vSwitch on adapter '$Adapter', found $($switch.Count)" }
    return $switch[0].Name
}

function Remove-OvsBridge {
    param([Parameter(Mandatory)][string]$Vsctl, [Parameter(Mandatory)]$Bridge)
    foreach ($adapter in @($Bridge.disable_extension_on)) {
        $switchName = Get-AdapterSwitch -Adapter $adapter
        Write-WorkerLog "disabling $($Bridge.extension) on vSwitch '$switchName'"
        Disable-VMSwitchExtension -VMSwitchName $switchName -Name $Bridge.extension | Out-Null
    }
    $null = Invoke-KubeWinOvsVsctl -Vsctl $Vsctl -Arguments @('--no-wait', '--if-exists', 'del-br', $Bridge.name)
}

function Reset-OvsBridge {
    param([Parameter(Mandatory)][string]$Vsctl, [Parameter(Mandatory)]$Bridge)
    $switchName = Get-AdapterSwitch -Adapter $Bridge.adapter
    Write-WorkerLog "rebuilding bridge $($Bridge.name) on vSwitch '$switchName'"
    Stop-KubeWinService -Name 'ovs-vswitchd'
    Disable-VMSwitchExtension -VMSwitchName $switchName -Name $Bridge.extension | Out-Null
    $null = Invoke-KubeWinOvsVsctl -Vsctl $Vsctl -Arguments @('--no-wait', '--if-exists', 'del-br', $Bridge.name)
    foreach ($port in @($Bridge.internal_port, $Bridge.adapter)) {
        # A port of that name on another bridge would make add-port fail.
        $null = Invoke-KubeWinOvsVsctl -Vsctl $Vsctl -Arguments @('--no-wait', '--if-exists', 'del-port', $port)
    }
    $null = Invoke-KubeWinOvsVsctl -Vsctl $Vsctl -Arguments @('--no-wait', 'add-br', $Bridge.name)
    $null = Invoke-KubeWinOvsVsctl -Vsctl $Vsctl -Arguments @('--no-wait', 'add-port', $Bridge.name, $Bridge.internal_port,
        '--', 'set', 'interface', $Bridge.internal_port, 'type=internal')
    $null = Invoke-KubeWinOvsVsctl -Vsctl $Vsctl -Arguments @('--no-wait', 'add-port', $Bridge.name, $Bridge.adapter)
    Enable-VMSwitchExtension -VMSwitchName $switchName -Name $Bridge.extension | Out-Null
    Start-Sleep -Seconds 2
    Start-KubeWinService -Name 'ovs-vswitchd'
}

$outcome = [ordered]@{
    operation_id = $OperationId
    state = 'failed'
    stopped = @()
    bridge_removed = $false
    external_ids_removed = @()
    installed = $false
    reboot_required = $false
    bridge_rebuilt = $false
    external_ids_set = @()
    started = @()
    error = $null
}
try {
    # detached_start wrote the arguments with Write-KubeWinTextFile: UTF-8 without a byte order mark, which
    # Get-Content reads in the ANSI code page unless told.
    $spec = Get-Content -LiteralPath (Get-KubeWinOperationPath -OperationId $OperationId -Suffix '.args.json') -Raw `
        -Encoding UTF8 | ConvertFrom-Json
    Write-WorkerLog 'started'
    foreach ($name in @($spec.stop)) {
        Stop-KubeWinService -Name $name
        $outcome.stopped += $name
    }
    if ($spec.install) {
        $outcome.reboot_required = Install-OvsMsi -Install $spec.install
        $outcome.installed = $true
    }
    $vsctl = Get-KubeWinOvsVsctl
    if (-not $vsctl) { throw 'ovs-vsctl.exe is not on the machine PATH; is Open vSwitch installed?' }
    Start-KubeWinService -Name 'ovsdb-server'
    if ($spec.remove_bridge) {
        Remove-OvsBridge -Vsctl $vsctl -Bridge $spec.remove_bridge
        $outcome.bridge_removed = $true
    }
    $keys = @($spec.remove_external_ids)
    if ($keys.Count -gt 0) {
        $null = Invoke-KubeWinOvsVsctl -Vsctl $vsctl -Arguments (@('--no-wait', 'remove', 'Open_vSwitch', '.', 'external_ids') + $keys)
        $outcome.external_ids_removed = $keys
    }
    if ($spec.bridge) {
        Reset-OvsBridge -Vsctl $vsctl -Bridge $spec.bridge
        $outcome.bridge_rebuilt = $true
    }
    $pairs = @($spec.external_ids.PSObject.Properties | ForEach-Object { 'external_ids:{0}="{1}"' -f $_.Name, $_.Value })
    if ($pairs.Count -gt 0) {
        $null = Invoke-KubeWinOvsVsctl -Vsctl $vsctl -Arguments (@('--no-wait', 'set', 'Open_vSwitch', '.') + $pairs)
        $outcome.external_ids_set = @($spec.external_ids.PSObject.Properties | ForEach-Object { $_.Name })
    }
    foreach ($name in @($spec.services)) {
        if ((Get-Service -Name $name).Status -ne 'Running') {
            Start-KubeWinService -Name $name
            $outcome.started += $name
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
