"""Every manifest the roles apply is valid Kubernetes for every supported minor version.

Templates are rendered offline with the roles' own defaults and validated with
kubernetes-validate (strict: unknown fields are errors) for each minor from
MIN_MINOR to the newest schema kubernetes-validate has. The objects the roles
leave in the simulated cluster, including what their patches produce, are
validated too.
"""

import datetime
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from kubernetes_validate.utils import latest_version

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

ROOT = Path(__file__).resolve().parents[3]
MIN_MINOR = 29
LATEST_MINOR = int(latest_version().split('.')[1])
MINORS = ['1.%d' % minor for minor in range(MIN_MINOR, LATEST_MINOR + 1)]
TEMPLATES = sorted(ROOT.glob('roles/*/templates/*.yml.j2'))

TOKEN = {'token': 'abcdef.0123456789abcdef', 'token_id': 'abcdef', 'expires': '2026-03-01T13:00:00Z',
         'reused': False}
FLANNEL_CFG = {'metadata': {'name': 'kube-flannel-cfg', 'namespace': 'kube-flannel'}}
FLANNEL_CHECK = {'reconciled_text': '{\n  "Network": "10.244.0.0/16",\n  "Backend": {"Type": "vxlan", "VNI": 4096, '
                                    '"Port": 4789}\n}\n'}

# What each template is rendered with, on top of its role's defaults and vars: one or more cases.
CASES = {
    'control_plane/runtime-class.yml.j2': [{'control_plane_build': build} for build in (17763, 20348, 26100, 25398)],
    'control_plane/bootstrap-token.yml.j2': [{'control_plane_token': TOKEN}],
    'control_plane/service-account-token.yml.j2': [
        {'item': {'name': 'kube-proxy', 'namespace': 'kube-system', 'service_account': 'kube-proxy',
                  'secret': 'kubewin-kube-proxy-windows-token'}},
        {'item': {'name': 'flannel', 'namespace': 'kube-flannel', 'service_account': 'flannel',
                  'secret': 'kubewin-flannel-windows-token'}}],
    'control_plane/flannel-net-conf.yml.j2': [{'control_plane_flannel_cfg': FLANNEL_CFG,
                                               'control_plane_flannel_check': FLANNEL_CHECK}],
    'verify/sample-deployment.yml.j2': [{'verify_sample_build': build,
                                         'verify_sample_image_of_build': {17763: 'mcr.microsoft.com/windows/servercore:'
                                                                                 'ltsc2019',
                                                                          20348: 'mcr.microsoft.com/windows/servercore:'
                                                                                 'ltsc2022'}}
                                        for build in (17763, 20348)],
    'verify/sample-service.yml.j2': [{}],
}


def role_variables(role):
    variables = {}
    for name in ('defaults/main.yml', 'vars/main.yml'):
        path = ROOT / 'roles' / role / name
        if path.exists():
            variables.update(yaml.safe_load(path.read_text()) or {})
    return variables


def render(template, extra):
    role = template.parts[-3]
    templar = Templar(loader=DataLoader(), variables=dict(role_variables(role), **extra))
    return yaml.safe_load(templar.template(trust_as_template(template.read_text())))


def template_id(template):
    return '%s/%s' % (template.parts[-3], template.name)


def test_every_template_has_render_cases():
    assert TEMPLATES and sorted(template_id(t) for t in TEMPLATES) == sorted(CASES)
    assert MINORS[0] == '1.29' and len(MINORS) >= 2


@pytest.mark.parametrize('template', TEMPLATES, ids=template_id)
def test_template_renders_valid_manifests_for_every_minor(template):
    for case in CASES[template_id(template)]:
        manifest = render(template, case)
        assert manifest['apiVersion'] and manifest['kind'] and manifest['metadata']['name']
        for minor in MINORS:
            kubernetes_validate.validate(manifest, minor, strict=True)


def test_rendered_values_are_what_the_roles_promise():
    runtime_class = render(ROOT / 'roles/control_plane/templates/runtime-class.yml.j2', {'control_plane_build': 25398})
    assert runtime_class['metadata']['name'] == 'windows-25398'
    assert runtime_class['scheduling']['nodeSelector']['node.kubernetes.io/windows-build'] == '10.0.25398'
    secret = render(ROOT / 'roles/control_plane/templates/bootstrap-token.yml.j2', {'control_plane_token': TOKEN})
    assert secret['metadata']['name'] == 'bootstrap-token-abcdef'
    assert secret['stringData']['token-secret'] == '0123456789abcdef'
    assert all(isinstance(value, str) for value in secret['stringData'].values())
    expiration = datetime.datetime.strptime(secret['stringData']['expiration'], '%Y-%m-%dT%H:%M:%SZ')
    assert expiration.year == 2026
    deployment = render(ROOT / 'roles/verify/templates/sample-deployment.yml.j2', CASES[
        'verify/sample-deployment.yml.j2'][0])
    pod = deployment['spec']['template']['spec']
    assert pod['nodeSelector'] == {'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763'}
    assert pod['containers'][0]['image'].endswith(':ltsc2019')
    assert "Prefixes.Add('http://*:80/')" in pod['containers'][0]['command'][-1]


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
      control_plane_windows_builds: [17763, 20348]
      control_plane_patch_flannel: true
    - role: kubewin.node.verify
      verify_node_timeout: 2
      verify_poll_interval: 1
      verify_sample_timeout: 3
      verify_sample_workload: true
      verify_sample_keep: true
'''

ROLE_KINDS = ('RuntimeClass', 'Secret', 'ConfigMap', 'DaemonSet', 'Deployment', 'Service')


def test_objects_the_roles_leave_in_the_cluster_are_valid(sim, inventory, joined):
    joined()
    with sim.edit_cluster(profile={'flannel_backend': {'Type': 'vxlan', 'VNI': 1}, 'daemonsets_select_linux': False}):
        pass
    run = sim.run(sim.write('all.yml', PLAYBOOK), inventory())
    assert run.rc == 0, run.output
    cluster = sim.cluster()
    minor = '.'.join(cluster.profile['version'].lstrip('v').split('.')[:2])
    checked = 0
    for kind in ROLE_KINDS:
        for obj in cluster.data['objects'][kind].values():
            kubernetes_validate.validate(obj, minor, strict=True)
            checked += 1
    assert checked >= 12
