"""A detached worker run as the collection runs it (plugins/plugin_utils/_node_action.py run_detached): detached_start.ps1
with the worker's text and arguments, then detached_status.ps1, each whole in the engine as win_powershell runs it."""

import json

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh
from kubewin_sim.windows import system
from kubewin_sim.windows.win_powershell import invoke


def _start_parameters(worker, arguments, operation_id):
    return {'OperationId': operation_id, 'WorkerScript': _pwsh.load_script(worker),
            'ArgumentsJson': json.dumps(arguments, sort_keys=True)}


def _answer(node, name, parameters):
    result = invoke(node, _pwsh.load_script(name), parameters, error_action='stop')
    assert (result['failed'], [entry['exception']['message'] for entry in result['error']]) == (False, []), result
    return _contracts.check(name, json.loads(result['result']))


def start_detached(node, worker, arguments, operation_id):
    """detached_start's answer: the worker runs on after it (kubewin_sim/windows/processes.py)."""
    return _answer(node, 'detached_start', _start_parameters(worker, arguments, operation_id))


def detached_status(node, operation_id):
    return _answer(node, 'detached_status', {'OperationId': operation_id})


# How many status calls, a second of the node's clock apart, run_detached makes at most.
PROBES = 30


def run_detached(node, worker, arguments, operation_id):
    """detached_start's answer and the first detached_status answer that is not 'running', the calls a second of the
    node's clock apart (as run_detached probes while the worker runs)."""
    started = start_detached(node, worker, arguments, operation_id)
    for _probe in range(PROBES):
        status = detached_status(node, operation_id)
        if status['state'] != 'running':
            return started, status
        system.pass_time(node, 1)
    raise AssertionError('the worker of %s still runs after %d probes' % (operation_id, PROBES))
