"""The prerequisites role refuses a node whose Group Policy execution policy would refuse the collection's scripts
(issue 28, defect 8), before anything changes; a Group Policy of RemoteSigned runs them and passes."""

import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))
sys.path.insert(0, os.path.abspath(os.path.dirname(__file__)))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402

PLAY = '''
- name: Plan
  hosts: localhost
  gather_facts: false
  roles:
    - role: kubewin.node.plan
      vars:
        plan_distribute: true

- name: Prerequisites
  hosts: windows_nodes
  gather_facts: false
  roles:
    - role: kubewin.node.prerequisites
'''


def _run(tmp_path, policy):
    sim = Simulation(tmp_path)
    inventory = network_play.inventory(sim, profile={'group_policy_execution_policy': policy},
                                       kubernetes_version='1.31.14', topology='overlay')
    return sim, network_play.run(sim, sim.write('prerequisites.yml', PLAY), inventory)


def test_a_group_policy_of_allsigned_is_refused_before_any_change(tmp_path):
    sim, run = _run(tmp_path, 'AllSigned')
    assert run.rc != 0
    result = network_play.task(run, "Check that PowerShell runs the collection's scripts on the node", 'win1')
    assert result['status'] == 'failed'
    assert result['result']['msg'].startswith(
        'win1: Group Policy sets the PowerShell execution policy AllSigned in the MachinePolicy scope, for the computer '
        '(HKLM\\SOFTWARE\\Policies\\Microsoft\\Windows\\PowerShell)')
    # The snapshot was the only remote call: nothing on the node changed.
    assert run.calls['win1']['total'] == 1


def test_a_group_policy_of_remotesigned_passes(tmp_path):
    _sim, run = _run(tmp_path, 'RemoteSigned')
    result = network_play.task(run, "Check that PowerShell runs the collection's scripts on the node", 'win1')
    assert result['status'] == 'ok', run.output
