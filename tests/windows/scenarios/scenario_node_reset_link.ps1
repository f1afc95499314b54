# node_reset_link: node_reset_apply removes a kubelet folder holding a pod volume link, and never the target's files.
# The kubelet links a pod's volume to the folder that holds its data with mklink /D (a directory symbolic link);
# Windows PowerShell 5.1's Remove-Item -Recurse -Force stops at such a link (PowerShell/PowerShell#621). A junction
# (mklink /J) sits next to it. Everything lives in a folder of its own, removed at the end; creating a symbolic link
# needs an administrator (New-Item -ItemType SymbolicLink).
$folder = Join-Path -Path $env:ProgramData -ChildPath 'kubewin-scenarios-reset'
if (Test-Path -LiteralPath $folder) { Skip-KubeWinScenario "$folder exists already; the scenario writes only where nothing is" }
$kubelet = Join-Path -Path $folder -ChildPath 'kubelet'
$data = Join-Path -Path $folder -ChildPath 'host-data'
$volumes = Join-Path -Path $kubelet -ChildPath 'pods\6f1c\volumes\kubernetes.io~local-volume'
try {
    $null = New-Item -Path (Join-Path -Path $data -ChildPath 'logs') -ItemType Directory -Force
    [System.IO.File]::WriteAllText((Join-Path -Path $data -ChildPath 'logs\app.log'), 'the application data')
    $null = New-Item -Path $volumes -ItemType Directory -Force
    $null = New-Item -ItemType SymbolicLink -Path (Join-Path -Path $volumes -ChildPath 'data') -Value $data
    $null = New-Item -ItemType Junction -Path (Join-Path -Path $volumes -ChildPath 'junction') -Value $data
    $link = Get-Item -LiteralPath (Join-Path -Path $volumes -ChildPath 'data')
    Assert-KubeWin $link.LinkType 'SymbolicLink' 'the volume link type'
    Assert-KubeWin ($link.Attributes -band [System.IO.FileAttributes]::ReparsePoint) 'ReparsePoint' 'the link is a reparse point'

    $answer = Invoke-KubeWinScript -ScriptName node_reset_apply -ScriptParameters @{ Paths = @($kubelet) }
    Assert-KubeWin $answer.state.files.$kubelet.exists 'False' 'the reset kubelet folder exists'
    Assert-KubeWin (Test-Path -LiteralPath $kubelet) 'False' 'Test-Path of the kubelet folder'
    Assert-KubeWin ([System.IO.File]::ReadAllText((Join-Path -Path $data -ChildPath 'logs\app.log'))) 'the application data' `
        'the file the link led to'

    # Run again: nothing left to remove, nothing fails.
    $answer = Invoke-KubeWinScript -ScriptName node_reset_apply -ScriptParameters @{ Paths = @($kubelet) }
    Assert-KubeWin $answer.state.files.$kubelet.exists 'False' 'the kubelet folder after a second reset'
}
finally {
    # Links first, as the script does, so that nothing follows them into host-data before it goes.
    if (Test-Path -LiteralPath $volumes) {
        foreach ($item in @(Get-ChildItem -LiteralPath $volumes -Force)) { [System.IO.Directory]::Delete($item.FullName) }
    }
    if (Test-Path -LiteralPath $folder) { Remove-Item -LiteralPath $folder -Recurse -Force }
}
