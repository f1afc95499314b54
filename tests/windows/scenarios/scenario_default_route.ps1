# node_info's adapters, read-only: the adapter marked default_route is the one whose route Windows itself takes to a
# remote address (Find-NetRoute consults the routing table only; 198.51.100.1 is TEST-NET-2, RFC 5737, reserved for
# documentation). Windows takes the lowest RouteMetric + InterfaceMetric (Get-NetRoute's -RouteMetric): a node with
# two adapters that have a gateway, with different interface metrics, is where the lowest RouteMetric alone was wrong.
$remote = '198.51.100.1'
# Find-NetRoute writes the source address (MSFT_NetIPAddress) and then the route (MSFT_NetRoute), as its reference
# page's example shows; the route is the last object (a member only the route has would not tell them apart: the
# engine refuses reading one an incomplete CIM class lacks).
$found = @(Find-NetRoute -RemoteIPAddress $remote -ErrorAction SilentlyContinue | Select-Object -Last 1)
if ($found.Count -ne 1) { Skip-KubeWinScenario "no route to $remote" }
$adapters = @((Invoke-KubeWinScript -ScriptName node_info -ScriptParameters @{ Sections = @('adapters') }).adapters)
$marked = @($adapters | Where-Object { $_.default_route })
Assert-KubeWin $marked.Count 1 'adapters marked default_route'
Assert-KubeWin $marked[0].if_index $found[0].InterfaceIndex "the default_route adapter's index (Find-NetRoute: $($found[0].InterfaceAlias))"
Assert-KubeWin $marked[0].gateway $found[0].NextHop 'its gateway'
# An adapter without an IP interface (disabled, or under an external vSwitch) has no address and no DNS server, and
# its DNS servers are a list (not a list holding null).
foreach ($adapter in $adapters) {
    foreach ($server in @($adapter.dns_servers)) {
        Assert-KubeWin ($server -is [string]) 'True' "adapters[$($adapter.name)].dns_servers holds strings"
    }
}
