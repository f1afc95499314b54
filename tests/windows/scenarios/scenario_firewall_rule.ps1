# firewall_rule_apply: an inbound rule created, updated (port, name shown, action, remote addresses) and removed. The rule has a name
# of its own; a node that already has a rule of that name is left alone.
$name = 'kubewin-scenario-rule'
if (Get-NetFirewallRule -Name $name -ErrorAction SilentlyContinue) { Skip-KubeWinScenario "a firewall rule $name exists already" }
try {
    $answer = Invoke-KubeWinScript -ScriptName firewall_rule_apply -ScriptParameters @{
        Name = $name; DisplayName = 'kubewin scenario'; Protocol = 'tcp'; LocalPort = @('10250')
    }
    $rule = $answer.state.firewall.$name
    Assert-KubeWin $rule.exists 'True' 'the created rule exists'
    Assert-KubeWin $rule.display_name 'kubewin scenario' 'its display name'
    Assert-KubeWin $rule.direction 'inbound' 'its direction'
    Assert-KubeWin $rule.action 'allow' 'its action'
    Assert-KubeWin $rule.protocol 'tcp' 'its protocol'
    Assert-KubeWin ($rule.local_port -is [array]) 'True' 'its local_port is a list'
    Assert-KubeWin $rule.local_port '10250' 'its local ports'
    Assert-KubeWin $rule.enabled 'True' 'it is enabled'
    Assert-KubeWin @($rule.remote_address).Count 0 'remote addresses of a rule without a limit (Any)'

    $answer = Invoke-KubeWinScript -ScriptName firewall_rule_apply -ScriptParameters @{
        Name = $name; DisplayName = 'kubewin scenario, updated'; Protocol = 'udp'; LocalPort = @('4789', '4790'); Action = 'block'
        RemoteAddress = @('10.20.0.0/16', 'fd00:20::/64')
    }
    $rule = $answer.state.firewall.$name
    Assert-KubeWin $rule.display_name 'kubewin scenario, updated' 'the updated display name'
    Assert-KubeWin $rule.protocol 'udp' 'the updated protocol'
    Assert-KubeWin $rule.local_port '4789 4790' 'the updated local ports'
    Assert-KubeWin $rule.action 'block' 'the updated action'
    # Windows reads an IPv4 subnet back with its mask (the NetSecurity model's claim, from dsccommunity/NetworkingDsc#404).
    Assert-KubeWin $rule.remote_address '10.20.0.0/255.255.0.0 fd00:20::/64' 'the remote addresses as Windows reads them'
    Assert-KubeWin @(Get-NetFirewallRule -Name $name).Count 1 'rules of that name'

    $answer = Invoke-KubeWinScript -ScriptName firewall_rule_apply -ScriptParameters @{ Name = $name; Remove = $true }
    Assert-KubeWin $answer.state.firewall.$name.exists 'False' 'the removed rule exists'
}
finally {
    if (Get-NetFirewallRule -Name $name -ErrorAction SilentlyContinue) { Remove-NetFirewallRule -Name $name }
}
