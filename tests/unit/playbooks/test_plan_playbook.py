"""playbooks/plan.yml renders every example inventory under inventory/, and refuses a bad plan before writing anything."""

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
EXAMPLE = os.path.join(ROOT, 'inventory', 'example')
# Every other example: one per topology and runtime, each checked below against what its comments promise.
EXAMPLES = sorted(name for name in os.listdir(os.path.join(ROOT, 'inventory')) if name != 'example')


def run_plan(inventory, plan_dir, extra=(), **env_vars):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1', **env_vars)
    command = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), 'playbooks/plan.yml',
               '-i', inventory, '-e', 'kubewin_plan_dir=%s' % plan_dir] + list(extra)
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)


def example_copy(tmp_path):
    inventory = tmp_path / 'inventory'
    shutil.copytree(EXAMPLE, inventory)
    return str(inventory)


def test_example_inventory_renders(tmp_path):
    result = run_plan(EXAMPLE, tmp_path / 'plan')
    assert result.returncode == 0, result.stdout + result.stderr
    # Its flanneld pin is the placeholder of zeros: plan.yml renders and says site.yml will refuse it.
    assert 'site.yml will refuse this inventory: flannel_version "0.28.9" (flanneld' in ' '.join(
        (result.stdout + result.stderr).split())
    nodes = sorted(p.name for p in (tmp_path / 'plan').iterdir() if p.is_dir())
    assert nodes == ['win-node-1', 'win-node-2', 'win-node-3']
    cni = json.loads((tmp_path / 'plan' / 'win-node-2' / 'cni.conf').read_text())
    assert cni['name'] == 'cbr0' and cni['delegate']['type'] == 'sdnbridge'
    assert cni['delegate']['AdditionalArgs'][0]['Value']['Settings']['Exceptions'] == [
        '10.244.0.0/16', '10.96.0.0/12', '10.127.130.0/24']
    assert cni['delegate']['AdditionalArgs'][2]['Value']['Settings']['DestinationPrefix'] == '10.127.130.39/32'
    net_conf = json.loads((tmp_path / 'plan' / 'win-node-2' / 'net-conf.json').read_text())
    assert net_conf['Backend']['Type'] == 'host-gw'
    summary = (tmp_path / 'plan' / 'summary.txt').read_text()
    assert 'win-node-3' in summary and '10.127.130.40' in summary and '10.244.0.0/16, 10.96.0.0/12' in summary
    assert picture_names(tmp_path / 'plan') >= {'win-node-1', 'win-node-2', 'win-node-3', '10.127.130.40',
                                                '10.244.0.0/16', '10.96.0.10', '10.127.130.0/24'}


def picture_names(plan_dir):
    """The words of ip-plan.svg's texts; the file must be there and be SVG."""
    root = ET.parse(plan_dir / 'ip-plan.svg').getroot()
    assert root.tag == '{http://www.w3.org/2000/svg}svg'
    return {word for element in root.iter('{http://www.w3.org/2000/svg}text') for word in ''.join(element.itertext()).split()}


def test_bad_plan_fails_with_the_filter_message_and_writes_nothing(tmp_path):
    inventory = example_copy(tmp_path)
    variables = tmp_path / 'inventory' / 'group_vars' / 'all' / 'kubewin.yml'
    data = yaml.safe_load(variables.read_text())
    data.update(kubewin_service_cidr='11.0.0.0/8', kubewin_dns_service_ip='11.0.0.10')
    variables.write_text(yaml.safe_dump(data))
    result = run_plan(inventory, tmp_path / 'plan')
    assert result.returncode != 0
    assert '11.0.0.0/8' in result.stdout and '/12' in result.stdout
    assert not (tmp_path / 'plan').exists()


def test_a_valid_ip_plan_is_rendered_although_site_yml_would_refuse_the_inventory(tmp_path):
    # What a new user has first: the IP plan only, no control-plane group and no Kubernetes version yet.
    inventory = tmp_path / 'hosts.yml'
    hosts = {name: {'ansible_host': '10.127.130.%d' % (10 + index), 'kubewin_pod_cidr': '10.244.%d.0/24' % index}
             for name, index in (('win-2', 2), ('win-10', 10))}
    inventory.write_text(yaml.safe_dump({'windows_nodes': {'hosts': hosts, 'vars': {
        'kubewin_topology': 'l2bridge', 'kubewin_l2bridge_routing': 'upstream', 'kubewin_cluster_cidr': '10.244.0.0/16',
        'kubewin_service_cidr': '10.96.0.0/12', 'kubewin_management_cidr': '10.127.130.0/24'}}}))
    result = run_plan(str(inventory), tmp_path / 'plan')
    output = ' '.join((result.stdout + result.stderr).split())
    assert result.returncode == 0, output
    assert rendered(tmp_path / 'plan', 'win-10')['ipam']['subnet'] == '10.244.10.0/24'
    summary = (tmp_path / 'plan' / 'summary.txt').read_text()
    assert 'site.yml will refuse this inventory until these are mended:' in summary
    assert 'the inventory has no hosts in the group kube_control_plane' in summary
    assert 'kubewin_kubernetes_version is not set' in summary
    assert 'The plan is rendered all the same' in output

    strict = run_plan(str(inventory), tmp_path / 'strict-plan', extra=['-e', 'kubewin_plan_strict=true'])
    assert strict.returncode != 0 and 'kube_control_plane' in strict.stdout
    assert not (tmp_path / 'strict-plan').exists()


