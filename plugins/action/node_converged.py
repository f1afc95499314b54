# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.node_converged: whether a node is converged, from its snapshot; no remote call."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.kubewin.node.plugins.plugin_utils import _converged, _snapshot


class ActionModule(ActionBase):

    # Decided on the controller from the snapshot fact: the node is not contacted.
    _requires_connection = False
    TRANSFERS_FILES = False

    ARGUMENT_SPEC = {
        'enabled': {'type': 'bool', 'default': True},
        'record': {'type': 'bool', 'default': False},
        'inputs': {'type': 'str'},
    }

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        result = super().run(tmp, task_vars)
        del tmp
        task_vars = task_vars or {}
        try:
            args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC,
                                               required_if=[('record', True, ('inputs',))])[1]
        except AnsibleActionFail as exc:
            result.update(failed=True, msg=str(exc))
            return result
        snapshot = _snapshot.from_task_vars(task_vars)
        if args['record']:
            if snapshot is None:
                result.update(failed=True, msg='no node state snapshot (kubewin_node) to record: run '
                                               'kubewin.node.node_info first')
                return result
            credentials = _converged.credentials_digest(self._templar.template(task_vars.get(_converged.CREDENTIALS)))
            result.update(changed=False, path=_converged.RECORD_PATH,
                          content=_converged.record_text(snapshot, args['inputs'], credentials))
            return result
        result.update(_converged.decision(snapshot, task_vars, self._templar.template, enabled=args['enabled']),
                      changed=False)
        return result
