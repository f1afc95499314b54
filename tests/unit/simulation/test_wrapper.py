"""tests/simulation/ansible-playbook works on its own with the shipped e2e inventories, as README.md shows it:
the simulated web serves the artifact catalog's pins, and the simulated cluster is the one the inventory's
control-plane host describes (kubewin_sim_cluster), without tests/e2e/run preparing either."""

import json
import os
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.node import peek  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
WRAPPER = os.path.join(ROOT, 'tests', 'simulation', 'ansible-playbook')
# flannel host-gw, containerd: the kubewin_sim_cluster of its cp1 sets the cluster's flannel backend.
INVENTORY = os.path.join('tests', 'e2e', 'inventories', 'l2bridge-flannel')
with open(os.path.join(ROOT, 'roles', 'flannel', 'defaults', 'main.yml'), encoding='utf-8') as _defaults:
    FLANNEL = yaml.safe_load(_defaults)

# What site.yml's flannel role downloads on an l2bridge containerd node: sdn-cni and nssm are pinned in the
# catalog, flanneld by the inventory's artifacts_checksum_overrides. Versions as the role has them.
INSTALL = [
    {'component': 'sdn-cni', 'version': FLANNEL['flannel_sdn_cni_version'], 'dest': 'C:\\opt\\cni\\bin'},
    {'component': 'nssm', 'version': FLANNEL['flannel_nssm_version'], 'dest': 'C:\\k'},
    {'component': 'flanneld', 'version': FLANNEL['flannel_version'], 'dest': 'C:\\k\\flanneld.exe'},
]

PLAYBOOK = '''
- hosts: kube_control_plane[0]
  gather_facts: false
  tasks:
    - name: Read flannel's net-conf from the cluster
      kubernetes.core.k8s_info:
        kind: ConfigMap
        namespace: kube-flannel
        name: kube-flannel-cfg
      register: flannel_cfg

    - name: The cluster is the inventory's (kubewin_sim_cluster of cp1), not the simulation's default (vxlan)
      ansible.builtin.assert:
        that: (flannel_cfg.resources[0].data['net-conf.json'] | from_json).Backend.Type == 'host-gw'

- hosts: windows_nodes[0]
  gather_facts: false
  tasks:
    - name: Snapshot
      kubewin.node.node_info:

    - name: Install what the flannel role installs
      ansible.builtin.include_role:
        name: kubewin.node.artifacts
      vars:
        artifacts_install: %s
'''


def test_the_wrapper_runs_a_shipped_inventory_without_preparation(tmp_path):
    playbook = tmp_path / 'wrapper.yml'
    playbook.write_text(PLAYBOOK % json.dumps(INSTALL))
    state = tmp_path / 'state'
    env = dict(os.environ, KUBEWIN_SIM_STATE_DIR=str(state), KUBEWIN_PYTHON=sys.executable, ANSIBLE_NOCOLOR='1')
    result = subprocess.run([WRAPPER, str(playbook), '-i', INVENTORY], cwd=ROOT, env=env,
                            capture_output=True, text=True, check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert 'checksum mismatch' not in output
    node = peek(str(state), 'win-1')
    for path in ('C:\\opt\\cni\\bin\\sdnbridge.exe', 'C:\\opt\\cni\\bin\\sdnoverlay.exe', 'C:\\k\\nssm.exe',
                 'C:\\k\\flanneld.exe'):
        assert node.file(path), path
