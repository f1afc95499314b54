"""Run playbooks/site.yml against a simulated fleet and check what users rely on.

1. the simulated nodes and cluster are created as the inventory describes them (what the connection plugin does on
   first contact);
2. check mode on the fresh fleet: it must succeed and change nothing on any node or in the cluster;
3. converge: each node within the remote calls its hosts.yml allows (e2e_converge_call_budget), and the skipped
   tasks CONVERGE_SKIPPED_BUDGET allows;
4. a second run: every node ends early (kubewin.node.node_converged), changed=0, one remote call;
5. check mode again with the early end turned off, so every stage decides: changed=0, at most
   NOOP_CALL_BUDGET remote calls per node;
6. one node restarts without Ansible: its Automatic services run, kube-proxy has its network and a load
   balancer per ClusterIP Service, and its Node is Ready;
7. with --reset-rejoin, reset.yml takes that node out of the cluster (its Node deleted, none of the collection's
   services left) and site.yml brings it back Ready, while the other nodes end early;
8. on a dual-stack fleet (its cluster's service_subnet has an IPv6 range): each Windows Node has a podCIDR of each
   family, each pod on a Windows node an IPv4 and an IPv6 address, an IPv4 and an IPv6 Service have their load
   balancer on every node, and host-local with the CNI config on each node gives a pod one address of each family
   in that node's pod ranges;
9. on a fleet with gMSA or csi-proxy (kubewin_gmsa, kubewin_csi_proxy), doctor.yml on the converged fleet with its
   first node broken (csi-proxy's process gone, HNS's EnableCompartmentNamespace removed, an error in Container
   Credential Guard's log): the doctor's gMSA and csi-proxy checks find that node's problems and none on the others;
and the CNI config and flannel net-conf on each node are byte for byte what playbooks/plan.yml
renders for the same inventory. Every run's fleet report (kubewin.node.fleet_report) has one row
per node whose changes and remote calls are the ones the task results and the simulated nodes
counted. Writes a JSON report (per host: changed counts and remote calls of each run, controller
seconds; each run's fleet report), with the plan picture plan.yml drew beside it (<report>.ip-plan.svg),
and exits 1 when an expectation fails.
"""

import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim import cluster as sim_cluster  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim import node as sim_node  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim import programs  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import hostlocal  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402  pylint: disable=wrong-import-position

# A node on which nothing changes costs one node_info call; the goal leaves room for two more.
NOOP_CALL_BUDGET = 3
# Skipped tasks a node shows on a converge (issue 10: stages that do not apply, such as an upgrade or the
# other join method, are one skipped include each, not one line per task of theirs). 13 since calico's bgp backend
# added one task to the prerequisites (Remote Access as a LAN router), skipped on every other node; 16 since the
# kubelet's image credential providers, one include of the kubelet role, which runs up to three times in a kubeadm
# join: skipped where the node has and had none, or their removal loop with nothing to remove where it has some; 17
# since the prerequisites role's host settings (the NodePort guard, the registry values of kubewin_patch_managed,
# Defender's exclusions), one include skipped where none is asked for.
CONVERGE_SKIPPED_BUDGET = 17
EARLY_END_DECISION = 'Take the node state snapshot and decide whether the node is converged'
# The services reset.yml removes (roles/reset); the container runtime stays unless reset_container_runtime.
RESET_REMOVES_SERVICES = ('kubelet', 'kube-proxy', 'flanneld')
# How long, on a restarted node's simulated clock, it has to answer again (its pods' network drops included).
REBOOT_ANSWER_SECONDS = 600
# A dual-stack fleet's workload, in the cluster before the first run: a Service of each family (kube-proxy programs
# the load balancers of the Services there are when it starts) and pods on each Windows build.
DUAL_STACK_SERVICES = {'e2e-ipv4': 'IPv4', 'e2e-ipv6': 'IPv6'}
DUAL_STACK_IMAGES = {20348: 'mcr.microsoft.com/windows/servercore:ltsc2022',
                     26100: 'mcr.microsoft.com/windows/servercore:ltsc2025'}
# Where the network roles write the CNI config (_node_plan.NODE_PATHS cni_config_file).
CNI_CONFIG_FILE = 'C:\\etc\\cni\\net.d\\10-kubewin.conf'


