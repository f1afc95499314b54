"""HostProcess pods of DaemonSets on the simulated Windows nodes: the DaemonSet controller's part and the node's
(kubelet and containerd) part, which runs the container's PowerShell in the engine on the node.

What is modelled, with its sources:

- The DaemonSet controller gives every node the pod template fits one pod, bound to the node (spec.nodeName), owned by
  the DaemonSet and labelled with the template's revision (controller-revision-hash); a pod of an older revision, or on
  a node that no longer fits, is deleted and the node's new pod created (kubernetes.io, "DaemonSet", "Updating a
  DaemonSet"; the rolling update goes node by node, the simulation replaces every node's pod in one pass).
- HostProcess containers need containerd 1.6 or later (kubernetes.io, "Create a Windows HostProcess Pod", Limitations).
  On a node whose runtime (Node status.nodeInfo.containerRuntimeVersion) is older, or not containerd, the container is
  not created: the pod stays Pending with the reason CreateContainerError. That page states the requirement, not the
  error's text; the message here is the simulation's own.
- A HostProcess container runs on the host: it sees the host's files, the image's files and the pod's volumes are under
  the folder named by CONTAINER_SANDBOX_MOUNT_POINT, and it shares the host's network, so the pod's IP is the node's
  (same page, "Volume mounts", and hostNetwork). A ConfigMap volume holds a file per key. Environment variables take
  ``value`` or ``valueFrom.fieldRef`` (spec.nodeName, status.podIP, metadata.name, metadata.namespace) as the kubelet
  resolves them (kubernetes.io, "Expose Pod Information to Containers Through Environment Variables").
- A container that exits is restarted with a back-off of 10 s, doubled up to five minutes, CrashLoopBackOff meanwhile
  (kubernetes.io, "Pod Lifecycle", Container restart policy). Deleting the pod starts a new one at once. The back-off
  is measured on the cluster's simulated clock (cluster.py: API requests and the clients' waits move it on), so a
  container is tried again after the same requests and waits whatever the test machine's load.

The container's command is powershell.exe, run as the program it is (windows/powershell_exe.py: -Command text run in a
fresh session of the engine with the container's environment, `& <script path>` running a script file of the sandbox,
the process exit code as about_PowerShell_exe gives it); any other program is a simulation gap, raised as such. A
program the script runs that does not end (kube-proxy) is modelled by its start-up (see its program model); a
container whose process ends with exit code 0 is taken as running, any other code is the container's exit code.

A container without a command runs its image's entry point; the one image modelled so far is csi-proxy's
(kubewin_sim/csi_proxy.py: sig-windows-tools' ``csi-proxy.exe -v 4``). Its process runs while its pod is there: the
node keeps it in ``container_processes`` (the pipes it serves), and the kubelet ends it once the pod is gone (deleted,
or replaced by a new revision), which ``stop_gone`` does when it next reaches the node.

The node is changed under its lock, taken without waiting: while a module holds it (a script runs on the node), the
pod stays ContainerCreating and starts at a later reconcile (``Cluster.held_nodes`` names such nodes, so that a
client's wait does not spend its time on the simulation's own lock).

When the kubelet acts (the simulation's rule, not Kubernetes'): a real kubelet starts a pod whenever it sees it, after
pulling its images, with no regard for what Ansible is doing on the node; the simulation starts it at once. So that
the moment is the same in every run, during a playbook run (the connection plugin names the task's host in
``$KUBEWIN_SIM_TASK_HOST``) the containers of a node's pods run only in an API access made for a task of that node
(typically its play's wait for the pod, delegated to the control plane) or for a host that is not a simulated
Windows node (a control-plane play); an access made for another Windows node's task leaves them as they are. Else
a pod could start, and a calico-node-windows pod drop its node's network, between two remote calls of one of the
node's tasks, at a moment that depends on how fast the other hosts' tasks run. Outside a playbook (tests, the e2e
harness) every node's kubelet acts in every access.

A container's processes run alongside the node's calls (SimNode.alongside): the time they spend (a start script's
sleeps) is theirs, and a network drop they cause is measured from the moment they cause it.
"""

