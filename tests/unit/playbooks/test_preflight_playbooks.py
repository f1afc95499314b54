"""plan.yml and the first play of site.yml refuse a broken inventory with every problem at once, one line each,
before any host is contacted.

One run of each playbook, over an inventory that combines representative cases of the held-out set
(tests/unit/test_data/broken_inventories.yml; every case is checked against the filter itself in
tests/unit/plugins/plugin_utils/test_preflight.py). site.yml runs under the simulation, whose nodes
count every remote call.
"""

import os
import re
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'unit', 'plugins', 'plugin_utils'))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402

import test_preflight  # noqa: E402

CASES = {case['id']: case for case in test_preflight.BROKEN['cases']}


def combined(*ids, groups=None):
    """One inventory file's content with the changes of several cases (they touch different variables)."""
    merged = {'all': {}, 'hosts': {}, 'groups': groups}
    for case_id in ids:
        merged['all'].update(CASES[case_id].get('all') or {})
        for host, values in (CASES[case_id].get('hosts') or {}).items():
            merged['hosts'].setdefault(host, {}).update(values)
    hostvars, groups = test_preflight.inventory(merged)
    base_all = test_preflight.BROKEN['base']['all']
    every = {name: value for name, value in base_all.items() if merged['all'].get(name, value) is not None}
    every.update({name: value for name, value in merged['all'].items() if value is not None})
    document = {'all': {'vars': every, 'children': {}}}
    for group, members in groups.items():
        document['all']['children'][group] = {'hosts': {
            host: {name: value for name, value in hostvars[host].items() if name not in every or every[name] != value}
            for host in members}}
    return document, [line for case_id in ids for line in [CASES[case_id]['expect']]]


def assert_refused(run, expected, playbook):
    # Every problem is listed once, a line each (a debug task: a fail task's message would be printed twice), and the
    # run fails saying how many.
    listed = run.result('List every problem of the inventory', 'localhost')['result']['msg']
    assert re.fullmatch(r'\d+ problem\(s\) in the inventory for %s, found before any host was contacted:' % playbook,
                        listed[0]), listed
    for texts in expected:
        assert any(line.startswith('- ') and all(text in line for text in texts) for line in listed), (texts, listed)
    failed = run.result('Refuse the inventory', 'localhost')['result']['msg']
    assert re.fullmatch(r'\d+ problem\(s\) in the inventory for %s, listed above; no host was contacted\.' % playbook,
                        failed), failed
    # Printed once (the callback may wrap a long line: compared with its whitespace folded).
    assert ' '.join(run.output.split()).count(' '.join(listed[1][:60].split())) == 1, 'a problem is printed once'
    # The problems arrive as the message of a task, not inside a failed template's wrapping.
    assert 'Finalization of task args' not in run.output and '_AnsibleLazyTemplate' not in run.output


def test_plan_yml_refuses_with_every_problem_and_writes_nothing(tmp_path):
    sim = Simulation(tmp_path)
    document, expected = combined('typo-node-prefix-length', 'typo-max-pods', 'flanneld-without-pin',
                                  'unquoted-minor-read-as-float', 'typo-role-variable', 'dictionary-where-a-cidr-belongs')
    inventory = sim.write('hosts.yml', yaml.safe_dump(document))
    result = sim.run('playbooks/plan.yml', inventory, '-e', 'kubewin_plan_dir=%s' % (tmp_path / 'plan'))
    assert result.rc == 2, result.output
    assert_refused(result, expected, 'site.yml')
    assert not (tmp_path / 'plan').exists()


def test_site_yml_refuses_in_its_first_play_before_any_remote_call(tmp_path):
    sim = Simulation(tmp_path)
    document, expected = combined('no-control-plane-group', 'one-docker-node-without-cri-dockerd-pin',
                                  'typo-topology-on-one-host', 'text-where-a-number-belongs',
                                  groups={'windows_nodes': ['win-1', 'win-2', 'win-3']})
    inventory = sim.write('hosts.yml', yaml.safe_dump(document))
    for host in ('win-1', 'win-2', 'win-3'):
        with sim.edit_node(host, profile={'build': 20348}):
            pass  # the node exists, so its call counter does
    result = sim.run('playbooks/site.yml', inventory)
    assert result.rc == 2, result.output
    assert_refused(result, expected, 'site.yml')
    assert set(result.stats) == {'localhost'}, 'only the controller play ran'
    # No Windows node took part: the kubewin.node.fleet_report callback writes no report of the stopped run.
    assert result.report is None and 'Fleet report' not in result.output, result.output
    assert {host: calls['total'] for host, calls in result.calls.items()} == {'win-1': 0, 'win-2': 0, 'win-3': 0}
    assert result.api_calls['total'] == 0


CALICO = {'kubewin_topology': 'calico', 'kubewin_cluster_cidr': '192.168.0.0/16', 'kubewin_calico_version': '3.30.3'}


def test_plan_yml_renders_calico_with_either_backend(tmp_path):
    # site.yml converges both (network_calico; tests/unit/playbooks/test_network_calico.py).
    sim = Simulation(tmp_path)
    document = combined(groups={'windows_nodes': ['win-1', 'win-2', 'win-3'], 'kube_control_plane': ['cp1']})[0]
    document['all']['vars'].update(CALICO)
    inventory = sim.write('hosts.yml', yaml.safe_dump(document))
    plan_dir = tmp_path / 'plan'
    rendered = sim.run('playbooks/plan.yml', inventory, '-e', 'kubewin_plan_dir=%s' % plan_dir)
    assert rendered.rc == 0, rendered.output
    flat = ' '.join(rendered.output.split())
    assert 'will refuse' not in flat
    summary = (plan_dir / 'summary.txt').read_text()
    assert summary.startswith('kubewin.node IP plan: calico (vxlan), 3 Windows node(s)')
    assert 'VXLAN                 VNI 4096, UDP port 4789' in summary and 'Placeholder network' not in summary
    assert 'IP pool 192.168.0.0/16 with blockSize 26' in summary and 'a Calico IPAM block' in summary
    # The operator's calico-node-windows writes the CNI config; the plan renders no file per node.
    assert sorted(path.name for path in plan_dir.iterdir()) == ['ip-plan.svg', 'summary.txt']
    assert 'calico (vxlan)' in (plan_dir / 'ip-plan.svg').read_text()

    document['all']['vars']['kubewin_calico_backend'] = 'bgp'
    bgp_dir = tmp_path / 'bgp'
    rendered = sim.run('playbooks/plan.yml', sim.write('bgp.yml', yaml.safe_dump(document)),
                       '-e', 'kubewin_plan_dir=%s' % bgp_dir)
    assert rendered.rc == 0, rendered.output
    assert 'will refuse' not in ' '.join(rendered.output.split())
    assert (bgp_dir / 'summary.txt').read_text().startswith('kubewin.node IP plan: calico (bgp), 3 Windows node(s)')
    assert 'calico (bgp)' in (bgp_dir / 'ip-plan.svg').read_text()
