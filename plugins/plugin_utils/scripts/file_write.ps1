# kubewin-script: file_write
# Writes (or removes) one text file the collection manages: UTF-8 without BOM,
# replaced atomically, with an ACL profile that does not inherit from its folder.
# Returns the file's state after the change.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][string]$Path,
    [AllowEmptyString()][string]$Content,
    [securestring]$SecretContent,
    [ValidateSet('protected', 'secret')][string]$Acl = 'protected',
    [switch]$Remove
)
$ErrorActionPreference = 'Stop'

# kubewin-include: files

if ($Remove) {
    if (Test-Path -LiteralPath $Path) { Remove-Item -LiteralPath $Path -Force }
    Register-KubeWinFile -Forget @($Path)
}
else {
    $text = $Content
    if ($SecretContent) {
        $text = (New-Object -TypeName System.Management.Automation.PSCredential -ArgumentList @(
                'unused', $SecretContent)).GetNetworkCredential().Password
    }
    New-KubeWinDirectory -Path (Split-Path -Path $Path -Parent)
    Publish-KubeWinTextFile -Path $Path -Text $text -Profile $Acl
    Register-KubeWinFile -Path @($Path)
}
$registry = Get-KubeWinRegistry
$Ansible.Result = ConvertTo-Json -Depth 5 -Compress -InputObject ([ordered]@{
        state = [ordered]@{
            sections = @('files')
            files = [ordered]@{ $Path = Get-KubeWinFileState -Path $Path -Registry $registry }
        }
    })
