# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The result of every node script is a contract, checked before any module uses it.

Internal to kubewin.node, not a public API.

A node that answers in another shape than the scripts are written for (Windows
PowerShell 5.1 unrolls a one-element array into its element, emits ``null``
for an empty collection, serialises an enum as its number) must fail where
the answer arrives, with a message naming the script and the field, e.g.
``node_info: state.adapters must be a list, got an object``, and not with a
``TypeError`` or ``KeyError`` in a module or role that reads it later.

``_pwsh.run_script`` calls ``check`` on every decoded result; a detached
worker's result (returned through ``detached_status``) is checked against its
own contract by ``_node_action.NodeAction.run_detached``. ``ScriptError``, the
error of a node script, is defined here, below ``_pwsh``, so that the two modules
do not import each other; callers name it ``_pwsh.ScriptError``.

The schemas say what the Python consumers (and the roles reading the
``kubewin_node`` fact) rely on: lists that are iterated must be lists, keys
that are indexed must be there, with the JSON type they are used as. Objects
may carry more keys than a schema names.
"""

from __future__ import annotations

import re

from ansible.errors import AnsibleError


class ScriptError(AnsibleError):
    """A node script failed; carries the script name and PowerShell's error record."""

    def __init__(self, script, reason, error_record=None):
        self.script = script
        self.reason = reason
        self.error_record = error_record or {}
        super().__init__('%s: %s' % (script, reason))

# -- the schema language ---------------------------------------------------------


class Mismatch(Exception):
    """A value does not match its schema; ``path`` is the list of keys and indices leading to it."""

    def __init__(self, path, message):
        self.path = path
        self.message = message
        super().__init__(message)


def json_type(value):
    """The JSON name of a decoded value's type, with its article: 'an object', 'a list', 'null'..."""
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'a boolean'
    if isinstance(value, (int, float)):
        return 'a number'
    if isinstance(value, str):
        return 'a string'
    if isinstance(value, list):
        return 'a list'
    if isinstance(value, dict):
        return 'an object'
    return 'a %s' % type(value).__name__


class Schema:
    """A check of one JSON value; ``expected`` says what it wants, e.g. 'a list'."""

    expected = 'a value'

    def validate(self, value, path):
        raise NotImplementedError

    def fail(self, value, path):
        raise Mismatch(path, 'must be %s, got %s' % (self.expected, json_type(value)))


class _Scalar(Schema):

    def __init__(self, expected, test):
        self.expected = expected
        self._test = test

    def validate(self, value, path):
        if not self._test(value):
            self.fail(value, path)


STR = _Scalar('a string', lambda value: isinstance(value, str))
BOOL = _Scalar('a boolean', lambda value: isinstance(value, bool))
INT = _Scalar('a whole number', lambda value: isinstance(value, int) and not isinstance(value, bool))
NUMBER = _Scalar('a number', lambda value: isinstance(value, (int, float)) and not isinstance(value, bool))
ANY = _Scalar('any value', lambda _value: True)


class _Nullable(Schema):

    def __init__(self, schema):
        self.schema = schema
        self.expected = '%s or null' % schema.expected

    def validate(self, value, path):
        if value is not None:
            try:
                self.schema.validate(value, path)
            except Mismatch as exc:
                if exc.path == path:  # the value itself is wrong: say null would do too
                    self.fail(value, path)
                raise


class _List(Schema):

    expected = 'a list'

    def __init__(self, item):
        self.item = item

    def validate(self, value, path):
        if not isinstance(value, list):
            self.fail(value, path)
        for index, item in enumerate(value):
            self.item.validate(item, path + [index])


class _Map(Schema):
    """A JSON object used as a mapping: any keys, every value of one schema."""

    expected = 'an object'

    def __init__(self, value):
        self.value = value

    def validate(self, value, path):
        if not isinstance(value, dict):
            self.fail(value, path)
        for key, item in value.items():
            self.value.validate(item, path + [key])


class _Object(Schema):
    """A JSON object with named keys; keys it does not name are allowed."""

    expected = 'an object'

    def __init__(self, required, optional):
        self.required = dict(required or {})
        self.optional = dict(optional or {})

    def validate(self, value, path):
        if not isinstance(value, dict):
            self.fail(value, path)
        for key, schema in self.required.items():
            if key not in value:
                raise Mismatch(path + [key], 'is missing')
            schema.validate(value[key], path + [key])
        for key, schema in self.optional.items():
            if key in value:
                schema.validate(value[key], path + [key])


