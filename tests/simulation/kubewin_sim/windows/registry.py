"""The registry as the Registry provider shows HKEY_LOCAL_MACHINE, over the node model.

The keys scripts read are views of the node's state, so the registry and the other views of that
state (the service control manager, Get-CimInstance, [Environment]) always agree:

- ``SYSTEM\\CurrentControlSet\\Services\\<name>``: a service of ``node.data['services']`` (values as the
  service control manager writes them: Type, Start, ErrorControl, ImagePath, DisplayName, ObjectName,
  Description, DependOnService, Environment, DelayedAutostart, FailureActions) and nssm's ``Parameters``
  subkey (Application, AppParameters, AppDirectory, AppStdout, AppStderr, AppRotateBytes). Sources: "Service
  registry keys" / CurrentControlSet\\Services (Windows driver and service documentation), the
  SERVICE_FAILURE_ACTIONS structure (winsvc.h; the SCM keeps it in the self-relative form with 32-bit
  offsets: reset period, reboot message and command offsets, action count, actions offset, then
  SC_ACTION type/delay pairs), and nssm's documentation (nssm.cc, "Parameters" registry values).
- ``SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion``: ``node.data['os']`` (CurrentBuildNumber and
  CurrentBuild are REG_SZ, UBR a REG_DWORD, ProductName, EditionID, DisplayVersion, ReleaseId,
  InstallationType REG_SZ).
- ``...\\Component Based Servicing\\RebootPending`` and ``...\\WindowsUpdate\\Auto Update\\RebootRequired``
  exist while ``node.data['reboot_pending']``.
- ``SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment``: the machine environment variables
  (``node.data['environment']``), where [Environment]::SetEnvironmentVariable(..., 'Machine') writes them.
- ``SYSTEM\\CurrentControlSet\\Control\\Session Manager``'s ``PendingFileRenameOperations`` (REG_MULTI_SZ), while
  ``node.data['pending_file_renames']`` holds renames: MoveFileEx with MOVEFILE_DELAY_UNTIL_REBOOT (Win32
  "MoveFileExW function") stores each as the pair source, destination (an empty destination deletes the source),
  each path with the \\??\\ prefix, and the session manager carries them out at the next boot, then removes the value.
  A file in use that an installer replaces (Windows Installer's "Files-in-use" handling, msiexec's 3010) is one.
  The key's other values are not modelled: reading them is an engine gap.
- ``SYSTEM\\CurrentControlSet\\Control``'s ``PreshutdownOrder`` (REG_MULTI_SZ): the services the service control
  manager sends SERVICE_CONTROL_PRESHUTDOWN in that order at shutdown ("Service Control Handler Function", Win32
  services reference: "create a multistring registry value that contains the service names in the order in which they
  should be shut down and assign it to the Control key's PreshutdownOrder value"), ``preshutdown_order`` below. The
  key's other values (WaitToKillServiceTimeout, ...) are not modelled: reading or writing them is an engine gap.
- A service's ``PreshutdownTimeout`` (REG_DWORD, milliseconds): where the SCM keeps what
  ChangeServiceConfig2(SERVICE_CONFIG_PRESHUTDOWN_INFO) sets (the service key's value that ``reg add ... /v
  PreshutdownTimeout /t REG_DWORD`` also sets); without it QueryServiceConfig2 answers the default of
  SERVICE_PRESHUTDOWN_INFO (windows/services.py ``query_preshutdown_timeout``).
- ``...\\Session Manager\\Memory Management``'s ``PagingFiles`` (REG_MULTI_SZ): the page files Windows creates at
  the next boot, one string per file, "<path> <initial MB> <maximum MB>" ("<path> 0 0": a size Windows manages on that
  drive, as Win32_PageFileSetting's InitialSize and MaximumSize 0 say, community.windows win_pagefile's notes), and
  "?:\\pagefile.sys" alone when Windows manages every page file (Win32_ComputerSystem.AutomaticManagedPagefile).
  Sources: the value's forms, Microsoft's "Advanced troubleshooting for Windows-based computer freeze issues"
  (MicrosoftDocs windows-itpro-docs, its memory dump steps: "?:\\pagefile.sys" when system managed, the initial and
  maximum sizes when customized); that the page files are created from it at startup, so that a change waits for the
  next boot, Win32_PageFileSetting (MicrosoftDocs/win32 desktop-src/CIMWin32Prov/win32-pagefilesetting.md: InitialSize
  and MaximumSize map to PagingFiles, "the page file parameters used when the file is created at system startup",
  "deferred until startup"). ``node.data['paging_files']`` holds it (absent: "?:\\pagefile.sys", as Windows Setup
  leaves a server), windows/boot.py puts it in force (``node.data['paging_files_in_force']``), and
  Win32_OperatingSystem (windows/system.py) reports the page files in force. It is the key's only modelled value (an
  enumeration lists only it): writing another, or PagingFiles as another kind, is an engine gap, and so is removing it.
- Any other key a script creates lives in ``node.data['registry']``.

How the provider converts value kinds (about_Registry_Provider / Get-ItemProperty, New-ItemProperty
-PropertyType in MicrosoftDocs/PowerShell-Docs reference/5.1; Microsoft.Win32.RegistryKey.GetValue):
REG_SZ -> String, REG_EXPAND_SZ -> String with %variables% expanded, REG_DWORD -> Int32, REG_QWORD ->
Int64, REG_MULTI_SZ -> String[], REG_BINARY -> Byte[].
"""

import ntpath
import re
import struct

from ..pwsh.values import Byte, Int64, PSArray, PSError, enumerate_value, is_enumerable, is_null, to_string

HKLM = 'HKEY_LOCAL_MACHINE'
CONTROL = 'system\\currentcontrolset\\control'
PRESHUTDOWN_ORDER = 'PreshutdownOrder'
# PreshutdownOrder as a Windows Server (2019 and later, like Windows 10) has it before anything adds to it: the Device
# Install, Update Orchestrator, Group Policy Client and Windows Modules Installer services, as a registry listing of
# the Control key shows it. Microsoft does not document the default entries; what the model relies on is that the
# value exists: the kubelet, which reads it before it adds itself, fails its shutdown manager without it
# (kubernetes/kubernetes pkg/kubelet/nodeshutdown/nodeshutdown_manager_windows.go, GetStringsValue), and its e2e test
# of the feature (test/e2e/windows/node_shutdown.go) passes on stock Windows Server images.
DEFAULT_PRESHUTDOWN_ORDER = ('DeviceInstall', 'UsoSvc', 'gpsvc', 'trustedinstaller')
SERVICES = 'system\\currentcontrolset\\services'
CURRENT_VERSION = 'software\\microsoft\\windows nt\\currentversion'
SESSION_ENVIRONMENT = 'system\\currentcontrolset\\control\\session manager\\environment'
SESSION_MANAGER = 'system\\currentcontrolset\\control\\session manager'
MEMORY_MANAGEMENT = SESSION_MANAGER + '\\memory management'
PAGING_FILES = 'PagingFiles'
# Windows manages the size of every page file (Windows Setup's setting).
AUTOMATIC_PAGING_FILES = ('?:\\pagefile.sys',)
PENDING_RENAMES = 'PendingFileRenameOperations'
REBOOT_KEYS = ('software\\microsoft\\windows\\currentversion\\component based servicing\\rebootpending',
               'software\\microsoft\\windows\\currentversion\\windowsupdate\\auto update\\rebootrequired')
