"""Open vSwitch in the Windows model: msiexec.exe, the WindowsInstaller.Installer object, ovs-vsctl.exe and the
Hyper-V switch extension cmdlets (windows/msi.py, windows/openvswitch.py, windows/hyperv.py), and the scripts that
use them run whole by the engine: node_info's ovs section (lib/ovs.ps1) and openvswitch_worker.ps1, their answers
and the node's state after them written out."""

import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402  pylint: disable=wrong-import-position
from _detached import run_detached  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim import ovs  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import filesystem, run_on_node  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402  pylint: disable=wrong-import-position

HYPER_V = {'Containers': 'installed', 'Hyper-V': 'installed', 'Hyper-V-PowerShell': 'installed'}
MSI = 'C:\\ProgramData\\kubewin\\downloads\\openvswitch.msi'
MSI_SHA256 = hashlib.sha256(b'openvswitch-hyperv-2.7.0-certified.msi').hexdigest()
FEATURES = ['OpenvSwitchCLI', 'OpenvSwitchDriver', 'OVNHost']
BRIDGE = {'name': 'br-ex', 'adapter': 'Ethernet', 'internal_port': 'vEthernet (Ethernet)',
          'extension': ovs.EXTENSION}
EXTERNAL_IDS = {'system-id': 'win1', 'ovn-remote': 'tcp:10.127.130.10:6642', 'ovn-encap-ip': '10.0.0.11',
                'ovn-encap-type': 'geneve'}


def new_node(transparent=True, msi=True):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'features': dict(HYPER_V)}))
    if transparent:
        node.create_network({'name': 'external', 'type': 'Transparent', 'address_prefix': '10.244.11.0/24',
                             'gateway': '10.244.11.1', 'adapter': 'Ethernet'})
    if msi:
        # The downloaded package, a stand-in of its digest and size (windows/filesystem.py).
        filesystem.make_directories(node, 'C:\\ProgramData\\kubewin\\downloads')
        filesystem.write_file(node, MSI, b'', stand_in={'sha256': MSI_SHA256, 'size': 24 * 1024 * 1024})
    return node


def spec(**changes):
    """The worker's arguments as the openvswitch action writes them (plugins/action/openvswitch.py apply)."""
    return dict({'stop': [], 'remove_bridge': None, 'remove_external_ids': [], 'install': None, 'bridge': None,
                 'external_ids': {}, 'services': []}, **changes)


def run_worker(node, arguments, operation_id='op-ovs'):
    """openvswitch_worker.ps1, whole, started by detached_start.ps1 (Win32_Process.Create, powershell.exe -File);
    returns the result detached_status.ps1 reads back."""
    status = run_detached(node, 'openvswitch_worker', arguments, operation_id)[1]
    assert status['state'] == status['result']['state']
    return _contracts.check('openvswitch_worker', status['result'])


def ovs_section(node):
    result = invoke(node, _pwsh.load_script('node_info'), {'Sections': ['ovs']}, error_action='stop')
    assert (result['failed'], result['error']) == (False, []), result
    return _contracts.check('node_info', json.loads(result['result']))['ovs']


def services_of(node):
    return {name: (service['state'], service['start_mode']) for name, service in node.data['services'].items()}


def worker_answer(operation_id, **changes):
    """The worker's result file for an operation that did nothing, with these changes."""
    return dict({'operation_id': operation_id, 'state': 'done', 'error': None, 'installed': False,
                 'reboot_required': False, 'stopped': [], 'started': [], 'bridge_removed': False,
                 'bridge_rebuilt': False, 'external_ids_set': [], 'external_ids_removed': []}, **changes)


