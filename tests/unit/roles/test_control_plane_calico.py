"""control_plane for the calico topology against the simulated cluster with (and without) the Tigera operator.

Playbook runs cost seconds, so one run plays every case in turn on one simulated cluster, a play each, the cluster
changed between them by test plumbing: no operator, the operator without an Installation, then an Installation
whose pool contradicts the plan (each refused by the role's calico_checks.yml alone), then, once the pool is the
plan's, the whole role: check mode (lists the differences, changes nothing), a real run (patches them) and a second
run (changes nothing). Each of these plays reads the cluster afresh (checks, then main).
"""

import json

from conftest import PLAN_VARS

from ansible_collections.kubewin.node.plugins.plugin_utils import _csi_proxy, _gmsa
from ansible_collections.kubewin.node.plugins.plugin_utils._ip_plan import plan_settings

# The plan facts the plan role would set on localhost come as extra vars (plan_facts below); no plan role runs.
PLAYBOOK = '''
- name: Refusals
  hosts: kube_control_plane
  gather_facts: false
  vars: &role_vars
    control_plane_join_credentials: false
    control_plane_patch_calico_network: true
    # Not what this test is about; each read costs a task per play.
    control_plane_linux_daemonsets: []
    # What checks.yml hands calico_checks.yml, which the refusals include alone (the phases run the whole role).
    control_plane_plan: "{{{{ hostvars['localhost']['plan_cluster'] }}}}"
  tasks:
    - name: Prepare a cluster without the Tigera operator
      block:
        - name: Run the role
          ansible.builtin.include_role:
            name: kubewin.node.control_plane
            tasks_from: calico_checks
      rescue:
        - name: Keep the refusal
          ansible.builtin.set_fact:
            refused_without_operator: "{{{{ ansible_failed_result.msg }}}}"

    - name: Install the operator, but no Installation
      ansible.builtin.command:
        argv: ["{{{{ ansible_playbook_python }}}}", "{edit}", operator]
      delegate_to: localhost
      changed_when: false  # test plumbing

    - name: Prepare a cluster without an Installation
      block:
        - name: Run the role
          ansible.builtin.include_role:
            name: kubewin.node.control_plane
            tasks_from: calico_checks
      rescue:
        - name: Keep the refusal
          ansible.builtin.set_fact:
            refused_without_installation: "{{{{ ansible_failed_result.msg }}}}"

    - name: Create the Installation with the quickstart's pool, not the plan's
      ansible.builtin.command:
        argv: ["{{{{ ansible_playbook_python }}}}", "{edit}", installation]
      delegate_to: localhost
      changed_when: false  # test plumbing

    - name: Prepare a cluster whose pool contradicts the plan
      block:
        - name: Run the role
          ansible.builtin.include_role:
            name: kubewin.node.control_plane
            tasks_from: calico_checks
      rescue:
        - name: Keep the refusal
          ansible.builtin.set_fact:
            refused_pool: "{{{{ ansible_failed_result.msg }}}}"

    - name: Refused
      ansible.builtin.debug:
        msg: "{{{{ [refused_without_operator, refused_without_installation, refused_pool] }}}}"

    - name: Give the Installation the plan's pool, as after Calico's pool migration
      ansible.builtin.command:
        argv: ["{{{{ ansible_playbook_python }}}}", "{edit}", migrate]
      delegate_to: localhost
      changed_when: false  # test plumbing

- name: Check mode
  hosts: kube_control_plane
  gather_facts: false
  check_mode: true
  vars: *role_vars
  tasks: &phase
    - name: Phase
      ansible.builtin.debug:
        msg: next phase
    - name: Check the cluster
      ansible.builtin.include_role:
        name: kubewin.node.control_plane
        tasks_from: checks
    - name: Prepare it
      ansible.builtin.include_role:
        name: kubewin.node.control_plane

- name: Converge
  hosts: kube_control_plane
  gather_facts: false
  vars: *role_vars
  tasks: *phase

- name: Again
  hosts: kube_control_plane
  gather_facts: false
  vars: *role_vars
  tasks: *phase
'''

EDIT = '''
import os, sys
from kubewin_sim import tigera
from kubewin_sim.cluster import open_cluster
with open_cluster(os.environ['KUBEWIN_SIM_STATE_DIR']) as cluster:
    if sys.argv[1] == 'operator':
        tigera.install(cluster)
    elif sys.argv[1] == 'installation':
        # Felix's VNI and port as Calico's flannel migration controller leaves them (flannel's Linux defaults).
        tigera.install(cluster, installation={'calicoNetwork': {'ipPools': [
            {'name': 'default-ipv4-ippool', 'cidr': '192.168.0.0/16', 'encapsulation': 'VXLANCrossSubnet'}]}},
            felix_configuration={'vxlanVNI': 1, 'vxlanPort': 8472})
    else:
        pools = cluster.get('Installation', None, 'default')['spec']['calicoNetwork']['ipPools']
        pools[0]['cidr'] = '10.244.0.0/16'
        cluster.patch('Installation', None, 'default', {'spec': {'calicoNetwork': {'ipPools': pools}}}, 'merge')
        cluster.reconcile()
'''