# Keys of which Windows holds values the model does not: the model holds the one named here. A read of another value,
# or of all of them (an enumeration would list only that one), is an engine gap (refuse_partial_read).
PARTIAL_KEYS = {SESSION_MANAGER: PENDING_RENAMES, CONTROL: PRESHUTDOWN_ORDER, MEMORY_MANAGEMENT: PAGING_FILES}


def refuse_partial_read(key, names=None):
    """Unsupported when ``key`` is one of PARTIAL_KEYS and ``names`` (None: every value) is not its modelled value."""
    only = PARTIAL_KEYS.get(key.lower())
    if only and (names is None or any(to_string(name).lower() != only.lower() for name in names)):
        from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
        raise Unsupported('reading values of %s other than %s' % (provider_path(key), only))


# Keys every Windows Server has on the way to the keys above.
_KNOWN = (SERVICES, CURRENT_VERSION, SESSION_ENVIRONMENT, MEMORY_MANAGEMENT,
          'software\\microsoft\\windows\\currentversion\\uninstall',
          'software\\wow6432node\\microsoft\\windows\\currentversion\\uninstall',
          'software\\microsoft\\windows\\currentversion\\component based servicing',
          'software\\microsoft\\windows\\currentversion\\windowsupdate\\auto update')

# Start values (CurrentControlSet\Services: SERVICE_BOOT_START 0 ... SERVICE_DISABLED 4).
START_VALUES = {'boot': 0, 'system': 1, 'auto': 2, 'delayed': 2, 'manual': 3, 'disabled': 4}
START_MODES = {0: 'boot', 1: 'system', 2: 'auto', 3: 'manual', 4: 'disabled'}
ACTION_TYPES = {'none': 0, 'restart': 1, 'reboot': 2, 'run_command': 3}
ACTION_NAMES = {number: name for name, number in ACTION_TYPES.items()}
# nssm's Parameters values and the node model's names for them.
NSSM_VALUES = (('Application', 'application', 'REG_EXPAND_SZ'), ('AppParameters', 'app_parameters', 'REG_EXPAND_SZ'),
               ('AppDirectory', 'app_directory', 'REG_EXPAND_SZ'), ('AppStdout', 'app_stdout', 'REG_EXPAND_SZ'),
               ('AppStderr', 'app_stderr', 'REG_EXPAND_SZ'), ('AppRotateBytes', 'app_rotate_bytes', 'REG_DWORD'))
# New-ItemProperty -PropertyType (Microsoft.Win32.RegistryValueKind names).
PROPERTY_TYPES = {'string': 'REG_SZ', 'expandstring': 'REG_EXPAND_SZ', 'binary': 'REG_BINARY', 'dword': 'REG_DWORD',
                  'multistring': 'REG_MULTI_SZ', 'qword': 'REG_QWORD'}

# Services every Windows Server has (name, display name, type, image path, account), as "System services on Windows
# Server" (learn.microsoft.com, windows-server/security/windows-services, "Guidance on disabling system services on
# Windows Server with Desktop Experience") names them; hns and vmcompute come with the Containers feature. Tcpip is
# a kernel driver (SERVICE_KERNEL_DRIVER, type 1: "Service registry keys"): it has a key but Get-Service does not
# list drivers.
BUILTIN_SERVICES = (
    ('EventLog', 'Windows Event Log', 0x20, '%SystemRoot%\\System32\\svchost.exe -k LocalServiceNetworkRestricted -p',
     'NT AUTHORITY\\LocalService'),
    ('LanmanServer', 'Server', 0x20, '%SystemRoot%\\system32\\svchost.exe -k netsvcs -p', 'LocalSystem'),
    ('WinRM', 'Windows Remote Management (WS-Management)', 0x20,
     '%SystemRoot%\\System32\\svchost.exe -k NetworkService -p', 'NT AUTHORITY\\NetworkService'),
    ('Tcpip', 'TCP/IP Protocol Driver', 0x1, 'System32\\drivers\\tcpip.sys', ''))
CONTAINER_SERVICES = (
    ('hns', 'Host Network Service', 0x20, '%SystemRoot%\\system32\\svchost.exe -k NetSvcs -p', 'LocalSystem'),
    ('vmcompute', 'Hyper-V Host Compute Service', 0x10, '%SystemRoot%\\system32\\vmcompute.exe', 'LocalSystem'))
# The Remote Access role registers the service "Routing and Remote Access" (RemoteAccess), the one Calico's node
# container restarts for BGP (projectcalico/calico node/windows-packaging/CalicoWindows/node/node-service.ps1,
# "Restart-Service RemoteAccess") and its troubleshooting page checks with Get-Service (tigera/docs
# windows-calico/troubleshoot.mdx); it runs in a shared svchost (netsvcs) as LocalSystem.
REMOTE_ACCESS_SERVICES = (
    ('RemoteAccess', 'Routing and Remote Access', 0x20, '%SystemRoot%\\system32\\svchost.exe -k netsvcs', 'LocalSystem'),)
# HNS keeps its settings in the State subkey of its service key, which is there while HNS is (the Containers feature):
# Azure/AgentBaker's Windows VHD build sets its fixes there with Set-ItemProperty, which creates no key, and
# kubernetes.io "Configure GMSA" adds EnableCompartmentNamespace there. Its values are the node's own (``registry``).
HNS_STATE = SERVICES + '\\hns\\state'
# The values of it scripts write: kubernetes.io "Configure GMSA", hostname or FQDN (REG_DWORD 1).
HNS_STATE_VALUES = ('EnableCompartmentNamespace',)
# Container Credential Guard's plugin registrations (learn.microsoft.com, ICcgDomainAuthCredentials): there with the
# Containers feature, which brings CCG; its subkeys are the node's (``registry``), its owner and rules
# windows/registry_security.py's.
CCG_COMCLASSES = 'system\\currentcontrolset\\control\\ccg\\comclasses'


