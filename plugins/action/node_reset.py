# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.node_reset: services, HNS load balancers and endpoints, and files a reset removes, in one call."""

from __future__ import annotations

import ntpath
import re

from ansible_collections.kubewin.node.plugins.plugin_utils import _hns, _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan


# A registry key below a hive's own subkey (HKLM:\SOFTWARE\<vendor>...): never a hive or one of its top keys.
_REGISTRY_KEY = re.compile(r'^HKLM:\\[^\\]+\\[^\\]+', re.IGNORECASE)


def _under(path, folder):
    path, folder = path.lower().rstrip('\\'), folder.lower().rstrip('\\')
    return path == folder or path.startswith(folder + '\\')


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'services': {'type': 'list', 'elements': 'str', 'default': []},
        'hns_networks': {'type': 'list', 'elements': 'str', 'default': []},
        'hns_policy_lists': {'type': 'bool', 'default': False},
        'paths': {'type': 'list', 'elements': 'str', 'default': []},
        'registry_keys': {'type': 'list', 'elements': 'str', 'default': []},
        'stop_timeout': {'type': 'int', 'default': 60},
    }
    SECTIONS = ('services', 'hns', 'files', 'registry')

    def validate(self, args):
        bad = [path for path in args['paths'] if not ntpath.isabs(path) or len(path.rstrip('\\')) <= 3]
        if bad:
            raise NodeActionError('paths must be absolute and not a drive root: %s' % ', '.join(bad))
        bad = [key for key in args['registry_keys'] if not _REGISTRY_KEY.match(key)]
        if bad:
            raise NodeActionError('registry_keys must be keys two levels or more below HKLM:\\, such as '
                                  'HKLM:\\SOFTWARE\\Tigera\\Calico: %s' % ', '.join(bad))

    def _managed_under(self, args, files):
        return sorted({key for key in files for path in args['paths'] if _under(key, path)} - set(args['paths']))

    def scope(self, args, live=False):
        # The managed files under the folders are in the snapshot (node_info lists every file
        # in the registry); asking for them keeps a plan from the snapshot complete.
        snapshot = _snapshot.from_task_vars(self._task_vars) or {}
        return {'services': list(args['services']),
                'files': list(args['paths']) + self._managed_under(args, snapshot.get('files') or {}),
                'registry': list(args['registry_keys'])}

    def plan(self, args, state):
        services = [name for name in args['services'] if state['services'][name].get('exists')]
        hns = state['hns']
        policy_lists = sorted(p['id'] for p in hns.get('policy_lists') or []) if args['hns_policy_lists'] else []
        network_ids = {n['id'] for name in args['hns_networks'] for n in _hns.networks_named(hns['networks'], name)}
        endpoints = sorted((e for e in hns['endpoints']
                            if e.get('network_id') in network_ids
                            or any(_hns.same_name(e.get('network_name'), name) for name in args['hns_networks'])),
                           key=lambda e: e['name'] or '')
        files = state['files']
        paths = [path for path in args['paths'] if files[path].get('exists')]
        forget = sorted({key for key in self._managed_under(args, files) if files[key].get('exists')}
                        | {path for path in paths if files[path].get('type') == 'file'})
        registry_keys = [key for key in args['registry_keys'] if state['registry'][key].get('exists')]
        operations = []
        if services:
            operations.append({'op': 'remove_services', 'names': services})
        if policy_lists:
            operations.append({'op': 'remove_policy_lists', 'ids': policy_lists})
        if endpoints:
            operations.append({'op': 'remove_endpoints', 'ids': [e['id'] for e in endpoints]})
        if paths or forget:
            operations.append({'op': 'remove_paths', 'paths': paths, 'forget': forget})
        if registry_keys:
            operations.append({'op': 'remove_registry_keys', 'keys': registry_keys})
        before = {'services': services, 'hns_policy_lists': policy_lists,
                  'hns_endpoints': ['%s (%s)' % (e['name'], e['ip_address']) for e in endpoints],
                  'paths': sorted(set(paths) | set(forget)), 'registry_keys': registry_keys}
        after = {key: [] for key in before}
        return Plan(operations, before=before, after=after)

    def apply(self, args, plan, state):
        parameters = {'Services': [], 'PolicyListIds': [], 'EndpointIds': [], 'Paths': [], 'Forget': [],
                      'RegistryKeys': [], 'StopTimeoutSeconds': args['stop_timeout']}
        for operation in plan.operations:
            if operation['op'] == 'remove_services':
                parameters['Services'] = operation['names']
            elif operation['op'] == 'remove_policy_lists':
                parameters['PolicyListIds'] = operation['ids']
            elif operation['op'] == 'remove_endpoints':
                parameters['EndpointIds'] = operation['ids']
            elif operation['op'] == 'remove_registry_keys':
                parameters['RegistryKeys'] = operation['keys']
            else:
                parameters['Paths'] = operation['paths']
                parameters['Forget'] = operation['forget']
        applied = self.run_script('node_reset_apply', parameters)
        fresh = applied['state']
        # The forgotten files went with their folders; say so in the snapshot too.
        fresh['files'].update({path: {'exists': False} for path in parameters['Forget']
                               if path not in fresh['files']})
        fresh['services'].update({name: {'name': name, 'exists': False} for name in args['services']
                                  if name not in fresh['services']})
        fresh['registry'].update({key: {'exists': False} for key in args['registry_keys'] if key not in fresh['registry']})
        return {'state': fresh}

    def check_applied(self, args, plan, state):
        left = []
        left += ['service %s' % name for name in args['services'] if state['services'].get(name, {}).get('exists')]
        removed = {i for op in plan.operations for i in op.get('ids') or []}
        hns = state['hns']
        left += ['HNS object %s' % o['id'] for o in (hns.get('policy_lists') or []) + hns['endpoints'] if o['id'] in removed]
        left += [path for path in args['paths'] if state['files'].get(path, {}).get('exists')]
        left += [key for key in args['registry_keys'] if state['registry'].get(key, {}).get('exists')]
        if left:
            raise NodeActionError('still on the node after the reset: %s' % ', '.join(left))

    def report(self, args, state, plan):
        return {'removed': plan.before if plan.changed else {}}
