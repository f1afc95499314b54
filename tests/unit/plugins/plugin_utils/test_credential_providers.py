# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's image credential providers: the flags, the CredentialProviderConfig and the release's rules."""

from __future__ import annotations

import pytest
import yaml

from ansible_collections.kubewin.node.plugins.plugin_utils._flags import (
    FlagsError,
    credential_provider_config,
    kubelet_args,
)

KUBELET = {"kubernetes_version": "1.33.4", "hostname": "win-1", "service_manager": "scm"}
PATHS = {"credential_provider_config": "C:\\etc\\kubernetes\\credential-provider-config.yaml",
         "credential_provider_bin_dir": "C:\\k\\credential-provider"}
ECR = {"name": "ecr-credential-provider", "version": "1.31.7", "match_images": ["*.dkr.ecr.*.amazonaws.com"],
       "default_cache_duration": "12h", "env": {"AWS_REGION": "eu-west-1"}}
ACR = {"name": "acr-credential-provider", "url": "https://mirror.example.internal/azure-acr-credential-provider.exe",
       "checksum": "sha256:" + "ab" * 32, "match_images": ["*.azurecr.io", "*.azurecr.cn"],
       "default_cache_duration": "10m", "args": ["C:\\k\\azure.json"]}
TOKEN = {"service_account_token_audience": "sts.example.com", "require_service_account": True,
         "required_service_account_annotation_keys": ["example.com/role"]}


def flags(args):
    return {arg.split("=", 1)[0]: arg.partition("=")[2] for arg in args}


def config(providers, version="1.33.4"):
    return yaml.safe_load(credential_provider_config({"kubernetes_version": version, "providers": providers}))


def test_no_providers_no_flags_and_no_config():
    args = flags(kubelet_args(dict(KUBELET, **PATHS))["args"])
    assert not [name for name in args if name.startswith("--image-credential-provider")]
    assert credential_provider_config({"kubernetes_version": "1.33.4", "providers": []}) is None


def test_providers_set_both_flags_and_the_config():
    args = flags(kubelet_args(dict(KUBELET, **PATHS, credential_providers=[ECR, ACR]))["args"])
    assert args["--image-credential-provider-config"] == PATHS["credential_provider_config"]
    assert args["--image-credential-provider-bin-dir"] == PATHS["credential_provider_bin_dir"]
    assert "--feature-gates" not in args
    assert config([ECR, ACR]) == {
        "apiVersion": "kubelet.config.k8s.io/v1", "kind": "CredentialProviderConfig", "providers": [
            {"name": "ecr-credential-provider", "matchImages": ["*.dkr.ecr.*.amazonaws.com"], "defaultCacheDuration": "12h",
             "apiVersion": "credentialprovider.kubelet.k8s.io/v1", "env": [{"name": "AWS_REGION", "value": "eu-west-1"}]},
            {"name": "acr-credential-provider", "matchImages": ["*.azurecr.io", "*.azurecr.cn"],
             "defaultCacheDuration": "10m", "apiVersion": "credentialprovider.kubelet.k8s.io/v1",
             "args": ["C:\\k\\azure.json"]}]}


def test_providers_need_both_paths():
    with pytest.raises(FlagsError, match="credential_provider_bin_dir"):
        kubelet_args(dict(KUBELET, credential_providers=[ECR], credential_provider_config=PATHS["credential_provider_config"]))


@pytest.mark.parametrize("change, message", [
    ({"match_images": []}, "must list at least one image pattern"),
    ({"match_images": ["https://*.azurecr.io"]}, "is not a registry pattern"),
    ({"match_images": ["registry.example.com:*/team"]}, "is not a registry pattern"),
    ({"match_images": ["registry.example.com/team/*"]}, "is not a registry pattern"),
    ({"match_images": ["registry.example.com:70000"]}, "has no valid port"),
    ({"default_cache_duration": None}, "needs default_cache_duration"),
    ({"default_cache_duration": "-1m"}, "must be a duration"),
    ({"default_cache_duration": "12 hours"}, "must be a duration"),
    ({"name": "ecr credential provider"}, "binary name"),
    ({"name": "acr-credential-provider.exe"}, "without .exe"),
    ({"version": None}, "needs where its binary comes from"),
    ({"url": "https://example.com/x.exe"}, "not both"),
    ({"api_version": "credentialprovider.kubelet.k8s.io/v2"}, "must be one of"),
    ({"env": {"AWS SECRET": "s3cret"}}, "must map variable names"),
    ({"cache": "12h"}, "unknown .* key"),
])
def test_a_provider_the_kubelet_would_refuse_is_refused(change, message):
    provider = {key: value for key, value in dict(ECR, **change).items() if value is not None}
    with pytest.raises(FlagsError, match=message) as error:
        kubelet_args(dict(KUBELET, **PATHS, credential_providers=[provider]))
    assert "s3cret" not in str(error.value), "an env value may be a secret"


