"""The container_runtime role through tests/simulation/ansible-playbook, against simulated Windows nodes."""

import hashlib
import tomllib

import pytest
import yaml

from kubewin_sim import programs, web

from ansible_collections.kubewin.node.plugins.plugin_utils._versions import VersionPolicyError, version_policy

CONTAINERD_DIR = 'C:\\Program Files\\containerd'
CONTAINERD_EXE = CONTAINERD_DIR + '\\containerd.exe'
CONFIG = CONTAINERD_DIR + '\\config.toml'
CERTS = CONTAINERD_DIR + '\\certs.d'
CRICTL_CONFIG = 'C:\\k\\crictl.yaml'
CRI_DOCKERD_URL = ('https://github.com/Mirantis/cri-dockerd/releases/download/v0.3.26/'
                   'cri-dockerd-0.3.26.win.amd64.zip')
# Docker 27.5.1 and nssm 2.24 are pinned in the catalog, and the simulation wrapper makes their URLs serve
# what the pins describe. cri-dockerd publishes no hash: the tests pin what the simulated web serves.
DOCKER_OVERRIDES = {
    'cri-dockerd': {'0.3.26': 'sha256:' + hashlib.sha256(web.body(CRI_DOCKERD_URL)).hexdigest()},
}
ROLE_TASKS = 'kubewin.node.container_runtime : '


def containerd_url(version):
    return ('https://github.com/containerd/containerd/releases/download/v%s/containerd-%s-windows-amd64.tar.gz'
            % (version, version))


# The IP plan the plan role needs to hand the node its share (runtime, versions, node layout).
PLAN = {'kubewin_topology': 'l2bridge', 'kubewin_cluster_cidr': '10.244.0.0/16',
        'kubewin_service_cidr': '10.96.0.0/12', 'kubewin_management_cidr': '10.127.130.0/24'}


def inventory(sim, build=20348, kubernetes='1.33.4', runtime=None, **group_vars):
    hostvars = {'ansible_host': '10.127.130.38', 'kubewin_sim': {'build': build, 'features': {'Containers': 'installed'}}}
    if runtime:
        hostvars['kubewin_container_runtime'] = runtime
    return sim.inventory({'win1': hostvars}, dict(PLAN, **group_vars, kubewin_kubernetes_version=kubernetes))


def playbook(sim, name='site.yml', snapshot=True, **role_vars):
    tasks = []
    if snapshot:
        tasks.append({'name': 'snapshot', 'kubewin.node.node_info': {'environment': ['CRI_CONFIG_FILE']}})
    tasks.append({'name': 'runtime', 'ansible.builtin.include_role': {'name': 'kubewin.node.container_runtime'},
                  'vars': role_vars})
    tasks.append({'name': 'facts', 'ansible.builtin.debug': {'msg': {
        'endpoint': '{{ container_runtime_endpoint }}', 'service': '{{ container_runtime_service }}',
        'sandbox': '{{ container_runtime_sandbox_image }}'}}})
    plan = {'hosts': 'localhost', 'gather_facts': False,
            'roles': [{'role': 'kubewin.node.plan', 'plan_distribute': True}]}
    return sim.write(name, yaml.safe_dump([plan, {'hosts': 'windows_nodes', 'gather_facts': False, 'tasks': tasks}]))


def role_result(run, task):
    return run.result(ROLE_TASKS + task, 'win1')


def node(sim):
    return sim.node('win1')


def text(sim, path):
    entry = node(sim).file(path)
    return entry and entry['content']


def config(sim):
    content = text(sim, CONFIG)
    assert not content.startswith('\ufeff'), 'TOML parsers on Windows reject a byte order mark'
    return tomllib.loads(content)


def service(sim, name):
    return node(sim).data['services'].get(name)


def argv(sim, name):
    return programs.split_command_line(service(sim, name)['command_line'])


def assert_no_remote_call_after_snapshot(run):
    assert run.calls['win1']['by_kind'] == {'win_powershell:node_info': 1}, run.calls


# -- containerd ------------------------------------------------------------------------------

