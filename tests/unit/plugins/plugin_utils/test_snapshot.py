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


LAYOUT = {'sections': ['files', 'folders', 'firewall', 'services', 'hns'],
          'files': {'C:\\k\\kubelet.exe': {'exists': True, 'type': 'file', 'sha256': 'ab' * 32}},
          'folders': {'C:\\k': ['kubelet.exe', 'staging'], 'C:\\ProgramData\\kubewin': ['managed.json'],
                      'C:\\etc\\cni\\net.d': None},
          'firewall': {'kubewin-kubelet': {'name': 'kubewin-kubelet', 'exists': True}},
          'services': {'containerd': {'name': 'containerd', 'exists': True, 'state': 'running'},
                       'kubelet': {'name': 'kubelet', 'exists': False}},
          'hns': {'available': True, 'networks': [], 'endpoints': [], 'policy_lists': []}}


def test_a_file_the_folder_listing_leaves_out_and_a_managed_rule_not_listed_are_known_absent():
    snapshot = _snapshot.merge(None, LAYOUT, now=100.0)
    known = ['C:\\k\\kubeadm.exe', 'C:\\K\\KUBEADM.EXE', 'C:\\etc\\cni\\net.d\\10-kubewin.conf',
             'C:\\ProgramData\\kubewin\\log-rotation\\rotate.ps1', 'C:\\ProgramData\\kubewin\\converged.json']
    for path in known:
        assert _snapshot.covers(snapshot, ('files',), {'files': [path]}, now=101.0), path
        assert _snapshot.extract(snapshot, ('files',), {'files': [path]})['files'] == {path: {'exists': False}}
    # Listed but not read (its state is unknown), under a listed entry, or outside every folder: a read is needed.
    for path in ('C:\\k\\staging\\kubelet.exe', 'C:\\ProgramData\\kubewin\\managed.json', 'C:\\other\\file'):
        assert not _snapshot.covers(snapshot, ('files',), {'files': [path]}, now=101.0), path
    assert _snapshot.extract(snapshot, ('files',), {'files': ['C:\\k\\kubelet.exe']})['files'] == {
        'C:\\k\\kubelet.exe': LAYOUT['files']['C:\\k\\kubelet.exe']}
    # An expired folder listing says nothing.
    assert not _snapshot.covers(snapshot, ('files',), {'files': [known[0]]}, now=100.0 + _snapshot.DEFAULT_MAX_AGE + 1)
    # Every kubewin-* rule is listed, so one not there is absent; another name needs a read.
    assert _snapshot.extract(snapshot, ('firewall',), {'firewall': ['kubewin-vxlan']})['firewall'] == {
        'kubewin-vxlan': {'name': 'kubewin-vxlan', 'exists': False}}
    assert not _snapshot.covers(snapshot, ('firewall',), {'firewall': ['Core Networking']}, now=101.0)


def test_an_apply_that_wrote_under_a_folder_makes_the_snapshot_forget_what_it_held_there():
    held = dict(LAYOUT, sections=LAYOUT['sections'] + ['contents'],
                folders=dict(LAYOUT['folders'], **{'C:\\k\\staging': [], 'C:\\': ['k', 'etc']}),
                contents={'C:\\k\\flags.env': {'exists': False, 'text': None}})
    snapshot = _snapshot.merge(None, held, now=100.0)
    forgotten = _snapshot.forget(snapshot, ['C:\\k\\'])
    # The files, texts and listings under the folder, and the listing on the way to it; nothing else.
    assert 'C:\\k\\kubelet.exe' not in forgotten['files'] and forgotten['contents'] == {}
    assert set(forgotten['folders']) == {'C:\\ProgramData\\kubewin', 'C:\\etc\\cni\\net.d'}
    assert forgotten['firewall'] == snapshot['firewall'] and 'C:\\k\\kubelet.exe' in snapshot['files']
    # A file it called absent from the stale listing now needs a read, even to do nothing.
    assert _snapshot.covers(snapshot, ('files',), {'files': ['C:\\k\\kubeadm.exe']}, now=101.0)
    assert not _snapshot.covers(forgotten, ('files',), {'files': ['C:\\k\\kubeadm.exe']}, now=101.0)
    # The apply's own read of the folder, folded in after, answers again.
    fresh = _snapshot.merge(forgotten, {'sections': ['folders'], 'folders': {'C:\\k': ['kubelet.exe']}}, now=102.0)
    assert _snapshot.covers(fresh, ('files',), {'files': ['C:\\k\\kubeadm.exe']}, now=103.0)
    assert _snapshot.forget(snapshot, []) is snapshot


