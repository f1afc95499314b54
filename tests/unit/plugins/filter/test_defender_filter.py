"""The filter kubewin.node.defender_exclusions: the one list the prerequisites role adds, the reset role removes and
the doctor checks, from the node layout."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.filter.defender import defender_exclusions
from ansible_collections.kubewin.node.plugins.plugin_utils import _node_plan


def test_containerd_and_kubernetes_in_the_default_layout():
    assert defender_exclusions(_node_plan.node_paths({})) == {
        'paths': ['C:\\ProgramData\\containerd\\root', 'C:\\ProgramData\\containerd\\state', 'C:\\var\\lib\\kubelet',
                  'C:\\etc\\kubernetes'],
        'processes': ['C:\\Program Files\\containerd\\containerd.exe', 'C:\\k\\kubelet.exe', 'C:\\k\\kube-proxy.exe']}


def test_a_moved_layout_docker_and_the_parts():
    paths = _node_plan.node_paths({'kubernetes_dir': 'D:\\k', 'kubelet_dir': 'D:\\kubelet', 'docker_dir': 'D:\\docker'})
    assert defender_exclusions(paths, 'docker', ['runtime']) == {'paths': ['C:\\ProgramData\\docker'],
                                                                 'processes': ['D:\\docker\\dockerd.exe']}
    assert defender_exclusions(paths, 'containerd', ['kubernetes']) == {
        'paths': ['D:\\kubelet', 'C:\\etc\\kubernetes'], 'processes': ['D:\\k\\kubelet.exe', 'D:\\k\\kube-proxy.exe']}


def test_what_is_not_a_layout_or_a_part_is_refused():
    with pytest.raises(AnsibleFilterError, match='plan_paths'):
        defender_exclusions({'kubernetes_dir': 'C:\\k'})
    with pytest.raises(AnsibleFilterError, match='parts are runtime, kubernetes, got images'):
        defender_exclusions(_node_plan.node_paths({}), 'containerd', ['images'])