class _Enum(Schema):

    def __init__(self, values):
        self.values = tuple(values)
        self.expected = 'one of %s' % ', '.join(repr(v) for v in self.values)

    def validate(self, value, path):
        if not any(isinstance(value, bool) == isinstance(known, bool) and value == known for known in self.values):
            raise Mismatch(path, 'must be %s, got %s' % (
                self.expected, repr(value) if isinstance(value, str) else json_type(value)))


class _OneOf(Schema):

    def __init__(self, schemas):
        self.schemas = tuple(schemas)
        self.expected = ' or '.join(schema.expected for schema in self.schemas)

    def validate(self, value, path):
        failures = []
        for schema in self.schemas:
            try:
                schema.validate(value, path)
                return
            except Mismatch as exc:
                failures.append(exc)
        # The alternative that got furthest into the value explains best; none did: say what would do.
        deepest = max(failures, key=lambda exc: len(exc.path))
        if len(deepest.path) > len(path):
            raise deepest
        self.fail(value, path)


class _Tagged(Schema):
    """An object whose shape depends on the value of one of its keys (``exists``, ``type``)."""

    expected = 'an object'

    def __init__(self, key, cases):
        self.key = key
        self.cases = dict(cases)
        self.tag = _Enum(self.cases)

    def validate(self, value, path):
        if not isinstance(value, dict):
            self.fail(value, path)
        if self.key not in value:
            raise Mismatch(path + [self.key], 'is missing')
        tag = value[self.key]
        kind = BOOL if all(isinstance(case, bool) for case in self.cases) else STR
        kind.validate(tag, path + [self.key])
        self.tag.validate(tag, path + [self.key])
        self.cases[tag].validate(value, path)


def nullable(schema):
    """``schema`` or null."""
    return _Nullable(schema)


def list_of(item):
    """A JSON list (never a lone item nor null) whose items match ``item``."""
    return _List(item)


def dict_of(value):
    """A JSON object used as a map: any keys, values matching ``value``."""
    return _Map(value)


def obj(required=None, optional=None):
    """A JSON object: ``required`` keys must be there, ``optional`` ones may; both map names to schemas."""
    return _Object(required, optional)


def enum(*values):
    """One of these values (strings compared exactly)."""
    return _Enum(values)


def one_of(*schemas):
    """A value matching at least one of the schemas."""
    return _OneOf(schemas)


def tagged(key, cases):
    """An object whose ``key`` selects the schema (from ``cases``) the whole object must match."""
    return _Tagged(key, cases)


OBJECT = obj()
_NAME = re.compile(r'^[A-Za-z_][A-Za-z0-9_-]*$')


def format_path(path):
    """['state', 'files', 'C:\\k', 'exists'] -> state.files['C:\\k'].exists; [] -> the result."""
    text = ''
    for part in path:
        if isinstance(part, int):
            text += '[%d]' % part
        elif _NAME.match(part):
            text += ('.' if text else '') + part
        else:
            text += "['%s']" % part
    return text or 'the result'


# -- what the scripts return -------------------------------------------------------

OS = obj(required={
    'hostname': STR,
    'build': INT,
    'system_drive_free_bytes': INT,
}, optional={
    'version': nullable(STR), 'ubr': INT, 'product_name': nullable(STR), 'edition': nullable(STR),
    'display_version': nullable(STR), 'installation_type': nullable(STR), 'last_boot': nullable(STR),
    'now': STR,
    # Win32_OperatingSystem's TotalVisibleMemorySize, SizeStoredInPagingFiles and TotalVirtualMemorySize (KB).
    'memory_kb': INT, 'page_files_kb': INT, 'commit_limit_kb': INT,
    # Get-ExecutionPolicy -List: scope -> policy, in precedence order.
    'execution_policies': dict_of(enum('Unrestricted', 'RemoteSigned', 'AllSigned', 'Restricted', 'Bypass',
                                       'Undefined')),
})

IPV4_ADDRESS = obj(required={'address': STR, 'prefix_length': INT}, optional={'origin': nullable(STR)})
# An adapter's IPv6 addresses but its link-local one (lib/netconfig.ps1 Get-KubeWinIPv6Addresses), the same shape.
IPV6_ADDRESS = IPV4_ADDRESS

ADAPTER = obj(required={
    'name': STR,
    'default_route': BOOL,
    'physical_adapter': nullable(STR),
    'ipv4': list_of(IPV4_ADDRESS),
    'gateway': nullable(STR),
    'dns_servers': list_of(STR),
    'dhcp': BOOL,
}, optional={
    'description': nullable(STR), 'if_index': INT, 'mac_address': nullable(STR), 'status': nullable(STR),
    'virtual': BOOL, 'ipv6': list_of(IPV6_ADDRESS),
})

