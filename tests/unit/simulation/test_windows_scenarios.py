"""The Windows scenario set (tests/windows/scenarios), run under the engine exactly as on a Windows Server VM: the
checkout's scenario folder and node scripts copied onto a fresh simulated node, then
``powershell.exe -File run.ps1`` run there. Every scenario must PASS (none skipped: the stub programs a VM gets from
new_stubs.ps1 are, here, the engine's program models: kubeadm.exe's, and a service program that starts).

Also: run.ps1 composes each script exactly as plugins/plugin_utils/_pwsh.py's load_script does, so what the
scenarios run on a VM is the text the collection sends."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import netsh, run_on_node  # noqa: E402  pylint: disable=wrong-import-position

CHECKOUT = 'C:\\kubewin-scenarios'
SCENARIOS = ['node_info', 'default_route', 'untidy_path', 'file_write', 'firewall_rule', 'node_route', 'node_service',
             'service_stop_pending', 'execution_policy', 'kubeadm_join', 'node_reset_link', 'log_rotate_culture', 'port_ranges']
FOLDERS = [os.path.join('tests', 'windows', 'scenarios'), os.path.join('plugins', 'plugin_utils', 'scripts')]
KUBEADM = 'C:\\kubewin-scenario-stubs\\kubeadm.exe'
SERVICE_PROGRAM = 'C:\\kubewin-scenario-stubs\\kubewin-scenario-service.exe'
RUN = ('& powershell.exe -NoProfile -ExecutionPolicy Bypass -File %s\\tests\\windows\\scenarios\\run.ps1 -Root %s'
       % (CHECKOUT, CHECKOUT))


# A node as real servers can be (windows/nettcpip.py, node.py): a second NIC with a DHCP gateway that the
# administrator made the least preferred (interface metric 500), a disabled third NIC.
TWO_NICS = {'ip': '10.0.0.11', 'extra_adapters': [
    {'name': 'Ethernet 2', 'ip': '192.168.50.11', 'gateway': '192.168.50.1', 'dhcp': True, 'interface_metric': 500},
    {'name': 'Ethernet 3', 'status': 'Disabled'}]}


def staged_node(profile=None):
    """A fresh node with the checkout's scenario folder and scripts copied as the molecule play copies them."""
    node = SimNode(initial_state('win1', profile or {'ip': '10.0.0.11'}))
    for folder in FOLDERS:
        for directory, _folders, names in os.walk(os.path.join(ROOT, folder)):
            for name in names:
                local = os.path.join(directory, name)
                relative = os.path.relpath(local, ROOT).replace(os.sep, '\\')
                with open(local, 'rb') as handle:
                    node.write_file('%s\\%s' % (CHECKOUT, relative), data=handle.read())
    return node


def run(node, arguments=''):
    outcome = run_on_node(node, '%s %s\nexit $LASTEXITCODE' % (RUN, arguments))
    assert outcome.unsupported is None, outcome
    return outcome


def test_every_scenario_passes_under_the_engine_and_leaves_the_node_as_it_was():
    node = staged_node()
    # The programs new_stubs.ps1 builds on Windows: kubeadm.exe is the engine's kubeadm model; any other program
    # file a service runs starts (kubewin_sim/scm.py).
    node.write_file(KUBEADM, data=b'MZ')
    node.write_file(SERVICE_PROGRAM, data=b'MZ')
    before = {key: node.data[key] for key in ('services', 'routes', 'firewall_rules')}
    before = {key: repr(value) for key, value in before.items()}
    outcome = run(node, '-KubeadmPath %s -ServiceProgram %s' % (KUBEADM, SERVICE_PROGRAM))
    assert (outcome.output, outcome.exit_code) == (['PASS %s' % name for name in SCENARIOS], 0), outcome
    assert {key: repr(node.data[key]) for key in before} == before
    # The port ranges scenario takes its exclusion away again (a fresh node has none, windows/netsh.py).
    assert netsh.state(node)['excluded'] == {'tcp': [], 'udp': []}
    for path in ('C:\\ProgramData\\kubewin', 'C:\\ProgramData\\kubewin-scenarios',
                 'C:\\ProgramData\\kubewin-scenarios-reset', 'C:\\ProgramData\\kubewin-scenarios-culture'):
        assert node.file(path) is None and not node.is_directory(path), path
    # The culture scenario puts back the culture it found (Set-Culture, windows/culture.py).
    assert node.data.get('culture', 'en-US') == 'en-US'


