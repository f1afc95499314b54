# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The version policy and command-line filters as Ansible loads them: registration, Jinja use, docs."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
import yaml

from ansible.errors import AnsibleError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kubewin.node.plugins.filter import node_flags as filter_module

FILTER_NAMES = [
    "credential_provider_binaries",
    "credential_provider_config",
    "flanneld_args",
    "fold_kubeadm_flags",
    "kube_proxy_args",
    "kubeadm_flags",
    "kubelet_args",
    "kubelet_skew",
    "split_windows_command_line",
    "version_policy",
    "windows_command_line",
]
FILTER_DIR = Path(filter_module.__file__).resolve().parent


@pytest.fixture(name="filters")
def fixture_filters():
    return filter_module.FilterModule().filters()


def render(expression, **variables):
    templar = Templar(loader=DataLoader(), variables=variables)
    return templar.template(trust_as_template(expression))


def test_exactly_the_documented_filters_are_registered(filters):
    assert sorted(filters) == FILTER_NAMES
    for name in FILTER_NAMES:
        doc = yaml.safe_load((FILTER_DIR / f"{name}.yml").read_text(encoding="utf-8"))
        assert doc["DOCUMENTATION"]["name"] == name
        assert doc["DOCUMENTATION"]["author"] == "kubewin.node contributors (@kubewin)"
        assert str(doc["DOCUMENTATION"]["version_added"]) == "0.1.0"
        assert "_input" in doc["DOCUMENTATION"]["options"]
        assert "_value" in doc["RETURN"]


def test_version_policy_in_jinja():
    result = render(
        "{{ versions | kubewin.node.version_policy }}",
        versions={"kubernetes_version": "1.33.4", "control_plane_version": "1.34.1", "kubeadm_version": "1.34.1", "windows_build": 20348},
    )
    # The values the documentation example promises.
    assert result["kubernetes_version"] == "1.33.4"
    assert result["minor"] == "1.33"
    assert result["windows_build_label"] == "10.0.20348"
    assert result["pause_image"] == "registry.k8s.io/pause:3.10"
    assert result["needs_cri_dockerd"] is False
    assert result["warnings"] == []


def test_version_policy_refusal_through_jinja():
    with pytest.raises(AnsibleError) as excinfo:
        render("{{ {'kubernetes_version': '1.31.4'} | kubewin.node.version_policy }}")
    assert "CVE-2024-9042" in str(excinfo.value)
    assert "1.31.5" in str(excinfo.value)
    accepted = render("{{ {'kubernetes_version': '1.31.4', 'acknowledged_cves': ['CVE-2024-9042']} | kubewin.node.version_policy }}")
    assert accepted["acknowledged_cves"] == ["CVE-2024-9042"]


def test_kubelet_args_in_jinja():
    result = render(
        "{{ inputs | kubewin.node.kubelet_args }}",
        inputs={"kubernetes_version": "1.33.4", "hostname": "WIN-01", "windows_build": 20348, "register_with_taints": ["os=windows:NoSchedule"]},
    )
    assert "--hostname-override=win-01" in result["args"]
    assert "--register-with-taints=os=windows:NoSchedule" in result["args"]
    assert "--node-labels=node.kubernetes.io/windows-build=10.0.20348" in result["args"]
    assert result["env"] == {}


def test_kube_proxy_args_documented_example():
    result = render(
        "{{ {'kubernetes_version': '1.33.4', 'hostname': 'WIN-01', 'cluster_cidr': '10.244.0.0/16',"
        " 'kubeconfig': 'C:\\k\\config', 'topology': 'overlay', 'source_vip': '10.244.3.2'} | kubewin.node.kube_proxy_args }}"
    )
    assert result["args"] == [
        "--cluster-cidr=10.244.0.0/16",
        "--enable-dsr=false",
        "--hostname-override=win-01",
        "--kubeconfig=C:\\k\\config",
        "--network-name=flannel.4096",
        "--proxy-mode=kernelspace",
        "--source-vip=10.244.3.2",
        "--v=2",
        "--windows-service",
    ]
    assert result["env"] == {"KUBE_NETWORK": "flannel.4096"}


