# kubewin-script: registry_values_apply
# Sets named values of one HKLM key (creating the key with its parents) and removes others, then reports the key.
# The values come as three lists of one length: names, kinds (RegistryValueKind names, which New-ItemProperty's
# -PropertyType takes) and data.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][string]$Key,
    [string[]]$Names = @(),
    [string[]]$Kinds = @(),
    [object[]]$Data = @(),
    [string[]]$Remove = @()
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

if ($Names.Count -gt 0 -and -not (Test-Path -LiteralPath $Key)) {
    $null = New-Item -Path $Key -Force
}
for ($index = 0; $index -lt $Names.Count; $index++) {
    $null = New-ItemProperty -LiteralPath $Key -Name $Names[$index] -PropertyType $Kinds[$index] -Value $Data[$index] -Force
}
foreach ($name in $Remove) {
    Remove-ItemProperty -LiteralPath $Key -Name $name
}
$Ansible.Result = ConvertTo-Json -Depth 6 -Compress -InputObject ([ordered]@{
        state = Get-KubeWinNodeState -Sections @('registry') -RegistryKeys @($Key)
    })
