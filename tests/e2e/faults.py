"""Fault runs of playbooks/site.yml against a simulated fleet (README.md in this folder).

Each scenario starts from a fresh fleet of the inventory, breaks something, runs site.yml and
checks that the failure is the expected one; then it removes the fault, converges again and
checks that the fleet holds nothing twice (HNS networks, endpoints, firewall rules, routes,
managed files) and that one more run changes nothing. Scenarios:

  network-drop          creating the vSwitch takes the node away for a while and wipes its static
                        IPv4 configuration; site.yml must ride it out (no failure at all)
  corrupted-download    the kubelet download is corrupted on the wire: the run fails on the hash,
                        naming the URL and both hashes, and no kubelet.exe lands on the node
  role:<role>           a remote call of that role fails after doing its work (the WinRM
                        operation timed out), as a re-run must recover from a half-done step
  role-before:<role>    the same call fails before it runs (access denied): nothing of it happened,
                        and the node must be as it was or converge on the next run
  disk-full             the system drive fills up just before the kubelet download: the run fails at once
                        saying the disk is full, the partial download is gone and the previous state stays
  truncated-archive     the containerd archive arrives cut short: the hash check fails naming the URL,
                        nothing of it is extracted and no download or half-extracted folder is left
  expired-token         the bootstrap token the control-plane play minted expires (the tokencleaner deletes it)
                        just before kubeadm join: the join is refused in preflight, the run fails saying the token
                        expired and that a re-run mints a fresh one; nothing of the join is left, and the next run
                        converges with one token
  secrets               a converge with -vvvv prints no bootstrap token, no service-account
                        token, no client-key-data and no private key
  reboot                a converged node restarts without Ansible: it is Ready with its Service
                        routing by itself, and the next site.yml changes nothing
  bad-node-name         every host is to register as a Node name Kubernetes refuses (kubewin_node_name Win_1):
                        site.yml refuses it in its first play, no node is contacted or changed; then the fleet
                        converges
  wrong-pin             a well-formed wrong flanneld checksum in artifacts_checksum_overrides: the staging step
                        fails naming the URL and both hashes, and each node is untouched but its staging folder (no
                        kubelet, kube-proxy or flanneld service, no HNS network, no join); then the fleet converges
                        and downloads nothing it had staged

Exits 1 when a scenario's expectation fails; writes a JSON report with --report.
"""

import argparse
import base64
import collections
import json
import os
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import e2e  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim import web  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim import node as sim_node  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim import windows as sim_windows  # noqa: E402  pylint: disable=wrong-import-position

# One remote call per role that changes the node, chosen so the failure leaves work half done.
ROLE_FAULTS = {
    'prerequisites': {'script': 'firewall_rule_apply'},
    'container_runtime': {'script': 'node_service_apply', 'contains': '"Name": "containerd"'},
    'kubernetes_binaries': {'script': 'artifact_fetch', 'contains': 'kubelet'},
    'kubelet': {'script': 'node_service_apply', 'contains': '"Name": "kubelet"'},
    'join': {'script': 'kubeadm_join'},
    # Creating the first vSwitch runs detached: the call that starts the worker fails.
    'network_overlay': {'script': 'detached_start', 'contains': 'kubewin-script: hns_network_worker'},
    'network_l2bridge': {'script': 'detached_start', 'contains': 'kubewin-script: hns_network_worker'},
    # The Open vSwitch worker installs, builds the bridge and sets the ids; then its start call times out.
    'network_ovn': {'script': 'detached_start', 'contains': 'kubewin-script: openvswitch_worker'},
    'flannel': {'script': 'node_service_apply', 'contains': '"Name": "flanneld"'},
    'kube_proxy': {'script': 'node_service_apply', 'contains': '"Name": "kube-proxy"'},
}
TOPOLOGY_ROLES = {
    'overlay': ['prerequisites', 'container_runtime', 'kubernetes_binaries', 'kubelet', 'join',
                'network_overlay', 'flannel', 'kube_proxy'],
    'l2bridge': ['prerequisites', 'container_runtime', 'kubernetes_binaries', 'kubelet', 'join',
                 'network_l2bridge', 'flannel', 'kube_proxy'],
    'ovn': ['prerequisites', 'container_runtime', 'kubernetes_binaries', 'kubelet', 'join', 'network_ovn'],
}
# What the test command runs (make e2e-faults runs every scenario of every fault inventory).
KUBELET_URL = 'https://dl.k8s.io/release/v{version}/bin/windows/amd64/kubelet.exe'
# What artifact_fetch.ps1 leaves next to a destination while it works: the download and its extraction folder.
DOWNLOAD_LEFTOVER = '\\.kubewin-download-'
# What kubeadm join writes on the node once its preflight passed (windows/kubeadm.py), and the JoinConfiguration that
# kubeadm_join.ps1 hands it (it holds the token).
KUBEADM_JOIN_WRITES = ('c:\\var\\lib\\kubelet\\kubeadm-flags.env', 'c:\\etc\\kubernetes\\kubelet.conf',
                       'c:\\etc\\kubernetes\\bootstrap-kubelet.conf', 'join-configuration.yaml')
