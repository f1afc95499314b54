"""The early-end decision: a snapshot matching the record of the same inputs is converged, anything else is not."""

import copy
import json

from ansible_collections.kubewin.node.plugins.plugin_utils import _converged, _snapshot

RECORD = _converged.RECORD_PATH
NOW = 1000.0


def snapshot(**changes):
    """A fresh snapshot of a converged node (every section read at NOW), with ``changes`` folded in."""
    state = {
        'sections': list(_snapshot.SECTIONS),
        'os': {'build': 20348, 'ubr': 2582, 'last_boot': '2026-11-23T20:05:15+00:00', 'system_drive_free_bytes': 10},
        'features': {'Containers': 'installed'}, 'reboot_pending': False,
        'adapters': [{'name': 'Ethernet', 'if_index': 4}, {'name': 'vEthernet (Ethernet)', 'if_index': 5}],
        'routes': [],
        'hns': {'available': True, 'networks': [{'name': 'External'}, {'name': 'flannel.4096'}],
                'endpoints': [{'name': 'pod-a'}], 'policy_lists': [{'id': 'lb'}]},
        'services': {'kubelet': {'exists': True, 'state': 'running'}},
        'files': {'C:\\k\\kubelet.exe': {'exists': True, 'sha256': 'aa'}},
        'artifacts': {}, 'contents': {RECORD: {'exists': False, 'text': None}},
        'environment': {}, 'firewall': {}, 'ovs': {'products': []},
    }
    for key, value in changes.items():
        state[key] = value
    return _snapshot.merge(None, state, now=NOW)


def recorded(inputs='in-1', **changes):
    """A snapshot of the node after the record of ``inputs`` was written, with ``changes`` folded in."""
    text = _converged.record_text(snapshot(), inputs, _converged.credentials_digest({'token': 't1'}))
    contents = {RECORD: {'exists': True, 'text': text}}
    files = {'C:\\k\\kubelet.exe': {'exists': True, 'sha256': 'aa'}, RECORD: {'exists': True, 'sha256': 'bb'}}
    return snapshot(**dict({'contents': contents, 'files': files}, **changes))


def _decide(state, inputs, now=None):
    return _converged.decide(state, inputs, now=now)[:2]


def test_a_snapshot_matching_the_record_of_the_same_inputs_is_converged():
    assert _decide(recorded(), 'in-1', now=NOW + 1) == (True, [])


def test_no_snapshot_no_record_or_another_record_version_is_not_converged():
    assert _decide(None, 'in-1')[0] is False
    assert _decide(snapshot(), 'in-1', now=NOW)[1] == [
        'the node has no convergence record (%s)' % RECORD]
    other = json.loads(recorded()['contents'][RECORD]['text'])
    other['version'] = _converged.RECORD_VERSION + 1
    stale = recorded(contents={RECORD: {'exists': True, 'text': json.dumps(other)}})
    assert _decide(stale, 'in-1', now=NOW)[0] is False
    garbled = recorded(contents={RECORD: {'exists': True, 'text': '{"version": 1,'}})
    assert _decide(garbled, 'in-1', now=NOW)[0] is False


def test_an_expired_snapshot_is_not_converged():
    converged, reasons = _decide(recorded(), 'in-1', now=NOW + _snapshot.DEFAULT_MAX_AGE + 1)
    assert not converged and reasons == ['the snapshot is incomplete or older than its max_age']


def test_other_inputs_are_not_converged():
    assert _decide(recorded(), 'in-2', now=NOW) == (
        False, ['the plan, the role variables or the collection changed since the record'])


def test_each_changed_section_is_named():
    services = {'kubelet': {'exists': True, 'state': 'stopped'}}
    files = {'C:\\k\\kubelet.exe': {'exists': True, 'sha256': 'cc'}, RECORD: {'exists': True, 'sha256': 'bb'}}
    assert _decide(recorded(services=services, files=files), 'in-1', now=NOW) == (
        False, ['the node changed since the record: services, files'])
    assert _decide(recorded(reboot_pending=True), 'in-1', now=NOW)[1] == [
        'the node changed since the record: features']


