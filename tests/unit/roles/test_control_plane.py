"""The control_plane role against the simulated cluster: checks, patches, RuntimeClasses, join credentials."""

import base64
import copy
import json
import re
import time

import pytest
import yaml

from ansible_collections.kubewin.node.plugins.plugin_utils._kubeadm import TOKEN_RE, ca_cert_hash

TIMESTAMP = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$')

PLAYBOOK = '''
- name: Plan
  hosts: localhost
  gather_facts: false
  roles:
    - kubewin.node.plan

- name: Control plane
  hosts: kube_control_plane
  gather_facts: false
  roles:
    - role: kubewin.node.control_plane
      control_plane_windows_builds: [20348, 17763, "20348"]
  post_tasks:
    # One file for all the test reads, in one task of the fake collections (run in-process): this playbook runs some
    # thirty times in this file. no_log: the join token and the account tokens must appear in no output (one test
    # checks).
    - name: Keep the join credentials, the other facts and what the Windows nodes were handed, for the test
      kubewin_test.sim.keep:
        content: >-
          {{{{ {{'join': control_plane_join | default(None), 'cluster': control_plane_cluster,
                'version': control_plane_kubernetes_version, 'runtime_classes': control_plane_runtime_classes,
                'credentials': dict(groups['windows_nodes']
                                    | zip(groups['windows_nodes'] | map('extract', hostvars, 'control_plane_credentials')))}}
          }}}}
        dest: {kept}
      no_log: true
      when: not ansible_check_mode
'''


def playbook(sim):
    return sim.write('control_plane.yml', PLAYBOOK.format(kept=sim.path('kept.json')))


def kept(sim):
    """What the last run's control-plane play kept: join, cluster, version, runtime_classes, credentials per node."""
    with open(sim.path('kept.json'), encoding='utf-8') as handle:
        return json.load(handle)


def objects(sim):
    return copy.deepcopy(sim.cluster().data['objects'])


def token_secrets(sim):
    return {key: {k: base64.b64decode(v).decode() for k, v in secret['data'].items()}
            for key, secret in sim.cluster().data['objects']['Secret'].items()
            if secret['type'] == 'bootstrap.kubernetes.io/token'}