class RegistryError(Exception):
    """A provider failure: the PSError to write."""

    def __init__(self, error):
        super().__init__(error.message)
        self.error = error


def builtin_services(node):
    """The built-in services present on the node: lower-case name -> (name, display name, service type,
    image path, account)."""
    present = list(BUILTIN_SERVICES)
    if node.data['features'].get('Containers') == 'installed':
        present.extend(CONTAINER_SERVICES)
    if node.data['features'].get('RemoteAccess') == 'installed':
        present.extend(REMOTE_ACCESS_SERVICES)
    return {entry[0].lower(): entry for entry in present}


# -- paths ------------------------------------------------------------------------------------------

def parse_path(path):
    """The key below HKLM (lower-case parts joined by \\) of a provider path, or None when not a registry path."""
    text = to_string(path).strip().replace('/', '\\')
    lowered = text.lower()
    for prefix in ('microsoft.powershell.core\\registry::', 'registry::'):
        if lowered.startswith(prefix):
            text = text[len(prefix):]
            lowered = lowered[len(prefix):]
    for root in ('hklm:', 'hkey_local_machine'):
        if lowered.startswith(root):
            rest = text[len(root):].strip('\\')
            return '\\'.join(part for part in rest.split('\\') if part)
    return None


def is_registry_path(path):
    return parse_path(path) is not None


def provider_path(key):
    """The key as the provider names it (HKEY_LOCAL_MACHINE\\...)."""
    return HKLM + ('\\' + key if key else '')


# -- service values ---------------------------------------------------------------------------------

def failure_actions_blob(recovery):
    """The FailureActions REG_BINARY the SCM keeps for ChangeServiceConfig2(SERVICE_CONFIG_FAILURE_ACTIONS)."""
    actions = recovery.get('actions') or []
    header = struct.pack('<IIIII', int(recovery.get('reset_period_seconds') or 0), 0, 0, len(actions),
                         20 if actions else 0)
    return header + b''.join(struct.pack('<II', ACTION_TYPES[action['type']], int(action['delay_ms']))
                             for action in actions)


def recovery_of_blob(data):
    data = bytes(data)
    if len(data) < 20:
        return None
    reset, _reboot_msg, _command, count, _actions = struct.unpack_from('<IIIII', data, 0)
    actions = []
    for index in range(count):
        if 20 + 8 * index + 8 > len(data):
            break
        kind, delay = struct.unpack_from('<II', data, 20 + 8 * index)
        actions.append({'type': ACTION_NAMES.get(kind, 'none'), 'delay_ms': delay})
    return {'reset_period_seconds': reset, 'actions': actions}


def _service_values(node, service):
    values = {'Type': ('REG_DWORD', 0x10), 'Start': ('REG_DWORD', START_VALUES.get(service.get('start_mode'), 3)),
              'ErrorControl': ('REG_DWORD', 1), 'ImagePath': ('REG_EXPAND_SZ', service.get('command_line') or ''),
              'DisplayName': ('REG_SZ', service.get('display_name') or service['name']),
              'ObjectName': ('REG_SZ', service.get('account') or 'LocalSystem')}
    if service.get('description') is not None:
        values['Description'] = ('REG_SZ', service['description'])
    if service.get('dependencies'):
        values['DependOnService'] = ('REG_MULTI_SZ', list(service['dependencies']))
    if service.get('environment'):
        values['Environment'] = ('REG_MULTI_SZ', list(service['environment']))
    if service.get('start_mode') == 'delayed':
        values['DelayedAutostart'] = ('REG_DWORD', 1)
    recovery = service.get('recovery')
    if recovery and recovery.get('actions'):
        values['FailureActions'] = ('REG_BINARY', list(failure_actions_blob(recovery)))
    if service.get('preshutdown_timeout_ms') is not None:
        values['PreshutdownTimeout'] = ('REG_DWORD', int(service['preshutdown_timeout_ms']))
    for name, (kind, value) in (service.get('registry_values') or {}).items():
        values[name] = (kind, value)
    return values


def preshutdown_order(node):
    """The Control key's PreshutdownOrder (a list of service names), or None where the value does not exist."""
    order = node.data.get('preshutdown_order', list(DEFAULT_PRESHUTDOWN_ORDER))
    return None if order is None else list(order)


def set_preshutdown_order(node, names):
    """Write PreshutdownOrder (RegSetValueEx with REG_MULTI_SZ); None deletes the value."""
    node.data['preshutdown_order'] = None if names is None else [to_string(name) for name in names]


def _nssm_values(service):
    nssm = service.get('nssm') or {}
    values = {name: (kind, nssm[field]) for name, field, kind in NSSM_VALUES if nssm.get(field) is not None}
    for name, (kind, value) in (service.get('nssm_values') or {}).items():
        values[name] = (kind, value)
    return values


def _set_service_value(node, service, name, kind, value):
    lowered = name.lower()
    if lowered == 'start' and kind == 'REG_DWORD':
        delayed = service.get('start_mode') == 'delayed'
        mode = START_MODES.get(int(value), 'manual')
        service['start_mode'] = 'delayed' if mode == 'auto' and delayed else mode
    elif lowered == 'delayedautostart' and kind == 'REG_DWORD':
        if service.get('start_mode') in ('auto', 'delayed'):
            service['start_mode'] = 'delayed' if int(value) else 'auto'
    elif lowered == 'imagepath' and kind in ('REG_SZ', 'REG_EXPAND_SZ'):
        service['command_line'] = value
    elif lowered == 'displayname' and kind == 'REG_SZ':
        service['display_name'] = value
    elif lowered == 'description' and kind in ('REG_SZ', 'REG_EXPAND_SZ'):
        service['description'] = value
    elif lowered == 'objectname' and kind == 'REG_SZ':
        service['account'] = value
    elif lowered == 'dependonservice' and kind == 'REG_MULTI_SZ':
        service['dependencies'] = list(value)
    elif lowered == 'environment' and kind == 'REG_MULTI_SZ':
        service['environment'] = list(value)
    elif lowered == 'failureactions' and kind == 'REG_BINARY':
        service['recovery'] = recovery_of_blob(value)
    elif lowered == 'preshutdowntimeout' and kind == 'REG_DWORD':
        service['preshutdown_timeout_ms'] = int(value) & 0xFFFFFFFF
    else:
        service.setdefault('registry_values', {})[name] = [kind, value]