# Long (make unit-long): make test installs containerd in test_new_binaries_and_config_restart_containerd_once,
# the config per Windows build below, and in check mode, converge and re-run on the dual-stack e2e fleet.
@pytest.mark.long
def test_containerd_check_converge_idempotent(sim):
    inv, book = inventory(sim), playbook(sim)

    check = sim.run(book, inv, '--check', '--diff')
    assert check.rc == 0, check.output
    assert check.changed('win1') > 0
    assert role_result(check, 'Run containerd as a Windows service')['result']['operations'] == ['create', 'start']
    assert node(sim).file_paths() == [] and node(sim).data['services'] == {}, 'check mode changes nothing'

    run = sim.run(book, inv)
    assert run.rc == 0, run.output
    for path in (CONTAINERD_EXE, CONTAINERD_DIR + '\\containerd-shim-runhcs-v1.exe', CONTAINERD_DIR + '\\ctr.exe',
                 'C:\\k\\crictl.exe'):
        assert node(sim).file(path)['acl'] == 'protected', path
    document = config(sim)
    assert document['version'] == 3
    assert document['plugins']['io.containerd.cri.v1.images']['pinned_images'] == {'sandbox': 'registry.k8s.io/pause:3.10'}
    assert document['plugins']['io.containerd.cri.v1.images']['registry'] == {'config_path': CERTS}
    assert document['plugins']['io.containerd.cri.v1.runtime']['cni'] == {
        'bin_dirs': ['C:\\opt\\cni\\bin'], 'conf_dir': 'C:\\etc\\cni\\net.d'}
    assert node(sim).file(CONFIG)['acl'] == 'protected'
    containerd = service(sim, 'containerd')
    assert containerd['state'] == 'running' and containerd['start_mode'] == 'auto'
    assert containerd['dependencies'] == [] and containerd['environment'] == []
    assert argv(sim, 'containerd') == [CONTAINERD_EXE, '--run-service', '--config', CONFIG,
                                       '--log-file', 'C:\\ProgramData\\containerd\\containerd.log',
                                       '--log-level', 'info']
    assert containerd['starts'] == 1, 'started once: the restart handler does not restart what it just started'
    assert yaml.safe_load(text(sim, CRICTL_CONFIG)) == {
        'runtime-endpoint': 'npipe:////./pipe/containerd-containerd',
        'image-endpoint': 'npipe:////./pipe/containerd-containerd', 'timeout': 10}
    assert node(sim).data['environment'] == {'CRI_CONFIG_FILE': CRICTL_CONFIG}
    assert run.result('facts', 'win1')['result']['msg'] == {
        'endpoint': 'npipe:////./pipe/containerd-containerd', 'service': 'containerd',
        'sandbox': 'registry.k8s.io/pause:3.10'}

    again = sim.run(book, inv)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert_no_remote_call_after_snapshot(again)
    check_again = sim.run(book, inv, '--check')
    assert check_again.rc == 0 and check_again.changed('win1') == 0, check_again.output
    assert_no_remote_call_after_snapshot(check_again)
    assert service(sim, 'containerd')['starts'] == 1


@pytest.mark.parametrize('build, kubernetes, containerd, sandbox', [
    # registry.k8s.io/pause is multi-arch: 2019 and 2022 get the same tag, the image for their build.
    (17763, '1.34.2', '1.7.24', 'registry.k8s.io/pause:3.10.1'),
    (20348, '1.35.1', '2.0.11', 'registry.k8s.io/pause:3.10.1'),
    # Windows Server 2025 has a pause image from 3.10.2 on only.
    (26100, '1.35.1', '2.2.7', 'registry.k8s.io/pause:3.10.2'),
])
def test_config_follows_the_windows_build_and_the_containerd_major(sim, build, kubernetes, containerd, sandbox):
    run = sim.run(playbook(sim, container_runtime_containerd_version=containerd), inventory(sim, build, kubernetes))
    assert run.rc == 0, run.output
    document = config(sim)
    if containerd.startswith('1.'):
        cri = document['plugins']['io.containerd.grpc.v1.cri']
        assert document['version'] == 2 and cri['sandbox_image'] == sandbox
        assert cri['cni'] == {'bin_dir': 'C:\\opt\\cni\\bin', 'conf_dir': 'C:\\etc\\cni\\net.d'}
        assert cri['registry'] == {'config_path': CERTS}
    else:
        assert document['version'] == 3
        assert document['plugins']['io.containerd.cri.v1.images']['pinned_images']['sandbox'] == sandbox
        cni = document['plugins']['io.containerd.cri.v1.runtime']['cni']
        # bin_dirs from 2.1 on; containerd refuses bin_dir and bin_dirs together.
        assert ('bin_dir' in cni) == containerd.startswith('2.0.') and ('bin_dirs' in cni) != ('bin_dir' in cni)
    assert service(sim, 'containerd')['state'] == 'running'


