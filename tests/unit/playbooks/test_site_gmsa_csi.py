"""site.yml with gMSA's non-domain-joined mode (a CCG plugin) and csi-proxy's HostProcess mode, on a one-node
l2bridge fleet (static routes) against the simulated cluster, which has kubernetes-sigs/windows-gmsa's chart: check
mode on the fresh node changes nothing, the converge registers the plugin and runs csi-proxy's pod (its pipes served
on the node), the re-run costs one remote call; kubewin_csi_proxy none then removes the DaemonSet and the pod's process
ends. And the refusals before any Windows node changes: wrong pins of the plugin's files and of the OVN CNI plugin
(staged with the catalog's artifacts), a cluster without windows-gmsa, a node that is not domain-joined in the
domain-joined mode. (The domain-joined mode and csi-proxy's service mode run on the
l2bridge-static e2e fleet.)"""

import base64
import hashlib
import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim import csi_proxy, web  # noqa: E402
from kubewin_sim.harness import Simulation  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SITE = os.path.join(ROOT, 'playbooks', 'site.yml')
DATA = os.path.join(ROOT, 'tests', 'unit', 'test_data', 'ccg')
CLSID = '{CCC2A336-D7F3-4818-A213-272B7924213E}'
MIRROR = 'https://mirror.example.com/ccg/'
OPEN_VSWITCH_MSI = 'https://cloudbase.it/downloads/openvswitch-hyperv-2.7.0-certified.msi'
STAGE = 'kubewin.node.artifacts : Download and verify the node\'s artifacts into the staging folder'
DLL_SHA256 = 'ab' * 32
PLUGIN = {
    'clsid': CLSID,
    'dll': {'url': MIRROR + 'ExampleCcgPlugin.dll', 'checksum': 'sha256:' + DLL_SHA256,
            'path': 'C:\\Windows\\System32\\ExampleCcgPlugin.dll'},
    'registration': {'url': MIRROR + 'registerplugin.reg'},
    'events_manifest': {'url': MIRROR + 'plugin-events.man'},
}
DOMAIN_SPEC = {
    'name': 'gmsa-webapp1', 'service_accounts': [{'namespace': 'default', 'name': 'default'}],
    'credspec': {'CmsPlugins': ['ActiveDirectory'],
                 'DomainJoinConfig': {'DnsName': 'corp.example.com', 'DnsTreeName': 'corp.example.com',
                                      'Guid': '244818ae-87ac-4fcd-92ec-e79e5252348a', 'MachineAccountName': 'WebApp1',
                                      'NetBiosName': 'CORP', 'Sid': 'S-1-5-21-2126449477-2524075714-3094792973'},
                 'ActiveDirectoryConfig': {'GroupManagedServiceAccounts': [{'Name': 'WebApp1', 'Scope': 'CORP'}]}}}
# The same account for nodes that are not domain-joined: the plugin named, with its input.
PORTABLE_SPEC = dict(DOMAIN_SPEC, credspec=dict(DOMAIN_SPEC['credspec'], ActiveDirectoryConfig=dict(
    DOMAIN_SPEC['credspec']['ActiveDirectoryConfig'],
    HostAccountConfig={'PortableCcgVersion': '1', 'PluginGUID': CLSID, 'PluginInput': 'vault:webapp1'})))
GROUP_VARS = {'kubewin_topology': 'l2bridge', 'kubewin_l2bridge_routing': 'static_routes',
              'kubewin_cluster_cidr': '10.244.0.0/16', 'kubewin_service_cidr': '10.96.0.0/12',
              'kubewin_management_cidr': '10.127.130.0/24', 'kubewin_kubernetes_version': '1.31.14',
              'join_method': 'bootstrap_kubeconfig', 'kubewin_gmsa': True,
              'kubewin_gmsa_credential_specs': [DOMAIN_SPEC]}
NODE = {'ansible_host': '10.127.130.41', 'kubewin_pod_cidr': '10.244.10.0/24',
        'kubewin_sim': {'build': 20348, 'network_drop_seconds': 1}}