def _remove_service_value(service, name):
    lowered = name.lower()
    fields = {'description': ('description', None), 'dependonservice': ('dependencies', []),
              'environment': ('environment', []), 'failureactions': ('recovery', None),
              'preshutdowntimeout': ('preshutdown_timeout_ms', None)}
    if lowered in fields:
        field, empty = fields[lowered]
        service[field] = empty
    elif lowered == 'delayedautostart':
        if service.get('start_mode') == 'delayed':
            service['start_mode'] = 'auto'
    else:
        extra = service.get('registry_values') or {}
        for key in [k for k in extra if k.lower() == lowered]:
            del extra[key]


def _set_nssm_value(service, name, kind, value):
    for value_name, field, _kind in NSSM_VALUES:
        if value_name.lower() == name.lower():
            nssm = service.get('nssm') or {entry[1]: None for entry in NSSM_VALUES}
            nssm[field] = value
            service['nssm'] = nssm
            return
    service.setdefault('nssm_values', {})[name] = [kind, value]


# -- the key tree -----------------------------------------------------------------------------------

def _service(node, name):
    return node.data['services'].get(name.lower())


def _builtin_values(name, display, kind, image_path, account):
    values = {'Type': ('REG_DWORD', kind), 'Start': ('REG_DWORD', 2 if kind != 0x1 else 1), 'ErrorControl': ('REG_DWORD', 1),
              'DisplayName': ('REG_SZ', display), 'ImagePath': ('REG_EXPAND_SZ', image_path)}
    if account:
        values['ObjectName'] = ('REG_SZ', account)
    return values


def _os_values(node):
    os_state = node.data['os']
    build = str(os_state['build'])
    values = {'CurrentBuildNumber': ('REG_SZ', build), 'CurrentBuild': ('REG_SZ', build),
              'CurrentMajorVersionNumber': ('REG_DWORD', 10), 'CurrentMinorVersionNumber': ('REG_DWORD', 0),
              'CurrentVersion': ('REG_SZ', '6.3'), 'UBR': ('REG_DWORD', int(os_state['ubr'])),
              'ProductName': ('REG_SZ', os_state['product_name']), 'EditionID': ('REG_SZ', os_state['edition']),
              'InstallationType': ('REG_SZ', os_state['installation_type']),
              'SystemRoot': ('REG_SZ', 'C:\\Windows')}
    display = os_state.get('display_version')
    if display:
        # Windows Server 2019 (1809) has ReleaseId only; DisplayVersion came with 20H2.
        values['ReleaseId'] = ('REG_SZ', display if os_state['build'] < 20348 else '2009')
        if os_state['build'] >= 19042:
            values['DisplayVersion'] = ('REG_SZ', display)
    return values


def read_key(node, key):
    """The values of a key: name -> (kind, value); None when the key does not exist."""
    lowered = key.lower()
    parts = lowered.split('\\')
    prefix = SERVICES.split('\\')
    if parts[:3] == prefix and len(parts) in (4, 5):
        service = _service(node, parts[3])
        if service is not None:
            if len(parts) == 4:
                return _service_values(node, service)
            if parts[4] == 'parameters' and (service.get('nssm') or service.get('nssm_values')
                                             or service.get('parameters_key')):
                return _nssm_values(service)
            return _generic(node, key)
        builtin = builtin_services(node).get(parts[3])
        if builtin is not None and len(parts) == 4:
            return _builtin_values(*builtin)
        if lowered == HNS_STATE and builtin is not None:
            return _generic(node, key) or {}
    if CCG_COMCLASSES.startswith(lowered) and lowered.startswith(SERVICES.rsplit('\\', 1)[0] + '\\control\\ccg') \
            and node.data['features'].get('Containers') == 'installed':
        return _generic(node, key) or {}
    if lowered == CURRENT_VERSION:
        return _os_values(node)
    if lowered in REBOOT_KEYS:
        return {} if node.data.get('reboot_pending') else None
    if lowered == SESSION_ENVIRONMENT:
        return session_environment(node)
    if lowered == CONTROL:
        order = preshutdown_order(node)
        return {} if order is None else {PRESHUTDOWN_ORDER: ('REG_MULTI_SZ', order)}
    if lowered == SESSION_MANAGER:
        renames = node.data.get('pending_file_renames')
        return {PENDING_RENAMES: ('REG_MULTI_SZ', list(renames))} if renames else {}
    if lowered == MEMORY_MANAGEMENT:
        return {PAGING_FILES: ('REG_MULTI_SZ', paging_files(node))}
    from . import msi  # pylint: disable=import-outside-toplevel
    product = msi.uninstall_values(node, key)
    if product is not None:
        return product
    generic = _generic(node, key)
    if generic is not None:
        return generic
    if lowered == '' or any(known == lowered or known.startswith(lowered + '\\') for known in _KNOWN):
        return {}
    return None


def _generic(node, key):
    store = node.data.get('registry') or {}
    entry = store.get(key.lower())
    if entry is not None:
        return {name: tuple(item) for name, item in entry['values'].items()}
    if any(stored.startswith(key.lower() + '\\') for stored in store):
        return {}
    return None


def key_exists(node, key):
    return read_key(node, key) is not None


def create_key(node, key):
    """New-Item on a key (-Force: with its parents)."""
    lowered = key.lower()
    parts = lowered.split('\\')
    if parts[:3] == SERVICES.split('\\') and len(parts) == 5 and parts[4] == 'parameters' \
            and _service(node, parts[3]) is not None:
        _service(node, parts[3])['parameters_key'] = True
        return
    if lowered in REBOOT_KEYS:
        node.data['reboot_pending'] = True
        return
    if read_key(node, key) is None:
        node.data.setdefault('registry', {})[lowered] = {'path': key, 'values': {}}


def _has_subkeys(node, key):
    prefix = key.lower() + '\\'
    return any(stored.startswith(prefix) for stored in node.data.get('registry') or {})


def remove_key(node, key):
    """Delete a key with its values and subkeys. A service's Parameters key takes nssm's settings with it;
    the keys that are views of other state (a service's own key, the OS, the environment) are not removable here."""
    from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
    lowered = key.lower()
    parts = lowered.split('\\')
    store = node.data.get('registry') or {}
    if parts[:3] == SERVICES.split('\\') and len(parts) == 5 and parts[4] == 'parameters' \
            and _service(node, parts[3]) is not None:
        service = _service(node, parts[3])
        service['nssm'] = None
        service.pop('nssm_values', None)
        service.pop('parameters_key', None)
    elif parts[:3] == SERVICES.split('\\') and len(parts) <= 4 or lowered in REBOOT_KEYS \
            or any(known == lowered or known.startswith(lowered + '\\') for known in _KNOWN):
        raise Unsupported('removing %s' % provider_path(key))
    for stored in [stored for stored in store if stored == lowered or stored.startswith(lowered + '\\')]:
        del store[stored]


