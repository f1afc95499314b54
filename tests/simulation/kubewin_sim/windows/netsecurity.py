"""Windows Firewall rules: the NetSecurity cmdlets over ``node.data['firewall_rules']``.

Sources: the cmdlets' pages in MicrosoftDocs/windows-powershell-docs (docset/winserver2022-ps/NetSecurity:
Get-NetFirewallRule, Get-NetFirewallPortFilter, Get-NetFirewallAddressFilter, New-NetFirewallRule,
Set-NetFirewallRule, Remove-NetFirewallRule) and the CIM classes they return (ROOT/StandardCimv2 MSFT_NetFirewallRule,
MSFT_NetProtocolPortFilter, MSFT_NetAddressFilter, Windows Firewall WMI provider reference). What the model holds:

- A rule is ``firewall_rules[name] = {display_name, enabled (bool), direction, action, protocol,
  local_port (list of str), remote_address (list of str)}`` with lower-case direction/action/protocol. ``protocol``
  'any' and ``local_port`` [] mean no port filter; ``remote_address`` [] (or a rule without the key, as earlier
  states hold it) means any remote address.
- -RemoteAddress (New-/Set-NetFirewallRule) takes the forms New-NetFirewallRule's page lists: a single IPv4 or IPv6
  address, a subnet by bit count (1.2.3.4/24, fe80::1/48), an IPv4 subnet by mask (1.2.3.4/255.255.255.0), a range
  (1.2.3.4-1.2.3.7) or a keyword (Any, LocalSubnet, DNS, DHCP, WINS, DefaultGateway, Internet, Intranet,
  IntranetRemoteAccess, PlayToDevice, each also with a 4 or 6 appended). The model keeps a keyword and 'Any'
  alone as no filter. Get-NetFirewallAddressFilter reads an IPv4 subnet given by bit count back in its mask form
  (192.168.1.0/24 reads 192.168.1.0/255.255.255.0: dsccommunity/NetworkingDsc#404, whose maintainers found
  Get-NetFirewallAddressFilter returns the mask notation whatever the input), every other form as given; the
  keyword Any when there is none. A value in none of those forms is refused: what Windows answers to one (the
  Firewall API's error) is not on the page, so it is Unsupported.
- The setting parameters New-/Set-NetFirewallRule bind beyond the ones modelled here (Profile, Program, Service,
  LocalAddress, RemotePort, IcmpType...) are Unsupported: the model would drop them silently otherwise.
- Enabled, Direction, Action and Profile are the cmdletization layer's generated enums (MSFT_NetFirewallRule:
  Enabled 1 True / 2 False, Direction 1 Inbound / 2 Outbound, Action 0 NotConfigured / 2 Allow / 4 Block,
  Profile flags Any 0, Domain 1, Private 2, Public 4): [string] gives the name, ConvertTo-Json the number.
  New-NetFirewallRule's page: "the type of [-Enabled] is not boolean ... Use "True" and "False" text strings".
- MSFT_NetProtocolPortFilter.Protocol is a string ('TCP', 'UDP', 'Any') and LocalPort a string array that
  holds the keyword 'Any' when the rule has no local port (the page's examples set and match
  ``-LocalPort Any``); New-NetFirewallRule's defaults are Protocol Any and LocalPort Any.
- -Name and -DisplayName take wildcards. A name without wildcards that matches nothing writes a
  non-terminating ObjectNotFound error (as every CDXML cmdlet does, silenced by -ErrorAction
  SilentlyContinue); a wildcard that matches nothing writes nothing.
- Creating a rule whose name exists fails, as the Windows Firewall API does (ERROR_ALREADY_EXISTS), a
  non-terminating error like every failed CIM call of a CDXML cmdlet.
- The model takes an empty -LocalPort array as no port (Any); what Windows does with an empty array is not
  documented. Not modelled: the rejection of local ports on a rule whose protocol is not TCP/UDP.
- EdgeTraversalPolicy and PrimaryStatus are generated enums on Windows (New-NetFirewallRule's -EdgeTraversalPolicy:
  "Type: EdgeTraversal", Block, Allow, DeferToUser, DeferToApp; Get-NetFirewallRule's -PrimaryStatus: Unknown, OK,
  Inactive, Error); their numbers are not on the pages, so the model keeps their names as strings: [string] and -eq
  agree with Windows, ConvertTo-Json of a rule object would not (no script serializes one).
- Errors: a name without wildcards that matches nothing is the CDXML query's ObjectNotFound (property InstanceID for
  -Name, the class key); a name that exists is Win32 error 183, ERROR_ALREADY_EXISTS ("System Error Codes").
"""

