# -*- coding: utf-8 -*-
"""Test-only ansible.windows.win_powershell: runs a script on a simulated node with the real module's contract.

Its options are the real module's: the ``$spec`` of the installed ansible.windows' win_powershell.ps1, evaluated by the
engine (kubewin_sim/windows/win_powershell.py ``module_spec``), so AnsibleModule accepts and refuses what Ansible.Basic
does with it. The script runs in the PowerShell engine with the module's contract (kubewin_sim/windows/win_powershell.py).
"""

from ansible.module_utils.basic import AnsibleModule

from kubewin_sim import fake
from kubewin_sim.windows.win_powershell import module_spec

_EXCLUSIVE = 'parameters are mutually exclusive: '


class BasicModule(AnsibleModule):
    """AnsibleModule with Ansible.Basic's messages where they differ: ansible-core's Ansible.Basic.cs fails on the
    first group of mutually exclusive options it finds set, naming them joined with ', ' (CheckMutuallyExclusive);
    Python's validation joins each group with '|' and lists every group."""

    def fail_json(self, msg, **kwargs):  # pylint: disable=arguments-differ
        if msg.startswith(_EXCLUSIVE):
            groups, found, context = msg[len(_EXCLUSIVE):].partition(' found in ')
            msg = _EXCLUSIVE + groups.split(', ')[0].replace('|', ', ') + (' found in ' + context if found else '')
        super().fail_json(msg, **kwargs)


def main():
    spec = dict(module_spec())
    options = spec.pop('options')
    module = BasicModule(argument_spec=options, **spec)
    result = fake.run_powershell(module.params, check_mode=module.check_mode,
                                 verbosity=module._verbosity, diff=module._diff)  # pylint: disable=protected-access
    # The real module ends with ExitJson whether or not the script failed (failed=true then).
    module.exit_json(**result)


if __name__ == '__main__':
    main()
