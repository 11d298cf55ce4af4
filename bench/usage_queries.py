"""Benchmark: what the use pages cost at 10k pods (not a test).

    .venv/bin/python bench/usage_queries.py [--pods 10000] [--projects 200] [--scrape 5] [--cold 30] [--warm 200]

Started like the harness does: PostgreSQL (migrated), Redis (the portal's cache, where answers are kept for one
scrape interval) and Debian's Prometheus (``devtools.localcp.prometheus``). ``--pods`` pods of ``--projects``
projects on two members: their watch caches are synthetic (the portal's real store filled with generated pods,
``tests/support/fakes.FilledCache``, as bench/chargeback.py does); their use is served by an exporter in this process
in the kubelet's ``/metrics/resource`` format (one endpoint per member, each pod's CPU counter growing at its own
rate), which Prometheus scrapes every ``--scrape`` seconds. Once two scrapes hold every series, times:

- **cold**: the caches emptied before each call (Redis and this process's), so every call queries Prometheus and
  reads the watch caches (the first page in a scrape interval); **warm**: the answer cached (every other page in
  that interval);
- per page: one project's use (``usage.use.project_use``: two instant queries + the caches), its charts
  (``use_history.history``: two range queries over 1 h), the fleet list over every pod (admins), and the full project
  and fleet pages through Django's test client (render included).

Prints p50/p95/p99 and writes bench/results/usage_queries.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "bench" / "results" / "usage_queries.json"
MEMBERS = ("member-a", "member-b")


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def pods_of(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """(member, project, pod) for every pod, spread evenly."""
    per = args.pods // args.projects
    return [(MEMBERS[i % 2], f"p{p:04d}", f"app-{i:04d}") for p in range(args.projects) for i in range(per)]


class Exporter(BaseHTTPRequestHandler):
    """``/metrics/<member>``: that member's containers as the kubelet's /metrics/resource shows them."""

    pods: list[tuple[str, str, str]] = []
    started = time.time()

    def do_GET(self) -> None:
        member = self.path.rsplit("/", 1)[-1]
        elapsed = time.time() - self.started
        lines = ["# TYPE container_cpu_usage_seconds_total counter", "# TYPE container_memory_working_set_bytes gauge"]
        for i, (m, project, pod) in enumerate(self.pods):
            if m != member:
                continue
            labels = f'container="app",namespace="proj-{project}",pod="{pod}"'
            lines.append(f"container_cpu_usage_seconds_total{{{labels}}} {elapsed * (0.01 + (i % 50) / 100):.3f}")
            lines.append(f"container_memory_working_set_bytes{{{labels}}} {(64 + i % 900) << 20}")
        body = ("\n".join(lines) + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        return


def start_backing(workdir: Path, args: argparse.Namespace) -> list[Any]:
    from devtools.localcp.procs import free_port
    from devtools.localcp.prometheus import Prometheus
    from tests.harness.services import Postgres, Redis

    postgres, redis = Postgres(), Redis()
    postgres.start()
    redis.start()
    metrics = Prometheus(workdir / "prometheus", free_port(), scrape_seconds=args.scrape)
    metrics.start()
    os.environ.update({"DJANGO_SETTINGS_MODULE": "console.settings", "DEBUG": "false", "LOG_LEVEL": "WARNING",
                       "SECRET_KEY": "bench-" + "k" * 50, "ALLOWED_HOSTS": "testserver",
                       "DATABASE_URL": postgres.url, "REDIS_URL": redis.url, "PINCONSOLE_VAR_DIR": str(workdir / "var"),
                       "WATCH_CACHE_ENABLED": "false", "PINCONSOLE_DEV_LOGIN": "true", "SECURE_SSL_REDIRECT": "false",
                       "PROMETHEUS_URL": metrics.url,
                       "PROMETHEUS_SCRAPE_SECONDS": str(args.scrape)})  # fmt: skip
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    return [postgres, redis, metrics]


def fill_world(args: argparse.Namespace, pods: list[tuple[str, str, str]]) -> Any:
    from django.contrib.auth import get_user_model

    from clusters import runtime
    from pincompute.labels import KIND_LABEL, WORKLOAD_LABEL
    from projects.models import Project
    from tests.support.fakes import FilledCache

    Project.objects.bulk_create([Project(name=f"p{p:04d}", team=f"team-{p % 40}") for p in range(args.projects)])
    by_member: dict[str, list[dict[str, Any]]] = {m: [] for m in MEMBERS}
    for member, project, pod in pods:
        by_member[member].append({
            "metadata": {"name": pod, "namespace": f"proj-{project}",
                         "labels": {WORKLOAD_LABEL: f"web-{int(pod[4:]) % 5}", KIND_LABEL: "PinApp"}},
            "spec": {"priorityClassName": "pincompute-ondemand", "nodeName": "node-1", "containers": [
                {"name": "app", "image": "registry.local/app:1",
                 "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "2"}}}]},
            "status": {"phase": "Running"},
        })  # fmt: skip
    caches = {m: FilledCache({"pods": items}) for m, items in by_member.items()}
    runtime.member_caches = lambda: caches  # the synthetic caches stand in for the watch caches
    admin = get_user_model().objects.create_superuser("bench-admin", "a@example.com", "x")
    return admin


def wait_scraped(metrics: Any, pods: int, scrape: int) -> float:
    """Seconds until every container has a CPU rate (two scrapes) in Prometheus."""
    from usage import prom

    t0 = time.perf_counter()
    expr = f'count(rate(container_cpu_usage_seconds_total{{namespace=~"proj-.+"}}[{4 * scrape}s]))'
    while time.perf_counter() - t0 < 300:
        found = prom._get("/api/v1/query", {"query": expr})
        if found and found[0].points and found[0].points[-1][1] >= pods:
            return time.perf_counter() - t0
        time.sleep(0.5)
    raise SystemExit("Prometheus did not hold every container's rate within 300 s")


def timed(fn: Any, reps: int, *, cold: bool) -> dict[str, float]:
    from django.core.cache import cache

    from usage import prom, use

    times = []
    fn()
    for _ in range(reps):
        if cold:  # the first call of an interval: nothing cached here nor in Redis
            cache.clear()
            prom.memo.clear()
            use.reports.clear()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    q = statistics.quantiles(times, n=100, method="inclusive")
    return {"p50_ms": ms(q[49]), "p95_ms": ms(q[94]), "p99_ms": ms(q[98]), "max_ms": ms(times[-1]), "reps": reps}


def page(client: Any, url: str) -> None:
    response = client.get(url)
    if response.status_code != 200:
        raise SystemExit(f"{url}: {response.status_code}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--projects", type=int, default=200)
    parser.add_argument("--scrape", type=int, default=5)
    parser.add_argument("--cold", type=int, default=30)
    parser.add_argument("--warm", type=int, default=200)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-usage-"))
    services = start_backing(workdir, args)
    server = None
    try:
        from django.test import Client

        from devtools.localcp.procs import free_port
        from usage import use, use_history

        pods = pods_of(args)
        Exporter.pods = pods
        port = free_port()
        server = ThreadingHTTPServer(("127.0.0.1", port), Exporter)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        groups = [{"targets": [f"127.0.0.1:{port}"], "labels": {"cluster": m, "__metrics_path__": f"/metrics/{m}"}}
                  for m in MEMBERS]  # fmt: skip
        metrics = services[2]
        metrics.targets_file.write_text(json.dumps(groups))
        admin = fill_world(args, pods)
        scraped = wait_scraped(metrics, len(pods), args.scrape)
        project = "p0007"
        _, report = use.project_use(admin, project, {})
        client = Client()
        client.force_login(admin)
        calls = {
            "project use (2 instant queries)": lambda: use.project_use(admin, project, {"level": "pod"}),
            "project charts (2 range queries, 1 h)": lambda: use_history.history(f"proj-{project}", report, 3600),
            "fleet list, every pod (2 instant queries)": lambda: use.fleet_use(admin, {"level": "workload"}),
            "project page (GET, rendered)": lambda: page(client, f"/usage/projects/{project}/use/"),
            "fleet page (GET, rendered)": lambda: page(client, "/usage/use/?level=pod&limit=100"),
        }
        results: dict[str, Any] = {}
        for name, fn in calls.items():
            results[name] = {"cold": timed(fn, args.cold, cold=True), "warm": timed(fn, args.warm, cold=False)}
        measured = sum(r.measured for r in use.fleet_use(admin, {"level": "container", "limit": "1000"}).rows)
        out = {
            "pods": len(pods), "projects": args.projects, "scrape_seconds": args.scrape,
            "seconds_until_scraped": round(scraped, 1), "measured_of_first_1000": measured,
            "load_average": os.getloadavg(), "results": results,
        }  # fmt: skip
        print(f"{len(pods)} pods in {args.projects} projects; every rate in Prometheus after {scraped:.1f} s; "
              f"load {os.getloadavg()[0]:.1f}")  # fmt: skip
        print(f"{'call':45} {'cold p50/p95/p99 ms':>24} {'warm p50/p95/p99 ms':>24}")
        for name, r in results.items():
            c, w = r["cold"], r["warm"]
            cold, warm = f"{c['p50_ms']}/{c['p95_ms']}/{c['p99_ms']}", f"{w['p50_ms']}/{w['p95_ms']}/{w['p99_ms']}"
            print(f"{name:45} {cold:>24} {warm:>24}")
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(json.dumps(out, indent=2))
        print(f"wrote {RESULTS}")
    finally:
        if server is not None:
            server.shutdown()
        for service in reversed(services):
            service.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
