# -*- coding: utf-8 -*-
"""Test-only ansible.windows.win_feature: installs features on the simulated node of the current host."""

from ansible.module_utils.basic import AnsibleModule

from kubewin_sim import fake

# Features whose installation waits for a reboot on Windows Server. The Remote Access role and its Routing role
# service: Calico's BGP install restarts the computer after installing them, before Install-RemoteAccess
# (tigera/docs _includes/components/CalicoWindowsInstall.js).
NEEDS_REBOOT = {'containers', 'hyper-v', 'remoteaccess', 'routing'}


def main():
    module = AnsibleModule(argument_spec={
        'name': {'type': 'list', 'elements': 'str', 'required': True},
        'state': {'type': 'str', 'choices': ['absent', 'present'], 'default': 'present'},
        'include_sub_features': {'type': 'bool', 'default': False},
        'include_management_tools': {'type': 'bool', 'default': False},
        'source': {'type': 'str'},
    }, supports_check_mode=True)
    results, reboot = [], False
    with fake.node_for_module('win_feature') as node:
        for name in module.params['name']:
            current = node.data['features'].get(name)
            if current is None:
                module.fail_json(msg='Failed to find feature(s) on remote host: %s' % name)
            wanted = module.params['state'] == 'present'
            installed = current in ('installed', 'installpending')
            if wanted == installed:
                continue
            restart = name.lower() in NEEDS_REBOOT
            reboot = reboot or restart
            results.append({'id': 0, 'display_name': name, 'message': 'Success', 'restart_needed': restart,
                            'reboot_required': restart, 'skip_reason': 'NoReason', 'success': True})
            if not module.check_mode:
                if wanted:
                    node.data['features'][name] = 'installpending' if restart else 'installed'
                else:
                    node.data['features'][name] = 'removepending' if restart else 'available'
                node.data['reboot_pending'] = node.data['reboot_pending'] or restart
    module.exit_json(changed=bool(results), feature_result=results, reboot_required=reboot, success=True,
                     exitcode='Success' if results else 'NoChangeNeeded')


if __name__ == '__main__':
    main()