ROUTE = obj(required={
    'destination': STR,
    'next_hop': STR,
    'interface_alias': nullable(STR),
    'interface_index': INT,
    'metric': INT,
    'active': BOOL,
    'persistent': BOOL,
})

NETWORK = obj(required={
    'id': STR,
    'name': STR,
    'type': STR,
    'subnets': list_of(obj(optional={'address_prefix': nullable(STR), 'gateway': nullable(STR), 'vsid': nullable(INT)})),
    'adapter': nullable(STR),
}, optional={'management_ip': nullable(STR)})

ENDPOINT = obj(required={
    'id': STR,
    'name': nullable(STR),
    'network_id': STR,
    'network_name': nullable(STR),
    'ip_address': nullable(STR),
    'host_attached': BOOL,
}, optional={'mac_address': nullable(STR), 'is_remote': BOOL, 'ipv6_address': nullable(STR)})

POLICY_LIST = obj(required={'id': STR, 'vips': list_of(STR), 'endpoints': list_of(STR)})

HNS = obj(required={
    'available': BOOL,
    'networks': list_of(NETWORK),
    'endpoints': list_of(ENDPOINT),
    'policy_lists': list_of(POLICY_LIST),
})

RECOVERY = obj(required={
    'reset_period_seconds': INT,
    'actions': list_of(obj(required={'type': nullable(STR), 'delay_ms': INT})),
})

NSSM = obj(optional={
    'application': nullable(STR), 'app_parameters': nullable(STR), 'app_directory': nullable(STR),
    'app_stdout': nullable(STR), 'app_stderr': nullable(STR), 'app_rotate_bytes': nullable(INT),
})

SERVICE_FIELDS = {
    'display_name': nullable(STR),
    'description': nullable(STR),
    'state': STR,
    'start_mode': nullable(STR),
    'command_line': nullable(STR),
    'dependencies': list_of(STR),
    'environment': list_of(STR),
    'recovery': nullable(RECOVERY),
    'nssm': nullable(NSSM),
}
# preshutdown_timeout_ms: the service's PreshutdownTimeout (None: the service control manager's default);
# preshutdown_ordered: whether it is in the Control key's PreshutdownOrder.
SERVICE_OPTIONAL = {'account': nullable(STR), 'exit_code': nullable(INT), 'preshutdown_timeout_ms': nullable(INT),
                    'preshutdown_ordered': BOOL}
SERVICE = tagged('exists', {
    False: obj(required={'name': STR}),
    True: obj(required=dict(SERVICE_FIELDS, name=STR), optional=SERVICE_OPTIONAL),
})

FILE = tagged('exists', {
    False: OBJECT,
    True: tagged('type', {
        'file': obj(required={'size': INT, 'sha256': STR, 'acl': STR}),
        'directory': obj(required={'acl': STR}),
    }),
})

ARTIFACT = obj(required={'url': STR, 'checksum': STR},
               optional={'version': nullable(STR), 'files': dict_of(STR)})

CONTENT = tagged('exists', {False: OBJECT, True: obj(required={'text': STR})})

# A task of the collection's task folder (\kubewin\): its actions, its triggers' start and repetition interval.
SCHEDULED_TASK = obj(required={
    'name': STR, 'description': nullable(STR), 'state': STR, 'user_id': nullable(STR), 'run_level': STR,
    'actions': list_of(obj(required={'execute': STR, 'arguments': nullable(STR)})),
    'triggers': list_of(obj(required={'start': nullable(STR), 'interval': nullable(STR)})),
})

FIREWALL_RULE = tagged('exists', {
    False: obj(required={'name': STR}),
    True: obj(required={
        'name': STR,
        'display_name': nullable(STR),
        'enabled': BOOL,
        'direction': STR,
        'action': STR,
        'protocol': STR,
        'local_port': list_of(STR),
        'remote_address': list_of(STR),
    }),
})

# An OVS bridge port: its interface's type ('' for a system port) and error.
PORT = obj(required={'type': nullable(STR), 'error': nullable(STR)})

