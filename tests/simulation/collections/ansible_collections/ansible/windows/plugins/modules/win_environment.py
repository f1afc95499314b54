# -*- coding: utf-8 -*-
"""Test-only ansible.windows.win_environment: environment variables of the simulated node (machine level)."""

from ansible.module_utils.basic import AnsibleModule

from kubewin_sim import fake


def main():
    module = AnsibleModule(argument_spec={
        'name': {'type': 'str'},
        'value': {'type': 'str'},
        'variables': {'type': 'dict'},
        'level': {'type': 'str', 'choices': ['machine', 'process', 'user'], 'required': True},
        'state': {'type': 'str', 'choices': ['absent', 'present']},
    }, supports_check_mode=True, required_one_of=[('name', 'variables')])
    if module.params['level'] != 'machine':
        module.fail_json(msg='the simulation models machine-level variables only')
    wanted = module.params['variables'] or {module.params['name']: (
        None if module.params['state'] == 'absent' else module.params['value'])}
    with fake.node_for_module('win_environment') as node:
        environment = node.data['environment']
        before = {name: environment.get(name) for name in wanted}
        changed = any(before[name] != (value or None) for name, value in wanted.items())
        if changed and not module.check_mode:
            for name, value in wanted.items():
                if value:
                    environment[name] = value
                else:
                    environment.pop(name, None)
    result = {'changed': changed}
    if module.params['name']:
        result.update(before_value=before[module.params['name']], value=wanted[module.params['name']])
    else:
        result.update(before=before, after=wanted)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
