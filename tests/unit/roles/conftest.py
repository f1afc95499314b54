"""Fixtures for running the collection's roles against a simulated cluster and Windows nodes."""

import os
import sys

import pytest

SIMULATION = os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')
sys.path.insert(0, os.path.abspath(SIMULATION))

# pylint: disable=wrong-import-position
from kubewin_sim.cluster import KUBELET_KUBECONFIG  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402

# The IP plan of the simulated cluster's defaults: flannel vxlan with VNI 4096 on port 4789.
PLAN_VARS = {
    'kubewin_topology': 'overlay',
    'kubewin_cluster_cidr': '10.244.0.0/16',
    'kubewin_service_cidr': '10.96.0.0/12',
    'kubewin_management_cidr': '10.127.130.0/24',
}
WINDOWS_NODES = {
    'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': {'build': 20348}},
    'win2': {'ansible_host': '10.127.130.39', 'kubewin_sim': {'build': 17763}},
}


@pytest.fixture
def sim(tmp_path):
    return Simulation(tmp_path)


@pytest.fixture
def inventory(sim):
    """Inventory with cp1 in kube_control_plane and win1 (2022), win2 (2019) in windows_nodes."""
    def make(**plan):
        return sim.inventory(WINDOWS_NODES, group_vars=dict(PLAN_VARS, **plan), control_plane={'cp1': {}})
    return make


@pytest.fixture
def joined(sim):
    """Give simulated Windows nodes a running kubelet (with its kubeconfig) and kube-proxy."""
    def make(*hosts):
        for host in hosts or WINDOWS_NODES:
            profile = dict(WINDOWS_NODES[host]['kubewin_sim'], ip=WINDOWS_NODES[host]['ansible_host'])
            with sim.edit_node(host, profile=profile) as node:
                for service in ('kubelet', 'kube-proxy'):
                    node.data['services'][service] = {'name': service, 'exists': True, 'state': 'running',
                                                      'start_mode': 'auto'}
                node.write_file(KUBELET_KUBECONFIG, content='apiVersion: v1\nkind: Config\n')
    return make


@pytest.fixture
def one_node(sim):
    return sim.inventory({'win1': {'ansible_host': '10.127.130.38',
                                   'kubewin_sim': {'features': {'Containers': 'installed'}}}})
