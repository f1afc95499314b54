# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Make this checkout importable as ansible_collections.kubewin.node in plain pytest runs.

Collection code imports itself through ``ansible_collections.<namespace>.<name>``, which only
resolves when the checkout sits at ``<root>/ansible_collections/kubewin/node`` and Ansible's
collection finder knows ``<root>``. When the checkout is not already in such a tree (ansible-test
puts it in one), a temporary tree with a symlink is made for the session. Directories named in
ANSIBLE_COLLECTIONS_PATH are searched as well, so suites can also import other collections.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

COLLECTION_NAMESPACE = "kubewin"
COLLECTION_NAME = "node"
REPO_ROOT = Path(__file__).resolve().parents[2]


def _existing_collections_root() -> Path | None:
    parts = REPO_ROOT.parts
    if parts[-3:] == ("ansible_collections", COLLECTION_NAMESPACE, COLLECTION_NAME):
        return REPO_ROOT.parents[2]
    return None


def _temporary_collections_root() -> Path:
    root = Path(tempfile.mkdtemp(prefix="kubewin-collections-"))
    # rmtree unlinks the symlink; it never follows it into the checkout.
    atexit.register(shutil.rmtree, root, True)
    link = root / "ansible_collections" / COLLECTION_NAMESPACE / COLLECTION_NAME
    link.parent.mkdir(parents=True)
    link.symlink_to(REPO_ROOT, target_is_directory=True)
    return root


def _install_collection_finder() -> None:
    from ansible.utils.collection_loader import AnsibleCollectionConfig
    from ansible.utils.collection_loader._collection_finder import _AnsibleCollectionFinder

    if AnsibleCollectionConfig.collection_finder is not None:
        return  # ansible-test (or an earlier conftest) already installed one; a second is refused
    root = _existing_collections_root() or _temporary_collections_root()
    configured = [path for path in os.environ.get("ANSIBLE_COLLECTIONS_PATH", "").split(os.pathsep) if path]
    _AnsibleCollectionFinder(paths=[str(root), *configured])._install()


_install_collection_finder()


PLAYBOOK_TESTS = REPO_ROOT / "tests" / "unit" / "playbooks"


def pytest_configure(config) -> None:
    # Registered here rather than in a pytest.ini, which would move pytest's rootdir (and every
    # test id) to tests/unit.
    config.addinivalue_line(
        "markers",
        "playbook: runs ansible-playbook in a new process (against simulated nodes and the simulated"
        " cluster, or plan.yml): seconds to minutes a test, where the others take milliseconds;"
        " `-m 'not playbook'` runs the rest. Set by tests/unit/conftest.py, not by hand.",
    )
    config.addinivalue_line(
        "markers",
        "long: a whole lifecycle of several site.yml/reset.yml runs (minutes each) whose representative part"
        " runs elsewhere in make test (the comment above each says where); `make unit` leaves them out,"
        " `make unit-long` runs them. Set by hand.",
    )


def pytest_collection_modifyitems(items) -> None:
    # A test runs ansible-playbook when it uses the `sim` fixture (kubewin_sim.harness) or lives
    # in tests/unit/playbooks; marking by that rule rather than by hand keeps new tests marked.
    for item in items:
        if "sim" in item.fixturenames or PLAYBOOK_TESTS in Path(item.path).parents:
            item.add_marker(pytest.mark.playbook)
    # The playbook tests first (a stable sort keeps each file's order): they take seconds to minutes where the others
    # take milliseconds, and pytest-xdist hands out tests in this order, so a minutes-long test started last would
    # keep one worker busy while the others have nothing left (the tail of `make unit` on two cores).
    items.sort(key=lambda item: item.get_closest_marker("playbook") is None)
