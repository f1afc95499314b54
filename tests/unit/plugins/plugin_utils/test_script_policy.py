"""_windows.script_policy_problem: a Group Policy execution policy that would refuse the collection's scripts
(about_Execution_Policies: MachinePolicy, then UserPolicy, win over powershell.exe -ExecutionPolicy Bypass)."""

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils._windows import script_policy_problem


def policies(**given):
    scopes = ('MachinePolicy', 'UserPolicy', 'Process', 'CurrentUser', 'LocalMachine')
    return {'execution_policies': {scope: given.get(scope, 'Undefined') for scope in scopes}}


@pytest.mark.parametrize('given', [
    {},  # no Group Policy: the command line's Bypass is in force
    {'LocalMachine': 'AllSigned'},  # a local setting, which -ExecutionPolicy Bypass overrides
    {'CurrentUser': 'Restricted'},
    {'MachinePolicy': 'RemoteSigned'},  # the collection's scripts are written on the node: no Mark of the Web
    {'MachinePolicy': 'Unrestricted', 'UserPolicy': 'AllSigned'},  # the first Group Policy scope wins
    {'UserPolicy': 'Bypass'},
])
def test_policies_under_which_the_scripts_run(given):
    assert script_policy_problem(policies(**given), 'win1') == ''


@pytest.mark.parametrize('given, policy, scope', [
    ({'MachinePolicy': 'AllSigned'}, 'AllSigned', 'MachinePolicy'),
    ({'MachinePolicy': 'Restricted', 'UserPolicy': 'Unrestricted'}, 'Restricted', 'MachinePolicy'),
    ({'UserPolicy': 'AllSigned', 'LocalMachine': 'Unrestricted'}, 'AllSigned', 'UserPolicy'),
])
def test_group_policies_that_refuse_them_are_named_with_their_scope(given, policy, scope):
    message = script_policy_problem(policies(**given), 'win1')
    assert message.startswith('win1: Group Policy sets the PowerShell execution policy %s in the %s scope' % (policy, scope))
    assert 'Nothing was changed.' in message and 'RemoteSigned' in message


def test_a_node_state_without_execution_policies_is_no_problem():
    # node_info of an older collection, or a partial read: nothing to judge.
    assert script_policy_problem({'hostname': 'win1'}) == script_policy_problem(None) == ''