# Long (make unit-long): make test keeps test_new_binaries_and_config_restart_containerd_once (a changed config
# with new binaries, one restart).
@pytest.mark.long
def test_a_changed_config_is_rewritten_and_restarts_containerd_once(sim):
    inv = inventory(sim)
    assert sim.run(playbook(sim), inv).rc == 0
    mirror = playbook(sim, 'mirror.yml', container_runtime_pause_image='mirror.example.com/k8s/pause:3.10')
    run = sim.run(mirror, inv, '--diff')
    assert run.rc == 0, run.output
    assert config(sim)['plugins']['io.containerd.cri.v1.images']['pinned_images']['sandbox'] == (
        'mirror.example.com/k8s/pause:3.10')
    written = role_result(run, "Write containerd's configuration")
    assert written['changed'] and 'mirror.example.com' in written['result']['diff']['after']
    assert role_result(run, 'Restart containerd')['result']['operations'] == ['restart']
    assert service(sim, 'containerd')['starts'] == 2
    assert run.changed('win1') == 2, 'the config and the restart'
    assert sim.run(mirror, inv).changed('win1') == 0
    assert service(sim, 'containerd')['starts'] == 2


def test_new_binaries_and_config_restart_containerd_once(sim):
    inv = inventory(sim)
    assert sim.run(playbook(sim), inv).rc == 0
    older = sim.run(playbook(sim, 'older.yml', container_runtime_containerd_version='2.0.11'), inv)
    assert older.rc == 0, older.output
    assert node(sim).managed_registry()['artifacts'][CONTAINERD_EXE]['url'] == containerd_url('2.0.11')
    assert role_result(older, "Note whether containerd's binaries changed")['changed']
    assert role_result(older, "Write containerd's configuration")['changed'], 'bin_dir instead of bin_dirs'
    assert len(older.results(ROLE_TASKS + 'Restart containerd', 'win1')) == 1
    assert service(sim, 'containerd')['starts'] == 2


def test_a_failed_download_leaves_the_binary_the_config_and_the_service_alone(sim):
    inv = inventory(sim)
    assert sim.run(playbook(sim), inv).rc == 0
    before = node(sim)
    web.configure(sim.state_dir, faults={containerd_url('1.7.24'): ['404']})
    run = sim.run(playbook(sim, 'downgrade.yml', container_runtime_containerd_version='1.7.24'), inv)
    assert run.rc != 0
    assert 'failed (HTTP 404); not retried' in run.output
    after = node(sim)
    assert after.file(CONTAINERD_EXE) == before.file(CONTAINERD_EXE)
    assert after.file(CONFIG) == before.file(CONFIG), 'no 1.x config for the 2.x binary still in place'
    assert after.managed_registry()['artifacts'][CONTAINERD_EXE] == before.managed_registry()['artifacts'][CONTAINERD_EXE]
    assert service(sim, 'containerd') == before.data['services']['containerd']
    assert not run.results(ROLE_TASKS + 'Restart containerd', 'win1')


