"""kubewin.node.doctor_contents: the files the doctor's checks read, which doctor.yml and patch's health check ask for."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.filter.doctor import FilterModule
from ansible_collections.kubewin.node.plugins.plugin_utils import _node_plan

doctor_contents = FilterModule().filters()['doctor_contents']


def test_the_cni_config_is_the_operators_on_calico_and_the_layout_is_followed():
    paths = _node_plan.node_paths({})
    assert doctor_contents(paths, {'topology': 'overlay'}) == [
        paths['cni_config_file'], 'C:\\var\\lib\\kubelet\\kubeadm-flags.env', 'C:\\k\\SourceVip.json']
    assert doctor_contents(paths, {'topology': 'calico'})[0] == paths['calico_cni_config_file']
    moved = _node_plan.node_paths({'kubelet_dir': 'D:\\kubelet', 'kubernetes_dir': 'D:\\k'})
    assert doctor_contents(moved, {'topology': 'l2bridge'})[1:] == ['D:\\kubelet\\kubeadm-flags.env', 'D:\\k\\SourceVip.json']


def test_a_layout_without_its_files_is_refused():
    with pytest.raises(AnsibleFilterError, match='needs the node layout \\(plan_paths\\) with cni_config_file'):
        doctor_contents({'kubelet_dir': 'C:\\var\\lib\\kubelet'}, {'topology': 'overlay'})