import copy
import hashlib
import json
import ntpath
import os
import re

from kubewin_sim import calico_windows
from kubewin_sim import csi_proxy
from kubewin_sim import node as sim_node
from kubewin_sim import programs
from kubewin_sim.k8s_objects import fits_node

# The inventory host of the task a playbook run is in (connection_plugins/kubewin_simnode.py sets it).
TASK_HOST_ENV = 'KUBEWIN_SIM_TASK_HOST'
HOSTPROCESS_CONTAINERD = (1, 6)
BACKOFF_FIRST, BACKOFF_MAX = 10, 300
SANDBOX_ROOT = 'C:\\C'


class SimulationGap(Exception):
    """A pod the simulation cannot run faithfully."""


def _hostprocess_context(holder):
    return ((holder.get('securityContext') or {}).get('windowsOptions') or {}).get('hostProcess') is True


def is_hostprocess(pod_spec):
    """hostProcess set on the pod or on its containers (kubernetes.io, "Create a Windows HostProcess Pod": the
    field may be set at either level, and every container of a HostProcess pod is one)."""
    containers = list(pod_spec.get('initContainers') or []) + list(pod_spec.get('containers') or [])
    return _hostprocess_context(pod_spec) or any(_hostprocess_context(c) for c in containers)


def _owner(pod):
    for reference in pod['metadata'].get('ownerReferences') or []:
        return reference.get('uid')
    return None


def _revision(template):
    return hashlib.sha256(json.dumps(template, sort_keys=True).encode()).hexdigest()[:10]


def reconcile(cluster, daemon_set, spec, nodes):
    """The DaemonSet's pods on the nodes its pod spec (with the controller's tolerations) fits; {node name: pod}."""
    pods = cluster._store('Pod')  # pylint: disable=protected-access
    uid = daemon_set['metadata']['uid']
    namespace = daemon_set['metadata']['namespace']
    template = daemon_set['spec']['template']
    revision = _revision(template)
    eligible = {n['metadata']['name']: n for n in nodes if fits_node(spec, n)}
    for key in [k for k, p in pods.items() if _owner(p) == uid and (
            p['spec'].get('nodeName') not in eligible
            or p['metadata']['labels'].get('controller-revision-hash') != revision)]:
        del pods[key]
    found = {}
    for name, node in sorted(eligible.items()):
        owned = [k for k, p in pods.items() if _owner(p) == uid and p['spec'].get('nodeName') == name]
        if owned:
            key = owned[0]
        else:
            suffix = hashlib.sha256(('%s-%s-%s' % (uid, name, revision)).encode()).hexdigest()[:5]
            pod_name = '%s-%s' % (daemon_set['metadata']['name'], suffix)
            key = '%s/%s' % (namespace, pod_name)
            pod = {'apiVersion': 'v1', 'kind': 'Pod',
                   'metadata': {'name': pod_name, 'namespace': namespace,
                                'labels': dict(template['metadata'].get('labels') or {},
                                               **{'controller-revision-hash': revision}),
                                'ownerReferences': [{'apiVersion': 'apps/v1', 'kind': 'DaemonSet',
                                                     'name': daemon_set['metadata']['name'], 'uid': uid,
                                                     'controller': True}]},
                   'spec': dict(copy.deepcopy(template.get('spec') or {}), nodeName=name),
                   'status': {'phase': 'Pending'}}
            cluster._write_status('Pod', key, pod)  # pylint: disable=protected-access
        pod = copy.deepcopy(pods[key])
        _kubelet(cluster, pod, node)
        cluster._write_status('Pod', key, pod)  # pylint: disable=protected-access
        found[name] = pods[key]
    return found


def _runtime_supports_hostprocess(node):
    runtime = ((node.get('status') or {}).get('nodeInfo') or {}).get('containerRuntimeVersion') or ''
    found = re.match(r'^containerd://v?(\d+)\.(\d+)', runtime)
    return bool(found) and (int(found.group(1)), int(found.group(2))) >= HOSTPROCESS_CONTAINERD, runtime


def _posting(node):
    """The node's kubelet posts its status (a Ready condition that is not Unknown): it runs the node's pods."""
    return any(c['type'] == 'Ready' and c['status'] != 'Unknown' for c in (node.get('status') or {}).get('conditions') or [])


