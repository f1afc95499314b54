"""Glue between the fake ansible.windows modules and the simulated node of the current host.

The connection plugin (connection_plugins/kubewin_simnode.py) puts the
inventory hostname and the state directory into the environment of every
module it runs; the fake modules call into here with it.
"""

import json
import os
import time

from kubewin_sim import cluster as sim_cluster
from kubewin_sim.node import open_node
from kubewin_sim.pwsh.interpreter import ErrorRecord
from kubewin_sim.pwsh.values import PSError
from kubewin_sim.windows import filesystem
from kubewin_sim.windows import win_powershell as engine_module

STATE_DIR_ENV = 'KUBEWIN_SIM_STATE_DIR'
HOST_ENV = 'KUBEWIN_SIM_HOST'
# A file that receives every script result as a JSON line (see tests/simulation/README.md).
SCRIPT_RESULTS_ENV = 'KUBEWIN_SIM_SCRIPT_RESULTS'
# A file that receives the engine's CPU seconds of every script call as a JSON line {script, seconds}.
SCRIPT_TIMES_ENV = 'KUBEWIN_SIM_SCRIPT_TIMES'


def current_host():
    host = os.environ.get(HOST_ENV)
    if not host:
        raise RuntimeError('not running against a simulated Windows node (%s is unset); run the playbook '
                           'with tests/simulation/ansible-playbook' % HOST_ENV)
    return host, os.environ[STATE_DIR_ENV]


class node_for_module:  # pylint: disable=invalid-name  # used like a function
    """The current host's node, for a fake module, as a context manager; counts the call."""

    def __init__(self, kind):
        host, state_dir = current_host()
        self._kind = kind
        self._context = open_node(state_dir, host)

    def __enter__(self):
        node = self._context.__enter__()
        node.count_call(self._kind)
        return node

    def __exit__(self, *exc_info):
        return self._context.__exit__(*exc_info)


def marker_of(text):
    """The script's name, from its first line ``# kubewin-script: <name>`` (plugins/plugin_utils/_pwsh.py)."""
    first = (text or '').split('\n', 1)[0].strip()
    prefix = '# kubewin-script: '
    return first[len(prefix):].strip() if first.startswith(prefix) else None


def fault_result(message):
    """The module's answer when an injected fault ends the call: failed, with one error record."""
    record = ErrorRecord(PSError(message, error_id='InjectedFault'))
    return dict(engine_module.EMPTY, changed=True, failed=True, error=[engine_module.error_entry(record, 2)])


def take_script_fault(node, name, parameters, check_mode):
    """The first injected fault (``node.data['script_faults']``) this call of script ``name`` meets.

    A fault is ``{script, contains (text the call's parameters must contain, as JSON), times (how many
    calls fail, default 1), after (true: the script does its work, then the call fails as when the
    WinRM operation times out), fill_disk (instead of failing the call: just before it runs another program
    fills the system drive until that many bytes are free, windows/filesystem.py), expire_tokens (instead of
    failing the call: just before it runs every bootstrap token of the simulated cluster expires, cluster.py)}``.
    Check-mode calls never meet a fault.
    """
    if check_mode:
        return None
    for fault in node.data.get('script_faults', []):
        if fault['script'] != name or fault.get('times', 1) <= 0:
            continue
        if fault.get('contains') and fault['contains'] not in json.dumps(parameters):
            continue
        fault['times'] = fault.get('times', 1) - 1
        if 'fill_disk' in fault:
            node.record('injected fault: the disk filled up before %s ran' % name)
        elif 'expire_tokens' in fault:
            node.record('injected fault: the bootstrap tokens expired before %s ran' % name)
        else:
            node.record('injected fault: %s failed%s' % (name, ' after doing its work' if fault.get('after') else ''))
        return fault
    return None


# The module's options windows/win_powershell.invoke takes as keywords, besides script, parameters, sensitive_parameters,
# error_action and depth.
_OPTIONS = ('arguments', 'chdir', 'creates', 'executable', 'path', 'remote_src', 'removes')


def run_powershell(module_args, check_mode, verbosity=0, diff=False):
    """Run one win_powershell call on the current host's node: the script runs whole in the engine with
    the module's contract (windows/win_powershell.py); returns the module's result dict."""
    script_text = module_args['script']
    host, state_dir = current_host()
    with open_node(state_dir, host) as node:
        name = marker_of(script_text) or 'unnamed'
        node.count_call('win_powershell:%s' % name)
        fault = take_script_fault(node, name, module_args['parameters'], check_mode)
        if fault and 'fill_disk' in fault:
            filesystem.fill_volume(node, fault['fill_disk'])
            fault = None
        if fault and 'expire_tokens' in fault:
            with sim_cluster.open_cluster(state_dir) as cluster:
                cluster.expire_bootstrap_tokens()
            fault = None
        if fault and not fault.get('after'):
            return fault_result('Access is denied. (injected fault)')
        started = time.process_time()
        options = {name: module_args[name] for name in _OPTIONS}
        outcome = engine_module.invoke(node, script_text, module_args['parameters'],
                                       module_args['sensitive_parameters'], check_mode=check_mode,
                                       error_action=module_args['error_action'], depth=module_args['depth'],
                                       verbosity=verbosity, diff=diff, **options)
        if os.environ.get(SCRIPT_TIMES_ENV):
            with open(os.environ[SCRIPT_TIMES_ENV], 'a', encoding='utf-8') as handle:
                handle.write(json.dumps({'script': name, 'seconds': time.process_time() - started}) + '\n')
        if fault and not outcome['failed']:
            return fault_result('The WS-Management service cannot complete the operation within the time '
                                'specified in OperationTimeout.')
    if os.environ.get(SCRIPT_RESULTS_ENV) and not outcome['failed'] and isinstance(outcome['result'], str):
        with open(os.environ[SCRIPT_RESULTS_ENV], 'a', encoding='utf-8') as handle:
            handle.write(json.dumps({'script': name, 'check_mode': check_mode,
                                     'result': json.loads(outcome['result'])}) + '\n')
    return outcome
