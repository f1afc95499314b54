"""Waiting for a node through a network drop: backoff, jitter, budget."""

import pytest
from ansible.errors import AnsibleConnectionFailure

from ansible_collections.kubewin.node.plugins.plugin_utils import _reconnect


class Clock:
    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


def test_backoff_doubles_up_to_the_cap_with_bounded_jitter():
    delays = _reconnect.backoff_delays(initial=1, factor=2, cap=8, jitter=0.5, rng=lambda: 0.0)
    assert [next(delays) for unused in range(6)] == [1, 2, 4, 8, 8, 8]
    jittered = _reconnect.backoff_delays(initial=1, factor=2, cap=8, jitter=0.5, rng=lambda: 1.0)
    assert [next(jittered) for unused in range(3)] == [1.5, 3.0, 6.0]


def test_returns_once_the_node_answers_and_resets_after_each_failure():
    clock, resets = Clock(), []
    answers = iter([AnsibleConnectionFailure('refused'), AnsibleConnectionFailure('refused'), None, {'state': 'done'}])

    def probe():
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    result = _reconnect.wait_for(probe, 60, reset=lambda: resets.append(clock.now), sleep=clock.sleep,
                                 clock=clock.time, delays=iter([1, 2, 4, 8]))
    assert result == {'state': 'done'}
    assert clock.sleeps == [1, 2, 4]
    assert resets == [0, 1]


def test_gives_up_at_the_budget_and_says_what_it_saw():
    clock = Clock()

    def probe():
        raise AnsibleConnectionFailure('connection refused\ntraceback...')

    with pytest.raises(_reconnect.NodeDidNotReturn) as caught:
        _reconnect.wait_for(probe, 10, reset=lambda: None, sleep=clock.sleep, clock=clock.time,
                            delays=iter([4, 4, 4, 4, 4]))
    assert clock.now == 10  # the last sleep is cut to the remaining budget
    assert caught.value.attempts == 4
    assert caught.value.last_error == 'connection refused'
