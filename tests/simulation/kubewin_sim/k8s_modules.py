"""What the fake kubernetes.core modules do, against the simulated cluster (cluster.py).

Each module keeps the real module's argument spec, so a task that passes the real
modules' validation passes here; options the simulation does not implement fail
the task when set instead of being ignored silently (tests/simulation/README.md
lists what is honoured). Authentication options are accepted and ignored: there is
one cluster, in ``$KUBEWIN_SIM_STATE_DIR/cluster.json``.

The ``wait`` of k8s and k8s_info polls as the real module does (kubernetes.core module_utils/k8s/waiter.py: a read,
then ``wait_sleep`` seconds of sleep, until the condition holds or ``wait_timeout`` seconds have passed), on the
cluster's simulated clock (cluster.py): each sleep moves that clock on at once instead of passing on the test
machine, so a wait ends after the same polls whatever the machine's load, and the duration it reports is simulated.
"""

import copy
import json
import os
import time

import yaml

from kubewin_sim import fake
from kubewin_sim.cluster import REQUEST_SECONDS, open_cluster
from kubewin_sim.k8s_objects import ApiError, meaningful_diff

AUTH_SPEC = {
    'host': {'type': 'str'},
    'api_key': {'type': 'str', 'no_log': True},
    'kubeconfig': {'type': 'raw'},
    'context': {'type': 'str'},
    'username': {'type': 'str'},
    'password': {'type': 'str', 'no_log': True},
    'client_cert': {'type': 'path', 'aliases': ['cert_file']},
    'client_key': {'type': 'path', 'aliases': ['key_file'], 'no_log': False},
    'ca_cert': {'type': 'path', 'aliases': ['ssl_ca_cert']},
    'validate_certs': {'type': 'bool', 'aliases': ['verify_ssl']},
    'proxy': {'type': 'str'},
    'no_proxy': {'type': 'str'},
    'proxy_headers': {'type': 'dict', 'options': {
        'proxy_basic_auth': {'type': 'str', 'no_log': True},
        'basic_auth': {'type': 'str', 'no_log': True},
        'user_agent': {'type': 'str'}}},
    'persist_config': {'type': 'bool'},
    'impersonate_user': {'type': 'str'},
    'impersonate_groups': {'type': 'list', 'elements': 'str'},
}

NAME_SPEC = {
    'api_version': {'type': 'str', 'default': 'v1', 'aliases': ['api', 'version']},
    'kind': {'type': 'str'},
    'name': {'type': 'str'},
    'namespace': {'type': 'str'},
}

WAIT_SPEC = {
    'wait': {'type': 'bool', 'default': False},
    'wait_sleep': {'type': 'int', 'default': 5},
    'wait_timeout': {'type': 'int', 'default': 120},
    'wait_condition': {'type': 'dict', 'options': {
        'type': {'type': 'str'},
        'status': {'type': 'str', 'default': 'True', 'choices': ['True', 'False', 'Unknown']},
        'reason': {'type': 'str'}}},
}

K8S_SPEC = dict(AUTH_SPEC, **NAME_SPEC, **WAIT_SPEC)
K8S_SPEC.update({
    'resource_definition': {'type': 'raw', 'aliases': ['definition', 'inline']},
    'src': {'type': 'path'},
    'state': {'type': 'str', 'default': 'present', 'choices': ['absent', 'present', 'patched']},
    'force': {'type': 'bool', 'default': False},
    'merge_type': {'type': 'list', 'elements': 'str', 'choices': ['merge', 'strategic-merge']},
    'validate': {'type': 'dict', 'options': {'fail_on_error': {'type': 'bool'}, 'version': {'type': 'str'},
                                             'strict': {'type': 'bool', 'default': True}}},
    'append_hash': {'type': 'bool', 'default': False},
    'apply': {'type': 'bool', 'default': False},
    'template': {'type': 'raw'},
    'continue_on_error': {'type': 'bool', 'default': False},
    'label_selectors': {'type': 'list', 'elements': 'str'},
    'generate_name': {'type': 'str'},
    'server_side_apply': {'type': 'dict', 'options': {'field_manager': {'type': 'str', 'required': True},
                                                      'force_conflicts': {'type': 'bool', 'default': False}}},
    'delete_all': {'type': 'bool', 'default': False, 'aliases': ['all']},
    'hidden_fields': {'type': 'list', 'elements': 'str'},
    'delete_options': {'type': 'dict', 'options': {
        'propagationPolicy': {'type': 'str', 'choices': ['Foreground', 'Background', 'Orphan']},
        'gracePeriodSeconds': {'type': 'int'},
        'preconditions': {'type': 'dict', 'options': {'resourceVersion': {'type': 'str'}, 'uid': {'type': 'str'}}}}},
})

