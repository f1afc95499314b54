# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.plan_render: the rendered IP plan as files on the controller, in one task for the whole fleet."""

from __future__ import annotations

import os
import tempfile

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

# What the plan holds of each node as file text, and the name of its file in the node's folder.
NODE_FILES = (('cni_config_text', 'cni.conf'), ('flannel_net_conf_text', 'net-conf.json'))
PICTURE = 'ip-plan.svg'
SUMMARY = 'summary.txt'


def plan_files(nodes, summary, picture):
    """{relative path: text} of a rendered plan; a picture of None or '' is no file."""
    files = {SUMMARY: summary}
    for name, node in nodes.items():
        for key, file_name in NODE_FILES:
            if node.get(key) is not None:
                files[os.path.join(name, file_name)] = node[key]
    if picture:
        files[PICTURE] = picture
    return files


def _current(path):
    try:
        with open(path, encoding='utf-8', newline='') as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _write(path, text):
    """Replace the file whole (a reader never finds half of it)."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o755, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix='.plan-')
    try:
        with os.fdopen(handle, 'w', encoding='utf-8', newline='') as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


class ActionModule(ActionBase):

    # Writes on the controller only: no host is contacted.
    _requires_connection = False
    TRANSFERS_FILES = False

    ARGUMENT_SPEC = {
        'dest': {'type': 'path', 'required': True},
        'nodes': {'type': 'dict', 'required': True},
        'summary': {'type': 'str', 'required': True},
        'picture': {'type': 'str', 'default': ''},
    }

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        result = super().run(tmp, task_vars)
        del tmp
        try:
            args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)[1]
        except AnsibleActionFail as exc:
            result.update(failed=True, msg=str(exc))
            return result
        files = plan_files(args['nodes'], args['summary'], args['picture'])
        changed = sorted(path for path, text in files.items() if _current(os.path.join(args['dest'], path)) != text)
        # A picture of an earlier plan is removed rather than left stale (no drawsvg now).
        stale = [] if args['picture'] or _current(os.path.join(args['dest'], PICTURE)) is None else [PICTURE]
        if not self._task.check_mode:
            for path in changed:
                _write(os.path.join(args['dest'], path), files[path])
            for path in stale:
                os.unlink(os.path.join(args['dest'], path))
        result.update(changed=bool(changed or stale), dest=args['dest'], files=sorted(files), written=changed,
                      removed=stale)
        return result
