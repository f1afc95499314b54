# node_service_apply stopping a service whose program never stops: Stop-Service would wait for it without end
# (PowerShell's Service.cs, DoWaitForStatus), the script must give up within its timeout and name the service and its
# state. The program is the stub service program of new_stubs.ps1 started with --hang-on-stop (its OnStop never
# returns: the service stays StopPending), given with -ServiceProgram; without one the scenario is skipped. The stuck
# process is ended at the end (taskkill /F) and the service removed. A node that has a service of that name is left
# alone.
$name = 'kubewin-scenario-hang'
if (-not $ServiceProgram) { Skip-KubeWinScenario 'no -ServiceProgram given (new_stubs.ps1 builds one)' }
if (Get-Service -Name $name -ErrorAction SilentlyContinue) { Skip-KubeWinScenario "a service $name exists already" }
$service = @{
    Name = $name; CommandLine = "`"$ServiceProgram`" --hang-on-stop"; DisplayName = 'kubewin scenario (hangs on stop)'
    Description = 'kubewin scenario service that does not stop'; StartMode = 'manual'; StartTimeoutSeconds = 10
}
try {
    $answer = Invoke-KubeWinScript -ScriptName node_service_apply -ScriptParameters ($service + @{ Ensure = 'running' })
    Assert-KubeWin $answer.state.services.$name.state 'running' 'the started service state'
    $failure = $null
    try { $null = Invoke-KubeWinScript -ScriptName node_service_apply -ScriptParameters ($service + @{ Ensure = 'stopped' }) }
    catch { $failure = $_.Exception.Message }
    Assert-KubeWin $failure "service $name did not reach Stopped within 10 s (status StopPending, exit code 0)" `
        'the stop of a service that does not stop'
    Assert-KubeWin (Get-Service -Name $name).Status 'StopPending' 'Get-Service status'
}
finally {
    $processId = (Get-CimInstance -ClassName Win32_Service -Filter "Name='$name'").ProcessId
    if ($processId) { $null = & "$env:SystemRoot\System32\taskkill.exe" /F /PID $processId }
    if (Get-Service -Name $name -ErrorAction SilentlyContinue) { $null = & "$env:SystemRoot\System32\sc.exe" delete $name }
}
