"""An honest upstream for the artifact catalog: every pinned artifact serves the content it was pinned for.

The simulated web serves ``kubewin-sim:<url>`` by default, whose hash no real pin
matches; for a whole playbook run the catalog's pinned URLs must serve what
upstream serves, i.e. content with the pinned hash. tests/simulation/ansible-playbook
does this before every run (kubewin_sim/run_playbook.py); a URL a test declared
with ``web.configure`` keeps what the test declared.

A hash file the web does not derive from its name (``<url>.sha256`` and the like, web.py) is one file for a whole
release: windows_exporter's sha256sums.txt lists every asset of the release, "<sha256>  <file name>" per line
(prometheus-community/windows_exporter .github/workflows/release.yml, promu checksum). It is served with the hash
of what the web serves at the artifact's URL, among lines for the release's other assets (the MSI, the arm64
builds), so the reader must pick the line of its own file.
"""

import base64
import hashlib
import os
import posixpath

import yaml

from kubewin_sim import web


def _load(root, relative):
    with open(os.path.join(root, relative), encoding='utf-8') as handle:
        # libyaml when present: the wrapper pays this before every run.
        return yaml.load(handle, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))


def catalog_served(root, base_urls=None):
    """{url: {algorithm: hex, 'size': n}} of every pinned catalog URL (with the default base URLs)."""
    catalog = _load(root, 'roles/artifacts/vars/main.yml')['artifacts_catalog']
    bases = base_urls or _load(root, 'roles/artifacts/defaults/main.yml')['artifacts_base_urls']
    served = {}
    for entry in catalog.values():
        for version, checksum in (entry.get('versions') or {}).items():
            if not checksum:
                continue
            algorithm, value = checksum.split(':', 1)
            url = entry['url'].format(version=version, **bases)
            served[url] = {algorithm: value, 'size': 1024}
    served.update(_release_hash_files(catalog, bases))
    return served


# The assets a release hash file lists besides the artifact, by how their names differ from its name.
_RELEASE_SIBLINGS = (('-amd64.exe', '-amd64.msi'), ('-amd64.exe', '-arm64.exe'), ('-amd64.exe', '-arm64.msi'))


def _release_hash_files(catalog, bases):
    """{hash file url: {'base64': text}} of the unpinned versions whose upstream_checksum is a release's list."""
    served = {}
    for entry in catalog.values():
        template = entry.get('upstream_checksum') or ''
        if not template or '{url}' in template:
            continue  # none, or one the web derives from the artifact's URL itself
        for version, checksum in (entry.get('versions') or {}).items():
            if checksum:
                continue
            url = entry['url'].format(version=version, **bases)
            hash_url = template.split(':', 1)[1].format(version=version, **bases)
            name = posixpath.basename(url)
            lines = ['%s  %s' % (hashlib.sha256(web.body(url)).hexdigest(), name)]
            for ending, sibling in _RELEASE_SIBLINGS:
                if name.endswith(ending):
                    other = url[:-len(ending)] + sibling
                    lines.append('%s  %s' % (hashlib.sha256(web.body(other)).hexdigest(), posixpath.basename(other)))
            text = '\n'.join(sorted(lines, key=lambda line: line.split()[1])) + '\n'
            served[hash_url] = {'base64': base64.b64encode(text.encode('ascii')).decode('ascii')}
    return served


def serve_catalog(state_dir, root, base_urls=None):
    """Make every pinned catalog URL serve its pinned hash, unless a test declared otherwise for it."""
    served = catalog_served(root, base_urls)
    web.serve_unless_configured(state_dir, served)
    return served
