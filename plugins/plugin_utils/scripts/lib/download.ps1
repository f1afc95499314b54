# --- lib/download: downloads over HTTP(S), through the proxy the node names, with retries -----------------------
# Used by artifact_stage.ps1 (every artifact of the node, before anything changes) and artifact_fetch.ps1 (an
# artifact that was not staged). Invoke-Download reads the including script's parameters $Retries, $TimeoutSeconds,
# $Proxy, $ProxyUsername and $ProxyPassword, which both declare; and $ProxyEnvironment, which artifact_stage.ps1
# declares: the HTTP_PROXY, HTTPS_PROXY and NO_PROXY the prerequisites role is to set, read in place of the machine's
# (staging runs before that role sets them).
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
    $proxy = Get-ProxyVariable -Name $variable
    if (-not $proxy) { return $null }
    if (Test-NoProxy -Uri $Uri -List (Get-ProxyVariable -Name 'NO_PROXY')) { return $null }
    # A proxy given without a scheme is an http:// one (httpproxy's parseProxy).
    if ($proxy -notmatch '^[a-zA-Z][a-zA-Z0-9+.-]*://') { $proxy = "http://$proxy" }
    return $proxy
}

function Get-ProxyVariable {
    param([Parameter(Mandatory)][string]$Name)
    if ($ProxyEnvironment) { return $ProxyEnvironment[$Name] }
    return [Environment]::GetEnvironmentVariable($Name, 'Machine')
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
    # The hash the artifact must have: the pinned one, else the one its upstream hash file holds (downloaded to TEMP
    # and removed), else $null (skip_checksum: installed unverified).
    param([Parameter(Mandatory)][string]$From, [Parameter(Mandatory)][string]$HashAlgorithm, [string]$Pinned,
          [string]$HashUrl)
    if ($Pinned) { return $Pinned.ToLowerInvariant() }
    if (-not $HashUrl) { return $null }
    $file = Join-Path -Path $env:TEMP -ChildPath ('kubewin-checksum-' + [guid]::NewGuid().ToString('N'))
    try {
        $null = Invoke-Download -From $HashUrl -To $file
        $text = [System.IO.File]::ReadAllText($file)
    }
    finally {
        if (Test-Path -LiteralPath $file) { Remove-Item -LiteralPath $file -Force }
    }
    # A bare hash, or "<hash>  <file name>" lines as sha256sum writes them.
    $length = 64
    if ($HashAlgorithm -eq 'sha512') { $length = 128 }
    $name = [System.IO.Path]::GetFileName(([Uri]$From).AbsolutePath)
    $candidates = @(foreach ($line in $text -split "`r?`n") {
            $fields = @($line.Trim() -split '\s+')
            if ($fields[0] -match "^[0-9a-fA-F]{$length}$" -and
                ($fields.Count -eq 1 -or [System.IO.Path]::GetFileName($fields[-1].TrimStart('*')) -eq $name)) {
                $fields[0].ToLowerInvariant()
            }
        })
    if ($candidates.Count -ne 1) {
        throw "$HashUrl holds no single $HashAlgorithm for $name"
    }
    return $candidates[0]
}