REPRESENTATIVE = ['network-drop', 'corrupted-download', 'role:join', 'role:network_overlay', 'secrets']


def _a_minute_later(node):
    """A simulated minute on ``node``: what it runs by itself runs (windows.catch_up), then it answers again."""
    node.pass_time(60)
    sim_windows.catch_up(node)
    node.wait_until_reachable(e2e.REBOOT_ANSWER_SECONDS)


class Scenario:
    """A fresh simulated fleet for one scenario."""

    def __init__(self, inventory, hosts, data, workdir, name, extra, limit=None):  # pylint: disable=too-many-arguments
        self.inventory, self.name = inventory, name
        self.sim = e2e.Simulation(os.path.join(workdir, name.replace(':', '-')))
        self.hosts, self.data = hosts, data
        self.extra = [arg for value in extra for arg in ('-e', value)]
        if limit:
            # The verify play waits for every Windows node of the inventory (inventory.rst, adding a node): here only
            # the limited ones exist.
            self.extra += ['--limit', limit, '-e', json.dumps({'verify_nodes': hosts})]
        self.problems = []
        self.runs = {}
        e2e.prepare(self.sim, data)

    def run(self, label, *more, expect_failure=False):
        started = time.monotonic()
        print('[faults %s] %s ...' % (self.name, label), file=sys.stderr, flush=True)
        result = self.sim.run(os.path.join(e2e.ROOT, 'playbooks', 'site.yml'), self.inventory, *(self.extra + list(more)))
        print('[faults %s] %s: rc %d in %.0f s' % (self.name, label, result.rc, time.monotonic() - started),
              file=sys.stderr, flush=True)
        self.runs[label] = {'rc': result.rc, 'seconds': round(time.monotonic() - started, 1),
                            'hosts': e2e.host_summary(result, self.hosts)}
        if os.environ.get('KUBEWIN_FAULTS_DEBUG'):
            with open(self.sim.path('%s.debug.log' % label), 'w', encoding='utf-8') as handle:
                handle.write(result.output)
        if (result.rc != 0) != expect_failure:
            self.problems.append('%s: site.yml %s (rc %d)' % (label, 'succeeded' if expect_failure else 'failed',
                                                              result.rc))
            with open(self.sim.path('%s.log' % label), 'w', encoding='utf-8') as handle:
                handle.write(result.output)
        return result

    def variable(self, name):
        return self.data['_meta']['hostvars'][self.hosts[0]][name]

    def edit_nodes(self, change):
        for host in self.hosts:
            with self.sim.edit_node(host) as node:
                change(node)

    def recover(self):
        """Converge without the fault, then check nothing is doubled and a re-run changes nothing. The operator
        re-runs a minute after the failed run: meanwhile what the node ran by itself (a detached worker the failed
        run started) ran, and a network drop it caused ended (the nodes' clocks are simulated: they do not move
        between runs unless told)."""
        self.edit_nodes(_a_minute_later)
        self.run('recovery')
        for host in self.hosts:
            for problem in doubled(self.sim.node(host).data):
                self.problems.append('%s: %s' % (host, problem))
        again = self.run('recovery_again')
        for host in self.hosts:
            if again.stats.get(host, {}).get('changed'):
                self.problems.append('recovery_again: %s reported changes: %s' % (
                    host, [t['task'] for t in again.tasks if t['host'] == host and t['changed']]))


