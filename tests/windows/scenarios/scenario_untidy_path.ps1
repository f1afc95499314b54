# node_info's ovs section with PATH entries as real servers have them: a folder on a drive the node does not have, one
# in double quotes, an empty one, a trailing backslash. Only this process's PATH changes (the machine PATH is left
# alone) and it is put back. 5.1's Join-Path threw DriveNotFoundException on the first two.
$letter = @('Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z') | Where-Object { -not (Test-Path -LiteralPath "${_}:\") } |
    Select-Object -First 1
if (-not $letter) { Skip-KubeWinScenario 'the drive letters Q to Z are all in use' }
$before = $env:Path
try {
    $env:Path = @($before, "${letter}:\kubewin-scenario-missing", '"C:\Program Files\kubewin scenario\bin"', '',
        'C:\Windows\') -join ';'
    $answer = Invoke-KubeWinScript -ScriptName node_info -ScriptParameters @{ Sections = @('ovs') }
    Assert-KubeWin ($answer.ovs.products -is [array]) 'True' 'ovs.products is a list'
    Assert-KubeWin ($answer.ovs.switches -is [array]) 'True' 'ovs.switches is a list'
    if ($answer.ovs.vsctl) {
        Assert-KubeWin (Test-Path -LiteralPath $answer.ovs.vsctl -PathType Leaf) 'True' 'ovs.vsctl is a file'
    }
}
finally {
    $env:Path = $before
}
