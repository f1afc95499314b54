# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Host settings that protect a node: what the prerequisites role sets, and what the doctor reports when it drifts.

Internal to kubewin.node, not a public API.

**Windows Update's automatic installs.** With ``kubewin_patch_managed: true`` patch.yml owns the nodes' updates: it
drains a node before it installs them and restarts it. Windows Update installing updates by itself, and restarting
for them, would take a node down outside a drained window. The policy values of
``HKLM:\\SOFTWARE\\Policies\\Microsoft\\Windows\\WindowsUpdate\\AU`` turn that off (Microsoft Learn, "Manage
additional Windows Update settings", "Configuring Automatic Updates by editing the registry";
MicrosoftDocs/windows-itpro-docs windows/deployment/update/waas-wu-settings.md): ``NoAutoUpdate`` 0 keeps Automatic
Updates on and ``AUOptions`` 2 makes it "notify of download and installation" - Windows still detects the updates,
but downloads and installs none without someone asking, so it never restarts for one. Automatic Updates turned off
altogether (``NoAutoUpdate`` 1) would also stop the detection the operator and Windows' own compliance reports read;
patch.yml's ansible.windows.win_updates searches and installs through the Windows Update Agent API either way. A
policy value overrides what a local administrator chose in Settings; removing it gives that choice back (same page),
which is what a reset does: it removes these two values, nothing else of the key.
"""

from __future__ import annotations

WINDOWS_UPDATE_KEY = 'HKLM:\\SOFTWARE\\Policies\\Microsoft\\Windows\\WindowsUpdate\\AU'
WINDOWS_UPDATE_VALUES = ({'name': 'NoAutoUpdate', 'type': 'dword', 'data': 0},
                         {'name': 'AUOptions', 'type': 'dword', 'data': 2})
# The kinds node_info reports (RegistryValueKind names) of the types registry_values takes.
_KINDS = {'dword': 'DWord'}


def registry_settings(features):
    """The registry values a node gets from the inventory's features (plan_features): ``[{key, values}]``, each as
    kubewin.node.registry_values takes them; none without kubewin_patch_managed."""
    if not (features or {}).get('patch_managed'):
        return []
    return [{'key': WINDOWS_UPDATE_KEY, 'values': [dict(value) for value in WINDOWS_UPDATE_VALUES]}]


def check_windows_update(snapshot, features, finding):
    """With kubewin_patch_managed, a doctor finding when the node's Windows Update policy values are not those that
    keep it from installing by itself. ``finding`` is _doctor.finding."""
    if not (features or {}).get('patch_managed'):
        return []
    entry = ((snapshot or {}).get('registry') or {}).get(WINDOWS_UPDATE_KEY)
    if entry is None:
        return []  # a snapshot that did not read the key (taken without the doctor's registry keys) tells nothing
    held = {name.lower(): item for name, item in (entry.get('values') or {}).items()}
    wrong = ['%s=%s' % (value['name'], (held.get(value['name'].lower()) or {}).get('data', 'unset'))
             for value in WINDOWS_UPDATE_VALUES
             if held.get(value['name'].lower()) != {'kind': _KINDS[value['type']], 'data': value['data']}]
    if not wrong:
        return []
    return [finding('windows-update-auto-install', 'warning',
                    'Windows Update may install updates and restart the node by itself (%s under %s), outside '
                    "patch.yml's drained windows (kubewin_patch_managed is true)" % (', '.join(wrong), WINDOWS_UPDATE_KEY),
                    'a Group Policy or an administrator changed the Automatic Updates policy',
                    'run site.yml on the node (it sets NoAutoUpdate=0 and AUOptions=2: notify, never install), and '
                    'keep Group Policy from setting another value')]