def test_url_without_checksum_is_refused():
    with pytest.raises(FlagsError, match="needs both url and checksum"):
        config([{key: value for key, value in ACR.items() if key != "checksum"}])


def test_a_provider_named_twice_is_refused():
    with pytest.raises(FlagsError, match="twice"):
        config([ECR, dict(ACR, name=ECR["name"])])


@pytest.mark.parametrize("pattern", ["*.azurecr.io", "123456789012.dkr.ecr.us-east-1.amazonaws.com", "k8s.*.io",
                                     "app*.k8s.io", "registry.example.com:5000/team/images", "gcr.io", "localhost"])
def test_the_documented_match_image_patterns_pass(pattern):
    assert config([dict(ECR, match_images=[pattern])])["providers"][0]["matchImages"] == [pattern]


@pytest.mark.parametrize("minor, gate", [(33, True), (34, False), (37, False)])
def test_token_attributes_from_1_33_with_the_gate_where_it_is_alpha(minor, gate):
    token = dict(TOKEN, cache_type="ServiceAccount") if minor >= 34 else TOKEN
    args = flags(kubelet_args(dict(KUBELET, **PATHS, kubernetes_version=f"1.{minor}.2",
                                   credential_providers=[dict(ECR, token_attributes=token)]))["args"])
    assert (args.get("--feature-gates") == "KubeletServiceAccountTokenForCredentialProviders=true") == gate
    written = config([dict(ECR, token_attributes=token)], f"1.{minor}.2")["providers"][0]["tokenAttributes"]
    assert written["serviceAccountTokenAudience"] == "sts.example.com" and written["requireServiceAccount"] is True
    assert written["requiredServiceAccountAnnotationKeys"] == ["example.com/role"]
    assert ("cacheType" in written) == (minor >= 34)


@pytest.mark.parametrize("version, token, message", [
    ("1.32.9", TOKEN, "tokenAttributes from 1.33"),
    ("1.33.4", dict(TOKEN, cache_type="Token"), "cacheType from 1.34"),
    ("1.34.2", TOKEN, "cache_type .required from 1.34. must be one of ServiceAccount, Token"),
    ("1.34.2", dict(TOKEN, cache_type="Token", require_service_account=False), "cannot be false"),
    ("1.34.2", dict(TOKEN, cache_type="Token", optional_service_account_annotation_keys=["example.com/role"]),
     "both required and optional"),
    ("1.34.2", dict(TOKEN, cache_type="Token", service_account_token_audience=""), "audience"),
])
def test_token_attributes_the_release_does_not_know_or_the_kubelet_refuses(version, token, message):
    with pytest.raises(FlagsError, match=message):
        config([dict(ECR, token_attributes=token)], version)


def test_token_attributes_need_the_v1_plugin_api():
    with pytest.raises(FlagsError, match="needs api_version credentialprovider.kubelet.k8s.io/v1"):
        config([dict(ECR, api_version="credentialprovider.kubelet.k8s.io/v1beta1",
                     token_attributes=dict(TOKEN, cache_type="Token"))], "1.34.2")


def test_provider_gate_and_dropin_gates_are_one_flag():
    args = flags(kubelet_args(dict(KUBELET, **PATHS, node_log_query=True, config_dir="C:\\etc\\kubernetes\\kubelet.conf.d",
                                   credential_providers=[dict(ECR, token_attributes=TOKEN)]))["args"])
    assert args["--feature-gates"] == "KubeletServiceAccountTokenForCredentialProviders=true,NodeLogQuery=true"


# ---------------------------------------------------------------------------------------------
# Before any host: the preflight (tests/unit/plugins/plugin_utils/test_preflight.py's inventory)
# ---------------------------------------------------------------------------------------------

def preflight(providers, **variables):
    from test_preflight import inventory  # noqa: E402 - the base inventory of the preflight's tests
    from ansible_collections.kubewin.node.plugins.plugin_utils import _preflight

    hostvars, groups = inventory({'all': dict(variables, kubelet_credential_providers=providers)})
    return _preflight.preflight(hostvars, groups, 'site')


def provider_downloads(report, host='win-1'):
    return [item for item in report['artifacts'][host] if item['component'].endswith('credential-provider')]


