# -*- coding: utf-8 -*-
"""Test-only ansible.windows.win_powershell: runs kubewin.node scripts on a simulated node.

Takes the real module's options and returns its result keys. The script runs in the PowerShell
engine with the module's contract (kubewin_sim/windows/win_powershell.py), or, while a handler still
stands in for it, is answered by that handler (kubewin_sim/fake.py).
"""

from ansible.module_utils.basic import AnsibleModule

from kubewin_sim import fake

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
    if module.params['script'] is None:
        module.fail_json(msg='the simulation runs only inline scripts (kubewin.node sends script text)')
    result = fake.run_powershell(module.params['script'], module.params, check_mode=module.check_mode)
    # The real module ends with ExitJson whether or not the script failed (failed=true then).
    module.exit_json(**result)


if __name__ == '__main__':
    main()