def node_states(sim, hosts):
    states = {}
    for host in hosts:
        node = sim.node(host)
        states[host] = sim_node.windows_state(node.data) if node else None
    return states


def cluster_objects(sim):
    cluster = sim_cluster.peek(sim.state_dir)
    return copy.deepcopy(cluster.data['objects']) if cluster else None


def host_summary(run, hosts):
    seconds = {}
    for task in run.tasks:
        seconds[task['host']] = seconds.get(task['host'], 0) + (task['seconds'] or 0)
    return {host: {'changed': run.stats.get(host, {}).get('changed'),
                   'skipped': run.stats.get(host, {}).get('skipped', 0),
                   'failed': run.stats.get(host, {}).get('failures', 0) + run.stats.get(host, {}).get('unreachable', 0),
                   'remote_calls': run.calls.get(host, {}).get('total', 0),
                   'seconds': round(seconds.get(host, 0), 2)} for host in hosts}


# Each fleet's hosts.yml gives, under all: vars, the remote calls a node may take in its first converge: what the
# fleet needs today (docs/docsite/rst/performance.rst, "Remote calls per topology"), so that a change that adds calls
# says so in the file. Issue 25's goal for overlay is 40.
CONVERGE_CALL_BUDGET = 'e2e_converge_call_budget'


def converge_call_budget(data, hosts):
    """The fleet's converge budget of remote calls per node (the same on every node: an all-group variable)."""
    budgets = {data['_meta']['hostvars'][host].get(CONVERGE_CALL_BUDGET) for host in hosts}
    if len(budgets) != 1 or not isinstance(next(iter(budgets)), int):
        raise SystemExit('the inventory must set %s (a whole number, under all: vars in hosts.yml), got %s'
                         % (CONVERGE_CALL_BUDGET, sorted(budgets, key=str)))
    return budgets.pop()


def windows_hosts(inventory):
    output = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-inventory'), '-i', inventory,
                             '--list'], capture_output=True, text=True, check=True,
                            env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'))).stdout
    data = json.loads(output)
    return sorted(data.get('windows_nodes', {}).get('hosts', [])), data


def rendered_plan(inventory, directory):
    command = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), 'playbooks/plan.yml', '-i',
               inventory, '-e', 'kubewin_plan_dir=%s' % directory]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False,
                            env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg')))
    if result.returncode != 0:
        raise SystemExit('plan.yml failed:\n' + result.stdout + result.stderr)
    return directory


def prepare(sim, data):
    """Create the cluster and the nodes as the inventory (``data``: ansible-inventory --list) describes them, as the
    connection plugin kubewin_simnode does on a host's first contact: each Windows node from its ``kubewin_sim``, with
    ``kubewin_management_ip`` or ``ansible_host`` as its address; the cluster from the first control-plane host's
    ``kubewin_sim_cluster`` (the state before kubewin.node: flannel backend, version, the Tigera operator, ...).
    Directly, not through a playbook run: a run costs seconds and every fleet and fault scenario starts here."""
    hostvars = data.get('_meta', {}).get('hostvars', {})
    for host in data.get('windows_nodes', {}).get('hosts', []):
        variables = hostvars.get(host, {})
        sim_node.create_on_first_contact(sim.state_dir, host, variables.get('kubewin_sim'),
                                         variables.get('kubewin_management_ip', variables.get('ansible_host')))
    control_plane = data.get('kube_control_plane', {}).get('hosts', [])
    profile = hostvars.get(control_plane[0], {}).get('kubewin_sim_cluster') if control_plane else None
    with sim.edit_cluster(profile=profile or {}) as cluster:
        if is_dual_stack(cluster):
            builds = [(hostvars.get(host, {}).get('kubewin_sim') or {}).get('build', 20348)
                      for host in data.get('windows_nodes', {}).get('hosts', [])]
            _dual_stack_workload(cluster, builds)


def is_dual_stack(cluster):
    return len(sim_cluster.ranges_by_family(cluster.profile['service_subnet'])) > 1


