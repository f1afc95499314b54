"""kube-proxy.exe started by a script (the kube-proxy-windows DaemonSet's start script), as a program model.

What kube-proxy does when it starts on Windows (kubernetes/kubernetes, cmd/kube-proxy and pkg/proxy/winkernel):
the only Windows proxy mode is ``kernelspace`` (winkernel; userspace was removed in 1.26, CHANGELOG-1.26.md); it
finds its HNS network by ``--network-name``, else the ``KUBE_NETWORK`` variable (getNetworkName), and while the
network is missing logs "Unable to find HNS Network specified" and looks again (getNetworkInfo); once it has the
network it programs an HNS load balancer per Service. The service case is kubewin_sim/programs.py (_kube_proxy),
whose load balancer logic this model shares.

kube-proxy runs until it is stopped. The engine runs a program to its end, so the model is kube-proxy's start-up:
what it leaves on the node in its first second (its log line, the load balancers), after which the call returns with
exit code 0 as though the process had then been stopped. What stops it (the pod deleted) is outside the engine run.
"""

from .. import programs


def flags_logged(node, argv):
    """At start kube-proxy logs every flag it was given, one 'FLAG: --name="value"' line each (cmd/kube-proxy/app,
    cliflag.PrintFlags at verbosity 1 and up), stamped with the node's date."""
    return ['I%s FLAG: %s="%s"' % ((node.date_iso(),) + tuple(word.split('=', 1))) for word in argv[1:] if '=' in word]


def _environment(host, environment):
    return environment if environment is not None else host.environment()


def kube_proxy(host, words, input_items, environment=None):  # pylint: disable=unused-argument
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    node = host.node
    argv = ['kube-proxy.exe'] + [str(word) for word in words]
    mode = programs.option(argv, '--proxy-mode')
    if mode not in (None, 'kernelspace'):
        return ProgramResult([], ['E invalid configuration: proxy mode %r is not supported on Windows '
                                  '(only kernelspace)' % mode], 1)
    kubeconfig = programs.option(argv, '--kubeconfig')
    # kube-proxy loads its kubeconfig before anything else and exits when it cannot (cmd/kube-proxy/app, createClient
    # through client-go's clientcmd, which reports the file's os.Stat error).
    if kubeconfig and host.node.file(kubeconfig) is None:
        return ProgramResult(flags_logged(node, argv), ['E%s run.go: "command failed" err="stat %s: The system cannot '
                                                        'find the file specified."' % (node.date_iso(), kubeconfig)], 1)
    network = programs.option(argv, '--network-name') or (_environment(host, environment) or {}).get('KUBE_NETWORK')
    stamp = node.date_iso()
    flags = flags_logged(node, argv)
    if network and not any(n['name'].lower() == network.lower() for n in node.data['hns']['networks']):
        line = ('kube-proxy: Unable to find HNS Network specified, please check network name and CNI deployment '
                '(hnsNetworkName=%s)' % network)
        node.record(line)
        return ProgramResult(flags + ['E%s %s' % (stamp, line)], [], 0)
    programs.program_load_balancers(node, network)
    return ProgramResult(flags + ['I%s kube-proxy.exe started (winkernel, network %s)' % (stamp, network)], [], 0)


PROGRAMS = {'kube-proxy.exe': kube_proxy}
