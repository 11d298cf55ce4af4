"""Benchmark: the portal under load (issue 14 section 8; not a test, though ``tests/load`` runs it for 60 s).

    .venv/bin/python bench/load.py [--state-dir /tmp/bench-load-cp] [--duration 600] [--users 200] [--shells 100]
                                   [--logs 50] [--spawn-rate 20] [--think 2 8] [--workers 2] [--out PATH]

On loopback, production-shaped: the portal is ``uvicorn console.asgi:application --workers 2`` with DEBUG off on
PostgreSQL and Redis (the test harness's starters, as ``bench/provisioning.py``), the real local control plane
(host + 2 members with kwok; started in --state-dir and stopped after unless one runs there) and the real operator
with its federation controller, which places a PinApp of the project ``bench-load`` on both members (kwok runs its
pods, each in its own sandbox). Every simulated person is a portal user of their own (a session and an API token;
one visitor in ten is a platform admin), members of the project through an OIDC-style group.

Traffic (locust, ``bench/load_users.py``, one process): --users visitors browsing pages and calling the API with a
think time, --shells open terminals typing a command now and then, --logs followed log streams, for --duration.

Reports errors (HTTP, socket, and the portal's own error log lines), p50/p95/p99 of pages and of API calls (from
locust's histograms, merged per group), socket opens/closes/failures, and the RSS of each uvicorn worker sampled
every 5 s (psutil) with the slope over the second half (flat after warm-up). Prints them, writes
bench/results/load.json; exits 1 if any error happened.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from provisioning import Backing  # noqa: E402

from devtools.localcp import LocalControlPlane  # noqa: E402
from devtools.waiting import wait_for  # noqa: E402

PROJECT = "bench-load"
GROUP = "bench-load-devs"
RESULTS = ROOT / "bench" / "results" / "load.json"
PORTAL_ERRORS = ("Internal Server Error", "Exception in ASGI application", "Traceback (most recent call last)")


def pct(samples: dict[int, int], p: float) -> float:
    """The ``p`` percentile of a locust histogram ({rounded ms: count})."""
    total, seen = sum(samples.values()), 0
    for value in sorted(samples):
        seen += samples[value]
        if seen >= total * p / 100:
            return float(value)
    return float("nan")


# -- setup ----------------------------------------------------------------------------------------------------


def seed(cp: LocalControlPlane, people: int, workdir: Path) -> tuple[dict[str, Any], Any]:
    """Registry, platform, project with its group, the PinApp placed by the operator, users with sessions and
    tokens. Returns (the locust config without counts, the operator process)."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.test import Client
    from kubernetes import client as k8s

    from accounts.services import create_api_token
    from clusters import provision
    from clusters.runtime import api_for
    from console.celery import app
    from devtools import demo, devstack
    from projects.grants import QuotaInput
    from projects.members import MemberInput
    from projects.models import Project, ProjectRole, Tier
    from projects.onboarding import ProjectDraft, onboard_project

    # Provisioning runs here, as in the embedded default (no worker needed); the app reads Django settings under
    # the CELERY_ namespace (as tests/projects/provisioning's eager_tasks fixture does).
    app.conf.CELERY_TASK_ALWAYS_EAGER = True
    call_command("migrate", verbosity=0, interactive=False)
    clusters = devstack.register(cp)
    for cluster in clusters:
        devstack.install_platform(cluster)
    devstack.sync_member_clusters()
    members = devstack.members_of(clusters)
    for cluster in members:
        nodes = provision.dynamic_client(api_for(cluster)).resources.get(api_version="v1", kind="Node").get()
        demo.ensure_cluster_attributes(cluster, nodes.to_dict()["items"])

    users = get_user_model()
    admins = Group.objects.get_or_create(name=settings.PLATFORM_ADMIN_GROUP)[0]
    devs = Group.objects.get_or_create(name=GROUP)[0]
    owner = users.objects.get_or_create(username="bench-load-owner")[0]
    owner.groups.add(admins)
    people_rows = users.objects.bulk_create(
        [users(username=f"load-{i:04d}", email=f"load-{i:04d}@example.com") for i in range(people)]
    )
    devs.user_set.add(*people_rows)
    project = Project.objects.filter(name=PROJECT).first() or onboard_project(
        ProjectDraft(
            name=PROJECT,
            team="Load",
            cost_center="CC-9000",
            members=[MemberInput("user", owner.username, ProjectRole.OWNER), MemberInput("group", GROUP)],
            quotas={str(tier): QuotaInput(cpu="16", memory="64Gi", gpu="0", pods="100") for tier in Tier},
        ),
        actor=owner,
    )
    app_manifest = demo.demo_workloads(project, members)[0]  # the demo's PinApp: 2 replicas per member zone
    provision.apply_all(api_for(devstack.host_of(clusters)), [app_manifest])
    operator = devstack.start_operator(cp, clusters, workdir)
    kind, name = app_manifest["kind"], app_manifest["metadata"]["name"]

    def running() -> list[dict[str, str]]:
        found = []
        for cluster in members:
            pods = k8s.CoreV1Api(api_for(cluster)).list_namespaced_pod(project.namespace).items
            found += [
                {"cluster": cluster.name, "namespace": project.namespace, "name": p.metadata.name, "container": name}
                for p in pods
                if p.status.phase == "Running"
            ]
        return found if {p["cluster"] for p in found} == {c.name for c in members} else []

    pods = wait_for(running, timeout=300, interval=1, what="the PinApp's pods Running on every member")
    print(f"  {len(pods)} pods Running: {', '.join(p['cluster'] + '/' + p['name'] for p in pods)}", flush=True)

    def person(user: Any, i: int) -> dict[str, Any]:
        if i % 10 == 0:
            user.groups.add(admins)
        browser = Client()
        browser.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        token = create_api_token(user=user, name="load", days=1)[1]
        return {"session": browser.cookies["sessionid"].value, "token": token, "admin": i % 10 == 0}

    people_info = [person(user, i) for i, user in enumerate(people_rows)]
    config = {
        "project": PROJECT,
        "workload": name,
        "workload_page": f"/workloads/{PROJECT}/{kind}/{name}/",
        "workload_api": f"projects/{PROJECT}/workloads/{kind}/{name}/",
        "pods": pods,
        "people": people_info,
    }
    return config, operator