def doubled(data):
    """What a node holds more than once that Windows would let exist twice."""
    counts = {
        'HNS network': collections.Counter(n['name'] for n in data['hns']['networks']),
        'HNS endpoint': collections.Counter(e['name'] for e in data['hns']['endpoints']),
        'firewall rule display name': collections.Counter(r.get('display_name') for r in data['firewall_rules'].values()),
        'route': collections.Counter((r['destination'], r['next_hop'], r['interface_index']) for r in data['routes']),
        'managed file': collections.Counter(p.lower() for p in sim_node.SimNode(data).managed_registry()['files']),
    }
    return ['%s %r exists %d times' % (kind, key, count)
            for kind, counter in counts.items() for key, count in counter.items() if count > 1]


def network_drop(scenario):
    scenario.edit_nodes(lambda node: node.data['profile'].update(network_drop_seconds=6, wipe_static_ip=True))
    addresses = {h: scenario.sim.node(h).data['adapters'][0]['ipv4'] for h in scenario.hosts}
    scenario.run('converge')
    for host in scenario.hosts:
        node = scenario.sim.node(host)
        adapters = [a for a in node.data['adapters'] if a['ipv4'] == addresses[host]]
        if not adapters or not node.data['unreachable_attempts']:
            scenario.problems.append('%s: the static address was not restored, or the node never dropped' % host)
    again = scenario.run('converge_again')
    if any(again.stats.get(h, {}).get('changed') for h in scenario.hosts):
        scenario.problems.append('converge_again: changes after the network drop')


def corrupted_download(scenario):
    kubelet = [KUBELET_URL.format(version=scenario.variable('kubewin_kubernetes_version'))]
    web.configure(scenario.sim.state_dir, faults={kubelet[0]: ['corrupt'] * 2 * len(scenario.hosts)})
    failed = scenario.run('converge', expect_failure=True)
    for host in scenario.hosts:
        node = scenario.sim.node(host)
        if any(path.lower().endswith('\\kubelet.exe') for path in node.file_paths()):
            scenario.problems.append('%s: a kubelet.exe landed on the node from a corrupted download' % host)
    messages = ' '.join(json.dumps(t['result']) for t in failed.tasks if t['status'] == 'failed')
    if kubelet[0] not in messages or 'sha256' not in messages:
        scenario.problems.append('the failure does not name the URL and the hashes: %s' % messages[:600])
    web.configure(scenario.sim.state_dir, faults={kubelet[0]: []})
    scenario.recover()


def containerd_archives():
    """The URL of every containerd release of the artifact catalog (default base URLs): whichever the fleet
    installs arrives cut short. They are verified by the release's .sha256sum file, not pinned."""
    def load(relative):
        with open(os.path.join(e2e.ROOT, relative), encoding='utf-8') as handle:
            return yaml.safe_load(handle)
    entry = load('roles/artifacts/vars/main.yml')['artifacts_catalog']['containerd']
    bases = load('roles/artifacts/defaults/main.yml')['artifacts_base_urls']
    return [entry['url'].format(version=version, **bases) for version in entry['versions']]


def truncated_archive(scenario):
    urls = containerd_archives()
    web.configure(scenario.sim.state_dir, faults={url: ['truncated'] * 2 * len(scenario.hosts) for url in urls})
    failed = scenario.run('converge', expect_failure=True)
    for host in scenario.hosts:
        paths = scenario.sim.node(host).file_paths() + [e['path'] for e in scenario.sim.node(host).data['fs'].values()]
        landed = sorted({p for p in paths if p.lower().endswith('\\containerd.exe') or DOWNLOAD_LEFTOVER in p})
        if landed:
            scenario.problems.append('%s: a truncated archive left files on the node: %s' % (host, landed))
    messages = ' '.join(json.dumps(t['result']) for t in failed.tasks if t['status'] == 'failed')
    if not any(url in messages for url in urls) or 'checksum mismatch' not in messages:
        scenario.problems.append('the failure does not name the archive and the hash mismatch: %s' % messages[:600])
    web.configure(scenario.sim.state_dir, faults={url: [] for url in urls})
    scenario.recover()