def test_registry_mirrors_and_proxy(sim):
    inv = inventory(sim)
    mirrors = {'docker.io': ['https://mirror-a.example.com', 'https://mirror-b.example.com'],
               'registry.local:5000': ['http://10.0.0.5:5000']}
    book = playbook(sim, container_runtime_registry_mirrors=mirrors,
                    container_runtime_https_proxy='http://proxy.example.com:3128',
                    container_runtime_no_proxy='10.0.0.0/8,.cluster.local')
    run = sim.run(book, inv)
    assert run.rc == 0, run.output
    docker_io = tomllib.loads(text(sim, CERTS + '\\docker.io\\hosts.toml'))
    assert list(docker_io['host']) == mirrors['docker.io']
    assert docker_io['host']['https://mirror-a.example.com']['capabilities'] == ['pull', 'resolve']
    # containerd on Windows looks for "registry.local5000": a folder name cannot hold ":".
    assert list(tomllib.loads(text(sim, CERTS + '\\registry.local5000\\hosts.toml'))['host']) == ['http://10.0.0.5:5000']
    assert service(sim, 'containerd')['environment'] == [
        'HTTPS_PROXY=http://proxy.example.com:3128', 'NO_PROXY=10.0.0.0/8,.cluster.local']
    assert 'HTTPS_PROXY' not in node(sim).data['environment'], 'the proxy is the service\'s, not the machine\'s'
    assert sim.run(book, inv).changed('win1') == 0

    fewer = sim.run(playbook(sim, 'fewer.yml', container_runtime_registry_mirrors={'docker.io': mirrors['docker.io']},
                             container_runtime_https_proxy='http://proxy.example.com:3128',
                             container_runtime_no_proxy='10.0.0.0/8,.cluster.local'), inv)
    assert fewer.rc == 0, fewer.output
    assert node(sim).file(CERTS + '\\registry.local5000\\hosts.toml') is None
    assert node(sim).file(CERTS + '\\docker.io\\hosts.toml') is not None
    assert fewer.changed('win1') == 1 and service(sim, 'containerd')['starts'] == 1, 'hosts.toml needs no restart'


def test_proxy_credentials_are_not_logged(sim):
    run = sim.run(playbook(sim, container_runtime_http_proxy='http://user:s3cret@proxy.example.com:3128'),
                  inventory(sim))
    assert run.rc == 0, run.output
    assert service(sim, 'containerd')['environment'] == ['HTTP_PROXY=http://user:s3cret@proxy.example.com:3128']
    assert 's3cret' not in run.output
    assert 's3cret' not in str(role_result(run, 'Run containerd as a Windows service'))


# -- Docker Engine and cri-dockerd -----------------------------------------------------------

def docker_inventory(sim, overrides=None):
    return inventory(sim, runtime='docker', artifacts_checksum_overrides=overrides or DOCKER_OVERRIDES)


# Long (make unit-long): make test installs Docker in test_new_docker_binaries_restart_docker_then_cri_dockerd;
# make e2e converges the overlay-docker fleet.
@pytest.mark.long
def test_docker_check_converge_idempotent(sim):
    inv, book = docker_inventory(sim), playbook(sim)

    check = sim.run(book, inv, '--check')
    assert check.rc == 0 and check.changed('win1') > 0, check.output
    assert node(sim).file_paths() == [] and node(sim).data['services'] == {}

    run = sim.run(book, inv)
    assert run.rc == 0, run.output
    for path in ('C:\\Program Files\\docker\\dockerd.exe', 'C:\\Program Files\\docker\\docker.exe',
                 'C:\\Program Files\\cri-dockerd\\cri-dockerd.exe', 'C:\\k\\nssm.exe',
                 'C:\\k\\crictl.exe'):
        assert node(sim).file(path)['acl'] == 'protected', path
    assert node(sim).file(CONTAINERD_EXE) is None
    docker = service(sim, 'docker')
    assert docker['state'] == 'running'
    assert argv(sim, 'docker') == ['C:\\Program Files\\docker\\dockerd.exe', '--run-service']
    cri = service(sim, 'cri-dockerd')
    assert cri['state'] == 'running' and cri['dependencies'] == ['docker']
    assert argv(sim, 'cri-dockerd') == ['C:\\k\\nssm.exe']
    assert cri['nssm']['application'] == 'C:\\Program Files\\cri-dockerd\\cri-dockerd.exe'
    assert cri['nssm']['app_stdout'] == 'C:\\Program Files\\cri-dockerd\\cri-dockerd.log'
    assert programs.split_command_line(cri['nssm']['app_parameters']) == [
        '--container-runtime-endpoint=npipe:////./pipe/cri-dockerd',
        '--docker-endpoint=npipe:////./pipe/docker_engine',
        '--network-plugin=cni', '--cni-bin-dir=C:\\opt\\cni\\bin', '--cni-conf-dir=C:\\etc\\cni\\net.d',
        '--pod-infra-container-image=registry.k8s.io/pause:3.10', '--log-level=info']
    assert (docker['starts'], cri['starts']) == (1, 1)
    assert yaml.safe_load(text(sim, CRICTL_CONFIG))['runtime-endpoint'] == 'npipe:////./pipe/cri-dockerd'
    assert run.result('facts', 'win1')['result']['msg'] == {
        'endpoint': 'npipe:////./pipe/cri-dockerd', 'service': 'cri-dockerd', 'sandbox': 'registry.k8s.io/pause:3.10'}

    again = sim.run(book, inv)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert_no_remote_call_after_snapshot(again)
    check_again = sim.run(book, inv, '--check')
    assert check_again.rc == 0 and check_again.changed('win1') == 0, check_again.output


