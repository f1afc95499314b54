"""Security descriptors of files and folders: SIDs, account names, access rules, FileSecurity.

.NET API reference (learn.microsoft.com/dotnet/api, .NET Framework 4.8 as Windows PowerShell 5.1 uses it):
- System.Security.Principal.SecurityIdentifier / NTAccount: ``Value``, ``Translate(Type)``; a SID with no
  account raises IdentityNotMappedException "Some or all identity references could not be translated.".
  Names of the well-known SIDs: "Well-known SIDs" (learn.microsoft.com/windows/win32/secauthz/well-known-sids).
- System.Security.AccessControl.FileSystemAccessRule: properties FileSystemRights, AccessControlType,
  IdentityReference, IsInherited, InheritanceFlags, PropagationFlags. Its constructors add Synchronize to the
  rights of an Allow rule and take it from a Deny rule that is not FullControl (the .NET Framework reference
  source, FileSystemAccessRule.AccessMaskFromRights), so ReadAndExecute reads back 'ReadAndExecute, Synchronize'.
- System.Security.AccessControl.FileSecurity / DirectorySecurity (ObjectSecurity): AreAccessRulesProtected,
  SetAccessRuleProtection(isProtected, preserveInheritance) (protecting without preserving drops the
  inherited rules at once, with preserving turns them into explicit ones), AddAccessRule (merges the rights
  into an explicit rule of the same identity, type and flags), RemoveAccessRule (takes those rights away,
  returns whether a rule matched), RemoveAccessRuleAll, SetAccessRule, PurgeAccessRules, GetOwner, SetOwner.
  Get-Acl adds Path, Owner (the account name), Group, Access, AccessToString and Sddl (Get-Acl reference, 5.1).

A node keeps, per item, the owner SID, whether the DACL is protected and its explicit rules; the inherited
rules are derived from the parent folders' inheritable rules as Windows propagates them (``inherited_rules``).
"""

from ..pwsh.types import NetType, register, resolve
from ..pwsh.values import AUTOMATION_NULL, PSArray, PSError, to_string

RIGHTS = resolve('System.Security.AccessControl.FileSystemRights')
INHERITANCE = resolve('System.Security.AccessControl.InheritanceFlags')
PROPAGATION = resolve('System.Security.AccessControl.PropagationFlags')
CONTROL = resolve('System.Security.AccessControl.AccessControlType')
SYNCHRONIZE = 0x100000
FULL_CONTROL = 0x1F01FF
CONTAINER_INHERIT, OBJECT_INHERIT = 1, 2
NO_PROPAGATE, INHERIT_ONLY = 1, 2
CREATOR_OWNER = 'S-1-3-0'

ACCOUNTS = {
    'S-1-1-0': 'Everyone',
    'S-1-3-0': 'CREATOR OWNER',
    'S-1-5-11': 'NT AUTHORITY\\Authenticated Users',
    'S-1-5-18': 'NT AUTHORITY\\SYSTEM',
    'S-1-5-19': 'NT AUTHORITY\\LOCAL SERVICE',
    'S-1-5-20': 'NT AUTHORITY\\NETWORK SERVICE',
    'S-1-5-32-544': 'BUILTIN\\Administrators',
    'S-1-5-32-545': 'BUILTIN\\Users',
    'S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464': 'NT SERVICE\\TrustedInstaller',
}
_SIDS = {name.lower(): sid for sid, name in ACCOUNTS.items()}
_SIDS.update({name.rsplit('\\', maxsplit=1)[-1].lower(): sid for sid, name in ACCOUNTS.items()})


def _not_mapped():
    return PSError('Some or all identity references could not be translated.',
                   'System.Security.Principal.IdentityNotMappedException')