def rendered(plan_dir, node, name='cni.conf'):
    return json.loads((plan_dir / node / name).read_text())


def l2bridge_static(plan_dir):
    # No flannel: the bridge plugin itself on each node's own range, routes instead of a net-conf.
    cni = rendered(plan_dir, 'win-node-2')
    assert cni['name'] == 'cbr0' and cni['type'] == 'sdnbridge' and cni['ipam']['subnet'] == '10.244.2.0/24'
    assert not (plan_dir / 'win-node-2' / 'net-conf.json').exists()


def overlay(plan_dir):
    cni = rendered(plan_dir, 'win-ovl-1')
    assert cni['name'] == 'flannel.4096' and cni['delegate']['type'] == 'sdnoverlay'
    # kubewin_management_ip, not the DNS name Kerberos needs in ansible_host, is the provider address.
    assert cni['delegate']['AdditionalArgs'][2]['Value']['Settings']['ProviderAddress'] == '10.127.130.41'
    assert rendered(plan_dir, 'win-ovl-1', 'net-conf.json')['Backend'] == {
        'Type': 'vxlan', 'VNI': 4096, 'Port': 4789, 'Name': 'flannel.4096'}


def overlay_docker(plan_dir):
    cni = rendered(plan_dir, 'win-dkr-2')
    assert cni['name'] == 'flannel.4096' and cni['delegate']['type'] == 'win-overlay'
    assert rendered(plan_dir, 'win-dkr-2', 'net-conf.json')['Backend']['Type'] == 'vxlan'


def ovn(plan_dir):
    cni = rendered(plan_dir, 'win-ovn-2')
    assert cni['type'] == 'ovn_cni.exe' and cni['ipam']['subnet'] == '10.244.12.0/24'


def dual_stack(plan_dir):
    # sdnbridge's dual-stack mode: a host-local range set per family, an OutBoundNAT policy per family.
    cni = rendered(plan_dir, 'win-ds-2')
    assert cni['type'] == 'sdnbridge' and cni['optionalFlags'] == {'enableDualStack': True}
    assert [ranges[0]['subnet'] for ranges in cni['ipam']['ranges']] == ['10.244.2.0/24', 'fd00:10:244:2::/64']
    assert [arg['Value']['Settings']['Exceptions'] for arg in cni['AdditionalArgs'][:2]] == [
        ['10.244.0.0/16', '10.96.0.0/12', '10.127.130.0/24'], ['fd00:10:244::/56', 'fd00:10:96::/112', 'fd00:127:130::/64']]
    summary = (plan_dir / 'summary.txt').read_text()
    assert 'IPv4 and IPv6 (dual-stack' in summary and 'fd00:127:130::42  fd00:10:244:2::/64' in summary
    assert {'fd00:127:130::42', 'fd00:10:244:2::/64'} <= picture_names(plan_dir)


EXPECTED = {'example-dualstack': dual_stack, 'example-l2bridge-static': l2bridge_static, 'example-overlay': overlay,
            'example-overlay-docker': overlay_docker, 'example-ovn': ovn}


def test_every_example_inventory_is_checked():
    assert EXAMPLES == sorted(EXPECTED)


# Rendered on a controller without drawsvg (example-overlay draws the same topology): the rest of the plan is
# written, a warning names the package, and the picture of an earlier run is removed, as it shows another plan.
WITHOUT_DRAWSVG = 'example-overlay-docker'


def hiding_drawsvg(folder):
    """PYTHONPATH on which ``import drawsvg`` fails as it does where the package is not installed."""
    (folder / 'drawsvg').mkdir(parents=True)
    (folder / 'drawsvg' / '__init__.py').write_text("raise ImportError('No module named drawsvg')\n")
    return os.pathsep.join(filter(None, [str(folder), os.environ.get('PYTHONPATH')]))


@pytest.mark.parametrize('name', EXAMPLES)
def test_example_inventories_render(tmp_path, name):
    env = {}
    if name == WITHOUT_DRAWSVG:
        (tmp_path / 'plan').mkdir()
        (tmp_path / 'plan' / 'ip-plan.svg').write_text('<svg xmlns="http://www.w3.org/2000/svg"/>\n')
        env['PYTHONPATH'] = hiding_drawsvg(tmp_path / 'hidden')
    result = run_plan(os.path.join(ROOT, 'inventory', name), tmp_path / 'plan', **env)
    assert result.returncode == 0, result.stdout + result.stderr
    EXPECTED[name](tmp_path / 'plan')
    if name == WITHOUT_DRAWSVG:
        assert 'pip install drawsvg==2.4.0 (the plan is written without ip-plan.svg)' in ' '.join(
            (result.stdout + result.stderr).split())
        assert not (tmp_path / 'plan' / 'ip-plan.svg').exists()
        return
    nodes = {p.name for p in (tmp_path / 'plan').iterdir() if p.is_dir()}
    assert nodes and nodes <= picture_names(tmp_path / 'plan')
