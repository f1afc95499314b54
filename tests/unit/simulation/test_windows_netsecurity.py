"""Windows Firewall rules (kubewin_sim/windows/netsecurity.py) and the real scripts that manage them.

The cmdlets' documented behaviour first; then lib/state.ps1's Get-KubeWinFirewallRule and the
'firewall' section of Get-KubeWinNodeState, and firewall_rule_apply.ps1, run by the engine. The
script includes lib/state, which includes hns/netconfig/services/files/ovs (other areas, not all
runnable yet): the include line is replaced with just the two functions of lib/state it calls, taken
from the file's text.
"""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import run_on_node  # noqa: E402  pylint: disable=wrong-import-position

SCRIPTS = os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts')


def _read(name):
    with open(os.path.join(SCRIPTS, name), encoding='utf-8') as handle:
        return handle.read()


def function_text(text, name):
    """One top-level function of a lib, as written in the file (it ends at the first column-0 brace)."""
    start = text.index('function %s {' % name)
    return text[start:text.index('\n}\n', start) + 3]


STATE = _read('lib/state.ps1')
STATE_FUNCTIONS = function_text(STATE, 'Get-KubeWinFirewallRule') + function_text(STATE, 'Get-KubeWinNodeState')


def apply_script():
    # $Ansible is what win_powershell provides to the script.
    return _read('firewall_rule_apply.ps1').replace(
        '# kubewin-include: state', STATE_FUNCTIONS + '\n$Ansible = [pscustomobject]@{ Result = $null }') + '\n$Ansible.Result\n'


def fresh_node():
    return SimNode(initial_state('win1', {'ip': '10.0.0.11'}))


def run(node, text, parameters=None):
    outcome = run_on_node(node, text, parameters)
    assert outcome.unsupported is None, outcome.unsupported
    return outcome


def ok(node, text, parameters=None):
    outcome = run(node, text, parameters)
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    return outcome.output


def rule(**overrides):
    data = {'display_name': 'VXLAN', 'enabled': True, 'direction': 'inbound', 'action': 'allow', 'protocol': 'udp',
            'local_port': ['4789'], 'remote_address': []}
    data.update(overrides)
    return data


# -- the cmdlets ------------------------------------------------------------------------------------

def test_a_rule_reads_as_msft_netfirewallrule_with_generated_enums():
    node = fresh_node()
    node.data['firewall_rules']['kubewin-vxlan'] = rule()
    out = ok(node, '$r = Get-NetFirewallRule -Name kubewin-vxlan\n'
                   '$r.Name; $r.DisplayName; [string]$r.Enabled; [string]$r.Direction; [string]$r.Action; [string]$r.Profile\n'
                   '$r.Enabled.GetType().FullName\n'
                   '(ConvertTo-Json -Compress -InputObject ([ordered]@{e = $r.Enabled; d = $r.Direction; a = $r.Action}))')
    assert out == ['kubewin-vxlan', 'VXLAN', 'True', 'Inbound', 'Allow', 'Any',
                   'Microsoft.PowerShell.Cmdletization.GeneratedTypes.NetSecurity.Enabled', '{"e":1,"d":1,"a":2}']


def test_a_missing_name_is_a_non_terminating_error_silenced_by_erroraction():
    node = fresh_node()
    outcome = run(node, "Get-NetFirewallRule -Name nope\n'after'")
    assert outcome.output == ['after'] and len(outcome.errors) == 1
    assert "No MSFT_NetFirewallRule objects found with property 'InstanceID' equal to 'nope'" in outcome.errors[0]
    assert ok(node, "$r = Get-NetFirewallRule -Name nope -ErrorAction SilentlyContinue\n[string]($null -eq $r)") == ['True']


def test_wildcards_select_by_name_and_match_nothing_silently():
    node = fresh_node()
    node.data['firewall_rules'].update({'kubewin-a': rule(), 'kubewin-b': rule(), 'other': rule()})
    assert ok(node, "@(Get-NetFirewallRule -Name 'kubewin-*' | ForEach-Object { $_.Name }) -join ','") == ['kubewin-a,kubewin-b']
    assert ok(node, "@(Get-NetFirewallRule -Name 'none-*').Count") == ['0']


