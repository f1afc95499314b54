# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checksums of downloaded artifacts, the controller-side download cache, and the figures of a download.

Internal to kubewin.node, not a public API.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import shutil
import socket
import tempfile
import time
import urllib.error
import urllib.parse

from ansible.module_utils.urls import open_url

HEX_LENGTH = {'sha256': 64, 'sha512': 128}
_SPEC = re.compile(r'^(sha256|sha512):(.+)$')


class ChecksumError(ValueError):
    """A checksum specification or hash file that cannot be used."""


class DownloadError(Exception):
    """A download failed; ``transient`` says whether another attempt could help, ``unresolved`` that the server's
    name did not resolve (no network, or no DNS: every other URL of the same controller fails alike)."""

    def __init__(self, message, transient, unresolved=False):
        self.transient = transient
        self.unresolved = unresolved
        super().__init__(message)


def is_placeholder(spec):
    """The checksum the example inventories pin where upstream publishes no hash: all zeros, which no file has.
    One rule for every checksum the collection reads (the preflight's pins, the artifact module's argument)."""
    return bool(re.fullmatch(r'sha(256:0{64}|512:0{128})', str(spec or '').strip()))


PLACEHOLDER_FIX = 'the placeholder of zeros, which no file has: pin the hash of the file you downloaded and verified'


def parse_checksum(spec):
    """'sha256:<hex>' -> ('sha256', hex, None); 'sha256:<url>' -> ('sha256', None, url)."""
    match = _SPEC.match((spec or '').strip())
    if not match:
        raise ChecksumError('checksum %r must be sha256:<hex>, sha512:<hex>, or sha256:/sha512: followed by the '
                            'URL of the upstream hash file' % spec)
    algorithm, value = match.groups()
    if value.startswith(('https://', 'http://')):
        return algorithm, None, value
    if not re.fullmatch(r'[0-9a-fA-F]{%d}' % HEX_LENGTH[algorithm], value):
        raise ChecksumError('checksum %r: a %s is %d hexadecimal digits' % (spec, algorithm, HEX_LENGTH[algorithm]))
    if is_placeholder(spec):
        raise ChecksumError('checksum %r is %s' % (spec, PLACEHOLDER_FIX))
    return algorithm, value.lower(), None


def proxy_parameters(proxy):
    """The download scripts' proxy parameters (artifact_fetch.ps1, artifact_stage.ps1) from a task's ``proxy``
    option, and the password apart, as a secret the runner never logs."""
    parameters, secrets = {}, {}
    if proxy:
        parameters['Proxy'] = proxy['url']
        if proxy['username']:
            parameters['ProxyUsername'] = proxy['username']
            secrets['ProxyPassword'] = proxy['password'] or ''
    return parameters, secrets


def file_name(url):
    return posixpath.basename(urllib.parse.urlparse(url).path)


def parse_hash_file(text, algorithm, name):
    """The hash for ``name`` in a hash file: a bare hash, or sha256sum-style '<hash>  <name>' lines.

    A listed name counts only when its file name is exactly ``name`` (a list holding only
    ``evil-kubelet.exe`` does not vouch for ``kubelet.exe``).
    """
    length = HEX_LENGTH[algorithm]
    candidates = []
    for line in (text or '').splitlines():
        fields = line.strip().split()
        if fields and re.fullmatch(r'[0-9a-fA-F]{%d}' % length, fields[0]) and (
                len(fields) == 1 or posixpath.basename(fields[-1].lstrip('*').replace('\\', '/')) == name):
            candidates.append(fields[0].lower())
    if len(candidates) != 1:
        raise ChecksumError('the hash file holds %s %s for %s' % (
            'no' if not candidates else '%d candidate' % len(candidates), algorithm, name))
    return candidates[0]


def _fetch(url, destination, timeout):
    """One download attempt into ``destination``; raise DownloadError."""
    try:
        response = open_url(url, timeout=timeout, validate_certs=True, follow_redirects='all',
                            use_proxy=True, http_agent='kubewin.node')
        with open(destination, 'wb') as handle:
            shutil.copyfileobj(response, handle, 1024 * 1024)
    except urllib.error.HTTPError as exc:
        raise DownloadError('%s: HTTP %d %s' % (url, exc.code, exc.reason), transient=exc.code >= 500)
    except (urllib.error.URLError, OSError, ConnectionError) as exc:
        reason = getattr(exc, 'reason', exc)
        raise DownloadError('%s: %s' % (url, reason), transient=True, unresolved=isinstance(reason, socket.gaierror))


