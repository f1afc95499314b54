"""The service control manager's behaviour over ``node.data['services']``, as the collection meets it: starting a
service (what Windows checks: the start mode, the dependencies, the program files, nssm's output files; then what the
program does in its first second, ``programs.py``, the kubelet's TLS bootstrap and flanneld, ``flannel.py``),
stopping one with its dependents, the dependents themselves (ServiceController.DependentServices), and the program
files running services hold. The Windows model's services area (windows/services.py), kubeadm.exe and msiexec call it.

A service's state is ``stopped``, ``start_pending``, ``running`` or ``stop_pending`` (SERVICE_STATUS dwCurrentState,
"SERVICE_STATUS structure", Win32 services reference). A program that starts well reports Running at once; what a
program does later by itself happens on the node's clock (node.py ``SimNode.date``) when ``settle`` runs
(windows/services.py before each read, and ``windows.catch_up`` before each script):

- ``pending_until``: a program still starting (StartPending) until then, Running afterwards (the profile's
  ``service_start_seconds``, service name -> seconds);
- ``exits_at``: a program that reported Running and ends by itself then, without reporting SERVICE_STOPPED (the
  profile's ``program_exits_after_running``, SHA-256 of the program file -> seconds: a kubelet that rejects its
  configuration after its service code reported Running, cmd/kubelet/app/server.go ``Run``: ``initForOS`` reports
  Running through pkg/windows/service before ``run`` validates the rest). The SCM then shows the service Stopped with
  the Win32 exit code 1067, ERROR_PROCESS_ABORTED ("The process terminated unexpectedly", System Error Codes
  1000-1299), as ``sc query`` shows a service whose process died. Its failure actions (restart after a delay) are not
  modelled: the service stays Stopped.
- a program that never finishes starting or stopping (the profile's ``service_hangs_starting`` and
  ``service_hangs_stopping``, service names): StartPending or StopPending with no end, as long as its process lives
  (the SCM does not end a service's process that does not stop; only a restart of Windows does, windows/boot.py).
"""

import ntpath
import time

from kubewin_sim import flannel
from kubewin_sim import programs as program_model
from kubewin_sim.node import SimulationError

# Services every Windows Server has (hns and vmcompute come with the Containers feature).
BUILTIN = {'winrm', 'tcpip', 'lanmanserver', 'eventlog'}
CONTAINER_BUILTIN = {'hns', 'vmcompute'}


def _split(command_line):
    """The program of a service command line (enough for the simulation: quoted or first token)."""
    text = command_line.strip()
    if text.startswith('"'):
        return text[1:text.index('"', 1)]
    return text.split(' ', 1)[0]


def programs_in_use(node):
    """The program files of running services, which Windows will not let anyone overwrite."""
    used = set()
    for service in node.data['services'].values():
        if service.get('state') == 'running' and service.get('command_line'):
            used.add(_split(service['command_line']).lower())
            nssm = program_model.nssm_settings(service)
            if nssm:
                used.add(nssm['application'].lower())
    return used


