# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.artifact_stage: every artifact a node needs, downloaded and verified before anything changes."""

from __future__ import annotations

import re

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.kubewin.node.plugins.plugin_utils import _activity, _artifacts, _pwsh, _snapshot

display = Display()


def installed(artifact, records):
    """Whether the node's artifact records (kubewin.node.artifact writes one per artifact) show this artifact
    installed from the same URL, checksum and version: kubewin.node.artifact installs nothing then, so it needs no
    staged file."""
    for record in (records or {}).values():
        if (record.get('url') == artifact['url'] and record.get('checksum') == artifact['checksum']
                and record.get('version', artifact.get('version')) == artifact.get('version')):
            return True
    return False


def script_item(artifact):
    """The script's description of one artifact: its URL, algorithm, pinned hash or hash file, and file name."""
    algorithm, pinned, checksum_url = _artifacts.parse_checksum(artifact['checksum'])
    item = {'url': artifact['url'], 'algorithm': algorithm, 'name': _artifacts.file_name(artifact['url'])}
    if pinned:
        item['checksum'] = pinned
    else:
        item['checksum_url'] = checksum_url
    return item


class ActionModule(ActionBase):

    ARGUMENT_SPEC = {
        'artifacts': {'type': 'list', 'elements': 'dict', 'required': True},
        'staging_dir': {'type': 'str', 'required': True},
        'source': {'type': 'str', 'choices': ['node', 'controller'], 'default': 'node'},
        'cache_dir': {'type': 'path', 'default': '~/.cache/kubewin/artifacts'},
        'proxy': {'type': 'dict', 'no_log': False, 'options': {
            'url': {'type': 'str', 'required': True},
            'username': {'type': 'str'},
            'password': {'type': 'str', 'no_log': True},
        }},
        'proxy_environment': {'type': 'dict', 'default': {}},
        'retries': {'type': 'int', 'default': 4},
        'timeout': {'type': 'int', 'default': 300},
    }

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        result = super().run(tmp, task_vars)
        del tmp
        task_vars = task_vars or {}
        try:
            args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)[1]
        except AnsibleActionFail as exc:
            return dict(result, failed=True, msg=str(exc))
        if not re.match(r'^[A-Za-z]:\\', args['staging_dir']):
            return dict(result, failed=True, msg='staging_dir %r must be an absolute Windows path' % args['staging_dir'])
        snapshot = _snapshot.from_task_vars(task_vars) or {}
        wanted = [artifact for artifact in args['artifacts'] if not installed(artifact, snapshot.get('artifacts'))]
        calls = 0
        try:
            items = [script_item(artifact) for artifact in wanted]
            if args['source'] == 'controller':
                staged = self._verify_on_controller(args, wanted)
            elif items:
                calls = 1
                staged = self._stage_on_node(args, items, task_vars)
            else:
                staged = []
        except (_artifacts.ChecksumError, _artifacts.DownloadError) as exc:
            return dict(result, failed=True, msg=str(exc))
        except _pwsh.ScriptError as exc:
            return dict(result, failed=True, msg=str(exc), error_record=exc.error_record)
        result['changed'] = any(item['state'] in ('downloaded', 'pending') for item in staged)
        # kubewin.node.artifact takes the file staged for its URL (its argument staged) instead of downloading it.
        result['staged'] = {item['url']: {'path': item['path'], 'sha': item['sha']}
                            for item in staged if item['state'] != 'pending' and item.get('path')}
        result['artifacts'] = staged
        result['skipped_installed'] = len(args['artifacts']) - len(wanted)
        activity = _activity.record(task_vars, self._task._uuid, 'artifact_stage', args['staging_dir'],
                                    result['changed'], calls)
        if activity is not None:
            result['ansible_facts'] = {_activity.FACT: activity}
        return result

    def _stage_on_node(self, args, items, task_vars):
        parameters = {'StagingDir': args['staging_dir'], 'Artifacts': items, 'Retries': args['retries'],
                      'TimeoutSeconds': args['timeout']}
        proxy, secrets = _artifacts.proxy_parameters(args['proxy'])
        parameters.update(proxy)
        if args['proxy_environment']:
            parameters['ProxyEnvironment'] = args['proxy_environment']
        staged = _pwsh.run_script(self, 'artifact_stage', parameters, task_vars, secrets=secrets)['artifacts']
        for item in staged:
            if item['state'] == 'downloaded':
                display.v(_artifacts.describe(_artifacts.figures(
                    _artifacts.file_name(item['url']), 'downloaded', item['bytes'], item['seconds'], item['attempts'])),
                    host=task_vars.get('inventory_hostname'))
        return staged

    def _verify_on_controller(self, args, wanted):
        """source: controller: each artifact is downloaded and verified into the controller's cache now, so a wrong
        checksum fails here too; kubewin.node.artifact copies it from the cache later. No remote call."""
        staged = []
        for artifact in wanted:
            algorithm, pinned, checksum_url = _artifacts.parse_checksum(artifact['checksum'])
            if self._task.check_mode:
                staged.append({'url': artifact['url'], 'state': 'pending', 'path': None, 'sha': pinned})
                continue
            path, sha, transfer = _artifacts.controller_copy(
                artifact['url'], algorithm, pinned, checksum_url, args['cache_dir'], retries=args['retries'],
                timeout=args['timeout'], proxy=(args['proxy'] or {}).get('url'))
            # The controller's cache is not the node: nothing of the node changed.
            staged.append({'url': artifact['url'], 'state': 'present', 'path': None, 'sha': sha,
                           'cached': path, 'downloaded': transfer is not None})
        return staged
