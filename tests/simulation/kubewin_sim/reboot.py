"""A restart of a simulated node that an action plugin waits out, as ansible.windows' reboot_host does.

The fake win_reboot and the fake win_updates (reboot=true) both restart a node this way: the node's own restart
(node.reboot, windows/boot.py), which takes the profile's ``reboot_seconds`` of its simulated clock (node.py) and
during which it answers nobody, waited out by the task up to its reboot_timeout, and then any network drop that
outlasts it (a node cut off for good stays so). Both are on the node's clock: the restart takes ``reboot_seconds``
whatever the test machine's load, and one longer than ``reboot_timeout`` fails the task.
"""

from kubewin_sim.node import open_node


def reboot_and_wait(state_dir, host, timeout, kind='win_reboot'):
    """Restart ``host`` and wait for it: (seconds it took, or None when it did not answer within ``timeout``)."""
    with open_node(state_dir, host) as node:
        node.count_call(kind)
        started = node.elapsed()
        node.reboot()
        took = node.elapsed() - started
        after = node.wait_until_reachable(timeout - took) if took <= timeout else None
    return None if after is None else round(took + after, 1)
