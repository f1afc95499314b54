"""The cmdlet tables (kubewin_sim/pwsh/cmdlet_sets) and PowerShell 5.1's parameter binding over them."""

import functools
import glob
import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))
sys.path.insert(0, os.path.join(ROOT, 'tools'))

from kubewin_sim.pwsh.cmdlet_sets import ALL_SETS, ParameterBindingError, all_specs, cmdlet_spec  # noqa: E402  pylint: disable=wrong-import-position
import pwsh_syntax  # noqa: E402  pylint: disable=wrong-import-position

SCRIPTS = os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts')

# Calls in the scripts that PowerShell 5.1 refuses to bind. Each is a bug of the script, listed
# here so that this file stays green while it is open and fails once it is fixed (then remove it).
KNOWN_SCRIPT_BUGS = {}


def bind_error(cmdlet, *args, **kwargs):
    with pytest.raises(ParameterBindingError) as caught:
        cmdlet_spec(cmdlet).bind(*args, **kwargs)
    return caught.value


# -- the tables -----------------------------------------------------------------------------------

def test_every_table_is_consistent():
    """Default set among the sets, every parameter's sets declared, no two parameters at one position of a set,
    no name or alias used twice (PowerShell refuses such metadata), each page named with its repository."""
    assert len(all_specs()) >= 67
    for spec in all_specs().values():
        assert spec.source.startswith(('MicrosoftDocs/PowerShell-Docs: reference/5.1/', 'MicrosoftDocs/windows-powershell-docs: docset/'))
        assert spec.source.endswith('/%s.md' % spec.name)
        assert spec.default_parameter_set is None or spec.default_parameter_set in spec.parameter_sets, spec.name
        labels = {}
        positions = {}
        for param in spec.parameters:
            assert param.type, (spec.name, param.name)
            assert set(param.sets) <= set(spec.parameter_sets) | {ALL_SETS}, (spec.name, param.name)
            for label in [param.name] + param.aliases:
                assert labels.setdefault(label.lower(), param.name) == param.name, (spec.name, label)
            for set_name, data in param.sets.items():
                if data['position'] is not None and param.providers is None:
                    for other in spec.parameter_sets if set_name == ALL_SETS else [set_name]:
                        key = (other, data['position'])
                        assert positions.setdefault(key, param.name) == param.name, (spec.name, key)


def test_cim_cmdlets_take_the_cim_common_parameters():
    for name in ('Get-NetAdapter', 'Get-NetRoute', 'Set-DnsClientServerAddress', 'New-NetFirewallRule', 'Get-CimInstance'):
        spec = cmdlet_spec(name)
        assert spec.parameter('CimSession').type.startswith('CimSession')
    for name in ('Get-NetAdapter', 'Get-NetRoute', 'Set-DnsClientServerAddress', 'New-NetFirewallRule'):
        assert cmdlet_spec(name).parameter('ThrottleLimit').type == 'Int32'
        assert cmdlet_spec(name).parameter('AsJob').is_switch


def test_tables_are_windows_powershell_5_1():
    """Parameters that only PowerShell 6+ has are unknown; 5.1's own are there."""
    for cmdlet, name in [('Join-Path', 'AdditionalChildPath'), ('ConvertTo-Json', 'AsArray'), ('Get-Content', 'AsByteStream'),
                         ('Start-Process', 'Environment'), ('Get-Date', 'AsUTC')]:
        assert cmdlet_spec(cmdlet).parameter(name) is None, (cmdlet, name)
    assert cmdlet_spec('Get-Content').parameter('Encoding').type == 'FileSystemCmdletProviderEncoding'
    assert cmdlet_spec('Set-Service').parameter('Status').type == 'String'
    assert cmdlet_spec('Get-Service').parameter('ErrorAction').type == 'ActionPreference'
    # ProgressAction (proga) became a common parameter in 7.4.
    assert cmdlet_spec('Get-Service').parameter('ProgressAction') is None
    assert cmdlet_spec('Start-Process').parameter_sets == ['Default', 'UseShellExecute']


# -- names ----------------------------------------------------------------------------------------

