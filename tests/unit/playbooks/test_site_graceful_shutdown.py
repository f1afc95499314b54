"""playbooks/site.yml with the kubelet's graceful node shutdown turned on and off again on a 1.33 node: the drop-in
file with the two periods, the kubelet's --config-dir and (on 1.33, where it is alpha) the WindowsGracefulNodeShutdown
gate; the kubelet then registers itself for the pre-shutdown notification (its service's time-out, the pre-shutdown
order); a converged re-run is one remote call; doctor.yml finds nothing, and graceful-shutdown-not-registered once
the registration is undone by hand; turning it off removes the file and the flags and restarts the kubelet."""

import os
import sys

import yaml

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import scm  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402
from kubewin_sim.programs import split_command_line  # noqa: E402
from kubewin_sim.windows import registry  # noqa: E402

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


def registration(sim):
    """The kubelet service's pre-shutdown time-out (None: the default) and whether it is in the pre-shutdown order."""
    node = sim.node(HOST)
    return (node.data['services']['kubelet'].get('preshutdown_timeout_ms'),
            'kubelet' in (registry.preshutdown_order(node) or []))


def findings(result):
    return [f['id'] for f in result.report_row(HOST)['findings']]


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
    assert registration(sim) == (60000, True), 'the kubelet raised its time-out to 60 s and put itself in the order'

    again = network_play.run(sim, 'playbooks/site.yml', fleet(sim, 60, 20), **OPTIONS)
    assert again.rc == 0 and again.changed(HOST) == 0 and again.calls[HOST]['total'] == 1, again.calls[HOST]

    healthy = network_play.run(sim, 'playbooks/doctor.yml', fleet(sim, 60, 20), **OPTIONS)
    assert healthy.rc == 0 and findings(healthy) == [], healthy.output
    # Someone lowers the kubelet's time-out and takes it out of the order (Set-ItemProperty on both values).
    with sim.edit_node(HOST) as node:
        registry.set_value(node, registry.SERVICES + '\\kubelet', 'PreshutdownTimeout', 'REG_DWORD', 5000)
        registry.set_value(node, registry.CONTROL, registry.PRESHUTDOWN_ORDER, 'REG_MULTI_SZ',
                           [name for name in registry.preshutdown_order(node) if name != 'kubelet'])
    broken = network_play.run(sim, 'playbooks/doctor.yml', fleet(sim, 60, 20), **OPTIONS)
    assert broken.rc == 0 and findings(broken) == ['graceful-shutdown-not-registered'], broken.output
    # The record leaves what the kubelet writes out (_converged.PROGRAM_OWNED_FIELDS): still converged, one call.
    unchanged = network_play.run(sim, 'playbooks/site.yml', fleet(sim, 60, 20), **OPTIONS)
    assert unchanged.rc == 0 and unchanged.calls[HOST]['total'] == 1, unchanged.calls[HOST]
    # The fix the finding names: a restart of the kubelet, which registers again at its start.
    with sim.edit_node(HOST) as node:
        scm.control_stop(node, 'kubelet')
        scm.start(node, 'kubelet')
    assert registration(sim) == (60000, True)

    starts = sim.node(HOST).data['services']['kubelet'].get('starts', 0)
    off = network_play.run(sim, 'playbooks/site.yml', fleet(sim, 0, 0), **OPTIONS)
    assert off.rc == 0, off.output
    # The kubelet restarted without a grace period leaves what it found.
    assert registration(sim) == (60000, True)
    assert sim.node(HOST).file(DROPIN) is None
    assert not [flag for flag in kubelet_flags(sim) if flag.startswith(('--config-dir', '--feature-gates'))]
    assert sim.node(HOST).data['services']['kubelet'].get('starts', 0) == starts + 1, 'restarted once, without them'