def _dual_stack_workload(cluster, builds):
    for build in sorted(set(builds)):
        name = 'e2e-%d' % build
        cluster.create({'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': name, 'namespace': 'default'},
                        'spec': {'replicas': builds.count(build), 'selector': {'matchLabels': {'app': name}},
                                 'template': {'metadata': {'labels': {'app': name, 'e2e': 'dual-stack'}}, 'spec': {
                                     'nodeSelector': {'kubernetes.io/os': 'windows',
                                                      'node.kubernetes.io/windows-build': '10.0.%d' % build},
                                     'containers': [{'name': 'web', 'image': DUAL_STACK_IMAGES[build]}]}}}})
    for name, family in DUAL_STACK_SERVICES.items():
        cluster.create({'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': name, 'namespace': 'default'},
                        'spec': {'selector': {'e2e': 'dual-stack'}, 'ipFamilies': [family],
                                 'ports': [{'port': 80}]}})
    # The controllers (pods, endpoints) run now, so that the state check mode is compared with is the converged one.
    cluster.reconcile()


class _Program:
    """What a program model needs of the engine's host: the node and an environment block."""

    def __init__(self, node):
        self.node = node

    @staticmethod
    def environment():
        return {}


def _host_local_families(node, host):
    """host-local ADD (then DEL) with the CNI config the node has, for a made-up container: the families and addresses
    it hands out, or a problem."""
    config = (node.file(CNI_CONFIG_FILE) or {}).get('content')
    if not config:
        return None, '%s: no CNI config at %s' % (host, CNI_CONFIG_FILE)
    environment = {'CNI_COMMAND': 'ADD', 'CNI_CONTAINERID': 'e2e-dual-stack', 'CNI_NETNS': 'none', 'CNI_IFNAME': 'eth0',
                   'CNI_PATH': 'C:\\opt\\cni\\bin'}
    added = hostlocal.host_local(_Program(node), [], config.encode('utf-8'), environment)
    hostlocal.host_local(_Program(node), [], config.encode('utf-8'), dict(environment, CNI_COMMAND='DEL'))
    if added.exit_code:
        return None, '%s: host-local refused the node\'s CNI config: %s' % (host, added.stdout)
    return [entry['address'] for entry in json.loads(added.stdout)['ips']], None


def _restart_dual_stack_workload(cluster):
    """``kubectl rollout restart`` of the dual-stack Deployments, on the joined fleet. Their pods were created before
    any node joined, and the scheduler placed each on a node Ready at that moment, which depends on the order in which
    the parallel joins ended (two of three nodes once); Kubernetes never moves a running pod. Placed again now, they
    spread over every Windows node (the least loaded first), as a workload deployed on the joined fleet is."""
    for pod in cluster.list('Pod', 'default'):
        if (pod['metadata'].get('labels') or {}).get('e2e') == 'dual-stack':
            cluster.delete('Pod', 'default', pod['metadata']['name'])
    cluster.reconcile()


def dual_stack_problems(sim, hosts):
    """What a dual-stack fleet gets wrong (step 8 of the module's docstring)."""
    problems = []
    names = {host.lower(): host for host in hosts}
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        _restart_dual_stack_workload(cluster)
        nodes = {host: cluster.get('Node', None, host.lower()) for host in hosts}
        pods = [pod for pod in cluster.list('Pod') if pod['spec'].get('nodeName') in names]
        services = {name: cluster.get('Service', 'default', name) for name in DUAL_STACK_SERVICES}
        wanted = {host: set(programs.kube_proxy_vips(sim.node(host), cluster)) for host in hosts}
    for host, node in nodes.items():
        cidrs = ((node or {}).get('spec') or {}).get('podCIDRs') or []
        if sorted(':' in cidr for cidr in cidrs) != [False, True]:
            problems.append('dual-stack: the Node %s has podCIDRs %s, not one of each family' % (host, cidrs))
    if sorted({names[pod['spec']['nodeName']] for pod in pods}) != sorted(hosts):
        problems.append('dual-stack: pods ran on %s, not on every Windows node'
                        % sorted({pod['spec']['nodeName'] for pod in pods}))
    for pod in pods:
        addresses = [entry['ip'] for entry in pod['status'].get('podIPs') or []]
        if sorted(':' in address for address in addresses) != [False, True]:
            problems.append('dual-stack: pod %s on %s has the addresses %s, not one of each family'
                            % (pod['metadata']['name'], pod['spec']['nodeName'], addresses))
    for host in hosts:
        node = sim.node(host)
        programmed = {vip for policy_list in node.data['hns']['policy_lists'] for vip in policy_list['vips']}
        for name, service in services.items():
            vip = service['spec']['clusterIP']
            if vip not in wanted[host] or vip not in programmed:
                problems.append('dual-stack: %s has no load balancer for the %s Service %s (%s)'
                                % (host, DUAL_STACK_SERVICES[name], name, vip))
        addresses, problem = _host_local_families(node, host)
        if problem:
            problems.append('dual-stack: ' + problem)
        elif sorted(':' in address for address in addresses) != [False, True]:
            problems.append('dual-stack: host-local gave a pod on %s the addresses %s, not one of each family'
                            % (host, addresses))
    return problems


