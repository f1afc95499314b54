# --- lib/hns: Host Networking Service (HNS) v1 API --------------------------------
# The HostNetworkingService PowerShell module lists and removes HNS objects but
# cannot create them, so every HNS call goes through the API that module and
# Docker use: HNSCall in vmcompute.dll, which takes and returns JSON.
if (-not ('KubeWin.Hns' -as [type])) {
    Add-Type -Namespace KubeWin -Name Hns -MemberDefinition @'
[DllImport("vmcompute.dll")]
public static extern void HNSCall(
    [MarshalAs(UnmanagedType.LPWStr)] string method,
    [MarshalAs(UnmanagedType.LPWStr)] string path,
    [MarshalAs(UnmanagedType.LPWStr)] string request,
    [MarshalAs(UnmanagedType.LPWStr)] out string response);
'@
}

function Invoke-KubeWinHns {
    param(
        [Parameter(Mandatory)][ValidateSet('GET', 'POST', 'DELETE')][string]$Method,
        [Parameter(Mandatory)][string]$Path,
        $Body
    )
    $request = ''
    if ($null -ne $Body) {
        $request = ConvertTo-Json -InputObject $Body -Depth 10 -Compress
    }
    $response = ''
    [KubeWin.Hns]::HNSCall($Method, $Path, $request, [ref]$response)
    $answer = ConvertFrom-Json -InputObject $response
    if (-not $answer.Success) {
        throw "HNS $Method $Path failed: $($answer.Error)"
    }
    return $answer.Output
}

function ConvertFrom-KubeWinHnsPolicy {
    # Policies come back either as objects or as JSON strings, depending on the build.
    param($Policy)
    if ($Policy -is [string]) {
        return ConvertFrom-Json -InputObject $Policy
    }
    return $Policy
}

function ConvertTo-KubeWinNetwork {
    param($Network)
    $subnets = @(foreach ($subnet in @($Network.Subnets)) {
            if ($null -eq $subnet) { continue }
            $vsid = $null
            foreach ($policy in @($subnet.Policies)) {
                if ($null -eq $policy) { continue }
                $policy = ConvertFrom-KubeWinHnsPolicy -Policy $policy
                if ($policy.Type -eq 'VSID') { $vsid = [int]$policy.VSID }
            }
            [ordered]@{
                address_prefix = $subnet.AddressPrefix
                gateway = $subnet.GatewayAddress
                vsid = $vsid
            }
        })
    return [ordered]@{
        id = ([string]$Network.ID).ToLowerInvariant()
        name = $Network.Name
        type = $Network.Type
        subnets = $subnets
        adapter = $Network.NetworkAdapterName
        management_ip = $Network.ManagementIP
    }
}

function ConvertTo-KubeWinEndpoint {
    param($Endpoint)
    return [ordered]@{
        id = ([string]$Endpoint.ID).ToLowerInvariant()
        name = $Endpoint.Name
        network_id = ([string]$Endpoint.VirtualNetwork).ToLowerInvariant()
        network_name = $Endpoint.VirtualNetworkName
        ip_address = $Endpoint.IPAddress
        mac_address = $Endpoint.MacAddress
        is_remote = [bool]$Endpoint.IsRemoteEndpoint
        # A host endpoint attached to the host compartment shows up as a vNIC of that name.
        host_attached = [bool](Get-NetAdapter -Name "vEthernet ($($Endpoint.Name))" -ErrorAction SilentlyContinue)
    }
}

function ConvertTo-KubeWinPolicyList {
    # A policy list is an HNS load balancer (kube-proxy programs one per service VIP):
    # its ELB policies carry the VIPs, its references the endpoints behind them.
    param($PolicyList)
    $vips = @(foreach ($policy in @($PolicyList.Policies)) {
            if ($null -eq $policy) { continue }
            $policy = ConvertFrom-KubeWinHnsPolicy -Policy $policy
            foreach ($vip in @($policy.VIPs)) { if ($vip) { [string]$vip } }
        })
    $endpoints = @(foreach ($reference in @($PolicyList.References)) {
            if ($reference) { ([string]$reference -replace '^/endpoints/', '').ToLowerInvariant() }
        })
    return [ordered]@{
        id = ([string]$PolicyList.ID).ToLowerInvariant()
        vips = $vips
        endpoints = $endpoints
    }
}

function Get-KubeWinHnsState {
    # The Host Network Service exists only once the Containers feature is installed
    # and the node rebooted; before that a fresh node simply has no HNS state.
    if (-not (Get-Service -Name hns -ErrorAction SilentlyContinue)) {
        return [ordered]@{ available = $false; networks = @(); endpoints = @(); policy_lists = @() }
    }
    $networks = @(Invoke-KubeWinHns -Method GET -Path '/networks/')
    $endpoints = @(Invoke-KubeWinHns -Method GET -Path '/endpoints/')
    $policyLists = @(Invoke-KubeWinHns -Method GET -Path '/policylists/')
    return [ordered]@{
        available = $true
        networks = @(foreach ($n in $networks) { if ($null -ne $n) { ConvertTo-KubeWinNetwork -Network $n } })
        endpoints = @(foreach ($e in $endpoints) { if ($null -ne $e) { ConvertTo-KubeWinEndpoint -Endpoint $e } })
        policy_lists = @(foreach ($p in $policyLists) { if ($null -ne $p) { ConvertTo-KubeWinPolicyList -PolicyList $p } })
    }
}

function Remove-KubeWinHnsNetwork {
    param([Parameter(Mandatory)][string]$Id)
    $null = Invoke-KubeWinHns -Method DELETE -Path "/networks/$Id"
}

function New-KubeWinHnsNetwork {
    # $Spec: name, type, address_prefix, gateway, adapter, vsid (may be $null)
    param([Parameter(Mandatory)]$Spec)
    $subnet = [ordered]@{ AddressPrefix = $Spec.address_prefix }
    if ($Spec.gateway) { $subnet.GatewayAddress = $Spec.gateway }
    if ($null -ne $Spec.vsid) { $subnet.Policies = @(@{ Type = 'VSID'; VSID = [int]$Spec.vsid }) }
    $body = [ordered]@{ Name = $Spec.name; Type = $Spec.type; Subnets = @($subnet) }
    if ($Spec.adapter) { $body.NetworkAdapterName = $Spec.adapter }
    return ConvertTo-KubeWinNetwork -Network (Invoke-KubeWinHns -Method POST -Path '/networks/' -Body $body)
}
# --- end lib/hns -------------------------------------------------------------------
