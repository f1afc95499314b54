"""Remote-call accounting for tests/simulation/ansible-playbook.

``snapshot`` takes the cumulative counters of every node and of the simulated Kubernetes API;
``report`` prints, per node, the calls made since that snapshot, and the API calls (one per
kubernetes.core module run). kubewin_sim/run_playbook.py calls both around each run.

The CPU seconds the fake modules spend in the connection's worker (the simulated Windows side,
kubewin_sim/inprocess.py) are appended to SIMULATED_CPU in the state directory, so a benchmark can
tell them from the controller's own work (tests/e2e/bench.py).
"""

import json
import os
import sys

from kubewin_sim import cluster as sim_cluster
from kubewin_sim.node import peek


SIMULATED_CPU = 'simulated-cpu.log'


def add_simulated_cpu(state_dir, seconds):
    """Account CPU seconds spent by a fake module; one short line, appended (atomic for a small write)."""
    with open(os.path.join(state_dir, SIMULATED_CPU), 'a', encoding='utf-8') as handle:
        handle.write('%.6f\n' % seconds)


def simulated_cpu(state_dir):
    """The CPU seconds fake modules spent so far in this state directory."""
    path = os.path.join(state_dir, SIMULATED_CPU)
    if not os.path.exists(path):
        return 0.0
    with open(path, encoding='utf-8') as handle:
        return sum(float(line) for line in handle if line.strip())


def counters(state_dir):
    result = {}
    if not os.path.isdir(state_dir):
        return result
    for name in sorted(os.listdir(state_dir)):
        if name.endswith('.json') and os.path.exists(os.path.join(state_dir, name + '.lock')):
            node = peek(state_dir, name[:-5])
            if 'calls' not in node.data:
                continue  # web.json and other shared models, not a node
            result[name[:-5]] = {'total': node.data['calls']['total'], 'by_kind': node.data['calls']['by_kind'],
                                 'unreachable_attempts': node.data['unreachable_attempts']}
    return result


def api_counters(state_dir):
    cluster = sim_cluster.peek(state_dir) if os.path.isdir(state_dir) else None
    return cluster.data['calls'] if cluster else {'total': 0, 'by_kind': {}}


def api_difference(before, after):
    kinds = {kind: count - before['by_kind'].get(kind, 0) for kind, count in after['by_kind'].items()}
    return {'total': after['total'] - before['total'],
            'by_kind': {kind: count for kind, count in sorted(kinds.items()) if count}}


def difference(before, after):
    report = {}
    for host, now in after.items():
        then = before.get(host, {'total': 0, 'by_kind': {}, 'unreachable_attempts': 0})
        kinds = {kind: count - then['by_kind'].get(kind, 0) for kind, count in now['by_kind'].items()}
        report[host] = {'total': now['total'] - then['total'],
                        'by_kind': {kind: count for kind, count in sorted(kinds.items()) if count},
                        'unreachable_attempts': now['unreachable_attempts'] - then['unreachable_attempts']}
    return report


def snapshot(state_dir):
    """The counters a later ``report`` is measured from."""
    return {'nodes': counters(state_dir), 'api': api_counters(state_dir)}


def report(state_dir, before):
    """Print the calls each node received since ``before`` (a ``snapshot``), and the API calls; write both as JSON."""
    nodes = difference(before['nodes'], counters(state_dir))
    api = api_difference(before['api'], api_counters(state_dir))
    print('\nREMOTE CALLS (simulated nodes) ' + '*' * 48)
    for host, entry in nodes.items():
        print('%-30s calls=%-4d unreachable_attempts=%d' % (host, entry['total'], entry['unreachable_attempts']))
    if api['total']:
        kinds = ' '.join('%s=%d' % item for item in api['by_kind'].items())
        print('%-30s calls=%-4d %s' % ('kubernetes API (simulated)', api['total'], kinds))
    sys.stdout.flush()
    with open(os.path.join(state_dir, 'last-run-calls.json'), 'w', encoding='utf-8') as handle:
        json.dump(nodes, handle, indent=1, sort_keys=True)
    with open(os.path.join(state_dir, 'last-run-api-calls.json'), 'w', encoding='utf-8') as handle:
        json.dump(api, handle, indent=1, sort_keys=True)