def reboot_node(sim, host):
    """An unplanned restart of one converged node, without Ansible (kubewin_sim/windows/boot.py): what Windows keeps
    and what its Automatic services redo when they start, then its kubelet's pods (the cluster's controllers run),
    and the time it takes until it answers again, which passes on its simulated clock (a calico-node-windows pod
    recreating the vSwitch drops its network): the run after it meets the node back, as an operator's does. The
    state directory is where flanneld and kube-proxy find the simulated cluster."""
    previous = os.environ.get('KUBEWIN_SIM_STATE_DIR')
    os.environ['KUBEWIN_SIM_STATE_DIR'] = sim.state_dir
    try:
        with sim.edit_node(host) as node:
            node.reboot()
        with sim.edit_cluster():
            pass
        with sim.edit_node(host) as node:
            node.wait_until_reachable(REBOOT_ANSWER_SECONDS)
    finally:
        if previous is None:
            os.environ.pop('KUBEWIN_SIM_STATE_DIR')
        else:
            os.environ['KUBEWIN_SIM_STATE_DIR'] = previous


def after_reboot_problems(sim, host):
    """What keeps a rebooted node from serving: an Automatic service not running, kube-proxy still waiting for its HNS
    network or without a load balancer for a ClusterIP Service, the Node not Ready."""
    node = sim.node(host)
    problems = ['%s: service %s is %s after the reboot' % (host, name, service['state'])
                for name, service in sorted(node.data['services'].items())
                if service.get('start_mode') in ('auto', 'delayed') and service['state'] != 'running']
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        registered = cluster.get('Node', None, host.lower())
        ready = registered is not None and cluster.node_ready(registered)
        # Every ClusterIP of the families kube-proxy's network carries (both on a dual-stack node).
        vips = set(programs.kube_proxy_vips(node, cluster))
    if not ready:
        problems.append('%s: the Node is not Ready after the reboot' % host)
    proxy = node.data['services'].get('kube-proxy')
    if proxy:
        if proxy.get('waiting_for_network'):
            problems.append('%s: kube-proxy waits for the HNS network %s after the reboot'
                            % (host, proxy['waiting_for_network']))
        programmed = {vip for p in node.data['hns']['policy_lists'] for vip in p['vips']}
        if vips - programmed:
            problems.append('%s: no load balancer for the Service IP(s) %s after the reboot' % (host, sorted(vips - programmed)))
    return problems


def reset_rejoin_problems(sim, hosts, host, run):
    """reset.yml on one node, then site.yml: the node leaves the cluster clean and comes back Ready; the others
    end early and change nothing."""
    problems = []
    if run('reset', '--limit', '%s,localhost' % host, playbook=os.path.join(ROOT, 'playbooks', 'reset.yml'),
           reported=[host]).rc:
        return problems
    left = sorted(name for name in sim.node(host).data['services'] if name in RESET_REMOVES_SERVICES)
    if left:
        problems.append('reset: %s still has the service(s) %s' % (host, left))
    if sim_cluster.peek(sim.state_dir).get('Node', None, host.lower()) is not None:
        problems.append('reset: the Node %s is still registered' % host)
    rejoin = run('rejoin')
    for other in hosts:
        summary = rejoin.stats.get(other, {})
        if other != host and summary.get('changed'):
            problems.append('rejoin: %s, which was not reset, reported %d change(s)' % (other, summary['changed']))
    with sim_cluster.open_cluster(sim.state_dir) as cluster:
        registered = cluster.get('Node', None, host.lower())
        if registered is None or not cluster.node_ready(registered):
            problems.append('rejoin: the Node %s is not Ready after site.yml' % host)
    return problems


