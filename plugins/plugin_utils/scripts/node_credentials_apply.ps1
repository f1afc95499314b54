# kubewin-script: node_credentials_apply
# Gives files that hold a credential the 'secret' ACL profile (only SYSTEM and Administrators, not
# inherited from the folder), then reports the credentials section for the patterns asked for.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][string[]]$Paths,
    [string[]]$Credentials = @()
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

foreach ($path in $Paths) {
    # A file gone since the query (the kubelet replaced a certificate) has nothing to restrict; the
    # state below shows what is there now.
    if (Test-Path -LiteralPath $path -PathType Leaf) { Set-KubeWinAcl -Path $path -Profile secret }
}
$Ansible.Result = ConvertTo-Json -Depth 6 -Compress -InputObject ([ordered]@{
        state = Get-KubeWinNodeState -Sections @('credentials') -Credentials $Credentials
    })
