# kubewin-script: artifact_fetch
# Installs artifacts, each as follows: downloaded to a temporary file next to its destination, its hash verified, and
# only then put (or the archive members asked for) in place; on any failure its previous files stay as they were.
# Transient failures (connection reset, timeout, HTTP 5xx) are retried with backoff; HTTP 4xx and a hash mismatch fail
# at once. An artifact with a staged_path is already on the node instead of downloaded: pushed from the controller, or
# put in the staging folder by artifact_stage.ps1 before anything changed; it is moved into place, and verified again.
# Every artifact is tried; then the run fails naming each one that could not be installed (the others are installed
# and recorded). It reports each artifact's size and how long its download took, for the action to show at -v.
[CmdletBinding(SupportsShouldProcess)]
param(
    # Each @{ name (what errors call it); url; dest; algorithm (sha256 or sha512); checksum (the pinned hex) or
    # checksum_url (the hash file) or neither (unverified); checksum_spec (what the record keeps); format (file, zip
    # or tar.gz); members and names (an archive's files, and the file name each gets in dest); staged_path; key (the
    # record's name: the first file it installs, so archives sharing a destination folder keep one record each);
    # version (the release, kept in the record: node_info reports it, upgrades read it) }.
    [Parameter(Mandatory)][hashtable[]]$Artifacts,
    [int]$Retries = 4,
    [int]$TimeoutSeconds = 300,
    [string]$Proxy,
    [string]$ProxyUsername,
    [securestring]$ProxyPassword
)
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'  # the progress bar slows Invoke-WebRequest down many times over

# kubewin-include: files

# kubewin-include: download

function Install-KubeWinFile {
    # Windows refuses to overwrite the program file of a running service, but lets it be renamed:
    # the old file is moved aside first (and back if the new one cannot be moved in), and
    # removed at once if nothing runs it, else by a later run. The service keeps running the
    # old program until it is restarted.
    param([Parameter(Mandatory)][string]$Source, [Parameter(Mandatory)][string]$Target)
    $directory = Split-Path -Path $Target -Parent
    $leaf = Split-Path -Path $Target -Leaf
    Get-ChildItem -LiteralPath $directory -Filter "$leaf.kubewin-old-*" -Force -ErrorAction SilentlyContinue |
        Remove-Item -Force -ErrorAction SilentlyContinue
    $aside = $null
    if (Test-Path -LiteralPath $Target) {
        $aside = "$Target.kubewin-old-" + [guid]::NewGuid().ToString('N')
        Move-Item -LiteralPath $Target -Destination $aside
    }
    try {
        Move-Item -LiteralPath $Source -Destination $Target
    }
    catch {
        if ($aside) { Move-Item -LiteralPath $aside -Destination $Target }
        throw
    }
    if ($aside) { Remove-Item -LiteralPath $aside -Force -ErrorAction SilentlyContinue }
}

