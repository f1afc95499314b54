"""lib/ovs.ps1's Invoke-KubeWinOvsVsctl, as written in the file, run by the engine under the callers' Stop.

The function runs another modelled native program that writes stderr and exits non-zero (kubeadm.exe with an
unknown command): it is generic over the program path it is given (ovs-vsctl.exe's model, windows/openvswitch.py,
runs in test_windows_ovs.py). A program that warns on stderr and exits 0 is not modelled, so that case has no test
here.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import run_on_node  # noqa: E402  pylint: disable=wrong-import-position

with open(os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts', 'lib', 'ovs.ps1'), encoding='utf-8') as handle:
    OVS = handle.read()
START = OVS.index('function Invoke-KubeWinOvsVsctl {')
INVOKE = OVS[START:OVS.index('\n}\n', START) + 3]


def test_the_exit_code_decides_and_stderr_goes_into_the_message():
    # In 5.1 a stderr line merged with 2>&1 is a NativeCommandError record; under Stop the old function ended
    # on the first one, before it looked at the exit code.
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    node.write_file('C:\\k\\kubeadm.exe', sha256='0' * 64, size=1)
    outcome = run_on_node(node, "$ErrorActionPreference = 'Stop'\n" + INVOKE +
                          "\ntry { Invoke-KubeWinOvsVsctl -Vsctl C:\\k\\kubeadm.exe -Arguments @('upgrade') }\n"
                          "catch { $_.FullyQualifiedErrorId -eq 'NativeCommandError'; $_.Exception.Message }\n$ErrorActionPreference")
    assert (outcome.unsupported, outcome.exit_code, outcome.errors) == (None, 0, []), outcome
    assert outcome.output == ['False', 'ovs-vsctl upgrade failed with exit code 1: unknown command "upgrade" '
                              'for "kubeadm" Run \'kubeadm --help\' for usage.', 'Stop']