from ..pwsh.commands import CDXML
from ..pwsh.types import enum_type
import ipaddress
import re

from ..pwsh.values import PSArray, PSError, Unsupported, enumerate_value, is_enumerable, to_string
from ..pwsh import operators as ops
from .cim import CimInstance

_GENERATED = 'Microsoft.PowerShell.Cmdletization.GeneratedTypes.NetSecurity.'
ENABLED = enum_type(_GENERATED + 'Enabled', {'True': 1, 'False': 2}).enum
DIRECTION = enum_type(_GENERATED + 'Direction', {'Inbound': 1, 'Outbound': 2}).enum
ACTION = enum_type(_GENERATED + 'Action', {'NotConfigured': 0, 'Allow': 2, 'Block': 4}).enum
PROFILE = enum_type(_GENERATED + 'Profile', {'Any': 0, 'Domain': 1, 'Private': 2, 'Public': 4, 'NotApplicable': 65535},
                    flags=True).enum
_CIM_EXCEPTION = 'Microsoft.Management.Infrastructure.CimException'


class NetFirewallRule(CimInstance):
    """MSFT_NetFirewallRule (the properties Get-NetFirewallRule lists, in its order)."""
    CLASS = 'MSFT_NetFirewallRule'
    KEY = 'Name'
    PROPERTIES = ('Name', 'DisplayName', 'Description', 'DisplayGroup', 'Group', 'Enabled', 'Profile', 'Platform',
                  'Direction', 'Action', 'EdgeTraversalPolicy', 'LooseSourceMapping', 'LocalOnlyMapping', 'Owner',
                  'PrimaryStatus', 'Status', 'EnforcementStatus', 'PolicyStoreSource', 'PolicyStoreSourceType',
                  'InstanceID', 'ElementName')


class NetProtocolPortFilter(CimInstance):
    """MSFT_NetProtocolPortFilter: one per rule, its InstanceID the rule's."""
    CLASS = 'MSFT_NetProtocolPortFilter'
    KEY = 'InstanceID'
    PROPERTIES = ('Protocol', 'LocalPort', 'RemotePort', 'IcmpType', 'DynamicTarget', 'InstanceID')


class NetAddressFilter(CimInstance):
    """MSFT_NetAddressFilter: one per rule, its InstanceID the rule's (Get-NetFirewallAddressFilter's page: "The
    filter-to-rule relationship is always one-to-one")."""
    CLASS = 'MSFT_NetAddressFilter'
    KEY = 'InstanceID'
    PROPERTIES = ('LocalAddress', 'LocalIP', 'RemoteAddress', 'RemoteIP', 'InstanceID')


# New-NetFirewallRule's -RemoteAddress keywords (a 4 or 6 appended restricts one to that family).
ADDRESS_KEYWORDS = ('Any', 'LocalSubnet', 'DNS', 'DHCP', 'WINS', 'DefaultGateway', 'Internet', 'Intranet',
                    'IntranetRemoteAccess', 'PlayToDevice')


def _remote_address(value, command):
    """One -RemoteAddress entry as Get-NetFirewallAddressFilter reads it back (see the module docstring)."""
    text = value.strip()
    keyword = next((word for word in ADDRESS_KEYWORDS if text.lower() in (word.lower(), word.lower() + '4',
                                                                          word.lower() + '6')), None)
    if keyword is not None:
        return text
    try:
        if '-' in text:
            first, last = (ipaddress.ip_address(part.strip()) for part in text.split('-', 1))
            if first.version != last.version:
                raise ValueError(text)
            return text
        if '/' not in text:
            return str(ipaddress.ip_address(text))
        address, suffix = text.split('/', 1)
        parsed = ipaddress.ip_address(address)
        if re.fullmatch(r'\d{1,3}', suffix):
            network = ipaddress.ip_network('%s/%s' % (address, suffix), strict=False)
            if parsed.version == 4:
                return '%s/%s' % (address, network.netmask)
            return text
        if parsed.version == 4:
            ipaddress.ip_network('%s/%s' % (address, suffix), strict=False)
            return text
    except ValueError:
        pass
    raise Unsupported('%s -RemoteAddress %r (a form New-NetFirewallRule\'s page does not list)' % (command, value))


def _values(value):
    if value is None:
        return None
    return [to_string(item) for item in (enumerate_value(value) if is_enumerable(value) else [value])]


def _rules(node):
    return node.data['firewall_rules']


