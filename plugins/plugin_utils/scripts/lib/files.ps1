# --- lib/files: files and directories the collection keeps on the node --------------
# JSON, TOML and CNI parsers on Windows reject a byte order mark, which
# Windows PowerShell's -Encoding UTF8 writes; write UTF-8 without one.
$KubeWinUtf8 = New-Object -TypeName System.Text.UTF8Encoding -ArgumentList $false
$KubeWinHome = Join-Path -Path $env:ProgramData -ChildPath 'kubewin'
$KubeWinRegistryPath = Join-Path -Path $KubeWinHome -ChildPath 'managed.json'

# ACL profiles: 'secret' lets only SYSTEM and Administrators in (kubeconfigs, tokens);
# 'protected' also lets Users read and execute, so nobody else can replace what
# runs as SYSTEM (binaries, configs). Neither inherits from the parent: the
# default ACL of C:\ lets Users create files in new folders.
$KubeWinAclProfiles = @{
    secret = @('S-1-5-18=FullControl', 'S-1-5-32-544=FullControl')
    protected = @('S-1-5-18=FullControl', 'S-1-5-32-544=FullControl', 'S-1-5-32-545=ReadAndExecute')
}

function Write-KubeWinTextFile {
    param([Parameter(Mandatory)][string]$Path, [Parameter(Mandatory)][AllowEmptyString()][string]$Text)
    [System.IO.File]::WriteAllText($Path, $Text, $KubeWinUtf8)
}

function Publish-KubeWinTextFile {
    # Writes $Text to <Path>.kubewin-new, then puts it in $Path's place in one step: a reader finds the old file or
    # the new one, never none, and a crash leaves one of them. Windows PowerShell 5.1's Move-Item -Force deletes an
    # existing destination before it moves (FileSystemProvider.MoveFileInfoItem), so the file is missing in between.
    # [IO.File]::Replace (ReplaceFileW) swaps in one step but needs the destination to exist, and the result keeps
    # the replaced file's DACL: a file whose ACL profile changes gets the narrowest one (secret) before the swap and
    # its own after it. [NullString]::Value: no backup file ($null would reach .NET as "", which is no path).
    param([Parameter(Mandatory)][string]$Path, [Parameter(Mandatory)][AllowEmptyString()][string]$Text,
          [ValidateSet('secret', 'protected')][string]$Profile)
    $temporary = "$Path.kubewin-new"
    if ($Profile) {
        # The new file gets its ACL before it holds the content.
        Write-KubeWinTextFile -Path $temporary -Text ''
        Set-KubeWinAcl -Path $temporary -Profile $Profile
    }
    Write-KubeWinTextFile -Path $temporary -Text $Text
    if (-not (Test-Path -LiteralPath $Path -PathType Leaf)) {
        Move-Item -LiteralPath $temporary -Destination $Path
        return
    }
    $before = $Profile
    if ($Profile) { $before = Get-KubeWinAclProfile -Path $Path }
    if ($before -ne $Profile) { Set-KubeWinAcl -Path $Path -Profile secret }
    [System.IO.File]::Replace($temporary, $Path, [NullString]::Value)
    if ($before -ne $Profile) { Set-KubeWinAcl -Path $Path -Profile $Profile }
}

function Set-KubeWinAcl {
    param([Parameter(Mandatory)][string]$Path, [Parameter(Mandatory)][ValidateSet('secret', 'protected')][string]$Profile)
    $isDirectory = Test-Path -LiteralPath $Path -PathType Container
    $acl = Get-Acl -LiteralPath $Path
    $acl.SetAccessRuleProtection($true, $false)
    foreach ($rule in @($acl.Access)) { $null = $acl.RemoveAccessRule($rule) }
    $inheritance = 'None'
    if ($isDirectory) { $inheritance = 'ContainerInherit, ObjectInherit' }
    foreach ($entry in $KubeWinAclProfiles[$Profile]) {
        $sid, $rights = $entry -split '='
        $identity = New-Object -TypeName System.Security.Principal.SecurityIdentifier -ArgumentList $sid
        $rule = New-Object -TypeName System.Security.AccessControl.FileSystemAccessRule -ArgumentList @(
            $identity, $rights, $inheritance, 'None', 'Allow')
        $acl.AddAccessRule($rule)
    }
    Set-Acl -LiteralPath $Path -AclObject $acl
}

function Get-KubeWinAclProfile {
    # Which profile the ACL matches exactly: secret, protected, inherited or custom.
    param([Parameter(Mandatory)][string]$Path)
    $acl = Get-Acl -LiteralPath $Path
    if (-not $acl.AreAccessRulesProtected) { return 'inherited' }
    # Allow rules read back with Synchronize, which FullControl includes: both sides are
    # compared as numbers without it ('FullControl' less Synchronize has no name of its own).
    $synchronize = [System.Security.AccessControl.FileSystemRights]::Synchronize
    $found = @(foreach ($rule in $acl.Access) {
            $sid = $rule.IdentityReference.Translate([System.Security.Principal.SecurityIdentifier]).Value
            '{0}={1}' -f $sid, [int]($rule.FileSystemRights -band -bnot $synchronize)
        }) | Sort-Object -Unique
    foreach ($name in $KubeWinAclProfiles.Keys) {
        $expected = @(foreach ($entry in $KubeWinAclProfiles[$name]) {
                $sid, $rights = $entry -split '='
                '{0}={1}' -f $sid, [int]([System.Security.AccessControl.FileSystemRights]$rights -band -bnot $synchronize)
            }) | Sort-Object -Unique
        if (($expected -join ';') -eq ($found -join ';')) { return $name }
    }
    return 'custom'
}

