# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Waiting for a node that is expected to drop off the network and come back.

Internal to kubewin.node, not a public API.
"""

from __future__ import annotations

import random
import time

from ansible.errors import AnsibleConnectionFailure


class NodeDidNotReturn(Exception):
    """The node stayed unreachable (or the probe never succeeded) for the whole budget."""

    def __init__(self, elapsed, attempts, last_error):
        self.elapsed = elapsed
        self.attempts = attempts
        self.last_error = last_error
        super().__init__('no answer after %.0f s and %d attempts (last error: %s)' % (elapsed, attempts, last_error))


def backoff_delays(initial=1.0, factor=2.0, cap=10.0, jitter=0.5, rng=random.random):
    """Exponential delays with jitter: initial, initial*factor, ... capped at ``cap``.

    The jitter (a fraction of each delay, added at random) keeps a fleet of
    nodes that dropped together from reconnecting in lockstep.
    """
    delay = initial
    while True:
        yield min(cap, delay) * (1 + jitter * rng())
        delay *= factor


def wait_for(probe, budget, reset, sleep=time.sleep, clock=time.monotonic, delays=None):
    """Call ``probe`` until it returns something other than None, within ``budget`` seconds.

    ``probe`` raising AnsibleConnectionFailure counts as "not back yet": the
    connection is reset before the next attempt, because a WinRM or PSRP shell
    that saw the network drop is not usable again.
    """
    delays = delays if delays is not None else backoff_delays()
    start = clock()
    attempts = 0
    last_error = 'none'
    while True:
        attempts += 1
        try:
            answer = probe()
        except AnsibleConnectionFailure as exc:
            last_error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            reset()
        else:
            if answer is not None:
                return answer
            last_error = 'the node answered but the operation had not finished'
        remaining = budget - (clock() - start)
        if remaining <= 0:
            raise NodeDidNotReturn(clock() - start, attempts, last_error)
        sleep(min(next(delays), remaining))
