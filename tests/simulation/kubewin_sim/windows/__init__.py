"""Windows, modelled once, below the engine: the cmdlets, .NET types and programs scripts call.

Each cmdlet is implemented once against the node model (``kubewin_sim/node.py`` holds the state),
returns the objects real Windows returns (property names and .NET types from the CIM class or .NET
reference named next to each), and binds through the parameter-set tables of Microsoft's reference
(``kubewin_sim/pwsh/cmdlet_sets``). A script meets only what is modelled here; a cmdlet not yet
modelled is an unknown command.
"""

from ..pwsh.commands import Cmdlet
from . import nettcpip


class WindowsHost:
    """What the engine asks of Windows: cmdlets, programs and .NET types, for one node."""

    def __init__(self, node):
        self.node = node

    @staticmethod
    def commands():
        return {name.lower(): Cmdlet(name, function) for name, function in nettcpip.CMDLETS.items()}

    def has_program(self, name):  # pylint: disable=unused-argument
        return False

    def run_program(self, name, words, input_items):
        raise NotImplementedError(name)

    @staticmethod
    def constructor(type_name):  # pylint: disable=unused-argument
        return None


def run_on_node(node, text, parameters=None):
    """Run PowerShell ``text`` on ``node`` (a SimNode) in the engine; returns the engine's Outcome."""
    from ..pwsh import run_command  # pylint: disable=import-outside-toplevel
    host = WindowsHost(node)
    return run_command(text, parameters=parameters, host=host, commands=host.commands())
