# kubewin-script: artifact_fetch
# Downloads an artifact to a temporary file next to its destination, verifies its
# hash, and only then puts it (or the archive members asked for) in place; on any
# failure the previous file stays as it was. Transient failures (connection reset,
# timeout, HTTP 5xx) are retried with backoff; HTTP 4xx and a hash mismatch fail at once.
# With -StagedPath the artifact is already on the node instead of downloaded: pushed from the controller, or put in the
# staging folder by artifact_stage.ps1 before anything changed. It is moved into place, and verified again here.
# It reports the artifact's size and how long its download took, for the action to show at -v.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][string]$Url,
    [Parameter(Mandatory)][string]$Dest,
    [Parameter(Mandatory)][ValidateSet('sha256', 'sha512')][string]$Algorithm,
    [string]$Checksum,
    [string]$ChecksumUrl,
    [Parameter(Mandatory)][string]$ChecksumSpec,
    [ValidateSet('file', 'zip', 'tar.gz')][string]$Format = 'file',
    [string[]]$Members = @(),
    # The file name each member gets in Dest (same order as Members).
    [string[]]$Names = @(),
    [string]$StagedPath,
    # Where the node records this artifact: the first file it installs, so archives sharing a
    # destination directory (CNI plugins from several releases) keep one record each.
    [Parameter(Mandatory)][string]$ArtifactKey,
    # The release the artifact is, kept in its record (node_info reports it; upgrades read it).
    [string]$Version,
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

$expected = Get-ExpectedHash -From $Url -HashAlgorithm $Algorithm -Pinned $Checksum -HashUrl $ChecksumUrl
$directory = $Dest
if ($Format -eq 'file') { $directory = Split-Path -Path $Dest -Parent }
New-KubeWinDirectory -Path $directory
# The temporary file sits next to the destination so the final move stays on one volume.
$download = Join-Path -Path $directory -ChildPath ('.kubewin-download-' + [guid]::NewGuid().ToString('N'))
$unpacked = "$download.d"
$transfer = [ordered]@{ attempts = 0; seconds = $null }
$placed = @()
try {
    if ($StagedPath) {
        Move-Item -LiteralPath $StagedPath -Destination $download -Force
    }
    else {
        $transfer = Invoke-Download -From $Url -To $download
    }
    $bytes = (Get-Item -LiteralPath $download).Length
    $actual = (Get-FileHash -LiteralPath $download -Algorithm $Algorithm).Hash.ToLowerInvariant()
    if ($null -ne $expected -and $actual -ne $expected) {
        throw "checksum mismatch for ${Url}: expected $Algorithm $expected, got $actual; the file was not installed"
    }
    if ($Format -eq 'file') {
        Set-KubeWinAcl -Path $download -Profile protected
        Install-KubeWinFile -Source $download -Target $Dest
        $placed = @($Dest)
    }
    else {
        $null = New-Item -Path $unpacked -ItemType Directory -Force
        if ($Format -eq 'zip') {
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
                throw "tar.exe could not extract $Url (exit code $LASTEXITCODE): $(@($messages) -join ' ')"
            }
        }
        $missing = @($Members | Where-Object { -not (Test-Path -LiteralPath (Join-Path -Path $unpacked -ChildPath $_)) })
        if ($missing) { throw "$Url does not contain: $($missing -join ', ')" }
        for ($index = 0; $index -lt $Members.Count; $index++) {
            $target = Join-Path -Path $Dest -ChildPath $Names[$index]
            $source = Join-Path -Path $unpacked -ChildPath $Members[$index]
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

$record = [ordered]@{ url = $Url; checksum = $ChecksumSpec }
if ($Version) { $record.version = $Version }
Register-KubeWinFile -Path $placed -ArtifactDest $ArtifactKey -Artifact $record
$registry = Get-KubeWinRegistry
$files = [ordered]@{}
foreach ($path in $placed) { $files[$path] = Get-KubeWinFileState -Path $path -Registry $registry }
$Ansible.Result = ConvertTo-Json -Depth 6 -Compress -InputObject ([ordered]@{
        attempts = $transfer.attempts
        # The artifact's size (downloaded, or staged by the controller) and the seconds its download took
        # (null when staged); the action works out the rate.
        bytes = $bytes
        seconds = $transfer.seconds
        # The verified hash, or the hash of what was installed unverified.
        sha = $actual
        state = [ordered]@{
            sections = @('files', 'artifacts')
            files = $files
            artifacts = [ordered]@{ $ArtifactKey = $registry.artifacts[$ArtifactKey] }
        }
    })