def download(url, destination, retries=4, timeout=300, proxy=None, sleep=time.sleep, retry_unresolved=True):
    """Download with bounded retries and exponential backoff for transient failures (a name that does not resolve
    too, unless ``retry_unresolved`` is false).

    Returns (attempts, seconds the successful attempt took), as artifact_fetch.ps1 measures a node's download.
    """
    previous = {}
    if proxy:
        # open_url honours the standard proxy environment variables.
        previous = {name: os.environ.get(name) for name in ('https_proxy', 'http_proxy')}
        os.environ.update(https_proxy=proxy, http_proxy=proxy)
    try:
        attempt = 0
        while True:
            attempt += 1
            started = time.monotonic()
            try:
                _fetch(url, destination, timeout)
                return attempt, time.monotonic() - started
            except DownloadError as exc:
                if not exc.transient or attempt > retries or (exc.unresolved and not retry_unresolved):
                    raise DownloadError('%s (after %d attempt%s)' % (exc, attempt, 's' if attempt > 1 else ''),
                                        exc.transient, exc.unresolved)
                sleep(min(30, 2 ** attempt))
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def file_digest(path, algorithm):
    digest = hashlib.new(algorithm)
    with open(path, 'rb') as handle:
        for block in iter(lambda: handle.read(1024 * 1024), b''):
            digest.update(block)
    return digest.hexdigest()


def controller_copy(url, algorithm, expected, checksum_url, cache_dir, retries=4, timeout=300, proxy=None):
    """Download an artifact once on the controller, verify it, and return (path, hash, transfer) in the cache.

    The cache is keyed by the verified hash, so a cached file is reused without
    any download and a corrupt one can never be served. ``transfer`` is
    (attempts, seconds) of the download, or None when the cache had the file.
    """
    if checksum_url:
        with tempfile.TemporaryDirectory() as scratch:
            hash_file = os.path.join(scratch, 'checksum')
            download(checksum_url, hash_file, retries, timeout, proxy)
            with open(hash_file, encoding='utf-8', errors='replace') as handle:
                expected = parse_hash_file(handle.read(), algorithm, file_name(url))
    cached = os.path.join(os.path.expanduser(cache_dir), '%s-%s' % (algorithm, expected), file_name(url))
    if os.path.exists(cached) and file_digest(cached, algorithm) == expected:
        return cached, expected, None
    os.makedirs(os.path.dirname(cached), exist_ok=True)
    partial = cached + '.partial'
    transfer = download(url, partial, retries, timeout, proxy)
    actual = file_digest(partial, algorithm)
    if actual != expected:
        os.remove(partial)
        raise ChecksumError('checksum mismatch for %s: expected %s %s, got %s' % (url, algorithm, expected, actual))
    os.replace(partial, cached)
    return cached, expected, transfer


# -- the figures of a download, as the artifact module reports and shows them at -v -------------------------

def _rate(size, seconds):
    """Bytes per second, or None when the time was too short to measure."""
    return round(size / seconds) if seconds else None


def figures(name, status, size=None, seconds=None, attempts=None, copy_seconds=None):
    """The ``download`` result of the artifact module for the file ``name``.

    ``status``: downloaded (on the node, or on the controller when ``copy_seconds`` is given: the copy to the node
    took that long), cached (the controller's cache had it; copied), present (the node has it, verified by its hash:
    nothing downloaded), staged (kubewin.node.artifact_stage downloaded it into the node's staging folder earlier in
    the run: moved into place from there) or pending (check mode: it would be downloaded).
    """
    result = {'file': name, 'status': status}
    if size is not None:
        result['bytes'] = size
    if seconds is not None:
        result.update(seconds=round(seconds, 3), bytes_per_second=_rate(size, seconds), attempts=attempts)
    if copy_seconds is not None:
        result.update(copy_seconds=round(copy_seconds, 3), copy_bytes_per_second=_rate(size, copy_seconds))
    return result


def size_text(count):
    """A byte count in binary units with one decimal, e.g. 118.3 MiB (IEC 80000-13 prefixes: 1 MiB is 1024 KiB)."""
    for unit in ('B', 'KiB', 'MiB', 'GiB'):
        if count < 1024 or unit == 'GiB':
            return '%d B' % count if unit == 'B' else '%.1f %s' % (count, unit)
        count /= 1024.0
    raise AssertionError('unreachable')


def _timed(size, seconds):
    rate = _rate(size, seconds)
    return 'in %.1f s%s' % (seconds, ' (%s/s)' % size_text(rate) if rate is not None else '')


def describe(download):
    """One line for the operator about a ``figures`` result, e.g. ``kubelet.exe: 118.3 MiB in 14.2 s (8.3 MiB/s)``."""
    name, status = download['file'], download['status']
    if status == 'present':
        return '%s: already in place, verified by its hash; not downloaded' % name
    if status == 'staged':
        return "%s: installed from the node's staging folder (downloaded and verified by the staging step)" % name
    if status == 'pending':
        return '%s: would be downloaded (check mode)' % name
    size = download['bytes']
    if status == 'cached':
        line = "%s: %s from the controller's cache" % (name, size_text(size))
    else:
        line = '%s: %s %s' % (name, size_text(size), _timed(size, download['seconds']))
        if download['attempts'] > 1:
            line += ' at attempt %d' % download['attempts']
        if 'copy_seconds' in download:
            line += ' on the controller'
    if 'copy_seconds' in download:
        line += '; copied to the node %s' % _timed(size, download['copy_seconds'])
    return line