# node_info's ovs section once the package is installed with every feature (the product as the Windows Installer
# object and its Uninstall key describe it; ovs-vsctl.exe in the package's bin folder) and the switch extension
# enabled on the transparent network's vSwitch.
INSTALLED = {'products': [{'product_code': ovs.PRODUCT_CODE, 'name': ovs.PRODUCT_NAME, 'version': '2.7.0.485',
                           'install_location': 'C:\\Program Files\\Cloudbase Solutions\\Open vSwitch\\',
                           'features': {'OpenvSwitchCLI': 'local', 'OpenvSwitchDriver': 'local', 'OVNHost': 'local'}}],
             'vsctl': ovs.BIN_DIR + '\\ovs-vsctl.exe', 'database_error': None,
             'switches': [{'name': 'external', 'adapter': 'Ethernet', 'extension': {'enabled': True}}]}
# The bridge the worker builds, as ovs-vsctl lists it: besides the ports asked for, the bridge's local port
# (ovs-vsctl(8) add-br makes a bridge "with no ports (other than bridge itself)", a port and interface of the
# bridge's name, type internal), which has no host vNIC of its name, so ovs-vswitchd reports it cannot open it;
# an ordinary port's type is the empty string ("a synonym for system", vswitchd/vswitch.xml Interface type).
BR_EX_PORTS = {'br-ex': {'type': 'internal', 'error': 'could not open network device br-ex (No such device)'},
               'Ethernet': {'type': '', 'error': None},
               'vEthernet (Ethernet)': {'type': 'internal', 'error': None}}
OVS_SERVICES_RUNNING = {'ovsdb-server': ('running', 'auto'), 'ovs-vswitchd': ('running', 'auto'),
                        'ovn-controller': ('running', 'auto')}


def test_fresh_node_ovs_section():
    assert ovs_section(new_node()) == {'products': [], 'vsctl': None, 'database': None, 'database_error': None,
                                       'switches': [{'name': 'external', 'adapter': 'Ethernet', 'extension': None}]}


# Machine Path entries as real servers have them (node.py path_entries): a folder on a drive the node does not have,
# one in double quotes (cmd.exe takes it, PowerShell's providers do not), an empty entry, a trailing backslash.
UNTIDY_PATH = ['E:\\tools', '"C:\\Program Files\\Vendor Tool\\bin"', '', 'C:\\tools\\']


def test_an_untidy_machine_path_does_not_fail_the_ovs_section():
    # 5.1's Join-Path resolves the drive of -Path: 'E:\tools' and '"C:\...' (a drive named '"C') threw
    # DriveNotFoundException, which node_info's Stop made fatal, on nodes that do not even run OVS.
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'features': dict(HYPER_V), 'path_entries': UNTIDY_PATH}))
    assert ovs_section(node) == {'products': [], 'vsctl': None, 'database': None, 'database_error': None,
                                 'switches': []}


def test_ovs_vsctl_is_found_in_a_quoted_path_entry():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11', 'features': dict(HYPER_V),
                                          'path_entries': UNTIDY_PATH + ['"%s"' % ovs.BIN_DIR]}))
    node.write_file(ovs.BIN_DIR + '\\ovs-vsctl.exe', data=b'MZ')
    assert ovs_section(node)['vsctl'] == ovs.BIN_DIR + '\\ovs-vsctl.exe'


def test_without_the_hyper_v_module_there_are_no_switches():
    # Get-Command -Name Get-VMSwitch finds nothing where the Hyper-V module is not installed.
    node = new_node(transparent=False)
    node.data['features']['Hyper-V-PowerShell'] = 'available'
    assert ovs_section(node)['switches'] == []


