"""Benchmark: a PinApp preview's placement with N workloads on the host (issue 35 point 6; not a test).

    .venv/bin/python bench/preview_placement.py [--workloads 10000] [--calls 300]

The part of ``workloads.preview.preview`` that grows with the host: ``placement_of`` (every admitted host object's
placed usage, the members' candidates, ``place`` and the cluster rows) over the portal's real host cache store
(``clusters.kube.cache.cluster_store``) filled with N admitted and placed workloads (every fifth a two-zone PinApp)
and two MemberCluster objects. The first call reads every object (cold); the calls after it read each object once
per version (``pincompute.federation.placed``); between calls 1 % of the objects get a new resourceVersion, as a
busy host's status writes do. Writes bench/results/preview_placement.json.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")
os.environ.setdefault("WATCH_CACHE_ENABLED", "false")
os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from clusters.kube.cache import cluster_store  # noqa: E402
from pincompute.federation.members import MemberSpec, member_cluster_manifest  # noqa: E402
from pincompute.kinds import KINDS, MEMBER_CLUSTER  # noqa: E402
from pincompute.quantity import Resources  # noqa: E402
from pincompute.specs import parse  # noqa: E402
from tests.support.examples import example  # noqa: E402
from workloads.preview import placement_of  # noqa: E402

GI = 2**30
ZONES = ("local-1a", "local-1b")


class Host:
    """The slice of ``WatchCache`` the preview reads."""

    def __init__(self) -> None:
        self.store = cluster_store()

    def list(self, plural: str, namespace: str | None = None) -> list[dict[str, Any]]:
        return self.store.list(plural, namespace)

    def get(self, plural: str, namespace: str | None, name: str) -> dict[str, Any] | None:
        return self.store.get(plural, namespace, name)


def workload(i: int, version: int) -> tuple[str, dict[str, Any]]:
    kind = "PinApp" if i % 5 == 0 else "PinPod"
    obj = copy.deepcopy(example(kind))
    namespace = f"team-{i % 200:03d}"
    obj["metadata"].update(name=f"w-{i:05d}", namespace=namespace, uid=f"uid-{i}", generation=1)
    obj["metadata"]["resourceVersion"] = str(version)
    rows = [{"cluster": "member-a", "zone": ZONES[0], "replicas": 1}]
    if kind == "PinApp":
        rows.append({"cluster": "member-b", "zone": ZONES[1], "replicas": 1})
    obj["status"] = {"conditions": [{"type": "Admitted", "status": "True"}], "placement": {"clusters": rows}}
    return KINDS[kind].plural, obj


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--churn", type=float, default=0.01, help="share of objects given a new version per call")
    args = parser.parse_args()
    host = Host()
    for name, zone in (("member-a", ZONES[0]), ("member-b", ZONES[1])):
        pools = {"reserved": Resources(10**7, 10**5 * GI), "ondemand": Resources(10**7, 10**5 * GI)}
        member = member_cluster_manifest(MemberSpec(name, "local", zone, ("general",), pools))
        member["status"] = {
            "conditions": [{"type": "Ready", "status": "True"}],
            "nodeCount": 20,
            "largestNode": {"cpu": "32", "memory": "128Gi"},
        }
        host.store.apply(MEMBER_CLUSTER.plural, "ADDED", member)
    version = 1
    for i in range(args.workloads):
        plural, obj = workload(i, version)
        host.store.apply(plural, "ADDED", obj)
    manifest = copy.deepcopy(example("PinApp"))
    manifest["spec"].update(replicas=2, zones=list(ZONES))
    manifest["spec"].pop("rollout", None)
    app = parse(manifest)

    def call() -> float:
        t = time.perf_counter()
        shown = placement_of(app, manifest, host, None)
        assert shown.shards, shown
        return time.perf_counter() - t

    cold = call()
    churned = max(1, int(args.workloads * args.churn))
    samples = []
    for n in range(args.calls):
        for j in range(churned):  # a busy host: some objects' status was written since the last call
            version += 1
            plural, obj = workload((n * churned + j) % args.workloads, version)
            host.store.apply(plural, "MODIFIED", obj)
        samples.append(call())
    load = os.getloadavg()
    result = {
        "workloads": args.workloads,
        "calls": args.calls,
        "changed_per_call": churned,
        "cold_ms": round(cold * 1000, 1),
        "p50_ms": round(pct(samples, 50) * 1000, 1),
        "p99_ms": round(pct(samples, 99) * 1000, 1),
        "max_ms": round(max(samples) * 1000, 1),
        "load_average": [round(x, 1) for x in load],
    }
    print(
        f"PinApp preview placement, {args.workloads} workloads on the host ({churned} changed before each call): "
        f"cold {result['cold_ms']} ms; p50 {result['p50_ms']} / p99 {result['p99_ms']} / max {result['max_ms']} ms "
        f"over {args.calls} calls; load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "preview_placement.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
