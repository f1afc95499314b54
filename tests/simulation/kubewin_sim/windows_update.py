"""The Windows Update Agent of a simulated node, as ansible.windows.win_updates drives it.

Sources (the ansible.windows collection, plugins/modules/win_updates.ps1 and .py, plugins/action/win_updates.py;
Microsoft's "Windows Update Agent API" reference, IUpdate and ISystemInformation):

- The search asks WUA for ``IsInstalled = 0``: an installed update is not found again, one installed but waiting for
  a restart included (IUpdate.IsInstalled is true once the installer ran; ISystemInformation.RebootRequired says
  the restart is still due).
- Each found update is selected or filtered. Its reasons, in the module's order: ``accept_list`` (an accept list
  that none of the title and ``KB<n>`` ids matches), ``reject_list`` (one of them matches), ``hidden``,
  ``category_names`` (none of its categories equals a wanted one, case-insensitive; ``*`` takes all) and
  ``skip_optional`` (BrowseOnly). The lists hold PowerShell regular expressions matched case-insensitively
  (``-imatch``).
- Check mode and ``state=searched`` stop after the search; check mode reports changed when something would be
  installed. With nothing selected the run stops too.
- Installing while a restart is due fails: "A reboot is required before more updates can be installed".
- The download comes first (those not downloaded yet), then the install; an update whose install fails has result
  code 4 (Failed) and its HRESULT, and the run fails "Failed to install all updates - see updates for more
  information". ``reboot_required`` after the install is ISystemInformation.RebootRequired.

The node keeps ``data['windows_update'] = {'updates': [...]}``, each update ``{id, title, kb: ['5041160'],
categories: ['Security Updates', ...], reboot_required, browse_only, hidden, downloaded, installed_at,
install_hresult (a failing install), install_error (its name and text in wuerror.h, which the action plugin
reports; without it the plugin's text for an HRESULT it does not know)}``. A restart that an update needs is due until the node boots after its
install: ``installed_at`` (the node's date, SimNode.date) against ``os.last_boot``, which the simulated reboot
(node.reboot) moves on. So the simulated reboot finishes a pending install without knowing about updates.
"""

import re

# win_updates.ps1: the short names it accepts for backwards compatibility.
CATEGORY_ALIASES = {
    'CriticalUpdates': 'Critical Updates', 'DefinitionUpdates': 'Definition Updates', 'DeveloperKits': 'Developer Kits',
    'FeaturePacks': 'Feature Packs', 'SecurityUpdates': 'Security Updates', 'ServicePacks': 'Service Packs',
    'UpdateRollups': 'Update Rollups',
}
# The Windows Update Agent's OperationResultCode (Succeeded, Failed).
SUCCEEDED, FAILED = 2, 4


def updates(node):
    return node.data.get('windows_update', {}).get('updates', [])


def reboot_required(node):
    """ISystemInformation.RebootRequired: an installed update waits for the node to boot again."""
    last_boot = node.data['os']['last_boot']
    return any(u.get('installed_at') is not None and u['installed_at'] >= last_boot and u.get('reboot_required')
               for u in updates(node))


def info(update):
    """The update as win_updates.ps1's Format-UpdateInfo reports the fields the action plugin reads."""
    return {'id': update['id'], 'title': update['title'], 'kb': ['KB%s' % kb for kb in update.get('kb', [])],
            'categories': list(update.get('categories', []))}


def _matches(entries, patterns):
    return any(re.search(pattern, entry, re.IGNORECASE) for entry in entries for pattern in patterns)


def filtered_reasons(update, categories, accept, reject, skip_optional):
    wanted = [CATEGORY_ALIASES.get(name, name) for name in categories]
    entries = [update['title']] + info(update)['kb']
    reasons = []
    if accept and not _matches(entries, accept):
        reasons.append('accept_list')
    if reject and _matches(entries, reject):
        reasons.append('reject_list')
    if update.get('hidden'):
        reasons.append('hidden')
    if wanted and not any(name == '*' or name.lower() in [c.lower() for c in update.get('categories', [])]
                          for name in wanted):
        reasons.append('category_names')
    if skip_optional and update.get('browse_only'):
        reasons.append('skip_optional')
    return reasons


def run_round(node, params, check_mode):
    """One start of the module (search, download, install): the progress the action plugin collects.

    Returns {found: [info], filtered: {id: reasons}, selected: [id], downloaded: {id: {result_code, hresult}},
    installed: {id: {...}}, changed, reboot_required, failed, msg}.
    """
    answer = {'found': [], 'filtered': {}, 'selected': [], 'downloaded': {}, 'installed': {}, 'changed': False,
              'reboot_required': reboot_required(node), 'failed': False, 'msg': None}
    pending = [u for u in updates(node) if u.get('installed_at') is None]
    chosen = []
    for update in pending:
        answer['found'].append(info(update))
        reasons = filtered_reasons(update, params['category_names'], params.get('accept_list') or [],
                                   params.get('reject_list') or [], params['skip_optional'])
        if reasons:
            answer['filtered'][update['id']] = reasons
        else:
            chosen.append(update)
    answer['selected'] = [u['id'] for u in chosen]
    state = params['state']
    if check_mode or state == 'searched' or not chosen:
        answer['changed'] = bool(chosen) and state != 'searched'
        return answer
    if answer['reboot_required']:
        return dict(answer, failed=True, msg='A reboot is required before more updates can be installed')
    for update in chosen:
        if not update.get('downloaded'):
            update['downloaded'] = True
            answer['downloaded'][update['id']] = {'result_code': SUCCEEDED, 'hresult': 0}
            answer['changed'] = True
    if state == 'downloaded':
        return answer
    failed = False
    for update in chosen:
        hresult = update.get('install_hresult')
        if hresult:
            failed = True
            hresult &= 0xFFFFFFFF
            name, text = update.get('install_error') or ('UNKNOWN', 'Unknown WUA HRESULT %s' % hresult)
            answer['installed'][update['id']] = {'result_code': FAILED, 'hresult': hresult,
                                                 'failure_msg': '%s (%s 0x%08X)' % (text, name, hresult)}
        else:
            update['installed_at'] = node.date()
            answer['installed'][update['id']] = {'result_code': SUCCEEDED, 'hresult': 0}
        node.record('Windows Update: %s %s' % ('failed to install' if hresult else 'installed', update['title']))
    answer['changed'] = True
    answer['reboot_required'] = reboot_required(node)
    if failed:
        answer.update(failed=True, msg='Failed to install all updates - see updates for more information')
    return answer
