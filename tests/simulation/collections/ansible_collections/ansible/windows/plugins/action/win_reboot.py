# -*- coding: utf-8 -*-
"""Test-only ansible.windows.win_reboot: reboots the simulated node of the current host and waits for it."""

import os

from ansible.plugins.action import ActionBase

from kubewin_sim.reboot import reboot_and_wait


class ActionModule(ActionBase):
    _VALID_ARGS = frozenset(('boot_time_command', 'connect_timeout', 'connect_timeout_sec', 'msg', 'post_reboot_delay',
                             'post_reboot_delay_sec', 'pre_reboot_delay', 'pre_reboot_delay_sec', 'reboot_timeout',
                             'reboot_timeout_sec', 'shutdown_timeout', 'shutdown_timeout_sec', 'test_command'))

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        result = super().run(tmp, task_vars)
        if self._task.check_mode:
            return dict(result, changed=True, elapsed=0, rebooted=True)
        timeout = int(self._task.args.get('reboot_timeout', 600))
        elapsed = reboot_and_wait(os.environ['KUBEWIN_SIM_STATE_DIR'], task_vars['inventory_hostname'], timeout)
        if elapsed is None:
            return dict(result, failed=True, rebooted=True, msg='Timed out waiting for last boot time check '
                        '(timeout=%s)' % timeout)
        return dict(result, changed=True, rebooted=True, elapsed=elapsed)
