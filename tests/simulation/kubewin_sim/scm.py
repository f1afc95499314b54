"""The service control manager's behaviour over ``node.data['services']``, as the collection meets it: starting a
service (what Windows checks: the start mode, the dependencies, the program files, nssm's output files; then what the
program does in its first second, ``programs.py``, the kubelet's TLS bootstrap and flanneld, ``flannel.py``),
stopping one with its dependents, the dependents themselves (ServiceController.DependentServices), and the program
files running services hold. The Windows model's services area (windows/services.py), kubeadm.exe and msiexec call it.
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


def _exists(node, name):
    lowered = name.lower()
    if lowered in node.data['services'] or lowered in BUILTIN:
        return True
    return lowered in CONTAINER_BUILTIN and node.hns_available()


def start(node, name, starting=()):
    """StartService, with what Windows checks (the program file, the dependencies) and what the program does (programs.py)."""
    service = node.data['services'][name.lower()]
    if service['start_mode'] == 'disabled':
        raise SimulationError("Service '%s' cannot be started: the service is disabled." % name)
    for dependency in service['dependencies']:
        if not _exists(node, dependency):
            raise SimulationError("Service '%s' cannot be started: the dependency service %s does not exist."
                                  % (name, dependency))
    for dependency in service['dependencies']:
        if dependency.lower() in starting:
            raise SimulationError("Service '%s' cannot be started: a circular service dependency was specified."
                                  % name)
        if dependency.lower() in node.data['services'] and node.data['services'][dependency.lower()]['state'] != 'running':
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
        raise SimulationError("Service '%s' cannot be started: Error setting up one or more I/O filehandles. "
                              'Service %s will not be started.' % (name, name))
    if missing:
        service.update(state='stopped', exit_code=2)
        raise SimulationError("Service '%s' cannot be started: The system cannot find the file specified (%s)."
                              % (name, missing[0]))
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
    service['starts'] = service.get('starts', 0) + 1
    program_model.started(node, name, service)
    if name.lower() == 'kubelet':
        _tls_bootstrap(node, service)
    if flannel.is_flanneld(service):
        flannel.run(node, service)


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


def stop(node, name):
    """Stop-Service -Force: the service and every service depending on it."""
    for dependent in dependents(node, name):
        node.data['services'][dependent].update(state='stopped', exit_code=0)
    node.data['services'][name.lower()].update(state='stopped', exit_code=0)
