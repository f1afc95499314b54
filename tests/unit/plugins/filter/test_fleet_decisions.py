# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.fleet_decisions: which hosts each play of site.yml touches, each a decision with a name, and the plays
reading one of them each."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kubewin.node.plugins.filter import fleet_decisions as filter_module

ROOT = Path(__file__).resolve().parents[4]
# Inventory order, not sorted: the node play's serial batches follow it.
GROUPS = {'windows_nodes': ['win2', 'win1', 'win3'], 'kube_control_plane': ['cp1']}
CONVERGED = {'prerequisites_converged': {'converged': True}}
NOT_CONVERGED = {'prerequisites_converged': {'converged': False}}
# A play's hosts: a host pattern, or one decision.
DECISION = re.compile(r'^\{\{ \(hostvars \| kubewin\.node\.fleet_decisions\(groups\)\)\.([a-z_]+) \}\}$')


def decisions(hostvars, groups=None):
    return filter_module.fleet_decisions(hostvars, groups or GROUPS)


def test_before_any_node_decided_every_node_is_prepared_and_converged():
    found = decisions({'win1': {}, 'win2': {}, 'win3': {}, 'cp1': {}})
    assert found == {'ended_early': [], 'fleet_ended_early': False, 'to_prepare': ['win2', 'win1', 'win3'],
                     'converged': [], 'to_converge': ['win2', 'win1', 'win3'], 'cluster_side': ['cp1'],
                     'to_prepare_cluster': ['cp1']}


def test_a_node_that_ended_early_skips_the_node_play_only_when_the_control_plane_play_found_it_converged():
    hostvars = {'win1': CONVERGED, 'win2': NOT_CONVERGED, 'win3': CONVERGED}
    found = decisions(hostvars)
    assert (found['ended_early'], found['to_prepare'], found['to_converge']) == (
        ['win1', 'win3'], ['win2'], ['win2', 'win1', 'win3'])
    # The control-plane play handed out the credentials win3 was recorded with, not win1's.
    found = decisions(hostvars, dict(GROUPS, kubewin_converged=['win3']))
    assert (found['converged'], found['to_converge'], found['to_prepare_cluster']) == (
        ['win3'], ['win2', 'win1'], ['cp1'])


def test_when_every_node_ended_early_no_play_but_verify_has_anything_to_do():
    found = decisions({'win1': CONVERGED, 'win2': CONVERGED, 'win3': CONVERGED})
    assert found == {'ended_early': ['win1', 'win2', 'win3'], 'fleet_ended_early': True, 'to_prepare': [],
                     'converged': ['win2', 'win1', 'win3'], 'to_converge': [], 'cluster_side': ['cp1'],
                     'to_prepare_cluster': []}
    # A node without a decision (its snapshot failed, --limit left it out) keeps the fleet from ending early.
    assert not decisions({'win1': CONVERGED, 'win2': CONVERGED, 'win3': {}})['fleet_ended_early']


def test_the_cluster_side_follows_kubewin_cluster_api():
    hostvars = {'localhost': {'kubewin_cluster_kubeconfig': '/runner/k'}, 'win1': CONVERGED}
    found = decisions(hostvars, {'windows_nodes': ['win1']})
    assert (found['cluster_side'], found['to_prepare_cluster']) == (['localhost'], [])
    assert decisions({}, {'windows_nodes': ['win1']})['cluster_side'] == []


def _template(expression, variables):
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(expression))


def test_without_hostvars_as_a_syntax_check_templates_hosts_no_node_decided():
    """ansible-playbook --syntax-check (and ansible-lint) template a play's hosts before any host variable exists."""
    assert _template('{{ (hostvars | kubewin.node.fleet_decisions(groups)).to_converge }}', {'groups': GROUPS}) == [
        'win2', 'win1', 'win3']


def test_each_play_reads_one_named_decision_or_a_host_pattern():
    names = set(decisions({}))
    read = {}
    for path in sorted((ROOT / 'playbooks').glob('*.yml')):
        for play in yaml.safe_load(path.read_text(encoding='utf-8')):
            hosts = play['hosts']
            if '{{' not in hosts:
                assert re.match(r'^[a-z_:]+$', hosts), (path.name, play['name'], hosts)
                continue
            match = DECISION.match(hosts)
            assert match and match.group(1) in names, (path.name, play['name'], hosts)
            read.setdefault(path.stem, []).append(match.group(1))
    assert read == {'doctor': ['cluster_side'],
                    'site': ['to_prepare_cluster', 'to_prepare', 'to_prepare_cluster', 'to_converge', 'cluster_side']}
    # The control-plane play names the group the node play's decision reads.
    plays = yaml.safe_load((ROOT / 'playbooks' / 'site.yml').read_text(encoding='utf-8'))
    control_plane = [play for play in plays if play['name'] == 'Prepare the control plane for Windows nodes'][0]
    assert control_plane['tasks'][0]['ansible.builtin.add_host']['groups'] == ['kubewin_converged']