def disk_full(scenario):
    # Another program fills the system drive just before the staging step downloads the node's artifacts (the kubelet's
    # among them).
    fault = {'script': 'artifact_stage', 'contains': 'kubelet.exe', 'fill_disk': 0, 'times': 1}
    free = {h: scenario.sim.node(h).data['profile']['free_disk_bytes'] for h in scenario.hosts}
    scenario.edit_nodes(lambda node: node.data.__setitem__('script_faults', [dict(fault)]))
    failed = scenario.run('converge', expect_failure=True)
    for host in scenario.hosts:
        node = scenario.sim.node(host)
        landed = sorted(p for p in node.file_paths() if p.lower().endswith('\\kubelet.exe') or DOWNLOAD_LEFTOVER in p)
        if landed:
            scenario.problems.append('%s: a download the disk had no room for left files: %s' % (host, landed))
    messages = ' '.join(json.dumps(t['result']) for t in failed.tasks if t['status'] == 'failed')
    if 'not enough space on the disk' not in messages or 'not retried' not in messages:
        scenario.problems.append('the failure does not say the disk is full: %s' % messages[:600])
    # The operator frees the disk.
    for host in scenario.hosts:
        with scenario.sim.edit_node(host) as node:
            node.data['profile']['free_disk_bytes'] = free[host]
    scenario.recover()


def bootstrap_tokens(scenario):
    return [key for key, secret in e2e.cluster_objects(scenario.sim).get('Secret', {}).items()
            if secret.get('type') == 'bootstrap.kubernetes.io/token']


def expired_token(scenario):
    # The control-plane play minted the token; the run reached the join only after it expired (or an administrator
    # ran kubeadm token delete): kube-controller-manager's tokencleaner deleted it, and cluster-info lost its signature.
    fault = {'script': 'kubeadm_join', 'expire_tokens': True, 'times': 1}
    scenario.edit_nodes(lambda node: node.data.__setitem__('script_faults', [dict(fault)]))
    failed = scenario.run('converge', expect_failure=True)
    for host in scenario.hosts:
        node = scenario.sim.node(host)
        landed = sorted(p for p in node.file_paths() if p.lower().endswith(KUBEADM_JOIN_WRITES))
        if landed:
            scenario.problems.append('%s: a refused join left files: %s' % (host, landed))
    messages = ' '.join(json.dumps(t['result']) for t in failed.tasks if t['status'] == 'failed')
    if 'expired or was deleted' not in messages or 'Run site.yml again' not in messages:
        scenario.problems.append('the failure does not say the token expired and what to do: %s' % messages[:600])
    scenario.recover()
    if len(bootstrap_tokens(scenario)) != 1:
        scenario.problems.append('after recovery the cluster holds bootstrap tokens %s, not one' % bootstrap_tokens(scenario))


def role_fault(role, after=True):
    """A remote call of the role fails after doing its work (after=True) or before it runs (after=False)."""
    def inject(scenario):
        fault = dict(ROLE_FAULTS[role], after=after, times=1)
        scenario.edit_nodes(lambda node: node.data.__setitem__('script_faults', [dict(fault)]))
        scenario.run('converge', expect_failure=True)
        met = [h for h in scenario.hosts if any('injected fault' in line for line in scenario.sim.node(h).data['log'])]
        if not met:
            scenario.problems.append('no call of %s met the injected fault %s' % (role, fault))
        scenario.recover()
    return inject


def secrets(scenario):
    result = scenario.run('converge_vvvv', '-vvvv')
    cluster = e2e.cluster_objects(scenario.sim)
    values = set()
    for secret in cluster.get('Secret', {}).values():
        for key, value in (secret.get('data') or {}).items():
            plain = base64.b64decode(value).decode('utf-8', 'replace')
            if key in ('token', 'token-secret') and len(plain) >= 6:
                values.update([plain, value])
            if secret.get('type') == 'bootstrap.kubernetes.io/token' and key == 'token-secret':
                values.add('%s.%s' % (base64.b64decode(secret['data']['token-id']).decode(), plain))
    leaked = [v[:6] + '...' for v in values if v in result.output]
    for marker in ('client-key-data', 'PRIVATE KEY'):
        if marker in result.output:
            leaked.append(marker)
    if not values:
        scenario.problems.append('the cluster holds no token to look for: the scan would prove nothing')
    if leaked:
        scenario.problems.append('the -vvvv log shows secrets: %s' % leaked)


# What site.yml may change on a node that restarted: nothing. flanneld's vxlan network comes back with a new id (it
# is created non-persistent), and the convergence record does not compare the ids of networks (_converged.py).
AFTER_REBOOT_CHANGES = set()


