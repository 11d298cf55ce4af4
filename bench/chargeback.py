"""Benchmark: chargeback sampling and the cost report (not a test).

    .venv/bin/python bench/chargeback.py [--projects 500] [--pods-per-series 2] [--runs 30]
                                         [--days 90] [--hourly-projects 500] [--reps 5]

PostgreSQL is started like the test harness does (initdb into a temp dir) and migrated; nothing else runs.

1. **Sampling**: ``--projects`` projects, each with a Reserved grant and a running workload in every tier on both
   members (500 x 3 tiers x 2 clusters = 3,000 series, ``--pods-per-series`` pods each). The members' watch caches
   are synthetic: the portal's real store (``clusters.kube.cache.cluster_store``: the same compaction, indexes and
   aggregates) filled with generated pod objects (tests/support/fakes.FilledCache) and handed to the sampler in place of
   ``clusters.runtime.member_caches`` (no apiserver is involved: sampling never calls one). Each run samples the
   next minute (``usage.sampling.sample``): the time of the cache read and of the database write, rows written;
   then a doubled run of the last minute, and the hourly roll-up of the sampled minutes.
2. **Report**: ``--days`` of hourly rows for ``--hourly-projects`` projects x 3 tiers x 2 clusters (one workload
   each, amounts varying by hour), generated inside PostgreSQL with ``generate_series`` (plus the pools' capacity
   rows), then ``ANALYZE``. Times ``usage.reports.cost_report`` (SQL sums + the pure cost model) for the
   admin's report (every project and idle) and for one project, by several windows, steps and aggregates.

Writes bench/results/chargeback.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "bench" / "results" / "chargeback.json"
TIERS = ("reserved", "ondemand", "preemptible")
MEMBERS = ("member-a", "member-b")


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def start_database(workdir: Path) -> Any:
    from tests.harness.services import Postgres  # the harness's starter (bench only)

    postgres = Postgres()
    postgres.start()
    os.environ.update({"DJANGO_SETTINGS_MODULE": "console.settings", "DEBUG": "true", "LOG_LEVEL": "WARNING",
                       "DATABASE_URL": postgres.url, "PINCONSOLE_VAR_DIR": str(workdir / "var"),
                       "WATCH_CACHE_ENABLED": "false"})  # fmt: skip
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    return postgres


def make_region(projects: int) -> list[Any]:
    """Members with pools, and ``projects`` projects with a Reserved grant (rows written directly: the bench
    measures sampling, not onboarding)."""
    from clusters.models import Cluster, ClusterPool
    from projects.models import Project, TierQuota

    for name in MEMBERS:
        cluster = Cluster.objects.create(name=name, region="local-1", zone=f"local-1{name[-1]}", role="member",
                                         api_server="https://127.0.0.1:1", kubeconfig_path="/nonexistent")  # fmt: skip
        for kind in ("reserved", "ondemand", "burst"):
            ClusterPool.objects.create(cluster=cluster, kind=kind, cpu_milli=4_000_000, memory_bytes=16_000 << 30)
    rows = Project.objects.bulk_create(
        [Project(name=f"p{i:04d}", team=f"team-{i % 40}", cost_center=f"CC-{i % 12}") for i in range(projects)]
    )
    TierQuota.objects.bulk_create(
        [TierQuota(project=p, tier="reserved", cpu_milli=4000, memory_bytes=16 << 30, gpu=0, pods=20) for p in rows]
    )
    return rows


def synthetic_caches(projects: list[Any], pods_per_series: int) -> dict[str, Any]:
    from pincompute.labels import KIND_LABEL, WORKLOAD_LABEL
    from tests.support.fakes import FilledCache

    caches = {}
    for cluster in MEMBERS:
        pods = []
        for p in projects:
            for tier in TIERS:
                for i in range(pods_per_series):
                    pods.append({
                        "metadata": {"name": f"{tier}-{i}", "namespace": f"proj-{p.name}",
                                     "labels": {WORKLOAD_LABEL: f"app-{tier}", KIND_LABEL: "PinApp"}},
                        "spec": {"priorityClassName": f"pincompute-{tier}", "nodeName": "node-1", "containers": [
                            {"name": "app", "image": "registry.local/app:1",
                             "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]},
                        "status": {"phase": "Running"},
                    })  # fmt: skip
        caches[cluster] = FilledCache({"pods": pods})
    return caches


def bench_sampling(args: argparse.Namespace) -> dict[str, Any]:
    from django.utils import timezone

    from clusters import runtime
    from usage import sampling
    from usage.models import UsageSample
    from usage.rollup import roll_up

    projects = make_region(args.projects)
    built = time.perf_counter()
    caches = synthetic_caches(projects, args.pods_per_series)
    fill_seconds = time.perf_counter() - built
    runtime.member_caches = lambda: caches  # the synthetic caches stand in for the watch caches
    start = timezone.now().replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)
    observe, write, total, rows = [], [], [], []
    for i in range(args.runs):
        minute = start + timedelta(minutes=i)
        t0 = time.perf_counter()
        seen = sampling.observe()
        t1 = time.perf_counter()
        written, _ = sampling.write(seen, minute)
        t2 = time.perf_counter()
        observe.append(t1 - t0)
        write.append(t2 - t1)
        total.append(t2 - t0)
        rows.append(written)
    t0 = time.perf_counter()
    doubled = sampling.sample(start + timedelta(minutes=args.runs - 1, seconds=30))
    doubled_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    rolled = roll_up(start + timedelta(hours=1, minutes=3))
    rollup_seconds = time.perf_counter() - t0
    return {
        "projects": args.projects,
        "series": args.projects * len(TIERS) * len(MEMBERS),
        "pods": sum(len(c.list("pods")) for c in caches.values()),
        "cache_fill_seconds": round(fill_seconds, 2),
        "runs": args.runs,
        "rows_per_run": statistics.median(rows),
        "run_ms": {"p50": ms(statistics.median(total)), "max": ms(max(total)),
                   "mean": ms(statistics.fmean(total))},
        "observe_ms_p50": ms(statistics.median(observe)),
        "write_ms_p50": ms(statistics.median(write)),
        "doubled_run_ms": ms(doubled_seconds),
        "doubled_run_rows": doubled.rows,
        "rollup_hour_ms": ms(rollup_seconds),
        "rollup_hours": rolled.hours,
        "minute_rows_stored": UsageSample.objects.filter(resolution=60).count(),
    }  # fmt: skip


HOURLY_SQL = """
INSERT INTO usage_usagesample (resolution, start, project_id, tier, cluster, workload, cpu_request, memory_request,
    gpu_request, cpu_billable, memory_billable, gpu_billable, pod_seconds, seconds)