# Long (make unit-long): make test runs the role's checks and its join material in
# test_the_checks_read_only_and_the_role_reuses_them_later_in_the_run and test_a_token_about_to_expire_is_replaced,
# and the whole role in check mode, converge and re-run on the dual-stack e2e fleet.
@pytest.mark.long
def test_check_converge_idempotent_check(sim, inventory):
    inventory = inventory()
    with sim.edit_cluster():
        pass
    before = objects(sim)

    check = sim.run(playbook(sim), inventory, '--check')
    assert check.rc == 0, check.output
    # the RuntimeClasses (one looped task), the join token and the service-account tokens, predicted
    assert check.changed('cp1') == 3
    assert objects(sim) == before

    # Meanwhile a second AWX job slice creates windows-2022 between this run's read and its create, which gets 409
    # Conflict (the real module: a warning, no change, an empty result): the second try finds it.
    with sim.edit_cluster() as cluster:
        cluster.faults['created_meanwhile'] = [['RuntimeClass', 'windows-2022']]
    converge = sim.run(playbook(sim), inventory, '-vvvv')
    assert converge.rc == 0, converge.output
    assert converge.changed('cp1') == 3
    assert sim.cluster().faults['created_meanwhile'] == [], 'the other slice created it'
    attempts = {item['control_plane_build']: item.get('attempts', 1)
                for item in converge.result('Create a RuntimeClass per Windows build', 'cp1')['result']['results']}
    assert attempts == {17763: 1, 20348: 2}, attempts

    # RuntimeClasses per build, as upstream names them
    runtime_classes = sim.cluster().data['objects']['RuntimeClass']
    assert sorted(runtime_classes) == ['windows-2019', 'windows-2022']
    assert runtime_classes['windows-2022']['handler'] == 'runhcs-wcow-process'
    assert runtime_classes['windows-2022']['scheduling'] == {
        'nodeSelector': {'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348'},
        'tolerations': [{'key': 'os', 'operator': 'Equal', 'value': 'windows', 'effect': 'NoSchedule'}]}

    # the join credentials
    join = kept(sim)['join']
    assert TOKEN_RE.fullmatch(join['token'])
    kubeconfig = yaml.safe_load(sim.cluster().data['objects']['ConfigMap']['kube-public/cluster-info']['data'][
        'kubeconfig'])
    cluster = kubeconfig['clusters'][0]['cluster']
    assert join['ca_cert_hash'] == ca_cert_hash(cluster['certificate-authority-data'])
    assert join['api_endpoint'] == '10.127.130.10:6443' and join['server'] == 'https://10.127.130.10:6443'
    [(name, secret)] = token_secrets(sim).items()
    assert name == 'kube-system/bootstrap-token-%s' % join['token_id']
    assert secret['token-id'] + '.' + secret['token-secret'] == join['token']
    assert secret['expiration'] == join['expires']
    assert secret['usage-bootstrap-authentication'] == 'true' and secret['usage-bootstrap-signing'] == 'true'
    assert secret['auth-extra-groups'] == 'system:bootstrappers:kubeadm:default-node-token'
    labels = sim.cluster().data['objects']['Secret'][name]['metadata']['labels']
    assert labels['app.kubernetes.io/managed-by'] == 'kubewin.node'

    # the token is never shown, not even at -vvvv, nor recorded by the results callback
    with open(sim.path('results.jsonl'), encoding='utf-8') as handle:
        recorded = handle.read()
    for text in (converge.output, recorded):
        assert join['token'] not in text and secret['token-secret'] not in text
        assert 'token-secret' not in text

    # kube-proxy and flanneld of the Windows nodes get the tokens of the accounts their Linux
    # counterparts run as; the nodes get them as control_plane_credentials
    account_tokens = {key: base64.b64decode(secret['data']['token']).decode()
                      for key, secret in sim.cluster().data['objects']['Secret'].items()
                      if secret['type'] == 'kubernetes.io/service-account-token'}
    assert sorted(account_tokens) == ['kube-flannel/kubewin-flannel-windows-token',
                                      'kube-system/kubewin-kube-proxy-windows-token']
    credentials = kept(sim)['credentials']['win1']
    proxy = yaml.safe_load(credentials['kube_proxy_kubeconfig'])
    assert proxy['users'][0]['user']['token'] == account_tokens['kube-system/kubewin-kube-proxy-windows-token']
    assert proxy['clusters'][0]['cluster']['server'] == 'https://10.127.130.10:6443'
    flannel = yaml.safe_load(credentials['flannel_kubeconfig'])
    assert flannel['users'][0]['user']['token'] == account_tokens['kube-flannel/kubewin-flannel-windows-token']
    assert yaml.safe_load(credentials['bootstrap_kubeconfig'])['users'][0]['user']['token'] == join['token']
    assert credentials['ca_cert'].startswith('-----BEGIN CERTIFICATE-----')
    for text in (converge.output, recorded):
        assert all(token not in text for token in account_tokens.values())

    facts = kept(sim)
    assert facts['version'] == 'v1.31.4'
    assert facts['cluster'] == {'version': 'v1.31.4', 'minor': '1.31', 'kubernetes_version': 'v1.31.4',
                                'control_plane_endpoint': None, 'pod_subnet': '10.244.0.0/16',
                                'service_subnet': '10.96.0.0/12', 'dns_domain': 'cluster.local',
                                'dns_service_ip': '10.96.0.10'}
    assert facts['runtime_classes'] == {'17763': 'windows-2019', '20348': 'windows-2022'}

    converged = objects(sim)
    again = sim.run(playbook(sim), inventory)
    assert again.rc == 0 and again.changed('cp1') == 0, again.output
    assert kept(sim)['join']['token'] == join['token']
    assert len(token_secrets(sim)) == 1
    assert 'k8s:Secret' not in again.api_calls['by_kind']
    assert kept(sim)['credentials']['win1'] == credentials, 'the same tokens are handed out again'
    # only no-op applies: the objects are exactly as they were
    assert objects(sim)['RuntimeClass'] == converged['RuntimeClass']

    check_again = sim.run(playbook(sim), inventory, '--check')
    assert check_again.rc == 0 and check_again.changed('cp1') == 0, check_again.output


def test_a_token_about_to_expire_is_replaced(sim, inventory):
    inventory = inventory()
    assert sim.run(playbook(sim), inventory).rc == 0
    first = kept(sim)['join']
    with sim.edit_cluster() as cluster:
        for secret in cluster.data['objects']['Secret'].values():
            if secret['type'] == 'bootstrap.kubernetes.io/token':
                # 20 minutes left: less than control_plane_token_min_remaining (30m)
                soon = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(time.time() + 1200))
                secret['data']['expiration'] = base64.b64encode(soon.encode()).decode()
    run = sim.run(playbook(sim), inventory)
    assert run.rc == 0 and run.changed('cp1') == 1, run.output
    second = kept(sim)['join']
    assert second['token'] != first['token']
    assert len(token_secrets(sim)) == 2


