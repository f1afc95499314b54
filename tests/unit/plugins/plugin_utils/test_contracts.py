"""Script results are contracts: a node answering in another shape fails where the answer arrives.

contract_documents.json holds, per script, documents the simulated node returned for it while the
action plugin tests and an e2e run (overlay) went through the simulation with
KUBEWIN_SIM_SCRIPT_RESULTS set (a worker's result as detached_status returned it; node_logs and
node_reset_apply run on the converged e2e nodes), a few per script that together show the most
shapes. Every one must pass its contract, and the ways Windows PowerShell 5.1 answers differently
(a one-element list unrolled to its item, an empty list as null, an enum as its number, a missing
key) must fail naming the script and the field.
"""

import copy
import glob
import json
import os

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh

with open(os.path.join(os.path.dirname(__file__), 'contract_documents.json'), encoding='utf-8') as _handle:
    DOCUMENTS = json.load(_handle)

CASES = [(script, index) for script in sorted(DOCUMENTS) for index in range(len(DOCUMENTS[script]))]

# Parts of results no contract looks into: node_logs passes HNS objects on as HNS returns them, and
# detached_status leaves a worker's result to the worker's contract.
UNCHECKED = {
    'node_logs': [['hns', 'networks', None], ['hns', 'endpoints', None], ['hns', 'policy_lists', None]],
    'detached_status': [['result']],
}


def script_names():
    names = set()
    for path in glob.glob(os.path.join(_pwsh.SCRIPT_DIR, '*.ps1')):
        with open(path, encoding='utf-8') as handle:
            first = handle.readline().rstrip('\n')
        assert first.startswith(_pwsh.MARKER), path
        names.add(first[len(_pwsh.MARKER):])
    return names


def document(script, index=0):
    return copy.deepcopy(DOCUMENTS[script][index])


def walk(value, path=()):
    """Every (path, value) in a decoded JSON document, the document itself first."""
    yield list(path), value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from walk(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, path + (index,))


def replaced(root, path, value):
    root = copy.deepcopy(root)
    if not path:
        return value
    parent = root
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return root


def unchecked(script, path):
    """True for a path inside what the script's contract does not look into (None matches any part)."""
    for prefix in UNCHECKED.get(script, []):
        if len(path) > len(prefix) and all(p is None or p == part for p, part in zip(prefix, path)):
            return True
    return False


def message(script, path):
    root = _contracts.CONTRACTS[script][0]
    return '%s: %s' % (script, _contracts.format_path(([root] if root else []) + path))


def refused(script, doc):
    with pytest.raises(_pwsh.ScriptError) as caught:
        _contracts.check(script, doc)
    assert caught.value.script == script
    return str(caught.value)


def test_every_script_has_a_contract_and_every_contract_a_script():
    assert script_names() == set(_contracts.CONTRACTS) | set(_contracts.WITHOUT_RESULT)
    assert not set(_contracts.CONTRACTS) & set(_contracts.WITHOUT_RESULT)


def test_every_contract_has_documents_the_simulated_node_returned():
    assert set(DOCUMENTS) == set(_contracts.CONTRACTS)


@pytest.mark.parametrize('script, index', CASES)
def test_what_the_simulated_node_returns_keeps_the_contract(script, index):
    doc = document(script, index)
    assert _contracts.check(script, doc) is doc


@pytest.mark.parametrize('script, index', CASES)
def test_every_one_element_list_unrolled_into_its_item_is_refused(script, index):
    doc = document(script, index)
    for path, value in walk(doc):
        if isinstance(value, list) and len(value) == 1 and not unchecked(script, path):
            text = refused(script, replaced(doc, path, value[0]))
            # A list the contract lets be null (gmsa's ccg_plugins: null when CCG has no COMClasses key) says so.
            assert text in ['%s must be a list%s, got %s' % (message(script, path), nullable, _contracts.json_type(value[0]))
                            for nullable in ('', ' or null')]


@pytest.mark.parametrize('script, index', CASES)
def test_every_empty_list_sent_as_null_is_refused(script, index):
    doc = document(script, index)
    for path, value in walk(doc):
        if value == [] and not unchecked(script, path):
            assert refused(script, replaced(doc, path, None)) == '%s must be a list, got null' % message(script, path)


@pytest.mark.parametrize('script, index', CASES)
def test_every_string_sent_as_a_number_is_refused(script, index):
    # An enum ConvertTo-Json serialises as its number (a service's Status, an adapter's PrefixOrigin).
    doc = document(script, index)
    for path, value in walk(doc):
        if not isinstance(value, str) or unchecked(script, path):
            continue
        text = refused(script, replaced(doc, path, 4))
        assert text.startswith('%s must be ' % message(script, path)) and text.endswith(', got a number'), text


