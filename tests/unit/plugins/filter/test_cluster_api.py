# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.cluster_api: the one rule for where the cluster-side steps run, as the plays and role defaults use it."""

from __future__ import annotations

from pathlib import Path

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kubewin.node.plugins.filter import cluster_api as filter_module

ROOT = Path(__file__).resolve().parents[4]
GROUPS = {'windows_nodes': ['win1', 'win2'], 'kube_control_plane': ['cp1', 'cp2']}


def test_without_a_kubeconfig_the_first_control_plane_host_with_become_and_admin_conf():
    found = filter_module.cluster_api({'win1': {}, 'cp1': {}}, GROUPS)
    assert found == {'hosts': ['cp1'], 'host': 'cp1', 'kubeconfig': '/etc/kubernetes/admin.conf', 'become': True,
                     'controller': False}


def test_with_a_kubeconfig_localhost_without_become_whatever_the_groups():
    hostvars = {'localhost': {'kubewin_cluster_kubeconfig': '/runner/env/kubeconfig'}}
    for groups in (GROUPS, {'windows_nodes': ['win1']}):
        assert filter_module.cluster_api(hostvars, groups) == {
            'hosts': ['localhost'], 'host': 'localhost', 'kubeconfig': '/runner/env/kubeconfig', 'become': False,
            'controller': True}


def test_only_what_localhost_sees_counts_and_an_empty_value_is_unset():
    # Set for the Windows nodes only: the plays on localhost would not see it (the preflight refuses this).
    assert filter_module.cluster_api({'win1': {'kubewin_cluster_kubeconfig': '/k'}}, GROUPS)['host'] == 'cp1'
    assert filter_module.cluster_api({'localhost': {'kubewin_cluster_kubeconfig': ''}}, GROUPS)['host'] == 'cp1'
    # Neither way: no host (the preflight stops the run first; a play with no hosts is skipped).
    assert filter_module.cluster_api({}, {'windows_nodes': ['win1']})['hosts'] == []


def _template(expression, variables):
    # The collection's filters are found by FQCN once the checkout is on the collections path (conftest).
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(expression))


def test_the_role_defaults_and_the_plays_use_the_filter():
    """Every default that says where the API is reached from, and both cluster plays of site.yml, go through the filter."""
    expression = '(hostvars | kubewin.node.cluster_api(groups))'
    defaults = {role: yaml.safe_load((ROOT / 'roles' / role / 'defaults' / 'main.yml').read_text(encoding='utf-8'))
                for role in ('control_plane', 'verify', 'upgrade', 'reset')}
    wired = {'control_plane': {'control_plane_kubeconfig': 'kubeconfig'}, 'verify': {'verify_kubeconfig': 'kubeconfig'},
             'upgrade': {'upgrade_control_plane_host': 'host', 'upgrade_kubeconfig': 'kubeconfig', 'upgrade_become': 'become'},
             'reset': {'reset_control_plane': 'host', 'reset_kubeconfig': 'kubeconfig', 'reset_become': 'become'}}
    controller = {'hostvars': {'localhost': {'kubewin_cluster_kubeconfig': '/runner/k'}}, 'groups': GROUPS}
    control_plane = {'hostvars': {}, 'groups': GROUPS}
    for role, names in wired.items():
        for name, key in names.items():
            assert defaults[role][name] == '{{ %s.%s }}' % (expression, key), (role, name)
            assert _template(defaults[role][name], controller) == {'host': 'localhost', 'kubeconfig': '/runner/k',
                                                                   'become': False}[key]
            assert _template(defaults[role][name], control_plane) == {'host': 'cp1', 'kubeconfig': '/etc/kubernetes/admin.conf',
                                                                      'become': True}[key]
    plays = yaml.safe_load((ROOT / 'playbooks' / 'site.yml').read_text(encoding='utf-8'))
    names = ('Check the cluster against the plan before any Windows node changes',
             'Prepare the control plane for Windows nodes', 'Verify the Windows nodes')
    cluster_plays = [play for play in plays if play['name'] in names]
    assert len(cluster_plays) == 3
    for play in cluster_plays:
        # Their hosts are kubewin.node.fleet_decisions' (test_fleet_decisions.py), made of this filter's.
        assert play['become'] == '{{ %s.become }}' % expression