OVS = obj(required={
    'products': list_of(obj(required={'features': dict_of(nullable(STR))},
                            optional={'product_code': STR, 'name': nullable(STR), 'version': nullable(STR),
                                      'install_location': nullable(STR)})),
    'vsctl': nullable(STR),
    'database': nullable(obj(required={
        'bridges': dict_of(obj(required={'ports': dict_of(PORT)})),
        'external_ids': dict_of(STR),
    })),
    'database_error': nullable(STR),
    'switches': list_of(obj(required={
        'name': STR,
        'adapter': nullable(STR),
        'extension': nullable(obj(required={'enabled': BOOL})),
    })),
})

# The sections of the node state (lib/state.ps1, Get-KubeWinNodeState); each is present when
# ``sections`` names it.
SECTIONS = {
    'os': OS,
    'features': dict_of(STR),
    'adapters': list_of(ADAPTER),
    'routes': list_of(ROUTE),
    'hns': HNS,
    'services': dict_of(SERVICE),
    'files': dict_of(FILE),
    'artifacts': dict_of(ARTIFACT),
    'contents': dict_of(CONTENT),
    'environment': dict_of(nullable(STR)),
    'firewall': dict_of(FIREWALL_RULE),
    'ovs': OVS,
    'scheduled_tasks': dict_of(SCHEDULED_TASK),
    # Per pattern (_credentials.py), the files it matches and their ACL profile.
    'credentials': dict_of(dict_of(STR)),
    # Per registry key asked for (HKLM:\\...), whether it exists and, when it does, its values: the kind as
    # RegistryValueKind names it (DWord, String...) and the data as stored.
    'registry': dict_of(obj(required={'exists': BOOL},
                            optional={'values': dict_of(obj(required={'kind': STR, 'data': ANY}))})),
    # Remote Access as a LAN router (calico's bgp backend): whether its module is there, RoutingStatus, the service.
    'remote_access': obj(required={'module': BOOL, 'routing': nullable(STR), 'service': nullable(STR),
                                   'start_type': nullable(STR)}),
    # gMSA (_gmsa.py): the domain membership, HNS's EnableCompartmentNamespace, the CCG plugins registered.
    'gmsa': obj(required={'part_of_domain': BOOL, 'domain': nullable(STR), 'compartment_namespace': nullable(INT),
                          'ccg_plugins': nullable(list_of(STR))}),
    # csi-proxy (_csi_proxy.py): the named pipes it serves now.
    'csi_proxy': obj(required={'pipes': list_of(STR)}),
    # Per folder asked for (the node layout's), the names in it, null when it is missing (_snapshot.py).
    'folders': dict_of(nullable(list_of(STR))),
    # Per protocol, the dynamic port range (netsh show dynamicport; null where its text had not two numbers) and the
    # excluded port ranges, administered ones added with netsh (_port_ranges.py).
    'ports': dict_of(obj(required={'dynamic_start': nullable(INT), 'dynamic_count': nullable(INT),
                                   'excluded': list_of(obj(required={'start': INT, 'end': INT, 'administered': BOOL}))})),
    # Microsoft Defender Antivirus (_defender.py): its module there, its service answering, its exclusion lists.
    'defender': obj(required={'installed': BOOL, 'running': BOOL, 'exclusion_path': list_of(STR),
                              'exclusion_process': list_of(STR)}),
}


class _NodeState(Schema):
    """The node state: ``sections`` lists the sections it holds, and each of them must be there."""

    expected = 'an object'

    shape = obj(required={'sections': list_of(STR)}, optional=dict(SECTIONS, reboot_pending=BOOL))

    def validate(self, value, path):
        self.shape.validate(value, path)
        for section in value['sections']:
            if section in SECTIONS and section not in value:
                raise Mismatch(path + [section], 'is missing (sections names it)')
        if 'features' in value['sections'] and 'reboot_pending' not in value:
            raise Mismatch(path + ['reboot_pending'], 'is missing (it comes with the features section)')


NODE_STATE = _NodeState()

WORKER_OUTCOME = {'operation_id': STR, 'state': enum('done', 'failed'), 'error': nullable(STR)}

HNS_NETWORK_WORKER = obj(required=dict(WORKER_OUTCOME, created=nullable(NETWORK), removed=list_of(STR), ip_restored=BOOL))

OPENVSWITCH_WORKER = obj(required=dict(
    WORKER_OUTCOME, stopped=list_of(STR), bridge_removed=BOOL, external_ids_removed=list_of(STR), installed=BOOL,
    reboot_required=BOOL, bridge_rebuilt=BOOL, external_ids_set=list_of(STR), started=list_of(STR)))

NODE_LOGS_SERVICE = tagged('exists', {
    False: obj(required={'name': STR, 'log_files': list_of(STR)}),
    True: obj(required=dict(SERVICE_FIELDS, name=STR, log_files=list_of(STR)), optional=SERVICE_OPTIONAL),
})