def node_state():
    return document('node_info', 0)


def test_a_one_element_adapter_list_unrolled_by_windows_powershell():
    state = node_state()
    state['adapters'] = state['adapters'][0]
    assert refused('node_info', state) == 'node_info: state.adapters must be a list, got an object'


def test_an_empty_list_sent_as_null():
    state = node_state()
    state['hns']['networks'] = None
    assert refused('node_info', state) == 'node_info: state.hns.networks must be a list, got null'


def test_an_enum_sent_as_its_number():
    state = node_state()
    state['services']['kubelet'] = {'name': 'kubelet', 'exists': True, 'state': 4, 'display_name': 'kubelet',
                                    'description': None, 'start_mode': 'auto', 'command_line': 'C:\\k\\kubelet.exe',
                                    'dependencies': [], 'environment': [], 'recovery': None, 'nssm': None}
    assert refused('node_info', state) == 'node_info: state.services.kubelet.state must be a string, got a number'


def test_a_missing_key():
    state = node_state()
    del state['os']['build']
    assert refused('node_info', state) == 'node_info: state.os.build is missing'


def test_a_section_asked_for_must_be_there():
    state = node_state()
    del state['hns']
    assert refused('node_info', state) == 'node_info: state.hns is missing (sections names it)'


def test_map_keys_that_are_paths_are_quoted():
    state = node_state()
    state['files'] = {'C:\\k\\kubelet.exe': {'exists': 'True'}}
    assert refused('node_info', state) == "node_info: state.files['C:\\k\\kubelet.exe'].exists must be a boolean, got a string"


def test_a_file_of_an_unknown_type_is_refused():
    state = node_state()
    state['files'] = {'C:\\k': {'exists': True, 'type': 'junction', 'acl': 'custom'}}
    assert refused('node_info', state) == ("node_info: state.files['C:\\k'].type must be one of 'file', 'directory', "
                                           "got 'junction'")


def test_an_answer_that_is_not_an_object_at_all():
    assert refused('file_write', [{'state': {}}]) == 'file_write: the result must be an object, got a list'


def test_a_nullable_field_says_null_would_do():
    doc = document('hns_network_apply')
    doc['created'] = []
    assert refused('hns_network_apply', doc) == 'hns_network_apply: created must be an object or null, got a list'


def test_a_worker_state_outside_the_known_ones_would_keep_the_module_polling():
    doc = {'operation_id': 'a', 'state': 'Running', 'result': None}
    assert refused('detached_status', doc) == ("detached_status: state must be one of 'running', 'done', 'failed', "
                                               "'unknown', got 'Running'")


def test_a_worker_result_with_stray_output_is_refused():
    # A function that also writes to the output stream returns a list: reboot_required would read as true.
    doc = document('openvswitch_worker')
    doc['reboot_required'] = ['msiexec output', False]
    assert refused('openvswitch_worker', doc) == 'openvswitch_worker: result.reboot_required must be a boolean, got a list'


def test_a_script_without_a_contract_is_refused():
    assert refused('no_such_script', {}) == 'no_such_script: has no result contract (plugins/plugin_utils/_contracts.py)'


class FakeAction:

    def __init__(self, result):
        self.result = result

    def _execute_module(self, module_name, module_args, task_vars):
        return self.result


def test_run_script_checks_every_result_before_returning_it():
    state = node_state()
    assert _pwsh.run_script(FakeAction({'result': json.dumps(state)}), 'node_info', {}) == state
    state['adapters'] = state['adapters'][0]
    with pytest.raises(_pwsh.ScriptError, match='^node_info: state.adapters must be a list, got an object$'):
        _pwsh.run_script(FakeAction({'result': json.dumps(state)}), 'node_info', {})


def test_one_of_explains_with_the_alternative_that_got_furthest():
    schema = _contracts.one_of(_contracts.STR, _contracts.list_of(_contracts.obj(required={'a': _contracts.INT})))
    schema.validate('x', [])
    schema.validate([{'a': 1}], [])
    with pytest.raises(_contracts.Mismatch) as caught:
        schema.validate(4, ['v'])
    assert (caught.value.path, caught.value.message) == (['v'], 'must be a string or a list, got a number')
    with pytest.raises(_contracts.Mismatch) as caught:
        schema.validate([{'a': True}], ['v'])
    assert (caught.value.path, caught.value.message) == (['v', 0, 'a'], 'must be a whole number, got a boolean')
