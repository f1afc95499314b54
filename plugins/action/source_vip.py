# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubewin.node.source_vip: kube-proxy's source VIP on an overlay node, reserved once per pod subnet."""

from __future__ import annotations

import ipaddress
import ntpath
import re

from ansible_collections.kubewin.node.plugins.plugin_utils import _hns, _snapshot
from ansible_collections.kubewin.node.plugins.plugin_utils._node_action import NodeAction, NodeActionError, Plan
from ansible_collections.kubewin.node.plugins.plugin_utils._source_vip import recorded_address

_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]*$')
_WINDOWS_PATH = re.compile(r'^[A-Za-z]:\\')


class ActionModule(NodeAction):

    ARGUMENT_SPEC = {
        'network': {'type': 'str', 'required': True},
        'path': {'type': 'str', 'required': True},
        'host_local': {'type': 'str', 'required': True},
        'data_dir': {'type': 'str', 'default': 'C:\\var\\lib\\cni\\networks'},
    }
    SECTIONS = ('hns', 'contents')

    def validate(self, args):
        if not _NAME.match(args['network']):
            raise NodeActionError('network %r is not a CNI network name (letters, digits, "_", "." and "-")'
                                  % args['network'])
        bad = [key for key in ('path', 'host_local', 'data_dir') if not _WINDOWS_PATH.match(args[key])]
        if bad:
            raise NodeActionError('%s must be absolute Windows paths such as C:\\k\\SourceVip.json' % ', '.join(bad))

    def scope(self, args, live=False):
        return {'contents': [args['path']]}

    def _subnet(self, args, state):
        networks = _hns.networks_named(state['hns'].get('networks') or [], args['network'])
        if len(networks) > 1:
            raise NodeActionError('%d HNS networks are named %r (ids: %s)' % (
                len(networks), args['network'], ', '.join(sorted(n['id'] for n in networks))))
        if not networks:
            return None
        prefix = _hns.describe_network(networks[0])['address_prefix']
        return ipaddress.IPv4Network(prefix) if prefix else None

    @staticmethod
    def _record(args, state):
        content = (state.get('contents') or {}).get(args['path']) or {}
        if not content.get('exists'):
            return None, False
        return recorded_address(content.get('text') or ''), True

    def plan(self, args, state):
        subnet = self._subnet(args, state)
        recorded, exists = self._record(args, state)
        before = {'source_vip': str(recorded.ip), 'reserved_in': str(recorded.network)} if recorded else {}
        if subnet is not None and recorded is not None and recorded.ip in subnet:
            return Plan(before=before, after=before)
        notes = []
        if subnet is None:
            notes.append('HNS network %r does not exist (yet); flanneld creates it' % args['network'])
        elif exists and recorded is None:
            notes.append('%s does not hold a host-local answer; reserving again' % args['path'])
        elif recorded is not None:
            notes.append('the recorded source VIP %s is outside the pod subnet %s (a new lease); it is released '
                         'and a new one reserved' % (recorded.ip, subnet))
        after = {'source_vip': '(the next free address of %s)' % (subnet or 'the pod subnet'),
                 'reserved_in': str(subnet) if subnet else None}
        release = str(recorded.network) if recorded is not None else (str(subnet) if subnet else None)
        return Plan([{'op': 'reserve', 'subnet': str(subnet) if subnet else None, 'release': release}],
                    before=before, after=after, notes=notes)

    def written_folders(self, args, plan):
        # host-local keeps its reservations in data_dir; the record and the request are written beside each other.
        return _snapshot.folders([args['path']]) + [args['data_dir'].rstrip('\\') + '\\']

    def side_effects(self, args, plan):
        return _snapshot.written_under(self.written_folders(args, plan))

    def apply(self, args, plan, state):
        operation = plan.operations[0]
        if operation['subnet'] is None:
            raise NodeActionError('HNS network %r does not exist on the node, so there is no pod subnet to reserve '
                                  'the source VIP in; flanneld creates that network once it runs' % args['network'])
        parameters = {
            'Network': args['network'], 'Subnet': operation['subnet'], 'ReleaseSubnet': operation['release'],
            'Path': args['path'], 'RequestPath': ntpath.join(ntpath.dirname(args['path']), 'SourceVipRequest.json'),
            'HostLocal': args['host_local'], 'DataDir': args['data_dir'],
        }
        return {'state': self.run_script('source_vip_apply', parameters)['state']}

    def check_applied(self, args, plan, state):
        subnet = self._subnet(args, state)
        recorded, _exists = self._record(args, state)
        if recorded is None or subnet is None or recorded.ip not in subnet:
            raise NodeActionError('%s does not record a source VIP inside %s after the reservation (it holds %s)'
                                  % (args['path'], subnet, recorded))

    def report(self, args, state, plan):
        recorded, _exists = self._record(args, state)
        if self._task.check_mode and plan.changed:
            recorded = None
        subnet = self._subnet(args, state)
        return {'source_vip': str(recorded.ip) if recorded else None, 'subnet': str(subnet) if subnet else None,
                'path': args['path']}
