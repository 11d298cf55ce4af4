"""Benchmark: one search across everything (not a test).

    .venv/bin/python bench/search.py [--projects 1000] [--workloads 10000] [--pods 100000] [--runs 50]

PostgreSQL is started like the test harness does and migrated. ``--projects`` projects (rows written directly),
``--workloads`` PinApps spread over them in the host's watch cache and ``--pods`` pods spread over the workloads on
two members' caches: the portal's real store (``clusters.kube.cache.cluster_store``, through
tests/support/fakes.FilledCache) in place of ``clusters.runtime``'s watch caches (a search never calls an
apiserver). 10,000 audit entries and 2,000 users are written too. Then ``search.services.search`` is timed for a
developer of 5 projects and for a platform admin (every project, plus clusters, nodes, users, groups, audit), with
queries that match one name exactly, a prefix shared by 10 % of the names, a word inside many names, and nothing.

The heap is frozen after the fill as the web replicas freeze it once their lists are in (``--no-freeze`` to compare).
Goal (issue 30): p99 <= 100 ms with 10k workloads and 100k pods. Writes bench/results/search.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.chargeback import MEMBERS, start_database  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "search.json"
QUERIES = {
    "exact": "w0042-api",  # one workload's whole name
    "prefix": "w00",  # 10 % of the workloads and their pods
    "word": "api",  # a word in a quarter of the names
    "nothing": "zzz-none",
    "team": "team-7",  # a team's name: its projects (25 of the 1,000), by their team
}


def fill(args: argparse.Namespace) -> tuple[Any, Any]:
    from django.contrib.auth import get_user_model

    from base.models import AuditEvent
    from clusters.models import Cluster
    from projects.models import Membership, Project
    from tests.support.fakes import FilledCache

    for name in MEMBERS:
        Cluster.objects.create(name=name, region="local-1", zone=f"local-1{name[-1]}", role="member",
                               api_server="https://127.0.0.1:1", kubeconfig_path="/nonexistent")  # fmt: skip
    projects = Project.objects.bulk_create(
        [Project(name=f"p{i:04d}", team=f"team-{i % 40}", cost_center="CC-1") for i in range(args.projects)]
    )
    users = get_user_model()
    users.objects.bulk_create([users(username=f"user{i:04d}", email=f"user{i:04d}@example.com") for i in range(2000)])
    developer = users.objects.create_user("dev", "dev@example.com", "x")
    admin = users.objects.create_superuser("ops", "ops@example.com", "x")
    Membership.objects.bulk_create([Membership(project=p, user=developer, role="developer") for p in projects[:5]])
    AuditEvent.objects.bulk_create(
        [
            AuditEvent(
                actor_name="dev",
                action="workload.create",
                target_kind="PinApp",
                target_name=f"w{i:04d}-api",
                project_name=projects[i % len(projects)].name,
            )
            for i in range(10_000)
        ]
    )
    suffixes = ("api", "web", "worker", "train")
    workloads, pods = [], {m: [] for m in MEMBERS}
    for i in range(args.workloads):
        project = projects[i % len(projects)]
        name = f"w{i:04d}-{suffixes[i % len(suffixes)]}"
        meta = {"name": name, "namespace": project.namespace, "uid": f"uid-{i}"}
        workloads.append({"apiVersion": "pincompute.io/v1", "kind": "PinApp", "metadata": meta, "spec": {}})
    per = max(1, args.pods // args.workloads)
    for i, workload in enumerate(workloads):
        for j in range(per):
            member = MEMBERS[j % len(MEMBERS)]
            meta = workload["metadata"]
            pods[member].append({
                "metadata": {"name": f"{meta['name']}-{j:02d}x{i:05d}", "namespace": meta["namespace"],
                             "labels": {"pincompute.io/workload": meta["name"]}, "uid": f"pod-{i}-{j}"},
                "status": {"phase": "Running"},
            })  # fmt: skip
    host = FilledCache({"pinapps": workloads})
    members = {m: FilledCache({"pods": p, "nodes": [{"metadata": {"name": f"{m}-node-{k}"}} for k in range(50)]})
               for m, p in pods.items()}  # fmt: skip
    from clusters import runtime

    runtime.host_cache = lambda: host  # the synthetic caches stand in for the watch caches
    runtime.member_caches = lambda: members
    return developer, admin


def timed(user: Any, query: str, runs: int) -> dict[str, Any]:
    from search import services

    services.search(user, query)  # warm: the URL resolver's first reverse, the first queries' plans
    took, found = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        found = len(services.search(user, query).hits)
        took.append(time.perf_counter() - started)
    took.sort()
    return {"p50_ms": round(statistics.median(took) * 1000, 1),
            "p99_ms": round(took[min(len(took) - 1, int(len(took) * 0.99))] * 1000, 1), "hits": found}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--workloads", type=int, default=10_000)
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--no-freeze", action="store_true", help="skip the heap freeze the web replicas run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-search-") as work:
        postgres = start_database(Path(work))
        try:
            developer, admin = fill(args)
            if not args.no_freeze:  # as a web replica does once its caches' lists are in (clusters/kube/heap.py)
                from clusters.kube.heap import freeze_heap

                freeze_heap()
            figures = {
                who: {label: timed(user, q, args.runs) for label, q in QUERIES.items()}
                for who, user in (("developer of 5 projects", developer), ("platform admin", admin))
            }
        finally:
            postgres.stop()
    result = {"projects": args.projects, "workloads": args.workloads, "pods": args.pods, "runs": args.runs,
              "goal_p99_ms": 100, "heap_frozen": not args.no_freeze, "load_average": os.getloadavg()[0],
              "figures": figures}  # fmt: skip
    for who, rows in figures.items():
        for label, row in rows.items():
            print(f"{who:26} {label:8} p50 {row['p50_ms']:7.1f} ms   p99 {row['p99_ms']:7.1f} ms   hits {row['hits']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
