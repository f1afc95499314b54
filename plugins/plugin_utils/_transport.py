# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the controller reaches each Windows node, judged before any node is contacted.

Internal to kubewin.node, not a public API. The public interface is the
``transport_preflight`` filter that the ``plan`` role runs.

The controller talks to a Windows node over WinRM, with the ``winrm`` or the
``psrp`` connection plugin of ansible-core. Both speak HTTP or HTTPS. Over plain
HTTP only the authentication protocols that can seal the messages themselves
(NTLM, Kerberos, CredSSP; ``negotiate`` picks Kerberos or NTLM) keep the
credentials and the payload (kubeconfigs, bootstrap tokens) private, and only
while message encryption is on. Over HTTPS, TLS protects everything, but only
when the node's certificate is validated: an unvalidated certificate lets anyone
on the path pose as the node and collect the credentials.

The effective settings are worked out as the connection plugins work them out
(defaults and variable precedence of ansible-core's ``winrm`` and ``psrp``
plugins and pywinrm), so an inventory that sets nothing is judged by what the
plugin will really do.
"""

from __future__ import annotations

import typing as t

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

ALLOW_VARIABLE = 'kubewin_allow_insecure_transport'
HTTP_PORT = 5985
HTTPS_PORT = 5986

# Authentication that seals (encrypts and signs) WinRM messages by itself, so HTTP is
# acceptable while message encryption is not turned off.
SEALING_AUTH = frozenset(('ntlm', 'kerberos', 'credssp', 'negotiate'))
# Authentication that never encrypts a message: only TLS protects it. pywinrm's
# 'plaintext' and 'ssl' transports are Basic authentication (ssl only chooses HTTPS when
# no client certificate is given).
CLEARTEXT_AUTH = frozenset(('basic', 'plaintext', 'ssl', 'certificate'))
MESSAGE_ENCRYPTION = ('auto', 'always', 'never')
_VALIDATING = frozenset(('validate', 'true', 'yes', 'on', '1'))

REMEDY = ('use HTTPS (port 5986) with certificate validation, or Kerberos or NTLM over HTTP with message '
          'encryption (auto or always)')


class TransportError(AnsibleFilterError):
    """The inventory lets the controller reach a node over an insecure transport."""


def _last_set(variables: t.Mapping[str, t.Any], names: t.Sequence[str]) -> tuple[str | None, t.Any]:
    # Of the variables a plugin option reads, the last one in its list that is set wins.
    found: tuple[str | None, t.Any] = (None, None)
    for name in names:
        value = variables.get(name)
        if value is not None and value != '':
            found = (name, value)
    return found


def _port(variables: t.Mapping[str, t.Any], names: t.Sequence[str]) -> tuple[str | None, int | None]:
    name, value = _last_set(variables, names)
    if value is None:
        return None, None
    try:
        return name, int(value)
    except (TypeError, ValueError):
        raise TransportError('%s=%r is not a port number' % (name, value)) from None


def _words(value: t.Any) -> list[str]:
    # A plugin option of type list also takes a comma-separated string.
    if value is None or value == '':
        return []
    items = value.split(',') if isinstance(value, str) else list(value)
    return [str(item).strip().lower() for item in items if str(item).strip()]


def _validates(value: t.Any) -> bool:
    if value is None or value == '':
        return True
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _VALIDATING


def connection_plugin(name: t.Any) -> str:
    """The short name of a connection plugin: ``ansible.builtin.winrm`` and ``winrm`` are the same."""
    text = str(name or '').strip()
    for prefix in ('ansible.builtin.', 'ansible.legacy.'):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def _plain_http_problems(auth: list[str], auth_setting: str, encryption: str, encryption_setting: str,
                         endpoint: str) -> list[str]:
    problems = []
    for method in auth:
        if method in CLEARTEXT_AUTH:
            problems.append('%s over plain HTTP (%s): %s authentication never encrypts, so the password and every '
                            'message cross the network readable' % (auth_setting, endpoint, method))
        elif method in SEALING_AUTH:
            if encryption == 'never':
                problems.append('%s with %s=never over plain HTTP (%s): the messages, kubeconfigs and bootstrap '
                                'tokens included, cross the network unencrypted'
                                % (auth_setting, encryption_setting, endpoint))
        else:
            problems.append('%s over plain HTTP (%s): %s is not an authentication the preflight knows to encrypt '
                            'the messages' % (auth_setting, endpoint, method))
    if encryption not in MESSAGE_ENCRYPTION:
        problems.append('%s=%s is none of %s' % (encryption_setting, encryption, ', '.join(MESSAGE_ENCRYPTION)))
    return problems


def winrm_settings(variables: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """Effective settings of ansible-core's winrm connection plugin for one host, and what is wrong with them."""
    port_name, port = _port(variables, ('ansible_port', 'ansible_winrm_port'))
    port = HTTPS_PORT if port is None else port
    scheme_value = variables.get('ansible_winrm_scheme')
    if scheme_value:
        scheme = str(scheme_value).lower()
        endpoint = 'ansible_winrm_scheme=%s' % scheme
    else:
        scheme = 'http' if port == HTTP_PORT else 'https'
        endpoint = '%s=%s' % (port_name, port) if port_name else 'default port %s' % port
    transports = _words(variables.get('ansible_winrm_transport'))
    if transports:
        auth_setting = 'ansible_winrm_transport=%s' % ','.join(transports)
    else:
        # The plugin's choice when nothing is set: Kerberos for a UPN, otherwise Basic.
        user = _last_set(variables, ('ansible_user', 'ansible_winrm_user'))[1]
        if user and '@' in str(user):
            transports = ['kerberos']
        else:
            transports = ['ssl'] if scheme == 'https' else ['plaintext']
        auth_setting = 'ansible_winrm_transport unset (the winrm plugin picks %s)' % transports[0]
    encryption = str(variables.get('ansible_winrm_message_encryption') or 'auto').lower()
    validation = variables.get('ansible_winrm_server_cert_validation')
    settings = {'connection': 'winrm', 'scheme': scheme, 'port': port, 'auth': transports,
                'message_encryption': encryption, 'cert_validation': _validates(validation)}
    settings['problems'] = _problems(settings, auth_setting, 'ansible_winrm_message_encryption', endpoint,
                                     'ansible_winrm_server_cert_validation', validation, 'ansible_winrm_scheme')
    return settings


