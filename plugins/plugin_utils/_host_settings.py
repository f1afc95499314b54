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

**A fixed page file size** (prerequisites_page_file). Windows keeps the page files it opens at boot in the
REG_MULTI_SZ value ``PagingFiles`` of ``HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory
Management``, one string per file, "<path> <initial MB> <maximum MB>", and "?:\\pagefile.sys" alone while Windows
manages them all (Win32_ComputerSystem.AutomaticManagedPagefile true); the session manager reads it when the system
boots to open the page files, so a new size is in force after the next restart. Sources: the value's forms,
Microsoft's "Advanced troubleshooting for Windows-based computer freeze issues" (MicrosoftDocs windows-itpro-docs);
Win32_PageFileSetting (MicrosoftDocs/win32 desktop-src/CIMWin32Prov/win32-pagefilesetting.md), the WMI view of the
same value - its InitialSize and MaximumSize map to PagingFiles and are "used when the file is created at system
startup", changes "deferred until startup", and Win32_PageFileUsage is the run-time state. The collection writes the
value itself, with kubewin.node.registry_values, so that the snapshot's registry section answers "is it set" without a
call and a reset writes Setup's "?:\\pagefile.sys" back. What is in force is what Win32_OperatingSystem reports since the last
boot (SizeStoredInPagingFiles): a fixed page file starts at its initial size and may grow to its maximum, so a node
whose page files hold less than the initial size or more than the maximum still runs the old setting and restarts.
The size is the operator's: what the commit limit check below needs (a fixed page file too small is what Azure/AKS
issue 1941 ran out of).

**The commit limit.** Windows backs every committed allocation with physical memory or page file space, and its
commit limit is their sum: Win32_OperatingSystem's TotalVirtualMemorySize, "adding the amount of total RAM to the
amount of paging space" (SizeStoredInPagingFiles), in kilobytes (MicrosoftDocs/win32
desktop-src/CIMWin32Prov/win32-operatingsystem.md). A container's memory limit is enforced on its commit, and the
kubelet's memory-pressure eviction on Windows reads the node's commit (kubernetes/website pull 48535, "Windows memory
pressure eviction"; kubernetes/kubernetes pull 122922 made memory.available work on Windows with a default hard
eviction threshold of 500Mi, pkg/kubelet/eviction/defaults_windows.go). A node whose commit limit is reached fails
allocations with "The paging file is too small for this operation to complete" in its pods and in the kubelet and
runtime themselves (Azure/AKS issue 1941, on nodes with a fixed 8 GB page file; Azure/acs-engine issue 4013, the
kubelet and Docker failing once the page file was exhausted).

