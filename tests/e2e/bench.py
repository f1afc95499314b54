"""Benchmark: the floor, a no-op and a converge of simulated overlay fleets of several sizes (make bench-fleet).

For each size N it writes an N-node overlay inventory (the shape of inventories/overlay) and
runs, on the fresh fleet: site.yml (the converge), site.yml again (the no-op, where every node
ends early), and the floor of a drift check, a playbook whose single task is
kubewin.node.node_info. Per node it reports remote calls, wall seconds (of the run divided by N)
and CPU seconds of ansible-playbook and everything it started, divided by N: in all, of the
simulated Windows side (the fake modules, kubewin_sim/calls.py) and of the controller (the rest).
The ratio no-op/floor is given for both CPU figures. Then, for each e2e fleet (inventories/*), the
remote calls per node of its fresh converge against the budget its hosts.yml states
(e2e_converge_call_budget). Exits 1 when a run fails, a no-op re-run changes anything or makes more
than one remote call on a node, or a converge takes more calls than its fleet's budget.

Usage: bench.py [--sizes 1,10,50|none] [--forks 10] [--topologies all|none|NAME,...] [--report FILE]
"""

import argparse
import json
import os
import resource
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import e2e  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim import calls as sim_calls  # noqa: E402  pylint: disable=wrong-import-position

TEMPLATE = os.path.join(e2e.HERE, 'inventories', 'overlay')
FLOOR = """
- name: The floor of a drift check, one snapshot per node
  hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: Take the node state snapshot
      kubewin.node.node_info:
"""


def write_inventory(directory, size):
    with open(os.path.join(TEMPLATE, 'group_vars', 'all.yml'), encoding='utf-8') as handle:
        group_vars = yaml.safe_load(handle)
    group_vars['kubewin_management_cidr'] = '10.127.0.0/16'
    hosts = {'win-%03d' % index: {'ansible_host': '10.127.%d.%d' % (131 + index // 200, 10 + index % 200),
                                  'kubewin_sim': {'build': 20348, 'network_drop_seconds': 1, 'prefix_length': 16}}
             for index in range(1, size + 1)}
    inventory = {'windows_nodes': {'hosts': hosts},
                 'kube_control_plane': {'hosts': {'cp1': {'ansible_host': '10.127.130.10'}}}}
    os.makedirs(os.path.join(directory, 'group_vars'), exist_ok=True)
    with open(os.path.join(directory, 'hosts.yml'), 'w', encoding='utf-8') as handle:
        yaml.safe_dump(inventory, handle)
    with open(os.path.join(directory, 'group_vars', 'all.yml'), 'w', encoding='utf-8') as handle:
        yaml.safe_dump(group_vars, handle)
    return directory


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(sim, playbook, inventory, hosts, forks):
    cpu, simulated, started = children_cpu(), sim_calls.simulated_cpu(sim.state_dir), time.monotonic()
    result = sim.run(playbook, inventory, '--forks', str(forks))
    wall, cpu = time.monotonic() - started, children_cpu() - cpu
    simulated = sim_calls.simulated_cpu(sim.state_dir) - simulated
    calls = [result.calls.get(host, {}).get('total', 0) for host in hosts]
    return result, {
        'rc': result.rc,
        'changed_per_node': max(result.stats.get(host, {}).get('changed', 0) for host in hosts),
        'remote_calls_per_node': {'min': min(calls), 'max': max(calls), 'mean': round(sum(calls) / len(calls), 1)},
        'wall_seconds': round(wall, 1), 'wall_seconds_per_node': round(wall / len(hosts), 2),
        'cpu_seconds_per_node': round(cpu / len(hosts), 2),
        'simulated_cpu_seconds_per_node': round(simulated / len(hosts), 2),
        'controller_cpu_seconds_per_node': round((cpu - simulated) / len(hosts), 2),
    }


def topology_calls(which, forks, problems):
    """The remote calls per node of a fresh converge of each e2e fleet named (all, none or a list), and its budget."""
    folder = os.path.join(e2e.HERE, 'inventories')
    names = sorted(os.listdir(folder)) if which == 'all' else [] if which == 'none' else which.split(',')
    figures = {}
    for name in names:
        inventory = os.path.join(folder, name)
        sim = e2e.Simulation(tempfile.mkdtemp(prefix='kubewin-bench-%s-' % name))
        hosts, data = e2e.windows_hosts(inventory)
        e2e.prepare(sim, data)
        result, measured = measure(sim, os.path.join(e2e.ROOT, 'playbooks', 'site.yml'), inventory, hosts, forks)
        budget = e2e.converge_call_budget(data, hosts)
        figures[name] = dict(measured['remote_calls_per_node'], budget=budget)
        if result.rc:
            problems.append('%s: the converge failed:\n%s' % (name, result.output[-3000:]))
        elif measured['remote_calls_per_node']['max'] > budget:
            problems.append('%s: a node took %d remote calls to converge, more than its budget of %d'
                            % (name, measured['remote_calls_per_node']['max'], budget))
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--sizes', default='1,10,50')
    parser.add_argument('--forks', type=int, default=10)
    parser.add_argument('--topologies', default='all', help='e2e fleets whose converge calls to count')
    parser.add_argument('--report')
    args = parser.parse_args(argv)

    report, problems = {'forks': args.forks, 'fleets': {}}, []
    for size in [int(value) for value in args.sizes.split(',') if args.sizes != 'none']:
        workdir = tempfile.mkdtemp(prefix='kubewin-bench-%d-' % size)
        inventory = write_inventory(os.path.join(workdir, 'inventory'), size)
        sim = e2e.Simulation(os.path.join(workdir, 'sim'))
        hosts, data = e2e.windows_hosts(inventory)
        e2e.prepare(sim, data)
        site = os.path.join(e2e.ROOT, 'playbooks', 'site.yml')
        fresh_result, fresh = measure(sim, site, inventory, hosts, args.forks)
        noop_result, noop = measure(sim, site, inventory, hosts, args.forks)
        floor_result, floor = measure(sim, sim.write('floor.yml', FLOOR), inventory, hosts, args.forks)
        report['fleets'][size] = {
            'floor': floor, 'noop': noop, 'converge': fresh,
            'noop_over_floor': {key: round(noop[key] / floor[key], 2) if floor[key] else None
                                for key in ('cpu_seconds_per_node', 'controller_cpu_seconds_per_node')}}
        for name, result in (('converge', fresh_result), ('no-op', noop_result), ('floor', floor_result)):
            if result.rc:
                problems.append('%d nodes: the %s run failed:\n%s' % (size, name, result.output[-3000:]))
        if noop['changed_per_node'] or noop['remote_calls_per_node']['max'] > 1:
            problems.append('%d nodes: the no-op re-run changed %d or made %d remote calls on a node' % (
                size, noop['changed_per_node'], noop['remote_calls_per_node']['max']))
        print(yaml.safe_dump({'%d nodes' % size: report['fleets'][size]}, sort_keys=False), flush=True)
    report['topologies'] = topology_calls(args.topologies, args.forks, problems)
    print(yaml.safe_dump({'converge calls per node': report['topologies']}, sort_keys=False), flush=True)
    report['problems'] = problems
    if args.report:
        with open(args.report, 'w', encoding='utf-8') as handle:
            json.dump(report, handle, indent=1, sort_keys=True)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
