# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's roles read as data on the controller: their documented options and their defaults.

Internal to kubewin.node, not a public API. The argument specs (roles/<role>/meta/argument_specs.yml)
are the one list of a role's public variables; the preflight and the convergence record both read
them from here.
"""

from __future__ import annotations

import functools
import os

COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load(*parts):
    import yaml  # pylint: disable=import-outside-toplevel  # only the controller needs it
    # Every host's decision may read the specs again (each task runs in a new worker): libyaml's loader
    # is ten times faster.
    loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
    path = os.path.join(COLLECTION_ROOT, 'roles', *parts)
    if not os.path.exists(path):
        return {}
    with open(path, encoding='utf-8') as handle:
        return yaml.load(handle, Loader=loader) or {}  # nosec: a safe loader


@functools.lru_cache(maxsize=None)
def role_options(role):
    """The option names of every entry point of ``role``'s argument specs."""
    names = set()
    for entry_point in (_load(role, 'meta', 'argument_specs.yml').get('argument_specs') or {}).values():
        names.update((entry_point or {}).get('options') or {})
    return frozenset(names)


@functools.lru_cache(maxsize=None)
def role_defaults(role):
    """``role``'s defaults/main.yml, as written (templates are not rendered)."""
    return dict(_load(role, 'defaults', 'main.yml'))


@functools.lru_cache(maxsize=None)
def role_vars(role):
    """``role``'s vars/main.yml, as written (templates are not rendered)."""
    return dict(_load(role, 'vars', 'main.yml'))