class SecurityIdentifier:
    """A SID ('S-1-5-18'); Translate([NTAccount]) names its account."""

    NET = 'System.Security.Principal.SecurityIdentifier'
    PROPERTIES = ('BinaryLength', 'AccountDomainSid', 'Value')

    def __init__(self, value, *rest):
        text = to_string(value)
        if not text.upper().startswith('S-1-') or rest:
            raise PSError('Value was invalid.\r\nParameter name: sddlForm', 'System.ArgumentException')
        self.Value = text.upper()
        self.AccountDomainSid = None
        self.BinaryLength = 8 + 4 * (len(self.Value.split('-')) - 3)

    def Translate(self, target):  # pylint: disable=invalid-name
        if target.name.endswith('SecurityIdentifier'):
            return self
        if self.Value not in ACCOUNTS:
            raise _not_mapped()
        return NTAccount(ACCOUNTS[self.Value])

    def to_string(self):
        return self.Value

    def __eq__(self, other):
        return isinstance(other, SecurityIdentifier) and other.Value == self.Value

    def __hash__(self):
        return hash(self.Value)


class NTAccount:
    """An account name ('BUILTIN\\Users'); Translate([SecurityIdentifier]) gives its SID."""

    NET = 'System.Security.Principal.NTAccount'
    PROPERTIES = ('Value',)

    def __init__(self, name, *rest):
        self.Value = to_string(name) if not rest else '%s\\%s' % (to_string(name), to_string(rest[0]))

    def Translate(self, target):  # pylint: disable=invalid-name
        if target.name.endswith('NTAccount'):
            return self
        sid = _SIDS.get(self.Value.lower())
        if sid is None:
            raise _not_mapped()
        return SecurityIdentifier(sid)

    def to_string(self):
        return self.Value

    def __eq__(self, other):
        return isinstance(other, NTAccount) and other.Value.lower() == self.Value.lower()

    def __hash__(self):
        return hash(self.Value.lower())


def sid_of(identity):
    """The SID string of an IdentityReference or of an account name/SID string."""
    if isinstance(identity, SecurityIdentifier):
        return identity.Value
    if isinstance(identity, NTAccount):
        return identity.Translate(resolve('System.Security.Principal.SecurityIdentifier')).Value
    text = to_string(identity)
    if text.upper().startswith('S-1-'):
        return text.upper()
    return NTAccount(text).Translate(resolve('System.Security.Principal.SecurityIdentifier')).Value


def access_mask(rights, control):
    """FileSystemAccessRule.AccessMaskFromRights: Allow gains Synchronize, Deny (but FullControl) loses it."""
    mask = int(rights)
    if mask < 0 or mask > FULL_CONTROL:
        raise PSError('Specified argument was out of the range of valid values.\r\nParameter name: fileSystemRights',
                      'System.ArgumentOutOfRangeException')
    if control == 0:
        return mask | SYNCHRONIZE
    if mask != FULL_CONTROL and mask != FULL_CONTROL & ~(0x40 | 0x10000 | SYNCHRONIZE):
        return mask & ~SYNCHRONIZE
    return mask


