"""kubewin.node.node_service against a simulated node."""

import yaml

SERVICE = {
    'name': 'kube-proxy',
    'path': 'C:\\Program Files\\kubernetes\\kube-proxy.exe',
    'args': ['--windows-service', '--hostname-override=win1', '--cluster-cidr=10.244.0.0/16',
             '--kubeconfig=C:\\etc\\kubernetes\\kube proxy.conf', 'quote"inside', ''],
    'env': {'KUBE_NETWORK': 'cbr0'},
    'dependencies': ['kubelet'],
}


def playbook(sim, name='svc.yml', **overrides):
    tasks = [{'name': 'snapshot', 'kubewin.node.node_info': {}},
             {'name': 'service', 'kubewin.node.node_service': dict(SERVICE, **overrides)}]
    return sim.write(name, yaml.safe_dump([{'hosts': 'windows_nodes', 'gather_facts': False, 'tasks': tasks}]))


def prepared(sim, one_node):
    """A node that has the program and a running kubelet to depend on."""
    inventory = one_node()
    with sim.edit_node('win1', profile={'ip': '10.127.130.38', 'features': {'Containers': 'installed'}}) as node:
        node.write_file(SERVICE['path'], sha256='aa' * 32, size=10)
        node.data['services']['kubelet'] = {'name': 'kubelet', 'exists': True, 'state': 'running',
                                            'start_mode': 'auto', 'command_line': 'C:\\k\\kubelet.exe',
                                            'dependencies': [], 'environment': [], 'nssm': None}
    return inventory


def service(sim):
    return sim.node('win1').data['services']['kube-proxy']


def test_check_create_idempotent_check(sim, one_node):
    inventory = prepared(sim, one_node)
    check = sim.run(playbook(sim), inventory, '--check', '--diff')
    assert check.rc == 0 and check.result('service', 'win1')['changed'], check.output
    assert check.result('service', 'win1')['result']['operations'] == ['create', 'start']
    assert 'kube-proxy' not in sim.node('win1').data['services']

    run = sim.run(playbook(sim), inventory)
    assert run.rc == 0, run.output
    created = service(sim)
    assert created['state'] == 'running' and created['environment'] == ['KUBE_NETWORK=cbr0']
    assert created['command_line'] == (
        '"C:\\Program Files\\kubernetes\\kube-proxy.exe" --windows-service --hostname-override=win1 '
        '--cluster-cidr=10.244.0.0/16 "--kubeconfig=C:\\etc\\kubernetes\\kube proxy.conf" "quote\\"inside" ""')
    assert created['recovery']['actions'] == [{'type': 'restart', 'delay_ms': 10000},
                                              {'type': 'restart', 'delay_ms': 30000},
                                              {'type': 'restart', 'delay_ms': 60000}]

    again = sim.run(playbook(sim), inventory)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1
    assert sim.run(playbook(sim), inventory, '--check').changed('win1') == 0
    assert service(sim)['starts'] == 1, 'never restarted when nothing changed'


def test_a_changed_flag_reconfigures_and_restarts(sim, one_node):
    inventory = prepared(sim, one_node)
    assert sim.run(playbook(sim), inventory).rc == 0
    changed = sim.run(playbook(sim, 'b.yml', args=SERVICE['args'] + ['--v=4']), inventory, '--diff')
    assert changed.rc == 0, changed.output
    result = changed.result('service', 'win1')['result']
    assert result['operations'] == ['configure', 'restart']
    assert result['diff']['after']['command_line'][-1] == '--v=4'
    assert service(sim)['starts'] == 2


def test_quoting_differences_alone_are_no_change(sim, one_node):
    inventory = prepared(sim, one_node)
    assert sim.run(playbook(sim), inventory).rc == 0
    with sim.edit_node('win1') as node:
        line = node.data['services']['kube-proxy']['command_line']
        node.data['services']['kube-proxy']['command_line'] = line.replace('--windows-service', '"--windows-service"')
    assert sim.run(playbook(sim), inventory).changed('win1') == 0


def test_missing_program_fails_before_anything_changes(sim, one_node):
    inventory = prepared(sim, one_node)
    run = sim.run(playbook(sim, path='C:\\k\\nope.exe'), inventory)
    assert run.rc != 0
    # node_service_apply.ps1 checks the replacement's program before it creates, changes or stops the service.
    assert 'service kube-proxy was not changed: its program C:\\k\\nope.exe does not exist' in \
        run.result('service', 'win1')['result']['msg']
    assert 'kube-proxy' not in sim.node('win1').data['services']


def test_stop_and_remove(sim, one_node):
    inventory = prepared(sim, one_node)
    assert sim.run(playbook(sim), inventory).rc == 0
    stopped = sim.run(playbook(sim, 'stop.yml', state='stopped'), inventory)
    assert stopped.rc == 0 and service(sim)['state'] == 'stopped'
    removed = sim.run(playbook(sim, 'rm.yml', state='absent'), inventory)
    assert removed.rc == 0 and removed.changed('win1') == 1
    assert 'kube-proxy' not in sim.node('win1').data['services']
    assert sim.run(playbook(sim, 'rm.yml', state='absent'), inventory).changed('win1') == 0


