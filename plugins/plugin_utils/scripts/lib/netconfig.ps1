# --- lib/netconfig: adapters and their IPv4 configuration ---------------------------
function Get-KubeWinIPv4Config {
    param([Parameter(Mandatory)][int]$InterfaceIndex)
    $interface = Get-NetIPInterface -InterfaceIndex $InterfaceIndex -AddressFamily IPv4 -ErrorAction SilentlyContinue
    $addresses = @(Get-NetIPAddress -InterfaceIndex $InterfaceIndex -AddressFamily IPv4 -ErrorAction SilentlyContinue |
            Sort-Object -Property IPAddress)
    $route = Get-NetRoute -InterfaceIndex $InterfaceIndex -DestinationPrefix '0.0.0.0/0' -ErrorAction SilentlyContinue |
        Sort-Object -Property RouteMetric | Select-Object -First 1
    $dns = Get-DnsClientServerAddress -InterfaceIndex $InterfaceIndex -AddressFamily IPv4 -ErrorAction SilentlyContinue
    $gateway = $null
    if ($route) { $gateway = $route.NextHop }
    return [ordered]@{
        ipv4 = @(foreach ($address in $addresses) {
                [ordered]@{
                    address = $address.IPAddress
                    prefix_length = [int]$address.PrefixLength
                    origin = [string]$address.PrefixOrigin
                }
            })
        gateway = $gateway
        dns_servers = @($dns.ServerAddresses)
        dhcp = ([string]$interface.Dhcp -eq 'Enabled')
    }
}

function Get-KubeWinAdapters {
    # Returns the list as one object (unary comma): PowerShell unrolls a returned collection, and one
    # adapter would otherwise reach ConvertTo-Json as an object, none as $null (about_Return).
    $default = Get-NetRoute -DestinationPrefix '0.0.0.0/0' -ErrorAction SilentlyContinue |
        Sort-Object -Property RouteMetric | Select-Object -First 1
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
            $entry
        })
}
function Get-KubeWinStaticRoutes {
    # Static IPv4 routes (protocol NetMgmt) other than default routes, from the routing table
    # in use (ActiveStore) and from the one Windows restores at boot (PersistentStore).
    $routes = [ordered]@{}
    foreach ($store in @('ActiveStore', 'PersistentStore')) {
        $found = @(Get-NetRoute -AddressFamily IPv4 -Protocol NetMgmt -PolicyStore $store -ErrorAction SilentlyContinue |
                Where-Object { $_.DestinationPrefix -ne '0.0.0.0/0' })
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
