"""What the network role tests share: an inventory, the playbook that builds the facts, verifiable downloads."""

import hashlib

import yaml

from kubewin_sim import web

# The catalog's pins (sdn-cni, nssm) need nothing here: the simulation wrapper makes their URLs serve what the pins
# describe, as upstream does.

# flannel publishes no hash for flanneld.exe: it is pinned by the user, here to what the web serves.
FLANNELD = 'https://github.com/flannel-io/flannel/releases/download/v0.28.9/flanneld.exe'

KUBECONFIG = ('apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://10.127.130.10:6443\n'
              '  name: kubernetes\nusers:\n- name: flannel\n  user:\n    token: sim-flannel-token\n')

CLUSTER = {'kubewin_cluster_cidr': '10.244.0.0/16', 'kubewin_service_cidr': '10.96.0.0/12',
           'kubewin_management_cidr': '10.127.130.0/24'}

NODES = {'win1': '10.127.130.38', 'win2': '10.127.130.39'}

CONTAINERS_READY = {'features': {'Containers': 'installed', 'Hyper-V': 'available', 'Hyper-V-PowerShell': 'available'},
                    'network_drop_seconds': 1}

PLAY = '''
- name: Plan
  hosts: localhost
  gather_facts: false
  roles:
    - role: kubewin.node.plan
      vars:
        plan_distribute: true

- name: Network
  hosts: windows_nodes
  gather_facts: false
  tasks:
    - name: snapshot
      kubewin.node.node_info:
    - name: plan of the node
      ansible.builtin.debug:
        var: plan_node
    - name: credentials
      ansible.builtin.set_fact:
        control_plane_credentials:
          flannel_kubeconfig: "{kubeconfig}"
      no_log: true
    - name: network
      ansible.builtin.include_role:
        name: kubewin.node.{role}
'''


def inventory(sim, hosts=('win1',), name='inventory.yml', profile=None, host_vars=None, **cluster):
    """hosts of windows_nodes with the cluster's kubewin_* variables (keyword arguments without the prefix)."""
    group = dict(CLUSTER, **{'kubewin_' + key: value for key, value in cluster.items()})
    return sim.inventory({host: dict({'ansible_host': NODES[host], 'kubewin_sim': dict(CONTAINERS_READY, **(profile or {}))},
                                     **((host_vars or {}).get(host) or {}))
                          for host in hosts}, group_vars=group, name=name)


def playbook(sim, role, name='site.yml'):
    return sim.write(name, PLAY.format(role=role, kubeconfig=KUBECONFIG.replace('\n', '\\n')))


def with_runtime(sim, hosts=('win1',), service='containerd', **profile):
    """The container runtime's service runs on the nodes (flanneld depends on it); profile: more node settings."""
    for host in hosts:
        with sim.edit_node(host, profile=dict(CONTAINERS_READY, ip=NODES[host], **profile)) as node:
            node.profile.update(profile)
            node.data['services'][service] = {
                'name': service, 'exists': True, 'state': 'running', 'start_mode': 'auto',
                'command_line': 'C:\\Program Files\\%s\\%s.exe' % (service, service), 'dependencies': [],
                'environment': [], 'nssm': None}


def run(sim, book, inventory_path, *args, **extra):
    extra.setdefault('artifacts_checksum_overrides', {
        'flanneld': {'0.28.9': 'sha256:' + hashlib.sha256(web.body(FLANNELD)).hexdigest()}})
    extra_vars = sim.write('extra.yml', yaml.safe_dump(extra)) if extra else None
    more = ['-e', '@' + extra_vars] if extra_vars else []
    return sim.run(book, inventory_path, *more, *args)


def planned(result, host):
    """plan_node as the plan role handed it to the host."""
    return result.result('plan of the node', host)['result']['plan_node']


def text(sim, host, path):
    entry = sim.node(host).file(path)
    assert entry is not None, '%s has no %s' % (host, path)
    return entry['content']


def network(sim, host, name):
    found = [n for n in sim.node(host).data['hns']['networks'] if n['name'].lower() == name.lower()]
    assert len(found) == 1, '%s has %d networks named %s' % (host, len(found), name)
    return found[0]


def task(result, name, host):
    """The one result of the task ``name`` (a role's task, whatever role prefix it carries) on ``host``."""
    found = [t for t in result.tasks if t['host'] == host and (t['task'] == name or t['task'].endswith(' : ' + name))]
    assert len(found) == 1, 'expected one result of %r on %s, got %d\n%s' % (name, host, len(found), result.output)
    return found[0]


def web_deployment(replicas=1, image='mcr.microsoft.com/windows/servercore:ltsc2022'):
    """A Deployment 'web' in 'default' whose pods run on the Windows nodes (their os=windows:NoSchedule taint
    tolerated): a workload for a drain to evict and a Service to route to."""
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web', 'namespace': 'default'},
            'spec': {'replicas': replicas, 'selector': {'matchLabels': {'app': 'web'}},
                     'template': {'metadata': {'labels': {'app': 'web'}}, 'spec': {
                         'nodeSelector': {'kubernetes.io/os': 'windows'},
                         'tolerations': [{'key': 'os', 'value': 'windows', 'effect': 'NoSchedule'}],
                         'containers': [{'name': 'web', 'image': image}]}}}}
