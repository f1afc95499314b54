# node_info's os section and powershell.exe under a Group Policy execution policy. The values the Group Policy setting
# "Turn on Script Execution" writes (about_Group_Policy_Settings) are set where the Group Policy client writes them,
# HKLM\SOFTWARE\Policies\Microsoft\Windows\PowerShell: AllSigned first (a script file is refused, -ExecutionPolicy
# Bypass or not: about_Execution_Policies), then RemoteSigned (a script written on the node runs). The key is put back
# as it was; a node whose key has values (a Group Policy of its own) is left alone.
$key = 'HKLM:\SOFTWARE\Policies\Microsoft\Windows\PowerShell'
$existed = Test-Path -LiteralPath $key
if ($existed -and (Get-ItemProperty -LiteralPath $key -ErrorAction SilentlyContinue)) {
    Skip-KubeWinScenario "$key has values already (this node's own Group Policy)"
}
$folder = Join-Path -Path $env:ProgramData -ChildPath 'kubewin-scenarios'
$probe = Join-Path -Path $folder -ChildPath 'policy-probe.ps1'
try {
    $null = New-Item -Path $folder -ItemType Directory -Force
    [System.IO.File]::WriteAllText($probe, "'ran'")
    if (-not $existed) { $null = New-Item -Path $key -Force }
    $null = New-ItemProperty -LiteralPath $key -Name EnableScripts -PropertyType DWord -Value 1 -Force
    $null = New-ItemProperty -LiteralPath $key -Name ExecutionPolicy -PropertyType String -Value AllSigned -Force

    $answer = Invoke-KubeWinScript -ScriptName node_info -ScriptParameters @{ Sections = @('os') }
    Assert-KubeWin $answer.os.execution_policies.MachinePolicy 'AllSigned' 'os.execution_policies.MachinePolicy'
    # Its message on stderr: read with Continue, since under Stop 5.1 turns a redirected stderr line into the error.
    $output = @(& {
            $ErrorActionPreference = 'Continue'
            & powershell.exe -NoProfile -ExecutionPolicy Bypass -File $probe 2>&1 | ForEach-Object { "$_" }
        })
    Assert-KubeWin $LASTEXITCODE '1' 'the exit code of powershell.exe -File under AllSigned'
    Assert-KubeWin (($output -join ' ') -like '*is not digitally signed*') 'True' "the refusal ($output)"

    $null = New-ItemProperty -LiteralPath $key -Name ExecutionPolicy -PropertyType String -Value RemoteSigned -Force
    $output = @(& powershell.exe -NoProfile -ExecutionPolicy Bypass -File $probe)
    Assert-KubeWin "$output $LASTEXITCODE" 'ran 0' 'a script written on the node under RemoteSigned'
}
finally {
    if ($existed) {
        foreach ($value in @('EnableScripts', 'ExecutionPolicy')) {
            Remove-ItemProperty -LiteralPath $key -Name $value -ErrorAction SilentlyContinue
        }
    }
    elseif (Test-Path -LiteralPath $key) { Remove-Item -LiteralPath $key -Recurse -Force }
    if (Test-Path -LiteralPath $folder) { Remove-Item -LiteralPath $folder -Recurse -Force }
}
