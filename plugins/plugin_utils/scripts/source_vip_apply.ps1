# kubewin-script: source_vip_apply
# Reserves kube-proxy's source VIP (overlay) in the pod subnet through the host-local CNI IPAM
# plugin, so no pod gets that address, after releasing any earlier reservation of the same
# owner; records host-local's answer in SourceVip.json (UTF-8 without BOM) and reports it.
[CmdletBinding(SupportsShouldProcess)]
param(
    # The CNI network name: host-local keeps the reservations of each network in <DataDir>\<Network>.
    [Parameter(Mandatory)][ValidatePattern('^[A-Za-z0-9][A-Za-z0-9_.-]*$')][string]$Network,
    [Parameter(Mandatory)][ValidatePattern('^\d{1,3}(\.\d{1,3}){3}/\d{1,2}$')][string]$Subnet,
    # The subnet of the reservation to release (the recorded one, or Subnet).
    [Parameter(Mandatory)][ValidatePattern('^\d{1,3}(\.\d{1,3}){3}/\d{1,2}$')][string]$ReleaseSubnet,
    [Parameter(Mandatory)][string]$Path,
    [Parameter(Mandatory)][string]$RequestPath,
    [Parameter(Mandatory)][string]$HostLocal,
    [Parameter(Mandatory)][string]$DataDir,
    [ValidatePattern('^[A-Za-z0-9][A-Za-z0-9_.-]*$')][string]$ContainerId = 'kubewin-source-vip'
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

function Invoke-KubeWinHostLocal {
    param([Parameter(Mandatory)][string]$Command, [Parameter(Mandatory)][string]$RangeSubnet)
    $request = [ordered]@{
        cniVersion = '0.3.1'
        name = $Network
        ipam = [ordered]@{
            type = 'host-local'
            ranges = @(, @([ordered]@{ subnet = $RangeSubnet }))
            dataDir = $DataDir
        }
    }
    # host-local reads its configuration from stdin and rejects UTF-16 or a byte order mark,
    # which Out-File and Set-Content write on Windows PowerShell.
    Write-KubeWinTextFile -Path $RequestPath -Text (ConvertTo-Json -InputObject $request -Depth 6 -Compress)
    $start = New-Object -TypeName System.Diagnostics.ProcessStartInfo
    $start.FileName = $HostLocal
    $start.UseShellExecute = $false
    $start.RedirectStandardInput = $true
    $start.RedirectStandardOutput = $true
    $start.RedirectStandardError = $true
    $start.EnvironmentVariables['CNI_COMMAND'] = $Command
    $start.EnvironmentVariables['CNI_CONTAINERID'] = $ContainerId
    $start.EnvironmentVariables['CNI_NETNS'] = 'none'
    $start.EnvironmentVariables['CNI_IFNAME'] = 'source-vip'
    $start.EnvironmentVariables['CNI_PATH'] = Split-Path -Path $HostLocal -Parent
    $process = [System.Diagnostics.Process]::Start($start)
    $bytes = [System.IO.File]::ReadAllBytes($RequestPath)
    $process.StandardInput.BaseStream.Write($bytes, 0, $bytes.Length)
    $process.StandardInput.Close()
    $stderr = $process.StandardError.ReadToEndAsync()
    $output = $process.StandardOutput.ReadToEnd()
    $process.WaitForExit()
    if ($process.ExitCode -ne 0) {
        throw "host-local $Command failed (exit code $($process.ExitCode)): $output $($stderr.Result)"
    }
    return $output
}

# host-local and the files it is given know nothing of -WhatIf: under it (win_powershell in check mode) nothing is
# reserved and the record is reported as it is.
if ($PSCmdlet.ShouldProcess($Path, 'Reserve the source VIP')) {
    New-KubeWinDirectory -Path (Split-Path -Path $Path -Parent)
    # The owner's earlier reservation goes first: host-local refuses a second one for the same owner,
    # and an address outside the current pod subnet is of no use.
    $null = Invoke-KubeWinHostLocal -Command DEL -RangeSubnet $ReleaseSubnet
    $answer = Invoke-KubeWinHostLocal -Command ADD -RangeSubnet $Subnet
    Publish-KubeWinTextFile -Path $Path -Text $answer.Trim() -Profile protected
    Register-KubeWinFile -Path @($Path) -TrackContent
}

$Ansible.Result = ConvertTo-Json -Depth 10 -Compress -InputObject ([ordered]@{
        state = Get-KubeWinNodeState -Sections @('hns', 'files', 'contents') -Files @($Path) -Contents @($Path)
    })
