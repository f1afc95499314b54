"""Simulation of node_service_apply.ps1 (its twin); the service control manager it acts through is kubewin_sim/scm.py."""

import json
import ntpath

from kubewin_sim.handlers.core import service_view
from kubewin_sim.registry import script
from kubewin_sim.scm import dependents, start, stop


@script('node_service_apply')
def node_service_apply(node, p, context):
    name = p['Name']
    key = name.lower()
    services = node.data['services']
    affected = dependents(node, name) if key in services else []
    running_dependents = [d for d in affected if services[d].get('state') == 'running']
    if p['Ensure'] == 'absent':
        if key in services:
            stop(node, name)
        services.pop(key, None)
    else:
        service = services.get(key) or {
            'name': name, 'exists': True, 'state': 'stopped', 'account': 'LocalSystem', 'exit_code': 1077}
        nssm = None
        if p['NssmJson']:
            raw = json.loads(p['NssmJson'])
            for path in {raw['AppStdout'], raw['AppStderr']} - {''}:
                folder = ntpath.dirname(path)
                if not node.is_directory(folder):
                    node.data['directories'].append(folder)
            nssm = {'application': raw['Application'], 'app_parameters': raw['AppParameters'],
                    'app_directory': raw['AppDirectory'], 'app_stdout': raw['AppStdout'],
                    'app_stderr': raw['AppStderr'], 'app_rotate_bytes': raw['AppRotateBytes']}
        actions = [part for part in p['FailureActions'].split('/') if part] if p['FailureActions'] else []
        service.update(
            command_line=p['CommandLine'], display_name=p['DisplayName'] or name,
            # An empty description is no Description value (node_service_apply.ps1).
            description=p['Description'] or None,
            start_mode=p['StartMode'], dependencies=list(p['Dependencies']), environment=list(p['Environment']),
            recovery={'reset_period_seconds': p['ResetPeriodSeconds'] if actions else 0,
                      'actions': [{'type': actions[i], 'delay_ms': int(actions[i + 1])}
                                  for i in range(0, len(actions), 2)]},
            nssm=nssm or service.get('nssm'))
        services[key] = service
        if p['Ensure'] == 'stopped' and service['state'] != 'stopped':
            stop(node, name)
        elif p['Ensure'] == 'running':
            if p['Restart'] and service['state'] != 'stopped':
                stop(node, name)
                start(node, name)
                for dependent in running_dependents:
                    start(node, dependent)
            if service['state'] != 'running':
                start(node, name)
    reported = {name: service_view(node, name)}
    reported.update({services[d]['name']: service_view(node, services[d]['name']) for d in affected if d in services})
    return {'state': {'sections': ['services'], 'services': reported}}
