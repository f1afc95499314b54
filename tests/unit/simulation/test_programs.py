"""The simulation's programs refuse to start as the real ones do (kubewin_sim/programs.py)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

from kubewin_sim import programs  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim import scm  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.programs import ProgramFailure  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.kubewin.node.plugins.plugin_utils._flags import windows_command_line  # noqa: E402

DIR = 'C:\\Program Files\\containerd'
EXE = DIR + '\\containerd.exe'
CONFIG = DIR + '\\config.toml'
GOOD = 'version = 3\n[plugins."io.containerd.cri.v1.images".pinned_images]\nsandbox = "registry.k8s.io/pause:3.10"\n'


def containerd_node(major=2, config=GOOD):
    node = SimNode(initial_state('win1', {'features': {'Containers': 'installed'}}))
    node.write_file(EXE, sha256='ab' * 32, size=10, acl='protected')
    version = '2.2.1' if major == 2 else '1.7.24'
    node.set_artifact_record(DIR, {'url': 'https://github.com/containerd/containerd/releases/download/v%s/'
                                          'containerd-%s-windows-amd64.tar.gz' % (version, version)})
    if config is not None:
        node.write_file(CONFIG, content=config, acl='protected')
    return node


def add_service(node, name, path, args, nssm=None):
    node.data['services'][name] = {'name': name, 'exists': True, 'state': 'stopped', 'start_mode': 'auto',
                                   'command_line': windows_command_line(path, args), 'dependencies': [],
                                   'environment': [], 'nssm': nssm}


CONTAINERD_ARGS = ['--run-service', '--config', CONFIG, '--log-file', 'C:\\ProgramData\\containerd\\containerd.log']


@pytest.mark.parametrize('args', [
    ['--run-service'],
    ['--a b', 'c"d', 'e\\', 'f\\\\"g', '', 'C:\\Program Files\\x y\\'],
])
def test_command_lines_split_as_windows_does(args):
    assert programs.split_command_line(windows_command_line(EXE, args)) == [EXE] + args


def test_containerd_starts_with_a_good_config_and_creates_its_folders():
    node = containerd_node()
    add_service(node, 'containerd', EXE, CONTAINERD_ARGS)
    scm.start(node, 'containerd')
    assert node.data['services']['containerd']['state'] == 'running'
    assert node.is_directory('C:\\ProgramData\\containerd\\root')


@pytest.mark.parametrize('major, config, args, reason', [
    (2, '\ufeff' + GOOD, CONTAINERD_ARGS, 'byte order mark'),
    (2, 'version = 3\n[plugins\n', CONTAINERD_ARGS, 'failed to load TOML'),
    (2, None, CONTAINERD_ARGS, 'cannot find the file'),
    (1, GOOD, CONTAINERD_ARGS, 'containerd 1.x cannot load config version 3'),
    (2, GOOD, ['--run-service', '--config', CONFIG, '--log-file', 'C:\\var\\log\\containerd\\containerd.log'],
     'open log file'),
])
def test_containerd_refuses_what_it_cannot_load(major, config, args, reason):
    node = containerd_node(major, config)
    add_service(node, 'containerd', EXE, args)
    with pytest.raises(ProgramFailure, match='did not reach Running'):
        scm.start(node, 'containerd')
    assert node.data['services']['containerd']['state'] == 'stopped'
    assert reason in node.data['log'][-1]


def test_containerd_1_reads_config_version_2():
    node = containerd_node(1, GOOD.replace('version = 3', 'version = 2'))
    add_service(node, 'containerd', EXE, CONTAINERD_ARGS)
    scm.start(node, 'containerd')


@pytest.mark.parametrize('path, args', [(EXE, ['--config', CONFIG]),
                                        ('C:\\Program Files\\cri-dockerd\\cri-dockerd.exe', ['--network-plugin=cni'])])
def test_a_program_without_service_code_never_reports_running(path, args):
    node = containerd_node()
    node.write_file(path, sha256='cd' * 32, size=10)
    add_service(node, 'svc', path, args)
    with pytest.raises(ProgramFailure, match='error 1053'):
        scm.start(node, 'svc')


def test_nssm_runs_cri_dockerd():
    node = containerd_node()
    nssm, cri = 'C:\\Program Files\\nssm\\nssm.exe', 'C:\\Program Files\\cri-dockerd\\cri-dockerd.exe'
    for path in (nssm, cri):
        node.write_file(path, sha256='cd' * 32, size=10)
    add_service(node, 'cri-dockerd', nssm, [], nssm={'application': cri, 'app_parameters': '--network-plugin=cni'})
    scm.start(node, 'cri-dockerd')
    assert node.data['services']['cri-dockerd']['state'] == 'running'
