# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The monitoring role's settings (windows_exporter, containerd's metrics endpoint), checked before any host.

Internal to kubewin.node, not a public API.

windows_exporter (prometheus-community/windows_exporter) exits when ``--collectors.enabled`` names a collector its
release does not have ("unknown collector %s", pkg/collector/collection.go), so a name is checked against the
release's collectors here: its ``internal/collector`` folders, which pkg/collector/map.go registers. 0.31.0 removed
``cs`` (#2115, its metrics are in ``os`` and ``memory``) and ``logon`` (#2114, use ``terminal_services``); the role
writes the 0.31 flags (cmd/windows_exporter/main.go at v0.31.8), so only 0.31 releases are taken.

Neither endpoint authenticates or encrypts its clients (windows_exporter without ``--web.config.file``, containerd's
``[metrics]`` listener), so an endpoint that listens beyond the loopback address needs the networks that may
scrape it (``monitoring_allowed_sources``), and a rule open to every address (a /0) is refused.
"""

from __future__ import annotations

import ipaddress
import typing as t

from ansible_collections.kubewin.node.plugins.plugin_utils import _ip_plan

ROLE = 'monitoring'
COMPONENT = 'windows_exporter'
ENABLED_VARIABLE = 'monitoring_windows_exporter'
VERSION_VARIABLE = 'monitoring_windows_exporter_version'
COLLECTORS_VARIABLE = 'monitoring_windows_exporter_collectors'
PORT_VARIABLE = 'monitoring_windows_exporter_port'
SOURCES_VARIABLE = 'monitoring_allowed_sources'
METRICS_VARIABLE = 'container_runtime_containerd_metrics_address'
SERVICE_NAME = 'windows_exporter'
EXPORTER_RULE = 'kubewin-windows-exporter'
CONTAINERD_RULE = 'kubewin-containerd-metrics'

# The collectors of each release line the role supports (internal/collector at v0.31.8).
COLLECTORS = {
    '0.31': frozenset((
        'ad', 'adcs', 'adfs', 'cache', 'container', 'cpu', 'cpu_info', 'dfsr', 'dhcp', 'diskdrive', 'dns', 'exchange',
        'filetime', 'fsrmquota', 'gpu', 'hyperv', 'iis', 'license', 'logical_disk', 'memory', 'mscluster', 'msmq',
        'mssql', 'net', 'netframework', 'nps', 'os', 'pagefile', 'performancecounter', 'physical_disk', 'printer',
        'process', 'remote_fx', 'scheduled_task', 'service', 'smb', 'smbclient', 'smtp', 'system', 'tcp',
        'terminal_services', 'textfile', 'thermalzone', 'time', 'udp', 'update', 'vmware')),
}
# What the exporter's own placeholder stands for (pkg/collector/types.go DefaultCollectors), allowed in the list.
DEFAULTS_PLACEHOLDER = '[defaults]'
# Collectors of earlier releases that 0.31 no longer has, with where their metrics went.
REMOVED = {'cs': 'removed in 0.31 (#2115): its metrics are in os and memory',
           'logon': 'removed in 0.31 (#2114): use terminal_services'}


def release_line(version: t.Any) -> str | None:
    parts = str(version or '').lstrip('v').split('.')
    return '.'.join(parts[:2]) if len(parts) >= 2 else None


def _port(name: str, value: t.Any) -> list[str]:
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdigit())) \
            or not 0 < int(value) < 65536:
        return ['%s %r is not a TCP port (1-65535)' % (name, value)]
    return []


def listen_address(value: t.Any) -> tuple[str, int, bool] | str:
    """(host, port, loopback) of a host:port listen address ('0.0.0.0:10257', '[::]:10257', ':10257',
    'localhost:1338'), or the problem with it."""
    text = str(value)
    host, colon, port = text.rpartition(':')
    if not colon or not port.isdigit() or not 0 < int(port) < 65536:
        return 'is not host:port with a TCP port (1-65535), such as 0.0.0.0:10257 or 127.0.0.1:1338'
    bare = host[1:-1] if host.startswith('[') and host.endswith(']') else host
    if host.startswith('[') != host.endswith(']') or (bare != host and ':' not in bare):
        return 'has unbalanced or misplaced brackets (an IPv6 address is written [fd00::1]:10257)'
    if bare in ('', 'localhost'):
        return bare, int(port), bare == 'localhost'
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return 'names %r, which is no IP address (containerd listens on an address of the node)' % bare
    if address.version == 6 and bare == host:
        return 'writes an IPv6 address without brackets (write [%s]:%s)' % (bare, port)
    return bare, int(port), address.is_loopback


def _sources(value: t.Any, needed_by: list[str]) -> list[str]:
    problems = []
    try:
        networks = _ip_plan.parse_networks(SOURCES_VARIABLE, value)
    except _ip_plan.IPPlanError as error:
        return [str(error)]
    if needed_by and not networks:
        problems.append('%s is empty, but %s listen%s beyond the loopback address: name the networks of the Prometheus '
                        'servers that scrape the node (neither endpoint authenticates its clients)'
                        % (SOURCES_VARIABLE, ' and '.join(needed_by), 's' if len(needed_by) == 1 else ''))
    for network in networks:
        if network.endswith('/0'):
            problems.append('%s lists %s, every address: name the networks of the Prometheus servers (neither '
                            'endpoint authenticates its clients)' % (SOURCES_VARIABLE, network))
    return problems


def problems(value: t.Callable[[str, str], t.Any], runtime: str) -> list[str]:
    """What is wrong with one node's monitoring settings; ``value(role, name)`` is the value its roles see."""
    found: list[str] = []
    needed_by: list[str] = []
    enabled = value(ROLE, ENABLED_VARIABLE)
    if not isinstance(enabled, bool):
        found.append('%s must be true or false, got %r' % (ENABLED_VARIABLE, enabled))
    exporter_port = None
    if enabled is True:
        needed_by.append('windows_exporter')
        version = value(ROLE, VERSION_VARIABLE)
        known = COLLECTORS.get(release_line(version))
        if known is None:
            found.append('%s %s: the monitoring role writes the flags of windows_exporter %s.x and knows their '
                         'collectors; pick one of those releases' % (VERSION_VARIABLE, version,
                                                                     ', '.join(sorted(COLLECTORS))))
        collectors = value(ROLE, COLLECTORS_VARIABLE)
        if not isinstance(collectors, list) or not collectors or not all(isinstance(name, str) for name in collectors):
            found.append('%s must be a list of collector names, got %r' % (COLLECTORS_VARIABLE, collectors))
        elif known is not None:
            for name in collectors:
                if name in known or name == DEFAULTS_PLACEHOLDER:
                    continue
                why = REMOVED.get(name, 'windows_exporter %s exits on a collector it does not have' % version)
                found.append('%s: %r is no collector of windows_exporter %s (%s)'
                             % (COLLECTORS_VARIABLE, name, version, why))
        port = value(ROLE, PORT_VARIABLE)
        port_problems = _port(PORT_VARIABLE, port)
        found += port_problems
        exporter_port = None if port_problems else int(port)
    address = value('container_runtime', METRICS_VARIABLE)
    if address:
        if runtime != 'containerd':
            found.append('%s is set, but the node runs %s: only containerd serves metrics this way'
                         % (METRICS_VARIABLE, runtime))
        else:
            parsed = listen_address(address)
            if isinstance(parsed, str):
                found.append('%s %r %s' % (METRICS_VARIABLE, address, parsed))
            else:
                if not parsed[2]:
                    needed_by.append("containerd's metrics")
                if parsed[1] == exporter_port:
                    found.append('%s %s and %s %s use the same port'
                                 % (METRICS_VARIABLE, address, PORT_VARIABLE, exporter_port))
    found += _sources(value(ROLE, SOURCES_VARIABLE), needed_by)
    return found
