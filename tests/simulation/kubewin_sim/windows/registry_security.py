"""Registry keys through .NET, with their owner and access rules, and the privileges of the script's process token.

What Container Credential Guard plugin installers do (Azure/AgentBaker's Install-GmsaPlugin, Microsoft's sample plugin
installer): enable SeTakeOwnershipPrivilege, open ``CCG\\COMClasses`` for WRITE_OWNER, make Administrators its owner,
open it again for WRITE_DAC and give Administrators full control, so that the plugin's CLSID can be added under it.

Sources:
- Microsoft.Win32.Registry.LocalMachine and Microsoft.Win32.RegistryKey (.NET API reference; .NET Framework's
  mscorlib/microsoft/win32/registrykey.cs in microsoft/referencesource): OpenSubKey(name) opens for reading,
  OpenSubKey(name, writable), OpenSubKey(name, RegistryKeyPermissionCheck) (ReadWriteSubTree: reading and writing),
  OpenSubKey(name, RegistryRights) and OpenSubKey(name, RegistryKeyPermissionCheck, RegistryRights) open with exactly
  those rights (RegOpenKeyEx); a missing key is null; an access the key's DACL does not grant throws
  SecurityException "Requested registry access is not allowed." (InternalOpenSubKey). The key is writable for
  SetAccessControl when opened ReadWriteSubTree (or writable), else UnauthorizedAccessException "Cannot write to the
  registry key."; GetAccessControl reads the security descriptor through the handle (RegistrySecurity(hKey, ...),
  GetSecurityInfo: READ_CONTROL), SetAccessControl writes the parts that changed (RegistrySecurity.Persist:
  the owner needs WRITE_OWNER, the DACL WRITE_DAC).
- RegistryRights, RegistryKeyPermissionCheck, RegistryAccessRule, RegistrySecurity (.NET API reference,
  System.Security.AccessControl; registrysecurity.cs): a RegistryAccessRule keeps the rights as given (unlike a
  FileSystemAccessRule, no Synchronize); SetOwner, AddAccessRule, SetAccessRule as for files (acl.py).
- Access checks ("How DACLs Control Access to an Object", "Access Rights and Access Masks", Win32 API reference): the
  allow and deny entries of the DACL for the token's groups; the owner is granted READ_CONTROL and WRITE_DAC; a token
  with SeTakeOwnershipPrivilege enabled is granted WRITE_OWNER ("Privilege Constants": SE_TAKE_OWNERSHIP_NAME); an
  object's owner may be set to a SID of the token (Administrators, for an elevated administrator), any SID with
  SeRestorePrivilege enabled.
- A key's values (.NET API reference, Microsoft.Win32.RegistryKey GetValueNames, GetValueKind, GetValue;
  RegistryValueKind, RegistryValueOptions; registrykey.cs): GetValueNames lists the names (the default value, when
  set, as ""); GetValueKind names the kind (String, ExpandString, Binary, DWord, MultiString, QWord) and throws
  IOException "The specified registry key does not exist." for a missing value; GetValue(name) returns the value as
  windows/registry.py's to_net converts it (REG_EXPAND_SZ expanded), GetValue(name, default) the default for a
  missing value, and GetValue(name, default, DoNotExpandEnvironmentNames) an REG_EXPAND_SZ as stored. Each needs
  QueryValues (KEY_QUERY_VALUE) on the handle, which OpenSubKey's read access includes.
- AdjustTokenPrivileges ("AdjustTokenPrivileges function", Win32 API reference): a privilege the token holds is
  enabled; one it does not hold is not, and the call succeeds with ERROR_NOT_ALL_ASSIGNED. The token of the scripts'
  process is an elevated administrator's (WinRM runs the module as the connecting member of Administrators), which
  holds the privileges Windows Server gives Administrators ("User Rights Assignment": take ownership, back up,
  restore, debug...), all disabled but SeChangeNotifyPrivilege, SeImpersonatePrivilege and SeCreateGlobalPrivilege.

The keys' security: ``node.data['registry_security']`` {lower-case key: {'owner': SID, 'rules': [[SID, mask,
inheritance, propagation, type]]}}. Without an entry a key is as HKLM's keys Windows Setup makes are, writable by
Administrators and SYSTEM; ``HKLM\\SYSTEM\\CurrentControlSet\\Control\\CCG\\COMClasses`` (there with the Containers
feature, where CCG is) is TrustedInstaller's, which the others may only read (an assumption: the installers above take
it over before they write, which they would not need otherwise; Microsoft's ICcgDomainAuthCredentials page says write
access is "restricted to SYSTEM and Administrator accounts"). A key created under a key inherits its
container-inheritable rules and gets Administrators as owner.
"""