def test_flannel_vni_mismatch_fails_with_the_exact_difference(sim, inventory):
    inventory = inventory()
    with sim.edit_cluster(profile={'flannel_backend': {'Type': 'vxlan', 'VNI': 1, 'Port': 4789}}):
        pass
    before = objects(sim)
    run = sim.run(playbook(sim), inventory)
    assert run.rc != 0
    message = run.result("Fail when flannel's net-conf.json contradicts the Windows side", 'cp1')['result']['msg']
    assert 'Backend.VNI: cluster has 1, Windows nodes need 4096' in message
    assert 'Port' not in message.split('need 4096')[1].split('.')[0]
    assert 'kube-flannel/kube-flannel-cfg' in message and 'control_plane_patch_flannel' in message
    assert objects(sim) == before


def test_flannel_defaults_of_todays_manifest_are_named(sim, inventory):
    with sim.edit_cluster(profile={'flannel_backend': {'Type': 'vxlan'}, 'flannel_namespace': 'kube-system'}):
        pass
    run = sim.run(playbook(sim), inventory())
    assert run.rc != 0
    message = run.result("Fail when flannel's net-conf.json contradicts the Windows side", 'cp1')['result']['msg']
    assert "Backend.VNI: cluster has 1 (flannel's default; net-conf.json does not set it), Windows nodes need 4096" \
        in message
    assert "Backend.Port: cluster has 8472 (flannel's default" in message
    assert 'kube-system/kube-flannel-cfg' in message


def test_flannel_is_patched_and_restarted_when_allowed(sim, inventory):
    inventory = inventory()
    with sim.edit_cluster(profile={'flannel_backend': {'Type': 'vxlan', 'VNI': 1, 'Port': 4789}}):
        pass
    run = sim.run(playbook(sim), inventory, '-e', 'control_plane_patch_flannel=true')
    assert run.rc == 0, run.output
    assert run.result("Patch flannel's net-conf.json for the Windows side", 'cp1')['changed']
    config_map = sim.cluster().data['objects']['ConfigMap']['kube-flannel/kube-flannel-cfg']
    net_conf = json.loads(config_map['data']['net-conf.json'])
    assert net_conf == {'Network': '10.244.0.0/16', 'EnableNFTables': False,
                        'Backend': {'Type': 'vxlan', 'VNI': 4096, 'Port': 4789}}
    assert 'cni-conf.json' in config_map['data']
    daemon_set = sim.cluster().data['objects']['DaemonSet']['kube-flannel/kube-flannel-ds']
    restarted = daemon_set['spec']['template']['metadata']['annotations']['kubectl.kubernetes.io/restartedAt']
    assert TIMESTAMP.match(restarted)
    assert daemon_set['metadata']['generation'] == 2

    again = sim.run(playbook(sim), inventory, '-e', 'control_plane_patch_flannel=true')
    assert again.rc == 0 and again.changed('cp1') == 0, again.output
    assert sim.cluster().data['objects']['DaemonSet']['kube-flannel/kube-flannel-ds']['metadata']['generation'] == 2


def test_kubeadm_pod_subnet_mismatch_fails(sim, inventory):
    with sim.edit_cluster(profile={'pod_subnet': '10.245.0.0/16'}):
        pass
    run = sim.run(playbook(sim), inventory())
    assert run.rc != 0
    message = run.result('Fail when the cluster contradicts the Windows IP plan', 'cp1')['result']['msg']
    assert message == ('The cluster contradicts the Windows IP plan: networking.podSubnet: cluster has 10.245.0.0/16, '
                       'Windows nodes need 10.244.0.0/16 (kubewin_cluster_cidr)')


def test_a_kubelet_newer_than_the_api_server_is_refused_before_any_node_is_upgraded(sim, inventory):
    # The control plane (v1.31.4 by default) is upgraded first; the Windows nodes may not run ahead of it.
    run = sim.run(playbook(sim), inventory(kubewin_kubernetes_version='1.32.13'))
    assert run.rc != 0
    # One clean message naming the inventory variable, as the preflight's (no templating error of a set_fact).
    message = run.result("Refuse a kubelet release the API server's version does not allow", 'cp1')['result']['msg']
    assert message == ("The cluster's API server runs 1.31.4: kubelet 1.32.13 is newer than the control plane 1.31.4: "
                       "the version skew policy forbids a kubelet newer than kube-apiserver; use "
                       "kubewin_kubernetes_version 1.31.x or older. Set kubewin_control_plane_version to it so that "
                       "plan.yml and the first play catch this without a cluster."), message
    assert not run.results('Create a RuntimeClass per Windows build', 'cp1'), 'nothing after the check ran'
    assert run.api_calls['by_kind'] == {'k8s_cluster_info': 1}


