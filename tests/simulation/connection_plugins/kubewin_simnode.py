# -*- coding: utf-8 -*-
"""Connection plugin for tests: local execution that stands in for a simulated Windows node."""

DOCUMENTATION = r'''
name: kubewin_simnode
short_description: Run tasks locally against a simulated Windows node
description:
  - Test-only. Executes like C(ansible.builtin.local), and for hosts of the C(windows_nodes)
    group makes the fake C(ansible.windows) modules act on that host's simulated node.
  - Works under C(delegate_to) a Windows node, e.g. from a control-plane host.
  - While the simulated node is cut off by a network drop, every command fails with a
    connection error, as a WinRM connection would. The drop is measured on the node's simulated
    clock, which each refused attempt moves on by the least the collection's reconnect loop waits
    after it (its backoff without jitter), so the drop ends after the same attempts however loaded
    the test machine is.
  - Names the task's host (the inventory host, also under C(delegate_to)) to the fake modules, so
    that the simulated cluster's kubelets act in their own node's tasks only (kubewin_sim/hostprocess.py).
  - A pipelined module of the fake collections (tests/simulation/collections) runs in the worker
    process instead of a new Python (kubewin_sim/inprocess.py); other commands run as with
    C(ansible.builtin.local).
options:
  host_name:
    description: The inventory hostname (names the node's state file).
    vars:
      - name: inventory_hostname
  host_groups:
    description: Groups of the host; members of windows_nodes are simulated Windows nodes.
    type: list
    elements: str
    default: []
    vars:
      - name: group_names
  management_ip:
    description: The address the simulated node's adapter starts with.
    vars:
      - name: kubewin_management_ip
      - name: ansible_host
  profile:
    description: Settings of the simulated node when it is created (see tests/simulation/README.md).
    type: dict
    default: {}
    vars:
      - name: kubewin_sim
  cluster_profile:
    description:
      - Settings of the simulated cluster when it is created (see tests/simulation/README.md), on a host
        that is not a Windows node (the control-plane host, where the fake kubernetes.core modules run).
      - Handed to them as C($KUBEWIN_SIM_CLUSTER), which it overrides for this host.
    type: dict
    default: {}
    vars:
      - name: kubewin_sim_cluster
'''

import itertools
import json
import os
import time

from ansible.errors import AnsibleConnectionFailure
from ansible.plugins.connection.local import Connection as LocalConnection
from ansible.utils.display import Display
from ansible_collections.kubewin.node.plugins.plugin_utils import _reconnect

from kubewin_sim import calls, cluster as sim_cluster, fake, hostprocess, inprocess, node as sim_node
from kubewin_sim import windows as sim_windows

display = Display()

WINDOWS_GROUP = 'windows_nodes'


def reconnect_wait(refused):
    """The least the collection's reconnect loop (plugins/plugin_utils/_reconnect.py, wait_for) waits after its
    ``refused``-th failed attempt (0 the first): its backoff without the jitter, which only adds to it. A drop is
    measured on the node's clock, which each refused attempt moves on by this wait: the node answers again after
    the attempts whose waits add up to the drop, and the module's own budget, on the controller's clock, still
    decides whether it waits that long (it sleeps at least as long as the node's clock moves)."""
    return next(itertools.islice(_reconnect.backoff_delays(jitter=0), refused, None))


class Connection(LocalConnection):

    transport = 'kubewin_simnode'

    def _node_host(self):
        if WINDOWS_GROUP not in (self.get_option('host_groups') or []):
            return None
        # Under delegate_to, Ansible gives the connection the delegated host's variables but keeps
        # inventory_hostname of the task's host; the play context names the delegated host.
        return getattr(self._play_context, 'delegate_to', None) or self.get_option('host_name')

    def _enter(self):
        """Point the fake modules at this host's node, or fail as WinRM would during a drop."""
        os.environ[hostprocess.TASK_HOST_ENV] = self.get_option('host_name')
        host = self._node_host()
        if host is None:
            os.environ.pop(fake.HOST_ENV, None)
            # The inventory describes the cluster on its control-plane host, as it describes each node on
            # the node; the fake kubernetes.core modules create the cluster from it on first use.
            cluster_profile = self.get_option('cluster_profile')
            if cluster_profile:
                os.environ[sim_cluster.PROFILE_ENV] = json.dumps(cluster_profile)
            return
        state_dir = os.environ[fake.STATE_DIR_ENV]
        existing = sim_node.peek(state_dir, host)
        if existing is not None and sim_windows.work_due(existing):
            # What the node did by itself meanwhile happens first: a detached worker's run may have cut it off.
            with sim_node.open_node(state_dir, host) as node:
                sim_windows.catch_up(node)
            existing = sim_node.peek(state_dir, host)
        if existing is None:
            sim_node.create_on_first_contact(state_dir, host, self.get_option('profile'), self.get_option('management_ip'))
        elif not existing.reachable():
            with sim_node.open_node(state_dir, host) as node:
                refused = not node.reachable()
                if refused:
                    node.refuse_connection(reconnect_wait)
            if refused:
                raise AnsibleConnectionFailure('kubewin_simnode: %s did not answer (simulated network drop)' % host)
        os.environ[fake.HOST_ENV] = host

    def exec_command(self, cmd, in_data=None, sudoable=True):
        self._enter()
        # A module of the fake collections needs no process of its own: running it here saves
        # the Python start-up and AnsiballZ unpacking of every remote call (kubewin_sim/inprocess.py).
        call = None if self.become or (self.cwd and self.cwd != os.getcwd()) else inprocess.recognise(cmd, in_data)
        if call is None:
            return super().exec_command(cmd, in_data=in_data, sudoable=sudoable)
        display.vvv('EXEC in-process %s' % call['module_fqn'], host=self._play_context.remote_addr)
        started = time.process_time()
        try:
            return inprocess.run(call)
        finally:
            calls.add_simulated_cpu(os.environ[fake.STATE_DIR_ENV], time.process_time() - started)

    def put_file(self, in_path, out_path):
        """A file copied to a Windows node lands in the node's file system with its bytes."""
        self._enter()
        host = self._node_host()
        if host is None:
            return super().put_file(in_path, out_path)
        with open(in_path, 'rb') as handle:
            data = handle.read()
        with sim_node.open_node(os.environ[fake.STATE_DIR_ENV], host) as node:
            node.count_call('put_file')
            node.write_file(out_path, data=data)
        return None
