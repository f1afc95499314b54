# -*- coding: utf-8 -*-
"""Callback plugin for tests: parse a kubewin.node task's scripts once, in ansible-playbook's own process.

Every task runs in a worker that ansible-playbook forks for it, and the fake win_powershell runs the
script in that worker (kubewin_sim/inprocess.py), so the engine's parse cache (pwsh/syntax.py, one
tree per script text) would start empty for every remote call: parsing is most of the engine's time
(node_info.ps1, 36 KB composed, about 0.09 s of CPU to parse and 0.03 s to run). A callback runs in
the parent; when a task of a kubewin.node action starts, before its workers are forked, this one
parses the scripts that action runs (node_info.ps1, and ``<action>.ps1`` or ``<action>_apply.ps1``
where such a script exists, or the one named in OTHER_NAMES), evaluates the fake win_powershell's options (the
installed module's $spec), reads the documented members of every type (pwsh/netmembers) and imports the engine
and the in-process module runner (with ansible.module_utils.basic), so each worker inherits all of it. It changes no
result: the cache is keyed by the exact text ``_pwsh.load_script`` composes and sends. At every task start it also
freezes the parent's objects for the garbage collector, before the task's workers are forked (see below).
"""

DOCUMENTATION = r'''
name: kubewin_sim_warm
type: aggregate
short_description: Parse kubewin.node scripts once per run in the simulation
description:
  - Test-only. When a task of a kubewin.node action starts, parses the scripts it runs in the
    controller's process, so the forked workers running the simulated nodes inherit the parse trees.
  - At every task start, freezes the controller process's objects for the garbage collector before workers fork.
'''

import gc
import os

from ansible.plugins.callback import CallbackBase

PREFIX = 'kubewin.node.'
# Actions whose script is not named after them.
OTHER_NAMES = {'artifact': 'artifact_fetch', 'artifact_batch': 'artifact_fetch', 'node_file': 'file_write'}


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'kubewin_sim_warm'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._warmed = set()

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._warm(task)
        # Every object the process holds now is left out of the cyclic garbage collector (gc.freeze): a forked worker
        # inherits them, and each collection of its oldest generation walked all of them (and wrote to their pages,
        # copying them). A simulated run spent about a sixth of its CPU there; Python's gc documentation recommends
        # the freeze before a fork for this. Cycles the parent makes after the freeze are not collected: a run is short.
        gc.freeze()

    def _warm(self, task):
        action = task.action or ''
        if not action.startswith(PREFIX):
            return
        # pylint: disable=import-outside-toplevel  # the collection loader is ready only once the play runs
        from ansible_collections.kubewin.node.plugins.plugin_utils import _pwsh
        from kubewin_sim import inprocess, fake  # noqa: F401  pylint: disable=unused-import
        from kubewin_sim.pwsh import netmembers
        from kubewin_sim.pwsh.syntax import parse
        from kubewin_sim.windows.win_powershell import module_spec
        # The fake module's options, the installed module's $spec evaluated once (cached) for every worker.
        module_spec()
        # The documented members of every type the engine knows (every member access looks its type up there).
        netmembers.load()
        name = action[len(PREFIX):]
        for script in ('node_info', name, name + '_apply', OTHER_NAMES.get(name, name)):
            if script in self._warmed or not os.path.exists(os.path.join(_pwsh.SCRIPT_DIR, script + '.ps1')):
                continue
            self._warmed.add(script)
            parse(_pwsh.load_script(script))
