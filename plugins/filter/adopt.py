# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Adoption of nodes other tools set up; docs in takeover.yml, adoption_reads.yml and service_settings.yml."""

from __future__ import annotations

import typing as t

from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.plugin_utils import _adopt, _flags


def takeover(snapshot, host, node, cluster, paths, hostprocess_removed=False):
    """The takeover plan of a node from its snapshot and its share of the plan, with the lines the run prints."""
    if not isinstance(snapshot, dict):
        raise AnsibleFilterError('takeover needs the node state snapshot (kubewin_node, a dictionary), got %r'
                                 % type(snapshot).__name__)
    for name, value in (('plan_node', node), ('plan_cluster', cluster), ('plan_paths', paths)):
        if not isinstance(value, dict):
            raise AnsibleFilterError('takeover needs %s (a dictionary from the plan role), got %r'
                                     % (name, type(value).__name__))
    plan = _adopt.takeover(snapshot, str(host), node, cluster, paths, hostprocess_removed=bool(hostprocess_removed))
    plan['lines'] = _adopt.lines(plan)
    plan['message'] = '\n'.join(plan['refusals'])
    return plan


def adoption_reads(paths):
    """The files (``files``) and text files (``contents``) the node state snapshot reads for the recognition."""
    if not isinstance(paths, dict) or 'kubernetes_dir' not in paths:
        raise AnsibleFilterError('adoption_reads needs plan_paths (a dictionary with kubernetes_dir), got %r' % (paths,))
    return {'files': _adopt.files_to_read(paths), 'contents': _adopt.contents_to_read(paths)}


def service_settings(service):
    """kubewin.node.node_service's options that register ``service`` (a service of the node state snapshot) again as
    it is: to give a node back the service it ran before a step that replaced it failed."""
    if not isinstance(service, dict) or not service.get('exists') or not service.get('command_line'):
        raise AnsibleFilterError('service_settings needs an existing service of the node state snapshot, got %r'
                                 % (service,))
    try:
        command = _flags.split_windows_command_line(service['command_line'])
        nssm = service.get('nssm') or None
        if nssm:
            # nssm keeps the program and its parameters apart (AppParameters is one string of arguments).
            program = [nssm['application']] + _flags.split_windows_command_line(
                'program ' + (nssm.get('app_parameters') or ''))[1:]
        else:
            program = command
    except _flags.FlagsError as exc:
        raise AnsibleFilterError('service_settings: %s' % exc) from exc
    recovery = service.get('recovery') or {}
    delays = [action['delay_ms'] // 1000 for action in recovery.get('actions') or [] if action.get('type') == 'restart']
    settings = {
        'path': program[0], 'args': program[1:],
        'display_name': service.get('display_name') or service.get('name'),
        'description': service.get('description') or '',
        'start_mode': service.get('start_mode') or 'auto',
        'dependencies': list(service.get('dependencies') or []),
        'env': dict(entry.split('=', 1) for entry in service.get('environment') or [] if '=' in entry),
        'recovery': {'restart_delays': delays, 'reset_period': recovery.get('reset_period_seconds') or 0},
        'wrapper': 'nssm' if nssm else 'native',
        'nssm_path': command[0] if nssm else None,
        'log_file': (nssm or {}).get('app_stdout') or None,
        'log_rotate_bytes': (nssm or {}).get('app_rotate_bytes') or None,
    }
    return settings


class FilterModule:
    """kubewin.node adoption filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'takeover': takeover, 'adoption_reads': adoption_reads, 'service_settings': service_settings}
