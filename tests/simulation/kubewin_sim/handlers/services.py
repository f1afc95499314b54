"""Simulation of node_service_apply.ps1: the service control manager, as far as the collection uses it."""

import json
import ntpath

from kubewin_sim.handlers import flannel
from kubewin_sim.node import SimulationError
from kubewin_sim.registry import ScriptFailure, script

# Services every Windows Server has (hns and vmcompute come with the Containers feature).
BUILTIN = {'winrm', 'tcpip', 'lanmanserver', 'eventlog'}
CONTAINER_BUILTIN = {'hns', 'vmcompute'}
START_MODES = {'auto', 'delayed', 'manual', 'disabled'}


def _split(command_line):
    """The program of a service command line (enough for the simulation: quoted or first token)."""
    text = command_line.strip()
    if text.startswith('"'):
        return text[1:text.index('"', 1)]
    return text.split(' ', 1)[0]


def _exists(node, name):
    lowered = name.lower()
    if lowered in node.data['services'] or lowered in BUILTIN:
        return True
    return lowered in CONTAINER_BUILTIN and node.hns_available()


def start(node, name):
    """StartService, with what Windows checks: the program file and the dependencies."""
    service = node.data['services'][name.lower()]
    if service['start_mode'] == 'disabled':
        raise SimulationError("Service '%s' cannot be started: the service is disabled." % name)
    for dependency in service['dependencies']:
        if not _exists(node, dependency):
            raise SimulationError("Service '%s' cannot be started: the dependency service %s does not exist."
                                  % (name, dependency))
    for dependency in service['dependencies']:
        if dependency.lower() in node.data['services'] and node.data['services'][dependency.lower()]['state'] != 'running':
            start(node, dependency)
    programs = [_split(service['command_line'])]
    if service.get('nssm'):
        programs.append(service['nssm']['application'])
    missing = [program for program in programs if node.file(program) is None]
    outputs = {(service.get('nssm') or {}).get(key) for key in ('app_stdout', 'app_stderr')} - {None, ''}
    if any(not node.is_directory(ntpath.dirname(path)) for path in outputs):
        # nssm cannot open its output file (CreateFile makes no folders) and starts nothing.
        service.update(state='stopped', exit_code=1)
        raise SimulationError("Service '%s' cannot be started: Error setting up one or more I/O filehandles. "
                              'Service %s will not be started.' % (name, name))
    if missing:
        service.update(state='stopped', exit_code=2)
        raise SimulationError("Service '%s' cannot be started: The system cannot find the file specified (%s)."
                              % (name, missing[0]))
    if name.lower() in [n.lower() for n in node.profile.get('service_start_failures', [])]:
        service.update(state='stopped', exit_code=1)
        raise ScriptFailure('service %s did not reach Running within 60 s (status Stopped, exit code 1)' % name)
    service.update(state='running', exit_code=0)
    service['starts'] = service.get('starts', 0) + 1
    if flannel.is_flanneld(service):
        flannel.run(node, service)


def stop(node, name):
    node.data['services'][name.lower()].update(state='stopped', exit_code=0)


@script('node_service_apply')
def node_service_apply(node, p, context):
    name = p['Name']
    key = name.lower()
    services = node.data['services']
    if p['Ensure'] == 'absent':
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
            command_line=p['CommandLine'], display_name=p['DisplayName'] or name, description=p['Description'],
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
            if service['state'] != 'running':
                start(node, name)
    view = services.get(key)
    if view is None:
        view = {'name': name, 'exists': False}
    else:
        view = {k: view.get(k) for k in (
            'name', 'exists', 'display_name', 'description', 'state', 'start_mode', 'command_line', 'dependencies',
            'environment', 'account', 'recovery', 'exit_code', 'nssm')}
    return {'state': {'sections': ['services'], 'services': {name: view}}}
