"""Benchmark: failover of a lost member, on the local control plane (not a test).

    .venv/bin/python bench/failover.py [--state-dir /tmp/bench-fed-cp] [--apps 10] [--replicas 4]
                                       [--after-seconds 5] [--max-surge 100%] [--rounds 1]

The federation operator runs as a subprocess against a kubeconfig whose member-b goes through a TCP forwarder
(``tests/harness/forwarder.py``): stopping it is member-b's apiserver stopping for the federation, while member-b's
pods keep running (a partition, the worst case for duplicates). N PinApps of R replicas over both zones, with
``spec.failover.afterSeconds`` and ``maxSurge`` as given, run 50/50 on member-a and member-b; then the forwarder
stops. Figures: from the stop to every replica Running on member-a (goal: afterSeconds + <= 10 s), per app and
for all; the most replicas of one app ever seen Running on both members together, read directly every 0.2 s
(goal: never above replicas + surge); after the forwarder starts again, the time until member-b's stale shards
and pods are gone. Writes bench/results/failover.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kubernetes import client  # noqa: E402

from bench.federation import make_project, pct, register_members, remove_project  # noqa: E402
from devtools.localcp import LocalControlPlane  # noqa: E402
from devtools.localcp.nodes import api_client  # noqa: E402
from devtools.operator_process import OperatorProcess, install_crds  # noqa: E402
from devtools.waiting import wait_for  # noqa: E402
from pincompute import GROUP, VERSION  # noqa: E402
from pincompute.grants import Allocation  # noqa: E402
from pincompute.quantity import Resources  # noqa: E402
from pincompute.specs.failover import FailoverPolicy  # noqa: E402
from tests.harness.forwarder import TcpForwarder, kubeconfig_through_forwarder  # noqa: E402

MEMBERS = ("member-a", "member-b")
CONTAINER = {"name": "app", "image": "registry.local/bench/app:1", "resources": {"requests": {"cpu": "10m"}}}


def forwarded(cp: LocalControlPlane, state_dir: Path) -> tuple[Path, TcpForwarder]:
    """A kubeconfig whose member-b is reached through a forwarder: stopping it is losing member-b."""
    member_b, path = cp.cluster("member-b"), state_dir / "failover-kubeconfig"
    return path, kubeconfig_through_forwarder(Path(cp.kubeconfig_path), member_b.server, member_b.context, path)


def pinapp(name: str, namespace: str, args: argparse.Namespace) -> dict[str, Any]:
    surge: int | str = int(args.max_surge) if args.max_surge.isdigit() else args.max_surge
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "PinApp",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "project": namespace,
            "team": "team",
            "tier": "OnDemand",
            "replicas": args.replicas,
            "zones": ["local-1a", "local-1b"],
            "template": {"containers": [CONTAINER]},
            "failover": {"afterSeconds": args.after_seconds, "maxSurge": surge},
        },
    }


def running(api: client.ApiClient, namespace: str) -> dict[str, int]:
    """Running pods per workload in ``namespace`` (one LIST)."""
    out: dict[str, int] = {}
    for pod in client.CoreV1Api(api).list_namespaced_pod(namespace, label_selector="pincompute.io/workload").items:
        if pod.status.phase == "Running" and not pod.metadata.deletion_timestamp:
            name = pod.metadata.labels["pincompute.io/workload"]
            out[name] = out.get(name, 0) + 1
    return out


def placed(api: client.ApiClient, namespace: str) -> dict[str, list[str]]:
    """Each PinApp's placed clusters as the host records them."""
    items = client.CustomObjectsApi(api).list_namespaced_custom_object(GROUP, VERSION, namespace, "pinapps")["items"]
    rows = {
        o["metadata"]["name"]: ((o.get("status") or {}).get("placement") or {}).get("clusters") or [] for o in items
    }
    return {name: [r.get("cluster") for r in clusters] for name, clusters in rows.items()}


def shards(api: client.ApiClient, namespace: str) -> int:
    items = client.CustomObjectsApi(api).list_namespaced_custom_object(GROUP, VERSION, namespace, "pinapps")["items"]
    return len(items)