function New-KubeWinDirectory {
    # Creates missing directories with the given ACL profile; existing ones are left as they are.
    param([Parameter(Mandatory)][string]$Path, [ValidateSet('secret', 'protected')][string]$Profile = 'protected')
    if (Test-Path -LiteralPath $Path -PathType Container) { return }
    $parent = Split-Path -Path $Path -Parent
    if ($parent -and -not (Test-Path -LiteralPath $parent -PathType Container)) {
        New-KubeWinDirectory -Path $parent -Profile $Profile
    }
    $null = New-Item -Path $Path -ItemType Directory -Force
    Set-KubeWinAcl -Path $Path -Profile $Profile
}

function Get-KubeWinOperationPath {
    # Where a detached operation keeps its worker, arguments, result and log.
    param([Parameter(Mandatory)][string]$OperationId, [Parameter(Mandatory)][string]$Suffix)
    $directory = Join-Path -Path $KubeWinHome -ChildPath 'operations'
    New-KubeWinDirectory -Path $directory -Profile secret
    return Join-Path -Path $directory -ChildPath "$OperationId$Suffix"
}

# The registry of managed files lets node_info report every file the collection
# wrote without being told their paths, and without hashing large binaries again
# while their size and write time are unchanged. It also keeps, per artifact
# destination, the URL and checksum it was verified against.
function Get-KubeWinRegistry {
    $registry = @{ files = @{}; artifacts = @{} }
    if (Test-Path -LiteralPath $KubeWinRegistryPath) {
        # Written as UTF-8 without a byte order mark, which Get-Content reads as ANSI unless told.
        $data = Get-Content -LiteralPath $KubeWinRegistryPath -Raw -Encoding UTF8 | ConvertFrom-Json
        foreach ($part in @('files', 'artifacts')) {
            if ($null -eq $data.$part) { continue }
            foreach ($property in @($data.$part.PSObject.Properties)) { $registry[$part][$property.Name] = $property.Value }
        }
    }
    return $registry
}

function Save-KubeWinRegistry {
    param([Parameter(Mandatory)][hashtable]$Registry)
    New-KubeWinDirectory -Path $KubeWinHome -Profile protected
    $document = [ordered]@{}
    foreach ($part in @('files', 'artifacts')) {
        $document[$part] = [ordered]@{}
        foreach ($key in @($Registry[$part].Keys | Sort-Object)) { $document[$part][$key] = $Registry[$part][$key] }
    }
    Publish-KubeWinTextFile -Path $KubeWinRegistryPath -Text (ConvertTo-Json -InputObject $document -Depth 6 -Compress)
}

function Register-KubeWinFile {
    # Records files as managed (with their hash, size and write time) and forgets others;
    # with -ArtifactDest, also records where those files came from (-Artifact: url and
    # checksum) and the hash each had when it was verified. With -TrackContent, node_info
    # reports the text of these (small) files in its contents section without being asked.
    param([string[]]$Path = @(), [string[]]$Forget = @(), [string]$ArtifactDest, $Artifact, [switch]$TrackContent)
    $registry = Get-KubeWinRegistry
    foreach ($entry in $Path) {
        $item = Get-Item -LiteralPath $entry -Force
        $registry.files[$entry] = [ordered]@{
            sha256 = (Get-FileHash -LiteralPath $entry -Algorithm SHA256).Hash.ToLowerInvariant()
            size = [int64]$item.Length
            written = $item.LastWriteTimeUtc.ToString('o')
        }
        if ($TrackContent) { $registry.files[$entry].track_content = $true }
    }
    foreach ($entry in $Forget) {
        $registry.files.Remove($entry)
        $registry.artifacts.Remove($entry)
    }
    if ($ArtifactDest) {
        $Artifact.files = [ordered]@{}
        foreach ($entry in $Path) { $Artifact.files[$entry] = $registry.files[$entry].sha256 }
        $registry.artifacts[$ArtifactDest] = $Artifact
    }
    Save-KubeWinRegistry -Registry $registry
}

function Get-KubeWinFileState {
    param([Parameter(Mandatory)][string]$Path, [hashtable]$Registry = @{})
    $item = Get-Item -LiteralPath $Path -Force -ErrorAction SilentlyContinue
    if (-not $item) { return [ordered]@{ exists = $false } }
    if ($item.PSIsContainer) {
        return [ordered]@{ exists = $true; type = 'directory'; acl = Get-KubeWinAclProfile -Path $Path }
    }
    $known = $null
    if ($Registry.files) { $known = $Registry.files[$Path] }
    $sha256 = $null
    if ($known -and [int64]$known.size -eq $item.Length -and $known.written -eq $item.LastWriteTimeUtc.ToString('o')) {
        $sha256 = $known.sha256
    }
    else {
        $sha256 = (Get-FileHash -LiteralPath $Path -Algorithm SHA256).Hash.ToLowerInvariant()
    }
    return [ordered]@{
        exists = $true
        type = 'file'
        size = [int64]$item.Length
        sha256 = $sha256
        acl = Get-KubeWinAclProfile -Path $Path
    }
}
# --- end lib/files -----------------------------------------------------------------
