"""The simulated Windows Update Agent the fake ansible.windows.win_updates drives (kubewin_sim/windows_update.py),
held to ansible.windows' plugins/modules/win_updates.ps1 (search and filter rules, check mode and states, the
install's results) and to WUA's ISystemInformation.RebootRequired (a restart due until the node boots again)."""

import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import windows_update  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402

LCU = {'id': 'u-lcu', 'title': '2026-11 Cumulative Update for Microsoft server operating system (KB5070001)',
       'kb': ['5070001'], 'categories': ['Security Updates'], 'reboot_required': True}
MSRT = {'id': 'u-msrt', 'title': 'Windows Malicious Software Removal Tool x64 - v5.135 (KB890830)', 'kb': ['890830'],
        'categories': ['Update Rollups'], 'reboot_required': False}
DEFENDER = {'id': 'u-def', 'title': 'Security Intelligence Update for Microsoft Defender Antivirus (KB2267602)',
            'kb': ['2267602'], 'categories': ['Definition Updates'], 'reboot_required': False}
OPTIONAL = {'id': 'u-opt', 'title': '2026-11 Cumulative Update Preview (KB5070099)', 'kb': ['5070099'],
            'categories': ['Updates'], 'reboot_required': True, 'browse_only': True}
# win_updates' defaults (plugins/modules/win_updates.py).
DEFAULTS = {'category_names': ['CriticalUpdates', 'SecurityUpdates', 'UpdateRollups'], 'accept_list': None,
            'reject_list': None, 'skip_optional': False, 'state': 'installed'}


def _node(*updates):
    node = SimNode(initial_state('win1', {}))
    node.data['windows_update'] = {'updates': [dict(update) for update in updates]}
    return node


def _params(**changes):
    return dict(DEFAULTS, **changes)


def test_the_default_categories_take_their_short_names_and_filter_the_rest():
    answer = windows_update.run_round(_node(LCU, MSRT, DEFENDER), _params(), check_mode=True)
    assert answer['selected'] == ['u-lcu', 'u-msrt']
    assert answer['filtered'] == {'u-def': ['category_names']}
    assert [u['kb'] for u in answer['found']] == [['KB5070001'], ['KB890830'], ['KB2267602']], \
        'Format-UpdateInfo reports the KB ids with their KB prefix'


def test_a_star_takes_every_category_and_category_names_match_without_case():
    assert windows_update.run_round(_node(LCU, DEFENDER), _params(category_names=['*']), True)['selected'] == [
        'u-lcu', 'u-def']
    assert windows_update.run_round(_node(LCU, DEFENDER), _params(category_names=['definition updates']),
                                    True)['selected'] == ['u-def']


def test_accept_and_reject_lists_are_regular_expressions_on_the_title_and_the_kb_ids():
    node = _node(LCU, MSRT, DEFENDER)
    answer = windows_update.run_round(node, _params(category_names=['*'], accept_list=['KB5070001', 'malicious']), True)
    assert answer['selected'] == ['u-lcu', 'u-msrt'] and answer['filtered'] == {'u-def': ['accept_list']}
    answer = windows_update.run_round(node, _params(category_names=['*'], reject_list=[r'\d{4}-\d{2} Cumulative']), True)
    assert answer['selected'] == ['u-msrt', 'u-def'] and answer['filtered'] == {'u-lcu': ['reject_list']}


def test_every_reason_is_named_in_the_modules_order():
    hidden = dict(OPTIONAL, hidden=True)
    answer = windows_update.run_round(_node(hidden), _params(accept_list=['KB1'], reject_list=['Preview'],
                                                             skip_optional=True), True)
    assert answer['filtered'] == {'u-opt': ['accept_list', 'reject_list', 'hidden', 'category_names', 'skip_optional']}


def test_check_mode_and_searched_install_nothing_and_only_check_mode_reports_a_change():
    node = _node(LCU, MSRT)
    check = windows_update.run_round(node, _params(), check_mode=True)
    searched = windows_update.run_round(node, _params(state='searched'), check_mode=False)
    assert check['changed'] is True and searched['changed'] is False
    assert check['installed'] == searched['installed'] == {}
    assert not any(u.get('installed_at') or u.get('downloaded') for u in windows_update.updates(node))


def test_an_install_that_needs_a_restart_is_due_until_the_node_boots_again():
    node = _node(LCU, MSRT)
    answer = windows_update.run_round(node, _params(), check_mode=False)
    assert answer['changed'] and not answer['failed'] and answer['reboot_required'] is True
    assert answer['downloaded'] == answer['installed'] == {
        'u-lcu': {'result_code': windows_update.SUCCEEDED, 'hresult': 0},
        'u-msrt': {'result_code': windows_update.SUCCEEDED, 'hresult': 0}}
    # Installed updates are not found again (IsInstalled = 0), the restart is still due.
    again = windows_update.run_round(node, _params(), check_mode=False)
    assert again['found'] == [] and again['reboot_required'] is True and not again['changed']
    node.reboot()
    assert windows_update.reboot_required(node) is False


def test_installing_while_a_restart_is_due_fails_as_the_module_does():
    node = _node(LCU)
    windows_update.run_round(node, _params(), check_mode=False)
    node.data['windows_update']['updates'].append(dict(MSRT))
    answer = windows_update.run_round(node, _params(), check_mode=False)
    assert answer['failed'] and answer['msg'] == 'A reboot is required before more updates can be installed'
    assert answer['installed'] == {}


def test_a_failed_install_has_result_code_4_and_its_hresult():
    # WU_E_ALL_UPDATES_FAILED as wuerror.h of the Windows SDK names it.
    failing = dict(MSRT, install_hresult=0x80240022,
                   install_error=('WU_E_ALL_UPDATES_FAILED', 'Operation failed for all the updates'))
    answer = windows_update.run_round(_node(failing, LCU), _params(), check_mode=False)
    assert answer['failed'] and answer['msg'] == 'Failed to install all updates - see updates for more information'
    assert answer['installed']['u-msrt'] == {
        'result_code': windows_update.FAILED, 'hresult': 0x80240022,
        'failure_msg': 'Operation failed for all the updates (WU_E_ALL_UPDATES_FAILED 0x80240022)'}
    assert answer['installed']['u-lcu']['result_code'] == windows_update.SUCCEEDED


def test_downloaded_downloads_and_installs_nothing():
    node = _node(LCU)
    answer = windows_update.run_round(node, _params(state='downloaded'), check_mode=False)
    assert answer['changed'] and answer['downloaded'] == {'u-lcu': {'result_code': 2, 'hresult': 0}}
    assert answer['installed'] == {} and not windows_update.reboot_required(node)
    assert windows_update.run_round(node, _params(state='downloaded'), check_mode=False)['changed'] is False, \
        'an update already downloaded is not downloaded again'