def environment(workdir: Path) -> None:
    """Production settings on loopback: DEBUG off, no TLS redirect (plain HTTP on 127.0.0.1), the default limits
    (API rates, sockets per user); password sign-in's backend only so a session can be made for each person."""
    for key in [k for k in os.environ if k.startswith("OIDC_")]:
        del os.environ[key]
    os.environ |= {
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(48),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "SECURE_HSTS_SECONDS": "0",
        "PINCONSOLE_DEV_LOGIN": "true",
        "PINCONSOLE_VAR_DIR": str(workdir / "var"),
        "LOG_LEVEL": "WARNING",
    }


def inotify_room(want: int = 1024) -> str:
    """kwok follows a pod's log (``kubectl logs -f``, the portal's log streams) with one inotify instance per stream,
    and every kwok and apiserver of the machine runs as root, sharing root's ``fs.inotify.max_user_instances``
    (128 by default): past it a follow ends at once ("failed to create fsnotify watcher: too many open files").
    The run needs one per followed pod (a workload stream follows each of its pods): raised when lower (root)."""
    path = Path("/proc/sys/fs/inotify/max_user_instances")
    have = int(path.read_text())
    if have >= want:
        return f"fs.inotify.max_user_instances {have}"
    try:
        path.write_text(str(want))
    except OSError as exc:
        return f"fs.inotify.max_user_instances {have} (could not raise it to {want}: {exc}; log streams may end)"
    return f"fs.inotify.max_user_instances raised {have} -> {want}"


def serve(workers: int, workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    import httpx

    from tests.harness.services import free_port  # the harness's helper (bench only, as Backing's starters)

    port = free_port()
    log = (workdir / "uvicorn.log").open("wb")
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "uvicorn", "console.asgi:application", "--host", "127.0.0.1", "--port", str(port)),
            *("--workers", str(workers), "--log-level", "warning", "--lifespan", "off", "--ws-max-queue", "64"),
            *("--ws-per-message-deflate", "false"),  # as in production (websocket-client never offers it anyway)
        ],
        cwd=ROOT,
        env=dict(os.environ),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        assert proc.poll() is None, (workdir / "uvicorn.log").read_text()
        try:
            return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    wait_for(up, timeout=60, interval=0.3, what="uvicorn serving")
    return proc, url