def test_install_and_bridge_run_whole():
    arguments = spec(install={'msi': MSI, 'features': FEATURES}, bridge=BRIDGE, external_ids=EXTERNAL_IDS,
                     services=['ovsdb-server', 'ovs-vswitchd', 'ovn-controller'])
    node = new_node()
    # msiexec starts the services the package installs: the worker finds them running.
    assert run_worker(node, arguments) == worker_answer('op-ovs', installed=True, bridge_rebuilt=True,
                                                        external_ids_set=sorted(EXTERNAL_IDS))
    assert services_of(node) == OVS_SERVICES_RUNNING
    assert ovs_section(node) == dict(INSTALLED, database={'bridges': {'br-ex': {'ports': BR_EX_PORTS}},
                                                          'external_ids': EXTERNAL_IDS})
    # msiexec wrote its log where /l*v said, and the machine PATH has the package's bin folder.
    log = filesystem.lookup(node, 'C:\\ProgramData\\kubewin\\operations\\op-ovs.msi.log')
    assert b'MainEngineThread is returning 0' in filesystem.content_bytes(log)
    assert node.data['environment']['Path'].endswith(';' + ovs.BIN_DIR + '\\')

    # Run again on the converged node: the bridge is rebuilt the same way, the services are left running.
    again = spec(bridge=BRIDGE, external_ids=EXTERNAL_IDS, services=['ovsdb-server', 'ovs-vswitchd'])
    assert run_worker(node, again, 'op-ovs-2') == worker_answer('op-ovs-2', bridge_rebuilt=True,
                                                                external_ids_set=sorted(EXTERNAL_IDS))
    assert services_of(node) == OVS_SERVICES_RUNNING
    assert ovs_section(node) == dict(INSTALLED, database={'bridges': {'br-ex': {'ports': BR_EX_PORTS}},
                                                          'external_ids': EXTERNAL_IDS})


def test_msiexec_failing_with_1603_fails_the_worker():
    # An ADDLOCAL feature the package does not have: Windows Installer error 2711, msiexec exits 1603.
    arguments = spec(install={'msi': MSI, 'features': ['OpenvSwitchCLI', 'OVSExtras']}, bridge=BRIDGE)
    node = new_node()
    assert run_worker(node, arguments) == worker_answer('op-ovs', state='failed', error=(
        'msiexec failed with exit code 1603; see C:\\ProgramData\\kubewin\\operations\\op-ovs.msi.log on the node'))
    # Nothing installed, nothing built.
    assert services_of(node) == {}
    assert ovs_section(node) == {'products': [], 'vsctl': None, 'database': None, 'database_error': None,
                                 'switches': [{'name': 'external', 'adapter': 'Ethernet', 'extension': None}]}
    log = filesystem.content_bytes(filesystem.lookup(node, 'C:\\ProgramData\\kubewin\\operations\\op-ovs.msi.log'))
    assert b"Error 2711:  The specified Feature name ('OVSExtras') not found in Feature table" in log
    assert b'MainEngineThread is returning 1603' in log


def test_taking_the_node_out_of_ovn():
    setup = spec(install={'msi': MSI, 'features': FEATURES}, bridge=BRIDGE, external_ids=EXTERNAL_IDS,
                 services=['ovsdb-server', 'ovs-vswitchd', 'ovn-controller'])
    node = new_node()
    run_worker(node, setup)
    absent = spec(stop=['ovn-controller'], remove_bridge={'name': 'br-ex', 'extension': ovs.EXTENSION,
                                                          'disable_extension_on': ['Ethernet']},
                  remove_external_ids=['ovn-remote', 'ovn-encap-ip', 'ovn-encap-type'])
    assert run_worker(node, absent, 'op-ovs-absent') == worker_answer(
        'op-ovs-absent', stopped=['ovn-controller'], bridge_removed=True,
        external_ids_removed=['ovn-remote', 'ovn-encap-ip', 'ovn-encap-type'])
    assert services_of(node) == dict(OVS_SERVICES_RUNNING, **{'ovn-controller': ('stopped', 'auto')})
    assert ovs_section(node) == dict(INSTALLED, database={'bridges': {}, 'external_ids': {'system-id': 'win1'}},
                                     switches=[{'name': 'external', 'adapter': 'Ethernet',
                                                'extension': {'enabled': False}}])


# -- msiexec.exe (windows/msi.py): exit codes from "MsiExec.exe and InstMsi.exe Error Messages" -------------------

MSIEXEC = ("$p = Start-Process -FilePath 'msiexec.exe' -ArgumentList @(%s) -Wait -PassThru\n$p.ExitCode")


