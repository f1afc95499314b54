# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's log rotation task: which logs it rotates itself, which it only prunes, and its files.

Internal to kubewin.node, not a public API. The public interface is the ``kubewin.node.log_rotation`` filter.

Who rotates a log depends on who writes it. nssm rotates its output file online at AppRotateBytes and
kube-log-runner from 1.34 at -log-file-size (both rename the file with a time stamp): the task only removes
their rotated files beyond the count kept, which neither writer does by count. containerd's --log-file and
kube-log-runner before 1.34 only append, holding the file open the way Go does (sharing reading and writing,
not deleting): the task copies and empties those (log_rotate.ps1).
"""

from __future__ import annotations

import ntpath
import typing as t
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible_collections.kubewin.node.plugins.plugin_utils import _node_plan, _pwsh
from ansible_collections.kubewin.node.plugins.plugin_utils._flags import kube_log_runner_rotates
from ansible_collections.kubewin.node.plugins.plugin_utils._versions import parse_version

FOLDER = 'C:\\ProgramData\\kubewin\\log-rotation'
SCRIPT_PATH = ntpath.join(FOLDER, 'rotate.ps1')
CONFIG_PATH = ntpath.join(FOLDER, 'config.json')
TASK_NAME = 'log-rotation'
TASK_DESCRIPTION = 'Rotates the logs of the Kubernetes node services (kubewin.node)'
WRITERS = ('nssm', 'kube-log-runner', 'containerd')
KEYS = ('kubernetes_version', 'max_size_mb', 'files_kept', 'logs')


class LogRotationError(AnsibleFilterError):
    """The log rotation input breaks a rule."""


def _copy_truncate(writer: str, version) -> bool:
    return writer == 'containerd' or (writer == 'kube-log-runner' and not kube_log_runner_rotates(version))


def log_rotation(data: t.Any) -> dict[str, t.Any]:
    """The files and the task of the node's log rotation; see log_rotation.yml."""
    if not isinstance(data, Mapping):
        raise LogRotationError('log_rotation needs a dictionary, got %r' % (data,))
    unknown = sorted(str(key) for key in data if key not in KEYS)
    if unknown:
        raise LogRotationError('log_rotation: unknown keys %s; known: %s' % (', '.join(unknown), ', '.join(KEYS)))
    version = parse_version(data.get('kubernetes_version'))
    settings = _node_plan.node_logs({'max_size_mb': data.get('max_size_mb'), 'files_kept': data.get('files_kept')})
    logs, seen = [], set()
    for log in data.get('logs') or []:
        if not isinstance(log, Mapping) or log.get('writer') not in WRITERS or not isinstance(log.get('path'), str) \
                or not ntpath.isabs(log['path']):
            raise LogRotationError('each log needs an absolute Windows path and a writer (%s), got %r'
                                   % (', '.join(WRITERS), log))
        if log['path'].lower() in seen:
            continue
        seen.add(log['path'].lower())
        logs.append({'path': log['path'], 'copy_truncate': _copy_truncate(log['writer'], version)})
    config = {'max_bytes': settings['max_size_mb'] * 1024 * 1024, 'files_kept': settings['files_kept'], 'logs': logs}
    return {
        'script_path': SCRIPT_PATH,
        'script_text': _pwsh.load_script('log_rotate'),
        'config_path': CONFIG_PATH,
        'config_text': _node_plan.as_file_text(config),
        'task': {
            'name': TASK_NAME,
            'description': TASK_DESCRIPTION,
            'execute': 'powershell.exe',
            'arguments': '-NoProfile -NonInteractive -ExecutionPolicy Bypass -File "%s" -ConfigPath "%s"'
                         % (SCRIPT_PATH, CONFIG_PATH),
        },
    }