function Install-KubeWinArtifact {
    # One artifact (an entry of $Artifacts) verified and in place; returns its figures and the files it placed.
    param([Parameter(Mandatory)][hashtable]$Artifact)
    $url = [string]$Artifact.url
    $dest = [string]$Artifact.dest
    $algorithm = [string]$Artifact.algorithm
    $format = [string]$Artifact.format
    $expected = Get-ExpectedHash -From $url -HashAlgorithm $algorithm -Pinned ([string]$Artifact.checksum) `
        -HashUrl ([string]$Artifact.checksum_url)
    $directory = $dest
    if ($format -eq 'file') { $directory = Split-Path -Path $dest -Parent }
    New-KubeWinDirectory -Path $directory
    # The temporary file sits next to the destination so the final move stays on one volume.
    $download = Join-Path -Path $directory -ChildPath ('.kubewin-download-' + [guid]::NewGuid().ToString('N'))
    $unpacked = "$download.d"
    $transfer = [ordered]@{ attempts = 0; seconds = $null }
    $placed = @()
    try {
        if ($Artifact.staged_path) {
            Move-Item -LiteralPath ([string]$Artifact.staged_path) -Destination $download -Force
        }
        else {
            $transfer = Invoke-Download -From $url -To $download
        }
        $bytes = (Get-Item -LiteralPath $download).Length
        $actual = (Get-FileHash -LiteralPath $download -Algorithm $algorithm).Hash.ToLowerInvariant()
        if ($null -ne $expected -and $actual -ne $expected) {
            throw "checksum mismatch for ${url}: expected $algorithm $expected, got $actual; the file was not installed"
        }
        if ($format -eq 'file') {
            Set-KubeWinAcl -Path $download -Profile protected
            Install-KubeWinFile -Source $download -Target $dest
            $placed = @($dest)
        }
        else {
            $null = New-Item -Path $unpacked -ItemType Directory -Force
            if ($format -eq 'zip') {
                Add-Type -AssemblyName System.IO.Compression.FileSystem
                [System.IO.Compression.ZipFile]::ExtractToDirectory($download, $unpacked)
            }
            else {
                # tar.exe reports on stderr, which Windows PowerShell 5.1 turns into error records here: under 'Stop'
                # the first line would end the script before the exit code is read, so they are collected instead.
                $messages = & {
                    $ErrorActionPreference = 'Continue'
                    & "$env:SystemRoot\System32\tar.exe" -x -z -f $download -C $unpacked 2>&1
                }
                if ($LASTEXITCODE -ne 0) {
                    throw "tar.exe could not extract $url (exit code $LASTEXITCODE): $(@($messages) -join ' ')"
                }
            }
            $members = [string[]]@($Artifact.members)
            $names = [string[]]@($Artifact.names)
            $missing = @($members | Where-Object { -not (Test-Path -LiteralPath (Join-Path -Path $unpacked -ChildPath $_)) })
            if ($missing) { throw "$url does not contain: $($missing -join ', ')" }
            for ($index = 0; $index -lt $members.Count; $index++) {
                $target = Join-Path -Path $dest -ChildPath $names[$index]
                $source = Join-Path -Path $unpacked -ChildPath $members[$index]
                Set-KubeWinAcl -Path $source -Profile protected
                Install-KubeWinFile -Source $source -Target $target
                $placed += $target
            }
        }
    }
    finally {
        foreach ($leftover in @($download, $unpacked)) {
            if (Test-Path -LiteralPath $leftover) { Remove-Item -LiteralPath $leftover -Recurse -Force }
        }
    }
    $record = [ordered]@{ url = $url; checksum = [string]$Artifact.checksum_spec }
    if ($Artifact.version) { $record.version = [string]$Artifact.version }
    Register-KubeWinFile -Path $placed -ArtifactDest ([string]$Artifact.key) -Artifact $record
    return [ordered]@{
        attempts = $transfer.attempts
        # The artifact's size (downloaded, or staged) and the seconds its download took (null when staged); the
        # action works out the rate.
        bytes = $bytes
        seconds = $transfer.seconds
        # The verified hash, or the hash of what was installed unverified.
        sha = $actual
        placed = $placed
    }
}

$installed = @()
$failures = @()
foreach ($artifact in $Artifacts) {
    try {
        $installed += Install-KubeWinArtifact -Artifact $artifact
    }
    catch {
        $failures += "$($artifact.name): $($_.Exception.Message)"
        $failed = $_
    }
}
if ($failures) {
    # One artifact (kubewin.node.artifact) fails with its own error; of several, each failure is named.
    if ($Artifacts.Count -eq 1) { throw $failed }
    throw "could not install $($failures.Count) of $($Artifacts.Count) artifacts (the others are installed): $($failures -join '; ')"
}

$registry = Get-KubeWinRegistry
$files = [ordered]@{}
$records = [ordered]@{}
$figures = @()
for ($index = 0; $index -lt $Artifacts.Count; $index++) {
    foreach ($path in $installed[$index].placed) { $files[$path] = Get-KubeWinFileState -Path $path -Registry $registry }
    $key = [string]$Artifacts[$index].key
    $records[$key] = $registry.artifacts[$key]
    $figures += [ordered]@{
        attempts = $installed[$index].attempts; bytes = $installed[$index].bytes
        seconds = $installed[$index].seconds; sha = $installed[$index].sha
    }
}
$Ansible.Result = ConvertTo-Json -Depth 6 -Compress -InputObject ([ordered]@{
        # One entry per artifact, in the order given.
        artifacts = $figures
        state = [ordered]@{ sections = @('files', 'artifacts'); files = $files; artifacts = $records }
    })