def test_log_file_needs_a_runner_or_nssm(sim, one_node):
    inventory = prepared(sim, one_node)
    refused = sim.run(playbook(sim, log_file='C:\\var\\log\\kp.log'), inventory)
    assert refused.rc != 0 and 'kube-log-runner' in refused.result('service', 'win1')['result']['msg']
    with sim.edit_node('win1') as node:
        node.write_file('C:\\k\\kube-log-runner.exe', sha256='bb' * 32, size=10)
        node.write_file('C:\\k\\nssm.exe', sha256='cc' * 32, size=10)
    native = sim.run(playbook(sim, log_file='C:\\var\\log\\kp.log', log_runner='C:\\k\\kube-log-runner.exe'),
                     inventory)
    assert native.rc == 0, native.output
    assert service(sim)['command_line'].startswith('C:\\k\\kube-log-runner.exe -log-file=C:\\var\\log\\kp.log '
                                                   '"C:\\Program Files\\kubernetes\\kube-proxy.exe"')
    nssm = sim.run(playbook(sim, 'n.yml', log_file='C:\\var\\log\\kp.log', wrapper='nssm',
                            nssm_path='C:\\k\\nssm.exe'), inventory)
    assert nssm.rc == 0, nssm.output
    assert service(sim)['command_line'] == 'C:\\k\\nssm.exe'
    assert service(sim)['nssm']['app_stdout'] == 'C:\\var\\log\\kp.log'
    assert sim.node('win1').is_directory('C:\\var\\log'), 'nssm starts nothing without the folder of its output'
    assert sim.run(playbook(sim, 'n.yml', log_file='C:\\var\\log\\kp.log', wrapper='nssm',
                            nssm_path='C:\\k\\nssm.exe'), inventory).changed('win1') == 0


def test_restarting_a_service_starts_again_the_services_that_depend_on_it(sim, one_node):
    """Restart-Service -Force stops the dependents and starts those that were running again (Service.cs)."""
    inventory = prepared(sim, one_node)
    assert sim.run(playbook(sim), inventory).rc == 0
    with sim.edit_node('win1') as node:
        node.write_file('C:\\k\\monitor.exe', sha256='dd' * 32, size=10)
        node.data['services']['monitor'] = {'name': 'monitor', 'exists': True, 'state': 'running', 'start_mode': 'auto',
                                            'command_line': 'C:\\k\\monitor.exe', 'dependencies': ['kube-proxy'],
                                            'environment': [], 'nssm': None}
    restart = sim.run(playbook(sim, 'r.yml', state='restarted'), inventory)
    assert restart.rc == 0, restart.output
    services = sim.node('win1').data['services']
    assert services['kube-proxy']['starts'] == 2
    assert services['monitor']['state'] == 'running' and services['monitor']['starts'] == 1, 'the dependent runs again'
    reported = restart.result('service', 'win1')['result']['ansible_facts']['kubewin_node']['services']
    assert reported['monitor']['state'] == 'running', 'and the snapshot says so'


def test_taking_over_a_service_the_sdn_scripts_wrapped_in_nssm(sim, one_node):
    """start.ps1 (Microsoft SDN) installs kube-proxy with nssm; registered as a native service, it loses nssm's
    settings, runs its own program, and the next run changes nothing. Check mode predicts the same change."""
    inventory = prepared(sim, one_node)
    with sim.edit_node('win1') as node:
        for path in ('C:\\k\\nssm.exe', 'C:\\k\\kube-proxy.exe'):
            node.write_file(path, sha256='ee' * 32, size=10)
        node.data['services']['kube-proxy'] = {
            'name': 'kube-proxy', 'exists': True, 'state': 'running', 'start_mode': 'auto',
            'command_line': 'C:\\k\\nssm.exe', 'dependencies': [], 'environment': [],
            'nssm': {'application': 'C:\\k\\kube-proxy.exe', 'app_parameters': '--v=4 --proxy-mode=kernelspace',
                     'app_directory': 'C:\\k', 'app_stdout': None, 'app_stderr': None, 'app_rotate_bytes': None}}
    check = sim.run(playbook(sim), inventory, '--check')
    assert check.rc == 0 and check.result('service', 'win1')['result']['operations'] == ['configure', 'restart']
    assert service(sim)['nssm'] is not None, 'check mode changed nothing'

    run = sim.run(playbook(sim), inventory)
    assert run.rc == 0, run.output
    assert run.result('service', 'win1')['result']['operations'] == ['configure', 'restart']
    taken_over = service(sim)
    assert taken_over['nssm'] is None and taken_over['state'] == 'running'
    assert taken_over['command_line'].startswith('"C:\\Program Files\\kubernetes\\kube-proxy.exe" --windows-service')
    assert sim.run(playbook(sim), inventory).changed('win1') == 0
