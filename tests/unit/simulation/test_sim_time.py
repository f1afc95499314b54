"""Time in the simulation (tests/simulation/README.md, "Time"): a node's clock moves with what happens to it, never
with the test machine's, so a network drop, a restart and a pod's back-off end after the same calls however loaded
the machine is.

Sources of what is held: the collection's reconnect loop (plugins/plugin_utils/_reconnect.py, wait_for and
backoff_delays), whose least wait after each refused attempt is what a refused attempt costs the node.
"""

import itertools
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _reconnect  # noqa: E402
from kubewin_sim import reboot  # noqa: E402
from kubewin_sim.node import SimNode, initial_state, open_node, peek  # noqa: E402


def reconnect_wait(refused):
    """What connection_plugins/kubewin_simnode.py charges a refused attempt (it imports Ansible's plugin loader)."""
    return next(itertools.islice(_reconnect.backoff_delays(jitter=0), refused, None))


def fresh(**profile):
    return SimNode(initial_state('win1', dict({'ip': '10.0.0.11'}, **profile)))


def refused_attempts(node, limit=100):
    """Connect until the node answers, as the collection's reconnect loop does: the attempts refused."""
    for attempt in range(limit):
        if node.reachable():
            return attempt
        node.refuse_connection(reconnect_wait)
    raise AssertionError('the node never answered')


def test_the_least_reconnect_waits_are_the_backoff_without_jitter():
    assert [reconnect_wait(n) for n in range(7)] == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 10.0]


@pytest.mark.parametrize('seconds, attempts', [(1, 1), (2, 2), (6, 3), (7, 3), (15, 4), (30, 6)])
def test_a_drop_ends_after_the_attempts_whose_waits_add_up_to_it(seconds, attempts):
    node = fresh()
    node.drop_network(seconds)
    assert refused_attempts(node) == attempts
    assert node.data['unreachable_attempts'] == attempts
    assert node.elapsed() == sum(reconnect_wait(n) for n in range(attempts))


def test_the_test_machines_time_does_not_end_a_drop():
    node = fresh()
    node.drop_network(1)
    time.sleep(1.1)
    assert not node.reachable()
    node.refuse_connection(reconnect_wait)
    assert node.reachable()


def test_a_new_drop_starts_its_waits_again():
    node = fresh()
    node.drop_network(6)
    assert refused_attempts(node) == 3
    node.drop_network(1)
    assert refused_attempts(node) == 1, 'the second drop begins with the loop\'s first wait'


def test_work_alongside_the_calls_keeps_its_time_and_drops_from_its_moment():
    node = fresh()
    with node.alongside():
        node.pass_time(5)
        node.drop_network(2)
        node.pass_time(30)  # e.g. a detached worker's settle loop
    assert node.elapsed() == 0
    assert node.data['unreachable_until'] == 7, 'from the moment the drop happened in it'
    assert refused_attempts(node) == 3  # 1 + 2 + 4 >= 7


def test_the_date_is_the_calls_moment_plus_the_simulated_time():
    node = fresh()
    first = node.date()
    time.sleep(0.05)
    assert node.date() == first, 'within a call the date moves with simulated time only'
    node.pass_time(90)
    assert node.date() == first + 90
    assert peek_date_moves(node)


def peek_date_moves(node):
    """A later call reaches the node later: its date is the test machine's then, plus the same offset."""
    later = SimNode(node.data)
    return later.date() >= node.date()


def test_a_reboot_is_waited_out_on_the_nodes_clock(tmp_path):
    state = str(tmp_path)
    with open_node(state, 'win1', profile={'ip': '10.0.0.11', 'reboot_seconds': 45}) as node:
        booted = node.data['os']['last_boot']
    assert reboot.reboot_and_wait(state, 'win1', 600) == 45.0
    node = peek(state, 'win1')
    assert node.reachable() and node.elapsed() == 45
    assert node.data['os']['last_boot'] > booted


def test_a_reboot_longer_than_the_timeout_fails_the_task(tmp_path):
    state = str(tmp_path)
    with open_node(state, 'win1', profile={'ip': '10.0.0.11', 'reboot_seconds': 900}):
        pass
    assert reboot.reboot_and_wait(state, 'win1', 600) is None
    assert peek(state, 'win1').elapsed() == 900, 'the node restarted all the same'


def test_a_node_cut_off_for_good_does_not_answer_after_its_reboot(tmp_path):
    state = str(tmp_path)
    with open_node(state, 'win1', profile={'ip': '10.0.0.11'}) as node:
        node.data['unreachable_until'] = 1e18
    assert reboot.reboot_and_wait(state, 'win1', 600) is None
    assert peek(state, 'win1').elapsed() == 600


def test_a_node_that_never_comes_back_is_never_reachable():
    node = fresh()
    node.data['unreachable_until'] = 1e18
    for _attempt in range(50):
        node.refuse_connection(reconnect_wait)
    assert not node.reachable()
    assert node.wait_until_reachable(600) is None