def test_port_filter_protocol_and_local_port_any_when_none():
    node = fresh_node()
    node.data['firewall_rules'].update({'r1': rule(), 'r2': rule(protocol='tcp', local_port=[]),
                                        'r3': rule(protocol='any', local_port=[])})
    out = ok(node, "foreach ($n in 'r1', 'r2', 'r3') { $f = Get-NetFirewallRule -Name $n | Get-NetFirewallPortFilter\n"
                   "'{0} {1} {2}' -f $f.Protocol, ($f.LocalPort -join ','), $f.LocalPort.GetType().Name }")
    assert out == ['UDP 4789 String[]', 'TCP Any String[]', 'Any Any String[]']


def test_new_rule_defaults_and_an_existing_name_fails():
    node = fresh_node()
    ok(node, "$null = New-NetFirewallRule -Name r1 -DisplayName 'One'")
    assert node.data['firewall_rules']['r1'] == rule(display_name='One', protocol='any', local_port=[])
    outcome = run(node, "New-NetFirewallRule -Name r1 -DisplayName 'Two'; 'after'")
    assert outcome.output == ['after'] and outcome.errors == ['Cannot create a file when that file already exists.']
    assert node.data['firewall_rules']['r1']['display_name'] == 'One'


def test_new_rule_takes_the_documented_strings_for_enabled_direction_action():
    node = fresh_node()
    ok(node, "$null = New-NetFirewallRule -Name r1 -DisplayName x -Enabled False -Direction Outbound -Action Block "
             "-Protocol TCP -LocalPort 10250, '30000-32767'")
    assert node.data['firewall_rules']['r1'] == rule(display_name='x', enabled=False, direction='outbound', action='block',
                                                     protocol='tcp', local_port=['10250', '30000-32767'])


def test_set_by_name_with_displayname_is_an_ambiguous_parameter_set():
    node = fresh_node()
    node.data['firewall_rules']['r1'] = rule()
    outcome = run(node, "Set-NetFirewallRule -Name r1 -DisplayName 'New'")
    assert outcome.errors == ['Parameter set cannot be resolved using the specified named parameters.']
    ok(node, "Set-NetFirewallRule -Name r1 -NewDisplayName 'New' -LocalPort 4790")
    assert node.data['firewall_rules']['r1'] == rule(display_name='New', local_port=['4790'])


def test_set_by_display_name_and_remove():
    node = fresh_node()
    node.data['firewall_rules'].update({'r1': rule(display_name='A'), 'r2': rule(display_name='B')})
    ok(node, "Set-NetFirewallRule -DisplayName A -Enabled False")
    assert node.data['firewall_rules']['r1']['enabled'] is False and node.data['firewall_rules']['r2']['enabled'] is True
    ok(node, "Remove-NetFirewallRule -Name r1")
    assert list(node.data['firewall_rules']) == ['r2']
    outcome = run(node, "Remove-NetFirewallRule -Name r1")
    assert outcome.exit_code == 0 and len(outcome.errors) == 1


def test_remote_address_takes_the_documented_forms_and_reads_back_ipv4_subnets_with_their_mask():
    node = fresh_node()
    ok(node, "$null = New-NetFirewallRule -Name r1 -DisplayName x -RemoteAddress '10.20.0.0/16', 'fd00::/64', "
             "'192.0.2.7', '10.1.0.0/255.255.0.0', '10.0.0.1-10.0.0.9'")
    out = ok(node, "$f = Get-NetFirewallRule -Name r1 | Get-NetFirewallAddressFilter\n"
                   "$f.RemoteAddress -join ','; $f.LocalAddress -join ','; $f.RemoteAddress.GetType().Name")
    assert out == ['10.20.0.0/255.255.0.0,fd00::/64,192.0.2.7,10.1.0.0/255.255.0.0,10.0.0.1-10.0.0.9', 'Any', 'String[]']
    # Any (the keyword) lifts the limit; a rule without one reads Any.
    ok(node, "Set-NetFirewallRule -Name r1 -RemoteAddress Any")
    assert node.data['firewall_rules']['r1']['remote_address'] == []
    assert ok(node, "(Get-NetFirewallRule -Name r1 | Get-NetFirewallAddressFilter).RemoteAddress -join ','") == ['Any']
    # -AssociatedNetFirewallRule names the rule as the pipeline does.
    ok(node, "Set-NetFirewallRule -Name r1 -RemoteAddress 10.9.0.0/24")
    assert ok(node, "(Get-NetFirewallAddressFilter -AssociatedNetFirewallRule (Get-NetFirewallRule -Name r1))"
                    ".RemoteAddress") == ['10.9.0.0/255.255.255.0']


