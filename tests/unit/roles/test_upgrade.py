"""The upgrade role alone: which node it drains, and a node that does not come back at the new version."""

PLAYBOOK = '''
- name: Upgrade
  hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: Snapshot
      kubewin.node.node_info:
        files: ['C:\\etc\\kubernetes\\kubelet.conf']
    - name: What the plan and prerequisites roles hand the node
      ansible.builtin.set_fact:
        # The plan role's node_name: kubewin_node_name, else the inventory name lower-cased (_node_plan.node_name).
        plan_node: {node_name: "{{ inventory_hostname | lower }}"}
        plan_paths: {kubernetes_config_dir: 'C:\\etc\\kubernetes', kubelet_dir: 'C:\\var\\lib\\kubelet'}
        prerequisites_versions: {kubernetes_version: 1.32.13, installed_version: "{{ installed }}",
                                 upgrade: "{{ installed != '1.32.13' }}"}
    - name: Drain
      ansible.builtin.include_role:
        name: kubewin.node.upgrade
      vars:
        upgrade_step: drain
    - name: Uncordon
      ansible.builtin.include_role:
        name: kubewin.node.upgrade
      vars:
        upgrade_step: uncordon
        upgrade_ready_timeout: 1
        upgrade_poll_interval: 1
'''


def test_a_node_that_is_not_ready_at_the_new_version_stays_cordoned(sim, inventory, joined):
    joined()
    book = sim.write('upgrade.yml', PLAYBOOK)
    hosts = inventory()
    # win1 runs 1.31.14 and is upgraded; win2 is at 1.32.13 already.
    run = sim.run(book, hosts, '-e', '{"installed": "1.31.14"}', '--limit', 'win1,cp1')
    assert run.rc != 0, run.output
    # The simulated kubelet was never replaced, so the Node still reports the control plane's version.
    message = run.result('Fail naming what the node reports; it stays cordoned', 'win1')['result']['msg']
    assert message == ('win1 was drained for the upgrade to kubelet 1.32.13, but after 1 s it reports kubelet '
                       'v1.31.4. It stays cordoned: find the cause (the kubelet\'s log on the node), then run the '
                       'playbook again: it finishes the upgrade.'), message
    assert sim.cluster().data['objects']['Node']['win1']['spec']['unschedulable'] is True
    assert 'k8s_drain:uncordon' not in run.api_calls['by_kind']

    stays = sim.run(book, hosts, '-e', '{"installed": "1.32.13"}', '--limit', 'win2,cp1')
    assert stays.rc == 0, stays.output
    assert stays.changed('win2') == 0 and stays.calls['win2']['total'] == 1
    assert not stays.api_calls['by_kind'], 'a node whose kubelet stays is not drained'
