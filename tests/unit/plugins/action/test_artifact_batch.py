"""kubewin.node.artifact_batch against a simulated node and web: several artifacts in one remote call."""

import hashlib

from kubewin_sim import web

BASE = 'https://dl.k8s.io/release/v1.31.4/bin/windows/amd64/'
KUBELET = BASE + 'kubelet.exe'
PROXY = BASE + 'kube-proxy.exe'


def sha(url):
    return 'sha256:' + hashlib.sha256(web.body(url)).hexdigest()


def playbook(sim, kubelet_checksum=None, names=('kubelet', 'kube-proxy'), name='batch.yml'):
    return sim.write(name, '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: binaries
      kubewin.node.artifact_batch:
        artifacts:
          - {{name: {names[0]}, url: "{kubelet}", dest: 'C:\\k\\kubelet.exe', checksum: "{kubelet_sha}", version: 1.31.4}}
          - {{component: {names[1]}, url: "{proxy}", dest: 'C:\\k\\kube-proxy.exe', checksum: "{proxy_sha}"}}
'''.format(names=names, kubelet=KUBELET, proxy=PROXY, kubelet_sha=kubelet_checksum or sha(KUBELET), proxy_sha=sha(PROXY)))


def results(run):
    return {entry['name']: entry for entry in run.result('binaries', 'win1')['result']['results']}


def test_one_call_installs_every_artifact_and_a_rerun_none(sim, one_node):
    inventory, book = one_node(), playbook(sim)
    check = sim.run(book, inventory, '--check', '-v')
    assert check.rc == 0 and check.result('binaries', 'win1')['changed'], check.output
    assert [entry['download']['status'] for entry in results(check).values()] == ['pending', 'pending']
    assert sim.node('win1').file('C:\\k\\kubelet.exe') is None
    run = sim.run(book, inventory, '-v')
    assert run.rc == 0, run.output
    assert run.calls['win1']['by_kind'].get('win_powershell:artifact_fetch') == 1, run.calls['win1']
    outcome = {name: (entry['changed'], entry['download']['status'], entry['attempts'])
               for name, entry in results(run).items()}
    assert outcome == {'kubelet': (True, 'downloaded', 1), 'kube-proxy': (True, 'downloaded', 1)}
    assert '<win1> kubelet.exe: ' in run.output and '<win1> kube-proxy.exe: ' in run.output
    registry = sim.node('win1').managed_registry()['artifacts']
    assert registry['C:\\k\\kubelet.exe']['version'] == '1.31.4' and 'version' not in registry['C:\\k\\kube-proxy.exe']
    again = sim.run(book, inventory)
    assert again.rc == 0 and again.changed('win1') == 0 and again.calls['win1']['total'] == 1
    assert {entry['download']['status'] for entry in results(again).values()} == {'present'}


def test_only_what_differs_is_installed(sim, one_node):
    inventory = one_node()
    assert sim.run(playbook(sim), inventory).rc == 0
    with sim.edit_node('win1') as node:
        node.remove_file('C:\\k\\kube-proxy.exe')
    run = sim.run(playbook(sim), inventory, '--diff')
    assert run.rc == 0, run.output
    assert {name: entry['changed'] for name, entry in results(run).items()} == {'kubelet': False, 'kube-proxy': True}
    diff = run.result('binaries', 'win1')['result']['diff']
    assert list(diff['after']) == ['kube-proxy'] and diff['before']['kube-proxy']['files'] == {}
    assert web.requests(sim.state_dir).count(PROXY) == 2 and web.requests(sim.state_dir).count(KUBELET) == 1


def test_a_failing_artifact_is_named_and_the_others_are_installed(sim, one_node):
    inventory = one_node()
    run = sim.run(playbook(sim, kubelet_checksum=sha(PROXY)), inventory)
    failed = run.result('binaries', 'win1')['result']
    assert run.rc != 0, run.output
    assert 'could not install 1 of 2 artifacts' in failed['msg'] and 'kubelet: checksum mismatch' in failed['msg']
    assert sim.node('win1').file('C:\\k\\kubelet.exe') is None
    assert sim.node('win1').file('C:\\k\\kube-proxy.exe')['sha256'] == sha(PROXY).split(':')[1]
    # The re-run installs only the one that failed.
    fixed = sim.run(playbook(sim), inventory)
    assert fixed.rc == 0 and {name: entry['changed'] for name, entry in results(fixed).items()} == {
        'kubelet': True, 'kube-proxy': False}


def test_two_artifacts_of_one_name_are_refused_before_the_node_is_asked(sim, one_node):
    inventory = one_node()
    run = sim.run(playbook(sim, names=('kubelet', 'kubelet')), inventory)
    failed = run.result('binaries', 'win1')['result']
    assert run.rc != 0 and 'must differ in their name' in failed['msg'] and 'kubelet' in failed['msg']
    assert run.calls['win1']['total'] == 1, 'the snapshot only'


def test_an_install_keeps_the_records_of_the_nodes_other_artifacts_for_the_next_task(sim, one_node):
    # kube-proxy installed in an earlier run, verified against the hash file upstream publishes (no pin: only its record
    # says it is installed); this run installs the kubelet, then a task asks for kube-proxy again: its record must
    # still be in the snapshot (the install folds the others back), or it would be downloaded again.
    inventory = one_node()
    first = sim.write('first.yml', '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - kubewin.node.artifact_batch:
        artifacts: [{{name: kube-proxy, url: "{proxy}", dest: 'C:\\k\\kube-proxy.exe', checksum: "{proxy_sha}"}}]
'''.format(proxy=PROXY, proxy_sha='sha256:' + PROXY + '.sha256'))
    assert sim.run(first, inventory).rc == 0
    book = sim.write('second.yml', '''
- hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: kubelet
      kubewin.node.artifact_batch:
        artifacts: [{{name: kubelet, url: "{kubelet}", dest: 'C:\\k\\kubelet.exe', checksum: "{kubelet_sha}"}}]
    - name: kube-proxy again
      kubewin.node.artifact:
        url: "{proxy}"
        dest: C:\\k\\kube-proxy.exe
        checksum: "{proxy_sha}"
'''.format(kubelet=KUBELET, kubelet_sha=sha(KUBELET), proxy=PROXY, proxy_sha='sha256:' + PROXY + '.sha256'))
    run = sim.run(book, inventory)
    assert run.rc == 0, run.output
    assert not run.result('kube-proxy again', 'win1')['changed']
    assert web.requests(sim.state_dir).count(PROXY) == 1, 'downloaded once, in the first run'