def warm(url: str, config: dict[str, Any]) -> None:
    """Every worker's watch caches filled: the pods API lists every pod in 10 requests in a row (the kernel
    spreads connections over the workers), so the first shells are not refused as 'no such pod'."""
    import httpx

    headers = {"Authorization": f"Bearer {config['people'][0]['token']}"}
    want = {p["name"] for p in config["pods"]}

    def all_listed() -> bool:
        for _ in range(10):
            with httpx.Client(base_url=url, headers=headers, timeout=30) as fresh:  # a new connection each time
                got = fresh.get(f"/api/v1/projects/{PROJECT}/pods/?limit=100")
            if got.status_code != 200 or not want <= {p["name"] for p in got.json()["results"]}:
                return False
        return True

    wait_for(all_listed, timeout=120, interval=1, what="the portal's workers listing the pods")


class RssSampler(threading.Thread):
    """The RSS of each uvicorn worker (the children of the supervisor) every ``every`` seconds."""

    def __init__(self, supervisor: int, every: float = 5) -> None:
        super().__init__(daemon=True)
        self.supervisor, self.every = supervisor, every
        self.samples: list[dict[str, Any]] = []
        self.stopped = threading.Event()
        self.t0 = time.monotonic()

    def run(self) -> None:
        import psutil

        parent = psutil.Process(self.supervisor)
        while not self.stopped.wait(self.every):
            rss, cpu = {}, 0.0
            for child in parent.children():
                try:
                    rss[child.pid] = child.memory_info().rss
                    times = child.cpu_times()
                    cpu += times.user + times.system
                except psutil.NoSuchProcess:
                    continue
            self.samples.append(
                {
                    "t": round(time.monotonic() - self.t0, 1),
                    "rss_mib": {str(pid): round(value / 2**20, 1) for pid, value in rss.items()},
                    "total_mib": round(sum(rss.values()) / 2**20, 1),
                    "cpu_s": round(cpu, 2),  # the workers' CPU time so far (user + system)
                    "machine_cpu_pct": psutil.cpu_percent(),  # every core, since the last sample
                    "load1": round(os.getloadavg()[0], 2),
                }
            )

    def summary(self) -> dict[str, Any]:
        """Slope of the total over the second half (least squares), and its growth across that half."""
        half = [s for s in self.samples if s["t"] >= self.samples[-1]["t"] / 2] if self.samples else []
        if len(half) < 3:
            return {"samples": len(self.samples)}
        ts, ys = [s["t"] for s in half], [s["total_mib"] for s in half]
        mt, my = sum(ts) / len(ts), sum(ys) / len(ys)
        slope = sum((t - mt) * (y - my) for t, y in zip(ts, ys, strict=True)) / sum((t - mt) ** 2 for t in ts)
        growth = slope * (ts[-1] - ts[0])
        first, last = self.samples[0], self.samples[-1]
        return {
            "samples": len(self.samples),
            "portal_cores_used": round((last["cpu_s"] - first["cpu_s"]) / max(1, last["t"] - first["t"]), 2),
            "machine_cpu_pct_mean": round(sum(s["machine_cpu_pct"] for s in self.samples) / len(self.samples), 1),
            "start_mib": self.samples[0]["total_mib"],
            "peak_mib": max(s["total_mib"] for s in self.samples),
            "end_mib": self.samples[-1]["total_mib"],
            "second_half_mean_mib": round(my, 1),
            "second_half_slope_mib_per_min": round(slope * 60, 2),
            "second_half_growth_mib": round(growth, 1),
            "second_half_growth_pct": round(100 * growth / my, 2),
            "flat": abs(growth) <= 0.05 * my,  # within 5 % of the mean over the second half
        }


# -- the run --------------------------------------------------------------------------------------------------


def locust_config(config: dict[str, Any], args: argparse.Namespace, url: str) -> dict[str, Any]:
    """Each simulated person gets a portal user of their own: visitors first, then the shells, then the logs;
    sockets are spread over the pods (both members), every fifth log stream follows the whole workload."""
    people, pods = config["people"], config["pods"]
    shells = people[args.users : args.users + args.shells]
    logs = people[args.users + args.shells :]
    return {
        **{k: v for k, v in config.items() if k != "people"},
        "ws_url": url.replace("http://", "ws://"),
        "origin": url,
        "think": args.think,
        "keystroke_every": args.keystroke_every,
        "shell_count": args.shells,
        "log_count": args.logs,
        "visitors": people[: args.users],
        "shells": [{**p, "pod": pods[i % len(pods)]} for i, p in enumerate(shells)],
        "logs": [
            {**p, "pod": pods[i % len(pods)], "workload": config["workload"] if i % 5 == 4 else ""}
            for i, p in enumerate(logs)
        ],
    }


