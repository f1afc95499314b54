"""playbooks/site.yml with the host settings of a production node on an overlay node: kubewin_patch_managed sets
Windows Update's policy values (notify, never install by itself) over what a Group Policy left, in one remote call
more than the same converge without it; a converged re-run is one remote call; a node whose values drifted runs again
and gets them back; false leaves them; reset.yml removes the two values and only them.

prerequisites_page_file on an overlay node whose 1 GiB page file cannot hold its pods: the fixed size is written to
PagingFiles and the node, not joined yet, restarts to put it in force (so the commit limit check, even refuse, passes
on the size the run sets); a converged re-run is one remote call; the doctor finds a setting changed behind the
collection's back; a new size on the joined node is written but waits for a drained restart, which the doctor
reports; {} leaves the node's page file as it is; reset.yml gives the page file back to Windows (at the next boot)."""

import os
import sys
from unittest import mock

import pytest

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402

import network_play  # noqa: E402

HOST = 'win1'
VERSION = '1.33.13'
OPTIONS = {'join_method': 'bootstrap_kubeconfig'}
AU = 'SOFTWARE\\Policies\\Microsoft\\Windows\\WindowsUpdate\\AU'
# What a Group Policy left: download and schedule the install (AUOptions 4) every day (ScheduledInstallDay 0).
GPO = {AU: {'AUOptions': ['REG_DWORD', 4], 'ScheduledInstallDay': ['REG_DWORD', 0]}}


def fleet(sim, **group_vars):
    profile = dict(network_play.CONTAINERS_READY, registry=GPO)
    return sim.inventory({HOST: {'ansible_host': network_play.NODES[HOST], 'kubewin_sim': profile}},
                         group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay',
                                         kubewin_kubernetes_version=VERSION, **group_vars),
                         control_plane={'cp1': {}})


def simulation(path):
    sim = Simulation(path)
    with sim.edit_cluster(profile={'version': 'v1.33.4'}):
        pass
    return sim


def policy(sim):
    return sim.node(HOST).data['registry'][AU.lower()]['values']


# Long (make unit-long): its representative part is the dual-stack e2e fleet make test runs
# (tests/e2e/inventories/l2bridge-dualstack), which turns the setting on in its first converge and checks the
# converged re-run and the doctor.
@pytest.mark.long
def test_windows_update_managed_on_then_drifted_then_off_then_reset(tmp_path):
    baseline = simulation(tmp_path / 'off')
    plain = network_play.run(baseline, 'playbooks/site.yml', fleet(baseline), **OPTIONS)
    assert plain.rc == 0, plain.output
    assert baseline.node(HOST).data['registry'][AU.lower()]['values'] == GPO[AU], 'off: the policy is left alone'

    sim = simulation(tmp_path / 'on')
    converge = network_play.run(sim, 'playbooks/site.yml', fleet(sim, kubewin_patch_managed=True), **OPTIONS)
    assert converge.rc == 0, converge.output
    assert policy(sim) == {'AUOptions': ['REG_DWORD', 2], 'ScheduledInstallDay': ['REG_DWORD', 0],
                           'NoAutoUpdate': ['REG_DWORD', 0]}
    # The values planned from the snapshot: one apply call, no read of their own.
    assert converge.calls[HOST]['total'] == plain.calls[HOST]['total'] + 1, (converge.calls[HOST], plain.calls[HOST])

    again = network_play.run(sim, 'playbooks/site.yml', fleet(sim, kubewin_patch_managed=True), **OPTIONS)
    assert again.rc == 0 and again.changed(HOST) == 0 and again.calls[HOST]['total'] == 1, again.calls[HOST]

    # A Group Policy refresh puts "download and schedule the install" back: the snapshot no longer matches the record.
    with sim.edit_node(HOST) as node:
        node.data['registry'][AU.lower()]['values']['AUOptions'] = ['REG_DWORD', 4]
    drifted = network_play.run(sim, 'playbooks/site.yml', fleet(sim, kubewin_patch_managed=True), **OPTIONS)
    assert drifted.rc == 0 and drifted.changed(HOST) == 1, drifted.output
    assert policy(sim)['AUOptions'] == ['REG_DWORD', 2]

    # false sets and removes nothing: a new input, so the node runs again and writes only its new record.
    off = network_play.run(sim, 'playbooks/site.yml', fleet(sim, kubewin_patch_managed=False), **OPTIONS)
    assert off.rc == 0 and off.changed(HOST) == 1 and off.calls[HOST]['total'] == 3, (off.calls[HOST], off.output)
    assert policy(sim)['NoAutoUpdate'] == ['REG_DWORD', 0]

    reset = network_play.run(sim, 'playbooks/reset.yml', fleet(sim, kubewin_patch_managed=True), **OPTIONS)
    assert reset.rc == 0, reset.output
    assert policy(sim) == {'ScheduledInstallDay': ['REG_DWORD', 0]}, 'only the two values it set'
    print('calls: off %s, on %s, re-run %s, drifted %s, reset %s' % (
        plain.calls[HOST]['total'], converge.calls[HOST]['total'], again.calls[HOST]['total'],
        drifted.calls[HOST]['total'], reset.calls[HOST]['total']))


