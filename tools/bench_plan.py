# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Time IP plan validation and CNI rendering for a large fleet.

Validates a plan that lists N nodes (the work of the kubewin.node.ip_plan filter), then renders
every node's CNI config to JSON (kubewin.node.cni_config once per node), and prints the elapsed
seconds and the peak memory. Exits 1 when the time exceeds the budget.

Usage: bench_plan.py [--nodes 5000] [--topology l2bridge] [--routing static_routes]
                     [--runtime containerd] [--budget 1.0]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IP_PLAN_PATH = ROOT / "plugins" / "plugin_utils" / "_ip_plan.py"

# Big enough for 16384 /24 node subnets; 5000 nodes fit the sizing rule with room to spare.
CLUSTER_CIDR = "10.128.0.0/10"
SERVICE_CIDR = "10.96.0.0/12"
MANAGEMENT_CIDR = "172.16.0.0/16"


def load_ip_plan():
    # Loaded from its file so the benchmark needs no installed collection, only ansible-core and netaddr.
    spec = importlib.util.spec_from_file_location("kubewin_ip_plan_bench", IP_PLAN_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def build_raw_plan(ip_plan, node_count: int, topology: str, routing: str | None) -> dict:
    netaddr = ip_plan.netaddr
    cluster = netaddr.IPNetwork(CLUSTER_CIDR)
    management = netaddr.IPNetwork(MANAGEMENT_CIDR)
    plan = {
        "topology": topology,
        "cluster_cidr": CLUSTER_CIDR,
        "service_cidr": SERVICE_CIDR,
        "management_cidr": MANAGEMENT_CIDR,
        "extra_exceptions": ["172.31.0.0/16"],
    }
    if routing:
        plan["l2bridge_routing"] = routing
    pod_cidrs_needed = topology == "ovn" or routing in ("static_routes", "upstream")
    nodes = []
    for index in range(node_count):
        node = {"name": f"win-{index:05d}", "management_ip": str(netaddr.IPAddress(management.first + index + 1))}
        if pod_cidrs_needed:
            node["pod_cidr"] = f"{netaddr.IPAddress(cluster.first + index * 256)}/24"
        nodes.append(node)
    plan["nodes"] = nodes
    return plan


def validate_and_render(ip_plan, raw_plan: dict, runtime: str) -> tuple[float, float, list[str]]:
    ip_plan._SETTINGS_CACHE.clear()  # measure a cold start, as a fresh controller process has
    started = time.perf_counter()
    plan = ip_plan.normalize_plan(raw_plan)
    validated = time.perf_counter()
    configs = [
        json.dumps(ip_plan.cni_config(plan, plan["topology"], runtime, node["management_ip"], node["pod_cidr"]))
        for node in plan["nodes"]
    ]
    rendered = time.perf_counter()
    return validated - started, rendered - validated, configs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--topology", choices=("l2bridge", "overlay", "ovn"), default="l2bridge")
    parser.add_argument(
        "--routing",
        choices=("flannel", "static_routes", "upstream"),
        default=None,
        help="l2bridge only; default static_routes, the variant with the most work per node",
    )
    parser.add_argument("--runtime", choices=("containerd", "docker"), default="containerd")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds allowed for validation plus rendering")
    args = parser.parse_args(argv)
    routing = args.routing or ("static_routes" if args.topology == "l2bridge" else None)

    ip_plan = load_ip_plan()
    raw_plan = build_raw_plan(ip_plan, args.nodes, args.topology, routing)

    validate_seconds, render_seconds, configs = validate_and_render(ip_plan, raw_plan, args.runtime)
    total = validate_seconds + render_seconds

    # A second run under tracemalloc: tracing slows Python down, so it must not be the timed one.
    del configs
    tracemalloc.start()
    validate_and_render(ip_plan, raw_plan, args.runtime)
    traced_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    max_rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux

    print(f"nodes={args.nodes} topology={args.topology} routing={routing} runtime={args.runtime}")
    print(f"validate_seconds={validate_seconds:.3f} render_seconds={render_seconds:.3f} total_seconds={total:.3f}")
    print(f"traced_peak_mib={traced_peak / 2**20:.1f} max_rss_mib={max_rss_kib / 1024:.1f}")
    if total > args.budget:
        print(f"over budget: {total:.3f}s > {args.budget:.3f}s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