def _target(node, key):
    """Where a value of ``key`` is written: ('service', svc), ('nssm', svc), ('env',), ('generic', entry)."""
    lowered = key.lower()
    parts = lowered.split('\\')
    if parts[:3] == SERVICES.split('\\') and len(parts) in (4, 5):
        service = _service(node, parts[3])
        if service is not None and len(parts) == 4:
            return ('service', service)
        if service is not None and parts[4] == 'parameters' and key_exists(node, key):
            return ('nssm', service)
    if lowered == SESSION_ENVIRONMENT:
        return ('env', None)
    if lowered == CONTROL:
        return ('control', None)
    if lowered == MEMORY_MANAGEMENT:
        return ('paging', None)
    if lowered in (CURRENT_VERSION, SESSION_MANAGER) or lowered in REBOOT_KEYS or (
            parts[:3] == SERVICES.split('\\') and len(parts) >= 4 and parts[3] in builtin_services(node)
            and lowered != HNS_STATE):
        from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
        raise Unsupported('writing values of %s' % provider_path(key))
    if not key_exists(node, key):
        return None
    store = node.data.setdefault('registry', {})
    entry = store.setdefault(lowered, {'path': key, 'values': {}})
    return ('generic', entry)


def set_value(node, key, name, kind, value):
    """Write a value (already converted to its kind's JSON form); False when the key does not exist."""
    target = _target(node, key)
    if target is None:
        return False
    where, holder = target
    if where == 'service':
        _set_service_value(node, holder, name, kind, value)
    elif where == 'nssm':
        _set_nssm_value(holder, name, kind, value)
    elif where == 'env':
        node.data['environment'][name] = to_string(value)
    elif where == 'control':
        _set_control_value(node, name, kind, value)
    elif where == 'paging':
        if name.lower() != PAGING_FILES.lower() or kind != 'REG_MULTI_SZ':
            from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
            raise Unsupported('writing %s (%s) of %s' % (name, kind, provider_path(key)))
        node.data['paging_files'] = [to_string(item) for item in value]
    else:
        holder['values'][name] = [kind, value]
    return True


def _set_control_value(node, name, kind, value):
    if name.lower() != PRESHUTDOWN_ORDER.lower() or kind != 'REG_MULTI_SZ':
        from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
        raise Unsupported('writing %s (%s) of %s' % (name, kind, provider_path(CONTROL)))
    set_preshutdown_order(node, value)


def remove_value(node, key, name):
    """Delete a value; False when there is no such value."""
    values = read_key(node, key)
    match = [existing for existing in values or {} if existing.lower() == name.lower()]
    if not match:
        return False
    where, holder = _target(node, key)
    if where == 'paging':
        from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
        raise Unsupported('removing %s of %s' % (name, provider_path(key)))
    if where == 'service':
        _remove_service_value(holder, match[0])
    elif where == 'nssm':
        for value_name, field, _kind in NSSM_VALUES:
            if value_name.lower() == name.lower() and holder.get('nssm'):
                holder['nssm'][field] = None
        holder.get('nssm_values', {}).pop(match[0], None)
    elif where == 'env':
        node.data['environment'].pop(match[0], None)
    elif where == 'control':
        set_preshutdown_order(node, None)
    else:
        holder['values'].pop(match[0], None)
    return True


# -- the page files --------------------------------------------------------------------------------------

def paging_files(node):
    """The PagingFiles setting: the page files the next boot opens."""
    setting = node.data.get('paging_files')
    return list(AUTOMATIC_PAGING_FILES if setting is None else setting)


def boot_paging_files(node):
    """At boot the session manager opens the page files PagingFiles names: they are in force until the next boot."""
    node.data['paging_files_in_force'] = paging_files(node)


def paging_files_in_force_mb(node):
    """What the page files in force hold, in MiB: a fixed size is created at its initial size; a size Windows manages
    (on one drive or on all) is the node profile's page_file_mb, what Windows gave the server."""
    from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
    total = 0
    in_force = node.data.get('paging_files_in_force')
    for entry in AUTOMATIC_PAGING_FILES if in_force is None else in_force:
        fields = entry.split()
        if list(fields) == list(AUTOMATIC_PAGING_FILES):
            total += int(node.profile['page_file_mb'])
        elif len(fields) == 3 and fields[1].isdigit() and fields[2].isdigit():
            total += int(fields[1]) or int(node.profile['page_file_mb'])
        else:
            # Another form (a path alone, several entries with "?:") is not one the sources describe.
            raise Unsupported('the PagingFiles entry %r' % entry)
    return total


# -- renames at the next boot ---------------------------------------------------------------------------

def schedule_file_rename(node, source, destination=None):
    """MoveFileEx(source, destination, MOVEFILE_DELAY_UNTIL_REBOOT): the pair goes to PendingFileRenameOperations
    (destination None: delete the source at the next boot)."""
    renames = node.data.setdefault('pending_file_renames', [])
    renames.extend(['\\??\\' + source, '' if destination is None else '\\??\\' + destination])


def complete_file_renames(node):
    """At boot the session manager renames (or deletes) each source, then the value is gone."""
    from . import filesystem  # pylint: disable=import-outside-toplevel
    renames = node.data.pop('pending_file_renames', None) or []
    for source, destination in zip(renames[0::2], renames[1::2]):
        source = source[4:] if source.startswith('\\??\\') else source
        entry = filesystem.lookup(node, source)
        if entry is None:
            continue
        if destination:
            destination = destination[4:] if destination.startswith('\\??\\') else destination
            filesystem.move(node, source, destination, True)
        elif not entry['dir']:
            node.remove_file(entry['path'])


# -- values as the provider returns them ------------------------------------------------------------

# Variables Windows sets for every process that are not in Session Manager\Environment ("Recognized environment
# variables", learn.microsoft.com windows/deployment/usmt/usmt-recognized-environment-variables: SystemRoot,
# SystemDrive, ProgramData/ALLUSERSPROFILE, ProgramFiles, CommonProgramFiles, PUBLIC, COMPUTERNAME).
def system_variables(node):
    return {'SystemRoot': 'C:\\Windows', 'SystemDrive': 'C:', 'ProgramData': 'C:\\ProgramData',
            'ALLUSERSPROFILE': 'C:\\ProgramData', 'ProgramFiles': 'C:\\Program Files',
            'ProgramFiles(x86)': 'C:\\Program Files (x86)', 'CommonProgramFiles': 'C:\\Program Files\\Common Files',
            'PUBLIC': 'C:\\Users\\Public', 'COMPUTERNAME': node.data['hostname']}


