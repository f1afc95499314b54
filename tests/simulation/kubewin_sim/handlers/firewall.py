"""Simulation of firewall_rule_apply.ps1."""

from kubewin_sim.handlers.core import node_state
from kubewin_sim.registry import script


@script('firewall_rule_apply')
def firewall_rule_apply(node, p, context):
    rules = node.data['firewall_rules']
    if p['Remove']:
        rules.pop(p['Name'], None)
    else:
        rules[p['Name']] = {'display_name': p['DisplayName'] or p['Name'], 'enabled': True,
                            'direction': p['Direction'], 'action': p['Action'], 'protocol': p['Protocol'],
                            'local_port': [str(port) for port in p['LocalPort']]}
    return {'state': node_state(node, ['firewall'], firewall=[p['Name']])}
