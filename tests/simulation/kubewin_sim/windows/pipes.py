"""Named pipes: the pipe namespace ``\\\\.\\pipe\\`` as a directory listing shows it.

Sources: "Pipe Names" (Win32 API reference, ipc): a pipe is named ``\\\\.\\pipe\\<name>`` on the local computer;
System.IO.Directory.GetFiles (.NET API reference, xml/System.IO/Directory.xml) returns the names of a directory's files
with their path, in no guaranteed order, and the pipe file system lists the pipes of the computer as the files of
``\\\\.\\pipe\\`` (the way PowerShell users list them: ``[System.IO.Directory]::GetFiles('\\\\.\\pipe\\')``).

A pipe exists while the program that created it runs; the model lists the pipes of the programs it runs: csi-proxy's
(kubewin_sim/csi_proxy.py), containerd's CRI endpoint ``containerd-containerd`` (containerd ``defaults/
defaults_windows.go`` DefaultAddress) and Docker Engine's ``docker_engine`` (moby ``opts/hosts_windows.go``, DefaultNamedPipe
``//./pipe/docker_engine``) while their service runs. Windows' own pipes (lsass, ntsvcs...) are not
modelled: a listing holds only these, which is what the scripts look for.
"""

import ntpath

from kubewin_sim import csi_proxy

FOLDER = '\\\\.\\pipe\\'
# The pipe a running service's program serves by default.
SERVICE_PIPES = {'containerd.exe': 'containerd-containerd', 'dockerd.exe': 'docker_engine'}


def is_pipe_folder(path):
    return str(path).replace('/', '\\').lower().rstrip('\\') + '\\' == FOLDER


def pipe_names(node):
    """The names of the node's pipes now (without the folder)."""
    from kubewin_sim import programs  # pylint: disable=import-outside-toplevel  # programs imports the windows areas
    names = []
    for service in node.data['services'].values():
        if service.get('state') == 'running':
            found = SERVICE_PIPES.get(ntpath.basename(programs.program_of(service)).lower())
            if found:
                names.append(found)
    names.extend(csi_proxy.pipe_names(node))
    return sorted(set(names))


def pipe_paths(node):
    """What Directory.GetFiles of the pipe folder returns: each pipe with its path."""
    return [FOLDER + name for name in pipe_names(node)]
