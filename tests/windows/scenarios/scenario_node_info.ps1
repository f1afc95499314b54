# node_info, read-only: every section the modules read, answered by this node in the shapes the modules expect
# (plugins/plugin_utils/_contracts.py): a list stays a list when it holds one item, this host's name, WinRM running.
$answer = Invoke-KubeWinScript -ScriptName node_info -ScriptParameters @{
    Sections = @('os', 'features', 'adapters', 'routes', 'hns', 'services', 'files', 'artifacts', 'firewall')
    Features = @('Containers')
    Services = @('WinRM', 'kubewin-scenario-absent')
    FirewallRules = @('kubewin-scenario-absent')
}
$state = $answer
Assert-KubeWin $state.os.hostname $env:COMPUTERNAME 'os.hostname'
Assert-KubeWin ($state.adapters -is [array]) 'True' 'adapters is a list'
foreach ($adapter in $state.adapters) {
    Assert-KubeWin ($adapter.ipv4 -is [array]) 'True' "adapters[$($adapter.name)].ipv4 is a list"
    Assert-KubeWin ($adapter.dns_servers -is [array]) 'True' "adapters[$($adapter.name)].dns_servers is a list"
}
Assert-KubeWin ($state.routes -is [array]) 'True' 'routes is a list'
Assert-KubeWin ($state.hns.networks -is [array]) 'True' 'hns.networks is a list'
Assert-KubeWin (@('installed', 'available', 'installpending', 'removed') -contains $state.features.Containers) 'True' 'features.Containers is an install state'
Assert-KubeWin $state.services.WinRM.state 'running' 'services.WinRM.state'
Assert-KubeWin $state.services.'kubewin-scenario-absent'.exists 'False' 'an absent service exists'
Assert-KubeWin $state.firewall.'kubewin-scenario-absent'.exists 'False' 'an absent firewall rule exists'
