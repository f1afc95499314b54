# node_routes_apply: a static route to 192.0.2.0/24 (TEST-NET-1, RFC 5737: reserved for documentation, so no traffic
# of the node goes there) through the gateway of the adapter that holds the default route, added to both stores
# and removed. No other route is touched; a node that already routes 192.0.2.0/24 is left alone.
$destination = '192.0.2.0/24'
$adapters = (Invoke-KubeWinScript -ScriptName node_info -ScriptParameters @{ Sections = @('adapters') }).adapters
$adapter = @($adapters | Where-Object { $_.default_route -and $_.gateway }) | Select-Object -First 1
if (-not $adapter) { Skip-KubeWinScenario 'no adapter holds a default route through a gateway' }
if (Get-NetRoute -AddressFamily IPv4 -DestinationPrefix $destination -ErrorAction SilentlyContinue) {
    Skip-KubeWinScenario "a route to $destination exists already"
}
$route = @{ destination = $destination; next_hop = $adapter.gateway; interface_alias = $adapter.name; interface_index = $adapter.if_index; metric = 500 }
try {
    $answer = Invoke-KubeWinScript -ScriptName node_routes_apply -ScriptParameters @{ Add = @($route) }
    $found = @($answer.state.routes | Where-Object { $_.destination -eq $destination })
    Assert-KubeWin $found.Count 1 "routes to $destination"
    Assert-KubeWin $found[0].next_hop $adapter.gateway 'its next hop'
    Assert-KubeWin $found[0].interface_index $adapter.if_index 'its interface index'
    Assert-KubeWin $found[0].metric 500 'its metric'
    Assert-KubeWin "$($found[0].active) $($found[0].persistent)" 'True True' 'it is active and persistent'

    $answer = Invoke-KubeWinScript -ScriptName node_routes_apply -ScriptParameters @{ Remove = @($route) }
    Assert-KubeWin @($answer.state.routes | Where-Object { $_.destination -eq $destination }).Count 0 "routes to $destination after the removal"
}
finally {
    foreach ($store in @('ActiveStore', 'PersistentStore')) {
        $left = @(Get-NetRoute -AddressFamily IPv4 -DestinationPrefix $destination -PolicyStore $store -ErrorAction SilentlyContinue)
        foreach ($entry in $left) { $entry | Remove-NetRoute -Confirm:$false }
    }
}