def test_trust_is_the_runs_that_took_the_snapshot_and_ends_where_a_change_may_have_moved_things():
    snapshot = _snapshot.trust(_snapshot.merge(None, LAYOUT, now=100.0), 'run-1')
    # containerd runs: it keeps changing its own folders, nothing the other sections hold.
    assert snapshot['trusted']['distrusted'] == {'files': ['C:\\ProgramData\\containerd\\']}
    files = {'files': ['C:\\k\\kubeadm.exe']}
    assert _snapshot.trusted(snapshot, 'run-1', ('files',), files)
    assert not _snapshot.trusted(snapshot, 'run-2', ('files',), files), 'another run (a fact cache)'
    assert not _snapshot.trusted(snapshot, None, ('files',), files), 'a controller that cannot name its run'
    assert not _snapshot.trusted(snapshot, 'run-1', ('adapters',), {}), 'never read'
    assert not _snapshot.trusted(snapshot, 'run-1', ('files',), {'files': ['C:\\ProgramData\\containerd\\root\\x']})
    # The kubelet starts: the network sections and its folders are no longer trusted, the rest still is.
    started = _snapshot.distrust(snapshot, _snapshot.program_effects('kubelet'))
    assert not _snapshot.trusted(started, 'run-1', ('hns',), {})
    assert not _snapshot.trusted(started, 'run-1', ('files',), {'files': ['C:\\var\\lib\\kubelet\\config.yaml']})
    assert _snapshot.trusted(started, 'run-1', ('files', 'firewall'), dict(files, firewall=['kubewin-vxlan']))
    # A service the collection does not know may change anything.
    unknown = _snapshot.distrust(snapshot, _snapshot.program_effects('someagent'))
    assert not any(_snapshot.trusted(unknown, 'run-1', (section,), {}) for section in LAYOUT['sections'])
    # A file known absent from its folder's listing needs the listing trusted too.
    moved = _snapshot.distrust(snapshot, {'folders': [_snapshot.EVERYTHING]})
    assert not _snapshot.trusted(moved, 'run-1', ('files',), files)
    assert _snapshot.trusted(moved, 'run-1', ('files',), {'files': ['C:\\k\\kubelet.exe']})
    # The snapshot of the next whole read of a node whose kubelet runs starts without trusting what the kubelet moves.
    kubelet = {'name': 'kubelet', 'exists': True, 'state': 'running'}
    running = dict(LAYOUT, services=dict(LAYOUT['services'], kubelet=kubelet))
    again = _snapshot.trust(_snapshot.merge(None, running, now=200.0), 'run-1')
    assert not _snapshot.trusted(again, 'run-1', ('hns',), {})
    assert _snapshot.trust(_snapshot.merge(None, running), None).get('trusted') is None


def test_run_id_names_the_controller_process_of_this_run():
    run = _snapshot.run_id()
    if run is not None:  # a controller with /proc
        assert run == _snapshot.run_id() and ':%d:' % __import__('os').getppid() in run


def test_a_program_s_folders_follow_the_node_layout_the_plan_gives():
    moved = {'kubelet_dir': 'D:\\kubelet', 'flannel_run_dir': 'D:\\run\\flannel\\'}
    assert _snapshot.program_effects('kubelet', moved)['files'] == ['D:\\kubelet\\']
    assert _snapshot.program_effects('flanneld', moved)['contents'] == ['D:\\run\\flannel\\']
    assert _snapshot.program_effects('kubelet')['files'] == ['C:\\var\\lib\\kubelet\\']
    kubelet = {'name': 'kubelet', 'exists': True, 'state': 'running'}
    snapshot = _snapshot.trust(_snapshot.merge(None, dict(LAYOUT, services={'kubelet': kubelet})), 'run-1', moved)
    assert not _snapshot.trusted(snapshot, 'run-1', ('files',), {'files': ['D:\\kubelet\\config.yaml']})
    assert _snapshot.trusted(snapshot, 'run-1', ('files',), {'files': ['C:\\var\\lib\\kubelet\\config.yaml']})