# Session Manager\Environment of a fresh Windows Server 2022 (the machine variables every node has), as reg query
# lists the key there; the names are those of "Recognized environment variables" (above).
DEFAULT_MACHINE_VARIABLES = {
    'ComSpec': ('REG_EXPAND_SZ', '%SystemRoot%\\system32\\cmd.exe'),
    'DriverData': ('REG_SZ', 'C:\\Windows\\System32\\Drivers\\DriverData'),
    'NUMBER_OF_PROCESSORS': ('REG_SZ', '4'),
    'OS': ('REG_SZ', 'Windows_NT'),
    'Path': ('REG_EXPAND_SZ', '%SystemRoot%\\system32;%SystemRoot%;%SystemRoot%\\System32\\Wbem;'
                              '%SYSTEMROOT%\\System32\\WindowsPowerShell\\v1.0\\;%SYSTEMROOT%\\System32\\OpenSSH\\'),
    'PATHEXT': ('REG_SZ', '.COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC'),
    'PROCESSOR_ARCHITECTURE': ('REG_SZ', 'AMD64'),
    'PSModulePath': ('REG_EXPAND_SZ', '%ProgramFiles%\\WindowsPowerShell\\Modules;'
                                      '%SystemRoot%\\system32\\WindowsPowerShell\\v1.0\\Modules'),
    'TEMP': ('REG_EXPAND_SZ', '%SystemRoot%\\TEMP'),
    'TMP': ('REG_EXPAND_SZ', '%SystemRoot%\\TEMP'),
    'USERNAME': ('REG_SZ', 'SYSTEM'),
    'windir': ('REG_EXPAND_SZ', '%SystemRoot%'),
}


def session_environment(node):
    """The values of Session Manager\\Environment: the defaults, and the node's machine variables
    (``node.data['environment']``, written as REG_SZ) over them."""
    values = dict(DEFAULT_MACHINE_VARIABLES)
    for name, value in node.data['environment'].items():
        for default in [key for key in values if key.lower() == name.lower()]:
            del values[default]
        values[name] = ('REG_SZ', value)
    return values


def _expand_with(variables, text):
    lowered = {key.lower(): value for key, value in variables.items()}
    return re.sub(r'%([^%]+)%', lambda match: lowered.get(match.group(1).lower(), match.group(0)), text)


def machine_environment(node):
    """The machine-level variables a process on the node starts with, expanded."""
    variables = system_variables(node)
    for name, (kind, value) in session_environment(node).items():
        variables[name] = _expand_with(system_variables(node), value) if kind == 'REG_EXPAND_SZ' else value
    return variables


def machine_variable(node, name):
    """[Environment]::GetEnvironmentVariable(name, 'Machine'): the key's value, expanded (RegistryKey.GetValue)."""
    for key, (kind, value) in session_environment(node).items():
        if key.lower() == name.lower():
            return to_net(node, kind, value)
    return None


def expand(node, text):
    """ExpandEnvironmentStrings with the node's machine variables (an unknown %name% stays as written)."""
    return _expand_with(machine_environment(node), text)


def to_net(node, kind, value):
    """A stored value as RegistryKey.GetValue returns it to PowerShell."""
    if kind == 'REG_DWORD':
        number = int(value) & 0xFFFFFFFF
        return number - 0x100000000 if number > 0x7FFFFFFF else number
    if kind == 'REG_QWORD':
        number = int(value) & 0xFFFFFFFFFFFFFFFF
        return Int64(number - 0x10000000000000000 if number > 0x7FFFFFFFFFFFFFFF else number)
    if kind == 'REG_MULTI_SZ':
        return PSArray([to_string(item) for item in value], 'System.String')
    if kind == 'REG_BINARY':
        return PSArray([Byte(item) for item in value], 'System.Byte')
    if kind == 'REG_EXPAND_SZ':
        return expand(node, to_string(value))
    return to_string(value)


def from_powershell(kind, value):
    """New-ItemProperty -Value converted to -PropertyType's kind (stored in JSON form)."""
    items = list(enumerate_value(value)) if is_enumerable(value) else ([] if is_null(value) else [value])
    if kind == 'REG_MULTI_SZ':
        return [to_string(item) for item in items]
    if kind == 'REG_BINARY':
        return [int(item) & 0xFF for item in items]
    if kind in ('REG_DWORD', 'REG_QWORD'):
        if len(items) != 1:
            raise ValueError('a %s takes one number' % kind)
        item = items[0]
        text = to_string(item).strip()
        number = int(text, 16) if text.lower().startswith('0x') else int(float(text)) if not isinstance(item, int) else item
        return int(number)
    return to_string(value) if not is_null(value) else ''


def child_name(key):
    return ntpath.basename(key) if key else HKLM


# -- the provider cmdlets on registry paths ---------------------------------------------------------
# Get-ItemProperty, New-ItemProperty, Remove-ItemProperty, Test-Path, New-Item, Remove-Item (reference/5.1,
# Microsoft.PowerShell.Management; the registry provider's behaviour per about_Registry_Provider).
# A file system path is the file system model's (another area); here it is not implemented.

class ProviderInfo:
    """What PSProvider shows: System.Management.Automation.ProviderInfo ([string]: its full name)."""

    NET = 'System.Management.Automation.ProviderInfo'
    PROPERTIES = ('Name', 'ModuleName')

    def __init__(self):
        self.Name = 'Registry'  # pylint: disable=invalid-name
        self.ModuleName = 'Microsoft.PowerShell.Core'  # pylint: disable=invalid-name

    def to_string(self):
        return 'Microsoft.PowerShell.Core\\Registry'


class DriveInfo:
    """PSDrive: System.Management.Automation.PSDriveInfo ([string]: the drive name)."""

    NET = 'System.Management.Automation.PSDriveInfo'
    PROPERTIES = ('Name', 'Root')

    def __init__(self):
        self.Name = 'HKLM'  # pylint: disable=invalid-name
        self.Root = HKLM  # pylint: disable=invalid-name

    def to_string(self):
        return 'HKLM'


def _refuse_unmodelled(ctx, params, modelled):
    """A documented parameter the model does not implement is an engine gap (filesystem.refuse_unmodelled)."""
    from . import filesystem  # pylint: disable=import-outside-toplevel
    filesystem.refuse_unmodelled(ctx, params, modelled)


def _not_found(path):
    return PSError("Cannot find path '%s' because it does not exist." % to_string(path),
                   'System.Management.Automation.ItemNotFoundException', 'PathNotFound', 'ObjectNotFound',
                   target=to_string(path))


def _paths(params):
    value = params.get('LiteralPath', params.get('Path'))
    return [to_string(item) for item in (enumerate_value(value) if is_enumerable(value) else [value])]


