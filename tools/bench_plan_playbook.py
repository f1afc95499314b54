# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Time playbooks/plan.yml, as an operator runs it, on an inventory of N Windows nodes.

Writes an inventory of N l2bridge nodes with flannel (each gets a cni.conf and a net-conf.json), runs
``ansible-playbook playbooks/plan.yml`` on it with the checkout's ansible.cfg, and prints the wall seconds;
exits 1 when a run fails or takes longer than its budget. Contacts no host.

Usage: bench_plan_playbook.py [--nodes 40 1000] [--budget 15]
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def flannel_version() -> str:
    return yaml.safe_load((ROOT / 'roles' / 'flannel' / 'defaults' / 'main.yml').read_text(encoding='utf-8'))['flannel_version']


def write_inventory(folder: Path, count: int) -> Path:
    management = ipaddress.ip_network('172.16.0.0/16')
    hosts = {'win-%d' % (index + 1): {'ansible_host': str(management[index + 10])} for index in range(count)}
    inventory = {'all': {'children': {'windows_nodes': {'hosts': hosts},
                                      'kube_control_plane': {'hosts': {'cp1': {'ansible_host': '172.16.0.2'}}}},
                         'vars': {'kubewin_topology': 'l2bridge', 'kubewin_kubernetes_version': '1.33.13',
                                  'kubewin_cluster_cidr': '10.128.0.0/12', 'kubewin_service_cidr': '10.96.0.0/12',
                                  'kubewin_management_cidr': str(management),
                                  'kubewin_node_count': count,
                                  # flanneld publishes no hash: pinned as the examples do, with the placeholder.
                                  'artifacts_checksum_overrides': {'flanneld': {flannel_version(): 'sha256:' + '0' * 64}}}}}
    path = folder / 'inventory.yml'
    path.write_text(yaml.safe_dump(inventory), encoding='utf-8')
    return path


def run(count: int) -> tuple[float, int, str]:
    with tempfile.TemporaryDirectory(prefix='kubewin-bench-plan-') as tmp:
        folder = Path(tmp)
        inventory = write_inventory(folder, count)
        command = [str(Path(sys.executable).with_name('ansible-playbook')), 'playbooks/plan.yml', '-i', str(inventory),
                   '-e', 'kubewin_plan_dir=%s' % (folder / 'plan')]
        environment = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'))
        started = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False)
        seconds = time.monotonic() - started
        written = len(list((folder / 'plan').glob('*/cni.conf'))) if done.returncode == 0 else 0
        if written != count and done.returncode == 0:
            return seconds, 1, 'wrote %d cni.conf for %d nodes' % (written, count)
        return seconds, done.returncode, done.stdout[-2000:] + done.stderr[-2000:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--nodes', type=int, nargs='+', default=[40, 1000])
    parser.add_argument('--budget', type=float, default=15.0, help='seconds allowed for the largest fleet')
    args = parser.parse_args(argv)
    status = 0
    for count in args.nodes:
        seconds, code, output = run(count)
        print('plan.yml nodes=%d seconds=%.1f rc=%d' % (count, seconds, code))
        if code != 0:
            print(output, file=sys.stderr)
            status = 1
    if seconds > args.budget:
        print('over budget: %.1fs > %.1fs for %d nodes' % (seconds, args.budget, args.nodes[-1]), file=sys.stderr)
        status = 1
    return status


if __name__ == '__main__':
    sys.exit(main())