# What doctor.yml must find on a node broken by break_features (plugins/plugin_utils/_doctor.py check_gmsa,
# check_csi_proxy, check_services): per setting, the finding ids.
FEATURE_FINDINGS = {'gmsa': {'gmsa-compartment-namespace', 'gmsa-ccg-errors'},
                    'csi_proxy': {'csi-proxy-pipes-missing', 'service-stopped'},
                    'graceful_shutdown': {'graceful-shutdown-off'},
                    'defender': {'defender-exclusions-missing'},
                    'credential_providers': {'credential-provider-missing'}}
FEATURE_PREFIXES = ('gmsa-', 'csi-proxy-', 'graceful-shutdown-', 'defender-', 'credential-provider-')
CCG_LOG = 'Microsoft-Windows-Containers-CCG/Admin'


def features_of(data, hosts):
    """Which of gMSA, csi-proxy (service mode), the kubelet's graceful shutdown, Defender's exclusions and the kubelet's
    image credential providers the fleet's first Windows node has."""
    variables = data.get('_meta', {}).get('hostvars', {}).get(hosts[0], {})
    return [name for name, on in (('gmsa', variables.get('kubewin_gmsa') is True),
                                  ('csi_proxy', variables.get('kubewin_csi_proxy') == 'service'),
                                  ('graceful_shutdown', bool(variables.get('kubelet_shutdown_grace_period'))),
                                  ('defender', variables.get('prerequisites_defender_exclusions') is True),
                                  ('credential_providers', bool(variables.get('kubelet_credential_providers')))) if on]


def break_features(sim, host, features):
    """Break what the doctor's gMSA, csi-proxy, graceful shutdown and Defender checks look at, as it breaks on a server: the
    kubelet registered again without its drop-in folder, csi-proxy's process exits
    (its service stopped with an exit code; the kubelet, which depends on it, keeps running), someone removes HNS's
    value, and Container Credential Guard logs an error (a credential spec naming an account the node may not
    retrieve) at the node's date (its simulated clock, tests/simulation/README.md "Time", on which the doctor's log
    window is measured)."""
    with sim.edit_node(host) as node:
        if 'credential_providers' in features:
            # Someone cleans C:\k up and deletes a credential provider's binary: pulls from its registry get no
            # credentials.
            binary = next(path for path in node.file_paths() if re.search(r'\\credential-provider\\[^\\]+\.exe$', path, re.I))
            node.remove_file(binary)
        if 'graceful_shutdown' in features:
            # Someone registers the kubelet again without its drop-in folder: no more graceful shutdown.
            kubelet = node.data['services']['kubelet']
            kubelet['command_line'] = re.sub(r' --config-dir=\S+', '', kubelet['command_line'])
        if 'csi_proxy' in features:
            node.data['services']['csiproxy'].update(state='stopped', exit_code=1)
        if 'defender' in features:
            # An administrator removes the kubelet's folder from Defender's exclusions (windows/defender.py).
            node.data['defender']['exclusion_path'] = [path for path in node.data['defender']['exclusion_path']
                                                       if path.lower() != 'c:\\var\\lib\\kubelet']
        if 'gmsa' in features:
            values = node.data['registry']['system\\currentcontrolset\\services\\hns\\state']['values']
            values.pop('EnableCompartmentNamespace')
            node.data.setdefault('event_log', {}).setdefault('Microsoft-Windows-Containers-CCG', []).append(
                {'time': node.date_iso(), 'level': 'Error', 'id': 1,
                 'log': CCG_LOG, 'message': 'Unable to retrieve the password of the account WebApp1.'})


def doctor_problems(sim, hosts, features, run):
    """doctor.yml finds the broken node's gMSA and csi-proxy problems, and none on the other nodes."""
    break_features(sim, hosts[0], features)
    result = run('doctor', playbook=os.path.join(ROOT, 'playbooks', 'doctor.yml'))
    problems = []
    for host in hosts:
        found = [task['result'].get('ansible_facts', {}).get('doctor_findings') or []
                 for task in result.results('Diagnose the node', host)]
        ids = {finding['id'] for findings in found for finding in findings
               if finding['id'].startswith(FEATURE_PREFIXES) or finding['id'] == 'service-stopped'}
        wanted = set().union(*(FEATURE_FINDINGS[name] for name in features)) if host == hosts[0] else set()
        if ids != wanted:
            problems.append('doctor: %s has the findings %s, expected %s' % (host, sorted(ids), sorted(wanted)))
    return problems