def _msiexec(node, arguments):
    outcome = run_on_node(node, MSIEXEC % arguments)
    assert (outcome.unsupported, outcome.exit_code, outcome.errors) == (None, 0, []), outcome
    return int(outcome.output[-1])


def test_msiexec_exit_codes():
    log = "'/l*v', '\"C:\\ProgramData\\kubewin\\msi.log\"'"
    install = "'/i', '\"%s\"', 'ADDLOCAL=\"OpenvSwitchCLI\"', '/qn', '/norestart', " % MSI
    node = new_node()
    filesystem.make_directories(node, 'C:\\ProgramData\\kubewin')
    # 1622: the log's folder does not exist (ERROR_INSTALL_LOG_FAILURE).
    assert _msiexec(node, install + "'/l*v', 'C:\\nowhere\\msi.log'") == 1622
    # 1619: the package cannot be opened (ERROR_INSTALL_PACKAGE_OPEN_FAILED).
    assert _msiexec(node, "'/i', 'C:\\missing.msi', '/qn', " + log) == 1619
    # 1639: a word msiexec does not take (ERROR_INVALID_COMMAND_LINE).
    assert _msiexec(node, "'/i', 'C:\\missing.msi', 'stray'") == 1639
    # 1618: another installation holds the Windows Installer service (ERROR_INSTALL_ALREADY_RUNNING).
    node.data['profile']['msi_install_in_progress'] = True
    assert _msiexec(node, install + log) == 1618 and 'ovs' not in node.data
    del node.data['profile']['msi_install_in_progress']
    # 3010: installed, a restart completes it (ERROR_SUCCESS_REBOOT_REQUIRED).
    node.data['profile']['msi_reboot_required'] = True
    assert _msiexec(node, install + log) == 3010
    assert node.data['ovs']['products'][0]['features'] == {
        'OpenvSwitchCLI': 'local', 'OpenvSwitchDriver': 'absent', 'OVNHost': 'absent'}
    # The CLI feature brings ovsdb-server and ovs-vswitchd, started at the end; OVNHost was not asked for.
    assert services_of(node) == {'ovsdb-server': ('running', 'auto'), 'ovs-vswitchd': ('running', 'auto')}


def test_the_worker_reports_a_reboot_msiexec_asks_for():
    node = new_node()
    node.data['profile']['msi_reboot_required'] = True
    outcome = run_worker(node, spec(install={'msi': MSI, 'features': FEATURES}))
    assert (outcome['state'], outcome['installed'], outcome['reboot_required']) == ('done', True, True)


# -- WindowsInstaller.Installer (windows/msi.py): "Installer.Features property", "Installer.FeatureState property" ---

def test_installer_object_and_uninstall_key():
    node = new_node()
    assert _msiexec(node, "'/i', '%s', 'ADDLOCAL=OpenvSwitchCLI,OpenvSwitchDriver'" % MSI) == 0
    code = ovs.PRODUCT_CODE
    outcome = run_on_node(node, "$i = New-Object -ComObject WindowsInstaller.Installer\n"
                                "@($i.Features('%s')).Count\n$i.FeatureState('%s', 'OpenvSwitchDriver')\n"
                                "$i.FeatureState('%s', 'OVNHost')\n$i.FeatureState('{00000000-0000-0000-0000-000000000000}', 'x')\n"
                                "$k = @(Get-ChildItem -LiteralPath 'HKLM:\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall')\n"
                                "$k[0].PSChildName\n(Get-ItemProperty -LiteralPath $k[0].PSPath).DisplayName\n"
                                "@(Get-ChildItem -LiteralPath 'HKLM:\\SOFTWARE\\WOW6432Node\\Microsoft\\Windows\\CurrentVersion\\Uninstall').Count"
                          % (code, code, code))
    assert (outcome.unsupported, outcome.exit_code, outcome.errors) == (None, 0, []), outcome
    # msiInstallStateLocal 3, msiInstallStateAbsent 2, msiInstallStateUnknown -1.
    assert outcome.output == ['3', '3', '2', '-1', code, ovs.PRODUCT_NAME, '0']