def test_names_are_case_insensitive():
    assert cmdlet_spec('GET-netadapter').name == 'Get-NetAdapter'
    assert cmdlet_spec('NetAdapter\\Get-NetAdapter').name == 'Get-NetAdapter'
    assert cmdlet_spec('Get-NoSuchThing') is None
    assert cmdlet_spec('Get-NetAdapter').bind(['NAME', '-physical']).named == ['Name', 'Physical']


def test_unambiguous_prefix_and_exact_match():
    assert cmdlet_spec('Get-ChildItem').bind(['Rec', 'Filt']).named == ['Recurse', 'Filter']
    assert bind_error('Get-ChildItem', ['Fi']).message.endswith('Possible matches include: -File -Filter.')
    assert cmdlet_spec('Get-ChildItem').parameter('Rec').name == 'Recurse'
    # 'Skip' is also a prefix of 'SkipLast': the exact name wins.
    assert cmdlet_spec('Select-Object').parameter('skip').name == 'Skip'
    error = bind_error('Select-Object', ['Ski'])
    assert error.error_id == 'AmbiguousParameter'
    assert error.message == "Parameter cannot be processed because the parameter name 'Ski' is ambiguous. Possible matches include: -Skip -SkipLast."


def test_ambiguous_prefix_lists_names_then_aliases():
    # -I matches names and, through its alias InterfaceAlias, -Name (listed after the name matches).
    error = bind_error('Get-NetAdapter', ['I'])
    assert error.message.endswith('Possible matches include: -IncludeHidden -InterfaceDescription -InterfaceIndex'
                                  ' -InformationAction -InformationVariable -Name.')


def test_declared_parameter_wins_a_prefix_over_common_ones():
    # -In: Include (Get-Content's own) against InformationAction/InformationVariable (common): Include.
    assert cmdlet_spec('Get-Content').parameter('In').name == 'Include'
    # -Info: only common parameters match, so it stays ambiguous.
    assert bind_error('Get-Content', ['Info'], ['x']).error_id == 'AmbiguousParameter'
    # Get-Service declares Include and InputObject: two of its own, ambiguous.
    assert bind_error('Get-Service', ['In']).message.endswith('Possible matches include: -Include -InputObject -InformationAction -InformationVariable.')
    # An exact alias wins over a longer name: -wa is WarningAction even though Get-Content has -Wait.
    assert cmdlet_spec('Get-Content').parameter('wa').name == 'WarningAction'


def test_aliases_and_common_parameters():
    result = cmdlet_spec('Get-NetAdapter').bind(['ifAlias', 'ea', 'ev', 'wa', 'wv', 'infa', 'iv', 'ov', 'ob', 'pv', 'vb', 'db'])
    assert result.named == ['Name', 'ErrorAction', 'ErrorVariable', 'WarningAction', 'WarningVariable', 'InformationAction',
                            'InformationVariable', 'OutVariable', 'OutBuffer', 'PipelineVariable', 'Verbose', 'Debug']
    assert result.parameter_set == 'ByName'
    assert cmdlet_spec('Get-Service').parameter('ServiceName').name == 'Name'


def test_whatif_and_confirm_only_with_should_process():
    assert cmdlet_spec('Remove-Item').bind(['wi', 'cf', 'LiteralPath']).named == ['WhatIf', 'Confirm', 'LiteralPath']
    assert cmdlet_spec('Remove-NetRoute').parameter('Confirm:').name == 'Confirm'
    error = bind_error('Get-Item', ['WhatIf'], ['c:\\x'])
    assert (error.error_id, error.message) == ('NamedParameterNotFound', "A parameter cannot be found that matches parameter name 'WhatIf'.")
    assert error.fully_qualified_error_id == 'NamedParameterNotFound,Get-Item'


def test_unknown_parameter():
    error = bind_error('Join-Path', ['Path', 'AdditionalChildPath'])
    assert error.error_id == 'NamedParameterNotFound'
    assert error.message == "A parameter cannot be found that matches parameter name 'AdditionalChildPath'."


def test_parameter_given_twice():
    error = bind_error('Get-NetAdapter', ['Name', 'ifAlias:'])
    assert error.error_id == 'ParameterAlreadyBound'
    assert error.message.startswith("Cannot bind parameter because parameter 'ifAlias' is specified more than once.")
    # -ifAlias value: the binder has renamed the argument to the parameter it matched.
    assert bind_error('Get-NetAdapter', ['Name', 'ifAlias']).message.startswith("Cannot bind parameter because parameter 'Name' is")
    assert bind_error('Get-NetAdapter', ['Physical', 'phys']).message.startswith("Cannot bind parameter because parameter 'phys' is")
    # Every name is looked up before any is bound: the ambiguous one is reported first.
    assert bind_error('Get-NetAdapter', ['Name', 'Name', 'I']).error_id == 'AmbiguousParameter'