def _rule_object(name, rule):
    return NetFirewallRule(
        Name=name, DisplayName=rule['display_name'], Description=rule.get('description', ''), DisplayGroup=None, Group='',
        Enabled=ENABLED(1 if rule['enabled'] else 2), Profile=PROFILE(0), Platform=PSArray([], 'System.String'),
        Direction=DIRECTION.parse(rule['direction']), Action=ACTION.parse(rule['action']),
        EdgeTraversalPolicy='Block', LooseSourceMapping=False, LocalOnlyMapping=False, Owner=None,
        PrimaryStatus='OK', Status='The rule was parsed successfully from the store. (65536)',
        EnforcementStatus='NotApplicable', PolicyStoreSource='PersistentStore', PolicyStoreSourceType='Local',
        InstanceID=name, ElementName=rule['display_name'])


def _not_found(ctx, property_name, value):
    ctx.write_error(PSError("No MSFT_NetFirewallRule objects found with property '%s' equal to '%s'.  Verify the value "
                            "of the property and retry." % (property_name, value), _CIM_EXCEPTION,
                            'CmdletizationQuery_NotFound_%s,%s' % (property_name, ctx.cmdlet.name), 'ObjectNotFound',
                            target=value))


def _select(ctx, params):
    """The rule names -Name / -DisplayName (wildcards) or piped rules select; errors for literal misses."""
    rules = _rules(ctx.host.node)
    if 'Name' in params or 'DisplayName' in params:
        by_name = 'Name' in params
        patterns = _values(params['Name' if by_name else 'DisplayName'])
        chosen = []
        for pattern in patterns:
            matcher = ops.wildcard(pattern)
            hits = [name for name, rule in rules.items()
                    if matcher.match(name if by_name else rule['display_name'])]
            if not hits and not any(char in pattern for char in '*?['):
                _not_found(ctx, 'InstanceID' if by_name else 'DisplayName', pattern)
            chosen.extend(name for name in hits if name not in chosen)
        return chosen
    if params.get('InputObject') is not None:
        return [to_string(item.Name) for item in enumerate_value(params['InputObject'])]
    return list(rules)


def get_netfirewallrule(ctx, params, input_items):
    rules = _rules(ctx.host.node)
    return [_rule_object(name, rules[name]) for name in _select(ctx, params)]


def _port_filter(name, rule):
    ports = list(rule['local_port']) or ['Any']
    protocol = rule['protocol']
    return NetProtocolPortFilter(Protocol=protocol.upper() if protocol.lower() in ('tcp', 'udp') else 'Any',
                                 LocalPort=PSArray(ports, 'System.String'), RemotePort=PSArray(['Any'], 'System.String'),
                                 IcmpType=PSArray(['Any'], 'System.String'), DynamicTarget='Any', InstanceID=name)


def _filtered_rule_names(rules, params, input_items):
    """The names of the rules a filter cmdlet reads: those of -AssociatedNetFirewallRule or of the pipeline's rule
    objects, or every rule."""
    associated = params.get('AssociatedNetFirewallRule')
    if associated is not None:
        items = list(enumerate_value(associated)) if is_enumerable(associated) else [associated]
    elif input_items is not None:
        items = list(input_items)
    else:
        return list(rules)
    return [to_string(item.Name) for item in items if isinstance(item, NetFirewallRule)]


def get_netfirewallportfilter(ctx, params, input_items):
    rules = _rules(ctx.host.node)
    names = _filtered_rule_names(rules, params, input_items)
    protocols = _values(params.get('Protocol'))
    out = []
    for name in names:
        if name not in rules:
            continue
        port_filter = _port_filter(name, rules[name])
        if protocols is None or port_filter.Protocol.lower() in [p.lower() for p in protocols]:
            out.append(port_filter)
    return out


def _address_filter(name, rule):
    remote = list(rule.get('remote_address') or []) or ['Any']
    return NetAddressFilter(LocalAddress=PSArray(['Any'], 'System.String'), LocalIP=PSArray(['Any'], 'System.String'),
                            RemoteAddress=PSArray(remote, 'System.String'), RemoteIP=PSArray(remote, 'System.String'),
                            InstanceID=name)


def get_netfirewalladdressfilter(ctx, params, input_items):
    rules = _rules(ctx.host.node)
    if params.get('AssociatedNetIPsecRule') is not None or params.get('AssociatedNetIPsecMainModeRule') is not None:
        raise Unsupported('Get-NetFirewallAddressFilter of IPsec rules')
    return [_address_filter(name, rules[name]) for name in _filtered_rule_names(rules, params, input_items)
            if name in rules]