# -- ovs-vsctl.exe (windows/openvswitch.py): ovs-vsctl(8), lib/db-ctl-base.man ------------------------------------

def _vsctl(node, *arguments):
    words = ', '.join("'%s'" % word.replace("'", "''") for word in arguments)
    outcome = run_on_node(node, "$ErrorActionPreference = 'Continue'\n$out = & '%s\\ovs-vsctl.exe' @(%s) 2>&1\n"
                                "$LASTEXITCODE\n$out | ForEach-Object { [string]$_ }" % (ovs.BIN_DIR, words))
    assert outcome.unsupported is None, outcome
    return int(outcome.output[0]), outcome.output[1:]


def test_ovs_vsctl_documented_behaviour():
    node = new_node()
    assert _vsctl(node, 'list-br') == (1, ['ovs-vsctl: unix:C:\\ProgramData\\openvswitch\\db.sock: database connection '
                                           'failed (No such file or directory)'])
    assert _msiexec(node, "'/i', '%s', 'ADDLOCAL=OpenvSwitchCLI'" % MSI) == 0
    assert _vsctl(node, '--no-wait', 'add-br', 'br-ex') == (0, [])
    assert _vsctl(node, '--no-wait', 'add-br', 'br-ex') == (
        1, ['ovs-vsctl: cannot create a bridge named br-ex because a bridge named br-ex already exists'])
    assert _vsctl(node, '--no-wait', '--may-exist', 'add-br', 'br-ex') == (0, [])
    assert _vsctl(node, '--no-wait', 'add-port', 'br-ex', 'Ethernet') == (0, [])
    assert _vsctl(node, '--no-wait', 'add-port', 'br-int', 'Ethernet') == (1, ['ovs-vsctl: no bridge named br-int'])
    assert _vsctl(node, '--no-wait', 'add-br', 'Ethernet') == (
        1, ['ovs-vsctl: cannot create a bridge named Ethernet because a port named Ethernet already exists on bridge br-ex'])
    assert _vsctl(node, '--no-wait', 'del-port', 'br-ex') == (
        1, ['ovs-vsctl: cannot delete port br-ex because it is the local port for bridge br-ex (deleting this port '
            'requires deleting the entire bridge)'])
    assert _vsctl(node, '--no-wait', 'del-port', 'nic9') == (1, ['ovs-vsctl: no port named nic9'])
    assert _vsctl(node, '--no-wait', '--if-exists', 'del-port', 'nic9') == (0, [])
    assert _vsctl(node, 'list-br') == (0, ['br-ex'])
    assert _vsctl(node, 'br-exists', 'br-int') == (2, [])
    # A failing command leaves the transaction undone: add-port ran before the failing add-br.
    assert _vsctl(node, '--no-wait', 'add-port', 'br-ex', 'nic2', '--', 'add-br', 'br-ex')[0] == 1
    assert node.data['ovs']['db']['bridges']['br-ex']['ports'] == {'Ethernet': 'system'}
    # 5.1 passes external_ids:k="v" as one word; the program's C runtime drops the quotes.
    assert _vsctl(node, '--no-wait', 'set', 'Open_vSwitch', '.', 'external_ids:ovn-remote="tcp:10.0.0.1:6642"',
                  'external_ids:quoted="\\"a\\""') == (0, [])
    assert node.data['ovs']['db']['external_ids'] == {'ovn-remote': 'tcp:10.0.0.1:6642', 'quoted': 'a'}
    assert _vsctl(node, 'get', 'Open_vSwitch', '.', 'external_ids:ovn-remote') == (0, ['"tcp:10.0.0.1:6642"'])
    assert _vsctl(node, 'get', 'Open_vSwitch', '.', 'external_ids:nothing') == (
        1, ['ovs-vsctl: no key "nothing" in Open_vSwitch record "." column external_ids'])
    assert _vsctl(node, '--no-wait', 'remove', 'Open_vSwitch', '.', 'external_ids', 'quoted', 'absent') == (0, [])
    code, out = _vsctl(node, '--format=json', '--columns=name,type,error', 'list', 'Interface')
    assert code == 0 and json.loads(out[0]) == {'headings': ['name', 'type', 'error'], 'data': [
        ['Ethernet', '', ['set', []]],
        ['br-ex', 'internal', 'could not open network device br-ex (No such device)']]}
    assert _vsctl(node, '--format=json', '--columns=nope', 'list', 'Bridge') == (
        1, ['ovs-vsctl: Bridge does not contain a column whose name matches "nope"'])
    assert _vsctl(node, 'frobnicate') == (1, ["ovs-vsctl: unknown command 'frobnicate'; use --help for help"])