def test_is_switch():
    spec = cmdlet_spec('Get-ChildItem')
    assert spec.is_switch('Recurse') and spec.is_switch('rec') and spec.is_switch('Verbose')
    assert not spec.is_switch('Filter') and not spec.is_switch('ea')
    # An unknown name takes no value (the next argument stays positional); bind reports it.
    assert spec.is_switch('NoSuchParameter')
    with pytest.raises(ParameterBindingError):
        cmdlet_spec('Select-Object').is_switch('Ski')
    error = cmdlet_spec('Join-Path').missing_argument('ChildPath')
    assert error.message == "Missing an argument for parameter 'ChildPath'. Specify a parameter of type 'String' and try again."


# -- parameter sets -------------------------------------------------------------------------------

def test_parameter_set_from_the_parameters_given():
    assert cmdlet_spec('Get-NetAdapter').bind(['InterfaceIndex']).parameter_set == 'ByIfIndex'
    assert cmdlet_spec('Get-ChildItem').bind(['LiteralPath']).parameter_set == 'LiteralItems'
    assert cmdlet_spec('Split-Path').bind(['Path', 'Leaf']).parameter_set == 'LeafSet'


def test_default_set_when_several_remain():
    assert cmdlet_spec('Get-NetAdapter').bind([]).parameter_set == 'ByName'
    assert cmdlet_spec('Get-NetAdapter').bind(['Physical']).parameter_set == 'ByName'
    assert cmdlet_spec('Join-Path').bind(['Path', 'ChildPath']).parameter_set == ALL_SETS


def test_set_with_every_mandatory_parameter_when_no_default_decides():
    # -Query is in QuerySessionSet and QueryComputerSet; only the latter lacks a mandatory parameter (-CimSession).
    assert cmdlet_spec('Get-CimInstance').bind(['Query']).parameter_set == 'QueryComputerSet'
    assert cmdlet_spec('Get-CimInstance').bind(['Query', 'CimSession']).parameter_set == 'QuerySessionSet'
    # -Id: Id and IdWithUserName; the latter needs -IncludeUserName.
    assert cmdlet_spec('Get-Process').bind(['Id']).parameter_set == 'Id'


def test_ambiguous_parameter_set():
    for cmdlet, named in [('Get-NetAdapter', ['Name', 'InterfaceIndex']), ('Get-ChildItem', ['Path', 'LiteralPath']),
                          ('Start-Process', ['FilePath', 'NoNewWindow', 'Verb']),
                          # Set-NetFirewallRule has no default set: with no selector every set lacks its mandatory one.
                          ('Set-NetFirewallRule', ['Enabled'])]:
        error = bind_error(cmdlet, named)
        assert (error.error_id, error.message) == ('AmbiguousParameterSet', 'Parameter set cannot be resolved using the specified named parameters.')


def test_missing_mandatory_parameter():
    error = bind_error('Join-Path', ['Path'])
    assert (error.error_id, error.message) == ('MissingMandatoryParameter',
                                               'Cannot process command because of one or more missing mandatory parameters: ChildPath.')
    assert bind_error('New-NetRoute', ['DestinationPrefix']).message.endswith('parameters: InterfaceAlias.')
    assert bind_error('Set-Acl', ['AclObject']).message.endswith('parameters: Path.')


def test_pipeline_input_supplies_mandatory_parameters():
    # Stop-Service's InputObject comes from the pipeline; without it the command is missing it.
    assert cmdlet_spec('Stop-Service').bind(['Force'], pipeline_input=True).parameter_set is None
    assert bind_error('Stop-Service', ['Force']).error_id == 'MissingMandatoryParameter'
    assert cmdlet_spec('ConvertFrom-Json').bind([], pipeline_input=True).parameter_set == ALL_SETS
    assert bind_error('ConvertFrom-Json', []).message.endswith('parameters: InputObject.')


# -- positional arguments --------------------------------------------------------------------------