K8S_INFO_SPEC = dict(AUTH_SPEC, **NAME_SPEC, **WAIT_SPEC)
K8S_INFO_SPEC.update({
    'kind': {'type': 'str', 'required': True},
    'label_selectors': {'type': 'list', 'elements': 'str', 'default': []},
    'field_selectors': {'type': 'list', 'elements': 'str', 'default': []},
    'hidden_fields': {'type': 'list', 'elements': 'str'},
})

K8S_CLUSTER_INFO_SPEC = dict(AUTH_SPEC, invalidate_cache={'type': 'bool', 'default': True})

K8S_DRAIN_SPEC = dict(AUTH_SPEC)
K8S_DRAIN_SPEC.update({
    'state': {'default': 'drain', 'choices': ['cordon', 'drain', 'uncordon']},
    'name': {'required': True},
    'delete_options': {'type': 'dict', 'default': {}, 'options': {
        'terminate_grace_period': {'type': 'int'},
        'force': {'type': 'bool', 'default': False},
        'ignore_daemonsets': {'type': 'bool', 'default': False},
        'delete_emptydir_data': {'type': 'bool', 'default': False},
        'disable_eviction': {'type': 'bool', 'default': False},
        'wait_timeout': {'type': 'int'},
        'wait_sleep': {'type': 'int', 'default': 5}}},
    'pod_selectors': {'type': 'list', 'elements': 'str', 'aliases': ['label_selectors']},
})

# Options of kubernetes.core.k8s the simulation does not implement: a task setting them fails.
K8S_UNSUPPORTED = {'src': None, 'force': False, 'validate': None, 'append_hash': False, 'apply': False,
                   'template': None, 'continue_on_error': False, 'label_selectors': None, 'generate_name': None,
                   'server_side_apply': None, 'delete_all': False, 'hidden_fields': None}
K8S_INFO_UNSUPPORTED = {'hidden_fields': None}

CLIENT_VERSION = '31.0.0'


def state_dir():
    return os.environ[fake.STATE_DIR_ENV]


def refuse_unsupported(module, unsupported):
    for option, default in unsupported.items():
        if module.params.get(option) != default:
            module.fail_json(msg='the simulated kubernetes.core does not implement option %r '
                                 '(tests/simulation/README.md lists what it honours)' % option)


def api_failure(module, verb, error, **result):
    body = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
            'message': error.message, 'reason': error.reason, 'code': error.status}
    module.fail_json(msg='Failed to %s object: %s' % (verb, json.dumps(body)), error=error.status,
                     status=error.status, reason=error.reason, **result)


# -- waiting ------------------------------------------------------------------------------------------

def _condition_met(obj, condition):
    for entry in (obj.get('status') or {}).get('conditions') or []:
        if entry.get('type') == condition['type']:
            if entry.get('status') != condition.get('status', 'True'):
                return False
            return not condition.get('reason') or entry.get('reason') == condition['reason']
    return False