def reboot(scenario):
    """A converged node restarts without Ansible: it comes back Ready with its Service routing by itself, and the
    next site.yml succeeds and changes nothing."""
    scenario.run('converge')
    host = scenario.hosts[-1]
    e2e.reboot_node(scenario.sim, host)
    scenario.problems.extend(e2e.after_reboot_problems(scenario.sim, host))
    after = scenario.run('after_reboot')
    changed = {t['task'] for t in after.tasks if t['changed']}
    if changed - AFTER_REBOOT_CHANGES:
        scenario.problems.append('after_reboot: site.yml changed %s' % sorted(changed - AFTER_REBOOT_CHANGES))
    scenario.problems.extend(e2e.after_reboot_problems(scenario.sim, host))


def bad_node_name(scenario):
    # Every host told to register as a Node name Kubernetes refuses: refused in the first play, on the controller.
    before = e2e.node_states(scenario.sim, scenario.hosts)
    failed = scenario.run('converge', '-e', 'kubewin_node_name=Win_1', expect_failure=True)
    calls = {host: failed.attempted_calls(host) for host in scenario.hosts}
    if any(calls.values()) or e2e.node_states(scenario.sim, scenario.hosts) != before:
        scenario.problems.append('a node was contacted or changed before the refusal: remote calls %s' % calls)
    if 'kubewin_node_name' not in failed.output or 'DNS-1123' not in failed.output:
        scenario.problems.append('the refusal does not name kubewin_node_name and the rule: %s' % failed.output[-600:])
    scenario.recover()


# What the staging step may write on a node that then refuses a wrong pin: its staging folder and the folders above it.
STAGING_DIR = 'c:\\k\\staging'


def staging_only(before, after):
    """What changed on a node between two copies of its data, but its staging folder (and the folders it created to
    hold it) and what the run's reads leave (VOLATILE, the clock, the free space the staged files took)."""
    changes = sorted(key for key in set(before) | set(after)
                     if key not in ('fs', 'profile', 'clock') and before.get(key) != after.get(key))
    fs_before, fs_after = before.get('fs') or {}, after.get('fs') or {}
    for key in sorted(set(fs_before) | set(fs_after)):
        if fs_before.get(key) == fs_after.get(key) or key.startswith(STAGING_DIR):
            continue
        if fs_before.get(key) is None and fs_after[key]['dir'] and STAGING_DIR.startswith(key + '\\'):
            continue
        changes.append('file %s' % key)
    return changes


def wrong_pin(scenario):
    """A well-formed wrong pin for flanneld (upstream publishes no hash: the site pins one, here mistyped)."""
    overrides = json.loads(json.dumps(scenario.variable('artifacts_checksum_overrides')))
    version = sorted(overrides['flanneld'])[0]
    wrong = 'sha256:' + 'ab' * 32
    overrides['flanneld'][version] = wrong
    before = {host: e2e.node_states(scenario.sim, [host])[host] for host in scenario.hosts}
    served = len(web.requests(scenario.sim.state_dir))
    failed = scenario.run('converge', '-e', json.dumps({'artifacts_checksum_overrides': overrides}), expect_failure=True)
    messages = ' '.join(json.dumps(t['result']) for t in failed.tasks if t['status'] == 'failed')
    url = 'flannel-io/flannel/releases/download/v%s/flanneld.exe' % version
    if url not in messages or ('expected sha256 %s' % wrong.split(':')[1]) not in messages or 'got ' not in messages:
        scenario.problems.append('the failure does not name the URL and both hashes: %s' % messages[:600])
    for host in scenario.hosts:
        node = scenario.sim.node(host)
        changes = staging_only(before[host], e2e.node_states(scenario.sim, [host])[host])
        services = sorted(set(node.data['services']) & {'kubelet', 'kube-proxy', 'flanneld'})
        networks = [network['name'] for network in node.data['hns']['networks']]
        joined = [p for p in node.file_paths() if p.lower().endswith(KUBEADM_JOIN_WRITES)]
        scenario.runs['converge'].setdefault('before_refusal', {})[host] = {
            'remote_calls': failed.attempted_calls(host), 'changed_tasks': failed.stats.get(host, {}).get('changed'),
            'changes_outside_staging': changes}
        if changes or services or networks or joined:
            scenario.problems.append('%s: changed before the refusal: %s; services %s, HNS networks %s, join files %s'
                                     % (host, changes, services, networks, joined))
    staged = len(web.requests(scenario.sim.state_dir)) - served
    scenario.recover()
    # The recovery downloads what was not staged (flanneld) and nothing it had staged; the next run downloads nothing.
    everything = web.requests(scenario.sim.state_dir)
    requests, first = everything[served + staged:], set(everything[served:served + staged])
    twice = sorted({url for url in requests if not url.endswith('/flanneld.exe')} & first)
    scenario.runs['converge']['downloads'] = {'failed_run': staged, 'recovery_and_again': len(requests)}
    if twice:
        scenario.problems.append('the recovery downloaded again what the failed run had staged: %s' % twice)


