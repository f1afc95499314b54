"""An honest upstream for the artifact catalog: every pinned artifact serves the content it was pinned for.

The simulated web serves ``kubewin-sim:<url>`` by default, whose hash no real pin
matches; for a whole playbook run the catalog's pinned URLs must serve what
upstream serves, i.e. content with the pinned hash. tests/simulation/ansible-playbook
does this before every run (kubewin_sim/run_playbook.py); a URL a test declared
with ``web.configure`` keeps what the test declared.
"""

import os

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
    return served


def serve_catalog(state_dir, root, base_urls=None):
    """Make every pinned catalog URL serve its pinned hash, unless a test declared otherwise for it."""
    served = catalog_served(root, base_urls)
    web.serve_unless_configured(state_dir, served)
    return served
