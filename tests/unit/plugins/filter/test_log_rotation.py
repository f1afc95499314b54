"""kubewin.node.log_rotation: which logs the node's task copies and empties, which it only prunes, and its task."""

import json

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _log_rotation, _pwsh
from ansible_collections.kubewin.node.plugins.filter.log_rotation import FilterModule

LOGS = [
    {'path': 'C:\\ProgramData\\containerd\\containerd.log', 'writer': 'containerd'},
    {'path': 'C:\\var\\log\\kubelet\\kubelet.log', 'writer': 'kube-log-runner'},
    {'path': 'C:\\var\\log\\kube-proxy\\kube-proxy.log', 'writer': 'nssm'},
    {'path': 'C:\\var\\log\\flanneld\\flanneld.log', 'writer': 'nssm'},
]


def rotation(version='1.33.13', **more):
    return FilterModule().filters()['log_rotation'](dict({'kubernetes_version': version, 'max_size_mb': 7,
                                                          'files_kept': 3, 'logs': LOGS}, **more))


@pytest.mark.parametrize('version, runner_copied', [('1.33.13', True), ('1.34.0', False), ('v1.37.1', False)])
def test_only_logs_whose_writer_never_rotates_are_copied_and_emptied(version, runner_copied):
    config = json.loads(rotation(version)['config_text'])
    assert config == {'max_bytes': 7 * 1048576, 'files_kept': 3, 'logs': [
        {'path': 'C:\\ProgramData\\containerd\\containerd.log', 'copy_truncate': True},
        {'path': 'C:\\var\\log\\kubelet\\kubelet.log', 'copy_truncate': runner_copied},
        {'path': 'C:\\var\\log\\kube-proxy\\kube-proxy.log', 'copy_truncate': False},
        {'path': 'C:\\var\\log\\flanneld\\flanneld.log', 'copy_truncate': False}]}


def test_the_task_runs_the_script_on_its_configuration():
    result = rotation()
    assert result['script_text'] == _pwsh.load_script('log_rotate')
    assert result['task'] == {
        'name': 'log-rotation', 'description': _log_rotation.TASK_DESCRIPTION, 'execute': 'powershell.exe',
        'arguments': '-NoProfile -NonInteractive -ExecutionPolicy Bypass -File '
                     '"C:\\ProgramData\\kubewin\\log-rotation\\rotate.ps1" '
                     '-ConfigPath "C:\\ProgramData\\kubewin\\log-rotation\\config.json"'}
    assert result['config_text'].endswith('}\n') and not result['config_text'].startswith('\ufeff')


def test_a_log_named_twice_is_rotated_once_and_the_defaults_apply():
    result = FilterModule().filters()['log_rotation']({'kubernetes_version': '1.33.1', 'logs': LOGS[:1] * 2})
    assert json.loads(result['config_text']) == {'max_bytes': 100 * 1048576, 'files_kept': 5, 'logs': [
        {'path': 'C:\\ProgramData\\containerd\\containerd.log', 'copy_truncate': True}]}


@pytest.mark.parametrize('more, message', [
    ({'logs': [{'path': 'containerd.log', 'writer': 'containerd'}]}, 'absolute Windows path'),
    ({'logs': [{'path': 'C:\\x.log', 'writer': 'docker'}]}, 'writer'),
    ({'max_size_mb': 0}, 'kubewin_log_max_size_mb must be a whole number from 1 to 2047'),
    ({'files_kept': 'five'}, 'kubewin_log_files_kept must be a whole number'),
    ({'size': 3}, 'unknown keys size'),
])
def test_bad_input_is_refused_naming_it(more, message):
    with pytest.raises(Exception, match=message):
        rotation(**more)
