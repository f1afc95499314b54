# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.artifact: a downloaded file (or archive members) verified by checksum before it is installed."""

from __future__ import annotations

from ansible.utils.display import Display

from ansible_collections.kubewin.node.plugins.plugin_utils import _artifact_install, _artifacts, _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction

display = Display()


class ActionModule(NodeAction):

    ARGUMENT_SPEC = dict(
        _artifact_install.ARTIFACT_OPTIONS, **_artifact_install.DOWNLOAD_OPTIONS,
        # What kubewin.node.artifact_stage put in the node's staging folder for this URL: installed from there.
        staged={'type': 'dict', 'options': _artifact_install.STAGED_OPTIONS})
    ARGSPEC_OPTIONS = {'mutually_exclusive': [('checksum', 'skip_checksum')]}
    SECTIONS = _artifact_install.SECTIONS

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        # One win_powershell call cannot stream progress while it runs: the figures of the finished download
        # are shown once, at -v (Display.v), and kept in the result under ``download``.
        if result.get('download') and not result.get('failed'):
            display.v(_artifacts.describe(result['download']), host=(task_vars or {}).get('inventory_hostname'))
        return result

    def validate(self, args):
        # With source=controller the staged file is not used: the controller's copy is.
        staged = args['staged'] if args['source'] == 'node' else None
        self._artifact = _artifact_install.Artifact(args, staged=staged)
        self._installed = None

    def scope(self, args, live=False):
        return {'files': self._artifact.targets()}

    def side_effects(self, args, plan):
        return _snapshot.rewritten(self._artifact.targets())  # and the record, which the apply re-reads

    def plan(self, args, state):
        return self._artifact.plan(state)

    def apply(self, args, plan, state):
        applied = _artifact_install.install(self, [self._artifact], args)
        _artifact_install.keep_other_records(applied['state'], state)
        self._installed = applied['installed'][0]
        return {'state': applied['state'], 'attempts': self._installed['attempts']}

    def check_applied(self, args, plan, state):
        self._artifact.check_applied(state)

    def resource(self, args):
        # Several artifacts share a destination folder (the CNI plugins): the file downloaded names each.
        return self._artifact.file_name

    def report(self, args, state, plan):
        download = self._installed['download'] if self._installed else None
        return self._artifact.report(state, plan, self._task.check_mode, download)