The rule: the scheduler hands out the node's allocatable memory (its physical memory less the kubelet's system
reservation and the hard eviction threshold) to pods by their requests; the system keeps the reservation, the
eviction threshold is the room the kubelet keeps free; and each pod commits more than its containers' requests (its
pause container, its runtime shim), an estimate the operator sets per pod (prerequisites_commit_limit_pod_mb). So
the commit limit must hold reservation + eviction threshold + allocatable + max pods x the per-pod figure, i.e. the
larger of the physical memory and reservation + threshold, plus the pods' figure. The page files are what makes the
commit limit larger than the physical memory.
"""

from __future__ import annotations

import re

from ansible_collections.kubewin.node.plugins.plugin_utils import _roles

WINDOWS_UPDATE_KEY = 'HKLM:\\SOFTWARE\\Policies\\Microsoft\\Windows\\WindowsUpdate\\AU'
WINDOWS_UPDATE_VALUES = ({'name': 'NoAutoUpdate', 'type': 'dword', 'data': 0},
                         {'name': 'AUOptions', 'type': 'dword', 'data': 2})
# The kinds node_info reports (RegistryValueKind names) of the types registry_values takes.
_KINDS = {'dword': 'DWord'}


def registry_settings(features, node_vars=None):
    """The registry values a node gets from the inventory's features (plan_features) and its prerequisites options
    (``node_vars``, the node's variables): ``[{key, values}]``, each as kubewin.node.registry_values takes them; none
    without kubewin_patch_managed and prerequisites_page_file. A setting that a reset writes back rather than removes
    carries ``reset_values``; one in force only after a restart carries ``restart: true``."""
    settings = []
    if (features or {}).get('patch_managed'):
        settings.append({'key': WINDOWS_UPDATE_KEY, 'values': [dict(value) for value in WINDOWS_UPDATE_VALUES]})
    paging_files = page_file_setting(node_vars)
    if paging_files:
        settings.append({'key': MEMORY_MANAGEMENT_KEY, 'restart': True,
                         'values': [{'name': PAGING_FILES, 'type': 'multistring', 'data': paging_files}],
                         'reset_values': [{'name': PAGING_FILES, 'type': 'multistring', 'data': AUTOMATIC_PAGING_FILES}]})
    return settings


PAGE_FILE_OPTION = 'prerequisites_page_file'
MEMORY_MANAGEMENT_KEY = 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management'
PAGING_FILES = 'PagingFiles'
# Windows manages the size of every page file: what Windows Setup leaves, and what a reset gives back.
AUTOMATIC_PAGING_FILES = ['?:\\pagefile.sys']
_DRIVE = re.compile(r'^[A-Za-z]:$')


def page_file_problem(value):
    """Why prerequisites_page_file is not {} or {initial_mb, maximum_mb[, drive]}, or ''."""
    if value in (None, {}):
        return ''
    if not isinstance(value, dict) or set(value) - {'initial_mb', 'maximum_mb', 'drive'}:
        return ('%s must be {} (Windows manages the page file) or {initial_mb, maximum_mb, drive}, got %r'
                % (PAGE_FILE_OPTION, value))
    sizes = [value.get(name) for name in ('initial_mb', 'maximum_mb')]
    if any(isinstance(size, bool) or not isinstance(size, int) or size <= 0 for size in sizes):
        return '%s: initial_mb and maximum_mb must be whole numbers of MB above 0, got %r' % (PAGE_FILE_OPTION, value)
    if sizes[0] > sizes[1]:
        return '%s: initial_mb (%d) must not be above maximum_mb (%d)' % (PAGE_FILE_OPTION, sizes[0], sizes[1])
    if not _DRIVE.match(str(value.get('drive', 'C:'))):
        return '%s: drive must be a drive letter with its colon, such as C:, got %r' % (PAGE_FILE_OPTION, value['drive'])
    return ''


def page_file_setting(node_vars):
    """The PagingFiles data prerequisites_page_file asks for (``node_vars``: the node's variables), or None (off)."""
    value = _option(node_vars, 'prerequisites', PAGE_FILE_OPTION)
    if not value:
        return None
    return ['%s\\pagefile.sys %d %d' % (str(value.get('drive', 'C:')).upper(), value['initial_mb'], value['maximum_mb'])]


def page_file_restart(os_section, node_vars):
    """Whether the page files in force (the snapshot's os section, since the last boot) are not those
    prerequisites_page_file asks for: the node restarts to put them in force. False when the option is off or the
    snapshot did not read them."""
    value = _option(node_vars, 'prerequisites', PAGE_FILE_OPTION)
    in_force_kb = (os_section or {}).get('page_files_kb')
    if not value or in_force_kb is None:
        return False
    return not value['initial_mb'] * 1024 <= int(in_force_kb) <= value['maximum_mb'] * 1024


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


def check_page_file(snapshot, node_vars, finding):
    """With prerequisites_page_file, a doctor finding when the node's PagingFiles is not the size asked for
    (page-file-size-changed), or is but the page files in force since the last boot are not (page-file-restart-pending).
    ``finding`` is _doctor.finding."""
    wanted = page_file_setting(node_vars)
    entry = ((snapshot or {}).get('registry') or {}).get(MEMORY_MANAGEMENT_KEY)
    if not wanted or entry is None:
        return []  # off, or a snapshot that did not read the key tells nothing
    held = {name.lower(): item for name, item in (entry.get('values') or {}).items()}.get(PAGING_FILES.lower()) or {}
    if held.get('kind') != 'MultiString' or [str(item).lower() for item in held.get('data') or []] != \
            [item.lower() for item in wanted]:
        return [finding('page-file-size-changed', 'warning',
                        'the page files of the node are %s, not %s (prerequisites_page_file)'
                        % (held.get('data', 'unset'), wanted),
                        'an administrator, a Group Policy or an image step changed the page file settings',
                        'run site.yml on the node (it writes PagingFiles; a node that has not joined restarts to put it '
                        'in force, one that has at its next drained restart)')]
    if page_file_restart((snapshot or {}).get('os'), node_vars):
        return [finding('page-file-restart-pending', 'warning',
                        'the page file is set to %s but the node still runs the page files it booted with (%d MB)'
                        % (wanted[0], int(snapshot['os']['page_files_kb']) // 1024),
                        'the node has not restarted since the page file size was set (site.yml restarts a node for it '
                        'only before it joins: this restart would not drain the node)',
                        'drain the node (kubectl drain), restart it, and uncordon it')]
    return []


# The kubelet's hard eviction threshold of memory.available on Windows when none is configured (the collection
# configures none): kubernetes/kubernetes pkg/kubelet/eviction/defaults_windows.go, from pull 122922.
EVICTION_HARD_BYTES = 500 * 1024 ** 2
COMMIT_LIMIT_CHECKS = ('warn', 'refuse', 'off')
_QUANTITY = re.compile(r'^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$')
_UNITS = {None: 1, 'k': 1000, 'M': 1000 ** 2, 'G': 1000 ** 3, 'T': 1000 ** 4,
          'Ki': 1024, 'Mi': 1024 ** 2, 'Gi': 1024 ** 3, 'Ti': 1024 ** 4}


def quantity_bytes(text):
    """A Kubernetes memory quantity (2Gi, 500M, 1073741824) in bytes; None when it is not one."""
    found = _QUANTITY.match(str(text).strip())
    return int(float(found.group(1)) * _UNITS[found.group(2)]) if found else None


def _option(node_vars, role, name):
    """A role option as the node's variables set it, else the role's default."""
    value = (node_vars or {}).get(name)
    return value if value is not None else _roles.role_defaults(role).get(name)


def commit_limit_need(os_section, max_pods, node_vars=None, planned=False):
    """What the node's commit limit must hold and what it holds, in bytes, from the snapshot's os section (None when
    the snapshot did not read the figures): {limit, memory, page_files, need, reserved, eviction, pods, pod_mb}. The
    reservation is the kubelet role's kubelet_system_reserved, the per-pod figure prerequisites_commit_limit_pod_mb,
    each as ``node_vars`` sets it or its role's default. ``planned``: with prerequisites_page_file, what the commit
    limit will be once the run has put that page file in force (the memory plus its initial size: it replaces every
    other page file), so that the size that mends a short commit limit is not refused before it is set."""
    os_section = os_section or {}
    if os_section.get('commit_limit_kb') is None or os_section.get('memory_kb') is None:
        return None
    memory = int(os_section['memory_kb']) * 1024
    reserved = quantity_bytes((_option(node_vars, 'kubelet', 'kubelet_system_reserved') or {}).get('memory') or 0) or 0
    pod_mb = int(_option(node_vars, 'prerequisites', 'prerequisites_commit_limit_pod_mb'))
    pods = int(max_pods) * pod_mb * 1024 ** 2
    limit, page_files = int(os_section['commit_limit_kb']) * 1024, int(os_section.get('page_files_kb') or 0) * 1024
    page_file = _option(node_vars, 'prerequisites', PAGE_FILE_OPTION)
    if planned and page_file:
        page_files = int(page_file['initial_mb']) * 1024 ** 2
        limit = memory + page_files
    return {'limit': limit, 'memory': memory, 'page_files': page_files, 'reserved': reserved,
            'eviction': EVICTION_HARD_BYTES, 'pods': pods, 'pod_mb': pod_mb,
            'need': max(memory, reserved + EVICTION_HARD_BYTES) + pods}


def _gib(number):
    return '%.1f GiB' % (number / 1024 ** 3)


def commit_limit_problem(os_section, host, max_pods, node_vars=None, planned=True):
    """The message that says why the node's commit limit cannot hold what the kubelet may place on it, or ''.
    ``planned`` (the role's check): the commit limit the page file prerequisites_page_file sets will give (see
    commit_limit_need); the doctor's finding reads the one in force."""
    need = commit_limit_need(os_section, max_pods, node_vars, planned)
    if need is None or need['limit'] >= need['need']:
        return ''
    return ('%s: its commit limit (physical memory %s + page files %s = %s) cannot hold what the kubelet may place on '
            'it, %s: the physical memory the scheduler hands out with the system reservation (%s) and the eviction '
            'threshold (500Mi), and %d pods x %d MiB (prerequisites_commit_limit_pod_mb). Give the node page files of '
            'at least %s more (a larger fixed page file, or one Windows manages on a disk with room), or lower '
            'kubewin_max_pods; otherwise pods fail with "The paging file is too small for this operation to complete".'
            % (host, _gib(need['memory']), _gib(need['page_files']), _gib(need['limit']), _gib(need['need']),
               _gib(need['reserved']), int(max_pods), need['pod_mb'], _gib(need['need'] - need['limit'])))


def check_commit_limit(snapshot, name, max_pods, node_vars, finding):
    """The doctor's finding commit-limit-low (a warning) when prerequisites_commit_limit_check is not off and the
    node's commit limit is short. ``finding`` is _doctor.finding."""
    if max_pods is None or _option(node_vars, 'prerequisites', 'prerequisites_commit_limit_check') == 'off':
        return []
    problem = commit_limit_problem((snapshot or {}).get('os'), name, max_pods, node_vars, planned=False)
    if not problem:
        return []
    return [finding('commit-limit-low', 'warning', problem,
                    'the page files are too small for the pods the node may run (or memory or a page file was removed)',
                    'enlarge the page file and restart the node, or lower kubewin_max_pods')]