def _ready(obj):
    """kubernetes.core's readiness rules for the kinds it waits on by default."""
    status = obj.get('status') or {}
    kind = obj['kind']
    if kind == 'Deployment':
        return bool(status and obj['spec'].get('replicas') == status.get('replicas', 0)
                    and status.get('availableReplicas') == status.get('replicas')
                    and status.get('observedGeneration') == obj['metadata'].get('generation')
                    and not status.get('unavailableReplicas'))
    if kind == 'DaemonSet':
        return bool(status and status.get('desiredNumberScheduled') is not None
                    and status.get('updatedNumberScheduled', 0) == status['desiredNumberScheduled']
                    and status.get('numberReady') == status['desiredNumberScheduled']
                    and status.get('observedGeneration') == obj['metadata'].get('generation')
                    and not status.get('numberUnavailable'))
    if kind == 'Pod':
        statuses = status.get('containerStatuses')
        return statuses is not None and all(s.get('ready') for s in statuses)
    return True


def satisfied(obj, condition):
    if obj is None:
        return False
    if condition and condition.get('type'):
        return _condition_met(obj, condition)
    return _ready(obj)


# The test machine's seconds a poll pauses when a kubelet could not act because another holder had its node's lock
# (hostprocess.py, Cluster.held_nodes): the simulation's own lock, so neither the cluster's time nor the wait's.
HELD_PAUSE_SECONDS = 0.2


def poll(params, read):
    """Poll the cluster (a fresh lock and reconcile each time) until ``read(cluster)`` gives (True, value) or
    ``wait_timeout`` seconds have passed on the cluster's clock; between two polls the client sleeps ``wait_sleep``
    seconds (at least a request's, cluster.REQUEST_SECONDS), which the cluster's clock lives through at once.
    Returns (done, value, seconds waited)."""
    sleep = max(float(params['wait_sleep']), REQUEST_SECONDS)
    waited = 0
    while True:
        with open_cluster(state_dir()) as cluster:
            done, value = read(cluster)
            held = bool(cluster.held_nodes)
            if not done and waited < params['wait_timeout'] and not held:
                cluster.pass_time(sleep)
        if done or waited >= params['wait_timeout']:
            return done, value, round(waited)
        if held:
            time.sleep(HELD_PAUSE_SECONDS)
        else:
            waited += sleep


def wait_for(module, kind, namespace, name, condition, absent=False):
    """Poll the cluster until the object is as wanted: (done, the object, seconds waited)."""
    def read(cluster):
        obj = cluster.get(kind, namespace, name)
        return (obj is None if absent else satisfied(obj, condition)), obj
    return poll(module.params, read)


# -- kubernetes.core.k8s -------------------------------------------------------------------------------

def definitions(module):
    params = module.params
    given = params['resource_definition']
    if isinstance(given, str):
        documents = [d for d in yaml.safe_load_all(given) if d]
    elif isinstance(given, list):
        documents = [d for d in given if d]
    elif isinstance(given, dict):
        documents = [given]
    else:
        if not params['kind'] or not params['name']:
            module.fail_json(msg='the simulated kubernetes.core.k8s needs a resource_definition, or kind and name')
        documents = [{'apiVersion': params['api_version'], 'kind': params['kind'],
                      'metadata': {'name': params['name']}}]
    result = []
    for document in documents:
        document = copy.deepcopy(document)
        if not isinstance(document, dict) or not document.get('kind'):
            module.fail_json(msg='every resource definition needs a kind: %r' % (document,))
        metadata = document.setdefault('metadata', {})
        if params['namespace'] and not metadata.get('namespace'):
            metadata['namespace'] = params['namespace']
        if params['name'] and not metadata.get('name'):
            metadata['name'] = params['name']
        document.setdefault('apiVersion', params['api_version'])
        result.append(document)
    return result


