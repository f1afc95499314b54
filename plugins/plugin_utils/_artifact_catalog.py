# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The artifact catalog: where each component of a Windows node comes from, per version, and its checksum.

Internal to kubewin.node, not a public API. The catalog itself is data:
``roles/artifacts/vars/main.yml`` (``artifacts_catalog``), refreshed by
``tools/refresh_artifacts.py``. Each component has:

- ``url``: a template with ``{version}`` and the base URL names (``{kubernetes}``,
  ``{github}``, ...) that ``artifacts_base_urls`` maps to hosts, so one setting
  points every download at an internal mirror;
- ``upstream_checksum`` (optional): a template, with ``{url}`` too, of the hash
  file upstream publishes next to the artifact, e.g. ``sha256:{url}.sha256``;
- ``extract`` (optional): archive ``members`` to install and their ``rename``;
- ``versions``: every version the collection knows, each mapped to its pinned
  checksum (``sha256:<hex>``) or to null, meaning "take it from upstream_checksum".

A version that is not listed is refused: nothing is fetched on trust.
"""

from __future__ import annotations

import re
import string

from ansible.errors import AnsibleFilterError

_PINNED = re.compile(r'^(sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128})$')


class CatalogError(AnsibleFilterError):
    """The catalog cannot provide what was asked; the message says what is known instead."""


def _fill(template, values, what):
    try:
        return string.Formatter().vformat(template, (), values)
    except KeyError as exc:
        raise CatalogError('%s: the template %r needs %s, which artifacts_base_urls does not define'
                           % (what, template, exc))


def _version_key(version):
    # Numbers before words, so 1.7.1-flannel1 and 1.10.0 sort without comparing an int to a str.
    return tuple((0, int(part), '') if part.isdigit() else (1, 0, part) for part in re.split(r'[.-]', str(version)))


def known_versions(catalog, component):
    """The versions the catalog lists for ``component``, oldest first."""
    entry = (catalog or {}).get(component)
    if entry is None:
        raise CatalogError('no component %r in the artifact catalog; it has: %s'
                           % (component, ', '.join(sorted(catalog or {}))))
    return sorted((str(version) for version in entry.get('versions') or {}), key=_version_key)


def resolve(catalog, component, version, base_urls, checksum_overrides=None):
    """Return the artifact module arguments (url, checksum, extract) of one component version."""
    known = known_versions(catalog, component)
    entry = catalog[component]
    version = str(version).lstrip('v')
    versions = entry.get('versions') or {}
    override = (checksum_overrides or {}).get(component, {}).get(version)
    if version not in versions and override is None:
        known = ', '.join(known) or 'none'
        raise CatalogError(
            '%s %s is not in the artifact catalog (known: %s); pick a known one, or give its checksum in '
            'artifacts_checksum_overrides (the artifacts guide says how to verify one)' % (component, version, known))
    values = dict(base_urls or {}, version=version)
    url = _fill(entry['url'], values, component)
    checksum = override or versions.get(version)
    if checksum is None:
        if not entry.get('upstream_checksum'):
            raise CatalogError('%s %s has no pinned checksum and upstream publishes no hash file; give its checksum '
                               'in artifacts_checksum_overrides' % (component, version))
        checksum = _fill(entry['upstream_checksum'], dict(values, url=url), component)
    elif not _PINNED.match(checksum):
        raise CatalogError('%s %s: checksum %r is not sha256:<64 hex> or sha512:<128 hex>' % (component, version, checksum))
    resolved = {'url': url, 'checksum': checksum}
    if entry.get('extract'):
        resolved['extract'] = {'members': list(entry['extract']['members']),
                               'rename': dict(entry['extract'].get('rename') or {})}
    return resolved


def artifact_sources(installs, catalog, base_urls, checksum_overrides=None):
    """Resolve a list of {component, version, dest} into artifact module arguments, in order."""
    resolved = []
    for install in installs or []:
        missing = [key for key in ('component', 'version', 'dest') if not install.get(key)]
        if missing:
            raise CatalogError('artifact install %r lacks %s' % (install, ', '.join(missing)))
        source = resolve(catalog, install['component'], install['version'], base_urls, checksum_overrides)
        resolved.append(dict(source, component=install['component'], version=str(install['version']).lstrip('v'),
                             dest=install['dest']))
    return resolved