def test_a_cluster_without_kubeadm_config_is_refused(sim, inventory):
    with sim.edit_cluster(profile={'kubeadm': False}):
        pass
    run = sim.run(playbook(sim), inventory())
    assert run.rc != 0
    assert 'kube-system/kubeadm-config' in run.result("Require a cluster made by kubeadm", 'cp1')['result']['msg']


def test_linux_only_daemonsets_get_the_node_selector_once(sim, inventory):
    inventory = inventory()
    with sim.edit_cluster(profile={'daemonsets_select_linux': False}) as cluster:
        # Unrestricted, kube-proxy's "tolerate everything" would put it on Windows nodes too.
        assert 'nodeSelector' not in cluster.get('DaemonSet', 'kube-system', 'kube-proxy')['spec']['template']['spec']
    run = sim.run(playbook(sim), inventory)
    assert run.rc == 0, run.output
    [patched] = run.results('Keep Linux-only DaemonSets off Windows nodes', 'cp1')
    assert patched['changed'] and [item['changed'] for item in patched['result']['results']] == [True, True]
    daemon_sets = sim.cluster().data['objects']['DaemonSet']
    for key in ('kube-flannel/kube-flannel-ds', 'kube-system/kube-proxy'):
        assert daemon_sets[key]['spec']['template']['spec']['nodeSelector'] == {'kubernetes.io/os': 'linux'}
        assert daemon_sets[key]['metadata']['generation'] == 2
    versions = {key: ds['metadata']['resourceVersion'] for key, ds in daemon_sets.items()}

    again = sim.run(playbook(sim), inventory)
    assert again.rc == 0 and again.changed('cp1') == 0, again.output
    assert {key: ds['metadata']['resourceVersion']
            for key, ds in sim.cluster().data['objects']['DaemonSet'].items()} == versions


def test_daemonsets_already_kept_to_linux_are_left_alone(sim, inventory):
    run = sim.run(playbook(sim), inventory())
    assert run.rc == 0, run.output
    flannel = sim.cluster().data['objects']['DaemonSet']['kube-flannel/kube-flannel-ds']
    # today's flannel manifest keeps to Linux by node affinity: patching it would roll every pod
    assert 'nodeSelector' not in flannel['spec']['template']['spec'] and flannel['metadata']['generation'] == 1
    assert not any(r['changed'] for r in run.results('Keep Linux-only DaemonSets off Windows nodes', 'cp1'))


CHECKS_THEN_ROLE = '''
- name: Plan
  hosts: localhost
  gather_facts: false
  roles:
    - kubewin.node.plan

- name: Checks, as playbooks/site.yml runs them before any Windows node changes
  hosts: kube_control_plane
  gather_facts: false
  tasks:
    - name: Check the cluster
      ansible.builtin.import_role:
        name: kubewin.node.control_plane
        tasks_from: checks

- name: The role, later in the same run
  hosts: kube_control_plane
  gather_facts: false
  roles:
    - role: kubewin.node.control_plane
      control_plane_windows_builds: [20348]
      control_plane_join_credentials: false  # not what this test is about
'''


REUSE = 'Check the cluster against the IP plan, unless this run already did'


def test_the_checks_read_only_and_the_role_reuses_them_later_in_the_run(sim, inventory):
    with sim.edit_cluster(profile={'flannel_backend': {'Type': 'vxlan', 'VNI': 1, 'Port': 4789}}):
        pass
    run = sim.run(sim.write('checks.yml', CHECKS_THEN_ROLE), inventory(), '-e', 'control_plane_patch_flannel=true')
    assert run.rc == 0, run.output
    # The checks leave a difference they may not fail on for the role to patch; they change nothing themselves.
    on_cp1 = [t for t in run.tasks if t['host'] == 'cp1']
    checks = on_cp1[:[t['task'].endswith(REUSE) for t in on_cp1].index(True)]
    assert checks and not [t['task'] for t in checks if t['changed']]
    assert {t['action'] for t in checks} <= {
        'ansible.builtin.validate_argument_spec', 'ansible.builtin.assert', 'ansible.builtin.set_fact',
        'ansible.builtin.fail', 'kubernetes.core.k8s_cluster_info', 'kubernetes.core.k8s_info'}, checks
    assert run.result(REUSE, 'cp1')['status'] == 'skipped'
    # The role read each object once, in the checks, and patched flannel from what they found.
    assert len(run.results("Read kubeadm's cluster configuration", 'cp1')) == 1
    assert run.api_calls['by_kind']['k8s_cluster_info'] == 1
    assert run.result("Patch flannel's net-conf.json for the Windows side", 'cp1')['changed']
    config_map = sim.cluster().data['objects']['ConfigMap']['kube-flannel/kube-flannel-cfg']
    assert json.loads(config_map['data']['net-conf.json'])['Backend']['VNI'] == 4096