def _waiting(pod, node, reason, message, restarts=0, last=None):
    container = pod['spec']['containers'][0]
    status = {'name': container['name'], 'image': container.get('image'), 'ready': False, 'restartCount': restarts,
              'state': {'waiting': {'reason': reason, 'message': message}}}
    if last:
        status['lastState'] = last
    pod['status'] = {'phase': 'Pending' if reason != 'CrashLoopBackOff' else 'Running',
                     'hostIP': _address(node), 'podIP': _address(node),
                     'conditions': [{'type': 'PodScheduled', 'status': 'True'},
                                    {'type': 'Ready', 'status': 'False'},
                                    {'type': 'ContainersReady', 'status': 'False'}],
                     'containerStatuses': [status]}


def _address(node):
    addresses = (node.get('status') or {}).get('addresses') or []
    return next((a['address'] for a in addresses if a['type'] == 'InternalIP'), None)


def _kubelet(cluster, pod, node):
    """Start the pod's container on the node when it is not running (and its back-off allows)."""
    statuses = pod['status'].get('containerStatuses') or []
    state = statuses[0]['state'] if statuses else {}
    if 'running' in state:
        return
    if not _posting(node):
        return
    supported, runtime = _runtime_supports_hostprocess(node)
    if not supported:
        _waiting(pod, node, 'CreateContainerError', 'HostProcess containers need containerd 1.6 or later; the node\'s '
                 'runtime is %s' % (runtime or 'unknown'))
        return
    restarts = statuses[0].get('restartCount', 0) if statuses else 0
    # When the kubelet tries a crashed container again: its own memory, not a field of the pod.
    retries = cluster.data.setdefault('hostprocess_retry_at', {})
    retry_at = retries.get(pod['metadata'].get('uid'))
    if 'waiting' in state and state['waiting']['reason'] == 'CrashLoopBackOff' and retry_at \
            and cluster.elapsed() < retry_at:
        return
    host = _host_file(cluster.state_dir, node['metadata']['name'])
    if host is None:
        return
    if not _kubelet_acts(cluster.state_dir, host):
        if not statuses:
            _waiting(pod, node, 'ContainerCreating', '')
        return
    with sim_node.open_node_if_free(cluster.state_dir, host) as sim:
        if sim is None:
            cluster.held_nodes.add(node['metadata']['name'])
            if not statuses:
                _waiting(pod, node, 'ContainerCreating', '')
            return
        _end_processes(cluster, sim, _live_pods(cluster))
        with sim.alongside():
            failure = _run_container(cluster, pod, node, sim)
        if failure is None and pod['metadata'].get('uid') in (sim.data.get('container_processes') or {}):
            cluster.data.setdefault('hostprocess_containers', {})[pod['metadata']['uid']] = host
    if failure is None:
        container = pod['spec']['containers'][0]
        pod['status'] = {'phase': 'Running', 'hostIP': _address(node), 'podIP': _address(node),
                         'conditions': [{'type': 'PodScheduled', 'status': 'True'}, {'type': 'Ready', 'status': 'True'},
                                        {'type': 'ContainersReady', 'status': 'True'}],
                         'containerStatuses': [{'name': container['name'], 'image': container.get('image'),
                                                'ready': True, 'restartCount': restarts,
                                                'state': {'running': {}}}]}
        return
    exit_code, message = failure
    backoff = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** restarts)
    _waiting(pod, node, 'CrashLoopBackOff', 'back-off %ds restarting failed container=%s pod=%s'
             % (backoff, pod['spec']['containers'][0]['name'], pod['metadata']['name']), restarts + 1,
             {'terminated': {'exitCode': exit_code, 'reason': 'Error', 'message': message}})
    retries[pod['metadata'].get('uid')] = cluster.elapsed() + backoff


def _kubelet_acts(state_dir, host):
    """Whether the kubelet of the simulated node ``host`` acts in this API access (see "When the kubelet acts")."""
    task_host = os.environ.get(TASK_HOST_ENV)
    if not task_host or task_host.lower() == host.lower():
        return True
    return _host_file(state_dir, task_host.lower()) is None


