"""Simulation of node_routes_apply.ps1: static IPv4 routes in the active and persistent stores."""

import json

from kubewin_sim.handlers.core import node_state
from kubewin_sim.registry import script


@script('node_routes_apply')
def node_routes_apply(node, p, context):
    for route in json.loads(p['RemoveJson']):
        node.remove_route(route['destination'], route['next_hop'], route['interface_index'])
    for route in json.loads(p['AddJson']):
        node.add_route(route['destination'], route['next_hop'], route['interface_alias'], route['metric'])
    return {'state': node_state(node, ['adapters', 'routes'])}
