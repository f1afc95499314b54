"""The preflight of an inventory: every problem at once, each naming the inventory variable, its value and the fix.

The broken inventories are data (tests/unit/test_data/broken_inventories.yml); the playbooks that run the
preflight are tested in tests/unit/playbooks/test_preflight_playbooks.py.
"""

import copy
import re
from pathlib import Path

import pytest
import yaml

from ansible_collections.kubewin.node.plugins.plugin_utils import _artifacts, _preflight, _roles

ROOT = Path(__file__).resolve().parents[4]
BROKEN = yaml.safe_load((ROOT / 'tests' / 'unit' / 'test_data' / 'broken_inventories.yml').read_text(encoding='utf-8'))


def inventory(case=None):
    """(hostvars, groups) of the base inventory with a case's changes: what Ansible hands the filter."""
    case = case or {}
    base = copy.deepcopy(BROKEN['base'])
    groups = case.get('groups') or base['groups']
    every = dict(base['all'])
    for name, value in (case.get('all') or {}).items():
        if value is None:
            every.pop(name, None)
        else:
            every[name] = value
    hostvars = {}
    for host in sorted({host for members in groups.values() for host in members}):
        hostvars[host] = dict(every, **base['hosts'].get(host, {}), **(case.get('hosts') or {}).get(host, {}))
    return hostvars, dict(groups)


def check(case=None, playbook='site'):
    hostvars, groups = inventory(case)
    return _preflight.preflight(hostvars, groups, playbook)


def test_the_base_inventory_passes_and_yields_what_the_plan_role_hands_out():
    report = check()
    assert report['problems'] == [] and report['message'] == ''
    assert report['cluster']['topology'] == 'overlay' and sorted(report['nodes']) == ['win-1', 'win-2', 'win-3']
    installed = [(a['component'], a['version']) for a in report['artifacts']['win-1']]
    assert installed == [('containerd', '2.2.7'), ('crictl', '1.34.0'), ('kubelet', '1.33.13'), ('kube-proxy', '1.33.13'),
                         ('kubeadm', '1.33.13'), ('kubectl', '1.33.13'), ('kube-log-runner', '1.33.13'),
                         ('flanneld', '0.28.9'), ('nssm', '2.24'), ('flannel-cni', '1.9.1-flannel1'),
                         ('cni-plugins', '1.9.1'), ('sdn-cni', '0.3.3')]
    assert all(a['checksum'].startswith('sha256:') for a in report['artifacts']['win-1'])
    # The log rotation defaults (kubewin_log_max_size_mb, kubewin_log_files_kept), as the plan role hands them out.
    assert report['inventory']['logs'] == {'max_size_mb': 100, 'files_kept': 5}


class CountingHostvars(dict):
    """hostvars that counts each host's reads: in ansible-core every hostvars[host] is a variable manager pass."""

    def __init__(self, *args):
        super().__init__(*args)
        self.reads = {}

    def __getitem__(self, host):
        self.reads[host] = self.reads.get(host, 0) + 1
        return super().__getitem__(host)

    def get(self, host, default=None):
        return self[host] if host in self else default


def test_each_host_s_variables_are_read_once():
    hostvars, groups = inventory()
    counting = CountingHostvars(hostvars)
    assert _preflight.preflight(counting, groups, 'site')['problems'] == []
    assert counting.reads and set(counting.reads.values()) == {1}, counting.reads


@pytest.mark.parametrize('case', BROKEN['cases'], ids=[case['id'] for case in BROKEN['cases']])
@pytest.mark.parametrize('playbook', ['site'])
def test_a_broken_inventory_is_refused_naming_the_variable(case, playbook):
    report = check(case, playbook)
    assert report['problems'], '%s passed the preflight' % case['id']
    named = [line for line in report['problems'] if all(text in line for text in case['expect'])]
    assert named, 'no problem line has %s:\n%s' % (case['expect'], report['message'])
    # One short line each, with no wrapping of Ansible's and no Python type names.
    for line in report['problems']:
        assert '\n' not in line and len(line) < 400, line
        assert not re.search(r'_Ansible|Lazy|Tagged|NoneType|\bstr\b\)|\(list\)|\(dict\)', line), line
    assert report['message'].splitlines()[1:len(report['problems']) + 1] == ['- ' + line for line in report['problems']]


def test_the_held_out_set_covers_every_kind_of_mistake():
    ids = [case['id'] for case in BROKEN['cases']]
    assert len(ids) == len(set(ids)) == 65
    firsts = {case['expect'][0] for case in BROKEN['cases']}
    assert {'kube_control_plane', 'windows_nodes', 'flannel_version', 'container_runtime_cri_dockerd_version',
            'kubewin_kubernetes_version', 'kubewin_container_runtime'} <= firsts