def perform(module, cluster, definition):
    """One definition: returns the module result for it (raises ApiError)."""
    params = module.params
    kind = definition['kind']
    namespaced = cluster.resolve(definition.get('apiVersion'), kind)[1]
    name = definition['metadata'].get('name')
    namespace = definition['metadata'].get('namespace') or ('default' if namespaced else None)
    existing = cluster.get(kind, namespace, name)
    result = {'changed': False, 'result': {}}
    if params['state'] == 'absent':
        result['method'] = 'delete'
        if existing is not None:
            result['result'] = cluster.delete(kind, namespace, name)
            result['changed'] = True
        return result
    if existing is None:
        if params['state'] == 'patched':
            result['warnings'] = ["resource 'kind=%s,name=%s' was not found but will not be created as 'state' "
                                  "parameter has been set to 'patched'" % (kind, name)]
            return result
        cluster.create_meanwhile(kind, name, definition)
        try:
            result.update(method='create', changed=True, result=cluster.create(definition))
        except ApiError as error:
            if error.status != 409:
                raise
            # kubernetes.core's K8sService.create (plugins/module_utils/k8s/service.py) catches the 409 Conflict of a
            # create and returns a warning, changed false and an empty result.
            result.update(method='create', changed=False, result={},
                          warnings=['%s was not found, but creating it returned a 409 Conflict error' % name])
        return result
    # kubernetes.core's K8sService.update (plugins/module_utils/k8s/service.py) tries each merge type in turn,
    # by default a strategic merge patch, then a JSON merge patch (what custom resources accept).
    merge_types = params['merge_type'] or ['strategic-merge', 'merge']
    for index, merge_type in enumerate(merge_types):
        try:
            before, after = cluster.patch(kind, namespace, name, definition, merge_type)
            break
        except ApiError:
            if index == len(merge_types) - 1:
                raise
    diff = meaningful_diff(before, after)
    result.update(method='update', changed=diff is not None, result=after)
    if module._diff and diff is not None:  # pylint: disable=protected-access
        result['diff'] = diff
    return result


def run_k8s(module):
    refuse_unsupported(module, K8S_UNSUPPORTED)
    results = []
    with open_cluster(state_dir()) as cluster:
        saved = copy.deepcopy(cluster.data) if module.check_mode else None
        documents = definitions(module)
        cluster.count_call('k8s:%s' % '+'.join(sorted({d['kind'] for d in documents})))
        try:
            for document in documents:
                results.append(perform(module, cluster, document))
        except ApiError as error:
            verb = {'absent': 'delete'}.get(module.params['state'], 'create or patch')
            if saved is not None:
                cluster.data = dict(saved, calls=cluster.data['calls'])
            api_failure(module, verb, error)
        if saved is not None:
            # Check mode is the API server's dry run: computed, never stored.
            cluster.data = dict(saved, calls=cluster.data['calls'])
        else:
            cluster.reconcile()
    if module.params['wait'] and not module.check_mode:
        for document, result in zip(documents, results):
            if not result['result'] and result['method'] != 'delete':
                continue
            metadata = document['metadata']
            namespace = metadata.get('namespace') or 'default'
            success, obj, duration = wait_for(module, document['kind'], namespace, metadata['name'],
                                              module.params['wait_condition'], absent=result['method'] == 'delete')
            result['duration'] = duration
            if result['method'] != 'delete' and obj is not None:
                result['result'] = obj
            if not success:
                module.fail_json(msg='"%s" "%s": Timed out waiting on resource' % (document['kind'], metadata['name']),
                                 **result)
    if len(results) == 1:
        module.exit_json(**results[0])
    module.exit_json(changed=any(r['changed'] for r in results), result={'results': results})


# -- kubernetes.core.k8s_info ---------------------------------------------------------------------------

def _find(cluster, params):
    if params['name']:
        found = cluster.get(params['kind'], params['namespace'], params['name'])
        return [found] if found is not None else []
    return cluster.list(params['kind'], params['namespace'], params['label_selectors'], params['field_selectors'])