class FileSystemAccessRule:
    """An access rule of a file or folder (New-Object, or read back from Get-Acl's Access)."""

    NET = 'System.Security.AccessControl.FileSystemAccessRule'
    PROPERTIES = ('FileSystemRights', 'AccessControlType', 'IdentityReference', 'IsInherited', 'InheritanceFlags',
                  'PropagationFlags')

    def __init__(self, identity, rights, *rest):
        if len(rest) == 1:
            inheritance, propagation, control = 0, 0, rest[0]
        elif len(rest) == 3:
            inheritance, propagation, control = rest
        else:
            raise PSError('Cannot find an overload for "FileSystemAccessRule" and the argument count: "%d".'
                          % (2 + len(rest)), 'System.Management.Automation.MethodException')
        control = CONTROL.convert(control).value
        if isinstance(identity, (SecurityIdentifier, NTAccount)):
            self.IdentityReference = identity
        else:
            self.IdentityReference = NTAccount(identity)
        self.FileSystemRights = RIGHTS.enum(access_mask(RIGHTS.convert(rights), control))
        self.AccessControlType = CONTROL.enum(control)
        self.InheritanceFlags = INHERITANCE.enum(int(INHERITANCE.convert(inheritance)))
        self.PropagationFlags = PROPAGATION.enum(int(PROPAGATION.convert(propagation)))
        self.IsInherited = False

    @classmethod
    def from_entry(cls, entry, inherited):
        """A rule as Get-Acl reads it back (identity as an account name, rights as stored)."""
        sid, mask, inheritance, propagation, control = entry
        rule = cls.__new__(cls)
        rule.IdentityReference = NTAccount(ACCOUNTS[sid]) if sid in ACCOUNTS else SecurityIdentifier(sid)
        rule.FileSystemRights = RIGHTS.enum(mask)
        rule.AccessControlType = CONTROL.enum(control)
        rule.InheritanceFlags = INHERITANCE.enum(inheritance)
        rule.PropagationFlags = PROPAGATION.enum(propagation)
        rule.IsInherited = inherited
        return rule

    def entry(self):
        return [sid_of(self.IdentityReference), self.FileSystemRights.value, self.InheritanceFlags.value,
                self.PropagationFlags.value, self.AccessControlType.value]


def inherited_rules(parent_rules, container, owner):
    """The rules a new child inherits from its parent's (explicit and inherited) rules, as Windows propagates
    them: ContainerInherit reaches folders, ObjectInherit files (and folders as inherit-only, to pass it on),
    NoPropagateInherit stops after one level, CREATOR OWNER becomes the child's owner."""
    out = []
    for sid, mask, inheritance, propagation, control in parent_rules:
        if propagation & NO_PROPAGATE:
            reach = (container and inheritance & CONTAINER_INHERIT) or (not container and inheritance & OBJECT_INHERIT)
            if reach:
                out.append([owner if sid == CREATOR_OWNER else sid, mask, 0, 0, control])
            continue
        if not container:
            if inheritance & OBJECT_INHERIT:
                out.append([owner if sid == CREATOR_OWNER else sid, mask, 0, 0, control])
            continue
        if inheritance & CONTAINER_INHERIT:
            if sid == CREATOR_OWNER:
                out.append([owner, mask, 0, 0, control])
                out.append([sid, mask, inheritance, INHERIT_ONLY, control])
            else:
                out.append([sid, mask, inheritance, propagation & ~INHERIT_ONLY, control])
        elif inheritance & OBJECT_INHERIT:
            out.append([sid, mask, inheritance, INHERIT_ONLY, control])
    return out


