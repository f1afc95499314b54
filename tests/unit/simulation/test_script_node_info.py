"""node_info.ps1, whole, run by the engine on the Windows model: every section answers as the node_info twin
does, and the answer holds its contract (plugins/plugin_utils/_contracts.py). The ovs section on nodes with Open
vSwitch installed is in test_windows_ovs.py."""

import datetime
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.handlers.core import node_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402  pylint: disable=wrong-import-position

SECTIONS = ['os', 'features', 'adapters', 'routes', 'hns', 'services', 'files', 'artifacts', 'firewall', 'environment',
            'contents', 'ovs']


def test_node_info_runs_whole_and_answers_as_its_twin():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    parameters = {'Sections': SECTIONS, 'Features': ['Containers'], 'Services': ['kubelet', 'WinRM'],
                  'Environment': ['NO_PROXY']}
    result = invoke(node, _pwsh.load_script('node_info'), parameters, error_action='stop')
    assert (result['failed'], result['error']) == (False, [])
    real = _contracts.check('node_info', json.loads(result['result']))
    twin = node_state(node, SECTIONS, ['Containers'], ['kubelet', 'WinRM'], [], [], ['NO_PROXY'], [])
    # The same instant: .NET's round-trip format ('o') against Python's isoformat.
    assert datetime.datetime.fromisoformat(real['os'].pop('last_boot').replace('0Z', '+00:00')) == \
        datetime.datetime.fromisoformat(twin['os'].pop('last_boot'))
    # WinRM exists on every Windows Server; the twin knows only the services the collection creates.
    assert real['services'].pop('WinRM')['exists'] is True and twin['services'].pop('WinRM')['exists'] is False
    assert real == twin
