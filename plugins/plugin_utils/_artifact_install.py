# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One verified artifact as kubewin.node.artifact (one) and kubewin.node.artifact_batch (several, in one remote call)
install it: its checks, its plan from the node state, its entry for artifact_fetch.ps1 and what it reports.

Internal to kubewin.node, not a public API.
"""

from __future__ import annotations

import ntpath
import os
import re
import time

from ansible_collections.kubewin.node.plugins.plugin_utils import _artifacts
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeActionError, Plan

ARCHIVE_SUFFIXES = {'.zip': 'zip', '.tar.gz': 'tar.gz', '.tgz': 'tar.gz'}
SECTIONS = ('files', 'artifacts')

# The options of one artifact (kubewin.node.artifact's, an entry of kubewin.node.artifact_batch's artifacts).
ARTIFACT_OPTIONS = {
    'url': {'type': 'str', 'required': True},
    'dest': {'type': 'str', 'required': True},
    'checksum': {'type': 'str'},
    'skip_checksum': {'type': 'bool', 'default': False},
    'extract': {'type': 'dict', 'options': {
        'format': {'type': 'str', 'choices': ['zip', 'tar.gz']},
        'members': {'type': 'list', 'elements': 'str', 'required': True},
        'rename': {'type': 'dict', 'default': {}},
    }},
    'version': {'type': 'str'},
}

# The options that apply to every artifact of a task.
DOWNLOAD_OPTIONS = {
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
}

# What kubewin.node.artifact_stage put in the node's staging folder for a URL: {path, sha}.
STAGED_OPTIONS = {
    'path': {'type': 'str', 'required': True},
    'sha': {'type': 'str', 'required': True},
}


class Artifact:
    """One artifact's arguments (its own options and the task's download options), checked when made."""

    def __init__(self, args, name=None, staged=None):
        self.args = args
        self.file_name = _artifacts.file_name(args['url'])
        # What results and errors call it: the component it is, or the file its URL names.
        self.name = name or self.file_name
        self.staged = staged
        if not re.match(r'^https?://', args['url']):
            raise NodeActionError('url %r must be an http:// or https:// URL' % args['url'])
        if not re.match(r'^[A-Za-z]:\\', args['dest']):
            raise NodeActionError('dest %r must be an absolute Windows path such as C:\\k\\kubelet.exe' % args['dest'])
        if args['checksum'] and args['skip_checksum']:
            raise NodeActionError('%s: checksum and skip_checksum are mutually exclusive' % self.name)
        if args['checksum']:
            try:
                self.algorithm, self.pinned, self.checksum_url = _artifacts.parse_checksum(args['checksum'])
            except _artifacts.ChecksumError as exc:
                raise NodeActionError(str(exc))
        elif not args['skip_checksum']:
            raise NodeActionError(
                'no checksum for %s: give checksum (sha256:<hex>, sha512:<hex>, or sha256:<URL of the upstream hash '
                'file>), or set skip_checksum: true to install this artifact unverified' % args['url'])
        else:
            self.algorithm, self.pinned, self.checksum_url = 'sha256', None, None
        if args['skip_checksum'] and args['source'] == 'controller':
            raise NodeActionError('source: controller caches artifacts by their verified hash and needs a checksum')
        if args['extract']:
            members = args['extract']['members']
            names = self.names()
            unknown = sorted(set(args['extract']['rename']) - set(members))
            if not members or len(set(n.lower() for n in names)) != len(names) or unknown:
                raise NodeActionError('extract.members %s must be a non-empty list whose file names (after rename) '
                                      'are unique, and extract.rename may only name members (not: %s)'
                                      % (members, ', '.join(unknown) or 'none'))
        self.format = self._format()

    def _format(self):
        if not self.args['extract']:
            return 'file'
        if self.args['extract']['format']:
            return self.args['extract']['format']
        for suffix, archive_format in ARCHIVE_SUFFIXES.items():
            if self.file_name.lower().endswith(suffix):
                return archive_format
        raise NodeActionError('cannot tell the archive format of %s; set extract.format' % self.args['url'])

    def names(self):
        # Each member lands in dest under its own file name, or the name extract.rename gives it.
        rename = self.args['extract']['rename']
        return [rename.get(member) or ntpath.basename(member.replace('/', '\\'))
                for member in self.args['extract']['members']]

    def targets(self):
        if not self.args['extract']:
            return [self.args['dest']]
        return [ntpath.join(self.args['dest'], name) for name in self.names()]

    def record_key(self):
        # The first file installed names the record: unique per artifact even when several archives
        # share a destination directory, and the same across upgrades that install the same files.
        return self.targets()[0]

    def spec(self):
        return self.args['checksum'] or 'none'

    def plan(self, state):
        args, targets, files = self.args, self.targets(), state['files']
        record = (state.get('artifacts') or {}).get(self.record_key())
        before = {'url': record['url'], 'checksum': record['checksum']} if record else {}
        if record and record.get('version'):
            before['version'] = record['version']
        before['files'] = {path: files[path].get('sha256') for path in targets if files[path]['exists']}
        after = {'url': args['url'], 'checksum': self.spec(), 'files': targets}
        if args['version']:
            after['version'] = args['version']
        if not args['force']:
            recorded = (record or {}).get('files') or {}
            # A record that names another version than the one wanted (or none, when a version is
            # wanted) is installed again, so that the record says which version the node runs.
            same_version = not args['version'] or (record or {}).get('version') == args['version']
            if (record and record['checksum'] == self.spec() and self.spec() != 'none' and same_version
                    and sorted(recorded) == sorted(targets)
                    and all(files[path]['exists'] and files[path].get('sha256') == recorded[path] for path in targets)):
                return Plan(before=before, after=before)
            # A file that already has the pinned hash needs no download, recorded or not.
            current = files[targets[0]]
            if (not args['extract'] and self.algorithm == 'sha256' and self.pinned and same_version
                    and current['exists'] and current.get('sha256') == self.pinned):
                return Plan(before=before, after=before)
        return Plan([{'op': 'fetch'}], before=before, after=after)

    def entry(self):
        """What artifact_fetch.ps1 installs (an entry of its -Artifacts), downloaded by the node."""
        entry = {'name': self.name, 'url': self.args['url'], 'dest': self.args['dest'], 'algorithm': self.algorithm,
                 'checksum_spec': self.spec(), 'format': self.format, 'key': self.record_key()}
        if self.args['version']:
            entry['version'] = self.args['version']
        if self.args['extract']:
            entry.update(members=self.args['extract']['members'], names=self.names())
        if self.pinned:
            entry['checksum'] = self.pinned
        if self.checksum_url:
            entry['checksum_url'] = self.checksum_url
        return entry

    def check_applied(self, state):
        record = (state.get('artifacts') or {}).get(self.record_key()) or {}
        missing = [path for path in self.targets() if not state['files'][path]['exists']]
        wrong_version = self.args['version'] and record.get('version') != self.args['version']
        if record.get('checksum') != self.spec() or wrong_version or missing:
            raise NodeActionError('%s is not installed as verified after the download (missing: %s)'
                                  % (self.args['dest'], ', '.join(missing) or 'none'))

    def report(self, state, plan, check_mode, download=None):
        reported = {'dest': self.args['dest'], 'checksum': self.spec(), 'version': self.args['version'],
                    'files': {path: state['files'][path].get('sha256') for path in self.targets()}}
        # A download that ran has its figures from install(); otherwise say why there was none.
        if download is not None:
            reported['download'] = download
        elif not plan.changed:
            reported['download'] = _artifacts.figures(self.file_name, 'present')
        elif check_mode:
            reported['download'] = _artifacts.figures(self.file_name, 'pending')
        return reported


def install(action, artifacts, options):
    """Install ``artifacts`` (Artifact, each planned to change) with one artifact_fetch.ps1 run.

    ``options`` are the task's download options. Returns {'state': the node state the script read after, 'installed':
    [{'attempts', 'download'}] in the order given}. With source=controller each artifact is downloaded once on the
    controller (cached by hash) and copied to the node first, a round trip per file.
    """
    proxy, secrets = _artifacts.proxy_parameters(options['proxy'])
    parameters = dict(proxy, Retries=options['retries'], TimeoutSeconds=options['timeout'])
    entries = [artifact.entry() for artifact in artifacts]
    if options['source'] == 'controller':
        temporary = action._make_tmp_path()  # pylint: disable=protected-access
        try:
            downloads = [_push_from_controller(action, artifact, entry, options, temporary, index)
                         for index, (artifact, entry) in enumerate(zip(artifacts, entries))]
            applied = action.run_script('artifact_fetch', dict(parameters, Artifacts=entries), secrets=secrets)
        finally:
            action._remove_tmp_path(temporary)  # pylint: disable=protected-access
    else:
        for artifact, entry in zip(artifacts, entries):
            if artifact.staged:
                # The staging step downloaded and verified it on the node: moved into place from there (and verified
                # again against the hash it was staged under), with no download.
                entry.update(staged_path=artifact.staged['path'], checksum=artifact.staged['sha'])
                entry.pop('checksum_url', None)
        applied = action.run_script('artifact_fetch', dict(parameters, Artifacts=entries), secrets=secrets)
        downloads = [_artifacts.figures(artifact.file_name, 'staged') if artifact.staged else
                     _artifacts.figures(artifact.file_name, 'downloaded', fetched['bytes'], fetched['seconds'],
                                        fetched['attempts'])
                     for artifact, fetched in zip(artifacts, applied['artifacts'])]
    return {'state': applied['state'],
            'installed': [{'attempts': fetched['attempts'], 'download': download}
                          for fetched, download in zip(applied['artifacts'], downloads)]}


def keep_other_records(after, before):
    """Fold the records of the node's other artifacts (``before``, the state the plan read: the whole artifacts
    section) into ``after``, the state an install read back, which has only its own. The snapshot takes a module's
    artifacts section whole (_snapshot.merge); without the others, every later artifact task of the run would find no
    record of its artifacts and download and install them again."""
    records = after.setdefault('artifacts', {})
    for key, record in (before.get('artifacts') or {}).items():
        records.setdefault(key, record)


def _push_from_controller(action, artifact, entry, options, temporary, index):
    """Download once on the controller (cached by hash), then copy to the node over WinRM; the entry installs the
    copy. Returns the download's figures."""
    url = artifact.args['url']
    try:
        local, verified, transfer = _artifacts.controller_copy(
            url, artifact.algorithm, artifact.pinned, artifact.checksum_url, options['cache_dir'],
            retries=options['retries'], timeout=options['timeout'], proxy=(options['proxy'] or {}).get('url'))
    except (_artifacts.DownloadError, _artifacts.ChecksumError) as exc:
        raise NodeActionError('controller download: %s' % exc)
    # pylint: disable=protected-access  # the copy is the action's own round trip, as a script run is
    # Numbered: two artifacts of one task may have files of the same name.
    staged = action._connection._shell.join_path(temporary, '%d-%s' % (index, artifact.file_name))
    action.count_remote_call()
    started = time.monotonic()
    action._transfer_file(local, staged)
    copy_seconds = time.monotonic() - started
    entry.update(staged_path=staged, checksum=verified)
    entry.pop('checksum_url', None)
    name, size = artifact.file_name, os.path.getsize(local)
    if transfer is None:
        return _artifacts.figures(name, 'cached', size, copy_seconds=copy_seconds)
    return _artifacts.figures(name, 'downloaded', size, transfer[1], transfer[0], copy_seconds=copy_seconds)
