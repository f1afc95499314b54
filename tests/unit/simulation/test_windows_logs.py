"""The node services' logs: kube-log-runner's flags as its release defines them.

kube-log-runner parses its command line with Go's flag package (flag.Parse with ExitOnError), which stops
the program on a flag the release does not define; -log-file-size, -log-file-age and -flush-interval came
with kubernetes/kubernetes#127667 in 1.34 (CHANGELOG-1.34.md). A service command line built for the wrong
release must fail here as it fails on the node: the service stays Stopped.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import programs  # noqa: E402
from kubewin_sim.node import open_node  # noqa: E402

RUNNER = 'C:\\k\\kube-log-runner.exe'
KUBELET = 'C:\\k\\kubelet.exe'


def start_kubelet(tmp_path, version, runner_flags):
    with open_node(str(tmp_path), 'win1', profile={'ip': '10.127.130.38', 'build': 20348}) as node:
        for path, seed in ((RUNNER, 1), (KUBELET, 2)):
            entry = node.write_file(path, sha256='%064x' % seed, size=4096)
            node.set_artifact_record(path, {
                'url': 'https://dl.k8s.io/release/v%s/bin/windows/amd64/%s' % (version, os.path.basename(path)),
                'checksum': 'sha256:x', 'version': version, 'files': {path: entry['sha256']}})
        service = {'name': 'kubelet', 'exists': True, 'state': 'running', 'start_mode': 'auto', 'dependencies': [],
                   'nssm': None, 'command_line': ' '.join([RUNNER] + runner_flags + [KUBELET, '--v=2', '--windows-service'])}
        try:
            programs.start(node, 'kubelet', service)
        except programs.ProgramFailure:
            return service, node.data.get('log')
        return service, None


@pytest.mark.parametrize('version, started', [('1.33.13', False), ('1.34.2', True)])
def test_the_runner_refuses_a_size_flag_its_release_lacks(tmp_path, version, started):
    service, log = start_kubelet(tmp_path, version, ['-log-file=C:\\var\\log\\kubelet\\kubelet.log', '-log-file-size=100Mi'])
    assert (service['state'] == 'running') == started
    if not started:
        assert service['exit_code'] == 1
        assert 'flag provided but not defined: -log-file-size' in str(log)


def test_flags_after_the_program_belong_to_the_program(tmp_path):
    # Go's flag package stops at the first argument that is not a flag; the kubelet's own flags are not the runner's.
    service = start_kubelet(tmp_path, '1.33.13', ['-log-file=C:\\var\\log\\kubelet\\kubelet.log'])[0]
    assert service['state'] == 'running'
