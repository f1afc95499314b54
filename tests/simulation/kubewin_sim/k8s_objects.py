"""How the simulated Kubernetes API treats objects: patches, selectors, diffs.

Only what the collection's roles rely on is implemented, but faithfully:

- strategic merge patch: maps merge key by key, ``null`` deletes a key, lists
  whose schema has a patch merge key (containers and env by ``name``, container
  ports by ``containerPort``, Service ports by ``port``, ...) merge item by
  item, every other list is replaced;
- JSON merge patch (RFC 7386): maps merge, ``null`` deletes, lists are replaced;
- label selectors (equality- and set-based) and field selectors as the API
  server parses them, with the API server's error for an unsupported field;
- the recursive diff kubernetes.core reports and decides ``changed`` from.
"""

import copy
import re


class ApiError(Exception):
    """An error the API server would answer with (status code, reason, message)."""

    def __init__(self, status, reason, message):
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message

    def as_dict(self):
        return {'status': self.status, 'reason': self.reason, 'message': self.message}


# -- patches -------------------------------------------------------------------------------------

# Patch merge keys of the lists the roles touch, by the list's field name and the kind of object
# that holds it (a Service's ports merge by port, a container's by containerPort).
_MERGE_KEYS = {
    'containers': 'name',
    'initContainers': 'name',
    'ephemeralContainers': 'name',
    'env': 'name',
    'volumes': 'name',
    'volumeMounts': 'mountPath',
    'imagePullSecrets': 'name',
    'conditions': 'type',
    'ownerReferences': 'uid',
}


def _merge_key(path, field):
    if field == 'ports':
        # spec.ports of a Service; containers[].ports of a pod template
        return 'port' if path == ('spec',) else 'containerPort'
    return _MERGE_KEYS.get(field)