def test_every_problem_is_reported_at_once():
    case = {'all': {'kubewin_max_pod': 250, 'kubewin_cluster_cidr': None, 'kubewin_cluster_cdir': '10.244.0.0/16',
                    'kubewin_kubernetes_version': 1.3, 'kubelet_verbosty': 4},
            'groups': {'windows_nodes': ['win-1', 'win-2']}}
    problems = check(case)['problems']
    expected = ['the inventory has no hosts in the group kube_control_plane',
                'kubewin_max_pod: 250 (on all 2 hosts) is not a kubewin.node inventory variable; did you mean kubewin_max_pods?',
                'kubewin_cluster_cdir: "10.244.0.0/16" (on all 2 hosts) is not a kubewin.node inventory variable; '
                'did you mean kubewin_cluster_cidr?',
                'kubelet_verbosty: 4 (on all 2 hosts) is not an option of the role kubewin.node.kubelet; '
                'did you mean kubelet_verbosity?',
                'the plan needs kubewin_cluster_cidr',
                'kubewin_kubernetes_version must be a Kubernetes release such as 1.31.4']
    for text, line in zip(expected, problems):
        assert line.startswith(text), (text, problems)
    assert len(problems) == len(expected), problems


def test_a_float_version_gets_the_hint_to_quote_it():
    problems = check({'all': {'kubewin_kubernetes_version': 1.3}})['problems']
    assert problems == ['kubewin_kubernetes_version must be a Kubernetes release such as 1.31.4 or v1.31.4 '
                        '(major.minor.patch), got 1.3 (YAML reads an unquoted version as a number, so 1.30 became 1.3): '
                        'quote it and give the patch release, e.g. kubewin_kubernetes_version: "1.30.14"']


def test_a_missing_pin_names_the_version_variable_the_nodes_and_the_fix():
    problems = check({'all': {'artifacts_checksum_overrides': {}}})['problems']
    assert problems == ['flannel_version "0.28.9" (flanneld, on all 3 Windows nodes): flanneld 0.28.9 has no pinned '
                        'checksum and upstream publishes no hash file; give its checksum in artifacts_checksum_overrides: '
                        '{flanneld: {"0.28.9": "sha256:<the hash you verified>"}}']


def test_the_placeholder_pin_of_the_examples_is_refused_by_site_and_only_warned_about_by_plan_yml():
    case = {'all': {'artifacts_checksum_overrides': {'flanneld': {'0.28.9': 'sha256:' + '0' * 64}}}}
    line = ('flannel_version "0.28.9" (flanneld, on all 3 Windows nodes): artifacts_checksum_overrides pins the '
            'placeholder of zeros, which no file has: pin the sha256 of the flanneld you downloaded and verified')
    assert check(case)['problems'] == [line]
    hostvars, groups = inventory(case)
    rendered = _preflight.preflight(hostvars, groups, 'site', placeholder_pins='warn')
    assert rendered['problems'] == [] and rendered['warnings'] == ['site.yml will refuse this inventory: ' + line]
    with pytest.raises(Exception, match='placeholder_pins must be refuse or warn'):
        _preflight.preflight(hostvars, groups, 'site', placeholder_pins='ignore')


def test_a_docker_node_needs_the_cri_dockerd_pin_only_on_docker_nodes():
    case = {'hosts': {'win-2': {'kubewin_container_runtime': 'docker'}},
            'all': {'artifacts_checksum_overrides': {'flanneld': BROKEN['base']['all']['artifacts_checksum_overrides']['flanneld']}}}
    report = check(case)
    assert report['problems'] == [
        'container_runtime_cri_dockerd_version "0.3.26" (cri-dockerd, on win-2): cri-dockerd 0.3.26 has no pinned checksum '
        'and upstream publishes no hash file; give its checksum in artifacts_checksum_overrides: '
        '{cri-dockerd: {"0.3.26": "sha256:<the hash you verified>"}}']


def test_unchecked_variables_are_left_alone_and_the_note_says_how():
    case = {'all': {'kube_proxy_mode': 'ipvs'}}
    assert 'kube_proxy_mode' in check(case)['problems'][0]
    assert 'kubewin_unchecked_variables' in check(case)['message'].splitlines()[-1]
    case['all']['kubewin_unchecked_variables'] = ['kube_proxy_mode']
    assert check(case)['problems'] == []


def test_the_plan_role_alone_checks_only_its_own():
    # No control plane, no version, no pins, another tool's kubelet_* variable: the plan role on its own
    # (a test playbook, or another playbook that includes it) checks the plan, transport and names it reads.
    case = {'groups': {'windows_nodes': ['win-1']},
            'all': {'kubewin_kubernetes_version': None, 'artifacts_checksum_overrides': {}, 'kubelet_max_pods': 1}}
    assert check(case, 'plan')['problems'] == []
    assert check(dict(case, all=dict(case['all'], plan_render_dri='x')), 'plan')['problems'][0].startswith(
        'plan_render_dri: "x" (on win-1) is not an option of the role kubewin.node.plan; did you mean plan_render_dir?')


def test_the_patch_window_checks_the_patch_and_verify_options():
    # patch.yml reads the patch role's options and the verify role's (its node_health), not the node roles'.
    case = {'groups': {'windows_nodes': ['win-1']},
            'all': {'kubewin_kubernetes_version': None, 'patch_reboot_timeout': 3600, 'verify_poll_interval': 5,
                    'patch_reboot_timout': 60}}
    problems = check(case, 'patch')['problems']
    assert problems == ['patch_reboot_timout: 60 (on win-1) is not an option of the role kubewin.node.patch; '
                        'did you mean patch_reboot_timeout?'], problems