from ..pwsh.types import NetType, enum_type, register
from ..pwsh.values import AUTOMATION_NULL, PSArray, PSError, Unsupported, to_string
from . import acl as acls
from .addtype import known_definition
from .registry import HKLM, key_exists, parse_path, read_key, refuse_partial_read, to_net

RIGHTS = enum_type('System.Security.AccessControl.RegistryRights', {
    'QueryValues': 1, 'SetValue': 2, 'CreateSubKey': 4, 'EnumerateSubKeys': 8, 'Notify': 16, 'CreateLink': 32,
    'Delete': 65536, 'ReadPermissions': 131072, 'WriteKey': 131078, 'ReadKey': 131097, 'ExecuteKey': 131097,
    'ChangePermissions': 262144, 'TakeOwnership': 524288, 'FullControl': 983103}, flags=True)
CHECK = enum_type('Microsoft.Win32.RegistryKeyPermissionCheck', {'Default': 0, 'ReadSubTree': 1, 'ReadWriteSubTree': 2})
VALUE_KINDS = enum_type('Microsoft.Win32.RegistryValueKind', {
    'Unknown': 0, 'String': 1, 'ExpandString': 2, 'Binary': 3, 'DWord': 4, 'MultiString': 7, 'QWord': 11, 'None': -1})
VALUE_OPTIONS = enum_type('Microsoft.Win32.RegistryValueOptions', {'None': 0, 'DoNotExpandEnvironmentNames': 1},
                          flags=True)
# The registry model's kinds (windows/registry.py) by RegistryValueKind name.
KIND_NAMES = {'REG_SZ': 'String', 'REG_EXPAND_SZ': 'ExpandString', 'REG_BINARY': 'Binary', 'REG_DWORD': 'DWord',
              'REG_MULTI_SZ': 'MultiString', 'REG_QWORD': 'QWord'}
QUERY_VALUES = 0x1
READ_KEY, WRITE_KEY, FULL_CONTROL = 0x20019, 0x20006, 0xF003F
READ_CONTROL, WRITE_DAC, WRITE_OWNER, CREATE_SUB_KEY, SET_VALUE = 0x20000, 0x40000, 0x80000, 0x4, 0x2
SYSTEM, ADMINISTRATORS, USERS = 'S-1-5-18', 'S-1-5-32-544', 'S-1-5-32-545'
TRUSTED_INSTALLER = 'S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464'
# The groups of an elevated administrator's token (Everyone, Users, Authenticated Users, Administrators).
TOKEN_GROUPS = ('S-1-1-0', USERS, 'S-1-5-11', ADMINISTRATORS)
HELD_PRIVILEGES = ('SeTakeOwnershipPrivilege', 'SeBackupPrivilege', 'SeRestorePrivilege', 'SeDebugPrivilege',
                   'SeSecurityPrivilege', 'SeLoadDriverPrivilege', 'SeSystemEnvironmentPrivilege', 'SeShutdownPrivilege',
                   'SeRemoteShutdownPrivilege', 'SeManageVolumePrivilege', 'SeImpersonatePrivilege',
                   'SeCreateGlobalPrivilege', 'SeChangeNotifyPrivilege', 'SeIncreaseQuotaPrivilege',
                   'SeSystemtimePrivilege', 'SeTimeZonePrivilege', 'SeCreatePagefilePrivilege',
                   'SeIncreaseBasePriorityPrivilege', 'SeProfileSingleProcessPrivilege', 'SeSystemProfilePrivilege',
                   'SeUndockPrivilege', 'SeIncreaseWorkingSetPrivilege', 'SeCreateSymbolicLinkPrivilege',
                   'SeDelegateSessionUserImpersonatePrivilege')
ENABLED_BY_DEFAULT = ('SeChangeNotifyPrivilege', 'SeImpersonatePrivilege', 'SeCreateGlobalPrivilege')
CCG_COMCLASSES = 'system\\currentcontrolset\\control\\ccg\\comclasses'
CONTAINER_INHERIT = acls.CONTAINER_INHERIT


