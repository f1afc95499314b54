"""kubewin.node.node_routes against a simulated node."""

import pytest
import yaml

ROUTES = [{'destination': '10.244.2.0/24', 'next_hop': '10.127.130.12', 'via_node': 'win2'},
          {'destination': '10.244.3.0/24', 'next_hop': '10.127.130.13'}]


def playbook(sim, name='routes.yml', **options):
    module = dict({'routes': ROUTES, 'scope': '10.244.0.0/16'}, **options)
    tasks = [{'name': 'snapshot', 'kubewin.node.node_info': {}},
             {'name': 'routes', 'kubewin.node.node_routes': module}]
    return sim.write(name, yaml.safe_dump([{'hosts': 'windows_nodes', 'gather_facts': False, 'tasks': tasks}]))


def routes(sim):
    return sorted((r['destination'], r['next_hop'], r['interface_index'], r['active'], r['persistent'])
                  for r in sim.node('win1').data['routes'])


# Long (make unit-long): make test converges the routes on the dual-stack e2e fleet (check mode, converge, re-run)
# and changes them in test_route_changes_follow_the_plan.
@pytest.mark.long
def test_check_converge_idempotent(sim, one_node):
    inventory, book = one_node(), playbook(sim)
    check = sim.run(book, inventory, '--check', '--diff')
    assert check.rc == 0 and check.changed('win1') == 1, check.output
    diff = check.result('routes', 'win1')['result']['diff']
    assert diff['before'] == {'routes': []}
    assert diff['after']['routes'] == ['10.244.2.0/24 via 10.127.130.12 (node win2) on Ethernet, metric 256',
                                       '10.244.3.0/24 via 10.127.130.13 on Ethernet, metric 256']
    assert routes(sim) == []

    run = sim.run(book, inventory)
    assert run.rc == 0, run.output
    assert routes(sim) == [('10.244.2.0/24', '10.127.130.12', 4, True, True),
                           ('10.244.3.0/24', '10.127.130.13', 4, True, True)]
    again = sim.run(book, inventory)
    assert again.rc == 0 and again.changed('win1') == 0, again.output
    assert again.calls['win1']['total'] == 1, 'decided from the snapshot'
    assert sim.run(book, inventory, '--check').changed('win1') == 0


def test_stale_routes_in_scope_go_others_stay(sim, one_node):
    inventory, book = one_node(), playbook(sim)
    assert sim.run(book, inventory).rc == 0
    with sim.edit_node('win1') as node:
        # A node that left the cluster, a route that lost its persistent copy, and one outside the scope.
        node.add_route('10.244.9.0/24', '10.127.130.99', 'Ethernet', 256)
        node.remove_route('10.244.3.0/24', '10.127.130.13', 4)
        node.add_route('10.244.3.0/24', '10.127.130.13', 'Ethernet', 256, persistent=False)
        node.add_route('192.168.50.0/24', '10.127.130.1', 'Ethernet', 256)
    run = sim.run(book, inventory, '--diff')
    assert run.rc == 0 and run.changed('win1') == 1, run.output
    before = run.result('routes', 'win1')['result']['diff']['before']['routes']
    assert '10.244.9.0/24 via 10.127.130.99 on Ethernet, metric 256' in before
    assert '10.244.3.0/24 via 10.127.130.13 on Ethernet, metric 256 [active only]' in before
    assert routes(sim) == [('10.244.2.0/24', '10.127.130.12', 4, True, True),
                           ('10.244.3.0/24', '10.127.130.13', 4, True, True),
                           ('192.168.50.0/24', '10.127.130.1', 4, True, True)]
    assert sim.run(book, inventory).changed('win1') == 0


def test_routes_survive_a_reboot(sim, one_node):
    inventory, book = one_node(), playbook(sim)
    assert sim.run(book, inventory).rc == 0
    with sim.edit_node('win1') as node:
        node.add_route('10.244.7.0/24', '10.127.130.17', 'Ethernet', 256, persistent=False)
        node.reboot()
    after = sim.run(book, inventory)
    assert after.rc == 0 and after.changed('win1') == 0, 'the routes were persisted'
    assert '10.244.7.0/24' not in [r[0] for r in routes(sim)]


def test_route_changes_follow_the_plan(sim, one_node):
    inventory = one_node()
    assert sim.run(playbook(sim), inventory).rc == 0
    moved = [dict(ROUTES[0], next_hop='10.127.130.22')]
    run = sim.run(playbook(sim, 'b.yml', routes=moved, metric=300), inventory)
    assert run.rc == 0, run.output
    assert [(r['destination'], r['next_hop'], r['metric']) for r in sim.node('win1').data['routes']] == [
        ('10.244.2.0/24', '10.127.130.22', 300)]


def test_refused_before_anything_changes(sim, one_node):
    inventory = one_node()
    outside = sim.run(playbook(sim, routes=[{'destination': '10.250.0.0/24', 'next_hop': '10.127.130.12'}]), inventory)
    assert outside.rc != 0 and 'outside scope 10.244.0.0/16' in outside.result('routes', 'win1')['result']['msg']
    unreachable = sim.run(playbook(sim, 'b.yml', routes=[{'destination': '10.244.2.0/24', 'next_hop': '172.16.0.9'}]),
                          inventory)
    message = unreachable.result('routes', 'win1')['result']['msg']
    assert unreachable.rc != 0 and 'next hop 172.16.0.9 is on the subnet of no adapter' in message
    tasks = [{'name': 'routes', 'kubewin.node.node_routes': {'routes': ROUTES}}]
    no_scope = sim.run(sim.write('c.yml', yaml.safe_dump([{'hosts': 'windows_nodes', 'gather_facts': False,
                                                           'tasks': tasks}])), inventory)
    assert no_scope.rc != 0 and 'scope is required' in no_scope.result('routes', 'win1')['result']['msg']
    assert sim.node('win1').data['routes'] == []
