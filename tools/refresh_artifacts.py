# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pin the checksums of the artifact catalog (roles/artifacts/vars/main.yml) from upstream.

A maintainer tool: run it where the internet is reachable, never in tests. For each component
version it is asked about, it reads the hash file upstream publishes next to the artifact
(.sha256, .sha256sum or .sha512, as the component's upstream_checksum names it) and writes the
hash into the catalog as the version's pin. Versions named on the command line that the catalog
does not list yet are added. Components whose upstream publishes no hash file are skipped unless
--trust-download is given: then the artifact is downloaded and what it served is pinned, with a
warning, because nothing upstream vouches for it.

A version that is already pinned is left alone; --verify compares its pin with upstream instead
and reports a difference without changing it (an upstream asset that changed under the same name
needs a person to find out why).

The catalog is edited as text, line by line, so its layout and comments stay as they are.

Usage: python tools/refresh_artifacts.py [--dry-run] [--verify] [--trust-download]
                                         [--vars FILE] [--base-url NAME=URL ...] [TARGET ...]

TARGET is a component (every version it lists) or component=version[,version...]; without
targets, every component of the catalog. Exits 1 when a download, a hash file or a check failed.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
VARS_PATH = ROOT / "roles" / "artifacts" / "vars" / "main.yml"
DEFAULTS_PATH = ROOT / "roles" / "artifacts" / "defaults" / "main.yml"
PLUGIN_UTILS = ROOT / "plugins" / "plugin_utils"


def _load(name):
    # Loaded from their files so the tool needs only ansible-core and PyYAML, not an installed collection.
    spec = importlib.util.spec_from_file_location("kubewin_refresh_" + name.lstrip("_"), PLUGIN_UTILS / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


artifacts = _load("_artifacts")
artifact_catalog = _load("_artifact_catalog")

TRUST_WARNING = ("WARNING: %s %s: upstream publishes no hash file; pinning %s of what %s served just now. "
                 "Nothing upstream vouches for it: check it against a second source before committing.")


class RefreshError(Exception):
    """The catalog file or a target cannot be handled; the message says why."""


# The catalog file as text


_VERSION_LINE = re.compile(r'^(?P<indent>\s+)(?P<quote>["\']?)(?P<version>[^"\'\s:#]+)(?P=quote):'
                           r'[ \t]*(?P<value>[^#\s]*)[ \t]*(?P<comment>#.*)?$')
_KEY_LINE = re.compile(r'^(?P<key>[^\s:#"\']+):[ \t]*(?P<rest>[^#]*?)[ \t]*(#.*)?$')


@dataclass
class _Block:
    """Where one component's versions are in the file."""

    versions_line: int | None = None
    entry_indent: str | None = None
    entries: dict = field(default_factory=dict)  # version -> line index


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def layout(text):
    """Component -> _Block for the artifacts_catalog mapping of the vars file text."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if re.match(r"^artifacts_catalog:[ \t]*(#.*)?$", line))
    except StopIteration:
        raise RefreshError("no top-level artifacts_catalog: line in the vars file") from None
    blocks = {}
    component_indent = block = versions_indent = property_indent = None
    for index in range(start + 1, len(lines)):
        line = lines[index]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = _indent(line)
        if indent == 0:
            break
        component_indent = component_indent or indent
        if indent == component_indent:
            match = _KEY_LINE.match(stripped)
            if not match or match.group("rest"):
                raise RefreshError("line %d: expected a component name, got %r" % (index + 1, stripped))
            block = blocks[match.group("key")] = _Block()
            versions_indent = property_indent = None
            continue
        if block is None:
            continue
        property_indent = property_indent or indent
        if versions_indent is not None and indent > versions_indent:
            match = _VERSION_LINE.match(line)
            if not match:
                raise RefreshError("line %d: expected '\"<version>\": <checksum or null>', got %r" % (index + 1, stripped))
            block.entries[match.group("version")] = index
            block.entry_indent = match.group("indent")
            continue
        versions_indent = None
        match = _KEY_LINE.match(stripped)
        if match and match.group("key") == "versions" and indent == property_indent:
            if match.group("rest"):
                raise RefreshError("line %d: write versions as one '\"<version>\": <value>' line each, not %r"
                                   % (index + 1, stripped))
            versions_indent = indent
            block.versions_line = index
    return blocks


def _entry_line(indent, version, checksum, comment=None):
    line = '%s"%s": "%s"' % (indent, version, checksum)
    return line + "  " + comment if comment else line


def update_text(text, pins):
    """Write ``{(component, version): checksum}`` into the vars file text; every other line stays as it was."""
    lines = text.splitlines()
    blocks = layout(text)
    inserts = {}
    for (component, version), checksum in sorted(pins.items()):
        block = blocks.get(component)
        if block is None or block.versions_line is None:
            raise RefreshError("the vars file has no versions: block for %s" % component)
        if version in block.entries:
            match = _VERSION_LINE.match(lines[block.entries[version]])
            lines[block.entries[version]] = _entry_line(match.group("indent"), version, checksum, match.group("comment"))
            continue
        # A new version goes after the last listed version that sorts before it.
        key = artifact_catalog._version_key(version)  # pylint: disable=protected-access
        earlier = [index for listed, index in block.entries.items() if artifact_catalog._version_key(listed) < key]  # pylint: disable=protected-access
        if earlier:
            after = max(earlier)
        elif block.entries:
            after = min(block.entries.values()) - 1
        else:
            after = block.versions_line
        indent = block.entry_indent or " " * (_indent(lines[block.versions_line]) + 2)
        inserts.setdefault(after, []).append(_entry_line(indent, version, checksum))
    for after in sorted(inserts, reverse=True):
        new = sorted(inserts[after], key=lambda line: artifact_catalog._version_key(line.split('"')[1]))  # pylint: disable=protected-access
        lines[after + 1:after + 1] = new
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


# What to fetch


@dataclass
class Target:
    component: str
    version: str
    listed: bool
    pinned: str | None = None


def parse_targets(arguments, catalog):
    """Command-line targets -> [Target]; all versions of all components without arguments."""
    wanted = []
    for argument in arguments or sorted(catalog):
        component, unused_sep, versions = argument.partition("=")
        if component not in catalog:
            raise RefreshError("no component %r in the catalog; it has: %s" % (component, ", ".join(sorted(catalog))))
        listed = catalog[component].get("versions") or {}
        names = [v.strip().lstrip("v") for v in versions.split(",") if v.strip()] if versions else \
            artifact_catalog.known_versions(catalog, component)
        for version in names:
            wanted.append(Target(component, version, version in listed, listed.get(version)))
    return wanted


def sources(catalog, component, version, base_urls):
    """(artifact URL, (algorithm, hash file URL) or None when upstream publishes no hash file)."""
    entry = catalog[component]
    values = dict(base_urls, version=version)
    url = artifact_catalog._fill(entry["url"], values, component)  # pylint: disable=protected-access
    if not entry.get("upstream_checksum"):
        return url, None
    spec = artifact_catalog._fill(entry["upstream_checksum"], dict(values, url=url), component)  # pylint: disable=protected-access
    algorithm, unused_pin, hash_url = artifacts.parse_checksum(spec)
    if not hash_url:
        raise RefreshError("%s: upstream_checksum %r must name a hash file URL" % (component, entry["upstream_checksum"]))
    return url, (algorithm, hash_url)


@dataclass
class Report:
    pins: dict = field(default_factory=dict)  # (component, version) -> checksum to write
    lines: list = field(default_factory=list)  # what happened, one line per target
    warnings: list = field(default_factory=list)
    failed: bool = False


def refresh(catalog, targets, fetcher, base_urls, trust_download=False, verify=False):
    """Decide every target's pin with ``fetcher`` (the only I/O); returns a Report."""
    report = Report()
    for target in targets:
        name = "%s %s" % (target.component, target.version)
        if target.pinned and not verify:
            report.lines.append("%s: pinned already (%s)" % (name, target.pinned))
            continue
        url, upstream = sources(catalog, target.component, target.version, base_urls)
        # A pin is checked with its own algorithm; the hash file serves when it uses the same one.
        algorithm = target.pinned.split(":", 1)[0] if target.pinned else (upstream or ("sha256",))[0]
        try:
            if upstream and upstream[0] == algorithm:
                digest = artifacts.parse_hash_file(fetcher.text(upstream[1]), algorithm, artifacts.file_name(url))
                source = upstream[1]
            elif target.pinned or trust_download:
                digest = fetcher.digest(url, algorithm)
                source = url
                if not target.pinned:
                    report.warnings.append(TRUST_WARNING % (target.component, target.version, algorithm, url))
            else:
                report.lines.append("%s: skipped, upstream publishes no hash file (--trust-download pins what %s serves)"
                                    % (name, url))
                continue
        except (artifacts.DownloadError, artifacts.ChecksumError) as exc:
            report.failed = True
            report.lines.append("%s: FAILED: %s" % (name, exc))
            if getattr(exc, "unresolved", False):
                # No network or no DNS: every other URL would fail alike, each after its retries.
                left = len(targets) - targets.index(target) - 1
                report.lines.append("stopped: a server name does not resolve (no network?); %d more target%s not "
                                    "tried" % (left, "" if left == 1 else "s"))
                break
            continue
        checksum = "%s:%s" % (algorithm, digest)
        if target.pinned:
            if target.pinned.lower() == checksum:
                report.lines.append("%s: pin matches %s" % (name, source))
            else:
                report.failed = True
                report.lines.append("%s: MISMATCH: pinned %s, but %s gives %s; not changed, find out why first"
                                    % (name, target.pinned, source, checksum))
            continue
        report.pins[(target.component, target.version)] = checksum
        report.lines.append("%s: %s %s (from %s)" % (name, "pinned" if target.listed else "added as", checksum, source))
    return report


# I/O


class HttpFetcher:
    """Downloads with the retries and backoff of the controller download (plugin_utils/_artifacts.py)."""

    def __init__(self, retries=4, timeout=300):
        self.retries = retries
        self.timeout = timeout

    def _get(self, url, scratch):
        path = os.path.join(scratch, "download")
        # A name that does not resolve is not retried: refresh() stops at it.
        artifacts.download(url, path, self.retries, self.timeout, retry_unresolved=False)
        return path

    def text(self, url):
        with tempfile.TemporaryDirectory() as scratch:
            with open(self._get(url, scratch), encoding="utf-8", errors="replace") as handle:
                return handle.read()

    def digest(self, url, algorithm):
        with tempfile.TemporaryDirectory() as scratch:
            return artifacts.file_digest(self._get(url, scratch), algorithm)


def base_urls_from(defaults_text, overrides):
    base_urls = dict(yaml.safe_load(defaults_text).get("artifacts_base_urls") or {})
    for override in overrides or []:
        name, sep, url = override.partition("=")
        if not sep or not url:
            raise RefreshError("--base-url takes NAME=URL, not %r" % override)
        base_urls[name] = url.rstrip("/")
    return base_urls


def main(argv=None, fetcher=None, out=sys.stdout, err=sys.stderr):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("targets", nargs="*", metavar="TARGET", help="component or component=version[,version...]")
    parser.add_argument("--vars", type=Path, default=VARS_PATH, help="the catalog file (default: %(default)s)")
    parser.add_argument("--defaults", type=Path, default=DEFAULTS_PATH, help="where artifacts_base_urls is read from")
    parser.add_argument("--base-url", action="append", metavar="NAME=URL", help="replace one base URL")
    parser.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")
    parser.add_argument("--verify", action="store_true", help="check existing pins against upstream too")
    parser.add_argument("--trust-download", action="store_true",
                        help="pin the hash of the download itself where upstream publishes no hash file")
    options = parser.parse_args(argv)
    try:
        text = options.vars.read_text(encoding="utf-8")
        catalog = (yaml.safe_load(text) or {}).get("artifacts_catalog")
        if not isinstance(catalog, dict):
            raise RefreshError("%s holds no artifacts_catalog mapping" % options.vars)
        base_urls = base_urls_from(options.defaults.read_text(encoding="utf-8"), options.base_url)
        targets = parse_targets(options.targets, catalog)
        report = refresh(catalog, targets, fetcher or HttpFetcher(), base_urls, options.trust_download, options.verify)
        updated = update_text(text, report.pins)
    except (RefreshError, artifact_catalog.CatalogError, artifacts.ChecksumError, OSError, yaml.YAMLError) as exc:
        err.write("refresh_artifacts: %s\n" % exc)
        return 1
    for warning in report.warnings:
        err.write(warning + "\n")
    for line in report.lines:
        out.write(line + "\n")
    if options.dry_run:
        out.writelines(difflib.unified_diff(text.splitlines(True), updated.splitlines(True),
                                            str(options.vars), str(options.vars) + " (refreshed)"))
    elif updated != text:
        options.vars.write_text(updated, encoding="utf-8")
        out.write("wrote %d pin%s to %s\n" % (len(report.pins), "" if len(report.pins) == 1 else "s", options.vars))
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
