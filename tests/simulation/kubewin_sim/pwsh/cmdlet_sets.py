"""Parameter binding of the cmdlets the collection's PowerShell scripts call, as Windows PowerShell 5.1 does it.

The data (cmdlet_sets/<Module>.json, one file per PowerShell module) comes from Microsoft's reference
pages: MicrosoftDocs/PowerShell-Docs reference/5.1 for the engine's own modules and
MicrosoftDocs/windows-powershell-docs docset/winserver2022-ps for the Windows ones (each cmdlet
names its page in "source"; tools/cmdlet_docs.py rebuilds the files from the two repositories).
For each cmdlet: its parameter sets and default set, whether it supports ShouldProcess
(-WhatIf/-Confirm) and transactions (-UseTransaction), and per parameter its type, aliases and,
per parameter set ("__AllParameterSets" for a parameter in every set), Mandatory, Position (None
when named), ValueFromPipeline and ValueFromPipelineByPropertyName. A parameter with "providers"
is a provider's dynamic parameter (New-Item -ConnectionURI exists only on the WSMan: drive);
"accepted_values" lists an enum's or ValidateSet's values where the page gives them.

API (pure Python, no Ansible):

    spec = cmdlet_spec('get-netadapter')       # case-insensitive; None for an unknown cmdlet
    spec.is_switch('f')                         # does -f take the next argument? (see is_switch)
    spec.parameter('ifAlias')                   # -> Parameter (canonical name, type, ...)
    result = spec.bind(['Name', 'ea'], positional=['x'], pipeline_input=False)
    result.parameter_set                        # 'ByName' (None: still open, waiting for pipeline input)
    result.named                                # ['Name', 'ErrorAction'], one per name given
    result.positional                           # canonical parameter of each positional argument

Errors raise ParameterBindingError with PowerShell's error id (.error_id) and message (.message).
The rules follow the binder of the PowerShell source published in 2016, the code of Windows
PowerShell 5.1 (PowerShell/PowerShell commit 60b3b304, src/System.Management.Automation/engine/
MergedCommandParameterMetadata.cs GetMatchingParameter, ParameterBinderController.cs
BindPositionalParameters, CmdletParameterBinderController.cs BindCommandLineParameters,
ValidateParameterSets, GetMissingMandatoryParameters, VerifyArgumentsProcessed).
Not modelled: argument values and their conversion (a positional argument's type, when given,
only decides the first, no-coercion pass of positional binding), $PSDefaultParameterValues,
ValueFromRemainingArguments, and prompting (the host is non-interactive, as under WinRM).
"""

import json
import os

SETS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cmdlet_sets')
ALL_SETS = '__AllParameterSets'

# Error texts: PowerShell/PowerShell src/System.Management.Automation/resources/ParameterBinderStrings.resx
# at commit 60b3b304 (2016, the Windows PowerShell 5.1 text; PowerShell 7 later lengthened
# AmbiguousParameterSet). {1} is the parameter name, {6} the list of possible matches.
MESSAGES = {
    'NamedParameterNotFound': "A parameter cannot be found that matches parameter name '{name}'.",
    'PositionalParameterNotFound': "A positional parameter cannot be found that accepts argument '{name}'.",
    'AmbiguousParameter': "Parameter cannot be processed because the parameter name '{name}' is ambiguous. Possible matches include:{matches}.",
    'AmbiguousParameterSet': 'Parameter set cannot be resolved using the specified named parameters.',
    # {1} is built by BuildMissingParamsString: " Name" for each missing parameter.
    'MissingMandatoryParameter': 'Cannot process command because of one or more missing mandatory parameters:{name}.',
    'ParameterAlreadyBound': ("Cannot bind parameter because parameter '{name}' is specified more than once. To provide multiple values "
                              'to parameters that can accept multiple values, use the array syntax. For example, "-parameter value1,value2,value3".'),
    'MissingArgument': "Missing an argument for parameter '{name}'. Specify a parameter of type '{type}' and try again.",
}

