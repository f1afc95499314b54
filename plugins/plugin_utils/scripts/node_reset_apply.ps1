# kubewin-script: node_reset_apply
# Takes a node back to before the collection set it up, in one call: stops and
# deletes services (and their names from the pre-shutdown order, where the
# kubelet puts itself and its runtime), removes HNS policy lists and endpoints, removes files and
# folders (recursively) and forgets them in the registry of managed files, and
# removes registry keys (with their subkeys) that other programs left (Calico's).
# HNS networks are left to hns_network, whose removal of the last vSwitch drops
# the node's network. Returns the node state the module verifies.
[CmdletBinding(SupportsShouldProcess)]
param(
    [ValidatePattern('^[A-Za-z0-9_.-]+$')][string[]]$Services = @(),
    [string[]]$PolicyListIds = @(),
    [string[]]$EndpointIds = @(),
    [string[]]$Paths = @(),
    # Registry entries to forget: files removed with their folder, or already gone.
    [string[]]$Forget = @(),
    # Registry provider paths below HKLM:\ (the module refuses a hive or its top keys).
    [string[]]$RegistryKeys = @(),
    [int]$StopTimeoutSeconds = 60
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

function Invoke-Sc {
    # sc.exe writes its errors to stdout and sets the exit code.
    $output = & "$env:SystemRoot\System32\sc.exe" @args 2>&1
    if ($LASTEXITCODE -ne 0) { throw "sc.exe $($args -join ' ') failed ($LASTEXITCODE): $output" }
}

# Services first: nothing may hold the files, endpoints or networks removed below.
foreach ($name in $Services) {
    $service = Get-Service -Name $name -ErrorAction SilentlyContinue
    # sc.exe, HNS calls, the registry of managed files and the waits for services know nothing of -WhatIf: under it
    # (win_powershell in check mode) the script does none of them.
    if (-not $service -or -not $PSCmdlet.ShouldProcess($name, 'Stop and delete the service')) { continue }
    # With the services that depend on it (kube-proxy on the kubelet), each waited for with a bound (lib/services).
    Stop-KubeWinService -Name $name -TimeoutSeconds $StopTimeoutSeconds
    Invoke-Sc delete $name
    # The SCM removes the name only when no handle to the service is open.
    $deadline = (Get-Date).AddSeconds($StopTimeoutSeconds)
    while ((Get-Service -Name $name -ErrorAction SilentlyContinue) -and (Get-Date) -lt $deadline) {
        Start-Sleep -Milliseconds 500
    }
    Remove-KubeWinPreshutdownOrderEntry -Name $name
}

# Load balancers reference endpoints, so HNS deletes them first.
foreach ($id in $PolicyListIds) {
    if ($PSCmdlet.ShouldProcess("HNS policy list $id", 'Delete')) {
        $null = Invoke-KubeWinHns -Method DELETE -Path "/policylists/$id"
    }
}
foreach ($id in $EndpointIds) {
    if ($PSCmdlet.ShouldProcess("HNS endpoint $id", 'Delete')) { $null = Invoke-KubeWinHns -Method DELETE -Path "/endpoints/$id" }
}

function Remove-KubeWinDirectoryLink {
    # Windows PowerShell 5.1's Remove-Item -Recurse -Force deletes a junction but fails on a directory symbolic link
    # (the kubelet's mklink /D volume links under pods\<uid>\volumes): it deletes reparse points with the junction's
    # tag only (PowerShell/PowerShell#621), so a folder holding one could never be removed. RemoveDirectory, which
    # [IO.Directory]::Delete($path) calls, removes a link itself and never its target's items (.NET's
    # Directory.Delete; Win32 RemoveDirectoryW): every link goes that way first, found without following any.
    param([Parameter(Mandatory)][string]$Path)
    foreach ($folder in @(Get-ChildItem -LiteralPath $Path -Directory -Force)) {
        if ($folder.Attributes -band [System.IO.FileAttributes]::ReparsePoint) {
            if ($PSCmdlet.ShouldProcess($folder.FullName, 'Remove link')) { [System.IO.Directory]::Delete($folder.FullName) }
        }
        else {
            Remove-KubeWinDirectoryLink -Path $folder.FullName
        }
    }
}

foreach ($path in $Paths) {
    if (-not (Test-Path -LiteralPath $path)) { continue }
    $item = Get-Item -LiteralPath $path -Force
    if ($item.PSIsContainer -and ($item.Attributes -band [System.IO.FileAttributes]::ReparsePoint)) {
        if ($PSCmdlet.ShouldProcess($path, 'Remove link')) { [System.IO.Directory]::Delete($path) }
        continue
    }
    if ($item.PSIsContainer) { Remove-KubeWinDirectoryLink -Path $path }
    Remove-Item -LiteralPath $path -Recurse -Force
}
if ($Forget.Count -gt 0 -and $PSCmdlet.ShouldProcess('the registry of managed files', 'Forget')) {
    Register-KubeWinFile -Forget $Forget
}
foreach ($key in $RegistryKeys) {
    # -Recurse: a key with subkeys would otherwise ask first, which a remote session cannot answer (Remove-Item).
    if (Test-Path -LiteralPath $key) { Remove-Item -LiteralPath $key -Recurse -Force }
}

$state = Get-KubeWinNodeState -Sections @('services', 'hns', 'files', 'registry') -Services $Services -Files $Paths `
    -RegistryKeys $RegistryKeys
$Ansible.Result = ConvertTo-Json -InputObject ([ordered]@{ state = $state }) -Depth 10 -Compress
