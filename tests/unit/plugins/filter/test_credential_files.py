"""kubewin.node.credential_files: the credential file patterns of a node layout, moved folders included."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.action.node_info import DEFAULT_CREDENTIALS
from ansible_collections.kubewin.node.plugins.filter.paths import FilterModule
from ansible_collections.kubewin.node.plugins.plugin_utils import _node_plan

credential_files = FilterModule().filters()['credential_files']


def test_the_patterns_follow_the_layout_and_the_default_is_node_infos():
    assert credential_files(dict(_node_plan.NODE_PATHS)) == DEFAULT_CREDENTIALS == [
        'C:\\etc\\kubernetes\\*.conf', 'C:\\var\\lib\\kubelet\\pki\\*.pem', 'C:\\var\\lib\\kubelet\\pki\\*.key',
        'C:\\etc\\kube-flannel\\kubeconfig']
    moved = dict(_node_plan.NODE_PATHS, kubelet_dir='D:\\kubelet')
    assert credential_files(moved)[1:3] == ['D:\\kubelet\\pki\\*.pem', 'D:\\kubelet\\pki\\*.key']


def test_a_layout_without_its_folders_is_refused():
    with pytest.raises(AnsibleFilterError, match='needs the node layout \\(plan_paths\\) with kubelet_dir, flannel_dir'):
        credential_files({'kubernetes_config_dir': 'C:\\etc\\kubernetes'})
    with pytest.raises(AnsibleFilterError, match='with kubernetes_config_dir, kubelet_dir, flannel_dir'):
        credential_files('C:\\k')
