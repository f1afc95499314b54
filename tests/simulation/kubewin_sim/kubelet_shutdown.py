"""What a starting kubelet does on Windows for graceful node shutdown: it registers itself for the service control
manager's pre-shutdown notification (KEP-4802).

Source: kubernetes/kubernetes ``pkg/kubelet/nodeshutdown/nodeshutdown_manager_windows.go`` (the same in every release
that has it), ``nodeshutdown_manager.go`` (migrateConfig) and ``pkg/kubelet/kubelet.go`` (initializeRuntimeDependentModules:
a failing shutdown manager is logged, "Failed to start node shutdown manager", and the kubelet runs on without it):

- ``NewManager``: without the WindowsGracefulNodeShutdown gate, or without a grace period (shutdownGracePeriod, or
  shutdownGracePeriodByPodPriority), the kubelet has no shutdown manager and changes nothing.
- ``start``: only where the kubelet runs as a Windows service (``--windows-service``; pkg/windows/service
  IsServiceInitialized). It opens the service named ``kubelet`` (a constant, whatever the service the kubelet runs
  in is called), queries its SERVICE_PRESHUTDOWN_INFO and its configuration (lpDependencies), reads the Control key's
  PreshutdownOrder (a missing value fails the start before anything is written), writes the order back with the
  kubelet put before the first of its dependencies (``add_to_existing_order``), and, where the service's pre-shutdown
  time-out is shorter than the grace period it requested (the sum of the priority groups' periods), raises it to
  that period with ChangeServiceConfig2 and checks it took.

The gate (kubernetes/website ``feature-gates/WindowsGracefulNodeShutdown.md``; pkg/features/kube_features.go): alpha
and off by default in 1.32 and 1.33, beta and on from 1.34; before 1.32 the kubelet has no shutdown manager on Windows
(there the gate's name is unknown and a kubelet given it exits at start; the collection refuses that before any host,
and this model does not check gate names).
``--feature-gates`` wins over the configuration's ``featureGates``; the drop-in files of ``--config-dir`` (``*.conf``,
in lexical order, KEP-3983) are merged over the ``--config`` file.
"""

import ntpath
import re

import yaml

SERVICE = 'kubelet'
GATE = 'WindowsGracefulNodeShutdown'
GATE_ADDED = (1, 32)
GATE_ON_BY_DEFAULT = (1, 34)
# Go's time.ParseDuration units, in seconds (metav1.Duration is a Go duration string).
_UNITS = {'h': 3600.0, 'm': 60.0, 's': 1.0, 'ms': 1e-3, 'us': 1e-6, '\u00b5s': 1e-6, 'ns': 1e-9}


class ShutdownManagerError(Exception):
    """Why the kubelet's shutdown manager did not start (the kubelet logs it and runs on)."""


def duration_seconds(text):
    """A Go duration ("60s", "1m30s") in whole seconds; a bare 0 is 0."""
    text = str(text or '0').strip()
    if text in ('0', ''):
        return 0
    parts = re.findall(r'(\d+(?:\.\d+)?)(h|ms|us|\u00b5s|ns|m|s)', text)
    if not parts or ''.join(number + unit for number, unit in parts) != text:
        raise ShutdownManagerError('time: invalid duration "%s"' % text)
    return int(sum(float(number) * _UNITS[unit] for number, unit in parts))


def _document(node, path):
    entry = node.file(path) if path else None
    if entry is None or entry.get('content') is None:
        return {}
    loaded = yaml.safe_load(entry['content'])
    return loaded if isinstance(loaded, dict) else {}


def configuration(node, option):
    """The KubeletConfiguration the kubelet runs with: its --config file, the --config-dir drop-ins merged over it."""
    merged = _document(node, option('--config'))
    folder = option('--config-dir')
    if folder:
        prefix = folder.rstrip('\\').lower() + '\\'
        names = sorted(path for path in node.file_paths() if path.lower().startswith(prefix)
                       and '\\' not in path[len(prefix):] and path.lower().endswith('.conf'))
        for path in names:
            document = _document(node, path)
            gates = dict(merged.get('featureGates') or {}, **(document.get('featureGates') or {}))
            merged.update(document)
            if gates:
                merged['featureGates'] = gates
    return merged