def test_what_changes_on_a_healthy_node_is_not_compared():
    healthy = recorded(
        os={'build': 20348, 'ubr': 2582, 'last_boot': '2026-11-24T01:00:00+00:00', 'system_drive_free_bytes': 99},
        hns={'available': True, 'networks': [{'name': 'flannel.4096'}, {'name': 'External'}],
             'endpoints': [], 'policy_lists': [{'id': 'lb'}, {'id': 'lb2'}]},
        adapters=[{'name': 'vEthernet (Ethernet)', 'if_index': 5}, {'name': 'Ethernet', 'if_index': 4}])
    assert _decide(healthy, 'in-1', now=NOW) == (True, []), 'boot time, free space, pods, order'
    patched = recorded(os={'build': 20348, 'ubr': 2600, 'last_boot': '', 'system_drive_free_bytes': 10})
    assert _decide(patched, 'in-1', now=NOW)[1] == ['the node changed since the record: os']


def test_what_the_kubelet_writes_for_its_graceful_shutdown_is_not_compared():
    # It writes its service's pre-shutdown time-out and its place in the order at each start, once its shutdown
    # manager runs (after the service reports Running); the doctor, not the record, holds them to the grace period.
    registered = {'kubelet': {'exists': True, 'state': 'running', 'preshutdown_timeout_ms': 60000,
                              'preshutdown_ordered': True}}
    assert _decide(recorded(services=registered), 'in-1', now=NOW) == (True, [])
    stopped = {'kubelet': dict(registered['kubelet'], state='stopped')}
    assert _decide(recorded(services=stopped), 'in-1', now=NOW)[1] == ['the node changed since the record: services']


def test_a_network_created_again_with_another_id_is_the_same_network():
    """flanneld's vxlan network comes back after a boot with a new id (EnableNonPersistent)."""
    def hns(vxlan):
        return {'available': True, 'endpoints': [], 'policy_lists': [],
                'networks': [{'id': 'a1', 'name': 'External', 'type': 'Overlay'}, vxlan]}
    vxlan = {'id': 'b2', 'name': 'flannel.4096', 'type': 'Overlay', 'subnets': [{'address_prefix': '10.244.7.0/24'}]}
    text = _converged.record_text(snapshot(hns=hns(vxlan)), 'in-1', _converged.credentials_digest({}))
    contents = {RECORD: {'exists': True, 'text': text}}
    booted = snapshot(contents=contents, hns=hns(dict(vxlan, id='c3')))
    assert _decide(booted, 'in-1', now=NOW) == (True, [])
    moved = snapshot(contents=contents, hns=hns(dict(vxlan, id='c3', subnets=[{'address_prefix': '10.244.8.0/24'}])))
    assert _decide(moved, 'in-1', now=NOW)[1] == ['the node changed since the record: hns']


def test_the_record_is_not_part_of_what_it_records():
    before = _converged.section_digests(snapshot())
    after = _converged.section_digests(recorded())
    assert before == after


def test_inputs_are_the_plan_the_kubewin_variables_and_the_role_options():
    names = ['plan_node', 'plan_cluster', 'kubewin_topology', 'kubelet_verbosity', 'flannel_version',
             'control_plane_credentials', 'kubewin_node', 'kubewin_early_end', 'prerequisites_features_result',
             'prerequisites_versions', 'ansible_host', 'inventory_hostname', 'site_converged', 'prerequisites_proxy']
    assert _converged.input_names(names) == sorted([
        'flannel_version', 'kubelet_verbosity', 'kubewin_topology', 'plan_cluster',
        'plan_node', 'prerequisites_proxy'])