class FileSystemSecurity:
    """FileSecurity or DirectorySecurity of one item, as Get-Acl returns it."""

    NET_NAMES = ('System.Security.AccessControl.FileSecurity', 'System.Security.AccessControl.DirectorySecurity')

    def __init__(self, path, container, owner, protected, explicit, inherited):
        self.NET = 'System.Security.AccessControl.%s' % ('DirectorySecurity' if container else 'FileSecurity')
        self.container = container
        self.path = path
        self.owner = owner
        self.protected = protected
        self.explicit = [list(rule) for rule in explicit]
        self.inherited = [list(rule) for rule in inherited]

    PROPERTIES = ('Path', 'Owner', 'Group', 'Access', 'Sddl', 'AccessToString', 'AreAccessRulesProtected')

    @property
    def Path(self):  # pylint: disable=invalid-name
        return 'Microsoft.PowerShell.Core\\FileSystem::' + self.path

    @property
    def Owner(self):  # pylint: disable=invalid-name
        return ACCOUNTS.get(self.owner, self.owner)

    @property
    def Group(self):  # pylint: disable=invalid-name
        return ACCOUNTS.get('S-1-5-18')

    @property
    def Access(self):  # pylint: disable=invalid-name
        rules = [FileSystemAccessRule.from_entry(rule, False) for rule in self.explicit]
        rules += [FileSystemAccessRule.from_entry(rule, True) for rule in self.inherited]
        return PSArray(rules, 'System.Security.AccessControl.AuthorizationRule')

    @property
    def AccessToString(self):  # pylint: disable=invalid-name
        return '\n'.join('%s %s  %s' % (to_string(rule.IdentityReference), to_string(rule.AccessControlType),
                                        to_string(rule.FileSystemRights)) for rule in self.Access)

    @property
    def Sddl(self):  # pylint: disable=invalid-name
        return 'O:%s' % self.owner

    @property
    def AreAccessRulesProtected(self):  # pylint: disable=invalid-name
        return self.protected

    def SetAccessRuleProtection(self, is_protected, preserve):  # pylint: disable=invalid-name
        if is_protected and not self.protected:
            if preserve:
                self.explicit += [rule for rule in self.inherited if rule not in self.explicit]
            self.inherited = []
        self.protected = bool(is_protected)
        return AUTOMATION_NULL

    def _same(self, entry, rule):
        return entry[0] == rule[0] and entry[2:] == rule[2:]

    def AddAccessRule(self, rule):  # pylint: disable=invalid-name
        new = rule.entry()
        for entry in self.explicit:
            if self._same(entry, new):
                entry[1] |= new[1]
                return AUTOMATION_NULL
        # Canonical order: explicit Deny before explicit Allow.
        index = len(self.explicit) if new[4] == 0 else sum(1 for entry in self.explicit if entry[4] == 1)
        self.explicit.insert(index, new)
        return AUTOMATION_NULL

    def SetAccessRule(self, rule):  # pylint: disable=invalid-name
        new = rule.entry()
        self.explicit = [entry for entry in self.explicit if not (entry[0] == new[0] and entry[4] == new[4])]
        return self.AddAccessRule(rule)

    def RemoveAccessRule(self, rule):  # pylint: disable=invalid-name
        old = rule.entry()
        found = False
        for entry in list(self.explicit):
            if self._same(entry, old) and entry[1] & old[1]:
                found = True
                entry[1] &= ~old[1]
                if not entry[1]:
                    self.explicit.remove(entry)
        return found

    def RemoveAccessRuleAll(self, rule):  # pylint: disable=invalid-name
        old = rule.entry()
        self.explicit = [entry for entry in self.explicit if not (entry[0] == old[0] and entry[4] == old[4])]
        return AUTOMATION_NULL

    def PurgeAccessRules(self, identity):  # pylint: disable=invalid-name
        sid = sid_of(identity)
        self.explicit = [entry for entry in self.explicit if entry[0] != sid]
        return AUTOMATION_NULL

    def GetOwner(self, target):  # pylint: disable=invalid-name
        return SecurityIdentifier(self.owner).Translate(target)

    def SetOwner(self, identity):  # pylint: disable=invalid-name
        self.owner = sid_of(identity)
        return AUTOMATION_NULL

    def to_string(self):
        return self.NET


def _type(name, cls):
    register(NetType(name, test=lambda value: isinstance(value, cls), constructor=cls))


_type('System.Security.Principal.SecurityIdentifier', SecurityIdentifier)
_type('System.Security.Principal.NTAccount', NTAccount)
_type('System.Security.AccessControl.FileSystemAccessRule', FileSystemAccessRule)
register(NetType('System.Security.AccessControl.FileSecurity',
                 test=lambda value: isinstance(value, FileSystemSecurity) and not value.container))
register(NetType('System.Security.AccessControl.DirectorySecurity',
                 test=lambda value: isinstance(value, FileSystemSecurity) and value.container))

CONSTRUCTORS = {
    'system.security.principal.securityidentifier': SecurityIdentifier,
    'security.principal.securityidentifier': SecurityIdentifier,
    'system.security.principal.ntaccount': NTAccount,
    'security.principal.ntaccount': NTAccount,
    'system.security.accesscontrol.filesystemaccessrule': FileSystemAccessRule,
    'security.accesscontrol.filesystemaccessrule': FileSystemAccessRule,
}
