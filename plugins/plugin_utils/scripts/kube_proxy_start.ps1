# kubewin-script: kube_proxy_start
# The entry point of the kube-proxy-windows DaemonSet's HostProcess container (kubewin.node): runs the node's own
# kube-proxy with the DaemonSet's flags, the pod's node name and, on overlay, the source VIP the collection reserved
# on the node (SourceVip.json, kubewin.node.source_vip). A HostProcess container sees the host's files, so the paths
# are the node's (kubernetes.io, "Create a Windows HostProcess Pod"). The parameters default to the container's
# environment, which the DaemonSet sets. It does not return while kube-proxy runs; kube-proxy's exit code is its own.
[CmdletBinding()]
param(
    [string]$KubeProxy = $env:KUBEWIN_KUBE_PROXY,
    # One flag a line (the DaemonSet's KUBEWIN_KUBE_PROXY_ARGS).
    [string]$Arguments = $env:KUBEWIN_KUBE_PROXY_ARGS,
    [string]$NodeName = $env:NODE_NAME,
    # Empty on topologies without a source VIP.
    [string]$SourceVipFile = $env:KUBEWIN_SOURCE_VIP_FILE
)
$ErrorActionPreference = 'Stop'

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
Write-Host ("Starting {0} {1}" -f $KubeProxy, ($flags -join ' '))
& $KubeProxy @flags
exit $LASTEXITCODE
