#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: node_service
short_description: Manage a Windows service on a node (kubelet, kube-proxy, flanneld, containerd)
version_added: 0.1.0
description:
  - Creates or reconfigures a Windows service from its program and argument list, sets its environment,
    dependencies, start mode and recovery actions, and starts, stops, restarts or removes it.
  - The command line is built with Windows quoting rules (paths and arguments with spaces or quotes are
    quoted and escaped as C(CommandLineToArgvW) reads them) and compared argument by argument, so a
    service is reported C(changed) only when something really differs. A running service whose
    configuration changed is restarted (O(restart_on_change)); handlers that restart a component
    therefore only run when its configuration changed.
  - Native services by default (no third-party wrapper). Components from Kubernetes 1.26 on write their
    logs only to stderr, which a native service has nowhere to send; set O(log_file) with O(log_runner)
    (C(kube-log-runner.exe), shipped with the Kubernetes node binaries for exactly this) to keep them.
    O(wrapper=nssm) runs the program under nssm instead, which also rotates the log file.
  - Starting waits for the service to run and fails with its exit code when it does not.
  - A service that is to run but whose program (or nssm application) does not exist fails the task before
    the running service is stopped or reconfigured. When a running service does not start again after
    M(kubewin.node.artifact) replaced its binary under it (the old binary is kept aside while it runs), or with
    its new settings, the previous binary and settings (command line, display name, description, start mode,
    dependencies, environment, restart actions, every value of nssm's C(Parameters) key) are put back and the
    service started again; the task still fails, saying so, first why the service itself did not start (not
    the failure of a service that depends on it, such as kube-proxy on the kubelet), then what the rollback did.
  - A restart stops the services that depend on this one and starts them again once it runs.
options:
  name:
    description: Service name.
    type: str
    required: true
  path:
    description: Absolute path of the program. Required unless O(state=absent).
    type: str
  args:
    description: Arguments, one list element each; quoting is the module's job.
    type: list
    elements: str
    default: []
  display_name:
    description: Display name; defaults to O(name).
    type: str
  description:
    description: Description of the service.
    type: str
    default: ''
  env:
    description: Environment variables of the service process (for example C(KUBE_NETWORK), C(NODE_NAME)).
    type: dict
    default: {}
  dependencies:
    description: Services this one depends on; Windows starts them first.
    type: list
    elements: str
    default: []
  start_mode:
    description: Start mode.
    type: str
    choices: [auto, delayed, manual, disabled]
    default: auto
  state:
    description:
      - C(started) and C(stopped) are the desired run state; C(restarted) always restarts (C(changed)).
    type: str
    choices: [started, stopped, restarted, absent]
    default: started
  recovery:
    description: What the service control manager does when the service fails.
    type: dict
    suboptions:
      restart_delays:
        description: Seconds to wait before each restart after a failure; an empty list restarts never.
        type: list
        elements: int
        default: [10, 30, 60]
      reset_period:
        description: Seconds without failure after which the failure count starts again.
        type: int
        default: 86400
  wrapper:
    description:
      - C(native) registers the program itself; C(nssm) registers nssm running the program.
      - A service that nssm ran before (as Microsoft's SDN C(start.ps1) installs the kubelet, kube-proxy and
        flanneld) and is now C(native) loses nssm's settings, the service's C(Parameters) registry key.
    type: str
    choices: [native, nssm]
    default: native
  nssm_path:
    description: Path of nssm.exe. Required with O(wrapper=nssm).
    type: str
  log_file:
    description: File that receives the program's output (stdout and stderr).
    type: str
  log_runner:
    description: Path of kube-log-runner.exe, which writes the output of a native service to O(log_file).
    type: str
  log_rotate_bytes:
    description:
      - With O(wrapper=nssm) and O(log_file), the size at which nssm rotates the log file while the
        service runs (nssm's C(AppRotateBytes)); nssm renames it to C(<name>-<yyyyMMddTHHmmss.fff>.log)
        and never removes a rotated file.
      - At most 2147483647 (nssm keeps it in a REG_DWORD, written as an Int32).
    type: int
    default: 104857600
  restart_on_change:
    description: Restart a running service whose configuration this task changed.
    type: bool
    default: true
  start_timeout:
    description: Seconds to wait for the service to start or stop.
    type: int
    default: 60
extends_documentation_fragment:
  - kubewin.node.node_action
seealso:
  - module: kubewin.node.artifact
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Register kube-proxy for an l2bridge network
  kubewin.node.node_service:
    name: kube-proxy
    path: C:\k\kube-proxy.exe
    args:
      - --windows-service
      - --proxy-mode=kernelspace
      - --hostname-override=win-node-1
      - --kubeconfig=C:\etc\kubernetes\kube-proxy.conf
    env:
      KUBE_NETWORK: cbr0
    dependencies: [kubelet]
    log_file: C:\var\log\kube-proxy\kube-proxy.log
    log_runner: C:\k\kube-log-runner.exe
'''

RETURN = r'''
service:
  description: The service as it now is (see M(kubewin.node.node_info) for the keys).
  returned: success
  type: dict
operations:
  description: What the task did or, in check mode, would do (create, configure, start, stop, restart, remove).
  returned: success
  type: list
  elements: str
'''