def _registry_key(path):
    from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
    key = parse_path(path)
    if key is None:
        raise Unsupported('provider path %s (only HKLM: registry paths are modelled in windows/registry.py)' % path)
    return key


def property_object(node, key, values):
    """The PSCustomObject Get-ItemProperty writes: the values, then the PS* properties the provider adds."""
    from ..pwsh.values import PSCustomObject  # pylint: disable=import-outside-toplevel
    item = PSCustomObject()
    for name, (kind, value) in values.items():
        item.props[name] = to_net(node, kind, value)
    parent = key.rsplit('\\', 1)[0] if '\\' in key else ''
    item.props['PSPath'] = 'Microsoft.PowerShell.Core\\Registry::' + provider_path(key)
    item.props['PSParentPath'] = 'Microsoft.PowerShell.Core\\Registry::' + provider_path(parent)
    item.props['PSChildName'] = child_name(_case(node, key))
    item.props['PSDrive'] = DriveInfo()
    item.props['PSProvider'] = ProviderInfo()
    return item


def _case(node, key):
    """The key with the case its last part has on the node (a service key: the service's name)."""
    parts = key.split('\\')
    if len(parts) == 4 and '\\'.join(parts[:3]).lower() == SERVICES:
        service = _service(node, parts[3])
        if service is not None:
            parts[3] = service['name']
    return '\\'.join(parts)


def _names(value):
    return [to_string(item) for item in (enumerate_value(value) if is_enumerable(value) else [value])]


def _wanted(values, params):
    names = params.get('Name')
    if names is None:
        return values
    from ..pwsh import operators as ops  # pylint: disable=import-outside-toplevel
    patterns = _names(names)
    return {name: item for name, item in values.items()
            if any(ops.wildcard(pattern).match(name) for pattern in patterns)}


def get_itemproperty(ctx, params, input_items):
    """Get-ItemProperty (reference/5.1 Microsoft.PowerShell.Management/Get-ItemProperty.md): a PSCustomObject of
    the values with the PS* properties; nothing for a key without values."""
    _refuse_unmodelled(ctx, params, ('Path', 'LiteralPath', 'Name'))
    node = ctx.host.node
    out = []
    for path in _paths(params):
        key = _registry_key(path)
        values = read_key(node, key)
        if values is None:
            ctx.write_error(_not_found(path))
            continue
        refuse_partial_read(key, None if params.get('Name') is None else _names(params['Name']))
        wanted = _wanted(values, params)
        if params.get('Name') is not None and not wanted:
            ctx.write_error(PSError('Property %s does not exist at path %s.' % (to_string(params['Name']), provider_path(key)),
                                    'System.Management.Automation.PSArgumentException',
                                    'System.Management.Automation.PSArgumentException,'
                                    'Microsoft.PowerShell.Commands.GetItemPropertyCommand', 'InvalidArgument',
                                    target=to_string(params['Name'])))
            continue
        if wanted:
            # A key without values gives no object.
            out.append(property_object(node, key, wanted))
    return out


def new_itemproperty(ctx, params, input_items):
    """New-ItemProperty (reference/5.1 Microsoft.PowerShell.Management/New-ItemProperty.md): a PSCustomObject of
    the new value."""
    _refuse_unmodelled(ctx, params, ('Path', 'LiteralPath', 'Name', 'PropertyType', 'Value', 'Force'))
    node = ctx.host.node
    name = to_string(params['Name'])
    type_text = to_string(params.get('PropertyType', 'String'))
    kind = PROPERTY_TYPES.get(type_text.lower())
    if kind is None:
        from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
        raise Unsupported('New-ItemProperty -PropertyType %s' % type_text)
    out = []
    for path in _paths(params):
        key = _registry_key(path)
        values = read_key(node, key)
        if values is None:
            ctx.write_error(_not_found(path))
            continue
        if any(existing.lower() == name.lower() for existing in values) and not params.get('Force'):
            ctx.write_error(PSError('The property already exists.', 'System.IO.IOException',
                                    'System.IO.IOException,Microsoft.PowerShell.Commands.NewItemPropertyCommand',
                                    'ResourceExists', target=provider_path(key)))
            continue
        try:
            stored = from_powershell(kind, params.get('Value'))
        except (ValueError, TypeError):
            ctx.write_error(PSError('The parameter is incorrect.', 'System.ArgumentException',
                                    'System.ArgumentException,Microsoft.PowerShell.Commands.NewItemPropertyCommand',
                                    'NotSpecified'))
            continue
        set_value(node, key, name, kind, stored)
        out.append(property_object(node, key, {name: (kind, stored)}))
    return out


def remove_itemproperty(ctx, params, input_items):
    """Remove-ItemProperty (reference/5.1 Microsoft.PowerShell.Management/Remove-ItemProperty.md): no output."""
    _refuse_unmodelled(ctx, params, ('Path', 'LiteralPath', 'Name', 'Force'))
    node = ctx.host.node
    names = params['Name']
    names = [to_string(item) for item in (enumerate_value(names) if is_enumerable(names) else [names])]
    for path in _paths(params):
        key = _registry_key(path)
        if read_key(node, key) is None:
            ctx.write_error(_not_found(path))
            continue
        for name in names:
            if not remove_value(node, key, name):
                ctx.write_error(PSError('Property %s does not exist at path %s.' % (name, provider_path(key)),
                                        'System.Management.Automation.PSArgumentException',
                                        'System.Management.Automation.PSArgumentException,'
                                        'Microsoft.PowerShell.Commands.RemoveItemPropertyCommand', 'InvalidArgument',
                                        target=name))
    return []


def test_path(ctx, params, input_items):
    """Test-Path of a key (reference/5.1 Microsoft.PowerShell.Management/Test-Path.md, about_Registry_Provider)."""
    _refuse_unmodelled(ctx, params, ('Path', 'LiteralPath', 'PathType'))
    node = ctx.host.node
    path_type = to_string(params.get('PathType', 'Any')).lower()
    out = []
    for path in _paths(params):
        key = _registry_key(path)
        # Registry keys are containers; values are not items (about_Registry_Provider).
        out.append(key_exists(node, key) and path_type in ('any', 'container'))
    return out