def test_new_docker_binaries_restart_docker_then_cri_dockerd(sim):
    newer = 'https://download.docker.com/win/static/stable/x86_64/docker-28.0.1.zip'
    # 28.0.1 is not in the catalog: the test pins what the simulated web serves for it.
    overrides = dict(DOCKER_OVERRIDES, docker={'28.0.1': 'sha256:' + hashlib.sha256(web.body(newer)).hexdigest()})
    inv = docker_inventory(sim, overrides)
    assert sim.run(playbook(sim), inv).rc == 0
    run = sim.run(playbook(sim, 'newer.yml', container_runtime_docker_version='28.0.1'), inv)
    assert run.rc == 0, run.output
    restarted = [t['task'] for t in run.tasks if t['task'].startswith(ROLE_TASKS + 'Restart') and t['changed']]
    # restarting docker stops cri-dockerd, and node_service starts it again: both run the new engine once
    assert restarted == [ROLE_TASKS + 'Restart docker']
    assert (service(sim, 'docker')['starts'], service(sim, 'cri-dockerd')['starts']) == (2, 2)
    assert service(sim, 'cri-dockerd')['state'] == 'running'


def test_docker_with_an_incompatible_cri_dockerd_fails_before_touching_the_node(sim):
    inv = docker_inventory(sim)
    with pytest.raises(VersionPolicyError) as policy:
        version_policy({'kubernetes_version': '1.33.4', 'windows_build': 20348, 'container_runtime': 'docker',
                        'cri_dockerd_version': '0.2.6'})
    run = sim.run(playbook(sim, container_runtime_cri_dockerd_version='0.2.6'), inv)
    assert run.rc != 0
    failed = role_result(run, 'Check the runtime and versions against the version policy')
    assert str(policy.value) in failed['result']['msg']
    assert 'cri-dockerd 0.2.6 speaks only CRI v1alpha2' in failed['result']['msg']
    assert run.calls['win1']['total'] == 1, 'only the snapshot'
    assert node(sim).file_paths() == [] and node(sim).data['services'] == {}


def test_an_unsupported_windows_build_fails_with_the_policy_message(sim):
    run = sim.run(playbook(sim), inventory(sim, build=17763, kubernetes='1.35.1'))
    assert run.rc != 0
    message = role_result(run, 'Check the runtime and versions against the version policy')['result']['msg']
    assert 'Windows Server 2019 (build 17763) is supported by Kubernetes 1.14-1.34' in message
    assert run.calls['win1']['total'] == 1


def test_without_the_snapshot_the_role_says_what_to_run(sim):
    run = sim.run(playbook(sim, snapshot=False), inventory(sim))
    assert run.rc != 0
    assert 'run kubewin.node.node_info first' in role_result(run, 'Check that the node state snapshot is there')[
        'result']['msg']
    assert run.calls == {}, 'no node was contacted'


@pytest.mark.parametrize('settings', [
    {'container_runtime_containerd_version': '1.6.36'},
    {'container_runtime_containerd_version': 'v2.2.1'},
    {'container_runtime_registry_mirrors': {'docker.io': 'https://mirror.example.com'}},
    {'container_runtime_registry_mirrors': {'docker.io': ['mirror.example.com']}},
])
def test_bad_settings_fail_before_touching_the_node(sim, settings):
    run = sim.run(playbook(sim, **settings), inventory(sim))
    assert run.rc != 0
    assert 'container_runtime_containerd_version must be a containerd 1.7.x or 2.x release' in role_result(
        run, 'Check the runtime settings')['result']['msg']
    assert run.calls['win1']['total'] == 1, 'only the snapshot'
