# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.artifact_batch: several artifacts, each as kubewin.node.artifact installs it, in one remote call."""

from __future__ import annotations

from ansible.utils.display import Display

from ansible_collections.kubewin.node.plugins.plugin_utils import _artifact_install, _artifacts, _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan

display = Display()


class ActionModule(NodeAction):

    ARGUMENT_SPEC = dict(
        artifacts={'type': 'list', 'elements': 'dict', 'required': True, 'options': dict(
            _artifact_install.ARTIFACT_OPTIONS,
            # What results and errors call it; the artifacts role passes the catalog's component.
            name={'type': 'str', 'aliases': ['component']})},
        # kubewin.node.artifact_stage's staged result: URL -> {path, sha}; an artifact whose URL it names is installed
        # from the node's staging folder.
        staged={'type': 'dict', 'default': {}},
        **_artifact_install.DOWNLOAD_OPTIONS)
    SECTIONS = _artifact_install.SECTIONS

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        if not result.get('failed'):
            for entry in result.get('results') or []:
                if entry.get('download'):
                    display.v(_artifacts.describe(entry['download']), host=(task_vars or {}).get('inventory_hostname'))
        return result

    def validate(self, args):
        options = {option: args[option] for option in _artifact_install.DOWNLOAD_OPTIONS}
        self._artifacts = []
        for item in args['artifacts']:
            staged = args['staged'].get(item['url']) if args['source'] == 'node' else None
            if staged is not None and not (isinstance(staged, dict) and staged.get('path') and staged.get('sha')):
                raise NodeActionError('staged[%r] must be {path, sha}, as kubewin.node.artifact_stage returns it'
                                      % item['url'])
            self._artifacts.append(_artifact_install.Artifact(dict(item, **options), item['name'], staged))
        for what, key in (('name', lambda artifact: artifact.name),
                          ('first file installed', lambda artifact: artifact.record_key().lower())):
            seen = [key(artifact) for artifact in self._artifacts]
            twice = sorted(set(value for value in seen if seen.count(value) > 1))
            if twice:
                raise NodeActionError('artifacts must differ in their %s (each is recorded on its own): %s'
                                      % (what, ', '.join(twice)))
        self._plans, self._installed = {}, {}

    def scope(self, args, live=False):
        return {'files': [path for artifact in self._artifacts for path in artifact.targets()]}

    def side_effects(self, args, plan):
        # The files of the artifacts installed, and their records, which the apply re-reads.
        return _snapshot.rewritten([path for artifact in self._changing() for path in artifact.targets()])

    def _changing(self):
        return [artifact for artifact in self._artifacts if self._plans[artifact.name].changed]

    def plan(self, args, state):
        self._plans = {artifact.name: artifact.plan(state) for artifact in self._artifacts}
        changing = self._changing()
        return Plan([{'op': 'fetch', 'artifact': artifact.name} for artifact in changing],
                    before={artifact.name: self._plans[artifact.name].before for artifact in changing},
                    after={artifact.name: self._plans[artifact.name].after for artifact in changing})

    def apply(self, args, plan, state):
        changing = self._changing()
        applied = _artifact_install.install(self, changing, args)
        self._installed = {artifact.name: installed for artifact, installed in zip(changing, applied['installed'])}
        # The script re-read what it installed; the artifacts left alone are as the plan read them (but a file one of
        # them shares with an installed one, which the script read after), their records with every other one's.
        after = applied['state']
        for artifact in self._artifacts:
            if artifact not in changing:
                for path in artifact.targets():
                    after['files'].setdefault(path, state['files'][path])
        _artifact_install.keep_other_records(after, state)
        return {'state': after}

    def check_applied(self, args, plan, state):
        for artifact in self._changing():
            artifact.check_applied(state)

    def resource(self, args):
        return ', '.join(artifact.name for artifact in (self._changing() or self._artifacts))

    def report(self, args, state, plan):
        results = []
        for artifact in self._artifacts:
            installed = self._installed.get(artifact.name) or {}
            entry = {'name': artifact.name, 'url': artifact.args['url'], 'changed': self._plans[artifact.name].changed}
            entry.update(artifact.report(state, self._plans[artifact.name], self._task.check_mode,
                                         installed.get('download')))
            if installed:
                entry['attempts'] = installed['attempts']
            results.append(entry)
        return {'results': results}
