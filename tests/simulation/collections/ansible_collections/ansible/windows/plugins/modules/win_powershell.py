# -*- coding: utf-8 -*-
"""Test-only ansible.windows.win_powershell: runs kubewin.node scripts on a simulated node.

Takes the real module's options and returns its result keys. The script's
marker line selects the simulation of what that script does on Windows; check
mode is honoured exactly as the real module does (scripts that do not declare
SupportsShouldProcess are skipped).
"""

import json
import re

from ansible.module_utils.basic import AnsibleModule

from kubewin_sim import fake

# The real module's test for check-mode support, taken as the module states it.
SUPPORTS_SHOULD_PROCESS = re.compile(
    r'\[CmdletBinding\((?:[\w=\$]+,\s*)?SupportsShouldProcess(?:=\$true)?(?:,\s*[\w=\$]+)?\)\]', re.IGNORECASE)

ARGUMENT_SPEC = {
    'arguments': {'type': 'list', 'elements': 'str'},
    'chdir': {'type': 'str'},
    'creates': {'type': 'str'},
    'depth': {'type': 'int', 'default': 2},
    'error_action': {'type': 'str', 'choices': ['silently_continue', 'continue', 'stop'], 'default': 'continue'},
    'executable': {'type': 'str'},
    'parameters': {'type': 'dict'},
    'path': {'type': 'str'},
    'remote_src': {'type': 'bool', 'default': False},
    'removes': {'type': 'str'},
    'script': {'type': 'str'},
    'sensitive_parameters': {
        'type': 'list', 'elements': 'dict', 'no_log': False,
        'options': {
            'name': {'type': 'str', 'required': True},
            'value': {'type': 'str', 'no_log': True},
            'username': {'type': 'str'},
            'password': {'type': 'str', 'no_log': True},
        },
    },
}


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True,
                           mutually_exclusive=[('path', 'script')], required_one_of=[('path', 'script')])
    empty = {'result': {}, 'host_out': '', 'host_err': '', 'output': [], 'error': [], 'warning': [],
             'verbose': [], 'debug': [], 'information': []}
    script = module.params['script']
    if script is None:
        module.fail_json(msg='the simulation runs only inline scripts (kubewin.node sends script text)', **empty)
    if module.check_mode and not SUPPORTS_SHOULD_PROCESS.search(script):
        module.exit_json(changed=True, msg='skipped, running in check mode', **empty)

    parameters = dict(module.params['parameters'] or {})
    for entry in module.params['sensitive_parameters'] or []:
        parameters[entry['name']] = entry['value']
    outcome = fake.run_powershell(script, parameters, check_mode=module.check_mode)
    result = dict(empty, changed=True)
    if outcome['failed']:
        result['error'] = [outcome['error_record']]
        module.fail_json(msg=outcome['error_record']['exception']['message'], **result)
    result['result'] = json.dumps(outcome['result'])
    module.exit_json(**result)


if __name__ == '__main__':
    main()