SELECT 3600, h, p.id, t.tier, c.cluster, 'PinApp/app-' || t.tier,
       v.cpu, v.mem, 0, v.cpu, v.mem, 0, 7200, 3600
FROM generate_series(%(first)s::timestamptz, %(last)s::timestamptz, interval '1 hour') AS h
CROSS JOIN (SELECT id FROM projects_project ORDER BY id LIMIT %(projects)s) AS p
CROSS JOIN (VALUES ('reserved'), ('ondemand'), ('preemptible')) AS t(tier)
CROSS JOIN (VALUES ('member-a'), ('member-b')) AS c(cluster)
CROSS JOIN LATERAL (SELECT (500 + (p.id * 37 + extract(hour FROM h)::int * 13) %% 1500)::bigint * 3600 AS cpu,
                           ((1 + (p.id + extract(hour FROM h)::int) %% 4)::bigint << 30) * 3600 AS mem) AS v
ON CONFLICT DO NOTHING
"""
CAPACITY_SQL = """
INSERT INTO usage_capacitysample (resolution, start, cluster, tier, cpu_capacity, memory_capacity, gpu_capacity,
    cpu_allocated, memory_allocated, gpu_allocated, cpu_idle, memory_idle, gpu_idle, seconds)
SELECT 3600, h, c.cluster, t.tier, 4000000::bigint * 3600, (16000::bigint << 30) * 3600, 0,
       1500000::bigint * 3600, (4000::bigint << 30) * 3600, 0, 2500000::bigint * 3600, (12000::bigint << 30) * 3600, 0,
       3600