def serve_plugin(sim):
    """The mirror serves the plugin: the DLL, a binary known by its digest; its registry file and manifest, the text
    files reg.exe and wevtutil.exe read. Returns the plugin with their checksums."""
    served = {PLUGIN['dll']['url']: {'sha256': DLL_SHA256, 'size': 65536}}
    plugin = {key: dict(value) if isinstance(value, dict) else value for key, value in PLUGIN.items()}
    for key, name in (('registration', 'registerplugin.reg'), ('events_manifest', 'plugin-events.man')):
        with open(os.path.join(DATA, name), 'rb') as handle:
            data = handle.read()
        served[plugin[key]['url']] = {'base64': base64.b64encode(data).decode('ascii')}
        plugin[key]['checksum'] = 'sha256:' + hashlib.sha256(data).hexdigest()
    web.configure(sim.state_dir, served=served)
    return plugin


def fleet(sim, gmsa_chart=True, domain=None, **group_vars):
    """The one-node fleet with GROUP_VARS and these changes; a variable given as None is left unset."""
    node = dict(NODE, kubewin_sim=dict(NODE['kubewin_sim'], domain=domain))
    changed = {name: value for name, value in dict(GROUP_VARS, **group_vars).items() if value is not None}
    return sim.inventory({'win-1': node}, group_vars=changed,
                         control_plane={'cp1': {'kubewin_sim_cluster': {'gmsa': {} if gmsa_chart else None}}})


def pods(sim):
    return [pod for key, pod in sim.cluster().data['objects']['Pod'].items() if key.startswith('kube-system/csi-proxy-')]


def test_the_ccg_plugin_and_csi_proxys_daemonset_converge_and_stay(tmp_path):
    sim = Simulation(tmp_path)
    inventory = fleet(sim, kubewin_csi_proxy='hostprocess', kubewin_gmsa_ccg_plugin=serve_plugin(sim),
                      kubewin_gmsa_credential_specs=[PORTABLE_SPEC])

    check = sim.run(SITE, inventory, '--check')
    assert check.rc == 0, check.output
    registered = check.results('Register the CCG plugin and let containerd\'s containers reach SMB shares by name',
                               'win-1')
    assert [r['changed'] for r in registered] == [True]
    assert 'registry_security' not in sim.node('win-1').data
    assert 'DaemonSet' in sim.cluster().data['objects'] and not any(
        key.startswith('kube-system/csi-proxy') for key in sim.cluster().data['objects']['DaemonSet'])

    converge = sim.run(SITE, inventory)
    assert converge.rc == 0, converge.output
    # The plugin's files were staged with the catalog's artifacts and installed from the staging folder.
    staging = converge.result(STAGE, 'win-1')['result']
    urls = [PLUGIN[name]['url'] for name in ('dll', 'registration', 'events_manifest')]
    assert set(urls) <= set(staging['staged']), staging['staged']
    downloads = converge.result('Download the CCG plugin\'s files, verified', 'win-1')['result']['results']
    assert [item['download']['status'] for item in downloads] == ['staged'] * 3
    node = sim.node('win-1')
    # The plugin: its CLSID under CCG\COMClasses (taken over for Administrators), its COM class, its event log.
    assert 'system\\currentcontrolset\\control\\ccg\\comclasses\\' + CLSID.lower() in node.data['registry']
    assert node.data['registry_security']['system\\currentcontrolset\\control\\ccg\\comclasses']['owner'] == 'S-1-5-32-544'
    assert node.data['event_channels'] == {'Example-CCG-Plugin/Admin': 'Example-CCG-Plugin'}
    assert node.file(PLUGIN['dll']['path'])['sha256'] == DLL_SHA256
    # The cluster: the credential spec with its RBAC; csi-proxy's DaemonSet, its pod running on the node, whose
    # process serves the pipes; no csiproxy service.
    objects = sim.cluster().data['objects']
    assert objects['GMSACredentialSpec']['gmsa-webapp1']['credspec'] == PORTABLE_SPEC['credspec']
    assert objects['ClusterRole']['kubewin-gmsa-gmsa-webapp1']['rules'][0]['verbs'] == ['use']
    assert 'default/kubewin-gmsa-gmsa-webapp1-default' in objects['RoleBinding']
    assert [pod['status']['phase'] for pod in pods(sim)] == ['Running']
    assert csi_proxy.pipe_names(sim.node('win-1')) == list(csi_proxy.PIPES)
    assert 'csiproxy' not in node.data['services']

    again = sim.run(SITE, inventory)
    assert again.rc == 0, again.output
    assert again.changed('win-1') == 0 and again.calls['win-1']['total'] == 1

    # kubewin_csi_proxy none: the control-plane play removes the DaemonSet it applied; the pod goes, its process ends.
    off = sim.run(SITE, inventory, '-e', 'kubewin_csi_proxy=none')
    assert off.rc == 0, off.output
    assert pods(sim) == [] and not any(key.startswith('kube-system/csi-proxy')
                                       for key in sim.cluster().data['objects']['DaemonSet'])
    assert csi_proxy.pipe_names(sim.node('win-1')) == []


