# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:

    # What every kubewin.node module that manages node state has in common.
    DOCUMENTATION = r'''
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the task run on the controller.
    support: full
    details: The decisions are made on the controller; the node only runs small PowerShell scripts through
      M(ansible.windows.win_powershell).
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: Check mode reports C(changed) and the diff exactly as a real run would, and changes nothing.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: full
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: windows
notes:
  - The decision is made from the C(kubewin_node) fact that M(kubewin.node.node_info) returns when
    that fact covers what the module needs and has not expired; then a module that has nothing to
    change makes no remote call at all. When the fact says something must change, the module
    reads the node again before changing anything. After a change it returns the state it
    verified, which keeps the fact current.
  - Requires the C(ansible.windows) collection on the controller.
'''
