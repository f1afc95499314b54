# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.node_file: a text file the collection manages on a node (configs, kubeconfigs)."""

from __future__ import annotations

import hashlib

from ansible_collections.kubewin.node.plugins.plugin_utils import _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan

HIDDEN = '(secret content not shown)'


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'path': {'type': 'str', 'required': True},
        'content': {'type': 'str'},
        'secret_content': {'type': 'str', 'no_log': True},
        'acl': {'type': 'str', 'choices': ['protected', 'secret'], 'default': 'protected'},
        'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
    }
    ARGSPEC_OPTIONS = {
        'mutually_exclusive': [('content', 'secret_content')],
        'required_if': [('state', 'present', ('content', 'secret_content'), True)],
    }
    SECTIONS = ('files',)

    @staticmethod
    def _secret(args):
        return args['secret_content'] is not None

    def scope(self, args, live=False):
        scope = {'files': [args['path']]}
        if live and not self._secret(args):
            scope['contents'] = [args['path']]
        return scope

    def side_effects(self, args, plan):
        return _snapshot.rewritten([args['path']])

    def live_sections(self, args):
        return ('files',) if self._secret(args) else ('files', 'contents')

    def plan(self, args, state):
        current = state['files'][args['path']]
        old_text = ((state.get('contents') or {}).get(args['path']) or {}).get('text')
        if args['state'] == 'absent':
            if not current['exists']:
                return Plan()
            return Plan([{'op': 'remove'}], text_diff=self._diff(args, old_text or '', '', current))
        secret = self._secret(args)
        text = args['secret_content'] if secret else args['content']
        acl = 'secret' if secret else args['acl']
        wanted = hashlib.sha256(text.encode('utf-8')).hexdigest()
        if current['exists'] and current.get('sha256') == wanted and current.get('acl') == acl:
            return Plan()
        return Plan([{'op': 'write', 'acl': acl, 'sha256': wanted}],
                    text_diff=self._diff(args, old_text, text, current, acl))

    def _diff(self, args, old_text, new_text, current, acl=None):
        secret = self._secret(args)
        before = HIDDEN if secret and current['exists'] else (old_text if old_text is not None else '')
        after = HIDDEN if secret and new_text else new_text
        if current['exists'] and acl and current.get('acl') != acl:
            before = '# ACL: %s\n%s' % (current.get('acl'), before)
            after = '# ACL: %s\n%s' % (acl, after)
        return {'before': before, 'after': after, 'before_header': args['path'], 'after_header': args['path']}

    def apply(self, args, plan, state):
        operation = plan.operations[0]
        if operation['op'] == 'remove':
            applied = self.run_script('file_write', {'Path': args['path'], 'Remove': True})
        elif self._secret(args):
            applied = self.run_script('file_write', {'Path': args['path'], 'Acl': 'secret'},
                                      secrets={'SecretContent': args['secret_content']})
        else:
            applied = self.run_script('file_write', {'Path': args['path'], 'Content': args['content'],
                                                     'Acl': operation['acl']})
        return {'state': applied['state']}

    def check_applied(self, args, plan, state):
        current = state['files'][args['path']]
        operation = plan.operations[0]
        if operation['op'] == 'remove':
            if current['exists']:
                raise NodeActionError('%s still exists after removal' % args['path'])
        elif (current.get('sha256'), current.get('acl')) != (operation['sha256'], operation['acl']):
            raise NodeActionError('%s does not hold the written content with the %s ACL (sha256 %s, ACL %s)'
                                  % (args['path'], operation['acl'], current.get('sha256'), current.get('acl')))

    def report(self, args, state, plan):
        current = state['files'][args['path']]
        return {'path': args['path'], 'sha256': current.get('sha256'), 'acl': current.get('acl')}