def test_wrong_pins_of_the_files_the_inventory_names_fail_in_the_staging_step(tmp_path):
    """The CCG plugin's files and the OVN CNI plugin are staged and verified with the catalog's artifacts, before the
    node's first change: a mistyped checksum of each fails there, both named with their URL and both hashes, on a
    node where only the staging folder changed. (The fleet is an ovn one for this run: the staging step comes before
    anything of the network.)"""
    sim = Simulation(tmp_path)
    plugin = serve_plugin(sim)
    plugin['registration'] = dict(plugin['registration'], checksum='sha256:' + 'cd' * 32)
    ovn_cni = {'url': 'https://mirror.example.com/ovn/ovn_cni.exe', 'checksum': 'sha256:' + 'ef' * 32}
    pins = {'openvswitch': {'2.7.0': 'sha256:' + hashlib.sha256(web.body(OPEN_VSWITCH_MSI)).hexdigest()}}
    inventory = fleet(sim, kubewin_topology='ovn', kubewin_l2bridge_routing=None, network_ovn_cni_plugin=ovn_cni,
                      artifacts_checksum_overrides=pins, kubewin_gmsa_ccg_plugin=plugin,
                      kubewin_gmsa_credential_specs=[PORTABLE_SPEC])
    result = sim.run(SITE, inventory)
    assert result.rc != 0
    failed = [t for t in result.tasks if t['status'] == 'failed']
    assert [t['task'] for t in failed] == [STAGE], [t['result'].get('msg') for t in failed]
    message = failed[0]['result']['msg']
    assert ': 2 of 11 artifact(s) could not be staged; nothing on the node changed but the staging folder' in message, \
        message
    for url, wrong in ((PLUGIN['registration']['url'], 'cd' * 32), (ovn_cni['url'], 'ef' * 32)):
        assert 'checksum mismatch for %s: expected sha256 %s, got ' % (url, wrong) in message, message
    # The snapshot and the staging call; the features, containerd, the plugin's registration and Open vSwitch are
    # untouched; every file on the node is in the staging folder, the two with a wrong hash not among them.
    assert result.calls['win-1']['by_kind'] == {'win_powershell:node_info': 1, 'win_powershell:artifact_stage': 1}
    node = sim.node('win-1')
    assert node.data['features']['Containers'] == 'available' and 'containerd' not in node.data['services']
    assert not any(key.startswith('system\\currentcontrolset\\control\\ccg\\comclasses\\')
                   for key in node.data.get('registry', {}))
    assert not node.data.get('ovs')
    files = node.file_paths()
    assert files and all(path.startswith('C:\\k\\staging\\') for path in files), files
    assert not [path for path in files if path.endswith(('\\ovn_cni.exe', '\\registerplugin.reg'))], files


def test_a_cluster_without_windows_gmsa_is_refused_before_any_windows_node_changes(tmp_path):
    sim = Simulation(tmp_path)
    inventory = fleet(sim, gmsa_chart=False, domain='corp.example.com')
    result = sim.run(SITE, inventory)
    assert result.rc != 0
    assert ('lacks the CustomResourceDefinition gmsacredentialspecs.windows.k8s.io serving v1; a '
            'MutatingWebhookConfiguration with the webhook admission-webhook.windows-gmsa.sigs.k8s.io; a '
            'ValidatingWebhookConfiguration with the webhook admission-webhook.windows-gmsa.sigs.k8s.io: install '
            'kubernetes-sigs/windows-gmsa') in result.output
    # Only the snapshot reached the node.
    assert result.calls['win-1']['total'] == 1 and sim.node('win-1').data['features']['Containers'] == 'available'


def test_a_node_that_is_not_domain_joined_is_refused_in_the_domain_joined_mode(tmp_path):
    sim = Simulation(tmp_path)
    inventory = fleet(sim)
    result = sim.run(SITE, inventory)
    assert result.rc != 0
    assert ('win-1 is not domain-joined (Win32_ComputerSystem.PartOfDomain is false, workgroup WORKGROUP)'
            in result.output), result.output
    assert result.calls['win-1']['total'] == 1 and sim.node('win-1').data['features']['Containers'] == 'available'
