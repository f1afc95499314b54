# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.artifact: a downloaded file (or archive members) verified by checksum before it is installed."""

from __future__ import annotations

import ntpath
import os
import re
import time

from ansible.utils.display import Display

from ansible_collections.kubewin.node.plugins.plugin_utils import _artifacts, _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan

ARCHIVE_SUFFIXES = {'.zip': 'zip', '.tar.gz': 'tar.gz', '.tgz': 'tar.gz'}

display = Display()


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'url': {'type': 'str', 'required': True},
        'dest': {'type': 'str', 'required': True},
        'checksum': {'type': 'str'},
        'skip_checksum': {'type': 'bool', 'default': False},
        'extract': {'type': 'dict', 'options': {
            'format': {'type': 'str', 'choices': ['zip', 'tar.gz']},
            'members': {'type': 'list', 'elements': 'str', 'required': True},
            'rename': {'type': 'dict', 'default': {}},
        }},
        'proxy': {'type': 'dict', 'no_log': False, 'options': {
            'url': {'type': 'str', 'required': True},
            'username': {'type': 'str'},
            'password': {'type': 'str', 'no_log': True},
        }},
        'force': {'type': 'bool', 'default': False},
        'retries': {'type': 'int', 'default': 4},
        'timeout': {'type': 'int', 'default': 300},
        'source': {'type': 'str', 'choices': ['node', 'controller'], 'default': 'node'},
        'cache_dir': {'type': 'path', 'default': '~/.cache/kubewin/artifacts'},
        'version': {'type': 'str'},
        # What kubewin.node.artifact_stage put in the node's staging folder for this URL: installed from there.
        'staged': {'type': 'dict', 'options': {
            'path': {'type': 'str', 'required': True},
            'sha': {'type': 'str', 'required': True},
        }},
    }
    ARGSPEC_OPTIONS = {'mutually_exclusive': [('checksum', 'skip_checksum')]}
    SECTIONS = ('files', 'artifacts')

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        # One win_powershell call cannot stream progress while it runs: the figures of the finished download
        # are shown once, at -v (Display.v), and kept in the result under ``download``.
        if result.get('download') and not result.get('failed'):
            display.v(_artifacts.describe(result['download']), host=(task_vars or {}).get('inventory_hostname'))
        return result

    def validate(self, args):
        if not re.match(r'^https?://', args['url']):
            raise NodeActionError('url %r must be an http:// or https:// URL' % args['url'])
        if not re.match(r'^[A-Za-z]:\\', args['dest']):
            raise NodeActionError('dest %r must be an absolute Windows path such as C:\\k\\kubelet.exe' % args['dest'])
        if args['checksum']:
            try:
                self._algorithm, self._pinned, self._checksum_url = _artifacts.parse_checksum(args['checksum'])
            except _artifacts.ChecksumError as exc:
                raise NodeActionError(str(exc))
        elif not args['skip_checksum']:
            raise NodeActionError(
                'no checksum for %s: give checksum (sha256:<hex>, sha512:<hex>, or sha256:<URL of the upstream hash '
                'file>), or set skip_checksum: true to install this artifact unverified' % args['url'])
        else:
            self._algorithm, self._pinned, self._checksum_url = 'sha256', None, None
        if args['skip_checksum'] and args['source'] == 'controller':
            raise NodeActionError('source: controller caches artifacts by their verified hash and needs a checksum')
        if args['extract']:
            members = args['extract']['members']
            names = self._names(args)
            unknown = sorted(set(args['extract']['rename']) - set(members))
            if not members or len(set(n.lower() for n in names)) != len(names) or unknown:
                raise NodeActionError('extract.members %s must be a non-empty list whose file names (after rename) '
                                      'are unique, and extract.rename may only name members (not: %s)'
                                      % (members, ', '.join(unknown) or 'none'))

    def _format(self, args):
        if not args['extract']:
            return 'file'
        if args['extract']['format']:
            return args['extract']['format']
        for suffix, archive_format in ARCHIVE_SUFFIXES.items():
            if _artifacts.file_name(args['url']).lower().endswith(suffix):
                return archive_format
        raise NodeActionError('cannot tell the archive format of %s; set extract.format' % args['url'])

    @staticmethod
    def _names(args):
        # Each member lands in dest under its own file name, or the name extract.rename gives it.
        rename = args['extract']['rename']
        return [rename.get(member) or ntpath.basename(member.replace('/', '\\')) for member in args['extract']['members']]

    def _targets(self, args):
        if not args['extract']:
            return [args['dest']]
        return [ntpath.join(args['dest'], name) for name in self._names(args)]

    def _record_key(self, args):
        # The first file installed names the record: unique per artifact even when several archives
        # share a destination directory, and the same across upgrades that install the same files.
        return self._targets(args)[0]

    def _spec(self, args):
        return args['checksum'] or 'none'

    def scope(self, args, live=False):
        return {'files': self._targets(args)}

    def side_effects(self, args, plan):
        return _snapshot.rewritten(self._targets(args))  # and the record, which the apply re-reads

    def plan(self, args, state):
        targets = self._targets(args)
        files = state['files']
        record = (state.get('artifacts') or {}).get(self._record_key(args))
        before = {'url': record['url'], 'checksum': record['checksum']} if record else {}
        if record and record.get('version'):
            before['version'] = record['version']
        before['files'] = {path: files[path].get('sha256') for path in targets if files[path]['exists']}
        after = {'url': args['url'], 'checksum': self._spec(args), 'files': targets}
        if args['version']:
            after['version'] = args['version']
        if not args['force']:
            recorded = (record or {}).get('files') or {}
            # A record that names another version than the one wanted (or none, when a version is
            # wanted) is installed again, so that the record says which version the node runs.
            same_version = not args['version'] or (record or {}).get('version') == args['version']
            if (record and record['checksum'] == self._spec(args) and self._spec(args) != 'none' and same_version
                    and sorted(recorded) == sorted(targets)
                    and all(files[path]['exists'] and files[path].get('sha256') == recorded[path] for path in targets)):
                return Plan(before=before, after=before)
            # A file that already has the pinned hash needs no download, recorded or not.
            current = files[targets[0]]
            if (not args['extract'] and self._algorithm == 'sha256' and self._pinned and same_version
                    and current['exists'] and current.get('sha256') == self._pinned):
                return Plan(before=before, after=before)
        return Plan([{'op': 'fetch'}], before=before, after=after)

    def apply(self, args, plan, state):
        parameters = {
            'Url': args['url'], 'Dest': args['dest'], 'Algorithm': self._algorithm,
            'ChecksumSpec': self._spec(args), 'Format': self._format(args),
            'Retries': args['retries'], 'TimeoutSeconds': args['timeout'], 'ArtifactKey': self._record_key(args),
        }
        if args['version']:
            parameters['Version'] = args['version']
        if args['extract']:
            parameters['Members'] = args['extract']['members']
            parameters['Names'] = self._names(args)
        if self._pinned:
            parameters['Checksum'] = self._pinned
        if self._checksum_url:
            parameters['ChecksumUrl'] = self._checksum_url
        proxy, secrets = _artifacts.proxy_parameters(args['proxy'])
        parameters.update(proxy)
        if args['source'] == 'controller':
            return self._push_from_controller(args, parameters, secrets)
        if args['staged']:
            return self._install_staged(args, parameters, secrets)
        return self._fetch(parameters, secrets)

    def _install_staged(self, args, parameters, secrets):
        """The staging step downloaded and verified the artifact on the node: it is moved into place from there (and
        verified again against the hash it was staged under), with no download."""
        parameters.update(StagedPath=args['staged']['path'], Checksum=args['staged']['sha'])
        parameters.pop('ChecksumUrl', None)
        applied = self._fetch(parameters, secrets)
        applied['download'] = _artifacts.figures(_artifacts.file_name(args['url']), 'staged')
        return applied

    def _fetch(self, parameters, secrets):
        applied = self.run_script('artifact_fetch', parameters, secrets=secrets)
        fetched = {'state': applied['state'], 'attempts': applied['attempts']}
        if 'StagedPath' not in parameters:  # a staged file's figures are the controller's (_push_from_controller)
            fetched['download'] = _artifacts.figures(_artifacts.file_name(parameters['Url']), 'downloaded',
                                                     applied['bytes'], applied['seconds'], applied['attempts'])
        return fetched

    def _push_from_controller(self, args, parameters, secrets):
        """Download once on the controller (cached by hash), then copy to the node over WinRM."""
        try:
            local, verified, transfer = _artifacts.controller_copy(
                args['url'], self._algorithm, self._pinned, self._checksum_url, args['cache_dir'],
                retries=args['retries'], timeout=args['timeout'], proxy=(args['proxy'] or {}).get('url'))
        except (_artifacts.DownloadError, _artifacts.ChecksumError) as exc:
            raise NodeActionError('controller download: %s' % exc)
        temporary = self._make_tmp_path()
        try:
            staged = self._connection._shell.join_path(temporary, _artifacts.file_name(args['url']))
            self.count_remote_call()  # the copy is a round trip of its own, like a script run
            started = time.monotonic()
            self._transfer_file(local, staged)
            copy_seconds = time.monotonic() - started
            parameters.update(StagedPath=staged, Checksum=verified)
            parameters.pop('ChecksumUrl', None)
            applied = self._fetch(parameters, secrets)
        finally:
            self._remove_tmp_path(temporary)
        name, size = _artifacts.file_name(args['url']), os.path.getsize(local)
        if transfer is None:
            applied['download'] = _artifacts.figures(name, 'cached', size, copy_seconds=copy_seconds)
        else:
            applied['download'] = _artifacts.figures(name, 'downloaded', size, transfer[1], transfer[0],
                                                     copy_seconds=copy_seconds)
        return applied

    def check_applied(self, args, plan, state):
        record = (state.get('artifacts') or {}).get(self._record_key(args)) or {}
        missing = [path for path in self._targets(args) if not state['files'][path]['exists']]
        wrong_version = args['version'] and record.get('version') != args['version']
        if record.get('checksum') != self._spec(args) or wrong_version or missing:
            raise NodeActionError('%s is not installed as verified after the download (missing: %s)'
                                  % (args['dest'], ', '.join(missing) or 'none'))

    def resource(self, args):
        # Several artifacts share a destination folder (the CNI plugins): the file downloaded names each.
        return _artifacts.file_name(args['url'])

    def report(self, args, state, plan):
        reported = {'dest': args['dest'], 'checksum': self._spec(args), 'version': args['version'],
                    'files': {path: state['files'][path].get('sha256') for path in self._targets(args)}}
        # A download that ran reported its figures from apply; otherwise say why there was none.
        if not plan.changed:
            reported['download'] = _artifacts.figures(self.resource(args), 'present')
        elif self._task.check_mode:
            reported['download'] = _artifacts.figures(self.resource(args), 'pending')
        return reported
