"""What the programs the collection runs as services do when the service control manager starts them.

The service control manager (scm.py) checks what Windows checks (the
program file, the dependencies); this module adds what the program itself does
in its first second, as far as it decides whether the service reaches Running:

- a program that does not speak the service protocol (cri-dockerd has no
  Windows service code; containerd and dockerd only with ``--run-service``)
  never reports Running, and StartService fails with error 1053 after 30 s;
- containerd creates its root and state directories, opens ``--log-file``
  (whose folder must exist), and refuses a ``--config`` file that is missing,
  starts with a byte order mark, is not TOML, or has a config version its
  release does not read (1.x reads version 2 at most, 2.x versions 2 and 3);
- kube-log-runner parses its flags with Go's flag package, which exits on a
  flag it does not define: the rotation flags (-log-file-size, -log-file-age,
  -flush-interval) exist from the 1.34 release's runner on
  (kubernetes/kubernetes#127667, CHANGELOG-1.34.md);
- windows_exporter exits on a flag or a collector name its release does not know
  (``_windows_exporter``); it serves metrics and changes nothing else on the node;
- the kubelet, once running, registers for the pre-shutdown notification where its
  graceful shutdown is on (kubelet_shutdown.py): the Control key's PreshutdownOrder
  and its service's pre-shutdown time-out.

A failing program leaves the service Stopped with exit code 1, which is all the
service control manager (and so node_service_apply.ps1) can see of the reason;
the reason itself goes to the node's log (``node.data['log']``).
"""

import contextvars
import ipaddress
import ntpath
import os
import re
import tomllib

from kubewin_sim import cluster as sim_cluster
from kubewin_sim import csi_proxy
from kubewin_sim import kubelet_shutdown

CONTAINERD_ROOT = 'C:\\ProgramData\\containerd\\root'
CONTAINERD_STATE = 'C:\\ProgramData\\containerd\\state'
# Programs without Windows service code of their own.
NOT_SERVICE_AWARE = {'cri-dockerd.exe'}
# Programs that run as a service only when told so.
SERVICE_FLAG = {'containerd.exe': '--run-service', 'dockerd.exe': '--run-service'}


# The Win32 errors StartService fails with when the program does not come up (System Error Codes 1000-1299).
ERROR_SERVICE_REQUEST_TIMEOUT = 1053
ERROR_PROCESS_ABORTED = 1067


class ProgramFailure(Exception):
    """A service's program did not reach Running; the message goes to the node's log, ``code`` is the Win32 error of
    StartService: 1067 for a process that ended before it reported to the service control manager (the default),
    1053 for one that never does."""

    def __init__(self, message, code=ERROR_PROCESS_ABORTED):
        super().__init__(message)
        self.code = code


