"""A restart of a simulated node that an action plugin waits out, as ansible.windows' reboot_host does.

The fake win_reboot and the fake win_updates (reboot=true) both restart a node this way: the node's own
restart (node.reboot), its network gone for the profile's ``reboot_seconds``, then a wait for it to answer
again, up to the task's reboot_timeout.
"""

import time

from kubewin_sim.node import open_node, peek


def reboot_and_wait(state_dir, host, timeout, kind='win_reboot'):
    """Restart ``host`` and wait for it: (seconds it took, or None when it did not answer within ``timeout``)."""
    started = time.monotonic()
    with open_node(state_dir, host) as node:
        node.count_call(kind)
        node.reboot()
        node.drop_network(node.profile.get('reboot_seconds', 2))
    while not peek(state_dir, host).reachable():
        if time.monotonic() - started > timeout:
            return None
        time.sleep(0.5)
    return round(time.monotonic() - started, 1)