def run_k8s_info(module):
    refuse_unsupported(module, K8S_INFO_UNSUPPORTED)
    params = module.params
    with open_cluster(state_dir()) as cluster:
        cluster.count_call('k8s_info:%s' % params['kind'])
        try:
            cluster.resolve(params['api_version'], params['kind'])
        except ApiError:
            module.exit_json(changed=False, api_found=False, resources=[],
                             msg='Failed to find API for resource with apiVersion "%s" and kind "%s"'
                                 % (params['api_version'], params['kind']))
        try:
            resources = _find(cluster, params)
        except ApiError as error:
            api_failure(module, 'get', error)
    if not params['wait']:
        module.exit_json(changed=False, api_found=True, resources=resources)
    if not resources:
        def found(cluster):
            items = _find(cluster, params)
            return bool(items), items
        resources = poll(params, found)[1]
    waited = []
    for resource in resources:
        metadata = resource['metadata']
        success, obj, duration = wait_for(module, params['kind'], metadata.get('namespace'), metadata['name'],
                                          params['wait_condition'])
        if not success:
            module.fail_json(msg='Failed to gather information about %s(s) even after waiting for %s seconds'
                                 % (params['kind'], duration))
        waited.append(obj)
    module.exit_json(changed=False, api_found=True, resources=waited)


# -- kubernetes.core.k8s_cluster_info -------------------------------------------------------------------

def run_k8s_cluster_info(module):
    from kubewin_sim.cluster import api_endpoint, minor_of  # pylint: disable=import-outside-toplevel
    with open_cluster(state_dir()) as cluster:
        cluster.count_call('k8s_cluster_info')
        profile = cluster.profile
        kinds = cluster.kinds()
    major, minor = minor_of(profile['version'])
    apis = {}
    for kind, (group_version, namespaced) in kinds.items():
        plural = kind.lower() + ('es' if kind.endswith('s') else 's')
        apis.setdefault(group_version, {})[kind] = {
            'categories': [], 'name': plural, 'namespaced': namespaced, 'preferred': True,
            'short_names': [], 'singular_name': kind.lower()}
    module.exit_json(changed=False, apis=apis, connection={
        'cert_file': None, 'host': 'https://%s' % api_endpoint(profile), 'password': None, 'proxy': None,
        'ssl_ca_cert': None, 'username': None, 'verify_ssl': True,
    }, version={'client': CLIENT_VERSION, 'server': {'kubernetes': {
        'major': str(major), 'minor': str(minor), 'gitVersion': profile['version'],
        'gitTreeState': 'clean', 'buildDate': '2024-12-10T11:37:24Z', 'goVersion': 'go1.22.9',
        'compiler': 'gc', 'platform': 'linux/amd64'}}})


# -- kubernetes.core.k8s_drain ---------------------------------------------------------------------------

MIRROR_ANNOTATION = 'kubernetes.io/config.mirror'


def drain_plan(pods, options):
    """The real module's filter_pods: (pods to evict, warnings, errors), each pod as (namespace, name)."""
    daemon_set, unmanaged, mirror, local_storage, to_delete = [], [], [], [], []
    for pod in pods:
        metadata = pod['metadata']
        key = (metadata['namespace'], metadata['name'])
        if MIRROR_ANNOTATION in (metadata.get('annotations') or {}):
            mirror.append(key)
            continue
        if (pod.get('status') or {}).get('phase') in ('Succeeded', 'Failed'):
            to_delete.append(key)
            continue
        if any('emptyDir' in volume for volume in (pod.get('spec') or {}).get('volumes') or []):
            local_storage.append(key)
            continue
        owners = metadata.get('ownerReferences') or []
        if not owners:
            unmanaged.append(key)
        for owner in owners:
            (daemon_set if owner.get('kind') == 'DaemonSet' else to_delete).append(key)

    def names(keys):
        return ','.join('%s/%s' % key for key in keys)

    warnings, errors = [], []
    if unmanaged:
        if not options['force']:
            errors.append('cannot delete Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or '
                          'StatefulSet (use option force set to yes): %s.' % names(unmanaged))
        else:
            warnings.append('Deleting Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or '
                            'StatefulSet: %s.' % names(unmanaged))
            to_delete += unmanaged
    if mirror:
        warnings.append('cannot delete mirror Pods using API server: %s.' % names(mirror))
    if local_storage:
        if not options['delete_emptydir_data']:
            errors.append('cannot delete Pods with local storage: %s.' % names(local_storage))
        else:
            warnings.append('Deleting Pods with local storage: %s.' % names(local_storage))
            to_delete += local_storage
    if daemon_set:
        if not options['ignore_daemonsets']:
            errors.append('cannot delete DaemonSet-managed Pods (use option ignore_daemonset set to yes): %s.'
                          % names(daemon_set))
        else:
            warnings.append('Ignoring DaemonSet-managed Pods: %s.' % names(daemon_set))
    return to_delete, warnings, errors