def psrp_settings(variables: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """Effective settings of ansible-core's psrp connection plugin for one host, and what is wrong with them."""
    port_name, port = _port(variables, ('ansible_port', 'ansible_psrp_port'))
    protocol_value = variables.get('ansible_psrp_protocol')
    if protocol_value:
        scheme = str(protocol_value).lower()
        endpoint = 'ansible_psrp_protocol=%s' % scheme
        if port is None:
            port = HTTPS_PORT if scheme == 'https' else HTTP_PORT
    elif port is None:
        scheme, port, endpoint = 'https', HTTPS_PORT, 'default port %s' % HTTPS_PORT
    else:
        scheme = 'http' if port == HTTP_PORT else 'https'
        endpoint = '%s=%s' % (port_name, port)
    auth = str(variables.get('ansible_psrp_auth') or 'negotiate').lower()
    auth_setting = ('ansible_psrp_auth=%s' % auth if variables.get('ansible_psrp_auth')
                    else 'ansible_psrp_auth unset (negotiate)')
    encryption = str(variables.get('ansible_psrp_message_encryption') or 'auto').lower()
    validation = variables.get('ansible_psrp_cert_validation')
    settings = {'connection': 'psrp', 'scheme': scheme, 'port': port, 'auth': [auth],
                'message_encryption': encryption, 'cert_validation': _validates(validation)}
    settings['problems'] = _problems(settings, auth_setting, 'ansible_psrp_message_encryption', endpoint,
                                     'ansible_psrp_cert_validation', validation, 'ansible_psrp_protocol')
    return settings


def _problems(settings: dict[str, t.Any], auth_setting: str, encryption_setting: str, endpoint: str,
              validation_setting: str, validation: t.Any, scheme_setting: str) -> list[str]:
    if settings['scheme'] == 'http':
        return _plain_http_problems(settings['auth'], auth_setting, settings['message_encryption'],
                                    encryption_setting, endpoint)
    if settings['scheme'] != 'https':
        return ['%s=%s is neither http nor https' % (scheme_setting, settings['scheme'])]
    if not settings['cert_validation']:
        return ['%s=%s over HTTPS (%s): the node\'s certificate is not validated, so anyone on the path can pose '
                'as the node and collect the credentials' % (validation_setting, validation, endpoint)]
    return []


def host_transport(variables: t.Mapping[str, t.Any], default_connection: str) -> dict[str, t.Any]:
    """What one host's connection variables amount to.

    ``checked`` is false for a connection that is not WinRM (ssh, or a test double such as
    the simulated node's connection): there is nothing of WinRM's to judge.
    """
    connection = connection_plugin(variables.get('ansible_connection') or default_connection)
    if connection == 'winrm':
        settings = winrm_settings(variables)
    elif connection == 'psrp':
        settings = psrp_settings(variables)
    else:
        return {'connection': connection, 'checked': False, 'problems': []}
    settings['checked'] = True
    return settings


def _names(hosts: list[str], shown: int = 20) -> str:
    more = len(hosts) - shown
    return ', '.join(hosts[:shown]) + (' and %d more' % more if more > 0 else '')


def describe(problems_by_host: t.Mapping[str, list[str]]) -> str:
    """Hosts grouped by problem, one clause per problem: ``win-1, win-2: <setting>: <why>``."""
    grouped: dict[str, list[str]] = {}
    for host, problems in problems_by_host.items():
        for problem in problems:
            grouped.setdefault(problem, []).append(host)
    return '; '.join('%s: %s' % (_names(hosts), problem) for problem, hosts in grouped.items())


def transport_preflight(hostvars: t.Mapping[str, t.Mapping[str, t.Any]], hosts: t.Sequence[str],
                        default_connection: str = 'ssh') -> dict[str, t.Any]:
    """Judge the connection of every host; fail on an insecure one the inventory has not accepted.

    Returns ``{'nodes': {host: settings}, 'accepted': {host: [problem]}, 'unchecked': [host]}``;
    ``accepted`` are the insecure hosts whose ``kubewin_allow_insecure_transport`` is true. Raises
    TransportError naming every other insecure host and its setting.
    """
    nodes, refused, accepted, unchecked = {}, {}, {}, []
    for host in hosts:
        variables = hostvars[host]
        try:
            settings = host_transport(variables, default_connection)
        except TransportError as error:
            raise TransportError('%s: %s' % (host, error)) from None
        nodes[host] = settings
        if not settings['checked']:
            unchecked.append(host)
        elif settings['problems']:
            try:
                allowed = boolean(variables.get(ALLOW_VARIABLE) or False, strict=True)
            except TypeError:
                raise TransportError('%s: %s=%r is not a boolean'
                                     % (host, ALLOW_VARIABLE, variables.get(ALLOW_VARIABLE))) from None
            (accepted if allowed else refused)[host] = settings['problems']
    if refused:
        raise TransportError(
            'insecure WinRM transport to %d Windows node(s), refused before any node is contacted: %s. '
            'Fix: %s. To accept the risk for these hosts, set %s: true.'
            % (len(refused), describe(refused), REMEDY, ALLOW_VARIABLE))
    return {'nodes': nodes, 'accepted': accepted, 'unchecked': unchecked}


def acceptance_warning(accepted: t.Mapping[str, list[str]]) -> str:
    """The warning for insecure hosts the inventory accepted with kubewin_allow_insecure_transport."""
    return ('%s is true for %d Windows node(s) with an insecure WinRM transport: %s. Fix: %s.'
            % (ALLOW_VARIABLE, len(accepted), describe(accepted), REMEDY))
