# --- lib/netconfig: adapters and their IPv4 configuration ---------------------------
function Get-KubeWinIPv4Config {
    param([Parameter(Mandatory)][int]$InterfaceIndex)
    $interface = Get-NetIPInterface -InterfaceIndex $InterfaceIndex -AddressFamily IPv4 -ErrorAction SilentlyContinue
    $addresses = @(Get-NetIPAddress -InterfaceIndex $InterfaceIndex -AddressFamily IPv4 -ErrorAction SilentlyContinue |
            Sort-Object -Property IPAddress)
    # 5.1's Sort-Object is not stable (List.Sort): a tie is broken by the next hop, not by the order Windows lists.
    $route = Get-NetRoute -InterfaceIndex $InterfaceIndex -DestinationPrefix '0.0.0.0/0' -ErrorAction SilentlyContinue |
        Sort-Object -Property RouteMetric, NextHop | Select-Object -First 1
    $dns = Get-DnsClientServerAddress -InterfaceIndex $InterfaceIndex -AddressFamily IPv4 -ErrorAction SilentlyContinue
    $gateway = $null
    if ($route) { $gateway = $route.NextHop }
    # An adapter without an IP interface (bound to an external vSwitch, or disabled) has no DNS client entry:
    # no servers, where @($dns.ServerAddresses) would be a list holding one $null.
    $dnsServers = @()
    if ($dns) { $dnsServers = @($dns.ServerAddresses) }
    return [ordered]@{
        ipv4 = @(foreach ($address in $addresses) {
                [ordered]@{
                    address = $address.IPAddress
                    prefix_length = [int]$address.PrefixLength
                    origin = [string]$address.PrefixOrigin
                }
            })
        gateway = $gateway
        dns_servers = $dnsServers
        dhcp = ([string]$interface.Dhcp -eq 'Enabled')
    }
}

function Get-KubeWinIPv6Addresses {
    # The interface's IPv6 addresses but its link-local one (PrefixOrigin WellKnown, fe80::/64): a dual-stack node's
    # management address is one of them. The unary comma keeps an empty list a list (about_Return).
    param([Parameter(Mandatory)][int]$InterfaceIndex)
    $addresses = @(Get-NetIPAddress -InterfaceIndex $InterfaceIndex -AddressFamily IPv6 -ErrorAction SilentlyContinue |
            Where-Object { [string]$_.PrefixOrigin -ne 'WellKnown' } | Sort-Object -Property IPAddress)
    return , @(foreach ($address in $addresses) {
            [ordered]@{
                address = $address.IPAddress
                prefix_length = [int]$address.PrefixLength
                origin = [string]$address.PrefixOrigin
            }
        })
}

function Get-KubeWinDefaultRoute {
    # The IPv4 default route Windows uses: the lowest RouteMetric + InterfaceMetric (Get-NetRoute's -RouteMetric:
    # "the computer adds this value to the interface metric value ... selects the route with the lowest combined
    # value"). Equal sums are ordered by interface index: 5.1's Sort-Object is not stable.
    $interfaceMetrics = @{}
    foreach ($interface in @(Get-NetIPInterface -AddressFamily IPv4 -ErrorAction SilentlyContinue)) {
        $interfaceMetrics[[int]$interface.InterfaceIndex] = [int]$interface.InterfaceMetric
    }
    return Get-NetRoute -AddressFamily IPv4 -DestinationPrefix '0.0.0.0/0' -ErrorAction SilentlyContinue |
        Sort-Object -Property { [int]$_.RouteMetric + [int]$interfaceMetrics[[int]$_.ifIndex] }, { [int]$_.ifIndex } |
        Select-Object -First 1
}

function Get-KubeWinAdapters {
    # Returns the list as one object (unary comma): PowerShell unrolls a returned collection, and one
    # adapter would otherwise reach ConvertTo-Json as an object, none as $null (about_Return).
    $default = Get-KubeWinDefaultRoute
    return , @(foreach ($adapter in @(Get-NetAdapter | Sort-Object -Property ifIndex)) {
            $entry = [ordered]@{
                name = $adapter.Name
                description = $adapter.InterfaceDescription
                if_index = [int]$adapter.ifIndex
                mac_address = $adapter.MacAddress
                status = [string]$adapter.Status
                virtual = $adapter.Name -like 'vEthernet (*)'
                # HNS names the host vNIC of an external vSwitch after the adapter it is bound to.
                physical_adapter = $null
                default_route = ($null -ne $default -and $default.ifIndex -eq $adapter.ifIndex)
            }
            if ($entry.virtual) { $entry.physical_adapter = $adapter.Name.Substring(11, $adapter.Name.Length - 12) }
            $config = Get-KubeWinIPv4Config -InterfaceIndex $adapter.ifIndex
            foreach ($key in $config.Keys) { $entry[$key] = $config[$key] }
            $entry.ipv6 = Get-KubeWinIPv6Addresses -InterfaceIndex $adapter.ifIndex
            $entry
        })
}
function Get-KubeWinStaticRoutes {
    # Static routes of both families (protocol NetMgmt) other than default routes, from the routing table
    # in use (ActiveStore) and from the one Windows restores at boot (PersistentStore).
    $routes = [ordered]@{}
    foreach ($store in @('ActiveStore', 'PersistentStore')) {
        $found = @(Get-NetRoute -Protocol NetMgmt -PolicyStore $store -ErrorAction SilentlyContinue |
                Where-Object { $_.DestinationPrefix -ne '0.0.0.0/0' -and $_.DestinationPrefix -ne '::/0' })
        foreach ($route in $found) {
            $key = '{0}|{1}|{2}' -f $route.DestinationPrefix, $route.NextHop, $route.ifIndex
            if (-not $routes.Contains($key)) {
                $routes[$key] = [ordered]@{
                    destination = $route.DestinationPrefix
                    next_hop = $route.NextHop
                    interface_alias = $route.InterfaceAlias
                    interface_index = [int]$route.ifIndex
                    metric = [int]$route.RouteMetric
                    active = $false
                    persistent = $false
                }
            }
            if ($store -eq 'ActiveStore') { $routes[$key].active = $true } else { $routes[$key].persistent = $true }
        }
    }
    # One object, as Get-KubeWinAdapters returns its list: no routes must be [] in JSON, not null.
    return , @($routes.Values)
}
# --- end lib/netconfig -------------------------------------------------------------
