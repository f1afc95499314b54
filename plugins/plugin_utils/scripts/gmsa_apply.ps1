# kubewin-script: gmsa_apply
# gMSA on the node (plugins/plugin_utils/_gmsa.py): HNS's EnableCompartmentNamespace, and, for a node that is not
# domain-joined, the user's Container Credential Guard plugin registered from its own registry file and event
# manifest; then reports the node's gMSA state.
[CmdletBinding(SupportsShouldProcess)]
param(
    [switch]$CompartmentNamespace,
    [ValidatePattern('^(\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\})?$')]
    [string]$PluginClsid = '',
    [string]$RegistrationPath = '',
    [string]$ManifestPath = ''
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

$classes = 'SYSTEM\CurrentControlSet\Control\CCG\COMClasses'

function Enable-KubeWinPrivilege {
    # AdjustTokenPrivileges (Win32 API reference): a privilege the process token holds is enabled; one it does not
    # hold is not, and the call still succeeds with ERROR_NOT_ALL_ASSIGNED (1300), hence the last-error check.
    param([Parameter(Mandatory)][string]$Name)
    if (-not ('KubeWin.TokenPrivilege' -as [type])) {
        Add-Type -Namespace KubeWin -Name TokenPrivilege -MemberDefinition @'
[StructLayout(LayoutKind.Sequential, Pack = 4)]
private struct TokenPrivileges { public int Count; public long Luid; public int Attributes; }
[DllImport("advapi32.dll", SetLastError = true)]
private static extern bool OpenProcessToken(IntPtr process, int access, out IntPtr token);
[DllImport("advapi32.dll", SetLastError = true, CharSet = CharSet.Unicode)]
private static extern bool LookupPrivilegeValue(string system, string name, out long luid);
[DllImport("advapi32.dll", SetLastError = true)]
private static extern bool AdjustTokenPrivileges(IntPtr token, bool disableAll, ref TokenPrivileges state, int length, IntPtr previous, IntPtr returned);
[DllImport("kernel32.dll")]
private static extern IntPtr GetCurrentProcess();
[DllImport("kernel32.dll", SetLastError = true)]
private static extern bool CloseHandle(IntPtr handle);
public static bool Enable(string name) {
    IntPtr token;
    if (!OpenProcessToken(GetCurrentProcess(), 0x28, out token)) { return false; }
    try {
        TokenPrivileges state = new TokenPrivileges();
        state.Count = 1;
        state.Attributes = 2;
        if (!LookupPrivilegeValue(null, name, out state.Luid)) { return false; }
        return AdjustTokenPrivileges(token, false, ref state, 0, IntPtr.Zero, IntPtr.Zero) && Marshal.GetLastWin32Error() == 0;
    }
    finally { CloseHandle(token); }
}
'@
    }
    if (-not [KubeWin.TokenPrivilege]::Enable($Name)) {
        throw "the process token does not hold ${Name}: run as a member of Administrators"
    }
}

function Grant-KubeWinCcgClasses {
    # CCG\COMClasses is TrustedInstaller's; Administrators may only read it. As AKS's Install-GmsaPlugin and
    # Microsoft's sample plugin installer do: take it over for Administrators (the take-ownership privilege opens it
    # for WRITE_OWNER), then, as its owner, give Administrators full control, so that reg.exe can add the CLSID.
    $administrators = New-Object -TypeName System.Security.Principal.SecurityIdentifier -ArgumentList 'S-1-5-32-544'
    Enable-KubeWinPrivilege -Name SeTakeOwnershipPrivilege
    $readWrite = [Microsoft.Win32.RegistryKeyPermissionCheck]::ReadWriteSubTree
    # Reading the security descriptor through the key needs READ_CONTROL too (GetSecurityInfo).
    $readPermissions = [System.Security.AccessControl.RegistryRights]::ReadPermissions
    $takeOwnership = [System.Security.AccessControl.RegistryRights]::TakeOwnership -bor $readPermissions
    $changePermissions = [System.Security.AccessControl.RegistryRights]::ChangePermissions -bor $readPermissions
    $key = [Microsoft.Win32.Registry]::LocalMachine.OpenSubKey($classes, $readWrite, $takeOwnership)
    try {
        $acl = $key.GetAccessControl()
        $acl.SetOwner($administrators)
        $key.SetAccessControl($acl)
    }
    finally { $key.Close() }
    $key = [Microsoft.Win32.Registry]::LocalMachine.OpenSubKey($classes, $readWrite, $changePermissions)
    try {
        $acl = $key.GetAccessControl()
        $rule = New-Object -TypeName System.Security.AccessControl.RegistryAccessRule -ArgumentList $administrators,
            ([System.Security.AccessControl.RegistryRights]::FullControl),
            ([System.Security.AccessControl.InheritanceFlags]::ContainerInherit),
            ([System.Security.AccessControl.PropagationFlags]::None),
            ([System.Security.AccessControl.AccessControlType]::Allow)
        $acl.AddAccessRule($rule)
        $key.SetAccessControl($acl)
    }
    finally { $key.Close() }
}

function Invoke-KubeWinTool {
    # reg.exe and wevtutil.exe report on stderr, which Windows PowerShell 5.1 turns into error records: under 'Stop'
    # the first line would end the script before the exit code is read, so they are collected instead.
    param([Parameter(Mandatory)][string]$Program, [Parameter(Mandatory)][string[]]$Arguments)
    $messages = & {
        $ErrorActionPreference = 'Continue'
        & "$env:SystemRoot\System32\$Program" @Arguments 2>&1
    }
    if ($LASTEXITCODE -ne 0) {
        throw "$Program $($Arguments -join ' ') failed (exit code $LASTEXITCODE): $(@($messages | ForEach-Object { [string]$_ }) -join ' ')"
    }
}

if ($CompartmentNamespace -and $PSCmdlet.ShouldProcess('HNS', 'set EnableCompartmentNamespace')) {
    # kubernetes.io, "Configure GMSA": REG_DWORD 1; pods created from now on resolve SMB shares by name, no service
    # restarts.
    New-ItemProperty -LiteralPath 'HKLM:\SYSTEM\CurrentControlSet\Services\hns\State' -Name EnableCompartmentNamespace `
        -PropertyType DWord -Value 1 -Force | Out-Null
}

if ($PluginClsid -and $PSCmdlet.ShouldProcess($PluginClsid, 'register the CCG plugin')) {
    foreach ($file in @($RegistrationPath, $ManifestPath)) {
        if (-not (Test-Path -LiteralPath $file -PathType Leaf)) { throw "$file is not on the node" }
    }
    Grant-KubeWinCcgClasses
    # The plugin's own files: its registry file (its COM class, activated out of process, and its CLSID under
    # CCG\COMClasses) and the manifest of its event log.
    Invoke-KubeWinTool -Program reg.exe -Arguments @('import', $RegistrationPath)
    Invoke-KubeWinTool -Program wevtutil.exe -Arguments @('im', $ManifestPath)
    if (-not (Test-Path -LiteralPath "HKLM:\$classes\$PluginClsid")) {
        throw "$RegistrationPath does not register $PluginClsid under HKLM:\$classes"
    }
}

$Ansible.Result = ConvertTo-Json -Depth 5 -Compress -InputObject ([ordered]@{
        state = Get-KubeWinNodeState -Sections @('gmsa')
    })
