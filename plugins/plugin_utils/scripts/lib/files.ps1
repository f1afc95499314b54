# --- lib/files: files and directories the collection keeps on the node --------------
# JSON, TOML and CNI parsers on Windows reject a byte order mark, which
# Windows PowerShell's -Encoding UTF8 writes; write UTF-8 without one.
$KubeWinUtf8 = New-Object -TypeName System.Text.UTF8Encoding -ArgumentList $false

function Write-KubeWinTextFile {
    param([Parameter(Mandatory)][string]$Path, [Parameter(Mandatory)][AllowEmptyString()][string]$Text)
    [System.IO.File]::WriteAllText($Path, $Text, $KubeWinUtf8)
}

function Set-KubeWinRestrictedAcl {
    # Only SYSTEM and the local Administrators group, nothing inherited: for secrets
    # (kubeconfigs, tokens) and for what runs as SYSTEM.
    param([Parameter(Mandatory)][string]$Path)
    $isDirectory = Test-Path -LiteralPath $Path -PathType Container
    $acl = Get-Acl -LiteralPath $Path
    $acl.SetAccessRuleProtection($true, $false)
    foreach ($rule in @($acl.Access)) { $null = $acl.RemoveAccessRule($rule) }
    $inheritance = 'None'
    if ($isDirectory) { $inheritance = 'ContainerInherit, ObjectInherit' }
    foreach ($sid in @('S-1-5-18', 'S-1-5-32-544')) {
        $identity = New-Object -TypeName System.Security.Principal.SecurityIdentifier -ArgumentList $sid
        $rule = New-Object -TypeName System.Security.AccessControl.FileSystemAccessRule -ArgumentList @(
            $identity, 'FullControl', $inheritance, 'None', 'Allow')
        $acl.AddAccessRule($rule)
    }
    Set-Acl -LiteralPath $Path -AclObject $acl
}

function New-KubeWinDirectory {
    param([Parameter(Mandatory)][string]$Path, [switch]$Restricted)
    if (-not (Test-Path -LiteralPath $Path -PathType Container)) {
        $null = New-Item -Path $Path -ItemType Directory -Force
    }
    if ($Restricted) { Set-KubeWinRestrictedAcl -Path $Path }
}

function Get-KubeWinOperationPath {
    # Where a detached operation keeps its worker, arguments, result and log.
    param([Parameter(Mandatory)][string]$OperationId, [Parameter(Mandatory)][string]$Suffix)
    $directory = Join-Path -Path $env:ProgramData -ChildPath 'kubewin\operations'
    New-KubeWinDirectory -Path $directory -Restricted
    return Join-Path -Path $directory -ChildPath "$OperationId$Suffix"
}
# --- end lib/files -----------------------------------------------------------------