def test_a_remote_address_in_no_documented_form_and_an_unmodelled_setting_are_unsupported():
    node = fresh_node()
    outcome = run_on_node(node, "New-NetFirewallRule -Name r1 -DisplayName x -RemoteAddress 'ten.0.0.0/8'")
    assert 'RemoteAddress' in str(outcome.unsupported)
    outcome = run_on_node(node, "New-NetFirewallRule -Name r1 -DisplayName x -RemotePort 443")
    assert 'RemotePort' in str(outcome.unsupported)
    assert node.data['firewall_rules'] == {}


# -- lib/state.ps1 ---------------------------------------------------------------------------------

def firewall_section(node, names):
    text = STATE_FUNCTIONS + '\nConvertTo-Json -Depth 5 -Compress -InputObject (Get-KubeWinNodeState -Sections @(\'firewall\') ' \
        '-FirewallRules @(%s))' % ', '.join("'%s'" % name for name in names)
    return json.loads(ok(node, text)[-1])


def reported(name, data):
    """How Get-KubeWinFirewallRule reports an existing rule: its model fields, its name and exists."""
    return dict(data, name=name, exists=True)


@pytest.mark.parametrize('ports', [['4789'], [], ['10250', '30000-32767']])
def test_the_firewall_section_reports_the_asked_rules_and_every_kubewin_rule(ports):
    # The rule without a port used to be reported with local_port ['Any'] (the port filter's keyword)
    # where firewall_rule's check_applied expects [].
    node = fresh_node()
    node.data['firewall_rules'].update({'kubewin-x': rule(local_port=ports, protocol='tcp'), 'other': rule(),
                                        'kubewin-y': rule(remote_address=['10.0.0.0/255.0.0.0', 'fd00::/8'])})
    assert firewall_section(node, ['other', 'absent']) == {'sections': ['firewall'], 'firewall': {
        'other': reported('other', rule()),
        'absent': {'name': 'absent', 'exists': False},
        'kubewin-x': reported('kubewin-x', rule(local_port=ports, protocol='tcp')),
        'kubewin-y': reported('kubewin-y', rule(remote_address=['10.0.0.0/255.0.0.0', 'fd00::/8']))}}


# -- firewall_rule_apply.ps1 -----------------------------------------------------------------------

def apply(node, **parameters):
    parameters.setdefault('Direction', 'inbound')
    parameters.setdefault('Action', 'allow')
    outcome = run(node, apply_script(), parameters)
    return outcome


def test_apply_creates_then_updates_a_rule():
    # An update used to splat -DisplayName next to -Name into Set-NetFirewallRule: AmbiguousParameterSet.
    node = fresh_node()
    for display, ports in (('VXLAN', ['4789']), ('VXLAN overlay', ['4789', '4790']), ('VXLAN overlay', [])):
        outcome = apply(node, Name='kubewin-vxlan', DisplayName=display, Protocol='udp', LocalPort=ports)
        assert (outcome.exit_code, outcome.errors) == (0, []), outcome
        expected = rule(display_name=display, local_port=ports)
        assert node.data['firewall_rules'] == {'kubewin-vxlan': expected}
        assert json.loads(outcome.output[-1]) == {'state': {'sections': ['firewall'], 'firewall': {
            'kubewin-vxlan': reported('kubewin-vxlan', expected)}}}


def test_apply_removes_a_rule():
    node = fresh_node()
    node.data['firewall_rules']['kubewin-vxlan'] = rule()
    outcome = apply(node, Name='kubewin-vxlan', Remove=True)
    assert json.loads(outcome.output[-1]) == {'state': {'sections': ['firewall'], 'firewall': {
        'kubewin-vxlan': {'name': 'kubewin-vxlan', 'exists': False}}}}
    assert json.loads(apply(node, Name='kubewin-vxlan', Remove=True).output[-1])['state']['firewall'] == {
        'kubewin-vxlan': {'name': 'kubewin-vxlan', 'exists': False}}


def test_a_value_that_is_no_enum_member_does_not_bind_and_changes_nothing():
    node = fresh_node()
    node.data['firewall_rules']['r1'] = rule()
    outcome = run(node, "Set-NetFirewallRule -Name r1 -Direction Sideways -LocalPort 1")
    assert len(outcome.errors) == 1 and outcome.errors[0].startswith(
        "Cannot bind parameter 'Direction'. Cannot convert value \"Sideways\" to type "
        "\"Microsoft.PowerShell.Cmdletization.GeneratedTypes.NetSecurity.Direction\"")
    assert node.data['firewall_rules']['r1'] == rule()