def _live_pods(cluster):
    return {pod['metadata'].get('uid') for pod in cluster._store('Pod').values()}  # pylint: disable=protected-access


def _end_processes(cluster, sim, live):
    """The processes of the node's HostProcess containers whose pod is gone end."""
    processes = sim.data.get('container_processes') or {}
    for uid in [uid for uid in processes if uid not in live]:
        sim.record('pod %s gone: its process %s ended' % (processes[uid].get('pod'), processes[uid].get('program')))
        del processes[uid]
        cluster.data.get('hostprocess_containers', {}).pop(uid, None)


def stop_gone(cluster):
    """End the processes of the HostProcess containers whose pod is gone (its DaemonSet deleted, or the pod
    replaced), on the nodes that are free now; a busy node is done at a later reconcile."""
    started = cluster.data.get('hostprocess_containers') or {}
    live = _live_pods(cluster)
    for host in sorted({host for uid, host in started.items() if uid not in live}):
        with sim_node.open_node_if_free(cluster.state_dir, host) as sim:
            if sim is not None:
                _end_processes(cluster, sim, live)


def _host_file(state_dir, name):
    """The node's state file name (the inventory host, any case) for a Node name."""
    for entry in sorted(os.listdir(state_dir)):
        if entry.endswith('.json') and entry[:-5].lower() == name and os.path.exists(os.path.join(state_dir, entry + '.lock')):
            return entry[:-5]
    return None


def _environment(cluster, pod, node, container, sandbox):
    values = {'CONTAINER_SANDBOX_MOUNT_POINT': sandbox + '\\'}
    fields = {'spec.nodeName': node['metadata']['name'], 'status.podIP': _address(node),
              'metadata.name': pod['metadata']['name'], 'metadata.namespace': pod['metadata']['namespace']}
    for item in container.get('env') or []:
        key_ref = (item.get('valueFrom') or {}).get('configMapKeyRef')
        if key_ref:
            # "Define container environment variables using ConfigMap data" (kubernetes.io): the key's value.
            config_map = cluster.get('ConfigMap', pod['metadata']['namespace'], key_ref['name']) or {}
            values[item['name']] = (config_map.get('data') or {}).get(key_ref['key'], '')
        elif 'valueFrom' in item:
            path = ((item['valueFrom'] or {}).get('fieldRef') or {}).get('fieldPath')
            if path not in fields:
                raise SimulationGap('environment variable %s from %r' % (item['name'], item['valueFrom']))
            values[item['name']] = fields[path]
        else:
            values[item['name']] = item.get('value') or ''
    return values


def _volumes(cluster, pod, sim, container, sandbox):
    """Write the ConfigMap volumes under the sandbox; (reason, message) when one is missing."""
    volumes = {v['name']: v for v in pod['spec'].get('volumes') or []}
    for mount in container.get('volumeMounts') or []:
        volume = volumes.get(mount['name']) or {}
        if 'configMap' not in volume:
            raise SimulationGap('volume %r of kind %s' % (mount['name'], sorted(volume)))
        config_map = cluster.get('ConfigMap', pod['metadata']['namespace'], volume['configMap']['name'])
        if config_map is None:
            return 'configmap "%s" not found' % volume['configMap']['name']
        folder = ntpath.join(sandbox, mount['mountPath'].strip('/').replace('/', '\\'))
        for key, text in (config_map.get('data') or {}).items():
            sim.write_file(ntpath.join(folder, key), content=text)
    return None


