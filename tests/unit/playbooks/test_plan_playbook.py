"""playbooks/plan.yml renders the example inventory, and refuses a bad plan before writing anything."""

import json
import os
import shutil
import subprocess
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
EXAMPLE = os.path.join(ROOT, 'inventory', 'example')


def run_plan(inventory, plan_dir):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    command = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), 'playbooks/plan.yml',
               '-i', inventory, '-e', 'kubewin_plan_dir=%s' % plan_dir]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)


def pinned_example(tmp_path):
    """The example inventory with the pin a site adds for flanneld, whose upstream publishes no hash file: plan.yml
    refuses to render a fleet it could not install. The pin is made up; nothing is downloaded."""
    inventory = tmp_path / 'inventory'
    shutil.copytree(EXAMPLE, inventory)
    (inventory / 'group_vars' / 'all' / 'pins.yml').write_text(yaml.safe_dump(
        {'artifacts_checksum_overrides': {'flanneld': {'0.28.9': 'sha256:' + '1' * 64}}}))
    return str(inventory)


def test_example_inventory_renders(tmp_path):
    result = run_plan(pinned_example(tmp_path), tmp_path / 'plan')
    assert result.returncode == 0, result.stdout + result.stderr
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


def test_bad_plan_fails_with_the_filter_message_and_writes_nothing(tmp_path):
    inventory = pinned_example(tmp_path)
    variables = tmp_path / 'inventory' / 'group_vars' / 'all' / 'kubewin.yml'
    data = yaml.safe_load(variables.read_text())
    data.update(kubewin_service_cidr='11.0.0.0/8', kubewin_dns_service_ip='11.0.0.10')
    variables.write_text(yaml.safe_dump(data))
    result = run_plan(inventory, tmp_path / 'plan')
    assert result.returncode != 0
    assert '11.0.0.0/8' in result.stdout and '/12' in result.stdout
    assert not (tmp_path / 'plan').exists()
