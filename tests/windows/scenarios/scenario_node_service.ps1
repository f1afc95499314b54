# node_service_apply: a service of its own created and started, stopped, then removed. Its program is the stub
# service program new_stubs.ps1 builds (it does nothing but answer the service control manager), given with
# -ServiceProgram; without one the scenario is skipped. A node that has a service of that name is left alone.
$name = 'kubewin-scenario-svc'
if (-not $ServiceProgram) { Skip-KubeWinScenario 'no -ServiceProgram given (new_stubs.ps1 builds one)' }
if (Get-Service -Name $name -ErrorAction SilentlyContinue) { Skip-KubeWinScenario "a service $name exists already" }
$service = @{
    Name = $name; CommandLine = "`"$ServiceProgram`""; DisplayName = 'kubewin scenario'; Description = 'kubewin scenario service'
    StartMode = 'manual'; FailureActions = 'restart/10000'; StartTimeoutSeconds = 30
}
try {
    $answer = Invoke-KubeWinScript -ScriptName node_service_apply -ScriptParameters ($service + @{ Ensure = 'running' })
    $state = $answer.state.services.$name
    Assert-KubeWin $state.exists 'True' 'the created service exists'
    Assert-KubeWin $state.state 'running' 'its state'
    Assert-KubeWin $state.start_mode 'manual' 'its start mode'
    Assert-KubeWin $state.command_line "`"$ServiceProgram`"" 'its command line'
    Assert-KubeWin $state.description 'kubewin scenario service' 'its description'
    Assert-KubeWin ($state.dependencies -is [array]) 'True' 'its dependencies is a list'
    Assert-KubeWin "$($state.recovery.reset_period_seconds) $($state.recovery.actions[0].type) $($state.recovery.actions[0].delay_ms)" `
        '86400 restart 10000' 'its recovery'
    Assert-KubeWin (Get-Service -Name $name).Status 'Running' 'Get-Service status'

    $answer = Invoke-KubeWinScript -ScriptName node_service_apply -ScriptParameters ($service + @{ Ensure = 'stopped' })
    Assert-KubeWin $answer.state.services.$name.state 'stopped' 'the stopped service state'

    $answer = Invoke-KubeWinScript -ScriptName node_service_apply -ScriptParameters @{ Name = $name; Ensure = 'absent'; StartTimeoutSeconds = 30 }
    Assert-KubeWin $answer.state.services.$name.exists 'False' 'the removed service exists'
}
finally {
    if (Get-Service -Name $name -ErrorAction SilentlyContinue) {
        Stop-Service -Name $name -Force -ErrorAction SilentlyContinue
        $null = & "$env:SystemRoot\System32\sc.exe" delete $name
    }
}
