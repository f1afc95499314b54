"""Simulation of node_routes_apply.ps1: static IPv4 routes in the active and persistent stores."""

from kubewin_sim.handlers.core import node_state
from kubewin_sim.registry import script


@script('node_routes_apply')
def node_routes_apply(node, p, context):
    for route in p['Remove']:
        node.remove_route(route['destination'], route['next_hop'], route['interface_index'])
    for route in p['Add']:
        node.add_route(route['destination'], route['next_hop'], route['interface_alias'], route['metric'])
    return {'state': node_state(node, ['adapters', 'routes'])}