def test_flanneld_args_documented_example():
    result = render(
        "{{ {'hostname': 'WIN-01', 'management_ip': '10.127.130.38', 'kubeconfig': 'C:\\k\\config'} | kubewin.node.flanneld_args }}"
    )
    assert result["args"] == [
        "--iface=10.127.130.38",
        "--ip-masq=1",
        "--kube-subnet-mgr=1",
        "--kubeconfig-file=C:\\k\\config",
        "--net-config-path=C:\\etc\\kube-flannel\\net-conf.json",
        "--subnet-file=C:\\run\\flannel\\subnet.env",
    ]
    assert result["env"] == {"NODE_NAME": "win-01"}


def test_kubeadm_flags_and_folding_in_jinja():
    env_text = (
        'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=npipe:////./pipe/containerd-containerd '
        '--pod-infra-container-image=registry.k8s.io/pause:3.10"\n'
    )
    assert render("{{ text | kubewin.node.kubeadm_flags }}", text=env_text) == [
        "--container-runtime-endpoint=npipe:////./pipe/containerd-containerd",
        "--pod-infra-container-image=registry.k8s.io/pause:3.10",
    ]
    folded = render(
        "{{ ['--v=2', '--container-runtime-endpoint=npipe:////./pipe/cri-dockerd'] | kubewin.node.fold_kubeadm_flags(text, '1.35.0') }}",
        text=env_text,
    )
    assert folded == ["--container-runtime-endpoint=npipe:////./pipe/cri-dockerd", "--v=2"]


def test_windows_command_line_documented_example():
    line = render(
        "{{ path | kubewin.node.windows_command_line(args) }}",
        path="C:\\Program Files\\kubernetes\\kubelet.exe",
        args=["--node-labels=a=b", "x y", "", 'say "hi"', "C:\\dir with space\\"],
    )
    assert line == '"C:\\Program Files\\kubernetes\\kubelet.exe" --node-labels=a=b "x y" "" "say \\"hi\\"" "C:\\dir with space\\\\"'
    assert render("{{ line | kubewin.node.split_windows_command_line }}", line=line) == [
        "C:\\Program Files\\kubernetes\\kubelet.exe",
        "--node-labels=a=b",
        "x y",
        "",
        'say "hi"',
        "C:\\dir with space\\",
    ]


def test_filter_errors_reach_the_playbook(filters):
    with pytest.raises(AnsibleError, match="hostname must be a DNS name"):
        render("{{ {'kubernetes_version': '1.33.4', 'hostname': 'bad_name'} | kubewin.node.kubelet_args }}")
    with pytest.raises(AnsibleError, match="the executable path must be a file path"):
        render("{{ '' | kubewin.node.windows_command_line([]) }}")


def _templated_strings(value):
    if isinstance(value, str):
        if "{{" in value:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _templated_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _templated_strings(item)


EXAMPLE_VARIABLES = {
    "inventory_hostname": "WIN-01",
    "ansible_host": "10.127.130.38",
    "kubelet": {
        "args": ["--v=2", "--windows-service"],
        "wrapper": ["C:\\k\\kube-log-runner.exe", "-log-file=C:\\var\\log\\kubelet\\kubelet.log"],
    },
    # A kubeadm-flags.env as win_slurp returns it (base64).
    "kubeadm_env": {
        "content": base64.b64encode(
            b'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=npipe:////./pipe/containerd-containerd"\n'
        ).decode("ascii")
    },
    "kubelet_service": {"path": '"C:\\Program Files\\k\\kubelet.exe" --v=2 "x y"'},
}


@pytest.mark.parametrize("name", FILTER_NAMES)
def test_documented_examples_render(name):
    doc = yaml.safe_load((FILTER_DIR / f"{name}.yml").read_text(encoding="utf-8"))
    rendered = 0
    for task in yaml.safe_load(doc["EXAMPLES"]):
        variables = {**EXAMPLE_VARIABLES, **task.get("vars", {})}
        module_args = {key: value for key, value in task.items() if key not in ("name", "vars", "register")}
        for expression in _templated_strings(module_args):
            assert render(expression, **variables) is not None
            rendered += 1
    assert rendered, f"{name} has no example that uses it"


def test_windows_command_line_quoting_example_output():
    doc = yaml.safe_load((FILTER_DIR / "windows_command_line.yml").read_text(encoding="utf-8"))
    task = yaml.safe_load(doc["EXAMPLES"])[1]
    assert render(task["ansible.builtin.debug"]["msg"], **task["vars"]) == (
        '"C:\\Program Files\\kubernetes\\kubelet.exe" --node-labels=a=b "x y" "" "say \\"hi\\"" "C:\\dir with space\\\\"'
    )