def test_the_inputs_digest_follows_every_value_and_the_collection():
    base = {'plan_node': {'pod_cidr': '10.244.1.0/24'}, 'kubelet_verbosity': 2}
    same = copy.deepcopy(base)
    assert _converged.inputs_digest(base) == _converged.inputs_digest(same)
    assert _converged.inputs_digest(base) != _converged.inputs_digest(dict(base, kubelet_verbosity=4))


def test_the_collection_fingerprint_changes_with_any_file(tmp_path, monkeypatch):
    (tmp_path / 'roles' / 'kubelet' / 'templates').mkdir(parents=True)
    template = tmp_path / 'roles' / 'kubelet' / 'templates' / 'config.yaml.j2'
    template.write_text('a: 1\n', encoding='utf-8')
    monkeypatch.setattr(_converged, 'COLLECTION_ROOT', str(tmp_path))
    _converged.collection_fingerprint.cache_clear()
    try:
        first = _converged.collection_fingerprint()
        template.write_text('a: 2\n', encoding='utf-8')
        _converged.collection_fingerprint.cache_clear()
        assert _converged.collection_fingerprint() != first
    finally:
        _converged.collection_fingerprint.cache_clear()


def test_the_recorded_credentials_decide_which_converged_hosts_skip_the_node_play():
    credentials = {'token': 't1'}
    decision = _converged.decide(recorded(), 'in-1', now=NOW)
    assert decision[2] == _converged.credentials_digest(credentials)
    decisions = {'win1': {'converged': True, 'credentials': decision[2]},
                 'win2': {'converged': False, 'credentials': decision[2]},
                 'win3': {'converged': True, 'credentials': _converged.credentials_digest({'ca_cert_hash': 'old'})},
                 'win4': {}}
    assert _converged.converged_hosts(decisions, credentials) == ['win1']
    assert _converged.converged_hosts(decisions, {'ca_cert_hash': 'rotated'}) == []
    assert _converged.converged_hosts(decisions, {'ca_cert_hash': 'old'}) == ['win3']


def test_a_new_bootstrap_token_alone_does_not_send_a_converged_node_through_the_node_play():
    # The token is replaced before it expires; a joined node does not use it again.
    old = {'api_endpoint': 'https://10.0.0.10:6443', 'token': 'abcdef.0123456789abcdef', 'bootstrap_kubeconfig': 'k1'}
    rotated = dict(old, token='ghijkl.0123456789abcdef', bootstrap_kubeconfig='k2')
    decisions = {'win1': {'converged': True, 'credentials': _converged.credentials_digest(old)}}
    assert _converged.converged_hosts(decisions, rotated) == ['win1']
    assert _converged.converged_hosts(decisions, dict(rotated, api_endpoint='https://10.0.0.11:6443')) == []


def test_the_variables_only_the_playbooks_read_are_not_inputs():
    # Another report folder or batch size is the same node (a node re-run from AWX with another report folder
    # would otherwise take the full path).
    names = ['kubewin_report_dir', 'kubewin_plan_dir', 'kubewin_serial', 'kubewin_max_fail_percentage',
             'kubewin_early_end', 'kubewin_unchecked_variables', 'kubewin_cluster_kubeconfig', 'kubewin_topology']
    assert _converged.input_names(names) == ['kubewin_topology']


def test_the_early_end_of_the_fleet_needs_every_windows_node_converged():
    converged = {'prerequisites_converged': {'converged': True}}
    groups = {'windows_nodes': ['win1', 'win2'], 'kube_control_plane': ['cp1']}
    both = {'win1': converged, 'win2': converged, 'cp1': {}}
    assert _converged.early_end(both, groups) == {'hosts': ['win1', 'win2'], 'fleet': True}
    # A node whose decision says otherwise, or that has none (its snapshot failed; --limit left it out).
    for win2 in ({'prerequisites_converged': {'converged': False}}, {}):
        assert _converged.early_end(dict(both, win2=win2), groups) == {'hosts': ['win1'], 'fleet': False}
    assert _converged.early_end({}, {'windows_nodes': []}) == {'hosts': [], 'fleet': False}
