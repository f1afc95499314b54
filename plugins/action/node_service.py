# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.node_service: desired state of one Windows service (kubelet, kube-proxy, flanneld, ...)."""

from __future__ import annotations

import json
import ntpath

from ansible_collections.kubewin.node.plugins.plugin_utils._flags import (
    quote_windows_argument,
    split_windows_command_line,
    windows_command_line,
)
from ansible_collections.kubewin.node.plugins.plugin_utils import _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan

# nssm rotates its output file online once it reaches this size (AppRotateOnline, AppRotateBytes: nssm.cc
# "File rotation"), renaming it to <name>-<yyyyMMddTHHmmss.fff>.log; it never removes a rotated file, the
# node's log rotation task does. The default is kubewin_log_max_size_mb's.
NSSM_ROTATE_BYTES = 100 * 1024 * 1024
# AppRotateBytes is a REG_DWORD that node_service_apply.ps1 writes as an Int32 (RegistryKey.SetValue
# converts a DWord value with Convert.ToInt32); AppRotateBytesHigh, for larger sizes, is not written.
NSSM_MAX_ROTATE_BYTES = 2 ** 31 - 1
CONFIG_KEYS = ('command_line', 'display_name', 'description', 'start_mode', 'dependencies', 'environment',
               'recovery', 'nssm')


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'name': {'type': 'str', 'required': True},
        'path': {'type': 'str'},
        'args': {'type': 'list', 'elements': 'str', 'default': []},
        'display_name': {'type': 'str'},
        'description': {'type': 'str', 'default': ''},
        'env': {'type': 'dict', 'default': {}},
        'dependencies': {'type': 'list', 'elements': 'str', 'default': []},
        'start_mode': {'type': 'str', 'choices': ['auto', 'delayed', 'manual', 'disabled'], 'default': 'auto'},
        'state': {'type': 'str', 'choices': ['started', 'stopped', 'restarted', 'absent'], 'default': 'started'},
        'recovery': {'type': 'dict', 'apply_defaults': True, 'options': {
            'restart_delays': {'type': 'list', 'elements': 'int', 'default': [10, 30, 60]},
            'reset_period': {'type': 'int', 'default': 86400},
        }},
        'wrapper': {'type': 'str', 'choices': ['native', 'nssm'], 'default': 'native'},
        'nssm_path': {'type': 'str'},
        'log_file': {'type': 'str'},
        'log_runner': {'type': 'str'},
        'log_rotate_bytes': {'type': 'int', 'default': NSSM_ROTATE_BYTES},
        'restart_on_change': {'type': 'bool', 'default': True},
        'start_timeout': {'type': 'int', 'default': 60},
    }
    ARGSPEC_OPTIONS = {
        'required_if': [('state', 'started', ('path',)), ('state', 'stopped', ('path',)),
                        ('state', 'restarted', ('path',)), ('wrapper', 'nssm', ('nssm_path',))],
    }
    SECTIONS = ('services',)

    def validate(self, args):
        if args['wrapper'] == 'native' and args['log_file'] and not args['log_runner']:
            raise NodeActionError(
                'a native service cannot redirect its output: with log_file set log_runner to the path of '
                'kube-log-runner.exe (shipped with the Kubernetes node binaries), or use wrapper: nssm')
        if not 1 <= args['log_rotate_bytes'] <= NSSM_MAX_ROTATE_BYTES:
            raise NodeActionError('log_rotate_bytes must be from 1 to %d (nssm keeps it in a REG_DWORD, written as an Int32), got %d'
                                  % (NSSM_MAX_ROTATE_BYTES, args['log_rotate_bytes']))
        bad = [name for name in args['env'] if not name or '=' in name]
        if bad:
            raise NodeActionError('environment variable names may not be empty or contain "=": %s' % bad)

    def scope(self, args, live=False):
        return {'services': [args['name']]}

    def desired(self, args):
        """The service configuration as the node reports it (see lib/services.ps1)."""
        path, arguments, nssm = args['path'], list(args['args']), None
        if args['wrapper'] == 'nssm':
            nssm = {'application': path, 'app_parameters': ' '.join(quote_windows_argument(a) for a in arguments),
                    'app_directory': ntpath.dirname(path), 'app_stdout': args['log_file'],
                    'app_stderr': args['log_file'], 'app_rotate_bytes': args['log_rotate_bytes'] if args['log_file'] else 0}
            command_line = windows_command_line(args['nssm_path'], [])
        elif args['log_file']:
            # kube-log-runner runs the component and writes its output to the file.
            command_line = windows_command_line(args['log_runner'], ['-log-file=%s' % args['log_file'], path] + arguments)
        else:
            command_line = windows_command_line(path, arguments)
        delays = args['recovery']['restart_delays']
        return {
            'command_line': command_line,
            'display_name': args['display_name'] or args['name'],
            'description': args['description'],
            'start_mode': args['start_mode'],
            'dependencies': list(args['dependencies']),
            'environment': sorted('%s=%s' % (name, value) for name, value in args['env'].items()),
            'recovery': {'reset_period_seconds': args['recovery']['reset_period'] if delays else 0,
                         'actions': [{'type': 'restart', 'delay_ms': delay * 1000} for delay in delays]},
            'nssm': nssm,
        }

    @staticmethod
    def _comparable(config):
        """Configuration in a form where equal services compare equal (quoting, case, order)."""
        recovery = config.get('recovery') or {'reset_period_seconds': 0, 'actions': []}
        nssm = config.get('nssm')
        return {
            'command_line': split_windows_command_line(config.get('command_line') or ''),
            'display_name': config.get('display_name'),
            'description': config.get('description') or '',
            'start_mode': config.get('start_mode'),
            'dependencies': sorted(d.lower() for d in config.get('dependencies') or []),
            'environment': sorted(config.get('environment') or []),
            'recovery': {'reset_period_seconds': recovery['reset_period_seconds'] if recovery['actions'] else 0,
                         'actions': recovery['actions']},
            'nssm': {k: v for k, v in nssm.items() if v} if nssm else None,
        }

    def _shown(self, config, state):
        shown = {key: config.get(key) for key in CONFIG_KEYS if config.get(key) is not None}
        shown['command_line'] = split_windows_command_line(config.get('command_line') or '')
        shown['state'] = state
        return shown

    def side_effects(self, args, plan):
        # The apply re-reads the service; nssm keeps its settings under the service's registry key. A program that
        # starts keeps changing what it changes (_snapshot.PROGRAM_EFFECTS) while it runs.
        effects = {'registry': ['HKLM:\\SYSTEM\\CurrentControlSet\\Services\\%s\\' % args['name']]}
        if any(operation['op'] in ('start', 'restart') for operation in plan.operations):
            program = _snapshot.program_effects(args['name'], self._task_vars.get('plan_paths'))
            effects = _snapshot.combine(effects, program)
        return effects

    def plan(self, args, state):
        current = state['services'][args['name']]
        if args['state'] == 'absent':
            if not current.get('exists'):
                return Plan()
            return Plan([{'op': 'remove'}], before=self._shown(current, current['state']), after={})
        desired = self.desired(args)
        wanted_state = 'stopped' if args['state'] == 'stopped' else 'running'
        before = self._shown(current, current['state']) if current.get('exists') else {}
        after = self._shown(desired, wanted_state)
        operations = []
        if not current.get('exists'):
            operations.append({'op': 'create'})
        else:
            differing = [key for key, value in self._comparable(desired).items()
                         if self._comparable(current)[key] != value]
            if differing:
                operations.append({'op': 'configure', 'settings': differing})
        running = current.get('state') == 'running'
        if args['state'] == 'restarted' or (operations and running and args['restart_on_change']
                                            and wanted_state == 'running' and current.get('exists')):
            operations.append({'op': 'restart'})
        elif wanted_state == 'running' and not running:
            operations.append({'op': 'start'})
        elif wanted_state == 'stopped' and current.get('exists') and current.get('state') != 'stopped':
            operations.append({'op': 'stop'})
        return Plan(operations, before=before, after=after)

    def apply(self, args, plan, state):
        if args['state'] == 'absent':
            applied = self.run_script('node_service_apply', {'Name': args['name'], 'Ensure': 'absent',
                                                             'StartTimeoutSeconds': args['start_timeout']})
            return {'state': applied['state']}
        desired = self.desired(args)
        delays = args['recovery']['restart_delays']
        parameters = {
            'Name': args['name'],
            'CommandLine': desired['command_line'],
            'DisplayName': desired['display_name'],
            'Description': desired['description'],
            'StartMode': desired['start_mode'],
            'Dependencies': desired['dependencies'],
            'Environment': desired['environment'],
            'FailureActions': '/'.join('restart/%d' % (delay * 1000) for delay in delays),
            'ResetPeriodSeconds': args['recovery']['reset_period'],
            'Ensure': 'stopped' if args['state'] == 'stopped' else 'running',
            'Restart': any(op['op'] == 'restart' for op in plan.operations),
            'StartTimeoutSeconds': args['start_timeout'],
        }
        if desired['nssm']:
            parameters['NssmJson'] = json.dumps({
                'Application': desired['nssm']['application'], 'AppParameters': desired['nssm']['app_parameters'],
                'AppDirectory': desired['nssm']['app_directory'],
                'AppStdout': desired['nssm']['app_stdout'] or '', 'AppStderr': desired['nssm']['app_stderr'] or '',
                'AppRotateFiles': 1, 'AppRotateOnline': 1, 'AppRotateBytes': desired['nssm']['app_rotate_bytes']})
        applied = self.run_script('node_service_apply', parameters)
        return {'state': applied['state']}

    def check_applied(self, args, plan, state):
        current = state['services'][args['name']]
        if args['state'] == 'absent':
            if current.get('exists'):
                raise NodeActionError('service %s still exists after removal' % args['name'])
            return
        differing = [key for key, value in self._comparable(self.desired(args)).items()
                     if self._comparable(current)[key] != value]
        wanted_state = 'stopped' if args['state'] == 'stopped' else 'running'
        if differing or current.get('state') != wanted_state:
            raise NodeActionError('service %s is not as configured after the change (differs in: %s; state %s)'
                                  % (args['name'], ', '.join(differing) or 'nothing', current.get('state')))

    def report(self, args, state, plan):
        current = state['services'][args['name']]
        return {'service': current, 'operations': [op['op'] for op in plan.operations]}
