"""The registry of script simulations and how a script is run against a node.

One handler per ``# kubewin-script: <name>`` marker, in the modules of
kubewin_sim/handlers/. A handler receives the node, the parameters bound as
the script's ``param()`` block binds them (see params.py) and the call
context, and returns what the script assigns to ``$Ansible.Result``
(decoded). Where the script would throw, the handler raises ScriptFailure (or
SimulationError) with the message Windows would give. Keep each handler in
step with its .ps1 file: the simulation is only as good as that
correspondence.
"""

from kubewin_sim import params as param_binding
from kubewin_sim.node import SimulationError

HANDLERS = {}
WORKERS = {}


class ScriptFailure(Exception):
    """The script would end with a terminating error carrying this message."""

    def __init__(self, message, error_id='RuntimeException', category='NotSpecified'):
        self.error_id = error_id
        self.category = category
        super().__init__(message)


def script(name, worker=False):
    """Register the simulation of a script; workers are started by detached_start."""
    def register(function):
        (WORKERS if worker else HANDLERS)[name] = function
        return function
    return register


def has_handler(name):
    """Whether a handler still stands in for this script; the others run whole in the engine."""
    return name in HANDLERS


def marker_of(text):
    first = (text or '').split('\n', 1)[0].strip()
    prefix = '# kubewin-script: '
    return first[len(prefix):].strip() if first.startswith(prefix) else None


def run(node, script_text, parameters, context):
    """Run a composed script: bind its parameters, dispatch on its marker."""
    name = marker_of(script_text)
    if name is None:
        raise SimulationError('script has no kubewin-script marker line; the simulation cannot run it')
    handler = HANDLERS.get(name)
    if handler is None:
        raise SimulationError('no simulation for script %r: add a handler in tests/simulation/kubewin_sim/handlers/'
                              % name)
    try:
        bound = param_binding.bind(script_text, parameters)
    except param_binding.BindingError as exc:
        raise ScriptFailure(str(exc), error_id='NamedParameterNotFound,' + name, category='InvalidArgument')
    context = dict(context, script=script_text)
    try:
        return handler(node, bound, context)
    except SimulationError as exc:
        raise ScriptFailure(str(exc))
