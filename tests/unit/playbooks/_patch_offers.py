"""The Windows updates the simulated nodes offer in the patch window tests (test_patch.py, test_day_two.py), and the
patch role's variables that make a simulated window quick.

Each update is what the simulated Windows Update Agent (kubewin_sim/windows_update.py) holds for a node.
"""

CUMULATIVE = {'id': '8d1c2f0e-0001-4a6b-9a52-5d1f0f3b2c11', 'kb': ['5070001'], 'reboot_required': True,
              'title': '2026-11 Cumulative Update for Microsoft server operating system version 21H2 for x64-based '
                       'Systems (KB5070001)', 'categories': ['Security Updates', 'Microsoft Server operating system-21H2']}
MSRT = {'id': '8d1c2f0e-0002-4a6b-9a52-5d1f0f3b2c11', 'kb': ['890830'], 'reboot_required': False,
        'title': 'Windows Malicious Software Removal Tool x64 - v5.135 (KB890830)', 'categories': ['Update Rollups']}
# Not in the default categories.
FEATURE = {'id': '8d1c2f0e-0003-4a6b-9a52-5d1f0f3b2c11', 'kb': ['5000001'], 'reboot_required': True,
           'title': 'Feature update to Windows Server, version 24H2', 'categories': ['Upgrades']}
# Rejected by PATCH_VARS' patch_reject_list.
PREVIEW = {'id': '8d1c2f0e-0004-4a6b-9a52-5d1f0f3b2c11', 'kb': ['5070099'], 'reboot_required': True,
           'title': '2026-11 Cumulative Update Preview for Microsoft server operating system (KB5070099)',
           'categories': ['Security Updates']}

# A simulated restart takes a second or two: the window polls the Node every second, for at most 5.
PATCH_VARS = {'patch_reject_list': ['Preview'], 'patch_poll_interval': 1, 'patch_ready_timeout': 5}

ANNOTATION = 'kubewin.node/patch-window'
INSTALL = 'Install the updates, restarting as often as they need'


def offer(sim, host, *updates):
    """``host``'s Windows Update Agent finds ``updates`` (and nothing else) from now on."""
    with sim.edit_node(host) as node:
        node.data['windows_update'] = {'updates': [dict(update) for update in updates]}