def test_a_value_that_cannot_be_read_is_a_problem_not_a_crash():
    from ansible.errors import AnsibleUndefinedVariable

    class HostVars(dict):
        def __getitem__(self, name):
            if name == 'kubewin_max_pods':
                raise AnsibleUndefinedVariable("'pods_per_node' is undefined")
            return super().__getitem__(name)

    hostvars, groups = inventory({'all': {'kubewin_max_pods': '{{ pods_per_node }}'}})
    hostvars = {host: HostVars(values) for host, values in hostvars.items()}
    problems = _preflight.preflight(hostvars, groups, 'site')['problems']
    assert "win-1: kubewin_max_pods cannot be read: 'pods_per_node' is undefined" in problems


def test_messages_use_the_inventory_names():
    assert _preflight.inventory_names('dns_service_ip 10.1.0.10 is outside service_cidr 10.96.0.0/12') == (
        'kubewin_dns_service_ip 10.1.0.10 is outside kubewin_service_cidr 10.96.0.0/12')
    assert _preflight.inventory_names('nodes[1] (win-2) management_ip 10.0.0.5 is outside management_cidr 10.1.0.0/24') == (
        'win-2: kubewin_management_ip 10.0.0.5 is outside kubewin_management_cidr 10.1.0.0/24')
    # Names already prefixed, and names inside other words, stay.
    assert _preflight.inventory_names('kubewin_max_pods and sdn-cni') == 'kubewin_max_pods and sdn-cni'


# What the roles install, read from their tasks: the preflight's table must list the same components with the
# same version variables, or it would check other artifacts than the nodes get.
_PAIR = re.compile(r"""['"]?component['"]?:\s*['"]?([\w.-]+)['"]?,?\s*['"]?version['"]?:\s*['"]?(?:\{\{\s*)?(\w+)""")


def _installed_by(role):
    text = ''.join(path.read_text(encoding='utf-8') for folder in ('tasks', 'vars')
                   for path in sorted((ROOT / 'roles' / role / folder).glob('*.yml')))
    return set(_PAIR.findall(text))


@pytest.mark.parametrize('role', sorted({entry[0] for entry in _preflight.INSTALLS}))
def test_the_install_table_matches_the_roles(role):
    table = {(entry[1], entry[2]) for entry in _preflight.INSTALLS if entry[0] == role}
    assert _installed_by(role) == table


def test_every_role_that_installs_artifacts_is_in_the_install_table():
    # The staging step (artifacts tasks_from: stage) downloads the node's share of the preflight (plan_artifacts), read
    # from this table: a role that includes the artifacts role without a row here would install a download the
    # staging step never verified, after the node changed (issue 24).
    # An include of the main entry point (the one of tasks_from: stage is the staging step itself).
    install = re.compile(r'name:\s*kubewin\.node\.artifacts\s*\n(?!\s*tasks_from:\s*stage)')
    including = {path.parent.parent.name for path in (ROOT / 'roles').glob('*/tasks/*.yml')
                 if install.search(path.read_text(encoding='utf-8'))}
    # The kubelet role's image credential providers are the node's share of kubelet_credential_providers
    # (_credential_provider_downloads).
    known = {entry[0] for entry in _preflight.INSTALLS} | {_preflight.BINARIES_ROLE, _preflight.CREDENTIAL_PROVIDERS_ROLE}
    assert including - known == set()
    assert including, 'no role includes the artifacts role: the scan proves nothing'


def test_the_kubernetes_binaries_come_from_the_role_list_at_the_kubernetes_version():
    text = (ROOT / 'roles' / 'kubernetes_binaries' / 'tasks' / 'main.yml').read_text(encoding='utf-8')
    assert "map('combine', {'version': plan_versions.kubernetes_version})" in text
    assert _preflight.BINARIES_VARIABLE in _roles.role_defaults(_preflight.BINARIES_ROLE)
    assert set(_preflight.CONDITIONS) == {entry[3] for entry in _preflight.INSTALLS}


def _documented(path):
    text = (ROOT / path).read_text(encoding='utf-8')
    # Example output (a refused typo among it) is not documentation of a name.
    text = re.sub(r'\.\. code-block:: text\n\n(?:(?:   .*)?\n)+', '', text)
    return set(re.findall(r'\bkubewin_[a-z0-9_]*[a-z0-9]\b', text))


def test_the_known_variables_are_the_documented_ones():
    # The inventory guide documents exactly the variables the preflight knows; the README's tables a part of them.
    known = set(_preflight.INVENTORY_VARIABLES)
    assert _documented('docs/docsite/rst/inventory.rst') == known
    assert _documented('README.md') - {'kubewin_node'} <= known
    readme_tables = set(re.findall(r'^\| `(kubewin_[a-z0-9_]+)`', (ROOT / 'README.md').read_text(encoding='utf-8'), re.M))
    assert readme_tables | {'kubewin_max_fail_percentage'} == known
    # The test bed's own host variables are documented with it.
    assert {'kubewin_sim', 'kubewin_sim_cluster'} <= _documented('docs/docsite/rst/testing.rst')