def gate_enabled(version, config, feature_gates_flag):
    """Whether WindowsGracefulNodeShutdown is on for this release, configuration and --feature-gates."""
    if version is None or version < GATE_ADDED:
        return False
    gates = {name: bool(value) for name, value in (config.get('featureGates') or {}).items()}
    for item in (feature_gates_flag or '').split(','):
        if '=' in item:
            name, value = item.split('=', 1)
            gates[name.strip()] = value.strip().lower() == 'true'
    return gates.get(GATE, version >= GATE_ON_BY_DEFAULT)


def period_requested(config):
    """The seconds the kubelet asks the pre-shutdown time-out to cover: the sum of its priority groups' periods, which
    shutdownGracePeriod and shutdownGracePeriodCriticalPods make two of (migrateConfig): their sum is the grace
    period. 0: no shutdown manager."""
    by_priority = config.get('shutdownGracePeriodByPodPriority') or []
    if by_priority:
        return sum(int(group.get('shutdownGracePeriodSeconds') or 0) for group in by_priority)
    grace = duration_seconds(config.get('shutdownGracePeriod'))
    critical = duration_seconds(config.get('shutdownGracePeriodCriticalPods'))
    if grace == 0 or critical > grace:
        return 0
    return grace


def add_to_existing_order(dependencies, existing):
    """The order the kubelet writes: every "kubelet" (any case) taken out, its dependencies that are missing appended,
    then "kubelet" put before the first entry that is one of its dependencies (names compared as written). Without
    dependencies the order is left as it is."""
    if not dependencies:
        return list(existing)
    order = [entry for entry in existing if entry.lower() != SERVICE]
    order += [name for name in dependencies if name not in set(order)]
    first = next((index for index, entry in enumerate(order) if entry in dependencies), None)
    if first is not None:
        order.insert(first, SERVICE)
    return order


def start(node, option, windows_service, version):
    """The kubelet's shutdown manager at its start; ``option`` reads the kubelet's flags, ``version`` is its release as
    (major, minor) or None. A failure goes to the node's log, as the kubelet logs it."""
    from kubewin_sim.windows import registry, services  # pylint: disable=import-outside-toplevel  # they import programs
    try:
        config = configuration(node, option)
        if not gate_enabled(version, config, option('--feature-gates')):
            return
        requested_ms = period_requested(config) * 1000
        if not requested_ms:
            return
        if not windows_service:
            raise ShutdownManagerError('%s is NOT running as a Windows service' % SERVICE)
        timeout_ms = services.query_preshutdown_timeout(node, SERVICE)
        dependencies = services.service_dependencies(node, SERVICE)
        existing = registry.preshutdown_order(node)
        if existing is None:
            raise ShutdownManagerError('Could not access registry value %s: The system cannot find the file specified.'
                                       % registry.PRESHUTDOWN_ORDER)
        registry.set_preshutdown_order(node, add_to_existing_order(dependencies, existing))
        if requested_ms > timeout_ms:
            services.change_preshutdown_timeout(node, SERVICE, requested_ms)
            if requested_ms > services.query_preshutdown_timeout(node, SERVICE):
                raise ShutdownManagerError('Shutdown manager was unable to update preshutdown info to %d '
                                           '(ShutdownGracePeriod)' % requested_ms)
    except (ShutdownManagerError, services.ServiceApiError, yaml.YAMLError) as exc:
        node.record('kubelet: Failed to start node shutdown manager: %s' % exc)


def release(version_text):
    """(major, minor) of a version string such as '1.33.13', or None."""
    found = re.match(r'v?(\d+)\.(\d+)', version_text or '')
    return (int(found.group(1)), int(found.group(2))) if found else None


def is_kubelet(program):
    return ntpath.basename(program or '').lower() == 'kubelet.exe'
