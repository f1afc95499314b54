"""csi-proxy.exe (kubernetes-csi/csi-proxy 1.x) as a program: what it does when it starts, and the named pipes it
serves while it runs.

Sources (kubernetes-csi/csi-proxy at the tags v1.1.3, v1.2.1 and v1.3.0):

- ``cmd/csi-proxy/main.go``: the flags, parsed with Go's flag package (which exits with code 2 and "flag provided but
  not defined: -<name>" on any other): ``-kubelet-path``, ``-windows-service`` and the repeatable ``-working-dir``
  in every 1.x release, ``-require-privacy`` from 1.2.0, ``-metrics-bind-address`` from 1.3.0, and klog's
  (``klog.InitFlags``, k8s.io/klog/v2 klog.go: ``-v``, ``-vmodule``, ``-logtostderr``, ``-alsologtostderr``,
  ``-log_dir``, ``-log_file``, ``-log_file_max_size``, ``-add_dir_header``, ``-skip_headers``, ``-skip_log_headers``,
  ``-one_output``, ``-stderrthreshold``, ``-log_backtrace_at``). With ``-windows-service`` it connects to the service
  control manager before it serves (initService, svc.Run), so a service registered without it never reports Running.
- ``pkg/server/server.go`` createListeners and ``client/utils.go`` PipePath: one named pipe per API group and version,
  ``\\\\.\\pipe\\csi-proxy-<group>-<version>``, each opened with go-winio's ListenPipe, which creates the first
  instance of the pipe (FILE_FLAG_FIRST_PIPE_INSTANCE): while another process serves the name, CreateNamedPipe fails
  with access denied (CreateNamedPipeW, Win32 API reference) and csi-proxy stops (main panics on Start's error).
- ``pkg/server/<group>/api_group_generated.go``: the groups and versions, the same in the three releases.

The pipes exist while the program runs: those of a running csiproxy service (its program, or the program
kube-log-runner runs for it) and those of a HostProcess container running csi-proxy (``node.data
['container_processes']``, written by kubewin_sim/hostprocess.py while the pod is there).

The image of kubernetes-sigs/sig-windows-tools' HostProcess DaemonSet (``hostprocess/csi-proxy``): built from the
csi-proxy tag named by its tag, ``csi-proxy.exe`` at the root of the image, ``csi-proxy.exe -v 4`` its entry point
(``Dockerfile.windows``); a HostProcess container finds the image's files under its sandbox mount point (kubernetes.io,
"Create a Windows HostProcess Pod", Volume mounts). That image's manifest lists Windows 1809 and ltsc2022
(``build.sh``); whether containerd runs it as a HostProcess container on another build is not modelled.
"""

import ntpath
import re

# pkg/server/<group>/api_group_generated.go (1.x).
API_VERSIONS = {
    'disk': ('v1alpha1', 'v1beta1', 'v1beta2', 'v1beta3', 'v1'),
    'filesystem': ('v1alpha1', 'v1beta1', 'v1beta2', 'v1', 'v2alpha1'),
    'iscsi': ('v1alpha1', 'v1alpha2'),
    'smb': ('v1alpha1', 'v1beta1', 'v1beta2', 'v1'),
    'system': ('v1alpha1',),
    'volume': ('v1alpha1', 'v1beta1', 'v1beta2', 'v1beta3', 'v1', 'v2alpha1'),
}
PIPES = tuple('csi-proxy-%s-%s' % (group, version) for group, versions in sorted(API_VERSIONS.items())
              for version in versions)
PROGRAM = 'csi-proxy.exe'
# Image name -> its entry point (sig-windows-tools hostprocess/csi-proxy/Dockerfile.windows); the tag is the release.
IMAGES = {'ghcr.io/kubernetes-sigs/sig-windows/csi-proxy': [PROGRAM, '-v', '4']}
# Flag -> (takes a value, the release that added it).
_OWN_FLAGS = {'kubelet-path': (True, (1, 0)), 'windows-service': (False, (1, 0)), 'working-dir': (True, (1, 0)),
              'require-privacy': (False, (1, 2)), 'metrics-bind-address': (True, (1, 3))}
_KLOG_FLAGS = {'v': True, 'vmodule': True, 'logtostderr': False, 'alsologtostderr': False, 'log_dir': True,
               'log_file': True, 'log_file_max_size': True, 'add_dir_header': False, 'skip_headers': False,
               'skip_log_headers': False, 'one_output': False, 'stderrthreshold': True, 'log_backtrace_at': True}


def is_csi_proxy(program):
    return ntpath.basename(program or '').lower() == PROGRAM


def _release(version):
    found = re.match(r'^v?(\d+)\.(\d+)', version or '')
    return (int(found.group(1)), int(found.group(2))) if found else None


def parse_flags(argv, version):
    """Go's flag package over csi-proxy's argv (after the program): ({flag: value}, None) or (None, the error)."""
    release = _release(version)
    flags, index = {}, 0
    while index < len(argv):
        word = argv[index]
        if not word.startswith('-') or word in ('-', '--'):
            break  # the flag package stops at the first argument that is not a flag
        name, _equals, value = word.lstrip('-').partition('=')
        own = _OWN_FLAGS.get(name)
        if own is not None and (release is None or release >= own[1]):
            takes_value = own[0]
        elif name in _KLOG_FLAGS:
            takes_value = _KLOG_FLAGS[name]
        else:
            return None, 'flag provided but not defined: -%s' % name
        if takes_value and '=' not in word:
            if index + 1 >= len(argv):
                return None, 'flag needs an argument: -%s' % name
            index += 1
            value = argv[index]
        elif not takes_value and '=' not in word:
            value = 'true'
        flags[name] = value
        index += 1
    return flags, None


def running_instances(node, exclude=None):
    """What serves csi-proxy's pipes on the node now: running csiproxy services and container processes."""
    from kubewin_sim import programs  # pylint: disable=import-outside-toplevel  # programs imports this module
    found = []
    for name, service in sorted(node.data['services'].items()):
        if service.get('state') == 'running' and name != exclude and is_csi_proxy(programs.program_of(service)):
            found.append('service %s' % name)
    for uid, process in sorted((node.data.get('container_processes') or {}).items()):
        if uid != exclude and is_csi_proxy(process.get('program')):
            found.append('pod %s' % process.get('pod'))
    return found


def start_failure(node, argv, version, exclude=None):
    """Why csi-proxy started with ``argv`` (after the program) stops at once, or None when it serves its pipes."""
    flags, error = parse_flags(argv, version)
    if error:
        return error
    if running_instances(node, exclude):
        return ('open \\\\.\\pipe\\%s: Access is denied. (another csi-proxy serves it: %s)'
                % (PIPES[0], ', '.join(running_instances(node, exclude))))
    del flags
    return None


def pipe_names(node):
    """The pipes csi-proxy serves on the node now (one set, whoever runs it)."""
    return list(PIPES) if running_instances(node) else []


def image_entrypoint(image):
    """(entry point argv, csi-proxy release or None) of a csi-proxy image (a tag, a digest or both), or None."""
    name = (image or '').partition('@')[0]
    tag = None
    if ':' in name.rsplit('/', 1)[-1]:
        name, tag = name.rsplit(':', 1)
    if name not in IMAGES:
        return None
    return list(IMAGES[name]), tag