# The kubeconfig way (kubewin_cluster_kubeconfig): the cluster-side steps run on localhost, so AWX job slices, whose
# inventories lack the control-plane host, can each run them.
NO_CONTROL_PLANE = {'groups': {'windows_nodes': ['win-1', 'win-2', 'win-3']}}


def _with_controller(case, **controller):
    """hostvars and groups of a case, with localhost's variables (the implicit localhost of a playbook run)."""
    hostvars, groups = inventory(case)
    hostvars['localhost'] = dict(controller)
    return hostvars, groups


def test_a_kubeconfig_on_the_controller_stands_in_for_the_control_plane_group(tmp_path):
    kubeconfig = tmp_path / 'kubeconfig'
    kubeconfig.write_text('apiVersion: v1\nkind: Config\n', encoding='utf-8')
    # In group_vars/all (or -e): the nodes and localhost see it alike, and it is a known inventory variable.
    case = dict(NO_CONTROL_PLANE, all={'kubewin_cluster_kubeconfig': str(kubeconfig)})
    hostvars, groups = _with_controller(case, kubewin_cluster_kubeconfig=str(kubeconfig))
    assert _preflight.preflight(hostvars, groups, 'site')['problems'] == []
    # Without it, the missing group names both ways out.
    hostvars, groups = _with_controller(NO_CONTROL_PLANE)
    problems = _preflight.preflight(hostvars, groups, 'site')['problems']
    assert len(problems) == 1 and problems[0].startswith(
        'the inventory has no hosts in the group kube_control_plane (') and (
        'and kubewin_cluster_kubeconfig is not set: add it, with its hosts, or set kubewin_cluster_kubeconfig') in problems[0]


def test_a_kubeconfig_that_is_not_on_the_controller_is_refused(tmp_path):
    missing = str(tmp_path / 'nowhere' / 'kubeconfig')
    hostvars, groups = _with_controller(NO_CONTROL_PLANE, kubewin_cluster_kubeconfig=missing)
    line = ('kubewin_cluster_kubeconfig: "%s" does not exist on the controller (the cluster-side steps run on localhost '
            'with it): give the path of a kubeconfig there (in AWX, a credential whose injector writes it)' % missing)
    assert _preflight.preflight(hostvars, groups, 'site')['problems'] == [line]
    # reset.yml drains and deletes the Nodes with it; the plan role on its own talks to no API.
    assert line in _preflight.preflight(hostvars, groups, 'reset')['problems']
    assert line not in _preflight.preflight(hostvars, groups, 'plan')['problems']
    hostvars, groups = _with_controller(NO_CONTROL_PLANE, kubewin_cluster_kubeconfig={'clusters': []})
    assert _preflight.preflight(hostvars, groups, 'site')['problems'] == [
        'kubewin_cluster_kubeconfig: {"clusters": []} must be the path of a kubeconfig file on the controller']


def test_a_kubeconfig_set_only_for_the_windows_nodes_is_refused(tmp_path):
    kubeconfig = tmp_path / 'kubeconfig'
    kubeconfig.write_text('apiVersion: v1\nkind: Config\n', encoding='utf-8')
    # group_vars/windows_nodes: localhost, where the cluster-side plays read it, does not see it.
    hostvars, groups = _with_controller(dict(NO_CONTROL_PLANE, all={'kubewin_cluster_kubeconfig': str(kubeconfig)}))
    problems = _preflight.preflight(hostvars, groups, 'site')['problems']
    assert problems[0] == ('kubewin_cluster_kubeconfig is set on all 3 Windows nodes but not for localhost, where the '
                           'cluster-side steps read it: set it in group_vars/all or as an extra var')
    # So, as the playbooks see it, neither way to the API is given either.
    assert len(problems) == 2 and problems[1].startswith('the inventory has no hosts in the group kube_control_plane')


def test_an_ovn_plan_without_control_plane_hosts_needs_the_central_address(tmp_path):
    kubeconfig = tmp_path / 'kubeconfig'
    kubeconfig.write_text('apiVersion: v1\nkind: Config\n', encoding='utf-8')
    ovn = {'kubewin_topology': 'ovn', 'kubewin_cluster_kubeconfig': str(kubeconfig)}
    pods = {'win-1': {'kubewin_pod_cidr': '10.244.1.0/24'}, 'win-2': {'kubewin_pod_cidr': '10.244.2.0/24'},
            'win-3': {'kubewin_pod_cidr': '10.244.3.0/24'}}
    line = ('network_ovn_central_address is not set on all 3 Windows nodes, and there is no kube_control_plane host to '
            'take it from: set it to the address of the OVN central node (its northbound and southbound databases)')
    hostvars, groups = _with_controller(dict(NO_CONTROL_PLANE, all=ovn, hosts=pods), **ovn)
    assert line in _preflight.preflight(hostvars, groups, 'site')['problems']
    with_address = dict(ovn, network_ovn_central_address='10.127.130.10')
    hostvars, groups = _with_controller(dict(NO_CONTROL_PLANE, all=with_address, hosts=pods), **with_address)
    assert not [p for p in _preflight.preflight(hostvars, groups, 'site')['problems'] if 'network_ovn_central_address' in p]
    # With the group, its first host is the default, as before.
    hostvars, groups = _with_controller({'all': {'kubewin_topology': 'ovn'}, 'hosts': pods})
    assert line not in _preflight.preflight(hostvars, groups, 'site')['problems']