def split_command_line(text):
    """argv as CommandLineToArgvW gives it: quotes group, 2n backslashes before a quote are n."""
    words, i = [], 0
    while True:
        while i < len(text) and text[i] in ' \t':
            i += 1
        if i >= len(text):
            return words
        word, quoted, backslashes = [], False, 0
        while i < len(text) and (quoted or text[i] not in ' \t'):
            char = text[i]
            if char == '\\':
                backslashes += 1
            elif char == '"':
                word.append('\\' * (backslashes // 2))
                if backslashes % 2:
                    word.append('"')
                else:
                    quoted = not quoted
                backslashes = 0
            else:
                word.append('\\' * backslashes + char)
                backslashes = 0
            i += 1
        word.append('\\' * backslashes)
        words.append(''.join(word))


def nssm_settings(service):
    """nssm's settings as they act on a service: only while nssm.exe is the program the service control manager
    starts (the ImagePath). ``nssm install <service> <application>`` registers nssm.exe itself as the service and
    keeps the application and its options under the service's Parameters key, which nssm reads when it starts
    (nssm.cc, "Usage"); the SCM starts the ImagePath program ("Services registry tree", Windows driver and service
    documentation) and never reads Parameters, so settings left there under any other program do nothing."""
    nssm = service.get('nssm')
    argv = split_command_line(service.get('command_line') or '')
    if not nssm or not argv or ntpath.basename(argv[0]).lower() != 'nssm.exe':
        return None
    return nssm


def option(argv, name):
    """The value of ``--name value`` or ``--name=value`` (the last one wins, as the flag parsers do)."""
    value = None
    for index, word in enumerate(argv):
        if word == name and index + 1 < len(argv):
            value = argv[index + 1]
        elif word.startswith(name + '='):
            value = word[len(name) + 1:]
    return value


def _release_major(node, program):
    """containerd's major version, from the artifact record of the folder its binary came from."""
    record = node.managed_registry()['artifacts'].get(ntpath.dirname(program)) or {}
    found = re.search(r'containerd-(\d+)\.\d+\.\d+-windows', record.get('url') or '')
    return int(found.group(1)) if found else None


def _containerd(node, program, argv):
    # server.CreateTopLevelDirectories runs before the log file is opened.
    from kubewin_sim.windows import filesystem  # pylint: disable=import-outside-toplevel  # windows imports this module
    for directory in (CONTAINERD_ROOT, CONTAINERD_STATE):
        # os.MkdirAll: the folder and every missing parent.
        filesystem.make_directories(node, directory)
    log_file = option(argv, '--log-file')
    if log_file and not node.is_directory(ntpath.dirname(log_file)):
        return 'open log file %r: The system cannot find the path specified.' % log_file
    config = option(argv, '--config')
    if not config:
        return None
    entry = node.file(config)
    if entry is None:
        return 'failed to load TOML: open %s: The system cannot find the file specified.' % config
    text = entry.get('content')
    if text is None:
        return 'failed to load TOML from %s: not a text file' % config
    if text.startswith('\ufeff'):
        return 'failed to load TOML from %s: toml: line 1: unexpected character (a byte order mark)' % config
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return 'failed to load TOML from %s: %s' % (config, exc)
    version = document.get('version', 1)
    major = _release_major(node, program)
    readable = {1: (1, 2), 2: (2, 3)}.get(major, (1, 2, 3))
    if version not in readable:
        return 'containerd %s.x cannot load config version %s from %s' % (major, version, config)
    return None


# The flags of kube-log-runner (staging/src/k8s.io/component-base/logs/kube-log-runner/kube-log-runner.go)
# and the first release whose runner defines them.
KUBE_LOG_RUNNER_FLAGS = {'-log-file': (1, 0), '-also-stdout': (1, 0), '-redirect-stderr': (1, 0),
                         '-log-file-size': (1, 34), '-log-file-age': (1, 34), '-flush-interval': (1, 34)}


def _kube_log_runner(node, program, argv):
    version = installed_version(node, program)
    minor = tuple(int(part) for part in version.split('.')[:2]) if version else None
    for word in argv[1:]:
        # Go's flag package stops at the first argument that is not a flag: the program to run.
        if not word.startswith('-'):
            break
        name = '-' + word.lstrip('-').split('=', 1)[0]
        added = KUBE_LOG_RUNNER_FLAGS.get(name)
        if added is None or (minor is not None and minor < added):
            return 'flag provided but not defined: %s' % name
    return None


# windows_exporter 0.31 (prometheus-community/windows_exporter at v0.31.8): kingpin parses its flags and exits on one
# it does not define (cmd/windows_exporter/main.go: config.file, telemetry.path, web.disable-exporter-metrics,
# collectors.enabled, collectors.disabled, scrape.timeout-margin, debug.enabled, process.priority,
# process.memory-limit; exporter-toolkit's web flags web.listen-address, web.config.file; promslog's log.level,
# log.format and the exporter's log.file; every collector's own flags are --collector.<name>.<setting>), then
# builds the enabled collectors and exits on a name it does not know ("unknown collector %s",
# pkg/collector/collection.go). The names are internal/collector's folders (pkg/collector/map.go); [defaults]
# stands for DefaultCollectors (pkg/collector/types.go). It needs no --windows-service: it asks Windows whether
# the service control manager started it (0_service.go isWindowsService) and reports to it then.
WINDOWS_EXPORTER_FLAGS = ('--config.file', '--telemetry.path', '--web.disable-exporter-metrics', '--collectors.enabled',
                          '--collectors.disabled', '--scrape.timeout-margin', '--debug.enabled', '--process.priority',
                          '--process.memory-limit', '--web.listen-address', '--web.config.file', '--log.level',
                          '--log.format', '--log.file')
WINDOWS_EXPORTER_COLLECTORS = frozenset((
    'ad', 'adcs', 'adfs', 'cache', 'container', 'cpu', 'cpu_info', 'dfsr', 'dhcp', 'diskdrive', 'dns', 'exchange',
    'filetime', 'fsrmquota', 'gpu', 'hyperv', 'iis', 'license', 'logical_disk', 'memory', 'mscluster', 'msmq', 'mssql',
    'net', 'netframework', 'nps', 'os', 'pagefile', 'performancecounter', 'physical_disk', 'printer', 'process',
    'remote_fx', 'scheduled_task', 'service', 'smb', 'smbclient', 'smtp', 'system', 'tcp', 'terminal_services',
    'textfile', 'thermalzone', 'time', 'udp', 'update', 'vmware'))


def _windows_exporter(node, program, argv):
    for word in argv[1:]:
        name = word.split('=', 1)[0]
        if name.startswith('--') and name not in WINDOWS_EXPORTER_FLAGS and not name.startswith('--collector.'):
            return "windows_exporter: error: unknown long flag '%s'" % name
    enabled = option(argv, '--collectors.enabled')
    for name in (enabled or '').split(','):
        if name.strip() and name.strip() != '[defaults]' and name.strip() not in WINDOWS_EXPORTER_COLLECTORS:
            return 'Couldn\'t load collectors: unknown collector %s' % name.strip()
    listen = option(argv, '--web.listen-address') or ':9182'
    port = listen.rpartition(':')[2]
    if not port.isdigit() or not 0 < int(port) < 65536:
        return 'listen tcp %s: address %s: invalid port' % (listen, port)
    return None


CHECKS = {'containerd.exe': _containerd, 'kube-log-runner.exe': _kube_log_runner,
          'windows_exporter.exe': _windows_exporter}

# Programs that report their release: the kubelet puts its own in its Node's status.nodeInfo.kubeletVersion,
# and the container runtime's (CRI Version) in containerRuntimeVersion.
VERSIONED = ('kubelet.exe', 'kube-proxy.exe', 'containerd.exe', 'dockerd.exe')


def installed_version(node, path):
    """The release of a binary on the node: the version of the artifact record that installed the
    file as it is now (a file changed since, or never recorded, has none)."""
    entry = node.file(path)
    if entry is None:
        return None
    for record in node.managed_registry()['artifacts'].values():
        for recorded, sha256 in (record.get('files') or {}).items():
            if recorded.lower() == path.lower() and sha256 == entry['sha256']:
                return record.get('version')
    return None


def _running_version(node, argv):
    """What a kubelet or kube-proxy started from this command line reports as its version; a wrapper
    (kube-log-runner, nssm) starts the binary named on its command line."""
    for word in argv:
        if ntpath.basename(word).lower() in VERSIONED:
            version = installed_version(node, word)
            return 'v' + version if version else None
    return None


def program_of(service):
    """The program a service runs: nssm's application, the program kube-log-runner starts (its first argument that
    is not a flag), else the ImagePath's."""
    argv = split_command_line(service.get('command_line') or '')
    nssm = nssm_settings(service)
    program = nssm['application'] if nssm else (argv[0] if argv else '')
    if argv and ntpath.basename(argv[0]).lower() == 'kube-log-runner.exe' and len(argv) > 1:
        program = next((word for word in argv[1:] if not word.startswith('-')), program)
    return program


def _csi_proxy_failure(node, name, service, argv):
    """csi-proxy (kubewin_sim/csi_proxy.py), run by the service itself or through kube-log-runner: without
    -windows-service nothing reports to the service control manager (1053); else why it stops at once, or None."""
    program = program_of(service)
    arguments = argv[argv.index(program) + 1:] if program in argv else []
    flags, error = csi_proxy.parse_flags(arguments, installed_version(node, program))
    if error is None and flags.get('windows-service', 'false').lower() not in ('true', '1', 't'):
        service.update(state='stopped', exit_code=1053)
        node.record('%s: %s without -windows-service does not report to the service control manager' % (name, program))
        raise ProgramFailure('Service \'%s\' cannot be started: The service did not respond to the start or '
                             'control request in a timely fashion. (error 1053)' % name, ERROR_SERVICE_REQUEST_TIMEOUT)
    return csi_proxy.start_failure(node, arguments, installed_version(node, program), exclude=name.lower())


def start(node, name, service):
    """Raise ProgramFailure as node_service_apply.ps1 would report the program's failure to start."""
    argv = split_command_line(service['command_line'])
    nssm = nssm_settings(service)
    program = nssm['application'] if nssm else argv[0]
    if nssm:
        argv = [program] + split_command_line(nssm['app_parameters'] or '')
    base = ntpath.basename(program).lower()
    if not nssm and (base in NOT_SERVICE_AWARE
                     or (base in SERVICE_FLAG and SERVICE_FLAG[base] not in argv[1:])):
        service.update(state='stopped', exit_code=1053)
        node.record('%s: %s does not report to the service control manager' % (name, program))
        raise ProgramFailure('Service \'%s\' cannot be started: The service did not respond to the start or '
                             'control request in a timely fashion. (error 1053)' % name, ERROR_SERVICE_REQUEST_TIMEOUT)
    check = CHECKS.get(base)
    reason = check(node, program, argv) if check else None
    if reason is None and csi_proxy.is_csi_proxy(program_of(service)):
        reason = _csi_proxy_failure(node, name, service, argv)
    # The process that starts is the binary on disk now; a binary replaced later runs only after a restart.
    version = _running_version(node, argv)
    if version:
        service['version'] = version
    else:
        service.pop('version', None)
    if reason:
        service.update(state='stopped', exit_code=1)
        node.record('%s exited: %s' % (name, reason))
        raise ProgramFailure('service %s did not reach Running within 60 s (status Stopped, exit code 1)' % name)


# The stub service program of the Windows scenario set (tests/windows/scenarios/new_stubs.ps1): a ServiceBase that does
# nothing; started with --hang-on-stop its OnStop never returns, so ServiceBase leaves the service StopPending.
SCENARIO_SERVICE = 'kubewin-scenario-service.exe'


def hangs_on_stop(service):
    """Whether the service's program never finishes stopping (the scenario stub with --hang-on-stop)."""
    argv = split_command_line(service.get('command_line') or '')
    return bool(argv) and ntpath.basename(argv[0]).lower() == SCENARIO_SERVICE and '--hang-on-stop' in argv[1:]


def log_file_of(service):
    """Where the running program's output goes: nssm's AppStdout, kube-log-runner's -log-file or
    containerd's --log-file; None for a program that logs elsewhere (dockerd: the event log)."""
    nssm = nssm_settings(service)
    if nssm:
        return nssm.get('app_stdout') or None
    argv = split_command_line(service.get('command_line') or '')
    if argv and ntpath.basename(argv[0]).lower() == 'kube-log-runner.exe':
        return option(argv, '-log-file')
    found = option(argv, '--log-file')
    # A bare --log-file (Open vSwitch: its default folder) is followed by the next flag, not a path.
    return found if found and not found.startswith('-') else None


def _append(node, path, line):
    previous = (node.file(path) or {}).get('content') or ''
    node.write_file(path, content=previous + line + '\n')


def _network_name(service):
    """kube-proxy's HNS network: --network-name, else the KUBE_NETWORK variable (pkg/proxy/winkernel getNetworkName)."""
    argv = split_command_line(service.get('command_line') or '')
    nssm = nssm_settings(service)
    if nssm:
        argv = argv + split_command_line(nssm.get('app_parameters') or '')
    environment = dict(entry.split('=', 1) for entry in service.get('environment') or [] if '=' in entry)
    return option(argv, '--network-name') or environment.get('KUBE_NETWORK')


def _kube_proxy(node, service):
    """kube-proxy (winkernel) finds its HNS network first and, while it is missing, logs "Unable to find HNS Network
    specified" and looks again every second (pkg/proxy/winkernel getNetworkInfo, called by NewProxier): nothing is
    programmed until the network exists, then it programs its load balancers (``network_created`` goes on)."""
    name = _network_name(service)
    if name and not any(n['name'].lower() == name.lower() for n in node.data['hns']['networks']):
        service['waiting_for_network'] = name
        node.record('kube-proxy: Unable to find HNS Network specified, please check network name and CNI deployment '
                    '(hnsNetworkName=%s)' % name)
        return
    service.pop('waiting_for_network', None)
    program_load_balancers(node, name)


def network_created(node, name):
    """An HNS network appeared: a running kube-proxy that waits for it goes on."""
    for service in node.data['services'].values():
        waiting = service.get('waiting_for_network')
        if service.get('state') == 'running' and waiting and waiting.lower() == name.lower():
            _kube_proxy(node, service)


# The cluster whose controller is running a pod on the node right now (hostprocess.py): a kube-proxy the pod starts
# reads its Services there, since that controller holds the cluster's lock.
CLUSTER_IN_HAND = contextvars.ContextVar('kubewin_cluster_in_hand', default=None)


def service_vips(cluster, families=('IPv4',)):
    """The ClusterIPs of the cluster's Services in these families (each Service's spec.clusterIPs)."""
    return sorted({ip for s in cluster.list('Service') for ip in s['spec'].get('clusterIPs') or [s['spec'].get('clusterIP')]
                   if ip not in (None, 'None')
                   and sim_cluster.FAMILY_OF_VERSION[ipaddress.ip_address(ip).version] in families})


def network_families(node, network_name):
    """The IP families of kube-proxy's HNS network: IPv4, and IPv6 where the network has an IPv6 subnet. winkernel
    runs its dual-stack proxier only where the network can carry both (kubernetes/kubernetes#101047: "dual-stack
    should not be used when the networking stack does not support it", never on overlay), and keeps each family's
    load balancers apart since #136241 (1.33.8, 1.34.4, 1.35.1, 1.36; the versions before it are refused by the
    collection's version policy and not modelled)."""
    for network in node.data['hns']['networks']:
        if network_name and network['name'].lower() == network_name.lower():
            versions = {ipaddress.ip_network(subnet['address_prefix']).version
                        for subnet in network['subnets'] if subnet.get('address_prefix')}
            return tuple(sim_cluster.FAMILY_OF_VERSION[v] for v in sorted(versions)) or ('IPv4',)
    return ('IPv4',)


def kube_proxy_vips(node, cluster):
    """The ClusterIPs the node's kube-proxy service programs load balancers for: the Services' addresses in the families
    of its HNS network."""
    service = node.data['services'].get(sim_cluster.KUBE_PROXY_SERVICE) or {}
    return service_vips(cluster, network_families(node, _network_name(service)))


def program_load_balancers(node, network_name=None):
    """kube-proxy (winkernel) programs an HNS load balancer (a v1 policy list) per ClusterIP of each Service, in the
    families its network carries (network_families)."""
    families = network_families(node, network_name)
    in_hand = CLUSTER_IN_HAND.get()
    if in_hand is not None:
        vips = service_vips(in_hand, families)
    else:
        state_dir = os.environ.get('KUBEWIN_SIM_STATE_DIR')
        if not state_dir or sim_cluster.peek(state_dir) is None:
            return
        with sim_cluster.open_cluster(state_dir) as cluster:
            vips = service_vips(cluster, families)
    programmed = {vip for p in node.data['hns'].setdefault('policy_lists', []) for vip in p['vips']}
    for vip in vips:
        if vip not in programmed:
            node.add_policy_list([vip], [])


def started(node, name, service):
    """What a program that reached Running leaves behind in its first second: a line in its log
    (the dockerd service writes to the Application event log), and kube-proxy's load balancers."""
    stamp = node.date_iso()
    base = ntpath.basename(program_of(service)).lower()
    line = 'I%s %s started (service %s)' % (stamp, base, name)
    log_file = log_file_of(service)
    if log_file:
        _append(node, log_file, line)
    elif base == 'dockerd.exe':
        events = node.data.setdefault('event_log', {}).setdefault('docker', [])
        events.append({'time': stamp, 'level': 'Information', 'message': 'API listen on //./pipe/docker_engine'})
        del events[:-200]
    if base == 'kube-proxy.exe':
        _kube_proxy(node, service)
    if kubelet_shutdown.is_kubelet(base):
        _kubelet(node, service)


def _kubelet(node, service):
    """The kubelet's shutdown manager registers it for the pre-shutdown notification (kubelet_shutdown.py). It runs as
    the service itself (kube-log-runner starts it and the kubelet connects to the service control manager) with
    --windows-service; under nssm it is nssm's child, no service of its own."""
    program = program_of(service)
    nssm = nssm_settings(service)
    if nssm:
        arguments = split_command_line(nssm.get('app_parameters') or '')
    else:
        argv = split_command_line(service.get('command_line') or '')
        arguments = argv[argv.index(program) + 1:] if program in argv else []
    kubelet_shutdown.start(node, lambda name: option(arguments, name),
                           windows_service=not nssm and '--windows-service' in arguments,
                           version=kubelet_shutdown.release(installed_version(node, program)))