class StartRefused(SimulationError):
    """StartService refused by the service control manager; ``code`` is the Win32 error of the StartService
    reference page (1058 disabled, 1059 circular dependency, 1068 dependency failed, 1075 dependency missing, 2 the
    program file missing)."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def _exists(node, name):
    lowered = name.lower()
    if lowered in node.data['services'] or lowered in BUILTIN:
        return True
    return lowered in CONTAINER_BUILTIN and node.hns_available()


def start(node, name, starting=()):
    """StartService, with what Windows checks (the program file, the dependencies) and what the program does (programs.py)."""
    service = node.data['services'][name.lower()]
    if service['start_mode'] == 'disabled':
        raise StartRefused("Service '%s' cannot be started: the service is disabled." % name, 1058)
    for dependency in service['dependencies']:
        if not _exists(node, dependency):
            raise StartRefused("Service '%s' cannot be started: the dependency service %s does not exist."
                               % (name, dependency), 1075)
    for dependency in service['dependencies']:
        if dependency.lower() in starting:
            raise StartRefused("Service '%s' cannot be started: a circular service dependency was specified."
                               % name, 1059)
        state = (node.data['services'].get(dependency.lower()) or {}).get('state')
        if state == 'stop_pending':
            # ERROR_SERVICE_DEPENDENCY_FAIL: the SCM cannot start a dependency that is still stopping.
            raise StartRefused("Service '%s' cannot be started: the dependency service or group failed to start "
                               "(%s is StopPending)." % (name, dependency), 1068)
        if state == 'stopped':
            start(node, dependency, tuple(starting) + (name.lower(),))
    programs = [_split(service['command_line'])]
    nssm = program_model.nssm_settings(service)
    if nssm:
        programs.append(nssm['application'])
    missing = [program for program in programs if node.file(program) is None]
    outputs = {(nssm or {}).get(key) for key in ('app_stdout', 'app_stderr')} - {None, ''}
    if any(not node.is_directory(ntpath.dirname(path)) for path in outputs):
        # nssm cannot open its output file (CreateFile makes no folders) and starts nothing.
        service.update(state='stopped', exit_code=1)
        # nssm reports to the SCM, logs this and ends: for StartService, a process that ended.
        raise program_model.ProgramFailure("Service '%s' cannot be started: Error setting up one or more I/O filehandles. "
                                           'Service %s will not be started.' % (name, name))
    if missing:
        service.update(state='stopped', exit_code=2)
        raise StartRefused("Service '%s' cannot be started: The system cannot find the file specified (%s)."
                           % (name, missing[0]), 2)
    # A fault for tests: a binary (by its SHA-256) that exits at once whatever starts it (built for another build of
    # Windows, damaged): the service stops with exit code 1, as any program that ends before reporting Running.
    crashing = set(node.profile.get('program_start_failures', []))
    if any((node.file(program) or {}).get('sha256') in crashing for program in programs):
        service.update(state='stopped', exit_code=1)
        raise program_model.ProgramFailure('service %s did not reach Running within 60 s (status Stopped, exit code 1)'
                                           % name)
    if name.lower() in [n.lower() for n in node.profile.get('service_start_failures', [])]:
        service.update(state='stopped', exit_code=1)
        raise program_model.ProgramFailure('service %s did not reach Running within 60 s (status Stopped, exit code 1)' % name)
    program_model.start(node, name, service)
    service.update(state='running', exit_code=0)
    for timeline in TIMELINE:
        service.pop(timeline, None)
    service['starts'] = service.get('starts', 0) + 1
    program_model.started(node, name, service)
    if name.lower() == 'kubelet':
        _tls_bootstrap(node, service)
    if flannel.is_flanneld(service):
        flannel.run(node, service)
    _schedule_after_start(node, name, service, programs)


# The service record's fields of what its program does later on the node's clock (see the module's docstring).
TIMELINE = ('pending_until', 'exits_at')
# The Win32 exit code the SCM gives a service whose process ended without reporting SERVICE_STOPPED.
ERROR_PROCESS_ABORTED = 1067
# The states in which the service's process exists.
ALIVE = ('start_pending', 'running', 'stop_pending')


def _listed(node, fault, name):
    return name.lower() in [entry.lower() for entry in node.profile.get(fault, [])]


def _schedule_after_start(node, name, service, programs):
    """StartPending for a while or without end, and an exit after Running, as the profile's faults say."""
    now = node.date()
    exits = node.profile.get('program_exits_after_running') or {}
    seconds = [exits[digest] for digest in ((node.file(program) or {}).get('sha256') for program in programs)
               if digest in exits]
    if _listed(node, 'service_hangs_starting', name):
        service['state'] = 'start_pending'
        node.record('%s: the program never reports Running (StartPending)' % name)
    elif name.lower() in {key.lower() for key in node.profile.get('service_start_seconds') or {}}:
        delay = {key.lower(): value for key, value in node.profile['service_start_seconds'].items()}[name.lower()]
        service.update(state='start_pending', pending_until=now + float(delay))
    if seconds:
        service['exits_at'] = service.get('pending_until', now) + float(min(seconds))


def settle(node):
    """What the services' programs did by themselves up to the node's clock: a start that ended, a program that
    exited after it reported Running."""
    now = node.date()
    for name, service in node.data['services'].items():
        until = service.get('pending_until')
        if service.get('state') == 'start_pending' and until is not None and until <= now:
            service['state'] = 'running'
            del service['pending_until']
        exits = service.get('exits_at')
        if service.get('state') == 'running' and exits is not None and exits <= now:
            service.update(state='stopped', exit_code=ERROR_PROCESS_ABORTED)
            del service['exits_at']
            node.record('%s: the program exited after it reported Running (the service control manager records '
                        'exit code %d)' % (name, ERROR_PROCESS_ABORTED))


def next_change(node, name):
    """When the service's state changes by itself next (seconds on the node's clock), or None: never."""
    service = node.data['services'].get(name.lower()) or {}
    if service.get('state') == 'start_pending':
        return service.get('pending_until')
    if service.get('state') == 'running':
        return service.get('exits_at')
    return None


def _flag(command_line, flag):
    for part in command_line.replace('"', '').split(' '):
        if part.startswith(flag + '='):
            return part[len(flag) + 1:]
    return None