def run_locust(config: dict[str, Any], args: argparse.Namespace, url: str, workdir: Path) -> dict[str, Any]:
    (workdir / "locust.json").write_text(json.dumps(locust_config(config, args, url)))
    stats = workdir / "locust-stats.json"
    total = args.users + args.shells + args.logs
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with (workdir / "locust.log").open("wb") as log:
        subprocess.run(
            [
                *(sys.executable, "-m", "locust", "-f", str(ROOT / "bench" / "load_users.py"), "--headless"),
                *("--host", url, "-u", str(total), "-r", str(args.spawn_rate), "-t", f"{args.duration}s"),
                *("--only-summary", "--stop-timeout", "30", "--loglevel", "WARNING"),
            ],
            cwd=ROOT,
            env={**os.environ, "LOAD_CONFIG": str(workdir / "locust.json"), "LOAD_STATS": str(stats)},
            stdout=log,
            stderr=subprocess.STDOUT,
            timeout=args.duration + 300,
            check=False,
        )
    if not stats.exists():
        raise RuntimeError("locust wrote no stats:\n" + (workdir / "locust.log").read_text()[-3000:])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the load generator's own CPU, on the same 2 cores
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {**json.loads(stats.read_text()), "locust_cpu_s": round(used, 1)}


def group(entries: list[dict[str, Any]], prefix: str) -> dict[str, Any]:
    """Requests, failures and percentiles of every locust entry whose name starts with ``prefix``, merged."""
    hist: dict[int, int] = {}
    requests = failures = 0
    per_name = {}
    for e in entries:
        if not e["name"].startswith(prefix):
            continue
        requests += e["num_requests"]
        failures += e["num_failures"]
        for value, count in e["response_times"].items():
            hist[int(float(value))] = hist.get(int(float(value)), 0) + count
        own = {int(float(v)): c for v, c in e["response_times"].items()}
        per_name[e["name"]] = {"n": e["num_requests"], "failures": e["num_failures"], "p95_ms": pct(own, 95)}
    return {
        "requests": requests,
        "failures": failures,
        **{f"p{p}_ms": pct(hist, p) for p in (50, 95, 99)},
        "max_ms": max(hist) if hist else None,
        "by_name": per_name,
    }


