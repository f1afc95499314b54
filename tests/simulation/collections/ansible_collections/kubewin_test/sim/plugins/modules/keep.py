# -*- coding: utf-8 -*-
"""Test-only kubewin_test.sim.keep: write a value as JSON to a file where the playbook runs, for the test to read.

A module of the fake collections runs inside the connection's worker process (kubewin_sim/inprocess.py): a test
playbook keeps what it read in one of these instead of ansible.builtin.copy, whose module is a Python process of its
own (about a second and a half per run). Only for localhost plays; the file is readable by its owner only, as it
may hold tokens.
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec={'content': {'type': 'raw', 'required': True},
                                          'dest': {'type': 'path', 'required': True}})
    dest = module.params['dest']
    descriptor = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, 'w', encoding='utf-8') as handle:
        json.dump(module.params['content'], handle, sort_keys=True)
    module.exit_json(changed=False)


if __name__ == '__main__':
    main()