def _run_container(cluster, pod, node, sim):
    """Run the container on the node; None when it runs, else (exit code, message). Its command is powershell.exe, run
    as the program it is (windows/powershell_exe.py: -Command and its exit code) with the container's environment."""
    from kubewin_sim.pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
    from kubewin_sim.windows import WindowsHost  # pylint: disable=import-outside-toplevel
    if calico_windows.is_calico_pod(pod):
        return _run_calico(cluster, pod, node, sim)
    container = pod['spec']['containers'][0]
    if not container.get('command') and csi_proxy.image_entrypoint(container.get('image')):
        return _run_csi_proxy(pod, container, sim)
    command = list(container.get('command') or []) + list(container.get('args') or [])
    if not command or command[0].lower() != 'powershell.exe':
        raise SimulationGap('container command %r' % (command,))
    sandbox = ntpath.join(SANDBOX_ROOT, pod['metadata'].get('uid') or pod['metadata']['name'])
    missing = _volumes(cluster, pod, sim, container, sandbox)
    if missing:
        return 1, missing
    host = WindowsHost(sim)
    environment = dict(host.environment(), **_environment(cluster, pod, node, container, sandbox))
    token = programs.CLUSTER_IN_HAND.set(cluster)
    try:
        result = host.run_program(command[0], command[1:], None, environment=environment)
    except Unsupported as exc:
        raise SimulationGap('in the container of %s: %s' % (pod['metadata']['name'], exc.what)) from None
    finally:
        programs.CLUSTER_IN_HAND.reset(token)
    if result.exit_code:
        message = (result.stderr_lines or ['exit code %d' % result.exit_code])[0]
        sim.record('pod %s: %s (exit code %d)' % (pod['metadata']['name'], message, result.exit_code))
        return result.exit_code, message
    sim.record('pod %s: running (%s)' % (pod['metadata']['name'], ' | '.join(result.stdout_lines[-1:])))
    return None


def _run_csi_proxy(pod, container, sim):
    """The csi-proxy image's entry point (kubewin_sim/csi_proxy.py): the image's csi-proxy.exe from the sandbox, with
    the container's args after the entry point's; it serves its pipes while the pod is there, or stops at once."""
    entrypoint, release = csi_proxy.image_entrypoint(container.get('image'))
    sandbox = ntpath.join(SANDBOX_ROOT, pod['metadata'].get('uid') or pod['metadata']['name'])
    program = ntpath.join(sandbox, entrypoint[0])
    sim.write_file(program, content='(csi-proxy.exe of %s)\n' % container.get('image'))
    argv = entrypoint[1:] + list(container.get('args') or [])
    failure = csi_proxy.start_failure(sim, argv, release, exclude=pod['metadata'].get('uid'))
    if failure:
        sim.record('pod %s: csi-proxy exited: %s' % (pod['metadata']['name'], failure))
        return 2 if failure.startswith('flag') else 1, failure
    sim.data.setdefault('container_processes', {})[pod['metadata'].get('uid')] = {
        'program': program, 'argv': [program] + argv, 'pod': '%s/%s' % (pod['metadata']['namespace'], pod['metadata']['name'])}
    sim.record('pod %s: running (%s)' % (pod['metadata']['name'], ' '.join([entrypoint[0]] + argv)))
    return None


def _run_calico(cluster, pod, node, sim):
    """The calico-node-windows pod: its init containers in order, then its containers, each Calico program modelled
    by calico_windows.py (Calico's programs are not the collection's PowerShell). hostPath volumes are the host's
    folders (kubernetes.io, "Volumes", hostPath; a HostProcess container sees them at their mount paths)."""
    sandbox = ntpath.join(SANDBOX_ROOT, pod['metadata'].get('uid') or pod['metadata']['name'])
    volumes = {v['name']: v for v in pod['spec'].get('volumes') or []}
    for container in list(pod['spec'].get('initContainers') or []) + list(pod['spec']['containers']):
        mounts = {}
        for mount in container.get('volumeMounts') or []:
            path = (volumes.get(mount['name']) or {}).get('hostPath', {}).get('path')
            if path is None:
                raise SimulationGap('volume %r of the calico-node-windows pod' % mount['name'])
            mounts[mount['mountPath']] = calico_windows.host_path(path)
        environment = _environment(cluster, pod, node, container, sandbox)
        try:
            calico_windows.run_container(cluster, sim, container, environment, mounts)
        except calico_windows.ContainerExit as exit_:
            sim.record('pod %s: container %s: %s' % (pod['metadata']['name'], container['name'], exit_))
            return 1, 'container %s: %s' % (container['name'], exit_)
        except ValueError as error:
            raise SimulationGap(str(error)) from error
    sim.record('pod %s: running' % pod['metadata']['name'])
    return None
