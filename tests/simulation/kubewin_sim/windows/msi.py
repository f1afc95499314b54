"""Windows Installer: msiexec.exe, the WindowsInstaller.Installer automation object and the products' Uninstall keys.

Sources (Microsoft Learn, Windows Installer, learn.microsoft.com/windows/win32/msi):
- "Command-Line Options" (msiexec /i package, /qn, /norestart, /l*v logfile, PROPERTY=value; ADDLOCAL is "a
  list of features delimited by commas ... installed locally") and "MsiExec.exe and InstMsi.exe Error Messages":
  0 ERROR_SUCCESS, 1603 ERROR_INSTALL_FAILURE ("A fatal error occurred during installation"), 1618
  ERROR_INSTALL_ALREADY_RUNNING ("Another installation is already in progress"), 1619
  ERROR_INSTALL_PACKAGE_OPEN_FAILED ("This installation package could not be opened"), 1622
  ERROR_INSTALL_LOG_FAILURE ("There was an error opening installation log file"), 1639 ERROR_INVALID_COMMAND_LINE,
  3010 ERROR_SUCCESS_REBOOT_REQUIRED. "Windows Installer Error Messages": internal error 2711 "The specified Feature
  name ('[2]') not found in Feature table", which ends an install with 1603.
- The automation interface: "Installer object", "Installer.Features property" (a StringList of the features
  a product publishes), "Installer.FeatureState property" (msiInstallStateAdvertised 1, Absent 2, Local 3,
  Source 4, Unknown -1: the product or feature is unknown), "Installer.ProductState property", "StringList
  object" (Count, Item, enumerable), and "Uninstall Registry Key" (the values Windows Installer writes under
  HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\<ProductCode>: DisplayName from ProductName,
  DisplayVersion from ProductVersion, Publisher, InstallLocation from ARPINSTALLLOCATION, UninstallString,
  WindowsInstaller 1).

The one package the collection installs is Open vSwitch for Hyper-V, so every .msi file is read as that package:
its product code, name and features are kubewin_sim/ovs.py's; its version is the one the simulation derives
from the file's digest (an upstream binary's bytes are not in the tests). What it installs is the package's
(openvswitch/ovs windows/ovs-windows-installer/Product.wxs: the binaries in <INSTALLDIR>\\bin, that folder
appended to the machine PATH (Environment PATH, Part="last", System="yes"), the ovsdb-server and ovs-vswitchd
services with start mode auto, started at the end of the install), with the feature that brings each service
as kubewin_sim/ovs.py has it (the Cloudbase package adds OVNHost with ovn-controller).

State: the installed products are ``node.data['ovs']['products']`` (kubewin_sim/ovs.py): product code, name,
version and the state of each feature. A node profile may hold
``msi_install_in_progress`` (another installation holds the Windows Installer service: 1618) and
``msi_reboot_required`` (the install completes at the next boot: 3010).
"""

import hashlib
import ntpath
import time

from .. import ovs, scm
from ..pwsh.values import PSError, to_string
from . import filesystem, registry

UNINSTALL_KEYS = ('software\\microsoft\\windows\\currentversion\\uninstall',
                  'software\\wow6432node\\microsoft\\windows\\currentversion\\uninstall')
PUBLISHER = 'Cloudbase Solutions Srl'
# Installer.FeatureState values (MsiInstallState).
STATE_VALUES = {'advertised': 1, 'absent': 2, 'local': 3, 'source': 4}
INSTALL_STATE_UNKNOWN = -1


def products(node):
    return (node.data.get('ovs') or {}).get('products') or []


def _product(node, code):
    for product in products(node):
        if product['product_code'].upper() == to_string(code).upper():
            return product
    return None


def install_location():
    # INSTALLDIR as a directory property: with its trailing backslash.
    return ntpath.dirname(ovs.BIN_DIR) + '\\'


# -- the Uninstall keys (windows/registry.py asks here) ------------------------------------------------

def uninstall_subkeys(node, key):
    """The product codes under an Uninstall key (the package is 64-bit: only the native key holds it)."""
    if key.lower() == UNINSTALL_KEYS[0]:
        return [product['product_code'] for product in products(node)]
    if key.lower() == UNINSTALL_KEYS[1]:
        return []
    return None


def uninstall_values(node, key):
    """The values of HKLM\\<Uninstall>\\<ProductCode>, or None when the key is not a product's."""
    parent, _separator, code = key.rpartition('\\')
    if parent.lower() != UNINSTALL_KEYS[0]:
        return None
    product = _product(node, code)
    if product is None:
        return None
    major, minor = (product['version'].split('.') + ['0', '0'])[:2]
    return {'DisplayName': ('REG_SZ', product['name']), 'DisplayVersion': ('REG_SZ', product['version']),
            'Publisher': ('REG_SZ', PUBLISHER), 'InstallLocation': ('REG_SZ', install_location()),
            'UninstallString': ('REG_EXPAND_SZ', 'MsiExec.exe /X%s' % product['product_code']),
            'VersionMajor': ('REG_DWORD', int(major)), 'VersionMinor': ('REG_DWORD', int(minor)),
            'WindowsInstaller': ('REG_DWORD', 1)}