EVENT = obj(required={'time': STR, 'level': nullable(STR), 'message': nullable(STR)})

LOG_TAIL = tagged('exists', {False: OBJECT, True: obj(required={'size': INT, 'truncated': BOOL, 'text': STR})})

STATE_ONLY = obj(required={'state': NODE_STATE})

# What the node's log rotation task did in its last run (last-run.json beside its configuration).
LOG_ROTATE = obj(required={'finished': STR, 'logs': list_of(obj(required={
    'path': STR, 'rotated_to': nullable(STR), 'removed': list_of(STR), 'error': nullable(STR)}))})

# Scripts that return nothing to a module: kube_proxy_start is the entry point of the kube-proxy-windows
# DaemonSet's container (_kube_proxy_daemonset), and runs kube-proxy until the pod stops.
WITHOUT_RESULT = ('kube_proxy_start',)

# Script name -> (the name of the result's root in messages, its schema).
CONTRACTS = {
    'node_info': ('state', NODE_STATE),
    'artifact_stage': ('', obj(required={'artifacts': list_of(obj(required={
        'url': STR, 'state': enum('present', 'downloaded', 'pending'), 'path': nullable(STR), 'sha': nullable(STR),
        'bytes': nullable(INT), 'seconds': nullable(NUMBER), 'attempts': INT}))})),
    'artifact_fetch': ('', obj(required={'artifacts': list_of(obj(required={
        'attempts': INT, 'bytes': INT, 'seconds': nullable(NUMBER), 'sha': STR})), 'state': NODE_STATE})),
    'defender_apply': ('', STATE_ONLY),
    'detached_start': ('', obj(required={'operation_id': STR, 'process_id': INT})),
    # The worker's own result is checked against the worker's contract by run_detached.
    'detached_status': ('', obj(required={
        'operation_id': STR,
        'state': enum('running', 'done', 'failed', 'unknown'),
        'result': nullable(obj(required=WORKER_OUTCOME)),
    })),
    'file_write': ('', STATE_ONLY),
    'firewall_rule_apply': ('', STATE_ONLY),
    'hns_endpoint_apply': ('', obj(required={'removed': list_of(STR), 'endpoint': nullable(ENDPOINT), 'state': NODE_STATE})),
    'hns_network_apply': ('', obj(required={'removed': list_of(STR), 'created': nullable(NETWORK), 'state': NODE_STATE})),
    'hns_network_worker': ('result', HNS_NETWORK_WORKER),
    'gmsa_apply': ('', STATE_ONLY),
    'kubeadm_join': ('', STATE_ONLY),
    'log_rotate': ('last_run', LOG_ROTATE),
    'node_logs': ('', obj(required={
        'hostname': STR,
        'collected_at': STR,
        'services': dict_of(NODE_LOGS_SERVICE),
        'logs': dict_of(LOG_TAIL),
        'events': dict_of(list_of(EVENT)),
        'event_logs': dict_of(list_of(EVENT)),
        # HNS objects as HNS returns them: only their number and shape (objects) are relied on.
        'hns': obj(required={'available': BOOL, 'networks': list_of(OBJECT), 'endpoints': list_of(OBJECT),
                             'policy_lists': list_of(OBJECT)}),
        'ovs': OVS,
    })),
    'node_credentials_apply': ('', STATE_ONLY),
    'node_repair_apply': ('', STATE_ONLY),
    'node_reset_apply': ('', STATE_ONLY),
    'node_routes_apply': ('', STATE_ONLY),
    'node_service_apply': ('', STATE_ONLY),
    'openvswitch_worker': ('result', OPENVSWITCH_WORKER),
    'port_ranges_apply': ('', STATE_ONLY),
    'registry_values_apply': ('', STATE_ONLY),
    'remote_access_routing_apply': ('', STATE_ONLY),
    'scheduled_task_apply': ('', STATE_ONLY),
    'source_vip_apply': ('', STATE_ONLY),
}


def check(script, document):
    """Return ``document`` when it is what script ``script`` promises, else raise ScriptError naming the field."""
    if script not in CONTRACTS:
        raise ScriptError(script, 'has no result contract (plugins/plugin_utils/_contracts.py)')
    root, schema = CONTRACTS[script]
    try:
        schema.validate(document, [root] if root else [])
    except Mismatch as exc:
        raise ScriptError(script, '%s %s' % (format_path(exc.path), exc.message))
    return document
