# --- lib/hns: Host Networking Service (HNS) v1 API --------------------------------
# The HostNetworkingService PowerShell module lists and removes HNS objects but
# cannot create them, so every HNS call goes through the API that module and
# Docker use: HNSCall in vmcompute.dll, which takes and returns JSON. Its request
# objects are hcsshim's (internal/hns): the keys and JSON types its structs marshal.

function Initialize-KubeWinHns {
    # Compiled on the first HNS call, not when the script is loaded: Add-Type runs the C#
    # compiler, once per process, and most scripts that include this file never call HNS.
    # HNSCall returns an HRESULT (hcsshim internal/hns/hns.go), which Invoke-KubeWinHns checks.
    if (-not ('KubeWin.Hns' -as [type])) {
        Add-Type -Namespace KubeWin -Name Hns -MemberDefinition @'
[DllImport("vmcompute.dll")]
public static extern int HNSCall(
    [MarshalAs(UnmanagedType.LPWStr)] string method,
    [MarshalAs(UnmanagedType.LPWStr)] string path,
    [MarshalAs(UnmanagedType.LPWStr)] string request,
    [MarshalAs(UnmanagedType.LPWStr)] out string response);
'@
    }
}

function Invoke-KubeWinHns {
    param(
        [Parameter(Mandatory)][ValidateSet('GET', 'POST', 'DELETE')][string]$Method,
        [Parameter(Mandatory)][string]$Path,
        $Body
    )
    Initialize-KubeWinHns
    $request = ''
    if ($null -ne $Body) {
        $request = ConvertTo-Json -InputObject $Body -Depth 10 -Compress
    }
    $response = $null
    $hresult = [KubeWin.Hns]::HNSCall($Method, $Path, $request, [ref]$response)
    if ($hresult -ne 0) {
        # A failing HRESULT comes without a response: the Host Network Service did not answer
        # (not started yet, or not running: "The service has not been started." is 0x80070426).
        $reason = 'HNS {0} {1} failed: HNSCall returned HRESULT 0x{2:X8} without an answer; the Host Network ' +
            'Service is not answering (is the Containers feature installed, the node restarted since and the ' +
            'hns service running?)'
        throw ($reason -f $Method, $Path, $hresult)
    }
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

function Get-KubeWinHostVnicNames {
    # The names of the host vNICs, in one query: an endpoint attached to the host compartment shows
    # up as the vNIC "vEthernet (<endpoint name>)". Keys of a hashtable compare without case, as
    # Get-NetAdapter -Name does.
    $names = @{}
    foreach ($adapter in @(Get-NetAdapter -Name 'vEthernet (*)' -ErrorAction SilentlyContinue)) {
        $names[$adapter.Name] = $true
    }
    return $names
}

function ConvertTo-KubeWinEndpoint {
    param($Endpoint, [hashtable]$HostVnicNames = (Get-KubeWinHostVnicNames))
    return [ordered]@{
        id = ([string]$Endpoint.ID).ToLowerInvariant()
        name = $Endpoint.Name
        network_id = ([string]$Endpoint.VirtualNetwork).ToLowerInvariant()
        network_name = $Endpoint.VirtualNetworkName
        ip_address = $Endpoint.IPAddress
        # hcsshim's HNSEndpoint IPv6Address: a dual-stack endpoint's second address (omitted when it has none).
        ipv6_address = $Endpoint.IPv6Address
        mac_address = $Endpoint.MacAddress
        is_remote = [bool]$Endpoint.IsRemoteEndpoint
        host_attached = [bool]$HostVnicNames["vEthernet ($($Endpoint.Name))"]
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
    $vnics = Get-KubeWinHostVnicNames
    return [ordered]@{
        available = $true
        networks = @(foreach ($n in $networks) { if ($null -ne $n) { ConvertTo-KubeWinNetwork -Network $n } })
        endpoints = @(foreach ($e in $endpoints) {
                if ($null -ne $e) { ConvertTo-KubeWinEndpoint -Endpoint $e -HostVnicNames $vnics }
            })
        policy_lists = @(foreach ($p in $policyLists) { if ($null -ne $p) { ConvertTo-KubeWinPolicyList -PolicyList $p } })
    }
}

function Remove-KubeWinHnsNetwork {
    param([Parameter(Mandatory)][string]$Id)
    $null = Invoke-KubeWinHns -Method DELETE -Path "/networks/$Id"
}

function New-KubeWinHnsNetwork {
    # $Spec: name, type, address_prefix, gateway, adapter, vsid (may be $null), and for a dual-stack L2Bridge network
    # ipv6_address_prefix and ipv6_gateway.
    param([Parameter(Mandatory)]$Spec)
    $body = [ordered]@{ Name = $Spec.name; Type = $Spec.type }
    if ($Spec.address_prefix) {
        # hcsshim's HNSNetwork.Create refuses a subnet with a prefix and no gateway; so does this.
        if (-not $Spec.gateway) {
            throw "HNS network '$($Spec.name)': the subnet $($Spec.address_prefix) needs a gateway address"
        }
        $subnet = [ordered]@{ AddressPrefix = $Spec.address_prefix; GatewayAddress = $Spec.gateway }
        if ($null -ne $Spec.vsid) { $subnet.Policies = @(@{ Type = 'VSID'; VSID = [int]$Spec.vsid }) }
        $body.Subnets = @($subnet)
        if ($Spec.ipv6_address_prefix) {
            # A second subnet and the IPv6 flag, as microsoft/SDN hns.psm1 New-HnsNetwork sends them (one subnet per
            # -AddressPrefix/-Gateway pair, IPv6 = $true with -IPv6).
            $body.Subnets += [ordered]@{ AddressPrefix = $Spec.ipv6_address_prefix; GatewayAddress = $Spec.ipv6_gateway }
            $body.IPv6 = $true
        }
    }
    if ($Spec.adapter) { $body.NetworkAdapterName = $Spec.adapter }
    return ConvertTo-KubeWinNetwork -Network (Invoke-KubeWinHns -Method POST -Path '/networks/' -Body $body)
}
# --- end lib/hns -------------------------------------------------------------------