def test_preflight_resolves_each_providers_download_for_the_staging_step():
    report = preflight([ECR, ACR])
    assert report['problems'] == []
    assert provider_downloads(report) == [
        {'url': 'https://artifacts.k8s.io/binaries/cloud-provider-aws/v1.31.7/windows/amd64/ecr-credential-provider-windows-amd64',
         'checksum': 'sha256:a6d062a0d2948f0457ecec7ce888c2b14bdca1374aeb45cfeb5823435974e9e8',
         'component': 'ecr-credential-provider', 'version': '1.31.7'},
        {'url': ACR['url'], 'checksum': ACR['checksum'], 'component': 'acr-credential-provider'}]
    assert preflight([])['problems'] == [] and provider_downloads(preflight([])) == [], 'off by default: nothing'


@pytest.mark.parametrize('providers, problem', [
    ([dict(ECR, version='1.35.0')], 'kubelet_credential_providers[0] (ecr-credential-provider) 1.35.0: '
                                    'ecr-credential-provider 1.35.0 is not in the artifact catalog'),
    ([dict(ECR, name='gcr-credential-provider')], 'the artifact catalog has no provider of that name'),
    ([dict(ACR, checksum='sha256:1234')], 'a sha256 is 64 hexadecimal digits'),
    ([dict(ACR, url='http://example.com/acr.exe')], 'must be https://'),
    ([{k: v for k, v in ACR.items() if k != 'checksum'}], 'needs both url and checksum'),
    ([dict(ACR, match_images=[])], 'kubelet_credential_providers[0].match_images (acr-credential-provider) must list'),
    ([dict(ECR, token_attributes=TOKEN)], 'tokenAttributes from 1.33'),
])
def test_preflight_refuses_a_provider_before_any_host(providers, problem):
    report = preflight(providers, kubewin_kubernetes_version='1.32.13')
    assert len(report['problems']) == 1 and problem in report['problems'][0], report['problems']
    assert report['problems'][0].endswith('(on all 3 Windows nodes)')


def test_preflight_takes_your_pin_of_a_release_the_catalog_lacks():
    from test_preflight import inventory  # noqa: E402

    overrides = dict(inventory()[0]['win-1']['artifacts_checksum_overrides'],
                     **{'ecr-credential-provider': {'1.35.0': 'sha256:' + 'cd' * 32}})
    report = preflight([dict(ECR, version='1.35.0')], artifacts_checksum_overrides=overrides)
    assert report['problems'] == []
    assert provider_downloads(report)[0]['checksum'] == 'sha256:' + 'cd' * 32


def test_preflight_refuses_a_placeholder_pin():
    report = preflight([dict(ACR, checksum='sha256:' + '0' * 64)])
    assert [line for line in report['problems'] if 'placeholder of zeros' in line], report['problems']


# ---------------------------------------------------------------------------------------------
# The doctor
# ---------------------------------------------------------------------------------------------

KUBELET_LINE = ('C:\\k\\kube-log-runner.exe -log-file=C:\\var\\log\\kubelet\\kubelet.log C:\\k\\kubelet.exe --windows-service '
                '--image-credential-provider-bin-dir=C:\\k\\credential-provider '
                '--image-credential-provider-config=C:\\etc\\kubernetes\\credential-provider-config.yaml')


def doctor_snapshot(command_line=KUBELET_LINE, **exists):
    files = {'C:\\etc\\kubernetes\\credential-provider-config.yaml': {'exists': exists.get('config', True)},
             'C:\\k\\credential-provider\\ecr-credential-provider.exe': {'exists': exists.get('binary', True)}}
    return {'services': {'kubelet': {'exists': True, 'state': 'running', 'command_line': command_line}}, 'files': files}


def test_doctor_finds_the_providers_flags_config_and_binaries():
    from ansible_collections.kubewin.node.plugins.plugin_utils import _doctor

    on = {'kubelet_credential_providers': [ECR]}
    assert _doctor.check_credential_providers(doctor_snapshot(), on) == []
    assert _doctor.check_credential_providers(doctor_snapshot('C:\\k\\kubelet.exe --windows-service'), {}) == [], 'off'
    [found] = _doctor.check_credential_providers(doctor_snapshot('C:\\k\\kubelet.exe --windows-service'), on)
    assert found['id'] == 'credential-provider-missing' and found['severity'] == 'warning'
    assert 'names ecr-credential-provider' in found['what']
    [found] = _doctor.check_credential_providers(doctor_snapshot(binary=False), on)
    assert found['severity'] == 'error' and 'ecr-credential-provider.exe is missing' in found['what']
    [found] = _doctor.check_credential_providers(doctor_snapshot(config=False), {})
    assert 'credential-provider-config.yaml is missing: the kubelet does not start' in found['what']
