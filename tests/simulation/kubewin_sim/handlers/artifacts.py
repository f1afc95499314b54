"""Simulation of artifact_fetch.ps1: download with retries, verify, then install."""

import ntpath
import os
import uuid

from kubewin_sim import web
from kubewin_sim import scm
from kubewin_sim.node import SimulationError
from kubewin_sim.registry import ScriptFailure, script


def _download(url, retries):
    """Invoke-Download: returns (attempts, what was served); the simulation does not wait out the backoff."""
    state_dir = os.environ['KUBEWIN_SIM_STATE_DIR']
    attempt = 0
    while True:
        attempt += 1
        try:
            return attempt, web.request(state_dir, url)
        except web.WebError as exc:
            status = ' (HTTP %s)' % exc.status if exc.status.isdigit() else ''
            if not exc.transient:
                raise ScriptFailure('download of %s failed%s; not retried: %s' % (url, status, exc))
            if attempt > retries:
                raise ScriptFailure('download of %s failed%s after %d attempts: %s' % (url, status, attempt, exc))


def _expected(p):
    if p['Checksum']:
        return p['Checksum'].lower()
    if not p['ChecksumUrl']:
        return None
    text = _download(p['ChecksumUrl'], p['Retries'])[1].get('text') or ''
    length = 128 if p['Algorithm'] == 'sha512' else 64
    name = p['Url'].rsplit('/', 1)[-1]
    candidates = [fields[0].lower() for fields in (line.split() for line in text.splitlines())
                  if fields and len(fields[0]) == length
                  and (len(fields) == 1 or ntpath.basename(fields[-1].lstrip('*')) == name)]
    if len(candidates) != 1:
        raise ScriptFailure('%s holds no single %s for %s' % (p['ChecksumUrl'], p['Algorithm'], name))
    return candidates[0]


def _install(node, target, sha256, size):
    """Install-KubeWinFile: move the old file aside (a running program can be renamed, not replaced)."""
    in_use = scm.programs_in_use(node)
    for leftover in [path for path in node.data['files'] if path.lower().startswith(target.lower() + '.kubewin-old-')]:
        node.remove_file(leftover)
    old = node.file(target)
    if old is not None and target.lower() in in_use:
        # The service still runs the old program, so the renamed file cannot be removed yet.
        node.data['files']['%s.kubewin-old-%s' % (target, uuid.uuid4().hex)] = dict(old)
    node.write_file(target, sha256=sha256, size=size, acl='protected')


@script('artifact_fetch')
def artifact_fetch(node, p, context):
    expected = _expected(p)
    attempts = 0
    if p['StagedPath']:
        staged = node.file(p['StagedPath'])
        if staged is None:
            raise SimulationError("Cannot find path '%s' because it does not exist." % p['StagedPath'])
        served = dict(staged)
        node.remove_file(p['StagedPath'])
    else:
        attempts, served = _download(p['Url'], p['Retries'])
    actual = served.get(p['Algorithm'])
    if expected is not None and actual != expected:
        raise ScriptFailure('checksum mismatch for %s: expected %s %s, got %s; the file was not installed'
                            % (p['Url'], p['Algorithm'], expected, actual))
    placed = []
    if p['Format'] == 'file':
        _install(node, p['Dest'], served['sha256'], served['size'])
        placed.append(p['Dest'])
    else:
        contained = web.archive_members(os.environ['KUBEWIN_SIM_STATE_DIR'], p['Url'])
        missing = [member for member in p['Members'] if member.lstrip('./') not in contained]
        if missing:
            raise ScriptFailure('%s does not contain: %s' % (p['Url'], ', '.join(missing)))
        for member, name in zip(p['Members'], p['Names']):
            target = ntpath.join(p['Dest'], name)
            member_file = web.member_identity(p['Url'], served['sha256'], member)
            _install(node, target, member_file['sha256'], member_file['size'])
            placed.append(target)
    node.register(placed)
    record = {'url': p['Url'], 'checksum': p['ChecksumSpec']}
    if p['Version']:
        record['version'] = p['Version']
    record['files'] = {path: node.file(path)['sha256'] for path in placed}
    node.data['artifacts'][p['ArtifactKey']] = record
    return {'attempts': attempts, 'sha': expected or actual,
            'state': {'sections': ['files', 'artifacts'], 'files': {path: node.file_view(path) for path in placed},
                      'artifacts': {p['ArtifactKey']: record}}}