def small_page_file_fleet(sim, **group_vars):
    # 4 GiB of memory and a 1 GiB page file: a commit limit of 5 GiB for 4 GiB + 110 pods x 32 MiB (the defaults).
    profile = dict(network_play.CONTAINERS_READY, memory_mb=4096, page_file_mb=1024)
    return sim.inventory({HOST: {'ansible_host': network_play.NODES[HOST], 'kubewin_sim': profile}},
                         group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay',
                                         kubewin_kubernetes_version=VERSION, **group_vars),
                         control_plane={'cp1': {}})


def test_a_node_with_a_small_page_file_is_refused_before_any_change_or_warned_about(tmp_path):
    sim = simulation(tmp_path)
    refused = network_play.run(sim, 'playbooks/site.yml',
                               small_page_file_fleet(sim, prerequisites_commit_limit_check='refuse'), **OPTIONS)
    assert refused.rc != 0
    assert ('its commit limit (physical memory 4.0 GiB + page files 1.0 GiB = 5.0 GiB) cannot hold what the kubelet '
            'may place on it, 7.4 GiB') in refused.output
    # Refused from the snapshot: one remote call, and nothing on the node changed.
    assert refused.calls[HOST]['total'] == 1 and sim.node(HOST).data['services'] == {}

    warned = network_play.run(sim, 'playbooks/site.yml', small_page_file_fleet(sim), **OPTIONS)
    assert warned.rc == 0, warned.output
    assert 'WARNING: win1: its commit limit' in warned.output
    assert sim.node(HOST).data['services']['kubelet']['state'] == 'running'


def page_files(sim):
    """The setting (PagingFiles), the page files in force since the last boot, and the boots the node had."""
    data = sim.node(HOST).data
    return data.get('paging_files'), data.get('paging_files_in_force'), data['os']['last_boot']


