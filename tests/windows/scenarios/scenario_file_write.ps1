# file_write: a file written as UTF-8 without a byte order mark, with the protected then the secret ACL (which do not
# inherit from the folder), then removed. It writes only in a folder of its own, and removes that folder.
$folder = Join-Path -Path $env:ProgramData -ChildPath 'kubewin-scenarios'
$path = Join-Path -Path $folder -ChildPath 'file_write.txt'
if (Test-Path -LiteralPath $folder) { Skip-KubeWinScenario "$folder exists already; the scenario writes only where nothing is" }
try {
    $answer = Invoke-KubeWinScript -ScriptName file_write -ScriptParameters @{ Path = $path; Content = "one`ntwo`n" }
    $file = $answer.state.files.$path
    Assert-KubeWin $file.exists 'True' 'the written file exists'
    Assert-KubeWin $file.size 8 'its size (no byte order mark)'
    Assert-KubeWin ([System.IO.File]::ReadAllBytes($path)[0]) 111 'its first byte'
    Assert-KubeWin $file.sha256 (Get-FileHash -LiteralPath $path -Algorithm SHA256).Hash.ToLowerInvariant() 'its sha256'
    Assert-KubeWin $file.acl 'protected' 'its ACL profile'
    Assert-KubeWin (Get-Acl -LiteralPath $path).AreAccessRulesProtected 'True' 'its ACL is protected from inheritance'

    $secret = (New-Object -TypeName System.Net.NetworkCredential -ArgumentList @('', 'not-a-real-secret')).SecurePassword
    $answer = Invoke-KubeWinScript -ScriptName file_write -ScriptParameters @{ Path = $path; SecretContent = $secret; Acl = 'secret' }
    Assert-KubeWin $answer.state.files.$path.acl 'secret' 'the rewritten file ACL profile'
    Assert-KubeWin ([System.IO.File]::ReadAllText($path)) 'not-a-real-secret' 'the secret content'
    Assert-KubeWin (Test-Path -LiteralPath "$path.kubewin-new") 'False' 'a temporary file is left'

    $answer = Invoke-KubeWinScript -ScriptName file_write -ScriptParameters @{ Path = $path; Remove = $true }
    Assert-KubeWin $answer.state.files.$path.exists 'False' 'the removed file exists'
    Assert-KubeWin (Test-Path -LiteralPath $path) 'False' 'Test-Path of the removed file'
}
finally {
    if (Test-Path -LiteralPath $folder) { Remove-Item -LiteralPath $folder -Recurse -Force }
}
