"""Run playbooks against simulated nodes from pytest and read back what happened."""

import json
import os
import subprocess

import yaml

from kubewin_sim import cluster as sim_cluster
from kubewin_sim.node import open_node, peek

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(HERE))
WRAPPER = os.path.join(HERE, 'ansible-playbook')


class RunResult:
    """Outcome of one tests/simulation/ansible-playbook run."""

    def __init__(self, rc, output, records, calls, api_calls=None, report=None):
        self.rc = rc
        self.output = output
        self.tasks = [r for r in records if r['type'] == 'task']
        stats = [r for r in records if r['type'] == 'stats']
        self.stats = stats[-1]['hosts'] if stats else {}
        self.calls = calls
        # Calls to the simulated Kubernetes API: {'total': n, 'by_kind': {'k8s_info:Node': n, ...}}
        self.api_calls = api_calls or {'total': 0, 'by_kind': {}}
        # The fleet report the playbook wrote (kubewin.node.fleet_report), rows by node; None when it wrote none.
        self.report = report

    def report_row(self, host):
        rows = [row for row in (self.report or {}).get('nodes', []) if row['node'] == host]
        assert len(rows) == 1, 'expected one fleet report row of %s, got %d\n%s' % (host, len(rows), self.output)
        return rows[0]

    def results(self, task, host=None):
        """Results of a task by name; a role's task also by its name without the ``<role> : `` prefix."""
        return [t for t in self.tasks if (t['task'] == task or t['task'].endswith(' : ' + task))
                and (host is None or t['host'] == host)]

    def result(self, task, host):
        found = self.results(task, host)
        assert len(found) == 1, 'expected one result of %r on %s, got %d\n%s' % (task, host, len(found), self.output)
        return found[0]

    def changed(self, host):
        return self.stats[host]['changed']

    def node_changes(self, host):
        """How many things the modules that work on a node (kubewin.node, ansible.windows) changed on ``host``: each
        changed item of a loop counts, and a task that is only marked changed (a debug note) does not."""
        count = 0
        for task in self.tasks:
            if task['host'] != host or not task['action'].startswith(('kubewin.node.', 'ansible.windows.')):
                continue
            items = task['result'].get('results')
            count += sum(1 for item in items if item.get('changed')) if items is not None else int(task['changed'])
        return count

    def changed_tasks(self, host):
        """How many tasks of the modules that work on a node changed ``host``, as the play recap counts them (a loop
        is one task, whatever its changed items)."""
        return sum(1 for task in self.tasks if task['host'] == host and task['changed']
                   and task['action'].startswith(('kubewin.node.', 'ansible.windows.')))

    def attempted_calls(self, host):
        """The remote calls made to ``host``, those its dropped network did not answer included."""
        calls = self.calls.get(host, {})
        return calls.get('total', 0) + calls.get('unreachable_attempts', 0)


class Simulation:
    """A scratch directory with an inventory, playbooks and the state of its simulated nodes."""

    def __init__(self, workdir):
        self.workdir = str(workdir)
        self.state_dir = os.path.join(self.workdir, 'state')
        os.makedirs(self.state_dir, exist_ok=True)

    def path(self, name):
        return os.path.join(self.workdir, name)

    def write(self, name, content):
        path = self.path(name)
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write(content if isinstance(content, str) else yaml.safe_dump(content, sort_keys=False))
        return path

    def inventory(self, hosts, group_vars=None, name='inventory.yml', control_plane=None):
        """hosts: {hostname: hostvars}; all in windows_nodes. control_plane: {hostname: hostvars} of
        kube_control_plane, hosts that run locally against the simulated cluster."""
        groups = {'windows_nodes': {'hosts': hosts, 'vars': group_vars or {}}}
        if control_plane is not None:
            groups['kube_control_plane'] = {'hosts': control_plane}
        return self.write(name, groups)

    def node(self, host):
        return peek(self.state_dir, host)

    def edit_node(self, host, profile=None):
        """Context manager giving the node to change its state before a run."""
        return open_node(self.state_dir, host, profile=profile)

    def cluster(self):
        """The simulated cluster (None before its first use)."""
        return sim_cluster.peek(self.state_dir)

    def edit_cluster(self, profile=None):
        """Context manager giving the cluster (created from ``profile`` when new) to change it before a run."""
        return sim_cluster.open_cluster(self.state_dir, profile=profile)

    def run(self, playbook, inventory, *args, env=None):
        results = self.path('results.jsonl')
        if os.path.exists(results):
            os.remove(results)
        # The playbooks' fleet reports go to the scratch directory, not the checkout (an -e in args wins).
        report_dir = self.path('reports')
        report_path = os.path.join(report_dir, os.path.splitext(os.path.basename(playbook))[0] + '.json')
        if os.path.exists(report_path):
            os.remove(report_path)
        environment = dict(os.environ, KUBEWIN_SIM_STATE_DIR=self.state_dir, KUBEWIN_SIM_RESULTS=results,
                           ANSIBLE_NOCOLOR='1', ANSIBLE_FORCE_COLOR='0', **(env or {}))
        command = [WRAPPER, playbook, '-i', inventory, '-e', 'kubewin_report_dir=' + report_dir] + list(args)
        process = subprocess.run(command, cwd=ROOT, env=environment,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
        records = []
        if os.path.exists(results):
            with open(results, encoding='utf-8') as handle:
                records = [json.loads(line) for line in handle if line.strip()]
        calls_path = os.path.join(self.state_dir, 'last-run-calls.json')
        calls = {}
        if os.path.exists(calls_path):
            with open(calls_path, encoding='utf-8') as handle:
                calls = json.load(handle)
        api_calls = None
        api_calls_path = os.path.join(self.state_dir, 'last-run-api-calls.json')
        if os.path.exists(api_calls_path):
            with open(api_calls_path, encoding='utf-8') as handle:
                api_calls = json.load(handle)
        report = None
        if os.path.exists(report_path):
            with open(report_path, encoding='utf-8') as handle:
                report = json.load(handle)
        return RunResult(process.returncode, process.stdout, records, calls, api_calls, report)
