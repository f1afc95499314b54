# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The doctor's diagnosis (playbooks/doctor.yml); docs in doctor_findings.yml and doctor_repairs.yml."""

from __future__ import annotations

import typing as t

from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.plugin_utils import _doctor, _kube_proxy_daemonset


def _service_logs(node_logs):
    """{service: the tail of its log files} from a kubewin.node.node_logs result."""
    logs = {}
    for name, service in ((node_logs or {}).get('services') or {}).items():
        texts = [((node_logs.get('logs') or {}).get(path) or {}).get('text') or '' for path in service.get('log_files') or []]
        if any(texts):
            logs[name] = '\n'.join(texts)
    return logs


def doctor_findings(snapshot, name, plan_node=None, plan_cluster=None, plan_paths=None, cluster=None, node_logs=None,
                    control_plane=None, limits=None, node_vars=None):
    """The findings of one node (plugin_utils/_doctor.py)."""
    if not isinstance(snapshot, dict) or not snapshot:
        raise AnsibleFilterError('doctor_findings needs the node state snapshot (kubewin_node of kubewin.node.node_info), '
                                 'got %r' % (type(snapshot).__name__,))
    unknown = sorted(set(limits or {}) - set(_doctor.DEFAULT_LIMITS))
    if unknown:
        raise AnsibleFilterError('doctor_findings: unknown limits %s; known: %s'
                                 % (', '.join(unknown), ', '.join(sorted(_doctor.DEFAULT_LIMITS))))
    if node_vars is not None and not isinstance(node_vars, t.Mapping):
        raise AnsibleFilterError('doctor_findings: node_vars must be the node\'s variables (hostvars[inventory_hostname]), '
                                 'got %r' % (type(node_vars).__name__,))
    return _doctor.diagnose(name, snapshot, plan_node, plan_cluster, plan_paths, cluster, _service_logs(node_logs),
                            control_plane, limits, node_vars, (node_logs or {}).get('event_logs'))


def doctor_contents(plan_paths, plan_cluster=None):
    """The files doctor_findings reads the text of (plugin_utils/_doctor.py content_reads)."""
    calico = isinstance(plan_cluster, t.Mapping) and plan_cluster.get('topology') == 'calico'
    required = ('calico_cni_config_file' if calico else 'cni_config_file', 'kubelet_dir', 'kubernetes_dir',
                'kubernetes_config_dir')
    if not isinstance(plan_paths, t.Mapping) or any(not plan_paths.get(key) for key in required):
        raise AnsibleFilterError('doctor_contents needs the node layout (plan_paths) with %s' % ', '.join(required))
    return _doctor.content_reads(plan_cluster, plan_paths)


def doctor_repairs(findings, kube_proxy_mode='service'):
    """What the safe repairs do about the findings (plugin_utils/_doctor.py repair_plan)."""
    if kube_proxy_mode not in _kube_proxy_daemonset.MODES:
        raise AnsibleFilterError('doctor_repairs: kube_proxy_mode must be one of %s (plan_kube_proxy_mode), got %r'
                                 % (', '.join(_kube_proxy_daemonset.MODES), kube_proxy_mode))
    return _doctor.repair_plan(findings or [], kube_proxy_mode)


class FilterModule:
    """kubewin.node doctor filters."""

    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {'doctor_contents': doctor_contents, 'doctor_findings': doctor_findings, 'doctor_repairs': doctor_repairs}
