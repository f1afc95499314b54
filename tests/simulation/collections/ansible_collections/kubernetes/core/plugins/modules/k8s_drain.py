# -*- coding: utf-8 -*-
"""Test-only kubernetes.core.k8s_drain against the simulated cluster.

It cordons, drains (evicting the node's pods by the real module's rules) and uncordons a Node.
Like the real module it has no check mode, so Ansible skips it in a check run.

Takes the real module's options; see kubewin_sim/k8s_modules.py for what is honoured.
"""

from ansible.module_utils.basic import AnsibleModule

from kubewin_sim import k8s_modules


def main():
    module = AnsibleModule(argument_spec=k8s_modules.K8S_DRAIN_SPEC)
    k8s_modules.run_k8s_drain(module)


if __name__ == '__main__':
    main()
