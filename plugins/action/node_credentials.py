# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.node_credentials: every file on the node that holds a credential readable only by SYSTEM and Administrators.

kubeadm and the kubelet write kubeconfigs, certificates and keys without an ACL of their own, so they inherit their
folder's, which lets Users read them (plugins/plugin_utils/_credentials.py says which files). This module gives each
such file the ``secret`` ACL profile node_file gives the secrets the collection writes (lib/files.ps1); only ACLs
change, so the diff names files and profiles, never content.
"""

from __future__ import annotations

from ansible_collections.kubewin.node.plugins.plugin_utils import _credentials
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'patterns': {'type': 'list', 'elements': 'str', 'required': True},
    }
    SECTIONS = ('credentials',)

    def validate(self, args):
        for pattern in args['patterns']:
            folder, _sep, name = pattern.replace('/', '\\').rpartition('\\')
            if len(folder) < 2 or folder[1] != ':' or not name or any(char in folder for char in '*?'):
                raise NodeActionError('patterns: %r is not an absolute Windows folder followed by a file name '
                                      '(wildcards only in the file name), such as C:\\etc\\kubernetes\\*.conf' % pattern)

    def scope(self, args, live=False):
        return {'credentials': args['patterns']}

    def resource(self, args):
        return 'credential files'

    def plan(self, args, state):
        files = _credentials.files(state['credentials'], args['patterns'])
        open_files = _credentials.unrestricted(state['credentials'], args['patterns'])
        if not open_files:
            return Plan()
        return Plan([{'op': 'restrict', 'paths': open_files}],
                    before={path: files[path] for path in open_files},
                    after={path: _credentials.SECRET_ACL for path in open_files})

    def side_effects(self, args, plan):
        return {'files': plan.operations[0]['paths']}  # their ACL, which the files section also reads

    def apply(self, args, plan, state):
        applied = self.run_script('node_credentials_apply', {'Paths': plan.operations[0]['paths'],
                                                             'Credentials': args['patterns']})
        return {'state': applied['state']}

    def check_applied(self, args, plan, state):
        left = _credentials.unrestricted(state['credentials'], args['patterns'])
        if left:
            raise NodeActionError('these files that hold a credential still do not have the secret ACL: %s'
                                  % ', '.join(left))

    def report(self, args, state, plan):
        restricted = sorted(plan.operations[0]['paths']) if plan.changed else []
        return {'files': sorted(_credentials.files(state['credentials'], args['patterns'])), 'restricted': restricted}