def run_round(args: argparse.Namespace, apis: dict[str, client.ApiClient], forwarder: TcpForwarder) -> dict[str, Any]:
    ns = make_project(apis, "failover", Allocation.of(Resources(64_000, 256 * 2**30), 0))
    names = [f"app-{i:02d}" for i in range(args.apps)]
    half = args.replicas // 2
    for name in names:
        body = pinapp(name, ns, args)
        client.CustomObjectsApi(apis["host"]).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", body)

    def spread() -> bool:
        a, b = running(apis["member-a"], ns), running(apis["member-b"], ns)
        return all(a.get(n) == args.replicas - half and b.get(n) == half for n in names)

    wait_for(spread, 300, interval=0.5, what="every app Running on both members")
    most: dict[str, int] = {}
    recovered: dict[str, float] = {}
    replaced: dict[str, float] = {}  # the host's placement names member-a alone
    stop = threading.Event()
    t0 = time.monotonic()

    def sample() -> None:
        while not stop.is_set():
            a, b = running(apis["member-a"], ns), running(apis["member-b"], ns)
            now = time.monotonic() - t0
            for name, clusters in placed(apis["host"], ns).items():
                if name not in replaced and clusters == ["member-a"]:
                    replaced[name] = now
            for name in names:
                most[name] = max(most.get(name, 0), a.get(name, 0) + b.get(name, 0))
                if name not in recovered and a.get(name, 0) >= args.replicas:
                    recovered[name] = now
            stop.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    t0 = time.monotonic()
    forwarder.stop()
    sampler.start()
    try:
        wait_for(lambda: len(recovered) == len(names), 300, interval=0.5, what="every replica Running on member-a")
    finally:
        forwarder.start()
    back = time.monotonic()
    wait_for(
        lambda: shards(apis["member-b"], ns) == 0 and not running(apis["member-b"], ns),
        300,
        interval=0.5,
        what="member-b's stale shards and pods gone",
    )
    cleaned = time.monotonic() - back
    stop.set()
    sampler.join()
    remove_project(apis, ns)
    surge = FailoverPolicy(True, args.after_seconds, pinapp("x", ns, args)["spec"]["failover"]["maxSurge"])
    times = sorted(recovered.values())
    moved = sorted(replaced.values())
    return {
        "apps": args.apps,
        "replicas": args.replicas,
        "after_seconds": args.after_seconds,
        "max_surge": args.max_surge,
        "allowed_per_app": args.replicas + surge.surge(args.replicas),
        "stop_to_placement_moved_s": {"p50": pct(moved, 50), "max": moved[-1] if moved else None},
        "stop_to_all_running_s": {"p50": pct(times, 50), "p99": pct(times, 99), "max": times[-1]},
        "beyond_grace_s": times[-1] - args.after_seconds,
        "most_running_per_app": max(most.values()),
        "return_to_stale_gone_s": cleaned,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state-dir", default="/tmp/bench-fed-cp")
    parser.add_argument("--nodes", type=int, default=4, help="kwok nodes per member")
    parser.add_argument("--apps", type=int, default=10)
    parser.add_argument("--replicas", type=int, default=4)
    parser.add_argument("--after-seconds", type=int, default=5)
    parser.add_argument("--max-surge", default="100%")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    state_dir = Path(args.state_dir)
    cp = LocalControlPlane(state_dir, members=2, nodes_per_member=args.nodes)
    started = not cp.is_healthy()
    cp.up()
    install_crds(str(cp.kubeconfig_path), MEMBERS, host="host")
    apis = {name: api_client(str(cp.kubeconfig_path), name) for name in ("host", *MEMBERS)}
    register_members(cp, apis)
    kubeconfig, forwarder = forwarded(cp, state_dir)
    op = OperatorProcess(
        kubeconfig, state_dir, f"bench-fo-{os.getpid()}", f"bench-fo-{uuid.uuid4().hex[:6]}", federation=True
    )
    op.start()
    rounds = []
    try:
        wait_for(lambda: op.metrics().get("leading") == 1.0, 60, what="operator leading")
        for _ in range(args.rounds):
            rounds.append(run_round(args, apis, forwarder))
            r = rounds[-1]
            print(
                f"{r['apps']} PinApps x {r['replicas']} replicas, afterSeconds {r['after_seconds']}, maxSurge "
                f"{r['max_surge']}: member-b stopped -> placement moved p50 "
                f"{r['stop_to_placement_moved_s']['p50']:.1f} s; "
                f"every replica Running on member-a p50 "
                f"{r['stop_to_all_running_s']['p50']:.1f} s, max {r['stop_to_all_running_s']['max']:.1f} s "
                f"(grace + {r['beyond_grace_s']:.1f} s; goal <= 10 s); most Running per app "
                f"{r['most_running_per_app']} (allowed {r['allowed_per_app']}); member-b back -> stale shards and "
                f"pods gone in {r['return_to_stale_gone_s']:.1f} s",
                flush=True,
            )
    finally:
        code = op.terminate()
        forwarder.stop()
        if started:
            cp.down()
    out = {
        "machine": f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end",
        "operator_exit": code,
        "rounds": rounds,
    }
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "failover.json").write_text(json.dumps(out, indent=2))
    print("wrote bench/results/failover.json")


if __name__ == "__main__":
    main()