def report(raw: dict[str, Any], rss: dict[str, Any], portal_errors: list[str], args: argparse.Namespace) -> dict:
    entries = raw["stats"]
    sockets = raw["sockets"]
    http_failures = sum(e["num_failures"] for e in entries if e["method"] == "GET")
    ws_failures = sum(e["num_failures"] for e in entries if e["method"] == "WS")
    user_errors = sum(v for k, v in sockets.items() if k.startswith("user error"))
    return {
        "errors": {
            "total": http_failures + ws_failures + user_errors + len(portal_errors),
            "http": http_failures,
            "socket": ws_failures,
            "load_generator": user_errors,
            "portal_log": len(portal_errors),
            "portal_log_lines": portal_errors[:20],
            "locust": list(raw["errors"].values())[:20],
        },
        "pages": group(entries, "page: "),
        "api": group(entries, "api: "),
        "shells": {
            "opened": sockets.get("shell opened", 0),
            "open_failed": sockets.get("shell open failed", 0),
            "closed_by_client": sockets.get("shell closed", 0),
            "lost": sockets.get("shell lost", 0),
            "commands": sockets.get("shell commands", 0),
            "command_timeouts": sockets.get("shell command timed out", 0),
            "open": group(entries, "shell: open"),
            "command": group(entries, "shell: command"),
        },
        "logs": {
            "opened": sockets.get("log opened", 0),
            "open_failed": sockets.get("log open failed", 0),
            "closed_by_client": sockets.get("log closed", 0),
            "lost": sockets.get("log lost", 0),
            "lines": sockets.get("log lines", 0),
            "open": group(entries, "log: open"),
        },
        "socket_counters": sockets,
        "load_generator_cpu_s": raw.get("locust_cpu_s"),
        "rss": rss,
        "goals": {"errors": 0, "page_p95_ms": 100, "memory": "flat after warm-up (second half within 5 %)"},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--state-dir", type=Path, default=Path("/tmp/bench-load-cp"))
    ap.add_argument("--nodes", type=int, default=20)
    ap.add_argument("--duration", type=int, default=600, help="seconds of traffic")
    ap.add_argument("--users", type=int, default=200, help="visitors browsing and calling the API")
    ap.add_argument("--shells", type=int, default=100)
    ap.add_argument("--logs", type=int, default=50)
    ap.add_argument("--spawn-rate", type=float, default=20, help="people started per second")
    ap.add_argument("--think", type=float, nargs=2, default=[2.0, 8.0], help="a visitor's pause between requests")
    ap.add_argument("--keystroke-every", type=float, nargs=2, default=[5.0, 15.0], help="a shell's pause, s")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()

    cp = LocalControlPlane(args.state_dir, members=2, nodes_per_member=args.nodes)
    started = not cp.is_healthy()
    if started:
        cp.up(timeout=600)
    workdir = Path(tempfile.mkdtemp(prefix="bench-load-"))
    environment(workdir)
    backing = Backing("postgres", workdir, 1)
    backing.start()
    os.environ["DEBUG"] = "false"  # Backing sets the embedded default's DEBUG
    portal = operator = sampler = None
    results: dict[str, Any] = {"load_at_start": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    results["inotify"] = inotify_room()
    print(results["inotify"], flush=True)
    try:
        print("seeding: registry, project, PinApp placed by the operator, people", flush=True)
        t0 = time.monotonic()
        config, operator = seed(cp, args.users + args.shells + args.logs, workdir)
        portal, url = serve(args.workers, workdir)
        warm(url, config)
        results["setup_s"] = round(time.monotonic() - t0, 1)
        print(f"portal {url} (pid {portal.pid}, {args.workers} workers) ready in {results['setup_s']} s", flush=True)
        sampler = RssSampler(portal.pid)
        sampler.start()
        print(f"locust: {args.users} visitors, {args.shells} shells, {args.logs} log streams, {args.duration} s")
        raw = run_locust(config, args, url, workdir)
        results["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        if sampler is not None:
            sampler.stopped.set()
            sampler.join()
        for proc in (portal, operator):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)
        backing.stop()
        if started:
            cp.down()
    logged = (workdir / "uvicorn.log").read_text(errors="replace").splitlines()
    portal_errors = [line for line in logged if any(marker in line for marker in PORTAL_ERRORS)]
    results |= report(raw, sampler.summary() if sampler else {}, portal_errors, args)
    results["rss"]["series"] = sampler.samples if sampler else []
    results["args"] = {k: v if isinstance(v, int | float | list) else str(v) for k, v in vars(args).items()}
    results["workdir"] = str(workdir)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print_summary(results, args.out)
    return 0 if results["errors"]["total"] == 0 else 1


def print_summary(r: dict[str, Any], out: Path) -> None:
    pages, api, shells, logs, rss, errors = (r[k] for k in ("pages", "api", "shells", "logs", "rss", "errors"))
    print(
        f"\nerrors: {errors['total']} (http {errors['http']}, socket {errors['socket']}, portal log "
        f"{errors['portal_log']}, load generator {errors['load_generator']})\n"
        f"pages: {pages['requests']} requests, p50/p95/p99 {pages['p50_ms']}/{pages['p95_ms']}/{pages['p99_ms']} ms"
        f" (goal p95 <= 100 ms)\n"
        f"API:   {api['requests']} requests, p50/p95/p99 {api['p50_ms']}/{api['p95_ms']}/{api['p99_ms']} ms\n"
        f"shells: {shells['opened']} opened, {shells['open_failed']} failed to open, {shells['lost']} lost, "
        f"{shells['closed_by_client']} closed at the end; {shells['commands']} commands, p50/p95 "
        f"{shells['command']['p50_ms']}/{shells['command']['p95_ms']} ms\n"
        f"logs: {logs['opened']} opened, {logs['open_failed']} failed to open, {logs['lost']} lost, "
        f"{logs['closed_by_client']} closed at the end; {logs['lines']} lines received\n"
        f"portal RSS (both workers): {rss.get('start_mib')} -> {rss.get('end_mib')} MiB, peak {rss.get('peak_mib')}; "
        f"second half slope {rss.get('second_half_slope_mib_per_min')} MiB/min "
        f"({rss.get('second_half_growth_pct')} %), flat: {rss.get('flat')}\n"
        f"portal CPU: {rss.get('portal_cores_used')} cores on average "
        f"(machine {rss.get('machine_cpu_pct_mean')} % busy)\n"
        f"load generator (locust) CPU: {r.get('load_generator_cpu_s')} s\n"
        f"load average {r.get('load_at_start')} -> {r.get('load_at_end')}\nwritten {out}"
    )
    for failure in errors["locust"][:10]:
        print(f"  {failure.get('occurrences')} x {failure.get('name')}: {failure.get('error')}")
    for line in errors["portal_log_lines"][:10]:
        print(f"  portal: {line}")


if __name__ == "__main__":
    sys.exit(main())
