"""The web the simulated nodes download from: content identities, archive layouts, faults.

Every URL serves a deterministic file whose bytes are ``kubewin-sim:<url>`` (so
its SHA-256 and SHA-512 are real hashes a test can compute), and a URL ending
in ``.sha256``/``.sha256sum``/``.sha512`` serves the matching hash of the URL
without that suffix, as upstream release sites do: an honest mirror.

``<state dir>/web.json`` changes that, shared by all nodes:

    {"served": {"<url>": {"sha256": "<hex>", "size": 123}},   # what a URL serves instead: a binary known by its
                                                              # digest, or {"base64": "<bytes>"}: these bytes
     "archives": {"<url>": ["member/path", ...]},             # members of an archive
     "faults": {"<url>": ["503", "503", "200"]},              # answers, consumed in order
     "rates": {"<url>": 8388608},                             # bytes per second the body arrives at
     "requests": ["<url>", ...]}                              # every GET the web answered or refused, in order

``requests`` is the web's own log (``requests``), so a test can count what a run downloaded.

A fault is one of 200, 404, 403, 500, 503, timeout, reset, corrupt (the body
differs from what the URL normally serves), truncated.

A URL with a rate takes its size divided by the rate in seconds to arrive (``request``
returns them as ``seconds``; the node's clock moves on by as much, windows/downloads.py);
without one a body arrives at once.

An archive URL (a layout below or in ``archives``) serves the same kind of body: the simulation has no
upstream archive bytes. What a program finds inside such an archive is derived here once
(``simulated_archive``, ``member_identity``), for the handler and for the Windows model's tar.exe and
ZipFile alike: the archive is recognised by its content (the bytes ``kubewin-sim:<url>``, or a SHA-256
that ``served`` pins for a URL), each member a binary of 4096 bytes whose SHA-256 derives from the URL,
the archive's SHA-256 and the member's path.
"""

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import re

PREFIX = b'kubewin-sim:'
MEMBER_SIZE = 4096
HASH_SUFFIXES = {'.sha256': 'sha256', '.sha256sum': 'sha256', '.sha512': 'sha512'}
TRANSIENT = {'500', '502', '503', 'timeout', 'reset'}

# What upstream release archives contain, as far as the collection uses them
# (so a wrong member name in the artifact table fails in the tests too).
KNOWN_LAYOUTS = [
    (r'/containerd-[^/]+-windows-amd64\.tar\.gz$',
     ['bin/containerd.exe', 'bin/containerd-shim-runhcs-v1.exe', 'bin/ctr.exe', 'bin/containerd-stress.exe']),
    (r'/crictl-v[^/]+-windows-amd64\.tar\.gz$', ['crictl.exe']),
    (r'/cni-plugins-windows-amd64-v[^/]+\.tgz$', ['win-bridge.exe', 'win-overlay.exe', 'host-local.exe']),
    (r'/cni-plugin-flannel-windows-amd64-v[^/]+\.tgz$', ['flannel-amd64.exe']),
    (r'/windows-container-networking-cni-amd64-v[^/]+\.zip$', ['sdnbridge.exe', 'sdnoverlay.exe', 'nat.exe']),
    (r'/cri-dockerd-[^/]+\.win\.amd64\.zip$', ['cri-dockerd/cri-dockerd.exe']),
    (r'/docker-[^/]+\.zip$', ['docker/docker.exe', 'docker/dockerd.exe']),
    (r'/nssm-2\.24\.zip$', ['nssm-2.24/win32/nssm.exe', 'nssm-2.24/win64/nssm.exe']),
    (r'/csi-proxy-v[^/]+\.tar\.gz$', ['bin/csi-proxy.exe']),
]


# The reason phrases .NET Framework's HttpWebRequest puts in a WebException for an HTTP error status
# ("The remote server returned an error: (404) Not Found.": System.Net resource net_servererror with
# the status code's own resource, net_httpstatuscode_*), and the messages of a timeout and of a
# connection closed while receiving (WebExceptionStatus Timeout and ReceiveFailure; Windows PowerShell
# 5.1's Invoke-WebRequest reports a timeout with its own RequestTimeout string, the same text). The
# WebError of an answer carries the message the WebException has on Windows.
REASONS = {'403': 'Forbidden', '404': 'Not Found', '500': 'Internal Server Error', '502': 'Bad Gateway',
           '503': 'Server Unavailable'}


class WebError(Exception):
    def __init__(self, message, status, transient):
        self.status = status
        self.transient = transient
        super().__init__(message)


def body(url):
    return ('kubewin-sim:%s' % url).encode('utf-8')


def _path(state_dir):
    return os.path.join(state_dir, 'web.json')


