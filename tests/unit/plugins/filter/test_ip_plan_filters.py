# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The IP plan filters as Ansible loads them: registration, Jinja use, docs, missing netaddr."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
import yaml

from ansible.errors import AnsibleError, AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kubewin.node.plugins.filter import ip_plan as filter_module

FILTER_NAMES = ["cni_config", "exception_list", "flannel_net_conf", "ip_plan", "pod_gateways", "static_routes"]
FILTER_DIR = Path(filter_module.__file__).resolve().parent

SEED_004 = {
    "topology": "l2bridge",
    "cluster_cidr": "10.244.0.0/16",
    "service_cidr": "10.96.0.0/12",
    "management_cidr": "10.127.130.0/24",
}


@pytest.fixture(name="filters")
def fixture_filters():
    return filter_module.FilterModule().filters()


def render(expression, **variables):
    templar = Templar(loader=DataLoader(), variables=variables)
    return templar.template(trust_as_template(expression))


def test_exactly_the_documented_filters_are_registered(filters):
    assert sorted(filters) == FILTER_NAMES


def test_ip_plan_filter(filters):
    assert filters["ip_plan"](SEED_004)["dns_service_ip"] == "10.96.0.10"


def test_exception_list_filter_seed_004(filters):
    assert filters["exception_list"](SEED_004, "l2bridge") == ["10.244.0.0/16", "10.96.0.0/12", "10.127.130.0/24"]


def test_pod_gateways_filter(filters):
    assert filters["pod_gateways"]("10.10.187.64/26") == {
        "bridge_gateway": "10.10.187.65",
        "endpoint_gateway": "10.10.187.66",
    }


def test_filter_errors_are_ansible_filter_errors(filters):
    with pytest.raises(AnsibleFilterError, match="has host bits set; did you mean 10.244.0.0/16"):
        filters["ip_plan"](dict(SEED_004, cluster_cidr="10.244.1.0/16"))


def test_missing_netaddr_is_reported_when_a_filter_is_used(filters, monkeypatch):
    monkeypatch.setattr(filter_module, "HAS_NETADDR", False)
    with pytest.raises(AnsibleFilterError) as caught:
        filters["exception_list"](SEED_004)
    message = str(caught.value)
    assert "(netaddr)" in message and "pip install netaddr" in message


def test_filters_load_while_netaddr_is_missing(monkeypatch):
    monkeypatch.setattr(filter_module, "HAS_NETADDR", False)
    assert sorted(filter_module.FilterModule().filters()) == FILTER_NAMES


# ---------------------------------------------------------------------------------------------
# Through Jinja, as playbooks use them
# ---------------------------------------------------------------------------------------------


def test_jinja_exception_list():
    assert render("{{ plan | kubewin.node.exception_list('l2bridge') }}", plan=SEED_004) == [
        "10.244.0.0/16",
        "10.96.0.0/12",
        "10.127.130.0/24",
    ]


def test_jinja_cni_config_with_keyword_pod_cidr_is_json_serializable():
    static = dict(SEED_004, l2bridge_routing="static_routes")
    config = render(
        "{{ plan | kubewin.node.ip_plan | kubewin.node.cni_config('l2bridge', 'containerd', '10.127.130.38', pod_cidr='10.244.7.0/24') }}",
        plan=static,
    )
    assert config["type"] == "sdnbridge"
    assert config["ipam"]["subnet"] == "10.244.7.0/24"
    assert json.loads(json.dumps(config)) == config


def test_jinja_integer_strings_from_inventory():
    assert render("{{ plan | kubewin.node.ip_plan }}", plan=dict(SEED_004, max_pods="100"))["max_pods"] == 100


def test_jinja_error_names_the_offending_values():
    with pytest.raises(AnsibleError) as caught:
        render(
            "{{ plan | kubewin.node.ip_plan }}",
            plan=dict(SEED_004, service_cidr="11.0.0.0/8", cluster_cidr="10.10.0.0/16"),
        )
    assert (
        "service_cidr 11.0.0.0/8 is too large: kube-apiserver refuses it (an IPv4 service range needs a mask of at least /12)"
        in str(caught.value)
    )


def test_jinja_flannel_net_conf_to_json():
    text = render("{{ plan | kubewin.node.flannel_net_conf | to_json }}", plan=dict(SEED_004, topology="overlay"))
    assert json.loads(text) == {
        "Network": "10.244.0.0/16",
        "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789, "Name": "flannel.4096"},
    }


def test_jinja_static_routes_for_one_node():
    nodes = [
        {"name": "win-a", "management_ip": "10.127.130.11", "pod_cidr": "10.244.1.0/24"},
        {"name": "win-b", "management_ip": "10.127.130.12", "pod_cidr": "10.244.2.0/24"},
    ]
    routes = render(
        "{{ (plan | kubewin.node.static_routes(nodes))['win-a'] }}",
        plan=dict(SEED_004, l2bridge_routing="static_routes"),
        nodes=nodes,
    )
    assert routes == [{"destination": "10.244.2.0/24", "next_hop": "10.127.130.12", "via_node": "win-b"}]


# ---------------------------------------------------------------------------------------------
# Documentation
# ---------------------------------------------------------------------------------------------


def sidecar(name):
    return yaml.safe_load((FILTER_DIR / f"{name}.yml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", FILTER_NAMES)
def test_sidecar_positional_arguments_match_the_implementation(name, filters):
    documentation = sidecar(name)["DOCUMENTATION"]
    assert documentation["name"] == name
    assert str(documentation["version_added"]) == "0.1.0"
    positional = [part.strip() for part in documentation["positional"].split(",")]
    parameters = list(inspect.signature(filters[name]).parameters)
    assert positional == ["_input", *parameters[1:]]
    assert set(documentation["options"]) == set(positional)


@pytest.mark.parametrize("name", FILTER_NAMES)
def test_sidecar_has_examples_and_return_value(name):
    document = sidecar(name)
    assert document["EXAMPLES"].strip()
    assert "_value" in document["RETURN"]
