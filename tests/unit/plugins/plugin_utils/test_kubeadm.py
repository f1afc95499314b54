"""kubeadm join credentials and kubeadm-config checks (plugins/plugin_utils/_kubeadm.py)."""

import base64
import datetime
import hashlib

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from ansible.errors import AnsibleFilterError
from ansible_collections.kubewin.node.plugins.plugin_utils import _kubeadm
from ansible_collections.kubewin.node.plugins.plugin_utils._kubeadm import KubeadmError

NOW = datetime.datetime(2026, 3, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)


def certificate(key):
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, 'kubernetes')])
    return (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(NOW).not_valid_after(NOW + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))


@pytest.fixture(scope='module')
def rsa_ca():
    return certificate(rsa.generate_private_key(public_exponent=65537, key_size=2048))


def expected_hash(cert):
    spki = cert.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return 'sha256:' + hashlib.sha256(spki).hexdigest()


# -- ca_cert_hash ------------------------------------------------------------------------------

def test_hash_of_kubeconfig_ca_data_matches_an_independent_computation(rsa_ca):
    pem = rsa_ca.public_bytes(serialization.Encoding.PEM)
    ca_data = base64.b64encode(pem).decode()
    assert _kubeadm.ca_cert_hash(ca_data) == expected_hash(rsa_ca)


def test_pem_text_der_and_bytes_give_the_same_hash(rsa_ca):
    pem = rsa_ca.public_bytes(serialization.Encoding.PEM)
    der = rsa_ca.public_bytes(serialization.Encoding.DER)
    wanted = expected_hash(rsa_ca)
    assert _kubeadm.ca_cert_hash(pem.decode()) == wanted
    assert _kubeadm.ca_cert_hash(pem) == wanted
    assert _kubeadm.ca_cert_hash(base64.b64encode(der).decode()) == wanted
    # kubeconfig files sometimes wrap the base64 over lines
    wrapped = '\n'.join(base64.b64encode(pem).decode()[i:i + 64] for i in range(0, 2000, 64))
    assert _kubeadm.ca_cert_hash(wrapped) == wanted


def test_hash_covers_the_public_key_not_the_certificate(rsa_ca):
    # A re-issued CA certificate with the same key pins the same hash; another key does not.
    assert _kubeadm.ca_cert_hash(rsa_ca.public_bytes(serialization.Encoding.PEM).decode()) != \
        'sha256:' + hashlib.sha256(rsa_ca.public_bytes(serialization.Encoding.DER)).hexdigest()
    other = certificate(ec.generate_private_key(ec.SECP256R1()))
    assert _kubeadm.ca_cert_hash(other.public_bytes(serialization.Encoding.PEM).decode()) == expected_hash(other)
    assert expected_hash(other) != expected_hash(rsa_ca)


def test_bundle_hashes_its_first_certificate(rsa_ca):
    other = certificate(ec.generate_private_key(ec.SECP256R1()))
    bundle = rsa_ca.public_bytes(serialization.Encoding.PEM) + other.public_bytes(serialization.Encoding.PEM)
    assert _kubeadm.ca_cert_hash(base64.b64encode(bundle).decode()) == expected_hash(rsa_ca)


@pytest.mark.parametrize('bad, message', [
    (None, 'as text, got NoneType'),
    (42, 'as text, got int'),
    ('', 'empty CA certificate'),
    ('   ', 'empty CA certificate'),
    ('not base64 at all!', 'neither'),
    (base64.b64encode(b'hello world').decode(), 'not an X.509 certificate'),
    ('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', 'not an X.509 certificate'),
])
def test_bad_input_raises_a_filter_error(bad, message):
    with pytest.raises(AnsibleFilterError, match=message):
        _kubeadm.ca_cert_hash(bad)


# -- durations and tokens ---------------------------------------------------------------------------

@pytest.mark.parametrize('text, seconds', [('1h', 3600), ('30m', 1800), ('1h30m', 5400), ('45s', 45),
                                           ('2h0m5s', 7205), (600, 600)])
def test_durations(text, seconds):
    assert _kubeadm.parse_duration('ttl', text) == seconds


@pytest.mark.parametrize('text', ['', '1d', 'h', '0', '0h', 0, -5, True, '1 h', None])
def test_bad_durations(text):
    with pytest.raises(KubeadmError, match='ttl'):
        _kubeadm.parse_duration('ttl', text)