# about_CommonParameters (MicrosoftDocs/PowerShell-Docs reference/5.1/Microsoft.PowerShell.Core/About/
# about_CommonParameters.md): every cmdlet and advanced function has these. ProgressAction (proga)
# is not one of them in 5.1: that page says it was added in PowerShell 7.4.
COMMON = [
    ('Verbose', 'vb', 'SwitchParameter'), ('Debug', 'db', 'SwitchParameter'),
    ('ErrorAction', 'ea', 'ActionPreference'), ('WarningAction', 'wa', 'ActionPreference'),
    ('InformationAction', 'infa', 'ActionPreference'), ('ErrorVariable', 'ev', 'String'),
    ('WarningVariable', 'wv', 'String'), ('InformationVariable', 'iv', 'String'),
    ('OutVariable', 'ov', 'String'), ('OutBuffer', 'ob', 'Int32'), ('PipelineVariable', 'pv', 'String'),
]
SHOULD_PROCESS = [('WhatIf', 'wi', 'SwitchParameter'), ('Confirm', 'cf', 'SwitchParameter')]
TRANSACTION = [('UseTransaction', 'usetx', 'SwitchParameter')]
# Types a value of any type binds to without conversion (first positional pass).
ANY_VALUE = {'object', 'psobject'}


class ParameterBindingError(Exception):
    """A ParameterBindingException: error_id is PowerShell's FullyQualifiedErrorId (before the comma)."""

    def __init__(self, error_id, name='', command='', **fields):
        self.error_id = error_id
        self.parameter_name = name
        self.command = command
        self.message = MESSAGES[error_id].format(name=name, **fields)
        super().__init__(self.message)

    @property
    def fully_qualified_error_id(self):
        return '%s,%s' % (self.error_id, self.command)


class Parameter:
    """One parameter: canonical name, aliases, .NET type, kind (declared, common, should_process, transaction)."""

    def __init__(self, name, type_name, aliases, sets, *, kind='declared', providers=None, accepted_values=None):  # pylint: disable=too-many-arguments
        self.name = name
        self.type = type_name
        self.aliases = list(aliases)
        self.sets = sets              # set name (or ALL_SETS) -> dict(mandatory, position, value_from_pipeline, ...)
        self.kind = kind
        self.providers = providers    # None, or the providers on whose drives this dynamic parameter exists
        self.accepted_values = accepted_values  # None, or the enum / ValidateSet values the page lists

    @property
    def is_switch(self):
        return self.type == 'SwitchParameter'

    @property
    def in_all_sets(self):
        return ALL_SETS in self.sets

    def in_sets(self, valid):
        """Whether the parameter belongs to one of `valid` (None: every set)."""
        return valid is None or self.in_all_sets or bool(valid & set(self.sets))

    def set_data(self, valid):
        """[(set name, data)] of the sets in `valid` (None: all), the all-sets entry included."""
        return [(name, data) for name, data in self.sets.items() if valid is None or name == ALL_SETS or name in valid]

    def __repr__(self):
        return 'Parameter(%s)' % self.name


def _common(specs, kind):
    entry = {'mandatory': False, 'position': None, 'value_from_pipeline': False, 'value_from_pipeline_by_property_name': False}
    return [Parameter(name, type_name, [alias], {ALL_SETS: dict(entry)}, kind=kind) for name, alias, type_name in specs]


class BindingResult:
    """What bind() decided; parameter_set is None while several sets still wait for pipeline input."""

    def __init__(self, parameter_set, candidate_sets, named, positional):
        self.parameter_set = parameter_set
        self.candidate_sets = candidate_sets
        self.named = named
        self.positional = positional

    @property
    def bound(self):
        return self.named + [name for name in self.positional if name]

    def __repr__(self):
        return 'BindingResult(%r, named=%r, positional=%r)' % (self.parameter_set, self.named, self.positional)