def plan_facts(sim):
    """The plan role's facts for the calico topology over the simulated cluster's ranges.

    The calico tasks read its topology, cluster_cidr, service_cidr, node_prefix_length (Calico's /26 block),
    vxlan_vni and vxlan_port.
    """
    plan = {key[len('kubewin_'):]: value for key, value in PLAN_VARS.items()}
    cluster = plan_settings(dict(plan, topology='calico')).as_dict()
    return '@' + sim.write('plan.json', json.dumps({
        # This test is about the calico tasks: kube-proxy's DaemonSet (calico's default mode, which needs the whole
        # plan) is left out with service mode; the calico e2e fleet applies it (tests/e2e/inventories/calico).
        'plan_cluster': cluster, 'plan_inventory': {'versions': {'kubernetes_version': None}, 'kube_proxy_mode': 'service'},
        # Neither gMSA nor csi-proxy (the role's checks and applies read them from the plan role's features).
        'plan_features': {'gmsa': _gmsa.settings(False, {}, []), 'csi_proxy': _csi_proxy.DEFAULT_MODE}}))


def phases(run):
    """The task results of cp1 per phase play (check mode, converge, again), split at the Phase task."""
    found = []
    for task in [t for t in run.tasks if t['host'] == 'cp1']:
        if task['task'] == 'Phase':
            found.append([])
        elif found:
            found[-1].append(task)
    return found


REPORT = 'Report what the cluster lacks for Windows nodes'


def test_calico_refuses_then_reports_patches_and_settles(sim, inventory):
    run = sim.run(sim.write('calico.yml', PLAYBOOK.format(edit=sim.write('edit_cluster.py', EDIT))),
                  inventory(), '-e', plan_facts(sim))
    assert run.rc == 0, run.output
    without_operator, without_installation, pool = run.result('Refused', 'cp1')['result']['msg']
    assert without_operator.startswith(
        'The calico topology needs Calico installed by the Tigera operator, but the cluster does not serve the '
        'Installation kind (operator.tigera.io/v1)'), without_operator
    assert without_installation == (
        "The Tigera operator is installed but there is no Installation named default: create one (Calico's "
        'custom-resources.yaml, with an IP pool of kubewin_cluster_cidr 10.244.0.0/16) before the Windows nodes join.')
    assert ('Installation IP pool default-ipv4-ippool: cluster has 192.168.0.0/16, Windows nodes need 10.244.0.0/16 '
            '(kubewin_cluster_cidr); not patched') in pool, pool

    check, converge, again = phases(run)
    differences = [
        "Installation spec.calicoNetwork.bgp: cluster has Enabled, Windows nodes need Disabled (vxlan backend)",
        'Installation IP pool default-ipv4-ippool encapsulation: cluster has VXLANCrossSubnet, Windows nodes need VXLAN',
        'Installation spec.calicoNetwork.windowsDataplane: cluster has Disabled, Windows nodes need HNS',
        'Installation spec.serviceCIDRs: cluster has none, Windows nodes need 10.96.0.0/12 (kubewin_service_cidr)',
        "IPAMConfiguration default strictAffinity: cluster has no IPAMConfiguration default (Calico's default, "
        "false), Windows nodes need true",
        'FelixConfiguration default vxlanVNI: cluster has 1, Windows nodes need 4096 (kubewin_vxlan_vni)',
        'FelixConfiguration default vxlanPort: cluster has 8472, Windows nodes need 4789 (kubewin_vxlan_port)',
        'ConfigMap tigera-operator/kubernetes-services-endpoint: absent, Windows nodes need '
        "KUBERNETES_SERVICE_HOST=10.127.130.10, KUBERNETES_SERVICE_PORT=6443 (the API server's address in "
        'kube-public/cluster-info)',
    ]
    # Check mode predicts the four patches (the ConfigMap, the IPAMConfiguration, the FelixConfiguration, the
    # Installation) and makes none:
    # the converge play, reading the cluster afresh, finds the same differences (and so did the refused plays
    # leave everything as it was).
    for phase in (check, converge):
        assert [t['result']['msg'] for t in phase if t['task'].endswith(REPORT)] == [differences]
        assert [t['task'].split(' : ')[-1] for t in phase if t['changed']] == [
            "Give Calico the API server's address", 'Set strict IPAM affinity',
            "Set Felix's VXLAN VNI and port for Windows nodes", "Patch the operator's Installation for Windows nodes"]
    assert [t for t in again if t['changed']] == []
    assert [t['status'] for t in again if t['task'].endswith(REPORT)] == ['skipped']

    cluster = sim.cluster()
    installation = cluster.get('Installation', None, 'default')
    network = installation['spec']['calicoNetwork']
    assert (network['bgp'], network['windowsDataplane'], network['ipPools'][0]['encapsulation']) == (
        'Disabled', 'HNS', 'VXLAN')
    assert installation['spec']['serviceCIDRs'] == ['10.96.0.0/12']
    assert cluster.get('IPAMConfiguration', None, 'default')['spec'] == {'strictAffinity': True}
    assert cluster.get('FelixConfiguration', None, 'default')['spec'] == {
        'healthPort': 9099, 'vxlanVNI': 4096, 'vxlanPort': 4789}
    assert cluster.get('ConfigMap', 'tigera-operator', 'kubernetes-services-endpoint')['data'] == {
        'KUBERNETES_SERVICE_HOST': '10.127.130.10', 'KUBERNETES_SERVICE_PORT': '6443'}
    assert cluster.get('IPPool', None, 'default-ipv4-ippool')['spec']['vxlanMode'] == 'Always'
    # The operator now has everything it checks before rendering Calico for Windows.
    assert installation['status']['conditions'] == [
        {'type': 'Degraded', 'status': 'False', 'reason': 'AllObjectsAvailable', 'message': ''}]
