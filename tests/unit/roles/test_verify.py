"""The verify role against simulated Windows nodes registered in a simulated cluster."""

import pytest

PLAYBOOK = '''
- name: Snapshot the Windows nodes
  hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: Snapshot
      kubewin.node.node_info:

- name: Verify
  hosts: kube_control_plane
  gather_facts: false
  roles:
    - role: kubewin.node.verify
      verify_node_timeout: 2
      verify_poll_interval: 1
      verify_sample_timeout: 3
'''


def playbook(sim):
    return sim.write('verify.yml', PLAYBOOK)


def sample(*extra):
    return ('-e', 'verify_sample_workload=true') + tuple(a for pair in extra for a in ('-e', pair))


def test_ready_nodes_pass(sim, inventory, joined):
    joined()
    run = sim.run(playbook(sim), inventory())
    assert run.rc == 0, run.output
    assert run.changed('cp1') == 0
    assert run.api_calls['by_kind'] == {'k8s_info:Node': 1}


def test_a_not_ready_node_fails_naming_it(sim, inventory, joined):
    joined()
    with sim.edit_cluster() as cluster:
        cluster.faults['not_ready'].append('win2')
    run = sim.run(playbook(sim), inventory())
    assert run.rc != 0
    message = run.result('Fail naming each node and what it lacks', 'cp1')['result']['msg']
    assert message.startswith('Windows nodes not ready after 2 s: win2: not Ready (Ready=False, KubeletNotReady: ')
    assert 'win1' not in message
    # it kept looking until the timeout
    assert run.api_calls['by_kind']['k8s_info:Node'] >= 2


def test_a_node_that_never_joined_is_named(sim, inventory, joined):
    joined('win1')
    run = sim.run(playbook(sim), inventory())
    assert run.rc != 0
    message = run.result('Fail naming each node and what it lacks', 'cp1')['result']['msg']
    assert 'win2: no Node named win2 (the kubelet has not registered it' in message


def test_a_missing_build_label_fails(sim, inventory, joined):
    joined()
    with sim.edit_cluster() as cluster:
        cluster.faults['drop_labels']['win1'] = ['node.kubernetes.io/windows-build']
    run = sim.run(playbook(sim), inventory())
    assert run.rc != 0
    message = run.result('Fail naming each node and what it lacks', 'cp1')['result']['msg']
    # the expected build comes from the node's snapshot fact
    assert message == 'Windows nodes not ready after 2 s: win1: lacks label node.kubernetes.io/windows-build=10.0.20348'


def test_sample_workload_serves_through_its_service_and_is_removed(sim, inventory, joined):
    joined()
    run = sim.run(playbook(sim), inventory(), *sample())
    assert run.rc == 0, run.output
    http = run.result("Fetch the sample page through the Service's ClusterIP from a Windows node", 'cp1')
    assert http['result']['status_code'] == 200
    # the GET ran on a Windows node, not on the control plane
    assert run.calls['win1']['by_kind'].get('win_uri') == 1
    endpoints = run.result("Wait for the Service to have a ready endpoint per pod", 'cp1')['result']['resources']
    nodes = sorted(e['nodeName'] for s in endpoints for e in s['endpoints'] if e['conditions']['ready'])
    assert nodes == ['win1', 'win2']  # one pod per Windows build, each on its build's node
    objects = sim.cluster().data['objects']
    assert not objects['Deployment'] and not objects['Pod']
    assert 'default/win-webserver' not in objects['Service']


# Long (make unit-long): make test keeps the sample's deploy, service check and removal
# (test_sample_workload_serves_through_its_service_and_is_removed).
@pytest.mark.long
def test_kept_sample_makes_a_second_run_change_nothing(sim, inventory, joined):
    joined()
    inventory = inventory()
    first = sim.run(playbook(sim), inventory, *sample('verify_sample_keep=true'))
    assert first.rc == 0, first.output
    deployments = sim.cluster().data['objects']['Deployment']
    assert sorted(deployments) == ['default/win-webserver-17763', 'default/win-webserver-20348']
    images = {key: d['spec']['template']['spec']['containers'][0]['image'] for key, d in deployments.items()}
    assert images == {'default/win-webserver-17763': 'mcr.microsoft.com/windows/servercore:ltsc2019',
                      'default/win-webserver-20348': 'mcr.microsoft.com/windows/servercore:ltsc2022'}
    again = sim.run(playbook(sim), inventory, *sample('verify_sample_keep=true'))
    assert again.rc == 0 and again.changed('cp1') == 0, again.output


def test_a_sample_that_cannot_run_fails_with_its_pods_reason_and_is_removed(sim, inventory, joined):
    joined()
    wrong = '{"verify_sample_images": {"17763": "mcr.microsoft.com/windows/servercore:ltsc2022", ' \
            '"20348": "mcr.microsoft.com/windows/servercore:ltsc2022"}}'
    run = sim.run(playbook(sim), inventory(), '-e', 'verify_sample_workload=true', '-e', wrong)
    assert run.rc != 0
    message = run.result("Fail with what the sample's pods report", 'cp1')['result']['msg']
    assert 'on win2: Pending (CreateContainerError' in message
    assert 'does not match the host operating system' in message
    assert not sim.cluster().data['objects']['Deployment']


def test_no_http_check_when_kube_proxy_does_not_program_the_service(sim, inventory, joined):
    joined()
    with sim.edit_node('win1') as node:
        node.data['services']['kube-proxy']['state'] = 'stopped'
    run = sim.run(playbook(sim), inventory(), *sample())
    assert run.rc != 0
    message = run.result("Fail with what the sample's pods report", 'cp1')['result']['msg']
    assert 'Unable to connect to the remote server' in message
    # without the HTTP check the endpoints decide
    ok = sim.run(playbook(sim), inventory(), *sample('verify_sample_http_check=false'))
    assert ok.rc == 0, ok.output


def test_check_mode_predicts_without_deploying(sim, inventory, joined):
    joined()
    run = sim.run(playbook(sim), inventory(), '--check', *sample())
    assert run.rc == 0, run.output
    assert not sim.cluster().data['objects']['Deployment']