def strategic_merge(original, patch, path=()):
    """Apply a strategic merge patch to ``original`` (not modified); returns the result."""
    if not isinstance(patch, dict) or not isinstance(original, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(original)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = strategic_merge(result[key], value, path + (key,))
        elif isinstance(value, list) and isinstance(result.get(key), list) and _merge_key(path, key):
            result[key] = _merge_list(result[key], value, _merge_key(path, key), path + (key, '*'))
        else:
            result[key] = copy.deepcopy(value)
    return result


def _merge_list(original, patch, merge_key, path):
    merged = copy.deepcopy(original)
    for item in patch:
        if not isinstance(item, dict) or merge_key not in item:
            raise ApiError(422, 'Invalid', 'map: %r does not contain declared merge key: %s' % (item, merge_key))
        for index, existing in enumerate(merged):
            if isinstance(existing, dict) and existing.get(merge_key) == item[merge_key]:
                merged[index] = strategic_merge(existing, item, path)
                break
        else:
            merged.append(copy.deepcopy(item))
    return merged


def json_merge(original, patch):
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(original) if isinstance(original, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = json_merge(result.get(key), value)
    return result


# -- diffs -------------------------------------------------------------------------------------------

def recursive_diff(before, after):
    """(before-only, after-only) parts of two dicts, or None when they are equal (kubernetes.core's rule)."""
    if before == after:
        return None
    if not isinstance(before, dict) or not isinstance(after, dict):
        return before, after
    left, right = {}, {}
    for key in set(before) | set(after):
        if key not in after:
            left[key] = before[key]
        elif key not in before:
            right[key] = after[key]
        else:
            sub = recursive_diff(before[key], after[key])
            if sub is not None:
                left[key], right[key] = sub
    return left, right


def meaningful_diff(before, after):
    """The diff kubernetes.core reports, or None when only generation/resourceVersion differ."""
    diff = recursive_diff(before, after)
    if diff is None:
        return None
    left, right = diff
    if set(left) <= {'metadata'} and set(right) <= {'metadata'}:
        ignored = {'generation', 'resourceVersion'}
        if set(left.get('metadata', {})) <= ignored and set(right.get('metadata', {})) <= ignored:
            return None
    return {'before': left, 'after': right}


# -- selectors ---------------------------------------------------------------------------------------

_LABEL_KEY = r'(?:[a-z0-9A-Z.\-]+/)?[a-zA-Z0-9]([a-zA-Z0-9_.\-]*[a-zA-Z0-9])?'
_SET_RE = re.compile(r'^\s*(%s)\s+(in|notin)\s+\(([^)]*)\)\s*$' % _LABEL_KEY)
_EQUALITY_RE = re.compile(r'^\s*(%s)\s*(==|=|!=)\s*([A-Za-z0-9_.\-]*)\s*$' % _LABEL_KEY)
_EXISTS_RE = re.compile(r'^\s*(!?)\s*(%s)\s*$' % _LABEL_KEY)


def _split_requirements(selector):
    """Split at commas that are not inside a set's parentheses."""
    parts, depth, current = [], 0, ''
    for char in selector:
        if char == '(':
            depth += 1
        elif char == ')':
            depth -= 1
        if char == ',' and depth == 0:
            parts.append(current)
            current = ''
        else:
            current += char
    if current.strip():
        parts.append(current)
    return parts


def parse_label_selector(selector):
    """A list of (key, operator, values) requirements; raises the API's error for bad syntax."""
    requirements = []
    for part in _split_requirements(selector or ''):
        match = _SET_RE.match(part)
        if match:
            values = [v.strip() for v in match.group(4).split(',') if v.strip()]
            requirements.append((match.group(1), match.group(3), values))
            continue
        match = _EQUALITY_RE.match(part)
        if match:
            operator = '!=' if match.group(3) == '!=' else '='
            requirements.append((match.group(1), operator, [match.group(4)]))
            continue
        match = _EXISTS_RE.match(part)
        if match:
            requirements.append((match.group(2), '!' if match.group(1) else 'exists', []))
            continue
        raise ApiError(400, 'BadRequest', 'unable to parse requirement: %r' % part.strip())
    return requirements


def labels_match(labels, requirements):
    labels = labels or {}
    for key, operator, values in requirements:
        present = key in labels
        if operator == '=' and labels.get(key) != values[0]:
            return False
        if operator == '!=' and present and labels[key] == values[0]:
            return False
        if operator == 'in' and (not present or labels[key] not in values):
            return False
        if operator == 'notin' and present and labels[key] in values:
            return False
        if operator == 'exists' and not present:
            return False
        if operator == '!' and present:
            return False
    return True


# Field selectors each kind's API supports (the subset the simulation models).
FIELD_SELECTORS = {
    None: ('metadata.name', 'metadata.namespace'),
    'Secret': ('type',),
    'Pod': ('spec.nodeName', 'status.phase'),
    'Node': ('spec.unschedulable',),
}


def _field_value(obj, field):
    value = obj
    for part in field.split('.'):
        value = value.get(part) if isinstance(value, dict) else None
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return '' if value is None else str(value)


def parse_field_selector(kind, selector):
    requirements = []
    allowed = FIELD_SELECTORS[None] + FIELD_SELECTORS.get(kind, ())
    for part in _split_requirements(selector or ''):
        match = re.match(r'^\s*([A-Za-z.]+)\s*(==|=|!=)\s*(.*?)\s*$', part)
        if not match:
            raise ApiError(400, 'BadRequest', 'invalid selector: %r; can\'t understand %r' % (selector, part))
        if match.group(1) not in allowed:
            raise ApiError(400, 'BadRequest', 'field label not supported: %s' % match.group(1))
        requirements.append((match.group(1), match.group(2) == '!=', match.group(3)))
    return requirements


def fields_match(obj, requirements):
    for field, negated, value in requirements:
        if (_field_value(obj, field) == value) == negated:
            return False
    return True


# -- scheduling predicates ---------------------------------------------------------------------------

def _expression_matches(labels, expression):
    key, operator, values = expression['key'], expression['operator'], expression.get('values') or []
    if operator == 'In':
        return labels.get(key) in values
    if operator == 'NotIn':
        return key not in labels or labels[key] not in values
    if operator == 'Exists':
        return key in labels
    if operator == 'DoesNotExist':
        return key not in labels
    if operator in ('Gt', 'Lt'):
        try:
            number, bound = int(labels.get(key)), int(values[0])
        except (TypeError, ValueError, IndexError):
            return False
        return number > bound if operator == 'Gt' else number < bound
    raise ApiError(422, 'Invalid', 'unknown node selector operator %r' % operator)


def node_selector_terms_match(labels, terms):
    """Required node affinity: any term matches when all its expressions do."""
    return any(all(_expression_matches(labels, e) for e in term.get('matchExpressions') or [])
               for term in terms)


def tolerates(tolerations, taint):
    for toleration in tolerations or []:
        effect = toleration.get('effect')
        if effect and effect != taint['effect']:
            continue
        operator = toleration.get('operator', 'Equal')
        key = toleration.get('key')
        if operator == 'Exists' and (not key or key == taint['key']):
            return True
        if operator == 'Equal' and key == taint['key'] and toleration.get('value', '') == taint.get('value', ''):
            return True
    return False


def fits_node(pod_spec, node):
    """Whether the scheduler may place a pod with ``pod_spec`` on ``node`` (labels, affinity, taints)."""
    labels = node['metadata'].get('labels') or {}
    for key, value in (pod_spec.get('nodeSelector') or {}).items():
        if labels.get(key) != value:
            return False
    required = (((pod_spec.get('affinity') or {}).get('nodeAffinity') or {})
                .get('requiredDuringSchedulingIgnoredDuringExecution') or {})
    if required.get('nodeSelectorTerms') and not node_selector_terms_match(labels, required['nodeSelectorTerms']):
        return False
    for taint in (node.get('spec') or {}).get('taints') or []:
        if taint['effect'] in ('NoSchedule', 'NoExecute') and not tolerates(pod_spec.get('tolerations'), taint):
            return False
    return True
