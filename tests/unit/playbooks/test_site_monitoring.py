"""playbooks/site.yml with the monitoring role turned on and off again: windows_exporter, verified from the
release's sha256sums.txt, as the service windows_exporter with the collectors and port asked for; the firewall rules
of windows_exporter and of containerd's metrics endpoint limited to monitoring_allowed_sources; containerd's
[metrics] address; a converged re-run is one remote call; off again removes the service, its binary and both rules.

It also counts what the feature costs: the converge with it on makes one artifact_batch call (artifact_fetch: the
exporter's install from the staging folder, where the node's one staging call put it), one node_service_apply and two
firewall_rule_apply calls more than the same converge with it off."""

import os
import sys
import tomllib

import pytest

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402
from kubewin_sim.programs import split_command_line  # noqa: E402

import network_play  # noqa: E402

HOST = 'win1'
OPTIONS = {'join_method': 'bootstrap_kubeconfig'}
EXPORTER = 'C:\\Program Files\\windows_exporter\\windows_exporter.exe'
CONTAINERD_CONFIG = 'C:\\Program Files\\containerd\\config.toml'
ON = {'monitoring_windows_exporter': True, 'monitoring_windows_exporter_collectors': ['cpu', 'container', 'memory'],
      'monitoring_windows_exporter_port': 9200, 'monitoring_allowed_sources': ['10.20.0.0/16', 'fd00:20::/64'],
      'container_runtime_containerd_metrics_address': '0.0.0.0:10257'}
OFF = {'monitoring_windows_exporter': False, 'container_runtime_containerd_metrics_address': ''}


def fleet(sim, settings):
    return sim.inventory(
        {HOST: {'ansible_host': network_play.NODES[HOST], 'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version='1.31.14', **settings),
        control_plane={'cp1': {}})


def by_script(run):
    return run.calls[HOST]['by_kind']


# Long (make unit-long): its representative part is the dual-stack e2e fleet make test runs
# (tests/e2e/inventories/l2bridge-dualstack), which turns the setting on in its first converge and checks the
# converged re-run and the doctor.
@pytest.mark.long
def test_monitoring_on_then_off(tmp_path):
    sim = Simulation(tmp_path)
    converge = network_play.run(sim, 'playbooks/site.yml', fleet(sim, ON), **OPTIONS)
    assert converge.rc == 0, converge.output
    node = sim.node(HOST)
    service = node.data['services']['windows_exporter']
    assert service['state'] == 'running', service
    assert split_command_line(service['command_line']) == [
        EXPORTER, '--collectors.enabled=cpu,container,memory', '--web.listen-address=:9200']
    assert node.file(EXPORTER) is not None
    rules = node.data['firewall_rules']
    # As Windows reads the rules back: the IPv4 network with its mask.
    assert (rules['kubewin-windows-exporter']['local_port'], rules['kubewin-windows-exporter']['remote_address']) == (
        ['9200'], ['10.20.0.0/255.255.0.0', 'fd00:20::/64'])
    assert (rules['kubewin-containerd-metrics']['local_port'], rules['kubewin-containerd-metrics']['remote_address']) == (
        ['10257'], ['10.20.0.0/255.255.0.0', 'fd00:20::/64'])
    assert tomllib.loads(node.file(CONTAINERD_CONFIG)['content'])['metrics'] == {'address': '0.0.0.0:10257'}

    again = network_play.run(sim, 'playbooks/site.yml', fleet(sim, ON), **OPTIONS)
    assert again.rc == 0 and again.changed(HOST) == 0 and again.calls[HOST]['total'] == 1, again.calls[HOST]

    off = network_play.run(sim, 'playbooks/site.yml', fleet(sim, OFF), **OPTIONS)
    assert off.rc == 0, off.output
    node = sim.node(HOST)
    assert 'windows_exporter' not in node.data['services'] and node.file(EXPORTER) is None
    assert not {'kubewin-windows-exporter', 'kubewin-containerd-metrics'} & set(node.data['firewall_rules'])
    assert 'metrics' not in tomllib.loads(node.file(CONTAINERD_CONFIG)['content'])
    assert node.data['services']['containerd']['state'] == 'running'

    # The same converge with the feature off, on a node of its own: what turning it on adds.
    baseline_sim = Simulation(tmp_path / 'baseline')
    baseline = network_play.run(baseline_sim, 'playbooks/site.yml', fleet(baseline_sim, OFF), **OPTIONS)
    assert baseline.rc == 0, baseline.output
    on, base = by_script(converge), by_script(baseline)
    gained = {name: on.get(name, 0) - base.get(name, 0) for name in set(on) | set(base)
              if on.get(name, 0) != base.get(name, 0)}
    print('calls the converge gains with monitoring on:', gained, converge.calls[HOST]['total'],
          baseline.calls[HOST]['total'])
    # artifact_fetch is artifact_batch's script: the exporter's install from the staging folder.
    assert gained == {'win_powershell:artifact_fetch': 1, 'win_powershell:node_service_apply': 1,
                      'win_powershell:firewall_rule_apply': 2}, gained