def _enum_name(enum, value, parameter, command):
    """The enum member a parameter's value names; a value that is none fails to bind, as PowerShell reports it."""
    try:
        return str(enum.parse(to_string(value)) if not hasattr(value, 'enum') else enum(int(value)))
    except PSError as error:
        raise PSError("Cannot bind parameter '%s'. %s" % (parameter, error.message),
                      'System.Management.Automation.ParameterBindingException',
                      'CannotConvertArgumentNoMessage,%s' % command, 'InvalidArgument') from None


# The parameters of New-/Set-NetFirewallRule the model acts on, or selects rules by (the common parameters are the
# engine's); any other is Unsupported.
MODELLED = ('Name', 'DisplayName', 'NewDisplayName', 'Description', 'InputObject', 'Enabled', 'Direction', 'Action',
            'Protocol', 'LocalPort', 'RemoteAddress', 'PassThru')


def _settings(params, rule, command):
    """Apply the New-/Set-NetFirewallRule setting parameters to ``rule`` (a dict); nothing changes on a bad value."""
    unmodelled = sorted(set(params) - set(MODELLED))
    if unmodelled:
        raise Unsupported('%s -%s' % (command, unmodelled[0]))
    if 'NewDisplayName' in params:
        rule['display_name'] = to_string(params['NewDisplayName'])
    if 'Description' in params:
        rule['description'] = to_string(params['Description'])
    if 'Enabled' in params:
        rule['enabled'] = _enum_name(ENABLED, params['Enabled'], 'Enabled', command) == 'True'
    if 'Direction' in params:
        rule['direction'] = _enum_name(DIRECTION, params['Direction'], 'Direction', command).lower()
    if 'Action' in params:
        rule['action'] = _enum_name(ACTION, params['Action'], 'Action', command).lower()
    if 'Protocol' in params:
        rule['protocol'] = to_string(params['Protocol']).lower()
    if 'LocalPort' in params:
        ports = _values(params['LocalPort']) or []
        rule['local_port'] = [] if [port.lower() for port in ports] == ['any'] else ports
    if 'RemoteAddress' in params:
        addresses = [_remote_address(address, command) for address in _values(params['RemoteAddress']) or []]
        rule['remote_address'] = [] if [address.lower() for address in addresses] in ([], ['any']) else addresses
    return rule


def new_netfirewallrule(ctx, params, input_items):
    rules = _rules(ctx.host.node)
    name = to_string(params['Name']) if params.get('Name') is not None else '{%08x-0000-0000-0000-000000000000}' % len(rules)
    if name in rules:
        # CDXML cmdlets write a failed CIM method call as a non-terminating error.
        ctx.write_error(PSError('Cannot create a file when that file already exists.', _CIM_EXCEPTION,
                                'Windows System Error 183,New-NetFirewallRule', 'ResourceExists', target=name))
        return []
    rule = {'display_name': to_string(params['DisplayName']), 'enabled': True, 'direction': 'inbound',
            'action': 'allow', 'protocol': 'any', 'local_port': [], 'remote_address': []}
    _settings({key: value for key, value in params.items() if key != 'NewDisplayName'}, rule, 'New-NetFirewallRule')
    rules[name] = rule
    return [_rule_object(name, rule)]


def set_netfirewallrule(ctx, params, input_items):
    rules = _rules(ctx.host.node)
    selection = {key: params[key] for key in ('Name', 'DisplayName', 'InputObject') if key in params}
    out = []
    for name in _select(ctx, selection):
        updated = _settings(params, dict(rules[name]), 'Set-NetFirewallRule')
        rules[name] = updated
        if params.get('PassThru'):
            out.append(_rule_object(name, updated))
    return out


def remove_netfirewallrule(ctx, params, input_items):
    rules = _rules(ctx.host.node)
    for name in _select(ctx, params):
        rules.pop(name, None)
    return []


CMDLETS = {
    'Get-NetFirewallRule': get_netfirewallrule,
    'Get-NetFirewallPortFilter': get_netfirewallportfilter,
    'Get-NetFirewallAddressFilter': get_netfirewalladdressfilter,
    'New-NetFirewallRule': new_netfirewallrule,
    'Set-NetFirewallRule': set_netfirewallrule,
    'Remove-NetFirewallRule': remove_netfirewallrule,
}
# NetSecurity is a CDXML module (its reference pages list CimSession, ThrottleLimit and AsJob): pwsh/commands.py.
CMDLET_KIND = CDXML
