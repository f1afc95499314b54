# kubeadm_join: a join that kubeadm refuses, run against the program given with -KubeadmPath (the stub new_stubs.ps1
# builds, which joins nothing; without one the scenario is skipped). The JoinConfiguration has no discovery token,
# so any kubeadm refuses it before it contacts anything, with exit code 1. What is checked is the script's part: the
# exit code is read (not $null: PowerShell issue 5421), kubeadm's error is passed on without the token (here only in
# a comment line, which the stub echoes back), and the configuration file holding the token is removed.
if (-not $KubeadmPath) { Skip-KubeWinScenario 'no -KubeadmPath given (new_stubs.ps1 builds a stub kubeadm.exe)' }
$token = 'abcdef.0123456789abcdef'
$joinFolder = Join-Path -Path $env:ProgramData -ChildPath 'kubewin\join'
$joinFolderBefore = Test-Path -LiteralPath $joinFolder
$configuration = "apiVersion: kubeadm.k8s.io/v1beta3`nkind: JoinConfiguration`n# token: $token`n"
$secure = (New-Object -TypeName System.Net.NetworkCredential -ArgumentList @('', $configuration)).SecurePassword
try {
    $failure = $null
    try {
        $null = Invoke-KubeWinScript -ScriptName kubeadm_join -ScriptParameters @{
            KubeadmPath = $KubeadmPath; JoinConfiguration = $secure; TimeoutSeconds = 60
            KubeletKubeconfig = 'C:\etc\kubernetes\kubelet.conf'; KubeadmFlagsFile = 'C:\var\lib\kubelet\kubeadm-flags.env'
        }
    }
    catch {
        $failure = $_.Exception.Message
    }
    Assert-KubeWin ($null -ne $failure) 'True' 'the refused join failed'
    Assert-KubeWin ($failure -match '^kubeadm join failed with exit code 1: .') 'True' "the failure message ($failure) names exit code 1 and kubeadm's error"
    Assert-KubeWin ($failure.Contains($token)) 'False' 'the failure message holds the token'
    foreach ($leftover in @('join-configuration.yaml', 'join-configuration.yaml.out', 'join-configuration.yaml.err')) {
        Assert-KubeWin (Test-Path -LiteralPath (Join-Path -Path $joinFolder -ChildPath $leftover)) 'False' "$leftover is left"
    }
}
finally {
    if (-not $joinFolderBefore -and (Test-Path -LiteralPath $joinFolder)) { Remove-Item -LiteralPath $joinFolder -Recurse -Force }
}