def test_kube_proxy_mode_defaults_to_service_and_daemonset_passes_on_containerd():
    assert check()['inventory']['kube_proxy_mode'] == 'service'
    report = check({'all': {'kubewin_kube_proxy_mode': 'daemonset'}})
    assert report['problems'] == [] and report['inventory']['kube_proxy_mode'] == 'daemonset'


@pytest.mark.parametrize('case, expected', [
    ({'all': {'kubewin_kube_proxy_mode': 'pod'}}, "kubewin_kube_proxy_mode: 'pod' must be one of service, daemonset"),
    ({'all': {'kubewin_kube_proxy_mode': 'daemonset', 'container_runtime_containerd_version': '1.5.18'}},
     'kubewin_kube_proxy_mode: daemonset needs containerd 1.6 or later for HostProcess containers, but '
     'container_runtime_containerd_version is 1.5.18 on win-1, win-2, win-3'),
    ({'all': {'kubewin_kube_proxy_mode': 'daemonset'}, 'hosts': {'win-2': {'kubewin_container_runtime': 'docker'}}},
     'kubewin_kube_proxy_mode: daemonset runs kube-proxy in a HostProcess container, which needs containerd; win-2 use '
     'docker (kubewin_container_runtime)'),
])
def test_a_kube_proxy_mode_that_does_not_fit_the_fleet_is_refused_before_any_host(case, expected):
    assert any(line.startswith(expected) for line in check(case)['problems']), check(case)['problems']


def test_daemonset_is_refused_for_ovn_which_runs_no_kube_proxy():
    from ansible_collections.kubewin.node.plugins.plugin_utils import _kube_proxy_daemonset  # pylint: disable=import-outside-toplevel
    problems = _kube_proxy_daemonset.mode_problems('daemonset', 'ovn', {'win-1': 'containerd'}, {'win-1': '2.2.7'})
    assert problems == ['kubewin_kube_proxy_mode: daemonset does not apply to the topology ovn: kube-proxy runs on the '
                        'Windows nodes of l2bridge, overlay and calico only (with ovn, OVN load-balances Services itself); leave '
                        'kubewin_kube_proxy_mode unset']
    assert _kube_proxy_daemonset.mode_problems('service', 'ovn', {'win-1': 'docker'}, {}) == []


CALICO_FLEET = {'kubewin_topology': 'calico', 'kubewin_cluster_cidr': '192.168.0.0/16', 'kubewin_calico_version': '3.30.3'}


def test_calico_defaults_to_daemonset_and_refuses_service_naming_why():
    report = check({'all': CALICO_FLEET})
    assert report['inventory']['kube_proxy_mode'] == 'daemonset'
    assert not [line for line in report['problems'] if 'kubewin_kube_proxy_mode' in line], report['problems']
    report = check({'all': dict(CALICO_FLEET, kubewin_kube_proxy_mode='service')})
    assert ('kubewin_kube_proxy_mode: service does not work with the topology calico: its source VIP is the address of '
            'the HNS endpoint Calico_ep, which Calico creates on the node only after it joined, so kube-proxy runs in the '
            'kube-proxy-windows DaemonSet, whose start script waits for it; leave kubewin_kube_proxy_mode unset '
            '(daemonset is its default)') in report['problems']
    # A docker node is refused without suggesting service, which calico does not have.
    report = check({'all': CALICO_FLEET, 'hosts': {'win-2': {'kubewin_container_runtime': 'docker'}}})
    line = next(line for line in report['problems'] if 'needs containerd; win-2 use docker' in line)
    assert line.endswith('use containerd there'), line


OVN = {'all': {'kubewin_topology': 'ovn',
               'artifacts_checksum_overrides': {'openvswitch': {'2.7.0': 'sha256:' + '3' * 64}}},
       'hosts': {'win-%d' % index: {'kubewin_pod_cidr': '10.244.%d.0/24' % index} for index in (1, 2, 3)}}


@pytest.mark.parametrize('plugin, expected', [
    ({'url': 'https://mirror.example/ovn_cni.exe', 'checksum': 'sha256:' + '0' * 64},
     'its checksum is the placeholder of zeros, which no file has'),
    ({'url': 'http://mirror.example/ovn_cni.exe', 'checksum': 'sha256:' + '4' * 64}, 'must be {} or {url: https://'),
    ({'url': 'https://mirror.example/ovn_cni.exe'}, 'must be {} or {url: https://'),
    ({'url': 'https://mirror.example/ovn_cni.exe', 'checksum': 'sha256:abc'}, 'a sha256 is 64 hexadecimal digits'),
])
def test_every_checksum_the_collection_reads_follows_one_rule(plugin, expected):
    # network_ovn_cni_plugin is the one download outside the catalog: its pin is checked like the catalog's.
    case = dict(OVN, all=dict(OVN['all'], network_ovn_cni_plugin=plugin))
    problems = check(case)['problems']
    assert [line for line in problems if line.startswith('network_ovn_cni_plugin') and expected in line], problems
    hostvars, groups = inventory(case)
    rendered = _preflight.preflight(hostvars, groups, 'site', placeholder_pins='warn')
    placeholder = 'placeholder' in expected
    assert bool(rendered['problems']) != placeholder
    assert any('network_ovn_cni_plugin' in line for line in rendered['warnings']) == placeholder