def new_item(ctx, params, input_items):
    """New-Item of a key (reference/5.1 Microsoft.PowerShell.Management/New-Item.md): a RegistryKey."""
    _refuse_unmodelled(ctx, params, ('Path', 'Name', 'Force', 'ItemType', 'Value'))
    node = ctx.host.node
    out = []
    if params.get('ItemType') is not None or params.get('Value') is not None:
        from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
        raise Unsupported('New-Item -ItemType/-Value on a registry key')
    for path in _paths(params):
        key = _registry_key(path)
        if params.get('Name') is not None:
            key = key + '\\' + to_string(params['Name'])
        parent = key.rsplit('\\', 1)[0] if '\\' in key else ''
        if key_exists(node, key) and not params.get('Force'):
            ctx.write_error(PSError('A key at this path already exists.', 'System.IO.IOException',
                                    'System.IO.IOException,Microsoft.PowerShell.Commands.NewItemCommand',
                                    'ResourceExists', target=provider_path(key)))
            continue
        if not key_exists(node, parent) and not params.get('Force'):
            ctx.write_error(_not_found(path))
            continue
        from .registry_security import may_create_subkey, privileges  # pylint: disable=import-outside-toplevel
        if not may_create_subkey(node, parent, privileges(ctx.host)):
            # The key's DACL does not let the token create subkeys (CCG\COMClasses is TrustedInstaller's).
            ctx.write_error(PSError('Requested registry access is not allowed.', 'System.Security.SecurityException',
                                    'System.Security.SecurityException,Microsoft.PowerShell.Commands.NewItemCommand',
                                    'PermissionDenied', target=provider_path(parent)))
            continue
        create_key(node, key)
        out.append(RegistryKey(node, key))
    return out


def remove_item(ctx, params, input_items):
    """Remove-Item of a registry key: the key, its values and, with -Recurse, its subkeys. Without -Recurse a key
    with subkeys asks first (Remove-Item, reference/5.1, "Example 5: Delete subkeys recursively"), which a remote
    session without a user interface cannot."""
    _refuse_unmodelled(ctx, params, ('Path', 'LiteralPath', 'Recurse', 'Force'))
    node = ctx.host.node
    for path in _paths(params):
        key = _registry_key(path)
        if not key_exists(node, key):
            ctx.write_error(_not_found(path))
            continue
        if _has_subkeys(node, key) and not params.get('Recurse'):
            ctx.write_error(PSError('Windows PowerShell is in NonInteractive mode. Read and Prompt functionality is not '
                                    'available.', 'System.Management.Automation.PSInvalidOperationException',
                                    'RemoveItemUnauthorizedAccessError', 'InvalidOperation', target=provider_path(key)))
            continue
        remove_key(node, key)
    return []


def subkeys(node, key):
    """The names of a key's subkeys: the installed products under an Uninstall key (windows/msi.py), the keys
    scripts created (node.data['registry']). Other keys' subkeys are views not enumerated here."""
    from . import msi  # pylint: disable=import-outside-toplevel
    products = msi.uninstall_subkeys(node, key)
    if products is not None:
        return products
    # A key Windows has of its own (one of the keys above or a key on the way to one, such as SOFTWARE) has subkeys the
    # model does not hold: listing them would be a guess.
    own = _KNOWN + tuple(REBOOT_KEYS) + (CONTROL, SESSION_MANAGER)
    if any(known == key.lower() or known.startswith(key.lower() + '\\') for known in own) or \
            key.lower().startswith(SERVICES + '\\'):
        from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
        raise Unsupported('listing the subkeys of %s' % provider_path(key))
    # A key keeps the case it was created with (RegCreateKeyEx): the name as the store recorded its path.
    prefix = key.lower() + '\\'
    depth = len(key.split('\\'))
    names = {}
    for stored, entry in (node.data.get('registry') or {}).items():
        if stored.startswith(prefix):
            parts = entry.get('path', stored).split('\\')
            name = parts[depth] if len(parts) > depth else stored[len(prefix):].split('\\', 1)[0]
            names.setdefault(name.lower(), name)
    return sorted(names.values(), key=str.lower)


def get_childitem(ctx, params, input_items):
    """Get-ChildItem of a registry key: its subkeys, each a RegistryKey with the provider's PS* properties
    (about_Registry_Provider). -Recurse, -Name and filters are not modelled."""
    _refuse_unmodelled(ctx, params, ('Path', 'LiteralPath', 'Recurse', 'Name', 'Filter', 'Include', 'Exclude', 'Depth', 'Force'))
    from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
    for unsupported in ('Recurse', 'Name', 'Filter', 'Include', 'Exclude', 'Depth'):
        if params.get(unsupported):
            raise Unsupported('Get-ChildItem -%s on a registry key' % unsupported)
    node = ctx.host.node
    out = []
    for path in _paths(params):
        key = _registry_key(path)
        if not key_exists(node, key):
            ctx.write_error(_not_found(path))
            continue
        out.extend(RegistryKey(node, key + '\\' + name) for name in subkeys(node, key))
    return out


class RegistryKey:
    """Microsoft.Win32.RegistryKey as New-Item and Get-ChildItem write it ([string]: the key's full name), with
    the properties the provider adds (PSPath, PSParentPath, PSChildName, PSIsContainer...)."""

    NET = 'Microsoft.Win32.RegistryKey'
    PROPERTIES = ('Name', 'SubKeyCount', 'ValueCount', 'PSPath', 'PSParentPath', 'PSChildName', 'PSIsContainer')

    def __init__(self, node, key):
        named = _case(node, key)
        parent = named.rsplit('\\', 1)[0] if '\\' in named else ''
        self.Name = provider_path(named)  # pylint: disable=invalid-name
        self._node, self._key = node, key
        self.PSPath = 'Microsoft.PowerShell.Core\\Registry::' + provider_path(named)  # pylint: disable=invalid-name
        self.PSParentPath = 'Microsoft.PowerShell.Core\\Registry::' + provider_path(parent)  # pylint: disable=invalid-name
        self.PSChildName = child_name(named)  # pylint: disable=invalid-name
        self.PSIsContainer = True  # pylint: disable=invalid-name

    @property
    def SubKeyCount(self):  # pylint: disable=invalid-name
        # What subkeys() lists (it refuses a key whose subkeys the model does not enumerate), not a guess.
        return len(subkeys(self._node, self._key))

    @property
    def ValueCount(self):  # pylint: disable=invalid-name
        refuse_partial_read(self._key)
        return len(read_key(self._node, self._key) or {})

    def to_string(self):
        return self.Name


CMDLETS = {
    'Get-ItemProperty': get_itemproperty,
    'New-ItemProperty': new_itemproperty,
    'Remove-ItemProperty': remove_itemproperty,
}

# Test-Path, New-Item, Get-ChildItem and Remove-Item belong to the file system area, which hands a registry path to these.
PROVIDER_CMDLETS = {
    ('hklm', 'Test-Path'): test_path,
    ('hklm', 'New-Item'): new_item,
    ('hklm', 'Get-ChildItem'): get_childitem,
    ('hklm', 'Remove-Item'): remove_item,
}