def test_positional_arguments_fill_the_free_positions_in_order():
    assert cmdlet_spec('Join-Path').bind([], ['a', 'b']).positional == ['Path', 'ChildPath']
    # -Path given by name: the one positional argument goes to position 1.
    assert cmdlet_spec('Join-Path').bind(['Path'], ['b']).positional == ['ChildPath']
    assert cmdlet_spec('Join-Path').bind(['ChildPath'], 1).positional == ['Path']
    assert cmdlet_spec('Get-ChildItem').bind(['LiteralPath'], ['*.log']).positional == ['Filter']


def test_surplus_positional_argument():
    error = bind_error('Join-Path', [], ['a', 'b', 'c'])
    assert (error.error_id, error.message) == ('PositionalParameterNotFound', "A positional parameter cannot be found that accepts argument 'c'.")
    assert bind_error('Get-Date', ['Format', 'UFormat']).error_id == 'AmbiguousParameterSet'


def test_positional_type_picks_the_set_a_value_binds_to_without_conversion():
    # Start-Service's default set is InputObject (ServiceController[] at position 0); a string goes
    # to -Name of the Default set, as PowerShell tries the no-conversion pass first.
    assert cmdlet_spec('Start-Service').bind([], ['kubelet']).positional == ['Name']
    assert cmdlet_spec('Start-Service').bind([], ['kubelet']).parameter_set == 'Default'
    assert cmdlet_spec('Start-Service').bind([], [('$svc', 'ServiceController')]).parameter_set == 'InputObject'
    assert cmdlet_spec('Where-Object').bind([], [('{ $_ }', 'ScriptBlock')], pipeline_input=True).positional == ['FilterScript']


def test_provider_dynamic_parameters():
    # New-Item's WSMan parameters exist only on the WSMan: drive (-ConnectionURI is mandatory there).
    assert cmdlet_spec('New-Item').bind(['ItemType', 'Force'], ['c:\\x']).parameter_set == 'pathSet'
    assert bind_error('New-Item', ['ConnectionURI'], ['c:\\x']).error_id == 'NamedParameterNotFound'
    assert cmdlet_spec('New-Item').bind(['ConnectionURI'], ['WSMan:\\localhost'], provider='WSMan').named == ['ConnectionURI']
    assert cmdlet_spec('Test-Path').bind(['OlderThan'], ['c:\\x']).named == ['OlderThan']
    assert bind_error('Test-Path', ['OlderThan'], ['HKLM:\\x'], provider='Registry').error_id == 'NamedParameterNotFound'


# -- the scripts ----------------------------------------------------------------------------------

def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


@functools.lru_cache(maxsize=None)
def _parsed_scripts():
    """{relative path: (source bytes, tree)} of every script, parsed once for this module."""
    parser = pwsh_syntax._parser()  # pylint: disable=protected-access
    found = {}
    for path in sorted(glob.glob(os.path.join(SCRIPTS, '**', '*.ps1'), recursive=True)):
        with open(path, 'rb') as handle:
            data = handle.read()
        found[os.path.relpath(path, SCRIPTS)] = (data, parser.parse(data))
    return found


def _called_cmdlets():
    commands = {}
    functions = set()
    for rel, (_source, tree) in _parsed_scripts().items():
        for node in _walk(tree.root_node):
            if node.type == 'command_name':
                commands.setdefault(node.text.decode(), '%s:%d' % (rel, node.start_point[0] + 1))
            elif node.type == 'function_name':
                functions.add(node.text.decode().lower())
    return {name: where for name, where in commands.items()
            if name.lower() not in functions and not name.lower().endswith('.exe') and not any(c in name for c in '\\/.')}


def test_every_cmdlet_the_scripts_call_has_a_table():
    called = _called_cmdlets()
    assert 'Get-NetAdapter' in called and 'Where-Object' in called
    missing = ['%s (%s)' % (name, where) for name, where in sorted(called.items()) if cmdlet_spec(name) is None]
    assert not missing, 'cmdlets without a table in kubewin_sim/pwsh/cmdlet_sets: %s' % ', '.join(missing)


def _value_type(node):
    first = node.children[0] if node.children else node
    return {'script_block_expression': 'ScriptBlock', 'string_literal': 'String', 'integer_literal': 'Int32'}.get(
        first.type, 'String' if node.type == 'generic_token' else None)


