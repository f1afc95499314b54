# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Artifact catalog filters; the documentation of each is in the .yml file of the same name."""

from __future__ import annotations

import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils import _artifact_catalog


def artifact_sources(installs, catalog, base_urls, checksum_overrides=None):
    return _artifact_catalog.artifact_sources(installs, catalog, base_urls, checksum_overrides)


def artifact_versions(catalog, component):
    return _artifact_catalog.known_versions(catalog, component)


class FilterModule:
    """kubewin.node artifact catalog filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {
            "artifact_sources": artifact_sources,
            "artifact_versions": artifact_versions,
        }