def test_scenarios_that_need_a_stub_program_say_they_are_skipped_without_one():
    outcome = run(staged_node())
    assert outcome.exit_code == 0, outcome
    assert [line.split(' ', 2)[:2] for line in outcome.output] == [
        ['PASS', 'node_info'], ['PASS', 'default_route'], ['PASS', 'untidy_path'], ['PASS', 'file_write'],
        ['PASS', 'firewall_rule'], ['PASS', 'node_route'], ['SKIP', 'node_service'], ['SKIP', 'service_stop_pending'],
        ['PASS', 'execution_policy'], ['SKIP', 'kubeadm_join'], ['PASS', 'node_reset_link'],
        ['PASS', 'log_rotate_culture'], ['PASS', 'port_ranges']]


def test_on_a_node_with_two_nics_and_a_disabled_one_the_read_only_scenarios_pass():
    # default_route holds node_info's choice to Find-NetRoute's: with the lowest RouteMetric alone, lib/netconfig.ps1
    # took Ethernet 2 (0 + 500) over Ethernet (256 + 15), and the disabled NIC's DNS servers were [null].
    outcome = run(staged_node(TWO_NICS))
    assert outcome.exit_code == 0, outcome
    assert [line.split(' ', 2)[:2] for line in outcome.output][:3] == [
        ['PASS', 'node_info'], ['PASS', 'default_route'], ['PASS', 'untidy_path']]


def test_a_failing_assertion_is_a_fail_line_and_exit_code_1():
    node = staged_node()
    scenario = '%s\\tests\\windows\\scenarios\\scenario_node_info.ps1' % CHECKOUT
    node.write_file(scenario, content=node.file(scenario)['content'].replace('$env:COMPUTERNAME', "'NOT-THIS-HOST'"))
    outcome = run(node)
    assert outcome.exit_code == 1, outcome
    assert outcome.output[0] == "FAIL node_info os.hostname is 'WIN1', expected 'NOT-THIS-HOST'"
    assert outcome.output[-1] == '1 scenario(s) failed'


def test_the_join_scenario_fails_a_script_that_leaves_the_exit_code_null():
    # kubeadm_join.ps1 before its fix for PowerShell issue 5421 (no read of .Handle): ExitCode stays $null.
    node = staged_node()
    node.write_file(KUBEADM, data=b'MZ')
    script = '%s\\plugins\\plugin_utils\\scripts\\kubeadm_join.ps1' % CHECKOUT
    node.write_file(script, content=node.file(script)['content'].replace('$null = $process.Handle', ''))
    outcome = run(node, '-KubeadmPath %s' % KUBEADM)
    assert outcome.exit_code == 1, outcome
    assert [line for line in outcome.output if 'kubeadm_join' in line][0].startswith(
        'FAIL kubeadm_join the failure message (kubeadm join failed with exit code : '), outcome


def test_run_ps1_composes_each_script_as_the_runner_sends_it():
    node = staged_node()
    names = sorted(name[:-4] for name in os.listdir(os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts'))
                   if name.endswith('.ps1'))
    run_ps1 = node.file('%s\\tests\\windows\\scenarios\\run.ps1' % CHECKOUT)['content']
    # run.ps1's functions, without its scenario loop: everything before "$failed = 0".
    functions = run_ps1[run_ps1.index('$ScriptsRoot ='):run_ps1.index('$failed = 0')]
    for name in names:
        outcome = run_on_node(node, "$Root = '%s'\n%s\nGet-KubeWinComposedScript -ScriptName %s" % (CHECKOUT, functions, name))
        assert (outcome.unsupported, outcome.exit_code) == (None, 0), (name, outcome)
        assert outcome.output == [_pwsh.load_script(name)], name
