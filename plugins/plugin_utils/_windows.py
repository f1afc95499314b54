# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Windows Server builds and what they are called.

Internal to kubewin.node, not a public API.
"""

from __future__ import annotations

# Build number -> (product, release). Kubernetes' Windows docs and the pause
# image tags name releases this way (ltsc2019 = 1809 = 17763).
WINDOWS_BUILDS = {
    14393: ('Windows Server 2016', '1607'),
    17763: ('Windows Server 2019', '1809'),
    18362: ('Windows Server, version 1903', '1903'),
    18363: ('Windows Server, version 1909', '1909'),
    19041: ('Windows Server, version 2004', '2004'),
    19042: ('Windows Server, version 20H2', '20H2'),
    20348: ('Windows Server 2022', '21H2'),
    25398: ('Windows Server, version 23H2', '23H2'),
    26100: ('Windows Server 2025', '24H2'),
}


def describe_build(build):
    """Return {'build', 'product', 'release'} for a build number; unknown builds say so."""
    product, release = WINDOWS_BUILDS.get(int(build), ('unknown Windows build %s' % build, None))
    return {'build': int(build), 'product': product, 'release': release}


# about_Execution_Policies (Windows PowerShell 5.1): the scopes in precedence order. The two Group Policy scopes,
# written by the "Turn on Script Execution" setting (about_Group_Policy_Settings), win over the Process scope that
# powershell.exe -ExecutionPolicy Bypass sets: the collection's detached workers, its log rotation task and the
# kube-proxy DaemonSet's pod all start powershell.exe that way.
POLICY_SCOPES = ('MachinePolicy', 'UserPolicy', 'Process', 'CurrentUser', 'LocalMachine')
GROUP_POLICY_SCOPES = {'MachinePolicy': 'the computer (HKLM\\SOFTWARE\\Policies\\Microsoft\\Windows\\PowerShell)',
                       'UserPolicy': 'the connecting user (HKCU\\SOFTWARE\\Policies\\Microsoft\\Windows\\PowerShell)'}
# The policies under which powershell.exe runs an unsigned script the collection writes on the node (a file without
# the Mark of the Web, so RemoteSigned runs it).
RUNS_LOCAL_SCRIPTS = ('Unrestricted', 'RemoteSigned', 'Bypass')


def script_policy_problem(os_state, host='the node'):
    """Why powershell.exe on the node would refuse the collection's unsigned scripts, or '' when it runs them.

    ``os_state`` is node_info's os section; its ``execution_policies`` (Get-ExecutionPolicy -List) decide. The first
    Group Policy scope that is not Undefined is the policy every powershell.exe on the node runs with, whatever its
    command line says; without one, the command line's Bypass is in force.
    """
    policies = (os_state or {}).get('execution_policies') or {}
    for scope, where in GROUP_POLICY_SCOPES.items():
        policy = policies.get(scope) or 'Undefined'
        if policy == 'Undefined':
            continue
        if policy in RUNS_LOCAL_SCRIPTS:
            return ''
        return ('%s: Group Policy sets the PowerShell execution policy %s in the %s scope, for %s ("Turn on Script '
                'Execution"). It overrides the -ExecutionPolicy Bypass of the collection\'s powershell.exe command '
                'lines, so Windows would refuse its unsigned scripts: the workers that create vSwitches and install '
                'Open vSwitch, the log rotation task and the kube-proxy DaemonSet\'s pod. Nothing was changed. Allow '
                'local scripts for this server ("Allow local scripts and remote signed scripts", RemoteSigned), '
                'then run again.' % (host, policy, scope, where))
    return ''