def _set_unschedulable(cluster, name, value):
    cluster.patch('Node', None, name, {'spec': {'unschedulable': value}})


def _drain(cluster, params):
    """One k8s_drain run against the cluster: (result, failure message or None)."""
    name, state = params['name'], params['state']
    options = params['delete_options'] or {}
    node = cluster.get('Node', None, name)
    if node is None:
        return {}, 'Node %s not found.' % name
    unschedulable = bool((node.get('spec') or {}).get('unschedulable'))
    if state in ('cordon', 'uncordon'):
        wanted = state == 'cordon'
        if unschedulable == wanted:
            return {'changed': False, 'result': 'node %s already marked %s.'
                    % (name, 'unschedulable' if wanted else 'schedulable')}, None
        _set_unschedulable(cluster, name, wanted)
        return {'changed': True, 'result': 'node %s marked %s.'
                % (name, 'unschedulable' if wanted else 'schedulable')}, None
    changed = False
    result = []
    if not unschedulable:
        _set_unschedulable(cluster, name, True)
        changed = True
        result.append('node %s marked unschedulable.' % name)
    else:
        result.append('node %s already marked unschedulable.' % name)
    label_selectors = [','.join(params['pod_selectors'])] if params['pod_selectors'] else []
    pods = cluster.list('Pod', None, label_selectors, ['spec.nodeName=%s' % name])
    to_delete, warnings, errors = drain_plan(pods, options)
    if errors:
        if changed:
            _set_unschedulable(cluster, name, False)
        return {}, 'Pod deletion errors: %s' % ' '.join(errors)
    for namespace, pod_name in to_delete:
        # An eviction (or, with disable_eviction, a delete) removes the pod; its controller makes
        # a new one, which the scheduler keeps off the cordoned node. An eviction a disruption budget refuses fails
        # the module at once, the node left cordoned and the pods evicted before gone (the real module's evict_pods
        # calls fail_json with the Status message, format_dynamic_api_exc; it neither retries nor uncordons).
        refusal = None if options.get('disable_eviction') else cluster.eviction_refusal(namespace, pod_name)
        if refusal:
            return {}, 'Failed to delete pod %s/%s due to: %s' % (namespace, pod_name, refusal[0])
        cluster.delete('Pod', namespace, pod_name)
        changed = True
    if to_delete:
        result.append('%d Pod(s) deleted from node.' % len(to_delete))
    answer = {'changed': changed, 'result': ' '.join(result)}
    if warnings:
        answer['warnings'] = warnings
    return answer, None


def run_k8s_drain(module):
    """Cordon, drain or uncordon as the real module does; an eviction honours the PodDisruptionBudgets."""
    with open_cluster(state_dir()) as cluster:
        cluster.count_call('k8s_drain:%s' % module.params['state'])
        answer, failure = _drain(cluster, module.params)
        cluster.reconcile()
    if failure:
        module.fail_json(msg=failure)
    module.exit_json(**answer)