# -- Hyper-V (windows/hyperv.py) ----------------------------------------------------------------------------------

def test_get_vmswitch_switch_type_is_the_vmswitchtype_enum():
    # Get-VMSwitch's -SwitchType is a VMSwitchType: [string] and -eq see the name, ConvertTo-Json the number.
    outcome = run_on_node(new_node(), "$s = Get-VMSwitch\n[string]$s.SwitchType; $s.SwitchType -eq 'External'\n"
                                      "$s.SwitchType.GetType().FullName\nConvertTo-Json -Compress -InputObject $s.SwitchType\n"
                                      "$s.NetAdapterInterfaceDescriptions -join ','")
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    assert outcome.output == ['External', 'True', 'Microsoft.HyperV.PowerShell.VMSwitchType', '2',
                              'Microsoft Hyper-V Network Adapter']


def test_switch_extension_cmdlets():
    node = new_node()
    outcome = run_on_node(node, "(Get-VMSwitch).NetAdapterInterfaceDescription\n"
                                "@(Get-VMSwitchExtension -VMSwitchName external).Name -join ','\n"
                                "Get-VMSwitchExtension -VMSwitchName external -Name '%s' -ErrorAction SilentlyContinue\n"
                                "'-'" % ovs.EXTENSION)
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    assert outcome.output == ['Microsoft Hyper-V Network Adapter',
                              'Microsoft Windows Filtering Platform,Microsoft NDIS Capture', '-']
    assert _msiexec(node, "'/i', '%s', 'ADDLOCAL=OpenvSwitchCLI,OpenvSwitchDriver'" % MSI) == 0
    outcome = run_on_node(node, "(Enable-VMSwitchExtension -VMSwitchName external -Name '%s').Enabled\n"
                                "(Get-VMSwitchExtension -VMSwitchName external -Name '%s').Enabled"
                          % (ovs.EXTENSION, ovs.EXTENSION))
    assert (outcome.exit_code, outcome.output) == (0, ['True', 'True']), outcome
    assert node.data['ovs']['extensions'] == {'Ethernet': True}
    outcome = run_on_node(node, "Get-VMSwitch -Name other")
    assert outcome.errors == ['Hyper-V was unable to find a virtual switch with name "other".'], outcome


def test_a_missing_adapter_fails_the_worker_with_get_netadapter_s_error():
    # Get-NetAdapter is a CDXML function: it reads $ErrorActionPreference in the global scope, and the worker's
    # 'Stop' is in its own script scope (powershell.exe -File), so only -ErrorAction Stop makes its error end the
    # worker (pwsh/commands.py; PowerShell/PowerShell#4568). Without it, the worker went on with no adapter
    # description and failed later, naming no adapter lookup.
    node = new_node()
    run_worker(node, spec(install={'msi': MSI, 'features': FEATURES}, bridge=BRIDGE, external_ids=EXTERNAL_IDS,
                          services=['ovsdb-server', 'ovs-vswitchd', 'ovn-controller']))
    absent = spec(remove_bridge={'name': 'br-ex', 'extension': ovs.EXTENSION, 'disable_extension_on': ['Ethernet 9']})
    answer = run_worker(node, absent, 'op-ovs-absent')
    assert answer['state'] == 'failed'
    assert answer['error'].startswith("No MSFT_NetAdapter objects found with property 'Name' equal to 'Ethernet 9'")
