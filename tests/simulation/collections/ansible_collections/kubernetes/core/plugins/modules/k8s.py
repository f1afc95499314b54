# -*- coding: utf-8 -*-
"""Test-only kubernetes.core.k8s against the simulated cluster.

It creates, patches (strategic merge or JSON merge) and deletes objects; check mode is a dry run; waits.

Takes the real module's options; see kubewin_sim/k8s_modules.py for what is honoured.
"""

from ansible.module_utils.basic import AnsibleModule

from kubewin_sim import k8s_modules


def main():
    module = AnsibleModule(argument_spec=k8s_modules.K8S_SPEC, supports_check_mode=True)
    k8s_modules.run_k8s(module)


if __name__ == '__main__':
    main()
