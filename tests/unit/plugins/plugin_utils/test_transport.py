"""The WinRM transport preflight: each combination of connection, scheme, authentication, message
encryption and certificate validation, judged as ansible-core's winrm and psrp plugins would connect."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kubewin.node.plugins.filter.transport import FilterModule
from ansible_collections.kubewin.node.plugins.plugin_utils import _transport

PREFLIGHT = FilterModule().filters()['transport_preflight']


def judged(**variables):
    return _transport.host_transport(variables, 'ssh')


# (variables, scheme, auth, insecure) for the winrm connection plugin.
WINRM_CASES = [
    # Port and scheme decide HTTP; with nothing set the plugin uses HTTPS on 5986.
    ({}, 'https', ['ssl'], False),
    ({'ansible_port': 5985}, 'http', ['plaintext'], True),
    ({'ansible_port': '5985'}, 'http', ['plaintext'], True),
    ({'ansible_winrm_port': 5985, 'ansible_port': 5986}, 'http', ['plaintext'], True),
    ({'ansible_port': 5985, 'ansible_winrm_scheme': 'https'}, 'https', ['ssl'], False),
    ({'ansible_port': 8080, 'ansible_winrm_scheme': 'http', 'ansible_winrm_transport': 'basic'}, 'http', ['basic'], True),
    # Basic in any spelling over HTTP.
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'basic'}, 'http', ['basic'], True),
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'ssl'}, 'http', ['ssl'], True),
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'certificate'}, 'http', ['certificate'], True),
    ({'ansible_winrm_scheme': 'http', 'ansible_winrm_transport': ['kerberos', 'basic']}, 'http',
     ['kerberos', 'basic'], True),
    ({'ansible_winrm_scheme': 'http', 'ansible_winrm_transport': 'ntlm,plaintext'}, 'http', ['ntlm', 'plaintext'], True),
    # NTLM, Kerberos and CredSSP over HTTP seal the messages unless message encryption is off.
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'ntlm'}, 'http', ['ntlm'], False),
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'NTLM', 'ansible_winrm_message_encryption': 'always'},
     'http', ['ntlm'], False),
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'ntlm', 'ansible_winrm_message_encryption': 'never'},
     'http', ['ntlm'], True),
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'kerberos'}, 'http', ['kerberos'], False),
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'kerberos', 'ansible_winrm_message_encryption': 'never'},
     'http', ['kerberos'], True),
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'credssp'}, 'http', ['credssp'], False),
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'credssp', 'ansible_winrm_message_encryption': 'never'},
     'http', ['credssp'], True),
    # A UPN user without a transport gets Kerberos, encrypted over HTTP.
    ({'ansible_port': 5985, 'ansible_user': 'deploy@EXAMPLE.INTERNAL'}, 'http', ['kerberos'], False),
    ({'ansible_port': 5985, 'ansible_user': 'deploy@EXAMPLE.INTERNAL', 'ansible_winrm_user': 'deploy'}, 'http',
     ['plaintext'], True),
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'foo'}, 'http', ['foo'], True),
    # Over HTTPS every authentication is fine while the certificate is validated.
    ({'ansible_winrm_transport': 'basic'}, 'https', ['basic'], False),
    ({'ansible_winrm_transport': 'ntlm', 'ansible_winrm_message_encryption': 'never'}, 'https', ['ntlm'], False),
    ({'ansible_winrm_transport': 'certificate', 'ansible_winrm_server_cert_validation': 'validate'}, 'https',
     ['certificate'], False),
    ({'ansible_winrm_transport': 'kerberos', 'ansible_winrm_server_cert_validation': 'ignore'}, 'https',
     ['kerberos'], True),
    ({'ansible_winrm_server_cert_validation': 'ignore'}, 'https', ['ssl'], True),
    # Over HTTP there is no certificate: the setting changes nothing.
    ({'ansible_port': 5985, 'ansible_winrm_transport': 'kerberos', 'ansible_winrm_server_cert_validation': 'ignore'},
     'http', ['kerberos'], False),
]


@pytest.mark.parametrize('connection', ['winrm', 'ansible.builtin.winrm', 'ansible.legacy.winrm'])
@pytest.mark.parametrize('variables, scheme, auth, insecure', WINRM_CASES)
def test_winrm(connection, variables, scheme, auth, insecure):
    settings = judged(ansible_connection=connection, **variables)
    assert (settings['connection'], settings['checked'], settings['scheme'], settings['auth']) == (
        'winrm', True, scheme, auth)
    assert bool(settings['problems']) is insecure, settings['problems']


# (variables, scheme, port, auth, insecure) for the psrp connection plugin.
PSRP_CASES = [
    ({}, 'https', 5986, 'negotiate', False),
    ({'ansible_port': 5985}, 'http', 5985, 'negotiate', False),
    ({'ansible_psrp_port': 5985, 'ansible_port': 5986}, 'http', 5985, 'negotiate', False),
    ({'ansible_psrp_protocol': 'http'}, 'http', 5985, 'negotiate', False),
    ({'ansible_psrp_protocol': 'https', 'ansible_port': 5985}, 'https', 5985, 'negotiate', False),
    ({'ansible_port': 8443}, 'https', 8443, 'negotiate', False),
    ({'ansible_psrp_protocol': 'http', 'ansible_psrp_auth': 'basic'}, 'http', 5985, 'basic', True),
    ({'ansible_port': 5985, 'ansible_psrp_auth': 'certificate'}, 'http', 5985, 'certificate', True),
    ({'ansible_port': 5985, 'ansible_psrp_auth': 'ntlm'}, 'http', 5985, 'ntlm', False),
    ({'ansible_port': 5985, 'ansible_psrp_auth': 'ntlm', 'ansible_psrp_message_encryption': 'never'},
     'http', 5985, 'ntlm', True),
    ({'ansible_port': 5985, 'ansible_psrp_message_encryption': 'never'}, 'http', 5985, 'negotiate', True),
    ({'ansible_port': 5985, 'ansible_psrp_auth': 'kerberos', 'ansible_psrp_message_encryption': 'always'},
     'http', 5985, 'kerberos', False),
    ({'ansible_port': 5985, 'ansible_psrp_auth': 'credssp'}, 'http', 5985, 'credssp', False),
    ({'ansible_port': 5985, 'ansible_psrp_auth': 'kerberos', 'ansible_psrp_message_encryption': 'sometimes'},
     'http', 5985, 'kerberos', True),
    ({'ansible_psrp_auth': 'basic'}, 'https', 5986, 'basic', False),
    ({'ansible_psrp_auth': 'basic', 'ansible_psrp_message_encryption': 'never'}, 'https', 5986, 'basic', False),
    ({'ansible_psrp_cert_validation': 'validate'}, 'https', 5986, 'negotiate', False),
    ({'ansible_psrp_cert_validation': 'ignore'}, 'https', 5986, 'negotiate', True),
    ({'ansible_psrp_cert_validation': False}, 'https', 5986, 'negotiate', True),
    ({'ansible_psrp_cert_validation': 'false'}, 'https', 5986, 'negotiate', True),
    ({'ansible_psrp_protocol': 'ftp'}, 'ftp', 5985, 'negotiate', True),
]


@pytest.mark.parametrize('variables, scheme, port, auth, insecure', PSRP_CASES)
def test_psrp(variables, scheme, port, auth, insecure):
    settings = judged(ansible_connection='psrp', **variables)
    assert (settings['connection'], settings['scheme'], settings['port'], settings['auth']) == (
        'psrp', scheme, port, [auth])
    assert bool(settings['problems']) is insecure, settings['problems']


@pytest.mark.parametrize('connection', ['ssh', 'kubewin_simnode', 'local'])
def test_a_connection_that_is_not_winrm_is_not_judged(connection):
    settings = judged(ansible_connection=connection, ansible_port=5985, ansible_winrm_transport='basic')
    assert settings == {'connection': connection, 'checked': False, 'problems': []}


def test_the_default_connection_applies_to_hosts_without_one():
    assert _transport.host_transport({'ansible_port': 5985}, 'winrm')['problems']
    assert not _transport.host_transport({'ansible_port': 5985}, 'ssh')['checked']
    assert _transport.host_transport({'ansible_port': 5985, 'ansible_connection': 'ssh'}, 'winrm')['checked'] is False


def test_problems_name_the_settings():
    (problem,) = judged(ansible_connection='winrm', ansible_port=5985, ansible_winrm_transport='basic')['problems']
    assert problem.startswith('ansible_winrm_transport=basic over plain HTTP (ansible_port=5985): basic authentication')
    (problem,) = judged(ansible_connection='winrm', ansible_port=5985)['problems']
    assert 'ansible_winrm_transport unset (the winrm plugin picks plaintext)' in problem
    (problem,) = judged(ansible_connection='psrp', ansible_psrp_protocol='http', ansible_psrp_auth='ntlm',
                        ansible_psrp_message_encryption='never')['problems']
    assert problem.startswith('ansible_psrp_auth=ntlm with ansible_psrp_message_encryption=never over plain HTTP '
                              '(ansible_psrp_protocol=http)')
    (problem,) = judged(ansible_connection='winrm', ansible_winrm_server_cert_validation='ignore')['problems']
    assert problem.startswith('ansible_winrm_server_cert_validation=ignore over HTTPS (default port 5986)')


FLEET = {
    'secure-1': {'ansible_connection': 'psrp', 'ansible_port': 5986},
    'secure-2': {'ansible_connection': 'winrm', 'ansible_port': 5985, 'ansible_winrm_transport': 'kerberos'},
    'basic-1': {'ansible_connection': 'winrm', 'ansible_port': 5985, 'ansible_winrm_transport': 'basic'},
    'basic-2': {'ansible_connection': 'winrm', 'ansible_port': 5985, 'ansible_winrm_transport': 'basic'},
    'unvalidated': {'ansible_connection': 'psrp', 'ansible_psrp_cert_validation': 'ignore'},
    'sim': {'ansible_connection': 'kubewin_simnode', 'ansible_port': 5985},
}


def test_the_preflight_names_every_refused_host_and_setting():
    with pytest.raises(AnsibleFilterError) as caught:
        PREFLIGHT(FLEET, list(FLEET))
    message = str(caught.value)
    assert message.startswith('insecure WinRM transport to 3 Windows node(s), refused before any node is contacted: '
                              'basic-1, basic-2: ansible_winrm_transport=basic over plain HTTP (ansible_port=5985)')
    assert '; unvalidated: ansible_psrp_cert_validation=ignore over HTTPS' in message
    assert 'secure-' not in message and 'sim' not in message
    assert message.endswith('set kubewin_allow_insecure_transport: true.')


def test_an_accepted_risk_is_a_warning(monkeypatch):
    warnings = []
    monkeypatch.setattr('ansible_collections.kubewin.node.plugins.filter.transport.display.warning', warnings.append)
    fleet = {host: dict(variables, kubewin_allow_insecure_transport=host.startswith('basic') or 'yes')
             for host, variables in FLEET.items()}
    report = PREFLIGHT(fleet, list(fleet))
    assert sorted(report['accepted']) == ['basic-1', 'basic-2', 'unvalidated']
    assert report['unchecked'] == ['sim']
    assert report['nodes']['secure-2']['auth'] == ['kerberos'] and not report['nodes']['secure-2']['problems']
    (warning,) = warnings
    assert warning.startswith('kubewin_allow_insecure_transport is true for 3 Windows node(s) with an insecure WinRM '
                              'transport: basic-1, basic-2: ansible_winrm_transport=basic')


def test_the_opt_in_is_per_host():
    fleet = dict(FLEET, **{'basic-1': dict(FLEET['basic-1'], kubewin_allow_insecure_transport=True),
                           'unvalidated': dict(FLEET['unvalidated'], kubewin_allow_insecure_transport='true')})
    with pytest.raises(AnsibleFilterError, match=r'to 1 Windows node\(s\), refused before any node is contacted: '
                                                 r'basic-2: ansible_winrm_transport=basic'):
        PREFLIGHT(fleet, list(fleet))
    with pytest.raises(AnsibleFilterError, match=r"basic-1: kubewin_allow_insecure_transport='maybe' is not a boolean"):
        PREFLIGHT({'basic-1': dict(FLEET['basic-1'], kubewin_allow_insecure_transport='maybe')}, ['basic-1'])


def test_a_secure_fleet_passes_without_warning(monkeypatch):
    warnings = []
    monkeypatch.setattr('ansible_collections.kubewin.node.plugins.filter.transport.display.warning', warnings.append)
    report = PREFLIGHT(FLEET, ['secure-1', 'secure-2', 'sim'])
    assert report['accepted'] == {} and report['unchecked'] == ['sim'] and warnings == []


def test_the_default_connection_comes_from_the_controller(monkeypatch):
    monkeypatch.setattr('ansible.context.CLIARGS', {'connection': 'winrm'})
    with pytest.raises(AnsibleFilterError, match='plain-1: ansible_winrm_transport unset'):
        PREFLIGHT({'plain-1': {'ansible_port': 5985}}, ['plain-1'])
    monkeypatch.setattr('ansible.context.CLIARGS', {})
    assert PREFLIGHT({'plain-1': {'ansible_port': 5985}}, ['plain-1'])['unchecked'] == ['plain-1']
    assert PREFLIGHT({'plain-1': {'ansible_port': 5985}}, ['plain-1'], 'psrp')['unchecked'] == []


def test_a_port_that_is_not_a_number_names_the_host():
    with pytest.raises(AnsibleFilterError, match=r"win-1: ansible_port='winrm' is not a port number"):
        PREFLIGHT({'win-1': {'ansible_connection': 'winrm', 'ansible_port': 'winrm'}}, ['win-1'])


def test_long_host_lists_are_shortened():
    fleet = {'win-%03d' % index: FLEET['basic-1'] for index in range(25)}
    with pytest.raises(AnsibleFilterError, match=r'win-018, win-019 and 5 more: ansible_winrm_transport=basic'):
        PREFLIGHT(fleet, sorted(fleet))
