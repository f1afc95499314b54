"""The reset role on a calico node: what the Tigera operator's calico-node-windows pods left (the External and Calico
HNS networks with their endpoints, the CNI config and binaries, C:\\var\\lib\\calico and C:\\var\\run\\calico, the
registry key of Calico's stored boot time, its VXLAN firewall rule) goes, check mode predicts it, and a second run changes nothing.

The node's Calico state is built in the Windows model directly, as tests/unit/simulation/test_script_node_reset.py
builds it (the simulated operator's pods are another part of the simulation). reset.yml's first play refuses calico
until network_calico is merged, so the role runs here with the plan facts the plan role hands a calico node, and
without the cluster (reset_delete_node false: the drain and the Node's deletion are topology-blind)."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'simulation')))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils._node_plan import node_paths  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402
from kubewin_sim.windows import filesystem, registry  # noqa: E402
import test_script_node_reset as calico  # noqa: E402

PLAY = '''
- name: Reset ({what})
  hosts: windows_nodes
  gather_facts: false
  check_mode: {check}
  vars:
    plan_cluster: {{topology: calico, network_name: Calico}}
    plan_paths: {paths}
    reset_delete_node: false
  roles:
    - kubewin.node.reset
'''
NODE_TASK = "Remove the services, kube-proxy's load balancers, the endpoints and the node's files"


# Long (make unit-long, 30 s: the vSwitch's removal waits for the node to come back): its make test part is
# test_node_reset_apply_removes_what_calico_left in tests/unit/simulation/test_script_node_reset.py, the script whole.
@pytest.mark.long
def test_reset_removes_what_calico_left_predicted_by_check_mode_and_then_nothing(tmp_path):
    sim = Simulation(tmp_path)
    inventory = sim.inventory({'win1': {'ansible_host': '10.0.0.11'}}, control_plane={'cp1': {}})
    built, _external, _calico = calico.calico_node()
    with sim.edit_node('win1') as node:
        node.data.update(built.data)
    paths = json.dumps(node_paths({}))
    book = sim.write('reset.yml', ''.join(PLAY.format(what=what, check=check, paths=paths) for what, check in
                                          (('check', 'true'), ('real', 'false'), ('again', 'false'))))
    result = sim.run(book, inventory)
    assert result.rc == 0, result.output

    check, real, again = result.results(NODE_TASK, 'win1')
    assert check['result']['removed'] == real['result']['removed'], 'check mode predicts the run'
    removed = real['result']['removed']
    assert removed['registry_keys'] == [calico.CALICO_KEY]
    assert sorted(removed['paths']) == sorted(calico.CALICO_PATHS)
    assert sorted(e.split(' ')[0] for e in removed['hns_endpoints']) == ['Calico_ep', 'c0ffee-eth0']
    networks = result.results('Remove the HNS networks', 'win1')
    assert [(r['item'], r['changed']) for r in networks[0]['result']['results']] == [('Calico', True), ('External', True)]
    assert not again['changed'] and not any(r['changed'] for r in networks[2]['result']['results'])

    rules = result.results("Remove the collection's firewall rules", 'win1')
    assert [(r['item'], r['changed']) for r in rules[1]['result']['results']] == [('OverlayTraffic4789UDP', True)]
    assert rules[0]['result']['results'][0]['changed'], 'check mode predicts the rule\'s removal'
    node = sim.node('win1')
    assert 'OverlayTraffic4789UDP' not in node.data['firewall_rules']
    assert node.data['hns']['networks'] == [] and node.data['hns']['endpoints'] == []
    assert [path for path in calico.CALICO_FILES if filesystem.lookup(node, path)] == []
    assert not registry.key_exists(node, registry.parse_path(calico.CALICO_KEY))
    assert result.changed('win1') > 0


@pytest.mark.parametrize('key', ['HKLM:\\SOFTWARE', 'HKLM:\\', 'HKCU:\\SOFTWARE\\Tigera\\Calico', 'SOFTWARE\\Tigera\\Calico'])
def test_node_reset_refuses_a_registry_key_that_is_a_hive_or_not_below_hklm(key):
    """Refused before the node is read: a hive or one of its top keys would take far more than Calico's key."""
    from ansible_collections.kubewin.node.plugins.action.node_reset import ActionModule  # pylint: disable=import-outside-toplevel
    from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeActionError  # pylint: disable=import-outside-toplevel
    with pytest.raises(NodeActionError, match='registry_keys must be keys two levels or more below HKLM'):
        ActionModule.validate(None, {'paths': [], 'registry_keys': [key]})
    ActionModule.validate(None, {'paths': [], 'registry_keys': ['HKLM:\\SOFTWARE\\Tigera\\Calico']})
