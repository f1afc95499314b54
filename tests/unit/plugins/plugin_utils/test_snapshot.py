"""The node state snapshot: coverage, expiry, merging."""

from ansible_collections.kubewin.node.plugins.plugin_utils import _snapshot

STATE = {
    'sections': ['hns', 'services', 'features'],
    'hns': {'available': True, 'networks': [{'id': 'a'}], 'endpoints': []},
    'services': {'kubelet': {'name': 'kubelet', 'exists': False}},
    'features': {'Containers': 'installed'},
    'reboot_pending': False,
}


def test_merge_then_cover_then_extract():
    snapshot = _snapshot.merge(None, STATE, now=100.0, max_age=60)
    assert snapshot['collected_at'] == {'hns': 100.0, 'services': 100.0, 'features': 100.0}
    assert _snapshot.covers(snapshot, ('hns',), {}, now=150.0)
    assert not _snapshot.covers(snapshot, ('hns',), {}, now=161.0), 'expired'
    assert not _snapshot.covers(snapshot, ('adapters',), {}, now=101.0), 'never read'
    assert _snapshot.covers(snapshot, ('services',), {'services': ['kubelet']}, now=101.0)
    assert not _snapshot.covers(snapshot, ('services',), {'services': ['kubelet', 'kube-proxy']}, now=101.0)
    extracted = _snapshot.extract(snapshot, ('services', 'features'), {'services': ['kubelet'], 'features': []})
    assert extracted == {'sections': ['services', 'features'], 'services': {'kubelet': STATE['services']['kubelet']},
                         'features': {}, 'reboot_pending': False}


def test_merge_folds_keyed_sections_and_does_not_touch_the_original():
    first = _snapshot.merge(None, STATE, now=1.0)
    update = {'sections': ['services'], 'services': {'kube-proxy': {'name': 'kube-proxy', 'exists': True}}}
    second = _snapshot.merge(first, update, now=2.0)
    assert set(second['services']) == {'kubelet', 'kube-proxy'}
    assert second['collected_at']['services'] == 2.0 and second['collected_at']['hns'] == 1.0
    assert set(first['services']) == {'kubelet'}
    assert second['max_age'] == _snapshot.DEFAULT_MAX_AGE


def test_from_task_vars():
    assert _snapshot.from_task_vars({}) is None
    assert _snapshot.from_task_vars({'ansible_facts': {'kubewin_node': {'a': 1}}}) == {'a': 1}