# Long (make unit-long): converges twice with a restart each, and the off and reset runs.
@pytest.mark.long
def test_a_fixed_page_file_set_and_restarted_for_then_resized_then_off_then_reset(tmp_path):
    baseline = simulation(tmp_path / 'off')
    plain = network_play.run(baseline, 'playbooks/site.yml', small_page_file_fleet(baseline), **OPTIONS)
    assert plain.rc == 0, plain.output
    assert page_files(baseline)[:2] == (None, None), 'off: the page file is left to Windows'
    assert 'WARNING: win1: its commit limit' in plain.output

    sim = simulation(tmp_path / 'on')
    fixed = {'initial_mb': 4096, 'maximum_mb': 8192}
    converge = network_play.run(sim, 'playbooks/site.yml',
                                small_page_file_fleet(sim, prerequisites_page_file=fixed, prerequisites_commit_limit_check='refuse'),
                                **OPTIONS)
    assert converge.rc == 0, converge.output
    # Only a boot puts a setting in force (the model's session manager): the node restarted.
    assert page_files(sim)[:2] == (['C:\\pagefile.sys 4096 8192'], ['C:\\pagefile.sys 4096 8192'])
    assert 'its commit limit' not in converge.output
    # One apply call (planned from the snapshot), the restart and the snapshot after it.
    assert converge.calls[HOST]['total'] == plain.calls[HOST]['total'] + 3, (converge.calls[HOST], plain.calls[HOST])
    # One skipped task more (the e2e budget): the host settings' include runs, where the NodePort guard and Defender's
    # exclusions, off, show as skipped instead of the include; the restart's include runs instead of showing as skipped
    # (it skips its feature install instead).
    assert converge.stats[HOST]['skipped'] == plain.stats[HOST]['skipped'] + 1, (converge.stats[HOST], plain.stats[HOST])

    again = network_play.run(sim, 'playbooks/site.yml',
                             small_page_file_fleet(sim, prerequisites_page_file=fixed, prerequisites_commit_limit_check='refuse'),
                             **OPTIONS)
    assert again.rc == 0 and again.changed(HOST) == 0 and again.calls[HOST]['total'] == 1, again.calls[HOST]

    # An administrator gives the page file back to Windows: the doctor reports the drift (and that the node, not yet
    # restarted, still runs the fixed one is no news: the setting is what differs).
    with sim.edit_node(HOST) as node:
        node.data['paging_files'] = ['?:\\pagefile.sys']
    doctor = sim.run('playbooks/doctor.yml', small_page_file_fleet(sim, prerequisites_page_file=fixed))
    assert doctor.rc == 0, doctor.output
    [found] = [f for f in doctor.report_row(HOST)['findings'] if f['id'].startswith('page-file')]
    assert found['id'] == 'page-file-size-changed' and "['?:\\\\pagefile.sys']" in found['what'], found

    # A new size on the joined node: written, not put in force by an undrained restart; check mode says so first, with
    # the value's diff, and changes nothing. The doctor reports the restart the node waits for, until it restarts.
    larger = {'initial_mb': 6144, 'maximum_mb': 6144, 'drive': 'C:'}
    before = page_files(sim)
    check = network_play.run(sim, 'playbooks/site.yml', small_page_file_fleet(sim, prerequisites_page_file=larger), '--check', '--diff',
                             **OPTIONS)
    assert check.rc == 0, check.output
    assert page_files(sim) == before
    [setting] = check.result("Set the host settings' registry values", HOST)['result']['results']
    assert setting['changed'] and setting['diff']['after']['PagingFiles']['data'] == ['C:\\pagefile.sys 6144 6144'], setting
    assert not check.results('Reboot the node', HOST), 'a joined node is not restarted undrained'
    resized = network_play.run(sim, 'playbooks/site.yml', small_page_file_fleet(sim, prerequisites_page_file=larger), **OPTIONS)
    assert resized.rc == 0, resized.output
    assert page_files(sim) == (['C:\\pagefile.sys 6144 6144'], before[1], before[2])
    assert sim.node(HOST).data['services']['kubelet']['state'] == 'running'
    doctor = sim.run('playbooks/doctor.yml', small_page_file_fleet(sim, prerequisites_page_file=larger))
    [found] = [f for f in doctor.report_row(HOST)['findings'] if f['id'].startswith('page-file')]
    assert found['id'] == 'page-file-restart-pending' and 'kubectl drain' in found['fix'], found
    # The operator's drained restart (the node's programs reach the simulated cluster in the state directory).
    with mock.patch.dict(os.environ, KUBEWIN_SIM_STATE_DIR=sim.state_dir), sim.edit_node(HOST) as node:
        node.reboot()
    assert page_files(sim)[:2] == (['C:\\pagefile.sys 6144 6144'], ['C:\\pagefile.sys 6144 6144'])
    doctor = sim.run('playbooks/doctor.yml', small_page_file_fleet(sim, prerequisites_page_file=larger))
    assert not [f for f in doctor.report_row(HOST)['findings'] if f['id'].startswith('page-file')], doctor.output

    # {} manages nothing: the node keeps its page file, runs again for its new input and writes only its record.
    last_boot = page_files(sim)[2]
    off = network_play.run(sim, 'playbooks/site.yml', small_page_file_fleet(sim), **OPTIONS)
    assert off.rc == 0 and off.changed(HOST) == 1 and off.calls[HOST]['total'] == 3, (off.calls[HOST], off.output)
    assert page_files(sim) == (['C:\\pagefile.sys 6144 6144'], ['C:\\pagefile.sys 6144 6144'], last_boot)

    reset = network_play.run(sim, 'playbooks/reset.yml', small_page_file_fleet(sim, prerequisites_page_file=larger), **OPTIONS)
    assert reset.rc == 0, reset.output
    # Windows manages the page file again from the next boot; the reset does not restart the node.
    assert page_files(sim) == (['?:\\pagefile.sys'], ['C:\\pagefile.sys 6144 6144'], last_boot)
    print('calls: off %s, on %s, re-run %s, resized %s, off again %s, reset %s' % (
        plain.calls[HOST]['total'], converge.calls[HOST]['total'], again.calls[HOST]['total'],
        resized.calls[HOST]['total'], off.calls[HOST]['total'], reset.calls[HOST]['total']))