def fleet_report_problems(name, run, hosts):
    """What the run's fleet report gets wrong: a node missing, or changes and calls other than those counted."""
    if run.report is None:
        return ['%s: site.yml wrote no fleet report' % name]
    rows = {row['node']: row for row in run.report['nodes']}
    problems = []
    if sorted(rows) != sorted(hosts):
        problems.append('%s: the fleet report has rows for %s, not %s' % (name, sorted(rows), sorted(hosts)))
    for host in set(rows) & set(hosts):
        # Changed tasks as the play recap counts them; each resource listed once.
        counted = (run.changed_tasks(host), run.attempted_calls(host))
        reported = (rows[host]['changed_tasks'], rows[host]['calls'])
        if counted != reported:
            problems.append('%s: the fleet report says %s changed in %d task(s) with %d remote call(s); the run '
                            'counted %d in %d' % ((name, host) + reported + counted))
        listed = [change.rsplit(' (', 1)[0] for change in rows[host]['changes']]
        if len(listed) != len(set(listed)):
            problems.append('%s: the fleet report lists a change of %s twice: %s' % (name, host, rows[host]['changes']))
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('inventory')
    parser.add_argument('--report', help='write the JSON report here')
    parser.add_argument('--state-dir', help='keep the simulation here (default: a temporary directory)')
    parser.add_argument('--extra-vars', '-e', action='append', default=[])
    parser.add_argument('--reset-rejoin', action='store_true',
                        help='then reset the restarted node with reset.yml and converge it again')
    args = parser.parse_args(argv)

    inventory = os.path.abspath(args.inventory)
    workdir = args.state_dir or tempfile.mkdtemp(prefix='kubewin-e2e-')
    sim = Simulation(workdir)
    hosts, data = windows_hosts(inventory)
    extra = [arg for value in args.extra_vars for arg in ('-e', value)]
    prepare(sim, data)
    problems = []
    report = {'inventory': args.inventory, 'hosts': hosts, 'runs': {}, 'fleet_reports': {}}
    site = os.path.join(ROOT, 'playbooks', 'site.yml')

    def run(name, *more, playbook=site, reported=hosts):
        started = time.monotonic()
        # A run takes minutes: say what starts and how it ended, as it happens.
        print('[e2e %s] %s: %s %s ...' % (os.path.basename(inventory), name, os.path.basename(playbook), ' '.join(more)),
              file=sys.stderr, flush=True)
        result = sim.run(playbook, inventory, *(extra + list(more)))
        print('[e2e %s] %s: rc %d in %.0f s' % (os.path.basename(inventory), name, result.rc, time.monotonic() - started),
              file=sys.stderr, flush=True)
        report['runs'][name] = {'rc': result.rc, 'seconds': round(time.monotonic() - started, 1),
                                'hosts': host_summary(result, hosts), 'api_calls': result.api_calls.get('total', 0)}
        report['fleet_reports'][name] = result.report
        problems.extend(fleet_report_problems(name, result, reported))
        if result.rc != 0:
            problems.append('%s: %s failed (rc %d)' % (name, os.path.basename(playbook), result.rc))
            with open(os.path.join(workdir, '%s.log' % name), 'w', encoding='utf-8') as handle:
                handle.write(result.output)
            print(result.output[-6000:])
        return result

    budget = converge_call_budget(data, hosts)
    before, cluster_before = node_states(sim, hosts), cluster_objects(sim)
    run('check_fresh', '--check')
    if node_states(sim, hosts) != before:
        problems.append('check_fresh: check mode changed a node: %s'
                        % [h for h in hosts if node_states(sim, [h])[h] != before[h]])
    cluster_after = cluster_objects(sim)
    if cluster_after != cluster_before:
        changed = sorted('%s/%s' % (kind, key) for kind in set(cluster_before) | set(cluster_after)
                         for key in set(cluster_before.get(kind, {})) | set(cluster_after.get(kind, {}))
                         if cluster_before.get(kind, {}).get(key) != cluster_after.get(kind, {}).get(key))
        problems.append('check_fresh: check mode changed the cluster: %s' % changed)

    converge = run('converge')
    for host in hosts:
        calls = report['runs']['converge']['hosts'][host]['remote_calls']
        if calls > budget:
            problems.append('converge: %s made %d remote calls (the fleet\'s budget, %s in its hosts.yml: %d)'
                            % (host, calls, CONVERGE_CALL_BUDGET, budget))
        skipped = report['runs']['converge']['hosts'][host]['skipped']
        if skipped > CONVERGE_SKIPPED_BUDGET:
            problems.append('converge: %s showed %d skipped tasks (budget %d): %s' % (
                host, skipped, CONVERGE_SKIPPED_BUDGET,
                [t['task'] for t in converge.tasks if t['host'] == host and t['status'] == 'skipped']))
    again = run('second_run')
    for host in hosts:
        summary = report['runs']['second_run']['hosts'][host]
        if summary['changed']:
            problems.append('second_run: %s reported %d change(s): %s' % (
                host, summary['changed'], [t['task'] for t in again.tasks if t['host'] == host and t['changed']]))
        decided = [t['result'] for t in again.results(EARLY_END_DECISION, host)]
        if [d.get('converged') for d in decided] != [True] or summary['remote_calls'] != 1:
            problems.append('second_run: %s did not end early after one remote call (%d calls): %s'
                            % (host, summary['remote_calls'], [d.get('reasons') for d in decided]))
        if again.report and [r['status'] for r in again.report['nodes'] if r['node'] == host] != ['converged']:
            problems.append('second_run: the fleet report does not show %s converged' % host)
    # Every stage decides again, in check mode: the full path too must find nothing to do.
    check = run('check_again', '--check', '-e', 'kubewin_early_end=false')
    for host in hosts:
        summary = report['runs']['check_again']['hosts'][host]
        if summary['changed']:
            problems.append('check_again: %s predicted changes: %s' % (
                host, [t['task'] for t in check.tasks if t['host'] == host and t['changed']]))
        if summary['remote_calls'] > NOOP_CALL_BUDGET:
            problems.append('check_again: %s made %d remote calls (budget %d)'
                            % (host, summary['remote_calls'], NOOP_CALL_BUDGET))

    if is_dual_stack(sim.cluster()):
        problems.extend(dual_stack_problems(sim, hosts))

    # One node restarts without Ansible (Windows Update, a power cut): it must come back Ready with its Service
    # routing by itself. site.yml after it is the fault scenario "reboot" (tests/e2e/faults.py), which costs a run.
    rebooted = hosts[-1]
    reboot_node(sim, rebooted)
    problems.extend('reboot: %s' % problem for problem in after_reboot_problems(sim, rebooted))

    if args.reset_rejoin:
        problems.extend(reset_rejoin_problems(sim, hosts, rebooted, run))

    features = features_of(data, hosts)
    if features:
        problems.extend(doctor_problems(sim, hosts, features, run))

    plan_dir = rendered_plan(inventory, os.path.join(workdir, 'plan'))
    for host in hosts:
        node = sim.node(host)
        # plan.yml's file name -> the end of the node path that site.yml writes it to.
        for name, suffix in (('cni.conf', '\\10-kubewin.conf'), ('net-conf.json', '\\net-conf.json')):
            rendered = os.path.join(plan_dir, host, name)
            if not os.path.exists(rendered):
                continue
            with open(rendered, encoding='utf-8') as handle:
                wanted = handle.read()
            found = [node.file(path)['content'] for path in node.file_paths() if path.lower().endswith(suffix)]
            if found != [wanted]:
                problems.append('%s: the %s on the node differs from what plan.yml renders' % (host, name))

    picture = os.path.join(plan_dir, 'ip-plan.svg')
    if not os.path.exists(picture):
        problems.append('plan.yml drew no ip-plan.svg (is drawsvg installed?)')
    elif args.report:
        shutil.copyfile(picture, os.path.splitext(args.report)[0] + '.ip-plan.svg')

    report['problems'] = problems
    report['ok'] = not problems
    if args.report:
        with open(args.report, 'w', encoding='utf-8') as handle:
            json.dump(report, handle, indent=1, sort_keys=True)
    print(yaml.safe_dump({'runs': report['runs'], 'problems': problems}, sort_keys=False))
    return 0 if not problems else 1


if __name__ == '__main__':
    sys.exit(main())