def _default_security(node, key):
    lowered = key.lower()
    if lowered == CCG_COMCLASSES:
        return {'owner': TRUSTED_INSTALLER, 'rules': [[TRUSTED_INSTALLER, FULL_CONTROL, CONTAINER_INHERIT, 0, 0],
                                                      [SYSTEM, READ_KEY, CONTAINER_INHERIT, 0, 0],
                                                      [ADMINISTRATORS, READ_KEY, CONTAINER_INHERIT, 0, 0],
                                                      [USERS, READ_KEY, CONTAINER_INHERIT, 0, 0]]}
    if '\\' in lowered and lowered.startswith(CCG_COMCLASSES + '\\'):
        parent = security(node, lowered.rsplit('\\', 1)[0])
        return {'owner': ADMINISTRATORS, 'rules': [[sid, mask, inheritance, propagation, kind]
                                                   for sid, mask, inheritance, propagation, kind in parent['rules']
                                                   if inheritance & CONTAINER_INHERIT]}
    return {'owner': ADMINISTRATORS, 'rules': [[SYSTEM, FULL_CONTROL, CONTAINER_INHERIT, 0, 0],
                                               [ADMINISTRATORS, FULL_CONTROL, CONTAINER_INHERIT, 0, 0],
                                               [USERS, READ_KEY, CONTAINER_INHERIT, 0, 0]]}


def security(node, key):
    """{'owner', 'rules'} of a key."""
    stored = (node.data.get('registry_security') or {}).get(key.lower())
    return stored if stored is not None else _default_security(node, key)


def granted(node, key, wanted, privileges):
    """The rights of ``wanted`` the token gets on the key (its DACL, the owner's implicit rights, the privileges)."""
    found = security(node, key)
    allowed = denied = 0
    for sid, mask, _inheritance, propagation, kind in found['rules']:
        if sid in TOKEN_GROUPS and not propagation & acls.INHERIT_ONLY:
            if kind == 1:
                denied |= mask
            else:
                allowed |= mask & ~denied
    if found['owner'] in TOKEN_GROUPS:
        allowed |= READ_CONTROL | WRITE_DAC
    if 'SeTakeOwnershipPrivilege' in privileges:
        allowed |= WRITE_OWNER
    return wanted & allowed


def may_create_subkey(node, parent, privileges=()):
    """Whether the token may create a subkey of ``parent`` (KEY_CREATE_SUB_KEY)."""
    return granted(node, parent, CREATE_SUB_KEY, privileges) == CREATE_SUB_KEY


def may_set_value(node, key, privileges=()):
    return granted(node, key, SET_VALUE, privileges) == SET_VALUE


def _denied():
    return PSError('Requested registry access is not allowed.', 'System.Security.SecurityException')


def _unauthorized(message='Attempted to perform an unauthorized operation.'):
    return PSError(message, 'System.UnauthorizedAccessException')


def privileges(host):
    """The enabled privileges of the process token the host's scripts run in."""
    if not hasattr(host, 'enabled_privileges'):
        host.enabled_privileges = set(ENABLED_BY_DEFAULT)
    return host.enabled_privileges


class RegistryAccessRule:
    """System.Security.AccessControl.RegistryAccessRule."""

    NET = 'System.Security.AccessControl.RegistryAccessRule'
    PROPERTIES = ('RegistryRights', 'AccessControlType', 'IdentityReference', 'IsInherited', 'InheritanceFlags',
                  'PropagationFlags')

    def __init__(self, identity, rights, *rest):
        if len(rest) == 1:
            inheritance, propagation, control = 0, 0, rest[0]
        elif len(rest) == 3:
            inheritance, propagation, control = rest
        else:
            raise Unsupported('RegistryAccessRule with %d arguments' % (2 + len(rest)))
        self.IdentityReference = identity if isinstance(identity, (acls.SecurityIdentifier, acls.NTAccount)) \
            else acls.NTAccount(identity)
        self.RegistryRights = RIGHTS.enum(int(RIGHTS.convert(rights)))
        self.AccessControlType = acls.CONTROL.enum(acls.CONTROL.convert(control).value)
        self.InheritanceFlags = acls.INHERITANCE.enum(int(acls.INHERITANCE.convert(inheritance)))
        self.PropagationFlags = acls.PROPAGATION.enum(int(acls.PROPAGATION.convert(propagation)))
        self.IsInherited = False

    @classmethod
    def from_entry(cls, entry):
        sid, mask, inheritance, propagation, control = entry
        rule = cls.__new__(cls)
        rule.IdentityReference = acls.NTAccount(acls.ACCOUNTS[sid]) if sid in acls.ACCOUNTS else acls.SecurityIdentifier(sid)
        rule.RegistryRights = RIGHTS.enum(mask)
        rule.AccessControlType = acls.CONTROL.enum(control)
        rule.InheritanceFlags = acls.INHERITANCE.enum(inheritance)
        rule.PropagationFlags = acls.PROPAGATION.enum(propagation)
        rule.IsInherited = False
        return rule

    def entry(self):
        return [acls.sid_of(self.IdentityReference), self.RegistryRights.value, self.InheritanceFlags.value,
                self.PropagationFlags.value, self.AccessControlType.value]


