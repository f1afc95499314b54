# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.registry_values: named values of one HKLM registry key set, or removed (only those)."""

from __future__ import annotations

import re

from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan

# A key below a hive's own subkey (HKLM:\SOFTWARE\<vendor>...), as node_reset takes them.
_KEY = re.compile(r'^HKLM:\\[^\\]+\\[^\\]+', re.IGNORECASE)
# New-ItemProperty -PropertyType names (Microsoft.Win32.RegistryValueKind), as the snapshot reports the kind.
KINDS = {'dword': 'DWord', 'qword': 'QWord', 'string': 'String', 'expandstring': 'ExpandString',
         'multistring': 'MultiString'}
_NUMBER = {'DWord': 0xFFFFFFFF, 'QWord': 0xFFFFFFFFFFFFFFFF}


def _as_read(kind, data):
    """The data as the snapshot reads it back: RegistryKey.GetValue gives a DWORD as a signed Int32 and a QWORD as
    a signed Int64; a multi-string as a list of strings."""
    if kind in _NUMBER:
        bits = _NUMBER[kind].bit_length()
        number = int(data) & _NUMBER[kind]
        return number - (1 << bits) if number >> (bits - 1) else number
    if kind == 'MultiString':
        return [str(item) for item in data]
    return str(data)


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'key': {'type': 'str', 'required': True},
        'values': {'type': 'list', 'elements': 'dict', 'required': True, 'options': {
            'name': {'type': 'str', 'required': True},
            'type': {'type': 'str', 'choices': list(KINDS), 'default': 'dword'},
            'data': {'type': 'raw'},
        }},
        'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
    }
    SECTIONS = ('registry',)

    def validate(self, args):
        if not _KEY.match(args['key']):
            raise NodeActionError('key must be a key two levels or more below HKLM:\\, such as '
                                  'HKLM:\\SOFTWARE\\Policies\\Microsoft; got %s' % args['key'])
        for value in args['values']:
            if args['state'] == 'present' and value['data'] is None:
                raise NodeActionError('the value %s needs data with state=present' % value['name'])
            if value['data'] is not None and KINDS[value['type']] in _NUMBER:
                try:
                    int(value['data'])
                except (TypeError, ValueError):
                    raise NodeActionError('the %s value %s needs a whole number, got %r'
                                          % (value['type'], value['name'], value['data'])) from None

    def scope(self, args, live=False):
        return {'registry': [args['key']]}

    def _wanted(self, args):
        return {value['name']: {'kind': KINDS[value['type']], 'data': _as_read(KINDS[value['type']], value['data'])}
                for value in args['values']}

    def _current(self, args, state):
        held = (state['registry'].get(args['key']) or {}).get('values') or {}
        by_name = {name.lower(): (name, item) for name, item in held.items()}
        return {value['name']: by_name[value['name'].lower()][1] for value in args['values']
                if value['name'].lower() in by_name}

    def plan(self, args, state):
        before = self._current(args, state)
        if args['state'] == 'absent':
            return Plan([{'op': 'remove', 'name': name} for name in before], before=before, after={})
        after = self._wanted(args)
        operations = [dict(op='set', name=name, **item) for name, item in after.items() if before.get(name) != item]
        return Plan(operations, before=before, after=after)

    def apply(self, args, plan, state):
        sets = [operation for operation in plan.operations if operation['op'] == 'set']
        parameters = {'Key': args['key'], 'Names': [operation['name'] for operation in sets],
                      'Kinds': [operation['kind'] for operation in sets], 'Data': [operation['data'] for operation in sets],
                      'Remove': [operation['name'] for operation in plan.operations if operation['op'] == 'remove']}
        return {'state': self.run_script('registry_values_apply', parameters)['state']}

    def check_applied(self, args, plan, state):
        left = self.plan(args, state)
        if left.changed:
            raise NodeActionError('the values of %s are not what was set: %s' % (args['key'], left.before))

    def side_effects(self, args, plan):
        # The apply returns the key as it reads after the change; nothing else moves.
        return {}

    def resource(self, args):
        return args['key']

    def report(self, args, state, plan):
        return {'values': self._current(args, state)}
