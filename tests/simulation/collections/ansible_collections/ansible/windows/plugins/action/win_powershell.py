# -*- coding: utf-8 -*-
"""Test-only: ansible.windows.win_powershell's action plugin is the installed collection's own.

The fake collection shadows the real one, so its action plugin would not be found; this loads the installed file
(plugins/action/win_powershell.py of the pinned ansible.windows: a local ``path`` becomes the ``script`` the module
runs) and uses its ActionModule as it is.
"""

import importlib.util

from kubewin_sim.windows.win_powershell import ACTION, real_file

_SPEC = importlib.util.spec_from_file_location('kubewin_sim_installed_win_powershell_action', real_file(ACTION))
_INSTALLED = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_INSTALLED)

ActionModule = _INSTALLED.ActionModule
