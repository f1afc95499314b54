# -*- coding: utf-8 -*-
"""Callback plugin for tests: write every task result and the recap as JSON lines."""

DOCUMENTATION = r'''
name: kubewin_results
type: aggregate
short_description: Record task results for kubewin.node's tests
description:
  - Test-only. When C(KUBEWIN_SIM_RESULTS) names a file, appends one JSON object per task
    result and one with the play recap to it. Results of C(no_log) tasks are censored as
    Ansible censors them on screen.
'''

import json
import os
import time

from ansible.plugins.callback import CallbackBase

CENSORED = 'the output has been hidden due to the fact that no_log: true was specified for this result'


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'kubewin_results'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._path = os.environ.get('KUBEWIN_SIM_RESULTS')
        self._started = {}

    def _write(self, record):
        if not self._path:
            return
        with open(self._path, 'a', encoding='utf-8') as handle:
            handle.write(json.dumps(record, default=str, sort_keys=True) + '\n')

    def v2_runner_on_start(self, host, task):
        self._started[(host.get_name(), task._uuid)] = time.monotonic()

    def _record(self, result, status):
        task = result._task
        data = dict(result._result)
        if data.get('_ansible_no_log'):
            data = {'censored': CENSORED, 'changed': data.get('changed', False)}
        started = self._started.pop((result._host.get_name(), task._uuid), None)
        self._write({
            'type': 'task',
            'host': result._host.get_name(),
            'task': task.get_name(),
            'action': task.action,
            'status': status,
            'changed': bool(result._result.get('changed')),
            'seconds': round(time.monotonic() - started, 3) if started else None,
            'result': {key: value for key, value in data.items() if not key.startswith('_ansible')},
        })

    def v2_runner_on_ok(self, result):
        self._record(result, 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, 'ignored' if ignore_errors else 'failed')

    def v2_runner_on_skipped(self, result):
        self._record(result, 'skipped')

    def v2_runner_on_unreachable(self, result):
        self._record(result, 'unreachable')

    def v2_playbook_on_stats(self, stats):
        hosts = sorted(stats.processed.keys())
        self._write({'type': 'stats', 'hosts': {host: stats.summarize(host) for host in hosts}})