class RegistrySecurity(acls.FileSystemSecurity):
    """System.Security.AccessControl.RegistrySecurity of one key, as RegistryKey.GetAccessControl returns it; it knows
    which of its parts a script changed (what SetAccessControl writes)."""

    NET_NAMES = ('System.Security.AccessControl.RegistrySecurity',)
    PROPERTIES = ('Owner', 'Group', 'Access', 'Sddl', 'AccessToString', 'AreAccessRulesProtected')

    def __init__(self, key, found):
        super().__init__(key, True, found['owner'], False, found['rules'], [])
        self.NET = 'System.Security.AccessControl.RegistrySecurity'
        self.owner_modified = self.access_modified = False

    @property
    def Access(self):  # pylint: disable=invalid-name
        return PSArray([RegistryAccessRule.from_entry(rule) for rule in self.explicit],
                       'System.Security.AccessControl.AuthorizationRule')

    def SetOwner(self, identity):  # pylint: disable=invalid-name
        self.owner_modified = True
        return super().SetOwner(identity)

    def AddAccessRule(self, rule):  # pylint: disable=invalid-name
        self.access_modified = True
        return super().AddAccessRule(rule)

    def SetAccessRule(self, rule):  # pylint: disable=invalid-name
        self.access_modified = True
        return super().SetAccessRule(rule)

    def RemoveAccessRule(self, rule):  # pylint: disable=invalid-name
        self.access_modified = True
        return super().RemoveAccessRule(rule)


