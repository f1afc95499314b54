"""Command line of the engine: tests/simulation/pwsh -Command TEXT | FILE [-Name value ...].

Prints every object of the success stream on its own line as [string] renders it, the error
records' messages on stderr, and exits 0, 1 after an uncaught terminating error, 2 when the
script uses a construct the engine does not implement (or the arguments are wrong).
"""

import os
import sys

from . import run_command

USAGE = '''usage: pwsh [--node NAME] -Command TEXT
       pwsh [--node NAME] FILE [-Name value | -Switch ...]
Runs Windows PowerShell 5.1 text in the kubewin.node test engine (tests/simulation/README.md) on a
fresh simulated Windows node, or with --node on the node NAME of $KUBEWIN_SIM_STATE_DIR (changes kept).'''


def _is_parameter(word):
    return word.startswith('-') and len(word) > 1 and not word[1].isdigit()


def file_parameters(words):
    """Arguments after the file, bound as powershell.exe -File binds them: -Name value, -Name:value, -Switch."""
    named, positional = {}, []
    index = 0
    while index < len(words):
        word = words[index]
        if _is_parameter(word):
            name, colon, value = word[1:].partition(':')
            if colon:
                named[name] = value
            elif index + 1 < len(words) and not _is_parameter(words[index + 1]):
                named[name] = words[index + 1]
                index += 1
            else:
                named[name] = True
        else:
            positional.append(word)
        index += 1
    return named, positional


def _on_node(name, run):
    """Run ``run(host)`` on a fresh node, or on node ``name`` of the state directory (saved afterwards)."""
    # Imported here: the Windows model is not needed for --help.
    from ..node import SimNode, SimulationError, initial_state, open_node  # pylint: disable=import-outside-toplevel
    from ..windows import WindowsHost  # pylint: disable=import-outside-toplevel
    if name is None:
        return run(WindowsHost(SimNode(initial_state('node', {}))))
    state_dir = os.environ.get('KUBEWIN_SIM_STATE_DIR', 'tests/output/sim/state')
    try:
        with open_node(state_dir, name, create=False) as node:
            return run(WindowsHost(node))
    except SimulationError as error:
        print('pwsh: %s' % error, file=sys.stderr)
        return None


def main(argv):
    node_name = None
    if argv[:1] == ['--node']:
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        node_name, argv = argv[1], argv[2:]
    if not argv or argv[0] in ('-h', '--help', '-?', '/?'):
        print(USAGE)
        return 0 if argv else 2
    if argv[0].lower() in ('-command', '-c'):
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        text = ' '.join(argv[1:])
        outcome = _on_node(node_name, lambda host: run_command(text, host=host, commands=host.commands()))
    else:
        try:
            with open(argv[0], encoding='utf-8-sig') as handle:
                text = handle.read()
        except OSError as exc:
            print('The argument \'%s\' to the -File parameter does not exist. (%s)' % (argv[0], exc.strerror),
                  file=sys.stderr)
            return 2
        named, positional = file_parameters(argv[1:])
        if positional:
            print('positional arguments after FILE are not supported: %s' % ' '.join(positional), file=sys.stderr)
            return 2
        outcome = _on_node(node_name, lambda host: run_command(text, named, host=host, commands=host.commands()))
    if outcome is None:
        return 2
    for line in outcome.output:
        print(line)
    for message in outcome.errors:
        print(message, file=sys.stderr)
    if outcome.unsupported:
        print(outcome.unsupported, file=sys.stderr)
    return outcome.exit_code


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