def scenarios_for(topology):
    table = {'network-drop': network_drop, 'corrupted-download': corrupted_download, 'secrets': secrets,
             'truncated-archive': truncated_archive, 'disk-full': disk_full, 'reboot': reboot,
             'expired-token': expired_token, 'bad-node-name': bad_node_name}
    if topology in ('overlay', 'l2bridge'):  # the topologies with flannel, whose flanneld a site pins
        table['wrong-pin'] = wrong_pin
    table.update({'role:%s' % role: role_fault(role) for role in TOPOLOGY_ROLES.get(topology, [])})
    table.update({'role-before:%s' % role: role_fault(role, after=False) for role in TOPOLOGY_ROLES.get(topology, [])})
    return table


def limited(hosts, data, count):
    """The first ``count`` Windows nodes, and the inventory data with only them in windows_nodes (the nodes
    e2e.prepare creates)."""
    kept = hosts[:count]
    data = dict(data, windows_nodes=dict(data.get('windows_nodes', {}), hosts=kept))
    return kept, data


def share(text):
    """--share K/N as (K, N), 1 <= K <= N; anything else is argparse's usage error."""
    try:
        part, parts = (int(number) for number in text.split('/'))
    except ValueError:
        raise argparse.ArgumentTypeError('must be K/N, two whole numbers, got %r' % text) from None
    if not 1 <= part <= parts:
        raise argparse.ArgumentTypeError('must be K/N with 1 <= K <= N, got %r' % text)
    return part, parts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('inventory')
    parser.add_argument('--scenarios', help='comma-separated; "all" (default) or "representative"', default='all')
    parser.add_argument('--report', help='write the JSON report here')
    parser.add_argument('--state-dir', help='keep the simulations here (default: a temporary directory)')
    parser.add_argument('--extra-vars', '-e', action='append', default=[])
    parser.add_argument('--share', type=share, help='K/N: only the K-th of every N scenarios chosen (1/2 and 2/2 split them in '
                        'two runs that can go side by side)')
    parser.add_argument('--nodes', type=int, help='only the first N Windows nodes of the inventory: site.yml limited '
                        'to them, the control plane and localhost, its verify play to them (default: every node)')
    args = parser.parse_args(argv)

    inventory = os.path.abspath(args.inventory)
    workdir = args.state_dir or tempfile.mkdtemp(prefix='kubewin-faults-')
    hosts, data = e2e.windows_hosts(inventory)
    limit = None
    if args.nodes:
        hosts, data = limited(hosts, data, args.nodes)
        limit = ','.join(hosts + data.get('kube_control_plane', {}).get('hosts', []) + ['localhost'])
    topology = data['_meta']['hostvars'][hosts[0]].get('kubewin_topology')
    table = scenarios_for(topology)
    if args.scenarios == 'all':
        names = list(table)
    elif args.scenarios == 'representative':
        names = [name for name in REPRESENTATIVE if name in table]
    else:
        names = args.scenarios.split(',')
    if args.share:
        part, parts = args.share
        names = names[part - 1::parts]
    unknown = [name for name in names if name not in table]
    if unknown:
        parser.error('unknown scenario(s) for topology %s: %s (known: %s)' % (topology, unknown, sorted(table)))

    report = {'inventory': args.inventory, 'scenarios': {}}
    for name in names:
        started = time.monotonic()
        scenario = Scenario(inventory, hosts, data, workdir, name, args.extra_vars, limit)
        table[name](scenario)
        report['scenarios'][name] = {'ok': not scenario.problems, 'problems': scenario.problems,
                                     'seconds': round(time.monotonic() - started, 1), 'runs': scenario.runs}
        print(yaml.safe_dump({name: report['scenarios'][name]['problems'] or 'ok'}), flush=True)
    report['ok'] = all(entry['ok'] for entry in report['scenarios'].values())
    if args.report:
        with open(args.report, 'w', encoding='utf-8') as handle:
            json.dump(report, handle, indent=1, sort_keys=True)
    return 0 if report['ok'] else 1


if __name__ == '__main__':
    sys.exit(main())
