"""playbooks/site.yml with the kubelet's graceful node shutdown turned on and off again on a 1.33 node: the drop-in
file with the two periods, the kubelet's --config-dir and (on 1.33, where it is alpha) the WindowsGracefulNodeShutdown
gate; a converged re-run is one remote call; turning it off removes the file and the flags and restarts the kubelet."""

import os
import sys

import yaml

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402
from kubewin_sim.programs import split_command_line  # noqa: E402

import network_play  # noqa: E402

HOST = 'win1'
VERSION = '1.33.13'
DROPIN = 'C:\\etc\\kubernetes\\kubelet.conf.d\\50-kubewin.conf'
OPTIONS = {'join_method': 'bootstrap_kubeconfig'}


def fleet(sim, grace, critical):
    return sim.inventory(
        {HOST: {'ansible_host': network_play.NODES[HOST], 'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version=VERSION,
                        kubelet_shutdown_grace_period=grace, kubelet_shutdown_grace_period_critical_pods=critical),
        control_plane={'cp1': {}})


def kubelet_flags(sim):
    return [word for word in split_command_line(sim.node(HOST).data['services']['kubelet']['command_line'])
            if word.startswith('--')]


def test_graceful_shutdown_on_then_off(tmp_path):
    sim = Simulation(tmp_path)
    with sim.edit_cluster(profile={'version': 'v1.33.4'}):
        pass
    converge = network_play.run(sim, 'playbooks/site.yml', fleet(sim, 60, 20), **OPTIONS)
    assert converge.rc == 0, converge.output
    assert yaml.safe_load(sim.node(HOST).file(DROPIN)['content']) == {
        'apiVersion': 'kubelet.config.k8s.io/v1beta1', 'kind': 'KubeletConfiguration',
        'shutdownGracePeriod': '60s', 'shutdownGracePeriodCriticalPods': '20s'}
    flags = kubelet_flags(sim)
    assert '--config-dir=C:\\etc\\kubernetes\\kubelet.conf.d' in flags and '--windows-service' in flags
    assert '--feature-gates=WindowsGracefulNodeShutdown=true' in flags, 'alpha and off by default in 1.33'
    assert sim.node(HOST).data['services']['kubelet']['state'] == 'running'

    again = network_play.run(sim, 'playbooks/site.yml', fleet(sim, 60, 20), **OPTIONS)
    assert again.rc == 0 and again.changed(HOST) == 0 and again.calls[HOST]['total'] == 1, again.calls[HOST]

    starts = sim.node(HOST).data['services']['kubelet'].get('starts', 0)
    off = network_play.run(sim, 'playbooks/site.yml', fleet(sim, 0, 0), **OPTIONS)
    assert off.rc == 0, off.output
    assert sim.node(HOST).file(DROPIN) is None
    assert not [flag for flag in kubelet_flags(sim) if flag.startswith(('--config-dir', '--feature-gates'))]
    assert sim.node(HOST).data['services']['kubelet'].get('starts', 0) == starts + 1, 'restarted once, without them'