FROM generate_series(%(first)s::timestamptz, %(last)s::timestamptz, interval '1 hour') AS h
CROSS JOIN (VALUES ('reserved'), ('ondemand'), ('preemptible')) AS t(tier)
CROSS JOIN (VALUES ('member-a'), ('member-b')) AS c(cluster)
ON CONFLICT DO NOTHING
"""


def bench_report(args: argparse.Namespace) -> dict[str, Any]:
    from django.db import connection
    from django.utils import timezone

    from projects.models import Project
    from usage import costmodel, reports
    from usage.models import UsageSample, Watermark

    now = timezone.now()
    mark = now.replace(minute=0, second=0, microsecond=0)
    first = mark - timedelta(days=args.days)
    UsageSample.objects.all().delete()
    t0 = time.perf_counter()
    with connection.cursor() as cursor:
        params = {"first": first, "last": mark - timedelta(hours=1), "projects": args.hourly_projects}
        cursor.execute(HOURLY_SQL, params)
        cursor.execute(CAPACITY_SQL, params)
        cursor.execute("ANALYZE usage_usagesample; ANALYZE usage_capacitysample")
        cursor.execute("SELECT pg_total_relation_size('usage_usagesample')")
        table_bytes = cursor.fetchone()[0]
    load_seconds = time.perf_counter() - t0
    Watermark.objects.update_or_create(name="hourly", defaults={"at": mark})
    hourly_rows = UsageSample.objects.count()
    one = Project.objects.order_by("pk").first()
    cases = [
        ("admin: 90d by team, daily, with idle", "90d", "1d", ("team",), None, True),
        ("admin: 90d by cost center, one step", "90d", "window", ("cost_center",), None, True),
        ("admin: 90d by project, daily", "90d", "1d", ("project",), None, True),
        ("admin: 7d by project, hourly", "7d", "1h", ("project",), None, True),
        ("admin: 24h by tier and cluster, hourly", "24h", "1h", ("tier", "cluster"), None, True),
        ("one project: 90d by workload, daily", "90d", "1d", ("workload",), [one.pk], False),
        ("one project: 90d by tier, hourly", "90d", "1h", ("tier",), [one.pk], False),
        ("one project: 30d by tier, daily", "30d", "1d", ("tier",), [one.pk], False),
    ]
    timings = {}
    for label, window_text, step_text, aggregate, ids, idle in cases:
        window = costmodel.parse_window(window_text, now)
        step = costmodel.parse_step(step_text, window)
        scope = reports.Scope(ids, include_idle=idle)
        seconds, allocations = [], 0
        for _ in range(args.reps):
            t = time.perf_counter()
            report = reports.cost_report(window, step, aggregate, scope)
            seconds.append(time.perf_counter() - t)
            allocations = sum(len(s.allocations) for s in report.steps)
        timings[label] = {"p50_ms": ms(statistics.median(seconds)), "max_ms": ms(max(seconds)),
                          "steps": len(report.steps), "allocations": allocations}  # fmt: skip
        print(f"  {label:45s} p50 {timings[label]['p50_ms']:>9} ms  ({allocations} allocations)", flush=True)
    return {"days": args.days, "projects": args.hourly_projects, "hourly_rows": hourly_rows,
            "table_mib": round(table_bytes / 2**20, 1), "load_seconds": round(load_seconds, 1),
            "reps": args.reps, "reports": timings}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--projects", type=int, default=500)
    parser.add_argument("--pods-per-series", type=int, default=2)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--hourly-projects", type=int, default=500)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-chargeback-"))
    postgres = start_database(workdir)
    try:
        load = os.getloadavg()[0]
        print("sampling ...", flush=True)
        sampling = bench_sampling(args)
        print(json.dumps(sampling, indent=2), flush=True)
        print("report over hourly data ...", flush=True)
        report = bench_report(args)
        machine = {"cpus": os.cpu_count(), "load_1m_at_start": round(load, 1),
                   "load_1m_at_end": round(os.getloadavg()[0], 1)}  # fmt: skip
        result = {"machine": machine, "database": "PostgreSQL (the harness's initdb)", "sampling": sampling,
                  "report": report}  # fmt: skip
    finally:
        postgres.stop()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(json.dumps(result["report"], indent=2))
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
