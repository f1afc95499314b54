# kubewin-script: artifact_stage
# Downloads and verifies every artifact the node needs into one staging folder, before anything on the node changes:
# <StagingDir>\<hash>\<file name>, the folder readable by SYSTEM and Administrators only. An artifact already staged
# with its hash is not downloaded again; a hash file upstream publishes is read once and remembered in
# <StagingDir>\index.json (URL and hash file -> hash), so a re-run downloads nothing twice. Every artifact is tried;
# then the run fails naming each one whose download failed or whose hash differs (its URL and both hashes), and
# what arrived with a wrong hash is removed. Staged folders of artifacts no longer wanted are removed.
# kubewin.node.artifact then moves each staged file into place (artifact_fetch.ps1 -StagedPath).
# Under -WhatIf (check mode) nothing is downloaded, written or removed: it reports what it would download.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][string]$StagingDir,
    # Each @{ url; algorithm (sha256 or sha512); checksum (the pinned hex) or checksum_url (the hash file); name }.
    [Parameter(Mandatory)][hashtable[]]$Artifacts,
    [int]$Retries = 4,
    [int]$TimeoutSeconds = 300,
    [string]$Proxy,
    [string]$ProxyUsername,
    [securestring]$ProxyPassword,
    [hashtable]$ProxyEnvironment
)
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'  # the progress bar slows Invoke-WebRequest down many times over

# kubewin-include: files

# kubewin-include: download

$indexPath = Join-Path -Path $StagingDir -ChildPath 'index.json'
$index = @{}
if (Test-Path -LiteralPath $indexPath) {
    $known = [System.IO.File]::ReadAllText($indexPath) | ConvertFrom-Json
    foreach ($property in $known.PSObject.Properties) { $index[$property.Name] = $property.Value }
}
$writing = $PSCmdlet.ShouldProcess($StagingDir, 'Stage the artifacts')
if ($writing) { New-KubeWinDirectory -Path $StagingDir -Profile secret }

$results = @()
$problems = @()
$wanted = @{}
foreach ($artifact in $Artifacts) {
    $url = $artifact.url
    $name = $artifact.name
    $entry = [ordered]@{ url = $url; state = 'present'; path = $null; sha = $null; bytes = $null; seconds = $null; attempts = 0 }
    try {
        $expected = $null
        $indexKey = "$url $($artifact.checksum_url)"
        if ($artifact.checksum) { $expected = ([string]$artifact.checksum).ToLowerInvariant() }
        elseif ($index.ContainsKey($indexKey)) { $expected = [string]$index[$indexKey] }
        elseif ($writing) {
            $expected = Get-ExpectedHash -From $url -HashAlgorithm $artifact.algorithm -HashUrl $artifact.checksum_url
            $index[$indexKey] = $expected
        }
        if ($expected) {
            $folder = Join-Path -Path $StagingDir -ChildPath $expected
            $path = Join-Path -Path $folder -ChildPath $name
            $wanted[$expected] = $true
            $entry.path = $path
            $entry.sha = $expected
            if ((Test-Path -LiteralPath $path -PathType Leaf) -and
                (Get-FileHash -LiteralPath $path -Algorithm $artifact.algorithm).Hash.ToLowerInvariant() -eq $expected) {
                $results += $entry
                continue
            }
        }
        $entry.state = 'downloaded'
        if (-not $writing) {
            # Check mode: it would be downloaded (its hash file too, when the index does not know it).
            $entry.state = 'pending'
            $results += $entry
            continue
        }
        $download = Join-Path -Path $StagingDir -ChildPath ('.kubewin-download-' + [guid]::NewGuid().ToString('N'))
        try {
            $transfer = Invoke-Download -From $url -To $download
            $actual = (Get-FileHash -LiteralPath $download -Algorithm $artifact.algorithm).Hash.ToLowerInvariant()
            if ($actual -ne $expected) {
                throw "checksum mismatch for ${url}: expected $($artifact.algorithm) $expected, got $actual; nothing was staged"
            }
            $entry.bytes = (Get-Item -LiteralPath $download).Length
            New-KubeWinDirectory -Path $folder -Profile secret
            if (Test-Path -LiteralPath $path) { Remove-Item -LiteralPath $path -Force }
            Move-Item -LiteralPath $download -Destination $path
            $entry.seconds = $transfer.seconds
            $entry.attempts = $transfer.attempts
        }
        finally {
            if (Test-Path -LiteralPath $download) { Remove-Item -LiteralPath $download -Force }
        }
        $results += $entry
    }
    catch {
        $problems += $_.Exception.Message
    }
}

if ($writing) {
    # Only the folders of the artifacts wanted now stay, with the index entries that name them.
    foreach ($folder in @(Get-ChildItem -LiteralPath $StagingDir -Directory -Force)) {
        if ($folder.Name -match '^[0-9a-f]{64}([0-9a-f]{64})?$' -and -not $wanted.ContainsKey($folder.Name)) {
            Remove-Item -LiteralPath $folder.FullName -Recurse -Force
        }
    }
    $kept = [ordered]@{}
    foreach ($key in @($index.Keys | Sort-Object)) {
        if ($wanted.ContainsKey([string]$index[$key])) { $kept[$key] = $index[$key] }
    }
    Write-KubeWinTextFile -Path $indexPath -Text (ConvertTo-Json -Compress -InputObject $kept)
}
if ($problems) {
    throw ("$($problems.Count) of $($Artifacts.Count) artifact(s) could not be staged; nothing on the node changed " +
        "but the staging folder $StagingDir`: " + ($problems -join '; '))
}
$Ansible.Result = ConvertTo-Json -Depth 4 -Compress -InputObject ([ordered]@{ artifacts = @($results) })