# -- the automation object -------------------------------------------------------------------------------

class StringList:
    """The StringList object: Count, Item(index), enumerable (For Each / the pipeline)."""

    NET = 'System.__ComObject'
    DOCUMENTED = 'WindowsInstaller.StringList'
    ENUMERABLE = True
    PROPERTIES = ('Count',)

    def __init__(self, items):
        self._items = list(items)

    @property
    def Count(self):  # pylint: disable=invalid-name
        return len(self._items)

    def Item(self, index):  # pylint: disable=invalid-name
        return self._items[int(index)]

    def enumerate(self):
        return iter(self._items)


class Installer:
    """WindowsInstaller.Installer: the properties lib/ovs.ps1 reads, over the node's installed products (Windows
    Installer automation reference: Installer.Features, Installer.FeatureState, Installer.ProductState).

    Called here as PowerShell calls the members of a COM object whose type information it has. Not settled from a
    source: whether Windows PowerShell 5.1 sees these members on this object without ``InvokeMember`` (scripts on the
    web call them through ``GetType().InvokeMember``); docs/docsite/rst/testing.rst lists it as a known risk."""

    NET = 'System.__ComObject'
    DOCUMENTED = 'WindowsInstaller.Installer'

    def __init__(self, host):
        self._node = host.node

    def Features(self, product_code):  # pylint: disable=invalid-name
        product = _product(self._node, product_code)
        if product is None:
            # MsiEnumFeatures: ERROR_UNKNOWN_PRODUCT; the property call fails.
            raise PSError('Features,Product', 'System.Runtime.InteropServices.COMException')
        return StringList(product['features'])

    def FeatureState(self, product_code, feature):  # pylint: disable=invalid-name
        product = _product(self._node, product_code)
        state = (product or {}).get('features', {}).get(to_string(feature))
        return STATE_VALUES.get(state, INSTALL_STATE_UNKNOWN)

    def ProductState(self, product_code):  # pylint: disable=invalid-name
        # msiInstallStateDefault (5): installed for the machine; Unknown (-1) otherwise.
        return 5 if _product(self._node, product_code) else INSTALL_STATE_UNKNOWN

    def to_string(self):
        return 'System.__ComObject'


COM_CLASSES = {'windowsinstaller.installer': Installer}


# -- msiexec.exe -----------------------------------------------------------------------------------------

def _result(exit_code):
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    # msiexec /qn shows nothing and writes nothing to its standard streams; the exit code and the log tell.
    return ProgramResult([], [], exit_code, seconds=30)


def _command_line(words):
    """(options, properties): msiexec's switches in order (a switch's argument follows it) and PROPERTY=value."""
    options, properties = [], {}
    index = 0
    while index < len(words):
        word = words[index]
        if word.startswith('/') or word.startswith('-'):
            switch = word[1:].lower()
            if switch in ('i', 'package', 'x', 'uninstall', 'a', 'f', 'p', 'update') or switch.startswith('l'):
                if index + 1 >= len(words):
                    return None, None
                options.append((switch, words[index + 1]))
                index += 2
                continue
            options.append((switch, None))
        elif '=' in word:
            name, _separator, value = word.partition('=')
            properties[name.upper()] = value
        else:
            return None, None
        index += 1
    return options, properties


class _Log:
    """The /l*v log: opened before anything else (a folder that does not exist: 1622)."""

    def __init__(self, node, path):
        self.node, self.path, self.lines = node, path, []
        stamp = self._stamp()
        self.lines.append('=== Verbose logging started: %s  Build type: SHIP UNICODE 5.00.10011.00  '
                          'Calling process: C:\\Windows\\system32\\msiexec.exe ===' % stamp)

    def _stamp(self):
        """The node's date as the log's banner lines write it."""
        return time.strftime('%d/%m/%Y  %H:%M:%S', time.gmtime(self.node.date()))

    def write(self, line):
        self.lines.append(line)

    def close(self, exit_code):
        self.lines.append('MainEngineThread is returning %d' % exit_code)
        self.lines.append('=== Verbose logging stopped: %s ===' % self._stamp())
        if self.path:
            filesystem.write_file(self.node, self.path, ('\r\n'.join(self.lines) + '\r\n').encode('ascii', 'replace'))