def token_secret(token, expires, name=None):
    token_id, secret = token.split('.')
    data = {'token-id': token_id, 'token-secret': secret, 'expiration': expires,
            'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true'}
    return {'apiVersion': 'v1', 'kind': 'Secret', 'type': 'bootstrap.kubernetes.io/token',
            'metadata': {'name': name or 'bootstrap-token-%s' % token_id, 'namespace': 'kube-system'},
            'data': {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}}


def test_new_token_has_kubeadms_shape_and_the_ttl():
    chosen = _kubeadm.bootstrap_token([], '1h', '30m', now=NOW)
    assert _kubeadm.TOKEN_RE.fullmatch(chosen['token'])
    assert chosen['token_id'] == chosen['token'][:6]
    assert chosen['expires'] == '2026-03-01T13:00:00Z'
    assert chosen['reused'] is False
    assert _kubeadm.bootstrap_token([], now=NOW)['token'] != chosen['token']


def test_a_token_with_enough_time_left_is_reused():
    secrets = [token_secret('abcdef.0123456789abcdef', '2026-03-01T12:45:00Z'),
               token_secret('ghijkl.0123456789abcdef', '2026-03-01T12:50:00+00:00')]
    chosen = _kubeadm.bootstrap_token(secrets, '1h', '30m', now=NOW)
    assert chosen == {'token': 'ghijkl.0123456789abcdef', 'token_id': 'ghijkl',
                      'expires': '2026-03-01T12:50:00Z', 'reused': True}


@pytest.mark.parametrize('secret', [
    token_secret('abcdef.0123456789abcdef', '2026-03-01T12:29:59Z'),   # less than min_remaining left
    token_secret('abcdef.0123456789abcdef', '2026-03-01T11:00:00Z'),   # expired
    token_secret('abcdef.0123456789abcdef', 'never'),                  # unreadable expiration
    token_secret('abcdef.0123456789abcdef', '2026-03-01T12:50:00'),    # no time zone
    token_secret('abcdef.0123456789abcdef', '2026-03-01T12:50:00Z', name='bootstrap-token-zzzzzz'),
    token_secret('ABCDEF.0123456789abcdef', '2026-03-01T12:50:00Z'),   # not a valid token
])
def test_unusable_tokens_are_not_reused(secret):
    chosen = _kubeadm.bootstrap_token([secret], '1h', '30m', now=NOW)
    assert chosen['reused'] is False and chosen['token'] != 'abcdef.0123456789abcdef'


def test_a_token_without_authentication_usage_is_not_reused():
    secret = token_secret('abcdef.0123456789abcdef', '2026-03-01T12:50:00Z')
    secret['data']['usage-bootstrap-authentication'] = base64.b64encode(b'false').decode()
    assert _kubeadm.bootstrap_token([secret], '1h', '30m', now=NOW)['reused'] is False


def test_min_remaining_must_be_shorter_than_ttl():
    with pytest.raises(KubeadmError, match='shorter than ttl'):
        _kubeadm.bootstrap_token([], '30m', '30m', now=NOW)


def test_existing_must_be_a_list():
    with pytest.raises(KubeadmError, match='list of existing token Secrets'):
        _kubeadm.bootstrap_token({'resources': []}, now=NOW)


# -- kubeadm-config against the plan ------------------------------------------------------------------

PLAN = {'cluster_cidr': '10.244.0.0/16', 'service_cidr': '10.96.0.0/12', 'dns_service_ip': '10.96.0.10',
        'cluster_domain': 'cluster.local', 'l2bridge_routing': 'flannel'}

CONFIGURATION = '''apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.31.4
controlPlaneEndpoint: k8s-api.example.internal:6443
networking:
  dnsDomain: cluster.local
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
'''


def test_matching_cluster_has_no_differences():
    assert _kubeadm.cluster_network_differences(PLAN, CONFIGURATION, '10.96.0.10') == []
    networking = _kubeadm.kubeadm_networking(CONFIGURATION)
    assert networking == {'kubernetes_version': 'v1.31.4', 'control_plane_endpoint': 'k8s-api.example.internal:6443',
                          'pod_subnet': '10.244.0.0/16', 'service_subnet': '10.96.0.0/12',
                          'dns_domain': 'cluster.local'}


