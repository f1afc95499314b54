"""Fixtures for running the collection's roles against simulated Windows nodes."""

import os
import sys

import pytest

SIMULATION = os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')
sys.path.insert(0, os.path.abspath(SIMULATION))

from kubewin_sim.harness import Simulation  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture
def sim(tmp_path):
    return Simulation(tmp_path)


@pytest.fixture
def one_node(sim):
    return sim.inventory({'win1': {'ansible_host': '10.127.130.38',
                                   'kubewin_sim': {'features': {'Containers': 'installed'}}}})