def _package_version(entry):
    """The ProductVersion of the package file: derived from its digest (the simulation's own rule:
    the tests have no real package to read it from)."""
    digest = (entry.get('stand_in') or {}).get('sha256') or hashlib.sha256(filesystem.content_bytes(entry)).hexdigest()
    return '2.7.0.%d' % (int(digest[:4], 16) % 1000)


def _write_binary(node, path):
    """A file the package installs: a stand-in (the package's real bytes are not in the tests)."""
    sha256 = hashlib.sha256(path.encode()).hexdigest()
    filesystem.make_directories(node, ntpath.dirname(path))
    filesystem.write_file(node, path, b'', stand_in={'sha256': sha256, 'size': 4096})


def _append_machine_path(node, folder):
    current = registry.machine_variable(node, 'Path') or ''
    if folder.lower().rstrip('\\') not in [part.lower().rstrip('\\') for part in current.split(';')]:
        node.data['environment']['Path'] = current.rstrip(';') + ';' + folder


def _install(node, package, properties, log):
    entry = filesystem.lookup(node, package)
    if entry is None or entry['dir']:
        log.write('MSI (c) (A4:2C) [00:00:01:000]: Note: 1: 1708')
        log.write('MSI (c) (A4:2C) [00:00:01:000]: Product: (unknown) -- Installation failed.')
        return 1619
    requested = [name for name in properties.get('ADDLOCAL', '').split(',') if name]
    unknown = [name for name in requested if name not in ovs.FEATURES]
    if unknown:
        log.write("DEBUG: Error 2711:  The specified Feature name ('%s') not found in Feature table" % unknown[0])
        log.write('MSI (s) (1C:40) [00:00:02:000]: Product: %s -- Installation failed.' % ovs.PRODUCT_NAME)
        return 1603
    current = _product(node, ovs.PRODUCT_CODE)
    features = dict((current or {}).get('features') or {feature: 'absent' for feature in ovs.FEATURES})
    for feature in requested:
        features[feature] = 'local'
    ovs.model(node)['products'] = [{'product_code': ovs.PRODUCT_CODE, 'name': ovs.PRODUCT_NAME,
                                    'version': _package_version(entry), 'features': features}]
    if features.get('OpenvSwitchCLI') == 'local':
        _write_binary(node, ntpath.join(ovs.BIN_DIR, 'ovs-vsctl.exe'))
        _append_machine_path(node, ovs.BIN_DIR + '\\')
    for name, (program, dependencies, feature) in ovs.SERVICES.items():
        if features.get(feature) != 'local' or name in node.data['services']:
            continue
        path = ntpath.join(ovs.BIN_DIR, program)
        _write_binary(node, path)
        node.data['services'][name] = {
            'name': name, 'exists': True, 'display_name': name, 'description': None, 'state': 'stopped',
            'start_mode': 'auto', 'command_line': '"%s" --service' % path, 'dependencies': list(dependencies),
            'environment': [], 'account': 'LocalSystem', 'recovery': None, 'exit_code': 1077, 'nssm': None}
        log.write('MSI (s) (1C:40) [00:00:02:000]: Executing op: ServiceInstall(Name=%s,StartType=2)' % name)
    # The package's ServiceControl starts its services at the end of the install.
    for name in ovs.SERVICES:
        if name in node.data['services'] and node.data['services'][name]['state'] != 'running':
            scm.start(node, name)
    node.record('msiexec installed %s (%s)' % (ovs.PRODUCT_NAME, ', '.join(sorted(requested))))
    log.write('MSI (s) (1C:40) [00:00:03:000]: Product: %s -- Installation completed successfully.' % ovs.PRODUCT_NAME)
    if node.profile.get('msi_reboot_required'):
        log.write('MSI (s) (1C:40) [00:00:03:000]: Windows Installer requires a system restart.')
        return 3010
    return 0


def msiexec(host, words, input_items):
    node = host.node
    options, properties = _command_line(words)
    if options is None:
        return _result(1639)
    logs = [value for switch, value in options if switch.startswith('l')]
    installs = [value for switch, value in options if switch in ('i', 'package')]
    if not installs:
        from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
        raise Unsupported('msiexec %s (only /i is modelled)' % ' '.join(words))
    log = _Log(node, logs[-1] if logs else None)
    if log.path:
        folder = filesystem.lookup(node, ntpath.dirname(filesystem.normalize(log.path)))
        if folder is None or not folder['dir']:
            return _result(1622)
    if node.profile.get('msi_install_in_progress'):
        log.write('MSI (c) (A4:2C) [00:00:01:000]: Another installation is in progress. (1618)')
        code = 1618
    else:
        code = _install(node, installs[-1], properties, log)
    log.close(code)
    return _result(code)


PROGRAMS = {'msiexec.exe': msiexec}