@contextlib.contextmanager
def _web(state_dir):
    path = _path(state_dir)
    with open(path + '.lock', 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = {'served': {}, 'archives': {}, 'faults': {}, 'rates': {}, 'requests': []}
        if os.path.exists(path):
            with open(path, encoding='utf-8') as handle:
                data.update(json.load(handle))
        yield data
        with open(path, 'w', encoding='utf-8') as handle:
            json.dump(data, handle, indent=1, sort_keys=True)


def configure(state_dir, served=None, archives=None, faults=None, rates=None):
    """For tests: declare what URLs serve, archive layouts, faults and transfer rates (bytes per second)."""
    with _web(state_dir) as data:
        data['served'].update(served or {})
        data['archives'].update(archives or {})
        data['faults'].update(faults or {})
        data['rates'].update(rates or {})


def requests(state_dir):
    """Every URL a node asked the web for so far, in order (one entry per GET, a hash file's too)."""
    with _web(state_dir) as data:
        return list(data['requests'])


def serve_unless_configured(state_dir, served):
    """Declare what URLs serve, keeping what a test declared for the same URL before."""
    with _web(state_dir) as data:
        for url, what in served.items():
            data['served'].setdefault(url, what)


def identity(data, url):
    """{'sha256', 'sha512', 'size'} of what ``url`` serves when nothing goes wrong, with 'body' (the bytes)
    unless ``served`` pins it by its digest."""
    if url in data['served']:
        if 'base64' in data['served'][url]:
            # A file whose bytes a test gives (a text file a program reads: a .reg file, a manifest).
            return _digests(base64.b64decode(data['served'][url]['base64']))
        return dict(data['served'][url])
    return _digests(body(url))


def _hash_file(data, url):
    for suffix, algorithm in HASH_SUFFIXES.items():
        if url.endswith(suffix):
            target = url[:-len(suffix)]
            return '%s  %s\n' % (identity(data, target).get(algorithm) or '', target.rsplit('/', 1)[-1])
    return None


def _digests(content):
    return {'sha256': hashlib.sha256(content).hexdigest(), 'sha512': hashlib.sha512(content).hexdigest(),
            'size': len(content), 'body': content}


def request(state_dir, url):
    """One HTTP GET. Returns {'sha256', 'sha512', 'size'} and, when the web has the bytes, 'body' (the bytes),
    or {'text', 'body'} for hash files, each with 'seconds': how long the body takes to arrive. Raises WebError."""
    answer, rate = _answer(state_dir, url)
    size = answer['size'] if 'size' in answer else len(answer['body'])
    answer['seconds'] = size / float(rate) if rate else 0.0
    return answer


def _answer(state_dir, url):
    """What one GET of ``url`` answers (as ``request`` returns it, without 'seconds'), and the URL's rate."""
    with _web(state_dir) as data:
        data['requests'].append(url)
        queue = data['faults'].get(url) or []
        answer = queue.pop(0) if queue else '200'
        text = _hash_file(data, url) if answer == '200' else None
        served = identity(data, url)
        rate = data['rates'].get(url)
    # Raised after the block, so the consumed fault is saved.
    if answer in ('404', '403', '500', '502', '503'):
        raise WebError('The remote server returned an error: (%s) %s.' % (answer, REASONS[answer]), answer,
                       answer in TRANSIENT)
    if answer == 'timeout':
        raise WebError('The operation has timed out.', 'timeout', True)
    if answer == 'reset':
        raise WebError('The underlying connection was closed: An unexpected error occurred on a receive.',
                       'reset', True)
    if text is not None:
        return {'text': text, 'body': text.encode('ascii')}, rate
    pinned = 'body' not in served
    if answer == 'corrupt':
        # Other bytes than the URL serves; a pinned binary keeps its size, the web has no bytes of it.
        corrupt = _digests(b'corrupt' + body(url))
        served = dict(corrupt, size=served['size']) if pinned else corrupt
        if pinned:
            del served['body']
    elif answer == 'truncated':
        served = _digests(body(url)[:5])
    return served, rate


def archive_members(state_dir, url):
    with _web(state_dir) as data:
        if url in data['archives']:
            return list(data['archives'][url])
    for pattern, members in KNOWN_LAYOUTS:
        if re.search(pattern, url):
            return list(members)
    return []


def simulated_archive(state_dir, data=None, sha256=None):
    """The URL whose archive a file is, known by its bytes ``data`` (``kubewin-sim:<url>``) or, for a file
    the web served by its pinned digest, its ``sha256``; None when it is no archive of the simulated web."""
    url = None
    if data is not None and data.startswith(PREFIX):
        url = data[len(PREFIX):].decode('utf-8', 'replace')
    elif sha256 is not None:
        with _web(state_dir) as web_data:
            url = next((candidate for candidate, pin in sorted(web_data['served'].items())
                        if pin.get('sha256') == sha256), None)
    if url is None or not archive_members(state_dir, url):
        return None
    return url


def member_identity(url, archive_sha256, member):
    """{'sha256', 'size'} of the member ``member`` of the archive ``url`` whose SHA-256 is ``archive_sha256``."""
    digest = hashlib.sha256(('%s#%s#%s' % (url, archive_sha256, member.lstrip('./'))).encode()).hexdigest()
    return {'sha256': digest, 'size': MEMBER_SIZE}