def test_the_artifact_module_refuses_the_placeholder_too():
    with pytest.raises(_artifacts.ChecksumError, match='placeholder of zeros'):
        _artifacts.parse_checksum('sha512:' + '0' * 128)
    assert _artifacts.parse_checksum('sha256:' + 'A' * 64) == ('sha256', 'a' * 64, None)


def test_a_node_variable_outside_the_groups_listed_as_unchecked_is_a_warning():
    case = {'groups': {'windows_nodes': ['win-1', 'win-2'], 'spare': ['win-3'], 'kube_control_plane': ['cp1']},
            'hosts': {'win-3': {'kubewin_management_ip': '10.127.130.43'}},
            'all': {'kubewin_unchecked_variables': ['kubewin_management_ip']}}
    report = check(case)
    assert report['problems'] == []
    assert [line for line in report['warnings'] if line.startswith('kubewin_management_ip: set on win-3')]


def _broken(case_id):
    return next(case for case in BROKEN['cases'] if case['id'] == case_id)


def test_the_downloads_the_inventory_names_itself_are_staged_with_the_catalogs():
    """The OVN CNI plugin and the gMSA CCG plugin's files are in each node's artifacts (plan_artifacts), which the
    prerequisites play stages and verifies before the node's first change: a wrong pin fails there."""
    plugin = {'url': 'https://mirror.example/ovn_cni.exe', 'checksum': 'sha256:' + '4' * 64}
    report = check(dict(OVN, all=dict(OVN['all'], network_ovn_cni_plugin=plugin)))
    assert report['problems'] == [], report['problems']
    assert [a for a in report['artifacts']['win-2'] if a['component'] == 'ovn-cni'] == [dict(plugin, component='ovn-cni')]
    # The CCG plugin of the clsid case, with the clsid in braces.
    case = _broken('gmsa-ccg-plugin-clsid-without-braces')
    ccg = dict(case['all']['kubewin_gmsa_ccg_plugin'], clsid='{CCC2A336-D7F3-4818-A213-272B7924213E}')
    report = check({'all': dict(case['all'], kubewin_gmsa_ccg_plugin=ccg)})
    assert report['problems'] == [], report['problems']
    staged = [(a['component'], a['url'], a['checksum']) for a in report['artifacts']['win-3'] if a['component'].startswith('ccg')]
    assert staged == [('ccg-plugin ' + name, ccg[name]['url'], ccg[name]['checksum'])
                      for name in ('dll', 'registration', 'events_manifest')]
    # Without gMSA, or with gMSA on domain-joined nodes (no plugin), nothing of it.
    report = check({'all': dict(case['all'], kubewin_gmsa_ccg_plugin={})})
    assert not [a for a in report['artifacts']['win-3'] if a['component'].startswith('ccg')]


def test_a_placeholder_pin_of_a_ccg_plugin_file_follows_the_catalogs_rule():
    """A CCG plugin file pinned as the placeholder of zeros goes the way of the catalog's pins and the OVN CNI
    plugin's: site.yml refuses it, plan.yml (placeholder_pins=warn) renders with it, staged like the others, and says
    site.yml will refuse it."""
    case = _broken('gmsa-ccg-plugin-placeholder-checksum')
    problems = check(case)['problems']
    assert [line for line in problems if line.startswith('kubewin_gmsa_ccg_plugin.dll')
            and 'placeholder of zeros' in line], problems
    hostvars, groups = inventory(case)
    rendered = _preflight.preflight(hostvars, groups, 'site', placeholder_pins='warn')
    assert rendered['problems'] == [], rendered['problems']
    assert [line for line in rendered['warnings'] if line.startswith('site.yml will refuse this inventory: '
                                                                     'kubewin_gmsa_ccg_plugin.dll')], rendered['warnings']
    dll = case['all']['kubewin_gmsa_ccg_plugin']['dll']
    assert {'url': dll['url'], 'checksum': dll['checksum'], 'component': 'ccg-plugin dll'} in rendered['artifacts']['win-1']


def test_the_kubelet_graceful_shutdown_is_checked_against_the_release_and_the_service_manager():
    grace = {'kubelet_shutdown_grace_period': 60, 'kubelet_shutdown_grace_period_critical_pods': 20}
    assert check({'all': grace})['problems'] == []
    assert check({'all': dict(grace, kubelet_service_manager='nssm')})['problems'] == [
        'kubelet_shutdown_grace_period needs the kubelet to run as a native service (kubelet_service_manager: scm): '
        'under nssm the kubelet is no service of its own and gets no pre-shutdown notification (on all 3 Windows nodes)']
    assert check({'all': dict(grace, kubewin_kubernetes_version='1.31.14')})['problems'] == [
        "kubelet_shutdown_grace_period needs Kubernetes 1.32 or later (the kubelet's graceful shutdown on Windows, "
        "WindowsGracefulNodeShutdown), not 1.31.14 (on all 3 Windows nodes)"]
    assert check({'all': {'kubelet_node_log_query': 'yes'}})['problems'] == [
        "kubelet_node_log_query must be true or false, got 'yes' (on all 3 Windows nodes)"]
    assert check({'hosts': {'win-2': {'kubelet_shutdown_grace_period_critical_pods': 30}}})['problems'] == [
        'kubelet_shutdown_grace_period_critical_pods (30) must not exceed kubelet_shutdown_grace_period (0): it is the '
        'part of the grace period kept for critical pods (on win-2)']