class NetRegistryKey:
    """Microsoft.Win32.RegistryKey opened through .NET, with the rights it was opened with."""

    NET = 'Microsoft.Win32.RegistryKey'
    PROPERTIES = ('Name',)

    def __init__(self, host, key, rights, writable):
        self._host = host
        self._key = key
        self._rights = rights
        self._writable = writable
        self.Name = HKLM + ('\\' + key if key else '')  # pylint: disable=invalid-name

    def OpenSubKey(self, name, *mode):  # pylint: disable=invalid-name
        rights, writable = READ_KEY, False
        if len(mode) == 1 and isinstance(mode[0], bool):
            rights, writable = (READ_KEY | WRITE_KEY, True) if mode[0] else (READ_KEY, False)
        elif len(mode) == 1 and getattr(mode[0], 'enum', None) is CHECK.enum:
            writable = mode[0].value == 2
            rights = READ_KEY | WRITE_KEY if writable else READ_KEY
        elif len(mode) == 1:
            rights = int(RIGHTS.convert(mode[0]))
        elif len(mode) == 2:
            writable = CHECK.convert(mode[0]).value == 2
            rights = int(RIGHTS.convert(mode[1]))
        elif mode:
            raise Unsupported('RegistryKey.OpenSubKey with %d arguments' % (1 + len(mode)))
        path = '\\'.join(part for part in (self._key, to_string(name).strip('\\')) if part)
        node = self._host.node
        if not key_exists(node, path):
            return None
        if granted(node, path, rights, privileges(self._host)) != rights:
            raise _denied()
        return NetRegistryKey(self._host, path, rights, writable)

    def GetAccessControl(self):  # pylint: disable=invalid-name
        if not self._rights & READ_CONTROL:
            raise _unauthorized()
        return RegistrySecurity(self._key, security(self._host.node, self._key))

    def SetAccessControl(self, registry_security):  # pylint: disable=invalid-name
        if not self._writable:
            raise _unauthorized('Cannot write to the registry key.')
        if not isinstance(registry_security, RegistrySecurity):
            raise Unsupported('RegistryKey.SetAccessControl of a %s' % type(registry_security).__name__)
        node = self._host.node
        stored = dict(security(node, self._key))
        if registry_security.owner_modified:
            if not self._rights & WRITE_OWNER:
                raise _unauthorized()
            if registry_security.owner not in TOKEN_GROUPS and 'SeRestorePrivilege' not in privileges(self._host):
                raise PSError('The security identifier is not allowed to be the owner of this object.',
                              'System.InvalidOperationException')
            stored['owner'] = registry_security.owner
        if registry_security.access_modified:
            if not self._rights & WRITE_DAC:
                raise _unauthorized()
            stored['rules'] = [list(rule) for rule in registry_security.explicit]
        node.data.setdefault('registry_security', {})[self._key.lower()] = stored
        registry_security.owner_modified = registry_security.access_modified = False
        return AUTOMATION_NULL

    def _values(self, names=None):
        """The key's values, to read those ``names`` (None: to enumerate them all)."""
        if not self._rights & QUERY_VALUES:
            raise _unauthorized()
        # A key of which windows/registry.py models one value (Memory Management's PagingFiles, ...), not the others.
        refuse_partial_read(self._key, names)
        values = read_key(self._host.node, self._key)
        if values is None:
            raise PSError('Illegal operation attempted on a registry key that has been marked for deletion.',
                          'System.IO.IOException')
        return values

    def _value(self, name):
        wanted = to_string(name).lower()
        return next((item for key, item in self._values([name]).items() if key.lower() == wanted), None)

    def GetValueNames(self):  # pylint: disable=invalid-name
        return PSArray(list(self._values()), 'System.String')

    def GetValueKind(self, name):  # pylint: disable=invalid-name
        value = self._value(name)
        if value is None:
            raise PSError('The specified registry key does not exist.', 'System.IO.IOException')
        return VALUE_KINDS.enum.parse(KIND_NAMES[value[0]])

    def GetValue(self, name, *rest):  # pylint: disable=invalid-name
        if len(rest) > 2:
            raise Unsupported('RegistryKey.GetValue with %d arguments' % (1 + len(rest)))
        value = self._value(name)
        if value is None:
            return rest[0] if rest else None
        kind, data = value
        if len(rest) == 2 and VALUE_OPTIONS.convert(rest[1]).value & 1 and kind == 'REG_EXPAND_SZ':
            return to_string(data)
        return to_net(self._host.node, kind, data)

    def Close(self):  # pylint: disable=invalid-name
        return AUTOMATION_NULL

    def Dispose(self):  # pylint: disable=invalid-name
        return AUTOMATION_NULL

    def to_string(self):
        return self.Name


def _local_machine(host):
    def local_machine():
        return NetRegistryKey(host, '', READ_KEY, False)
    local_machine.is_property = True
    return local_machine


def types(host):
    """[Microsoft.Win32.Registry]: LocalMachine, the root of HKLM."""
    return {'microsoft.win32.registry': NetType('Microsoft.Win32.Registry', statics={'LocalMachine': _local_machine(host)})}


register(NetType('System.Security.AccessControl.RegistryAccessRule',
                 test=lambda value: isinstance(value, RegistryAccessRule), constructor=RegistryAccessRule))
register(NetType('System.Security.AccessControl.RegistrySecurity',
                 test=lambda value: isinstance(value, RegistrySecurity)))
CONSTRUCTORS = {'system.security.accesscontrol.registryaccessrule': RegistryAccessRule,
                'security.accesscontrol.registryaccessrule': RegistryAccessRule}

# gmsa_apply.ps1's Add-Type: AdjustTokenPrivileges on the process token, as the scripts' own C# (the text must be the
# script's, whitespace aside).
TOKEN_PRIVILEGE_DEFINITION = r'''
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
'''


def _token_privilege_statics(host):
    def enable(name):
        name = to_string(name)
        # LookupPrivilegeValue fails for a name that is no privilege; AdjustTokenPrivileges assigns only what the
        # token holds.
        if name not in HELD_PRIVILEGES:
            return False
        privileges(host).add(name)
        return True
    return {'Enable': enable}


known_definition(TOKEN_PRIVILEGE_DEFINITION, _token_privilege_statics)


def registry_key_of(path):
    """The key below HKLM of a .reg file's or reg.exe's path (HKEY_LOCAL_MACHINE\\..., HKLM\\...), or None."""
    text = to_string(path).strip()
    for root in ('HKEY_LOCAL_MACHINE', 'HKLM'):
        if text.upper() == root or text.upper().startswith(root + '\\'):
            return text[len(root):].strip('\\')
    return parse_path(text)