class CmdletSpec:  # pylint: disable=too-many-instance-attributes
    """The binding metadata of one cmdlet (or CDXML function) and PowerShell's binding rules."""

    def __init__(self, name, module, data):
        self.name = name
        self.module = module
        self.source = data['source']
        self.parameter_sets = list(data['parameter_sets'])
        self.default_parameter_set = data['default_parameter_set']
        self.supports_should_process = data['supports_should_process']
        self.supports_transactions = data['supports_transactions']
        self.parameters = [Parameter(pname, p['type'], p['aliases'], p['sets'], providers=p.get('providers'),
                                     accepted_values=p.get('accepted_values'))
                           for pname, p in data['parameters'].items()]
        self.parameters += _common(COMMON, 'common')
        if self.supports_should_process:
            self.parameters += _common(SHOULD_PROCESS, 'should_process')
        if self.supports_transactions:
            self.parameters += _common(TRANSACTION, 'transaction')

    def __repr__(self):
        return 'CmdletSpec(%s)' % self.name

    def available(self, provider='FileSystem'):
        """The parameters that exist on `provider`'s drives (a provider's dynamic parameters only there)."""
        return [p for p in self.parameters if p.providers is None or provider in p.providers]

    def _error(self, error_id, name='', **fields):
        return ParameterBindingError(error_id, name, self.name, **fields)

    def parameter(self, name_as_written, provider='FileSystem'):
        """The Parameter that `-name_as_written` means, or None when none matches.

        MergedCommandParameterMetadata.GetMatchingParameter: case-insensitive; an exact name or alias
        wins; otherwise every name and alias it is a prefix of; several different parameters are
        AmbiguousParameter unless exactly one of them is declared by the cmdlet (common, WhatIf/
        Confirm and UseTransaction parameters then give way). A provider's dynamic parameter exists
        only on that provider's drives.
        """
        name = name_as_written[1:] if name_as_written.startswith('-') else name_as_written
        if name.endswith(':'):
            name = name[:-1]
        wanted = name.lower()
        available = self.available(provider)
        for param in available:
            if param.name.lower() == wanted or any(alias.lower() == wanted for alias in param.aliases):
                return param
        # Names first, then aliases, as GetMatchingParameter collects them (the order of the error's list).
        matches = [p for p in available if p.name.lower().startswith(wanted)]
        matches += [p for p in available if p not in matches and any(a.lower().startswith(wanted) for a in p.aliases)]
        if len(matches) > 1:
            declared = [p for p in matches if p.kind == 'declared']
            if len(declared) != 1:
                raise self._error('AmbiguousParameter', name, matches=''.join(' -' + p.name for p in matches))
            matches = declared
        return matches[0] if matches else None

    def is_switch(self, name_as_written, provider='FileSystem'):
        """Whether `-name` stands alone (True) or takes the next argument as its value (False).

        A SwitchParameter stands alone. So does a name that matches no parameter: ReparseUnboundArguments
        leaves it without a value (the next argument stays positional) and binding then fails with
        NamedParameterNotFound. Raises AmbiguousParameter as PowerShell does at this point.
        """
        param = self.parameter(name_as_written, provider)
        return param is None or param.is_switch

    def missing_argument(self, name_as_written, provider='FileSystem'):
        """The error for a non-switch parameter given last or followed by another parameter name."""
        param = self.parameter(name_as_written, provider)
        return self._error('MissingArgument', param.name, type=param.type)

    def bind(self, named, positional=0, pipeline_input=False, provider='FileSystem'):  # pylint: disable=too-many-locals
        """Bind a call's arguments; returns a BindingResult or raises ParameterBindingError.

        named: parameter names as written, in call order, with the dash or not; a name given as
        -Name:value keeps its trailing ':' (it changes the name ParameterAlreadyBound reports).
        positional: how many positional arguments, or a list of them, each its text or a
        (text, .NET type name) pair; a type lets the first positional pass skip parameters the
        value would need converting to (Start-Service svc binds -Name, not -InputObject). With a
        count the types are unknown (any value binds in the first pass) and a surplus argument is
        named by its index in PositionalParameterNotFound.
        pipeline_input: whether objects will come from the pipeline.
        Of an unknown named parameter and a surplus positional argument, the named one is reported.
        """
        args = [(str(i), None) for i in range(positional)] if isinstance(positional, int) else [
            (arg, 'String') if isinstance(arg, str) else tuple(arg) for arg in positional]
        params = self.available(provider)
        valid = None    # None: every set (no set-specific parameter bound yet)
        bound = {}
        named_result = []
        unknown = []
        # ReparseUnboundArguments looks every name up (AmbiguousParameter) before any is bound.
        resolved = [(written, self.parameter(written, provider)) for written in named]
        for written, param in resolved:
            if param is None:
                unknown.append(written)
                named_result.append(None)
                continue
            if param.name in bound:
                # The error names the parameter as the argument holds it: as written for a switch or
                # -Name:value, the canonical name once ReparseUnboundArguments paired it with the next argument.
                as_written = written.lstrip('-').rstrip(':')
                raise self._error('ParameterAlreadyBound', as_written if param.is_switch or written.endswith(':') else param.name)
            bound[param.name] = 'named'
            named_result.append(param.name)
            valid = self._narrow(valid, param)
        positional_result, leftover, valid = self._bind_positional(params, args, bound, valid)
        valid = self._validate(params, valid, bound, pre_pipeline=True, set_default=False)
        if unknown:
            raise self._error('NamedParameterNotFound', unknown[0].lstrip('-').rstrip(':'))
        if leftover:
            raise self._error('PositionalParameterNotFound', leftover[0])
        if not pipeline_input:
            valid = self._validate(params, valid, bound, pre_pipeline=False, set_default=True)
        else:
            valid = self._validate(params, valid, bound, pre_pipeline=True, set_default=False)
            valid = self._filter_pipeline_sets(params, valid, bound)
        missing = self._missing_mandatory(params, valid, bound, pipeline_input)
        if missing:
            raise self._error('MissingMandatoryParameter', ''.join(' ' + p.name for p in missing))
        sets = self._concrete(valid)
        chosen = sets[0] if len(sets) == 1 else None
        if chosen is None and not pipeline_input and self.default_parameter_set in sets:
            chosen = self.default_parameter_set
        return BindingResult(chosen, sets, named_result, positional_result)

    # -- helpers -------------------------------------------------------------------------------

    def _concrete(self, valid):
        """The names of the sets `valid` stands for (None: all of them)."""
        return list(self.parameter_sets) if valid is None else [s for s in self.parameter_sets if s in valid]

    @staticmethod
    def _narrow(valid, param):
        # BindParameter: _currentParameterSetFlag &= the parameter's sets, unless it is in all sets.
        if param.in_all_sets:
            return valid
        sets = set(param.sets)
        return sets if valid is None else valid & sets

    @staticmethod
    def _binds_without_conversion(value_type, param):
        if value_type is None:
            return True
        element = param.type[:-2] if param.type.endswith('[]') else param.type
        return element.lower() in ANY_VALUE or element.lower() == value_type.lower()

    def _bind_positional(self, params, args, bound, valid):  # pylint: disable=too-many-locals
        """ParameterBinderController.BindPositionalParameters: one argument per position, in order."""
        positions = {}
        for param in params:
            if param.name in bound or not param.in_sets(valid):
                continue
            for set_name, data in param.set_data(valid):
                if data['position'] is not None:
                    positions.setdefault(data['position'], []).append((param, set_name))
        result = [None] * len(args)
        index = 0
        leftover = []
        for position in sorted(positions):
            candidates = [(p, s) for p, s in positions[position] if p.name not in bound and (valid is None or s == ALL_SETS or s in valid)]
            if not candidates:
                continue
            if index >= len(args):
                break
            text, value_type = args[index]
            chosen = self._pick_positional(candidates, value_type, valid)
            if chosen is None:
                leftover.append(text)
            else:
                bound[chosen.name] = 'positional'
                result[index] = chosen.name
                valid = self._narrow(valid, chosen)
            index += 1
        leftover += [arg[0] for arg in args[index:]]
        return result, leftover, valid

    def _pick_positional(self, candidates, value_type, valid):
        """The parameter a positional argument binds to among those at its position.

        The default set's first, then the other valid sets'; all of them first without type
        conversion, then with it (with conversion, any value binds: values are not modelled).
        """
        default = self.default_parameter_set
        in_default = [(p, s) for p, s in candidates if default and (valid is None or default in valid) and s in (default, ALL_SETS)]
        for coerce in (False, True):
            for group in (in_default, candidates):
                for param, _set in group:
                    if coerce or self._binds_without_conversion(value_type, param):
                        return param
        return None

    def _takes_pipeline(self, param, valid):
        return any(d['value_from_pipeline'] or d['value_from_pipeline_by_property_name'] for _set, d in param.set_data(valid))

    def _unbound_takes_pipeline(self, params, valid, bound):
        return any(self._takes_pipeline(p, valid) for p in params if p.name not in bound and p.in_sets(valid))

    def _validate(self, params, valid, bound, pre_pipeline, set_default):  # pylint: disable=too-many-return-statements
        """CmdletParameterBinderController.ValidateParameterSets; returns the narrowed valid sets."""
        default = self.default_parameter_set
        if valid is not None and not valid:
            raise self._error('AmbiguousParameterSet')
        if valid is None:
            count = max(len(self.parameter_sets), 1) if self.parameter_sets != [ALL_SETS] else 1
            if pre_pipeline and self._unbound_takes_pipeline(params, valid, bound):
                return valid
            if default:
                return {default} if set_default else valid
            if count > 1:
                return self._resolve_by_mandatory(params, valid, bound)
            return valid
        if len(valid) == 1:
            return valid
        if default and default in valid:
            return {default} if set_default else valid
        if pre_pipeline and self._unbound_takes_pipeline(params, valid, bound):
            return valid
        return self._resolve_by_mandatory(params, valid, bound)

    def _resolve_by_mandatory(self, params, valid, bound):
        """ResolveParameterSetAmbiguityBasedOnMandatoryParameters: the one set with no unbound mandatory parameter."""
        remaining = set(self._concrete(valid)) - {ALL_SETS}
        for param in params:
            if param.name not in bound:
                remaining -= {s for s, d in param.sets.items() if d['mandatory'] and s != ALL_SETS}
        if len(remaining) != 1:
            raise self._error('AmbiguousParameterSet')
        return remaining

    def _filter_pipeline_sets(self, params, valid, bound):
        """FilterParameterSetsTakingNoPipelineInput: with several sets left, keep those taking pipeline input."""
        sets = self._concrete(valid)
        if len(sets) <= 1:
            return valid
        taking = set()
        for param in params:
            if param.name in bound:
                continue
            for set_name, data in param.set_data(valid):
                if data['value_from_pipeline'] or data['value_from_pipeline_by_property_name']:
                    if set_name == ALL_SETS:
                        return valid
                    taking.add(set_name)
        return (set(sets) & taking) or valid

    def _missing_mandatory(self, params, valid, bound, pipeline_input):
        """GetMissingMandatoryParameters for a host that cannot prompt.

        Without pipeline input: every unbound parameter mandatory in a remaining set. With pipeline
        input a mandatory parameter the pipeline can supply is not missing yet, and a set is only
        reported when every remaining set lacks a parameter the pipeline cannot give.
        """
        if not pipeline_input:
            return [p for p in params
                    if p.name not in bound and p.in_sets(valid) and any(d['mandatory'] for _set, d in p.set_data(valid))]
        per_set = {}
        for set_name in self._concrete(valid):
            per_set[set_name] = [p for p in params if p.name not in bound and any(
                d['mandatory'] and not (d['value_from_pipeline'] or d['value_from_pipeline_by_property_name'])
                for s, d in p.sets.items() if s in (set_name, ALL_SETS))]
        if not per_set or any(not missing for missing in per_set.values()):
            return []
        return per_set.get(self.default_parameter_set) or next(iter(per_set.values()))


_SPECS = None


def _load():
    specs = {}
    for file_name in sorted(os.listdir(SETS_DIR)):
        if not file_name.endswith('.json'):
            continue
        with open(os.path.join(SETS_DIR, file_name), encoding='utf-8') as handle:
            data = json.load(handle)
        for name, cmdlet in data['cmdlets'].items():
            specs[name.lower()] = CmdletSpec(name, data['module'], cmdlet)
    return specs


def all_specs():
    """{lower-case cmdlet name: CmdletSpec} of every table (loaded once)."""
    global _SPECS  # pylint: disable=global-statement
    if _SPECS is None:
        _SPECS = _load()
    return _SPECS


def cmdlet_spec(name):
    """The CmdletSpec of a cmdlet name (case-insensitive, module-qualified allowed), or None."""
    if '\\' in name:
        name = name.rsplit('\\', 1)[1]
    return all_specs().get(name.lower())