def test_the_node_port_range_and_its_guard_are_checked_before_any_host():
    # Unset: kube-apiserver's default, handed out as plan_features.node_port_range; the guard is off.
    assert check()['features']['node_port_range'] == '30000-32767'
    guarded = {'kubewin_service_node_port_range': '20000-22767', 'prerequisites_node_port_guard': 'exclude'}
    report = check({'all': guarded})
    assert report['problems'] == [] and report['features']['node_port_range'] == '20000-22767'
    assert check({'all': {'kubewin_service_node_port_range': '30000:32767'}})['problems'] == [
        'kubewin_service_node_port_range must be "<first>-<last>" as kube-apiserver\'s --service-node-port-range, e.g. '
        '"30000-32767"; got \'30000:32767\'']
    assert check({'all': {'kubewin_service_node_port_range': '32767-30000'}})['problems'] == [
        "kubewin_service_node_port_range '32767-30000' must name ports from 1 to 65535, the first not above the last"]
    assert check({'all': {'kubewin_service_node_port_range': '30000-70000'}})['problems'] == [
        "kubewin_service_node_port_range '30000-70000' must name ports from 1 to 65535, the first not above the last"]
    assert check({'hosts': {'win-2': {'prerequisites_node_port_guard': 'move'}}})['problems'] == [
        "prerequisites_node_port_guard must be one of off, check, exclude; win-2 has 'move'"]
    # Excluded, a range over all of Windows' default dynamic range would leave a default node no ephemeral port.
    assert check({'all': {'kubewin_service_node_port_range': '40000-65535',
                          'prerequisites_node_port_guard': 'exclude'}})['problems'] == [
        "kubewin_service_node_port_range 40000-65535 covers all of Windows' default dynamic port range 49152-65535: "
        'excluded, no ephemeral port would be left (prerequisites_node_port_guard exclude); give the cluster a '
        'NodePort range below it']
    assert check({'all': {'kubewin_service_node_port_range': '40000-65535'}})['problems'] == []


def test_the_defender_exclusions_switch_is_a_boolean():
    assert check({'all': {'prerequisites_defender_exclusions': True}})['problems'] == []
    assert check({'hosts': {'win-3': {'prerequisites_defender_exclusions': 'no'}}})['problems'] == [
        "prerequisites_defender_exclusions must be true or false, got 'no' (str) (on win-3)"]
    # The plan role on its own reads none of the prerequisites role's variables.
    assert check({'all': {'prerequisites_defender_exclusions': 'yes'}}, playbook='plan')['problems'] == []


MONITORING = {'monitoring_windows_exporter': True, 'monitoring_allowed_sources': ['10.20.0.0/16']}


def test_windows_exporter_is_staged_with_the_nodes_artifacts_only_when_on():
    assert not [a for a in check()['artifacts']['win-1'] if a['component'] == 'windows_exporter']
    report = check({'all': MONITORING})
    assert report['problems'] == []
    [exporter] = [a for a in report['artifacts']['win-1'] if a['component'] == 'windows_exporter']
    assert exporter['version'] == '0.31.8' and exporter['checksum'] == (
        'sha256:https://github.com/prometheus-community/windows_exporter/releases/download/v0.31.8/sha256sums.txt')


@pytest.mark.parametrize('settings, problem', [
    ({'monitoring_allowed_sources': []},
     "monitoring_allowed_sources is empty, but windows_exporter listens beyond the loopback address"),
    ({'monitoring_allowed_sources': ['0.0.0.0/0']}, 'monitoring_allowed_sources lists 0.0.0.0/0, every address'),
    ({'monitoring_allowed_sources': ['10.20.0.1/16']},
     'monitoring_allowed_sources[0] 10.20.0.1/16 has host bits set; did you mean 10.20.0.0/16?'),
    ({'monitoring_allowed_sources': '10.20.0.0/16'}, 'monitoring_allowed_sources must be a list of CIDRs'),
    ({'monitoring_windows_exporter_collectors': ['cpu', 'cs']},
     "monitoring_windows_exporter_collectors: 'cs' is no collector of windows_exporter 0.31.8 (removed in 0.31"),
    ({'monitoring_windows_exporter_collectors': ['cpu', 'cpus']},
     "monitoring_windows_exporter_collectors: 'cpus' is no collector of windows_exporter 0.31.8"),
    ({'monitoring_windows_exporter_port': 70000}, 'monitoring_windows_exporter_port 70000 is not a TCP port'),
    ({'monitoring_windows_exporter_version': '0.30.9'}, 'monitoring_windows_exporter_version 0.30.9: the monitoring '
                                                        'role writes the flags of windows_exporter 0.31.x'),
    ({'monitoring_windows_exporter': 'yes'}, "monitoring_windows_exporter must be true or false, got 'yes'"),
    ({'container_runtime_containerd_metrics_address': '10257'},
     "container_runtime_containerd_metrics_address '10257' is not host:port"),
    ({'container_runtime_containerd_metrics_address': 'fd00::1:10257'}, 'without brackets'),
    ({'container_runtime_containerd_metrics_address': '0.0.0.0:9182'}, 'use the same port'),
])
def test_the_monitoring_settings_are_refused_before_any_host(settings, problem):
    problems = check({'all': dict(MONITORING, **settings)})['problems']
    assert any(problem in line and line.endswith('(on all 3 Windows nodes)') for line in problems), problems


