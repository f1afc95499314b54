# -*- coding: utf-8 -*-
"""Test-only ansible.windows.win_updates: the Windows Update Agent of the simulated node of the current host.

The real one is an action plugin that starts the module (a search, download and install round) and, with
reboot=true, restarts the host when an install asks for it and starts another round, until a round finds nothing
more to install (plugins/action/win_updates.py, _run_sync). This one runs those rounds against the node's updates
(kubewin_sim/windows_update.py) and restarts it the way the fake win_reboot does; it takes the real argument spec
and returns the real result: updates and filtered_updates by update id, the counts, reboot_required, rebooted.
Each round costs the remote calls the real one makes: start, poll and cancel.
"""

import os

from ansible.plugins.action import ActionBase

from kubewin_sim import windows_update
from kubewin_sim.node import open_node, peek
from kubewin_sim.reboot import reboot_and_wait

# plugins/modules/win_updates.ps1's $spec, less the internal _operation options.
ARGUMENT_SPEC = {
    'accept_list': {'type': 'list', 'elements': 'str'},
    'category_names': {'type': 'list', 'elements': 'str',
                       'default': ['CriticalUpdates', 'SecurityUpdates', 'UpdateRollups']},
    'log_path': {'type': 'path'},
    'reject_list': {'type': 'list', 'elements': 'str'},
    'server_selection': {'type': 'str', 'choices': ['default', 'managed_server', 'windows_update'], 'default': 'default'},
    'state': {'type': 'str', 'choices': ['installed', 'searched', 'downloaded'], 'default': 'installed'},
    'skip_optional': {'type': 'bool', 'default': False},
    'reboot': {'type': 'bool', 'default': False},
    'reboot_timeout': {'type': 'int', 'default': 1200},
}
# The module's start, poll and cancel operations of one round.
CALLS_PER_ROUND = 3


class ActionModule(ActionBase):

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        result = super().run(tmp, task_vars)
        params = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        if params.get('log_path'):
            return dict(result, failed=True, msg='the simulation does not write the Windows Update log (log_path)')
        state_dir, host = os.environ['KUBEWIN_SIM_STATE_DIR'], task_vars['inventory_hostname']
        if not peek(state_dir, host).reachable():
            return dict(result, unreachable=True, msg='simulated node %s is unreachable' % host)
        check_mode = self._task.check_mode
        found, filtered, selected, downloads, installs = {}, {}, set(), {}, {}
        result.update(changed=False, reboot_required=False, rebooted=False)
        rebooted_on_failure = False
        attempted = set()
        while True:
            with open_node(state_dir, host) as node:
                for dummy in range(CALLS_PER_ROUND):
                    node.count_call('win_updates')
                answer = windows_update.run_round(node, params, check_mode)
            found.update((u['id'], u) for u in answer['found'])
            filtered.update(answer['filtered'])
            selected.update(answer['selected'])
            downloads.update(answer['downloaded'])
            installs.update(answer['installed'])
            # A round that only installs again what an earlier round installed is a loop (an update rolled back at
            # the restart, or one WUA reports installed that is not): the real plugin marks them failed and stops.
            if answer['installed'] and not set(answer['installed']) - attempted:
                for update_id in answer['installed']:
                    installs[update_id] = {'result_code': windows_update.FAILED, 'hresult': -1,
                                           'failure_msg': 'Unknown WUA HRESULT -1 (UNKNOWN 0xFFFFFFFF)'}
                result.update(failed=True, msg='An update loop was detected, this could be caused by an update being '
                              'rolled back during a reboot or the Windows Update API incorrectly reporting a failed '
                              'update as being successful.Check the Windows Updates logs on the host to gather more '
                              'information. Updates in the reboot loop are: %s' % ', '.join(answer['installed']))
                break
            attempted.update(answer['installed'])
            reboot_required = result['reboot_required'] = answer['reboot_required']
            result['changed'] = result['changed'] or answer['changed']
            if answer['failed']:
                # A failure may be a restart that a previous install left due: with reboot=true the real plugin
                # restarts once before it gives up.
                if params['reboot'] and not rebooted_on_failure and params['state'] != 'searched':
                    reboot_required = rebooted_on_failure = True
                else:
                    result.update(failed=True, msg=answer['msg'])
                    break
            elif params['reboot']:
                rebooted_on_failure = False
            if reboot_required and params['reboot']:
                result['rebooted'] = True
                if not check_mode and reboot_and_wait(state_dir, host, params['reboot_timeout'], 'win_updates') is None:
                    result.update(failed=True, msg='Failed to reboot host: Timed out waiting for last boot time '
                                  'check (timeout=%s)' % params['reboot_timeout'])
                    break
                result.update(changed=True, reboot_required=False)
            if (not params['reboot'] or check_mode or params['state'] != 'installed'
                    or (not reboot_required and not answer['selected'])):
                break
        result.update(self._report(found, filtered, selected, downloads, installs))
        return result

    @staticmethod
    def _report(found, filtered, selected, downloads, installs):
        """The final result as the real plugin builds it (ActionModule.run, _get_update_info)."""
        def entry(update_id):
            raw = found[update_id]
            value = {'title': raw['title'], 'kb': [kb[2:] if kb.startswith('KB') else kb for kb in raw['kb']],
                     'categories': raw['categories'], 'id': update_id, 'downloaded': False, 'installed': False}
            for action, results in (('downloaded', downloads), ('installed', installs)):
                outcome = results.get(update_id)
                if outcome and outcome['result_code'] == windows_update.SUCCEEDED:
                    value[action] = True
                elif outcome:
                    value['failure_hresult_code'] = outcome['hresult']
                    value['failure_msg'] = outcome['failure_msg']
            return value

        updates = {update_id: entry(update_id) for update_id in selected}
        return {
            'updates': updates,
            'filtered_updates': {update_id: dict(entry(update_id), filtered_reasons=reasons)
                                 for update_id, reasons in filtered.items()},
            'found_update_count': len(updates),
            'failed_update_count': sum(1 for u in updates.values() if 'failure_hresult_code' in u),
            'installed_update_count': sum(1 for u in updates.values()
                                          if 'failure_hresult_code' not in u and u['installed']),
        }