def _splatted_keys(tree, variable):
    """Keys of `$variable = @{...}` and `$variable.Key = ...` in the same script (what a splat passes)."""
    keys = []
    for node in _walk(tree.root_node):
        if node.type != 'assignment_expression':
            continue
        target = node.children[0].text.decode()
        if target.lower() == '$' + variable.lower():
            table = next((n for n in _walk(node) if n.type == 'hash_literal_expression'), None)
            body = next((n for n in table.children if n.type == 'hash_literal_body'), None) if table else None
            keys += [entry.children[0].text.decode() for entry in (body.children if body else []) if entry.type == 'hash_entry']
        elif target.lower().startswith('$%s.' % variable.lower()):
            keys.append(target.split('.', 1)[1])
    return keys


def _literal(node):
    """The text of a constant argument (bare word or quoted string without variables), else None."""
    if node is None:
        return None
    if node.type == 'generic_token':
        return node.text.decode()
    kinds = {n.type for n in _walk(node)}
    if 'string_literal' in kinds and not kinds & {'variable', 'sub_expression'}:
        text = node.text.decode()
        return text[1:-1] if text[:1] in '\'"' else None
    return None


def _command_arguments(spec, elements, tree):
    """(named, values, positional) of a command's elements, split the way the engine's argument parser does.

    values[i] is the syntax node of named[i]'s argument (None for a switch or a splatted entry).
    """
    items = [item for item in elements.children if item.type != 'command_argument_sep' or b':' in item.text]
    named, values, positional = [], [], []
    index = 0
    while index < len(items):
        item = items[index]
        index += 1
        if item.type == 'command_parameter':
            named.append(item.text.decode()[1:])
            values.append(None)
            if index < len(items) and items[index].type == 'command_argument_sep':
                values[-1] = items[index + 1] if index + 1 < len(items) else None
                index += 2          # -Name:value
            elif not spec.is_switch(named[-1]):
                values[-1] = items[index] if index < len(items) else None
                index += 1
        elif item.text.startswith(b'@') and item.type != 'command_argument_sep':
            # A splat: the keys of the hashtable become named parameters (top-level entries only).
            keys = [key for key in _splatted_keys(tree, item.text.decode()[1:]) if '.' not in key]
            named += keys
            values += [None] * len(keys)
        else:
            positional.append((item.text.decode(), _value_type(item)))
    return named, values, positional


def _value_problem(spec, name, node):
    """Why a constant argument is not one of the parameter's accepted values, or None."""
    param = spec.parameter(name)
    value = _literal(node)
    if param is None or not param.accepted_values or value is None:
        return None
    if value.lower() in (v.lower() for v in param.accepted_values):
        return None
    return '-%s %r is none of %s' % (param.name, value, ', '.join(param.accepted_values))


def test_every_call_in_the_scripts_binds():
    failures = []
    seen_bugs = {}
    for rel, (_source, tree) in _parsed_scripts().items():
        for node in _walk(tree.root_node):
            if node.type != 'command':
                continue
            name_node = next((c for c in node.children if c.type == 'command_name'), None)
            spec = cmdlet_spec(name_node.text.decode()) if name_node is not None else None
            if spec is None:
                continue
            elements = next((c for c in node.children if c.type == 'command_elements'), None)
            named, values, positional = _command_arguments(spec, elements, tree) if elements is not None else ([], [], [])
            piped = node.prev_sibling is not None and node.prev_sibling.type == '|'
            key = (os.path.basename(rel), node.start_point[0] + 1, spec.name)
            try:
                spec.bind(named, positional, pipeline_input=piped)
                failures += ['%s:%d %s: %s' % (rel, key[1], spec.name, problem)
                             for problem in (_value_problem(spec, n, v) for n, v in zip(named, values)) if problem]
            except ParameterBindingError as error:
                if key in KNOWN_SCRIPT_BUGS:
                    seen_bugs[key] = error.error_id
                else:
                    failures.append('%s:%d %s %s: %s' % (rel, key[1], spec.name, named, error.message))
    assert not failures, '\n'.join(failures)
    assert seen_bugs == KNOWN_SCRIPT_BUGS, 'a known script bug is fixed or moved: update KNOWN_SCRIPT_BUGS'
