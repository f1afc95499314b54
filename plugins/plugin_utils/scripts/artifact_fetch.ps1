# kubewin-script: artifact_fetch
# Downloads an artifact to a temporary file next to its destination, verifies its
# hash, and only then puts it (or the archive members asked for) in place; on any
# failure the previous file stays as it was. Transient failures (connection reset,
# timeout, HTTP 5xx) are retried with backoff; HTTP 4xx and a hash mismatch fail at once.
# With -StagedPath the artifact was pushed from the controller instead of downloaded.
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

[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12

function Test-TransientFailure {
    # Worth another attempt: no HTTP answer at all (reset, timeout, DNS) or a 5xx. Only a WebException is the
    # web's: anything else (an IOException when the disk is full) fails the same way again.
    param($ErrorRecord)
    if ($ErrorRecord.Exception -isnot [System.Net.WebException]) { return $false }
    $response = $ErrorRecord.Exception.Response
    if ($null -eq $response) { return $true }
    return ([int]$response.StatusCode -ge 500)
}

function Test-NoProxy {
    # Whether NO_PROXY sends a host past the proxy, read as Go's net/http reads it (golang.org/x/net/http/httpproxy,
    # the reader of containerd and the kubelet): '*' for every host, a name for itself and its subdomains, a leading
    # dot for subdomains only, an IPv4 address or CIDR range, each with an optional port.
    param([Parameter(Mandatory)][Uri]$Uri, [string]$List)
    $name = $Uri.Host.ToLowerInvariant()
    foreach ($raw in @($List -split ',')) {
        $entry = $raw.Trim().ToLowerInvariant()
        if (-not $entry) { continue }
        if ($entry -eq '*') { return $true }
        if ($entry -match '^(\d{1,3}(?:\.\d{1,3}){3})/(\d{1,2})$') {
            $network = $Matches[1]
            $length = [int]$Matches[2]
            if ($name -match '^\d{1,3}(\.\d{1,3}){3}$' -and (Test-Ipv4InRange -Address $name -Network $network -Length $length)) {
                return $true
            }
            continue
        }
        if ($entry -match '^(.+):(\d+)$') {
            if ([int]$Matches[2] -ne $Uri.Port) { continue }
            $entry = $Matches[1]
        }
        if ($entry.StartsWith('.')) {
            if ($name.EndsWith($entry)) { return $true }
        }
        elseif ($name -eq $entry -or $name.EndsWith(".$entry")) {
            return $true
        }
    }
    return $false
}

function Test-Ipv4InRange {
    param([string]$Address, [string]$Network, [int]$Length)
    $value = { param($Text) $total = [int64]0; foreach ($part in ($Text -split '\.')) { $total = $total * 256 + [int64]$part }; $total }
    $size = [Math]::Pow(2, 32 - $Length)
    return ([Math]::Floor((& $value $Address) / $size) -eq [Math]::Floor((& $value $Network) / $size))
}

function Get-MachineProxy {
    # The proxy the node names for programs that fetch over HTTP, for this URL: Windows PowerShell 5.1's
    # Invoke-WebRequest without -Proxy takes WebRequest.DefaultWebProxy, the Internet settings of the account it runs
    # as (.NET Framework: WinHttpGetIEProxyConfigForCurrentUser), usually none for the WinRM account; never the
    # machine's HTTPS_PROXY, which a node behind a proxy sets for its container runtime and the kubelet. Read from the
    # machine's environment (the WinRM session's may predate it), as Go does: HTTPS_PROXY for https, HTTP_PROXY for
    # http, unless NO_PROXY names the host. The machine's WinHTTP proxy (netsh winhttp) is not read.
    param([Parameter(Mandatory)][Uri]$Uri)
    $variable = 'HTTP_PROXY'
    if ($Uri.Scheme -eq 'https') { $variable = 'HTTPS_PROXY' }
    $proxy = [Environment]::GetEnvironmentVariable($variable, 'Machine')
    if (-not $proxy) { return $null }
    if (Test-NoProxy -Uri $Uri -List ([Environment]::GetEnvironmentVariable('NO_PROXY', 'Machine'))) { return $null }
    # A proxy given without a scheme is an http:// one (httpproxy's parseProxy).
    if ($proxy -notmatch '^[a-zA-Z][a-zA-Z0-9+.-]*://') { $proxy = "http://$proxy" }
    return $proxy
}

function Invoke-Download {
    # Returns the attempts made and the seconds the one that succeeded took: the transfer's own time, without
    # the failed attempts and the waits between them.
    param([string]$From, [string]$To)
    $request = @{ Uri = $From; OutFile = $To; UseBasicParsing = $true; TimeoutSec = $TimeoutSeconds }
    # The task's proxy, else the machine's.
    $proxyUri = $Proxy
    if (-not $proxyUri) { $proxyUri = Get-MachineProxy -Uri $From }
    if ($proxyUri) { $request.Proxy = $proxyUri }
    if ($Proxy -and $ProxyUsername) {
        $request.ProxyCredential = New-Object -TypeName System.Management.Automation.PSCredential -ArgumentList @(
            $ProxyUsername, $ProxyPassword)
    }
    $attempt = 0
    while ($true) {
        $attempt++
        $stopwatch = [System.Diagnostics.Stopwatch]::StartNew()
        try {
            Invoke-WebRequest @request
            return [ordered]@{ attempts = $attempt; seconds = $stopwatch.Elapsed.TotalSeconds }
        }
        catch {
            if (Test-Path -LiteralPath $To) { Remove-Item -LiteralPath $To -Force }
            $status = ''
            if ($_.Exception.Response) { $status = " (HTTP $([int]$_.Exception.Response.StatusCode))" }
            if (-not (Test-TransientFailure -ErrorRecord $_)) {
                throw "download of $From failed$status; not retried: $($_.Exception.Message)"
            }
            if ($attempt -gt $Retries) {
                throw "download of $From failed$status after $attempt attempts: $($_.Exception.Message)"
            }
            Start-Sleep -Seconds ([Math]::Min(30, [Math]::Pow(2, $attempt)))
        }
    }
}

function Get-ExpectedHash {
    if ($Checksum) { return $Checksum.ToLowerInvariant() }
    # skip_checksum: neither a hash nor a hash file to download; the artifact is installed unverified.
    if (-not $ChecksumUrl) { return $null }
    $file = Join-Path -Path $env:TEMP -ChildPath ('kubewin-checksum-' + [guid]::NewGuid().ToString('N'))
    try {
        $null = Invoke-Download -From $ChecksumUrl -To $file
        $text = [System.IO.File]::ReadAllText($file)
    }
    finally {
        if (Test-Path -LiteralPath $file) { Remove-Item -LiteralPath $file -Force }
    }
    # A bare hash, or "<hash>  <file name>" lines as sha256sum writes them.
    $length = 64
    if ($Algorithm -eq 'sha512') { $length = 128 }
    $name = [System.IO.Path]::GetFileName(([Uri]$Url).AbsolutePath)
    $candidates = @(foreach ($line in $text -split "`r?`n") {
            $fields = @($line.Trim() -split '\s+')
            if ($fields[0] -match "^[0-9a-fA-F]{$length}$" -and
                ($fields.Count -eq 1 -or [System.IO.Path]::GetFileName($fields[-1].TrimStart('*')) -eq $name)) {
                $fields[0].ToLowerInvariant()
            }
        })
    if ($candidates.Count -ne 1) {
        throw "$ChecksumUrl holds no single $Algorithm for $name"
    }
    return $candidates[0]
}

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

$expected = Get-ExpectedHash
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
