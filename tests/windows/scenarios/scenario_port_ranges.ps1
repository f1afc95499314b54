# port_ranges: a persistent excluded TCP port range added and deleted with port_ranges_apply (netsh interface ipv4),
# and what the collection takes for a fact on dual-stack nodes checked against this Windows: the ranges are the
# transport's, not the IP family's (plugins/plugin_utils/_port_ranges.py), so netsh's ipv6 context lists the exclusion
# made through ipv4 and refuses to add it a second time. The range is one no exclusion of the node overlaps; a node
# where a program holds one of its ports is skipped.
$netsh = "$env:SystemRoot\System32\netsh.exe"
$count = 8
$excluded = @((Invoke-KubeWinScript -ScriptName node_info -ScriptParameters @{ Sections = @('ports') }).ports.tcp.excluded)
$start = $null
foreach ($candidate in @(44101, 43101, 42101, 41101)) {
    $overlapping = @($excluded | Where-Object { $_.start -le ($candidate + $count - 1) -and $candidate -le $_.end })
    if ($overlapping.Count -eq 0) {
        $start = $candidate
        break
    }
}
if ($null -eq $start) { Skip-KubeWinScenario 'every candidate range overlaps an excluded port range of this node' }
$end = $start + $count - 1
$listed = "^\s*$start\s+$end\s+\*\s*$"
try {
    try {
        $answer = Invoke-KubeWinScript -ScriptName port_ranges_apply -ScriptParameters @{ Changes = @("add:tcp:${start}:$count") }
    }
    catch {
        Skip-KubeWinScenario "netsh did not exclude tcp $start-$end (a program may hold one of its ports): $($_.Exception.Message)"
    }
    $mine = @($answer.state.ports.tcp.excluded | Where-Object { $_.start -eq $start -and $_.end -eq $end })
    Assert-KubeWin $mine.Count 1 'the exclusion in the ports section'
    Assert-KubeWin $mine[0].administered 'True' 'the exclusion is administered'

    # The ipv6 context shows the transport's exclusions: the one made through ipv4 is there...
    $ipv6 = @(& $netsh interface ipv6 show excludedportrange protocol=tcp)
    Assert-KubeWin $LASTEXITCODE 0 'the exit code of netsh interface ipv6 show excludedportrange'
    Assert-KubeWin @($ipv6 | Where-Object { $_ -match $listed }).Count 1 'the exclusion as the ipv6 context lists it'
    # ...and adding the same range through it overlaps that reservation.
    $null = & $netsh interface ipv6 add excludedportrange protocol=tcp "startport=$start" "numberofports=$count" store=active
    Assert-KubeWin $LASTEXITCODE 1 'the exit code of netsh interface ipv6 add excludedportrange of the same range'

    $answer = Invoke-KubeWinScript -ScriptName port_ranges_apply -ScriptParameters @{ Changes = @("delete:tcp:${start}:$count") }
    Assert-KubeWin @($answer.state.ports.tcp.excluded | Where-Object { $_.start -eq $start }).Count 0 'the deleted exclusion'
    $ipv6 = @(& $netsh interface ipv6 show excludedportrange protocol=tcp)
    Assert-KubeWin @($ipv6 | Where-Object { $_ -match $listed }).Count 0 'the deleted exclusion as the ipv6 context lists it'
}
finally {
    # Whatever this scenario added goes, through either context (a range that is not there is "Element not found").
    foreach ($family in @('ipv4', 'ipv6')) {
        $null = & $netsh interface $family delete excludedportrange protocol=tcp "startport=$start" "numberofports=$count" 2>&1
    }
}
