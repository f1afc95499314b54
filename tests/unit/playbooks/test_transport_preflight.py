"""The transport preflight in the controller play: site.yml stops before any Windows node is contacted when the
inventory reaches one over an insecure WinRM transport, and warns about an insecure transport the
inventory accepted. No host is contacted: each node's ansible_host is loopback all the same."""

import os
import re
import subprocess
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))

CLUSTER = {'kubewin_topology': 'l2bridge', 'kubewin_cluster_cidr': '10.244.0.0/16',
           'kubewin_service_cidr': '10.96.0.0/12', 'kubewin_management_cidr': '10.127.130.0/24',
           'kubewin_kubernetes_version': '1.31.14'}
HOSTS = {
    # What inventory/example does: PSRP over HTTPS with the certificate validated.
    'win-https': {'ansible_connection': 'psrp', 'ansible_psrp_protocol': 'https',
                  'ansible_psrp_cert_validation': 'validate'},
    # Kerberos over HTTP with message encryption (the default).
    'win-kerberos': {'ansible_connection': 'winrm', 'ansible_port': 5985, 'ansible_winrm_transport': 'kerberos'},
    'win-basic': {'ansible_connection': 'winrm', 'ansible_port': 5985, 'ansible_winrm_transport': 'basic'},
    'win-ntlm': {'ansible_connection': 'psrp', 'ansible_psrp_protocol': 'http', 'ansible_psrp_auth': 'ntlm',
                 'ansible_psrp_message_encryption': 'never'},
}


def inventory(tmp_path, **extra):
    hosts = {}
    for index, (name, variables) in enumerate(HOSTS.items()):
        hosts[name] = dict(variables, ansible_host='127.0.0.1', kubewin_management_ip='10.127.130.%d' % (40 + index),
                           **extra.get(name, {}))
    path = tmp_path / 'hosts.yml'
    # The control-plane host site.yml needs (never contacted here: the controller play fails, or --tags plan
    # leaves only argument validation), and the pin of flanneld, whose upstream publishes no hash file.
    path.write_text(yaml.safe_dump({
        'windows_nodes': {'hosts': hosts, 'vars': dict(CLUSTER, artifacts_checksum_overrides={
            'flanneld': {'0.28.9': 'sha256:' + '1' * 64}})},
        'kube_control_plane': {'hosts': {'cp1': {'ansible_host': '127.0.0.1', 'ansible_connection': 'local'}}}}))
    return str(path)


def run(playbook, inventory_path, *args):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    command = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), playbook, '-i', inventory_path, *args]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    recap = result.stdout.split('PLAY RECAP', 1)[1]
    return result.returncode, ' '.join((result.stdout + result.stderr).split()), ' '.join(recap.split())


def test_site_refuses_basic_and_unencrypted_ntlm_over_http_in_the_controller_play(tmp_path):
    returncode, output, recap = run('playbooks/site.yml', inventory(tmp_path))
    assert returncode == 2, output
    assert ('insecure WinRM transport to 2 Windows node(s), refused before any node is contacted: '
            'win-basic: ansible_winrm_transport=basic over plain HTTP (ansible_port=5985)') in output
    assert ('win-ntlm: ansible_psrp_auth=ntlm with ansible_psrp_message_encryption=never over plain HTTP '
            '(ansible_psrp_protocol=http)') in output
    assert 'set kubewin_allow_insecure_transport: true' in output
    assert 'win-https:' not in output and 'win-kerberos:' not in output
    assert 'localhost' in recap and 'win-' not in recap, 'no Windows node was contacted'


def test_site_warns_about_insecure_transports_the_inventory_accepts(tmp_path):
    accepted = {'kubewin_allow_insecure_transport': True}
    # The controller play runs (it is tagged always); the plays on the nodes have no task tagged plan.
    inventory_path = inventory(tmp_path, **{'win-basic': accepted, 'win-ntlm': accepted})
    returncode, output, recap = run('playbooks/site.yml', inventory_path, '--tags', 'plan')
    assert returncode == 0, output
    assert ('[WARNING]: kubewin_allow_insecure_transport is true for 2 Windows node(s) with an insecure WinRM '
            'transport: win-basic: ansible_winrm_transport=basic over plain HTTP') in output
    assert 'win-ntlm: ansible_psrp_auth=ntlm with ansible_psrp_message_encryption=never' in output
    # On the nodes only the prerequisites role's argument validation ran, which is tagged always and contacts no host.
    node_tasks = re.findall(r'TASK \[([^]]+)\]', output.split('PLAY [Prepare the Windows nodes]', 1)[1].split('PLAY [', 1)[0])
    assert node_tasks == ["kubewin.node.prerequisites : Validating arguments against arg spec 'prepare' - What the "
                          "role does after the snapshot and the early-end decision"], node_tasks
    assert recap.count('unreachable=0 failed=0') == 2 + len(HOSTS), recap