def test_each_contradiction_is_named_with_both_values_and_the_variable():
    configuration = CONFIGURATION.replace('podSubnet: 10.244.0.0/16', 'podSubnet: 10.245.0.0/16') \
        .replace('serviceSubnet: 10.96.0.0/12', 'serviceSubnet: 10.112.0.0/12') \
        .replace('dnsDomain: cluster.local', 'dnsDomain: corp.internal')
    assert _kubeadm.cluster_network_differences(PLAN, configuration, '10.112.0.10') == [
        'networking.podSubnet: cluster has 10.245.0.0/16, Windows nodes need 10.244.0.0/16 (kubewin_cluster_cidr)',
        'networking.serviceSubnet: cluster has 10.112.0.0/12, Windows nodes need 10.96.0.0/12 (kubewin_service_cidr)',
        'networking.dnsDomain: cluster has corp.internal, Windows nodes need cluster.local (kubewin_cluster_domain)',
        'kube-system/kube-dns clusterIP: cluster has 10.112.0.10, Windows nodes need 10.96.0.10 '
        '(kubewin_dns_service_ip)',
    ]


def test_kubeadm_defaults_apply_to_unset_fields():
    bare = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nnetworking:\n  podSubnet: 10.244.0.0/16\n'
    assert _kubeadm.cluster_network_differences(PLAN, bare) == []
    other = dict(PLAN, service_cidr='10.112.0.0/12')
    assert _kubeadm.cluster_network_differences(other, bare) == [
        'networking.serviceSubnet: cluster has 10.96.0.0/12, Windows nodes need 10.112.0.0/12 (kubewin_service_cidr)']


def test_missing_pod_subnet_matters_only_for_flannel():
    no_pods = 'kind: ClusterConfiguration\nnetworking:\n  serviceSubnet: 10.96.0.0/12\n'
    [message] = _kubeadm.cluster_network_differences(PLAN, no_pods)
    assert message.startswith('networking.podSubnet: cluster has none') and 'flannel' in message
    assert _kubeadm.cluster_network_differences(dict(PLAN, l2bridge_routing=None), no_pods) == []


def test_dual_stack_subnets_compare_their_ipv4_range():
    dual = CONFIGURATION.replace('podSubnet: 10.244.0.0/16', 'podSubnet: 10.244.0.0/16,fd00:10:244::/56')
    assert _kubeadm.cluster_network_differences(PLAN, dual) == []
    v6 = CONFIGURATION.replace('podSubnet: 10.244.0.0/16', 'podSubnet: fd00:10:244::/56')
    assert 'no IPv4 range' in _kubeadm.cluster_network_differences(PLAN, v6)[0]


def test_a_dual_stack_plan_needs_the_cluster_ranges_of_both_families():
    dual_plan = dict(PLAN, cluster_cidr='10.244.0.0/16,fd00:10:244::/56', service_cidr='10.96.0.0/12,fd00:10:96::/112',
                     l2bridge_routing='static_routes')
    dual = CONFIGURATION.replace('podSubnet: 10.244.0.0/16', 'podSubnet: fd00:10:244::/56,10.244.0.0/16') \
        .replace('serviceSubnet: 10.96.0.0/12', 'serviceSubnet: 10.96.0.0/12,fd00:10:96::/112')
    # The cluster may list its IPv6 range first (an IPv6-primary cluster): each family is compared on its own.
    assert _kubeadm.cluster_network_differences(dual_plan, dual) == []
    assert _kubeadm.cluster_network_differences(dual_plan, CONFIGURATION) == [
        'networking.podSubnet: cluster has 10.244.0.0/16, Windows nodes need 10.244.0.0/16,fd00:10:244::/56 '
        '(kubewin_cluster_cidr)',
        'networking.serviceSubnet: cluster has 10.96.0.0/12, Windows nodes need 10.96.0.0/12,fd00:10:96::/112 '
        '(kubewin_service_cidr)']


def test_dict_configuration_is_accepted_and_bad_documents_are_errors():
    import yaml
    assert _kubeadm.cluster_network_differences(PLAN, yaml.safe_load(CONFIGURATION)) == []
    with pytest.raises(KubeadmError, match='kind ClusterConfiguration'):
        _kubeadm.cluster_network_differences(PLAN, 'kind: InitConfiguration\n')
    with pytest.raises(KubeadmError, match='not YAML'):
        _kubeadm.cluster_network_differences(PLAN, 'kind: [unclosed\n')
    with pytest.raises(KubeadmError, match='plan_cluster'):
        _kubeadm.cluster_network_differences({}, CONFIGURATION)
