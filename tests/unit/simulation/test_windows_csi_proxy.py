"""csi-proxy in the Windows model (kubewin_sim/csi_proxy.py, windows/pipes.py): the program as a service, its flags,
the named pipes it serves, and node_info's csi_proxy section run whole.

Sources: kubernetes-csi/csi-proxy (cmd/csi-proxy/main.go, client/utils.go, pkg/server), named per test.
"""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _csi_proxy, _pwsh  # noqa: E402
from kubewin_sim import csi_proxy  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import run_on_node  # noqa: E402
from kubewin_sim.windows.services import new_service_record  # noqa: E402
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402

RUNNER, BINARY = 'C:\\k\\kube-log-runner.exe', 'C:\\k\\csi-proxy.exe'
LOG = '-log-file=C:\\var\\log\\csi-proxy\\csi-proxy.log'


def csi_node(*services):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    for path in (RUNNER, BINARY):
        node.write_file(path, data=b'MZ')
    for name, arguments in services:
        node.data['services'][name] = new_service_record(name, '%s %s %s %s' % (RUNNER, LOG, BINARY, arguments), name,
                                                         'auto')
    return node


def run(node, text):
    outcome = run_on_node(node, text)
    assert outcome.unsupported is None, outcome.unsupported
    return outcome


def pipes(node):
    result = invoke(node, _pwsh.load_script('node_info'), {'Sections': ['csi_proxy']}, error_action='stop')
    return _contracts.check('node_info', json.loads(result['result']))['csi_proxy']['pipes']


def test_a_fresh_node_has_no_csi_proxy_pipes_and_only_the_pipe_folder_is_modelled():
    node = csi_node()
    assert pipes(node) == []
    outcome = run_on_node(node, "[System.IO.Directory]::GetFiles('C:\\k')")
    assert 'GetFiles' in outcome.unsupported


def test_the_service_serves_one_pipe_per_api_group_and_version_while_it_runs():
    # client/utils.go PipePath: \\.\pipe\csi-proxy-<group>-<version>; pkg/server/<group>/api_group_generated.go.
    node = csi_node(('csiproxy', '-windows-service -v=2'))
    outcome = run(node, "Start-Service -Name csiproxy; @([System.IO.Directory]::GetFiles('\\\\.\\pipe\\')) -join ','")
    assert outcome.errors == []
    listed = outcome.output[0].split(',')
    assert listed == ['\\\\.\\pipe\\' + name for name in sorted(csi_proxy.PIPES)]
    assert len(listed) == 23 and set(_csi_proxy.V1_PIPES) <= set(pipes(node))
    run(node, 'Stop-Service -Name csiproxy')
    assert pipes(node) == []


@pytest.mark.parametrize('arguments, exit_code, reason', [
    # main.go: without -windows-service it never connects to the service control manager (1053).
    ('-v=2', 1053, 'without -windows-service does not report to the service control manager'),
    # Go's flag package: a flag the release does not define ends the program.
    ('-windows-service -kubelet-csi-plugins-path=C:\\x', 1, 'flag provided but not defined: -kubelet-csi-plugins-path'),
])
def test_a_csi_proxy_service_that_cannot_start(arguments, exit_code, reason):
    node = csi_node(('csiproxy', arguments))
    outcome = run_on_node(node, "Start-Service -Name csiproxy")
    # Start-Service reports Windows' own error; the reason is what the program did (the node's log).
    assert outcome.errors == ["Service 'csiproxy (csiproxy)' cannot be started due to the following error: Cannot "
                              "start service csiproxy on computer '.'."]
    assert node.data['services']['csiproxy']['exit_code'] == exit_code
    assert any(reason in line for line in node.data['log']), node.data['log']
    assert pipes(node) == []


def test_the_release_decides_which_flags_exist():
    # -require-privacy from 1.2.0, -metrics-bind-address from 1.3.0 (main.go at those tags).
    assert csi_proxy.parse_flags(['-metrics-bind-address', ':8888'], 'v1.3.0') == ({'metrics-bind-address': ':8888'}, None)
    assert csi_proxy.parse_flags(['-metrics-bind-address', ':8888'], 'v1.1.3')[1] == (
        'flag provided but not defined: -metrics-bind-address')
    assert csi_proxy.parse_flags(['-require-privacy=false', '-v', '4'], '1.2.1') == (
        {'require-privacy': 'false', 'v': '4'}, None)


def test_a_second_csi_proxy_cannot_serve_the_pipes():
    # go-winio ListenPipe creates the first instance of each pipe: access denied while another process serves it.
    node = csi_node(('csiproxy', '-windows-service'), ('csiproxy2', '-windows-service'))
    outcome = run_on_node(node, "Start-Service -Name csiproxy; Start-Service -Name csiproxy2")
    assert any('csiproxy2' in error for error in outcome.errors), outcome.errors
    assert [s['state'] for s in (node.data['services']['csiproxy'], node.data['services']['csiproxy2'])] == [
        'running', 'stopped']
    assert any('Access is denied' in line for line in node.data['log'])
