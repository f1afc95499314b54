# -*- coding: utf-8 -*-
"""Test-only kubernetes.core.k8s_cluster_info against the simulated cluster.

It returns the server version, the APIs and the connection.

Takes the real module's options; see kubewin_sim/k8s_modules.py for what is honoured.
"""

from ansible.module_utils.basic import AnsibleModule

from kubewin_sim import k8s_modules


def main():
    module = AnsibleModule(argument_spec=k8s_modules.K8S_CLUSTER_INFO_SPEC, supports_check_mode=True)
    k8s_modules.run_k8s_cluster_info(module)


if __name__ == '__main__':
    main()
