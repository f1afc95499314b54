# kubewin-script: port_ranges_apply
# Adds or deletes excluded port ranges (netsh interface ipv4 add|delete excludedportrange), persistent across
# restarts, as kubewin.node.port_ranges planned them; then reports the port ranges. An exclusion is the transport's and
# holds for IPv6 too (adding it again through netsh interface ipv6 would overlap it; _port_ranges.py). Each change is
# "<add|delete>:<tcp|udp>:<start port>:<number of ports>".
[CmdletBinding(SupportsShouldProcess)]
param([Parameter(Mandatory)][string[]]$Changes)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

$netsh = "$env:SystemRoot\System32\netsh.exe"
foreach ($change in $Changes) {
    $verb, $protocol, $start, $count = $change -split ':'
    $arguments = @('interface', 'ipv4', $verb, 'excludedportrange', "protocol=$protocol", "startport=$start",
        "numberofports=$count")
    if ($verb -eq 'add') { $arguments += 'store=persistent' }
    # netsh knows no -WhatIf: in check mode nothing runs.
    if (-not $PSCmdlet.ShouldProcess("$protocol ports $start (+$count)", "$verb excluded port range")) { continue }
    # netsh writes its messages to standard output and sets the exit code.
    $output = & $netsh @arguments 2>&1
    if ($LASTEXITCODE -ne 0) {
        throw "netsh $($arguments -join ' ') failed (exit code $LASTEXITCODE): $(@($output | ForEach-Object { [string]$_ } | Where-Object { $_ }) -join ' ')"
    }
}
$Ansible.Result = ConvertTo-Json -Depth 6 -Compress -InputObject ([ordered]@{
        state = Get-KubeWinNodeState -Sections @('ports')
    })
