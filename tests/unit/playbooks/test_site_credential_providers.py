"""playbooks/site.yml with kubelet image credential providers turned on and off again: ECR's from the artifact catalog
(pinned) and ACR's by url and checksum, each installed verified as <name>.exe in C:\\k\\credential-provider, their
CredentialProviderConfig written (as a secret file, since a provider has env) and the kubelet started with both flags;
a converged re-run is one remote call; the doctor finds a deleted binary; check mode predicts turning them off;
emptying the list removes the file, the binaries and the flags, with one restart of the kubelet."""

import hashlib
import os
import sys

import pytest
import yaml

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import web  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402
from kubewin_sim.programs import split_command_line  # noqa: E402

import network_play  # noqa: E402

HOST = 'win1'
VERSION = '1.33.13'
OPTIONS = {'join_method': 'bootstrap_kubeconfig'}
CONFIG = 'C:\\etc\\kubernetes\\credential-provider-config.yaml'
BIN_DIR = 'C:\\k\\credential-provider'
ACR_URL = 'https://mirror.example.internal/cloud-provider-azure/v1.33.3/azure-acr-credential-provider-windows-amd64.exe'
ECR = {'name': 'ecr-credential-provider', 'version': '1.31.7', 'match_images': ['*.dkr.ecr.*.amazonaws.com'],
       'default_cache_duration': '12h', 'env': {'AWS_REGION': 'eu-west-1'}}
ACR = {'name': 'acr-credential-provider', 'url': ACR_URL,
       'checksum': 'sha256:' + hashlib.sha256(web.body(ACR_URL)).hexdigest(),
       'match_images': ['*.azurecr.io'], 'default_cache_duration': '10m', 'args': ['C:\\k\\azure.json']}


def fleet(sim, providers):
    return sim.inventory(
        {HOST: {'ansible_host': network_play.NODES[HOST], 'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version=VERSION,
                        kubelet_credential_providers=providers),
        control_plane={'cp1': {}})


def kubelet_flags(sim):
    return [word for word in split_command_line(sim.node(HOST).data['services']['kubelet']['command_line'])
            if word.startswith('--')]


# Long (make unit-long): its representative part is the dual-stack e2e fleet make test runs
# (tests/e2e/inventories/l2bridge-dualstack), which turns the setting on in its first converge and checks the
# converged re-run and the doctor.
@pytest.mark.long
def test_credential_providers_on_then_off(tmp_path):
    sim = Simulation(tmp_path)
    with sim.edit_cluster(profile={'version': 'v1.33.4'}):
        pass
    converge = network_play.run(sim, 'playbooks/site.yml', fleet(sim, [ECR, ACR]), **OPTIONS)
    assert converge.rc == 0, converge.output
    node = sim.node(HOST)
    assert yaml.safe_load(node.file(CONFIG)['content']) == {
        'apiVersion': 'kubelet.config.k8s.io/v1', 'kind': 'CredentialProviderConfig', 'providers': [
            {'name': 'ecr-credential-provider', 'matchImages': ['*.dkr.ecr.*.amazonaws.com'],
             'defaultCacheDuration': '12h', 'apiVersion': 'credentialprovider.kubelet.k8s.io/v1',
             'env': [{'name': 'AWS_REGION', 'value': 'eu-west-1'}]},
            {'name': 'acr-credential-provider', 'matchImages': ['*.azurecr.io'], 'defaultCacheDuration': '10m',
             'apiVersion': 'credentialprovider.kubelet.k8s.io/v1', 'args': ['C:\\k\\azure.json']}]}
    assert 'eu-west-1' not in converge.output, 'a provider env value is never shown'
    ecr = node.file(BIN_DIR + '\\ecr-credential-provider.exe')
    assert ecr is not None and ecr['sha256'] == 'a6d062a0d2948f0457ecec7ce888c2b14bdca1374aeb45cfeb5823435974e9e8'
    assert node.file(BIN_DIR + '\\acr-credential-provider.exe')['sha256'] == ACR['checksum'][len('sha256:'):]
    flags = kubelet_flags(sim)
    assert '--image-credential-provider-config=' + CONFIG in flags
    assert '--image-credential-provider-bin-dir=' + BIN_DIR in flags
    assert node.data['services']['kubelet']['state'] == 'running'
    print('converge with two providers: %s remote calls' % converge.calls[HOST]['total'])

    again = network_play.run(sim, 'playbooks/site.yml', fleet(sim, [ECR, ACR]), **OPTIONS)
    assert again.rc == 0 and again.changed(HOST) == 0 and again.calls[HOST]['total'] == 1, again.calls[HOST]

    # Someone deletes a provider's binary: the doctor finds it (node_info reads every file the collection wrote).
    with sim.edit_node(HOST) as node:
        node.remove_file(BIN_DIR + '\\acr-credential-provider.exe')
    doctor = sim.run('playbooks/doctor.yml', fleet(sim, [ECR, ACR]))
    assert doctor.rc == 0, doctor.output
    [found] = [f for f in doctor.report_row(HOST)['findings'] if f['id'] == 'credential-provider-missing']
    assert 'acr-credential-provider.exe is missing' in found['what'] and found['severity'] == 'error'

    # One provider fewer: its binary goes, the config changes, the kubelet restarts once.
    starts = sim.node(HOST).data['services']['kubelet'].get('starts', 0)
    fewer = network_play.run(sim, 'playbooks/site.yml', fleet(sim, [ECR]), **OPTIONS)
    assert fewer.rc == 0, fewer.output
    assert sim.node(HOST).file(BIN_DIR + '\\acr-credential-provider.exe') is None
    assert [p['name'] for p in yaml.safe_load(sim.node(HOST).file(CONFIG)['content'])['providers']] == [ECR['name']]
    assert sim.node(HOST).data['services']['kubelet'].get('starts', 0) == starts + 1
    print('one provider removed: %s remote calls' % fewer.calls[HOST]['total'])

    # Check mode predicts turning them off, and changes nothing.
    check = network_play.run(sim, 'playbooks/site.yml', fleet(sim, []), '--check', **OPTIONS)
    assert check.rc == 0, check.output
    assert network_play.task(check, "Write the image credential providers' configuration", HOST)['changed']
    assert network_play.task(check, 'Remove the image credential providers no longer configured', HOST)['changed']
    assert sim.node(HOST).file(CONFIG) is not None and '--image-credential-provider-bin-dir=' + BIN_DIR in kubelet_flags(sim)

    starts = sim.node(HOST).data['services']['kubelet'].get('starts', 0)
    off = network_play.run(sim, 'playbooks/site.yml', fleet(sim, []), **OPTIONS)
    assert off.rc == 0, off.output
    assert sim.node(HOST).file(CONFIG) is None and sim.node(HOST).file(BIN_DIR + '\\ecr-credential-provider.exe') is None
    assert not [flag for flag in kubelet_flags(sim) if flag.startswith('--image-credential-provider')]
    assert sim.node(HOST).data['services']['kubelet'].get('starts', 0) == starts + 1, 'restarted once, without them'
    print('off again: %s remote calls' % off.calls[HOST]['total'])