def test_containerd_metrics_beyond_the_loopback_need_sources_and_containerd():
    loopback = {'container_runtime_containerd_metrics_address': '127.0.0.1:1338'}
    assert check({'all': loopback})['problems'] == []
    exposed = {'container_runtime_containerd_metrics_address': '[::]:10257'}
    assert check({'all': exposed})['problems'] == [
        "monitoring_allowed_sources is empty, but containerd's metrics listens beyond the loopback address: name the "
        "networks of the Prometheus servers that scrape the node (neither endpoint authenticates its clients) "
        "(on all 3 Windows nodes)"]
    assert check({'all': dict(exposed, monitoring_allowed_sources=['fd00:20::/64'])})['problems'] == []
    docker = check({'all': dict(loopback), 'hosts': {'win-2': {'kubewin_container_runtime': 'docker'}}})['problems']
    assert ('container_runtime_containerd_metrics_address is set, but the node runs docker: only containerd serves '
            'metrics this way (on win-2)') in docker


def test_patch_managed_is_a_boolean_the_same_on_every_node_and_reaches_the_roles():
    assert check()['features']['patch_managed'] is False
    assert check({'all': {'kubewin_patch_managed': True}})['features']['patch_managed'] is True
    assert check({'all': {'kubewin_patch_managed': 'yes'}})['problems'] == [
        "kubewin_patch_managed is 'yes': it must be true (patch.yml installs the updates, Windows Update installs none "
        "by itself) or false"]
    [problem] = check({'hosts': {'win-2': {'kubewin_patch_managed': True}}})['problems']
    assert problem.startswith('kubewin_patch_managed must be the same on every Windows node')


def test_a_fixed_page_file_has_sizes_in_mb_the_initial_not_above_the_maximum_on_a_drive_letter():
    assert check({'all': {'prerequisites_page_file': {'initial_mb': 4096, 'maximum_mb': 4096}}})['problems'] == []
    assert check({'all': {'prerequisites_page_file': {'initial_mb': 1, 'maximum_mb': 2, 'drive': 'd:'}}})['problems'] == []
    assert check({'hosts': {'win-2': {'prerequisites_page_file': {'initial_mb': 8192, 'maximum_mb': 4096}}}})[
        'problems'] == ['prerequisites_page_file: initial_mb (8192) must not be above maximum_mb (4096) (on win-2)']
    assert check({'all': {'prerequisites_page_file': {'initial_mb': '4G', 'maximum_mb': 8192}}})['problems'] == [
        "prerequisites_page_file: initial_mb and maximum_mb must be whole numbers of MB above 0, got "
        "{'initial_mb': '4G', 'maximum_mb': 8192} (on all 3 Windows nodes)"]
    assert check({'all': {'prerequisites_page_file': {'initial_mb': 0, 'maximum_mb': 0}}})['problems'][0].startswith(
        'prerequisites_page_file: initial_mb and maximum_mb must be whole numbers of MB above 0')
    assert check({'all': {'prerequisites_page_file': {'initial_mb': 1, 'maximum_mb': 2, 'drive': 'D:\\'}}})[
        'problems'] == ["prerequisites_page_file: drive must be a drive letter with its colon, such as C:, got 'D:\\\\' "
                        "(on all 3 Windows nodes)"]
    assert check({'all': {'prerequisites_page_file': {'size_mb': 4096}}})['problems'] == [
        "prerequisites_page_file must be {} (Windows manages the page file) or {initial_mb, maximum_mb, drive}, got "
        "{'size_mb': 4096} (on all 3 Windows nodes)"]


def test_the_commit_limit_check_is_warn_refuse_or_off_with_a_per_pod_figure():
    assert check({'all': {'prerequisites_commit_limit_check': 'refuse', 'prerequisites_commit_limit_pod_mb': 0}})[
        'problems'] == []
    assert check({'all': {'prerequisites_commit_limit_check': 'fail'}})['problems'] == [
        "prerequisites_commit_limit_check must be one of warn, refuse, off, got 'fail' (on all 3 Windows nodes)"]
    assert check({'hosts': {'win-2': {'prerequisites_commit_limit_pod_mb': '64Mi'}}})['problems'] == [
        "prerequisites_commit_limit_pod_mb must be a whole number of MiB, 0 or more, got '64Mi' (on win-2)"]
    assert check({'all': {'prerequisites_commit_limit_check': False}})['problems'] == [
        'prerequisites_commit_limit_check must be one of warn, refuse, off, got False: quote it, "off", which YAML '
        'reads as false unquoted (on all 3 Windows nodes)']