# The kubelet's --cert-dir when its command line has none: <--root-dir>\\pki, the root dir /var/lib/kubelet on the
# system drive (kubelet command-line reference, kubernetes.io).
DEFAULT_CERT_DIR = 'C:\\var\\lib\\kubelet\\pki'


def _tls_bootstrap(node, service):
    """What a starting kubelet writes into its --cert-dir and --kubeconfig (kubernetes/kubernetes source).

    - Without tlsCertFile/tlsPrivateKeyFile (the collection sets neither) and without serverTLSBootstrap, a
      self-signed serving certificate ``kubelet.crt`` and its key ``kubelet.key``, once (cmd/kubelet/app/server.go,
      InitializeTLS).
    - With a bootstrap kubeconfig and no kubeconfig: the client certificate and key in one file
      ``kubelet-client-<YYYY-MM-DD-HH-MM-SS>.pem``, ``kubelet-client-current.pem`` pointing at it, and a kubeconfig
      whose client-certificate and client-key are that current file (pkg/kubelet/certificate/bootstrap/bootstrap.go,
      LoadClientCert; client-go util/certificate/certificate_store.go, fileStore.Update). The store makes
      ``-current`` a symbolic link; the file model has none, so it is a second file with the same bytes.
    Go creates these files with a Unix mode, which on Windows sets no ACL (the os package: only the owner-write
    bit is used): each file inherits its folder's ACL.
    """
    cert_dir = _flag(service['command_line'], '--cert-dir') or DEFAULT_CERT_DIR
    hostname = node.data['hostname'].lower()
    serving_key = ntpath.join(cert_dir, 'kubelet.key')
    if node.file(serving_key) is None:
        node.write_file(ntpath.join(cert_dir, 'kubelet.crt'), content='(self-signed serving certificate of %s)\n' % hostname)
        node.write_file(serving_key, content='(serving key of %s)\n' % hostname)
    kubeconfig = _flag(service['command_line'], '--kubeconfig')
    bootstrap = _flag(service['command_line'], '--bootstrap-kubeconfig')
    if kubeconfig and bootstrap and node.file(kubeconfig) is None and node.file(bootstrap) is not None:
        pair = '(client certificate and key of system:node:%s)\n' % hostname
        stamp = time.strftime('%Y-%m-%d-%H-%M-%S', time.gmtime(node.date()))
        node.write_file(ntpath.join(cert_dir, 'kubelet-client-%s.pem' % stamp), content=pair)
        current = ntpath.join(cert_dir, 'kubelet-client-current.pem')
        node.write_file(current, content=pair)
        node.write_file(kubeconfig, content='(kubelet kubeconfig of %s: client-certificate and client-key %s)\n'
                        % (hostname, current))


def dependents(node, name):
    """Services that depend on ``name``, directly or through others (ServiceController.DependentServices)."""
    found, queue = [], [name.lower()]
    while queue:
        current = queue.pop()
        for key, service in node.data['services'].items():
            if current in [d.lower() for d in service.get('dependencies') or []] and key not in found:
                found.append(key)
                queue.append(key)
    return found


def process_id(service):
    """The id of the process of a service whose program runs (Win32_Service.ProcessId, Get-Process -Id)."""
    return 4000 + sum(map(ord, service['name']))


def process_killed(node, name):
    """The process of a service was ended (TerminateProcess: taskkill /F): the SCM sees the service Stopped with
    ERROR_PROCESS_ABORTED, as for any process that ends without reporting SERVICE_STOPPED."""
    service = node.data['services'][name.lower()]
    for timeline in TIMELINE:
        service.pop(timeline, None)
    service.update(state='stopped', exit_code=ERROR_PROCESS_ABORTED)


def control_stop(node, name):
    """ControlService(SERVICE_CONTROL_STOP) of one running service: its program ends and the service is Stopped with
    exit code 0, or, hung (the profile's ``service_hangs_stopping``, or a program that never returns from its stop
    handler: programs.hangs_on_stop), it stays StopPending."""
    service = node.data['services'][name.lower()]
    for timeline in TIMELINE:
        service.pop(timeline, None)
    if _listed(node, 'service_hangs_stopping', name) or program_model.hangs_on_stop(service):
        service['state'] = 'stop_pending'
        node.record('%s: the program does not stop (StopPending)' % service.get('name', name))
        return
    service.update(state='stopped', exit_code=0)


def stop(node, name):
    """A service and every service depending on it stopped, as a program (kubeadm.exe) asks the SCM."""
    for dependent in dependents(node, name) + [name.lower()]:
        if node.data['services'][dependent].get('state') in ALIVE:
            control_stop(node, dependent)
