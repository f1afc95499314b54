# kubewin-script: kube_proxy_start
# The entry point of the kube-proxy-windows DaemonSet's HostProcess container (kubewin.node): runs the node's own
# kube-proxy with the DaemonSet's flags, the pod's node name and the source VIP: on overlay the one the collection
# reserved on the node (SourceVip.json, kubewin.node.source_vip); on calico the address of Calico's host endpoint
# (Calico_ep) when Calico's network is VXLAN (HNS type Overlay), none when it is BGP (L2Bridge), as sig-windows-tools'
# Calico kube-proxy start.ps1 decided (hostprocess/calico/kube-proxy, before #383). A HostProcess container sees the
# host's files, so the paths are the node's (kubernetes.io, "Create a Windows HostProcess Pod"). The parameters
# default to the container's environment, which the DaemonSet sets. It does not return while kube-proxy runs;
# kube-proxy's exit code is its own.
[CmdletBinding()]
param(
    [string]$KubeProxy = $env:KUBEWIN_KUBE_PROXY,
    # One flag a line (the DaemonSet's KUBEWIN_KUBE_PROXY_ARGS).
    [string]$Arguments = $env:KUBEWIN_KUBE_PROXY_ARGS,
    [string]$NodeName = $env:NODE_NAME,
    # Empty on topologies without a source VIP.
    [string]$SourceVipFile = $env:KUBEWIN_SOURCE_VIP_FILE,
    # Calico: the HNS endpoint whose address is the source VIP on an Overlay network (empty elsewhere).
    [string]$SourceVipEndpoint = $env:KUBEWIN_SOURCE_VIP_ENDPOINT,
    # kube-proxy's HNS network (the DaemonSet's KUBE_NETWORK).
    [string]$Network = $env:KUBE_NETWORK,
    # How long to wait for the network and the endpoint, which calico-node-windows's start-up creates once the node's
    # kubelet runs; after that the script fails and the kubelet restarts the container with its back-off.
    [int]$WaitSeconds = 300
)
$ErrorActionPreference = 'Stop'

# kubewin-include: hns

function Wait-KubeWinHnsObject {
    # The first object of the HNS collection (networks or endpoints) that -Where accepts, polling once a second.
    param([Parameter(Mandatory)][string]$Collection, [Parameter(Mandatory)][scriptblock]$Where,
          [Parameter(Mandatory)][string]$What)
    $clock = [System.Diagnostics.Stopwatch]::StartNew()
    while ($true) {
        $found = @(Invoke-KubeWinHns -Method GET -Path "/$Collection/") | Where-Object $Where | Select-Object -First 1
        if ($found) { return $found }
        if ($clock.Elapsed.TotalSeconds -ge $WaitSeconds) {
            throw "no $What on this node after $WaitSeconds seconds (Calico's calico-node-windows creates it once the node's kubelet runs)"
        }
        Start-Sleep -Seconds 1
    }
}

if (-not $KubeProxy -or -not (Test-Path -LiteralPath $KubeProxy -PathType Leaf)) {
    throw "kube-proxy is not installed on this node at '$KubeProxy' (kubewin.node's kubernetes_binaries role installs it)"
}
if (-not $NodeName) {
    throw 'NODE_NAME is not set: the DaemonSet passes the pod''s spec.nodeName'
}
$flags = @($Arguments -split "`n" | Where-Object { $_ -ne '' })
# Without the node name kube-proxy deletes the HNS endpoints of the node's pods (source documents, troubleshooting).
$flags += '--hostname-override=' + $NodeName.ToLowerInvariant()
if ($SourceVipFile) {
    if (-not (Test-Path -LiteralPath $SourceVipFile -PathType Leaf)) {
        throw "no source VIP on this node yet: '$SourceVipFile' is missing (kubewin.node's network_overlay role reserves it)"
    }
    # host-local's answer: ips[0].address (CNI 0.3.0 and later) or ip4.ip (0.2.0), address/prefix.
    $answer = [System.IO.File]::ReadAllText($SourceVipFile) | ConvertFrom-Json
    $interface = if ($answer.ips) { $answer.ips[0].address } else { $answer.ip4.ip }
    if (-not $interface) {
        throw "'$SourceVipFile' holds no address (expected host-local's answer)"
    }
    $flags += '--source-vip=' + ($interface -split '/')[0]
}
elseif ($SourceVipEndpoint) {
    $hnsNetwork = Wait-KubeWinHnsObject -Collection networks -Where { $_.Name -eq $Network } -What "HNS network '$Network'"
    if ($hnsNetwork.Type -eq 'Overlay') {
        # VXLAN: kube-proxy gives service traffic it sends into the overlay the host endpoint's address.
        $endpoint = Wait-KubeWinHnsObject -Collection endpoints -What "HNS endpoint '$SourceVipEndpoint' on '$Network'" -Where {
            $_.Name -eq $SourceVipEndpoint -and $_.VirtualNetworkName -eq $Network -and $_.IPAddress }
        $flags += '--source-vip=' + $endpoint.IPAddress
    }
}
Write-Host ("Starting {0} {1}" -f $KubeProxy, ($flags -join ' '))
& $KubeProxy @flags
exit $LASTEXITCODE
