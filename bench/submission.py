"""Benchmark: the portal's preview and submission services, end to end, on the local control plane (not a test).

    .venv/bin/python bench/submission.py [--state-dir /tmp/bench-sub-cp] [--nodes 4] [--preview-calls 200]
                                         [--workloads 200] [--app-every 5] [--threads 4] [--rate 0]

The portal runs in this process as in the embedded default (``bench/provisioning.py``'s ``setup_portal``:
SQLite in a temp dir, migrations, the local clusters registered and the platform installed through the
product's services, member pools set, MemberCluster objects synced to the host by the registry's own pass).
One project is onboarded through ``projects.onboarding.onboard_project`` with a developer, granted twice what the
workloads need. The federation operator runs as a subprocess (``devtools.operator_process``, as in
``bench/federation.py``). The pages' create view calls the same two services; they are called here directly,
in-process, with the developer as the actor: that is the portal's submission path minus the HTTP request.

1. Preview: ``workloads.preview.preview`` for a PinApp (2 replicas, 2 zones) and a PinPod. The first call of
   the process (cold: it starts the host and member watch caches), then ``--preview-calls`` calls each with
   the caches synced (warm), on a host with no workloads yet; after phase 2 the same again on a host holding
   the 200 admitted workloads (loaded), with a cProfile of a few loaded calls (where the time goes).
2. Submit: ``--workloads`` submissions (every ``--app-every``-th a 2-replica PinApp over both zones, the others
   PinPods) by ``--threads`` threads calling ``workloads.services.submit_workload`` (``--rate`` paces the arrivals;
   0 = as fast as the threads go). The submit call's own latency (and its parts: the live-object read, the
   create on the host, the audit row, the rest), then per workload from the call returning to: Admitted,
   Scheduled, every shard on its member(s), a first pod, all its pods Running on the members (raw watches,
   pods labelled ``pincompute.io/workload=<name>``, ``bench/federation.py``'s observer) and host Ready.
   The operator's counters, RSS and a sampled timeline, as ``bench/federation.py`` reports them.

Starts its own control plane in ``--state-dir`` (host + 2 members) and stops it after, unless one is already
running there. The load average is recorded at the start and the end. Writes bench/results/submission.json
(one entry per mode: ``unpaced``, ``paced_<rate>_per_s``).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import queue
import shutil
import sys
import tempfile
import threading
import time
import traceback
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.federation import (  # noqa: E402
    MEMBERS,
    STAGES,
    LatencyObserver,
    Sampler,
    claim,
    counters,
    print_latency,
    print_timeline,
    remove_project,
    rss_kib,
    summary_ms,
)
from bench.provisioning import Backing, provisioned_everywhere, setup_portal  # noqa: E402
from devtools.localcp import LocalControlPlane  # noqa: E402
from devtools.localcp.nodes import api_client  # noqa: E402
from devtools.operator_process import OperatorProcess  # noqa: E402
from devtools.waiting import wait_for  # noqa: E402
from pincompute import API_VERSION  # noqa: E402
from pincompute.grants import Allocation  # noqa: E402
from pincompute.quantity import Resources  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "submission.json"
ZONES = ["local-1a", "local-1b"]
APP = {
    "name": "app",
    "image": "registry.local/bench/app:1",
    "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
}


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def document(name: str) -> dict[str, Any]:
    """What a user submits: no namespace, project or team (the service completes them for the project)."""
    spec: dict[str, Any] = {"tier": "OnDemand"}
    if name.startswith("app-"):
        spec.update(replicas=2, zones=ZONES, template={"containers": [APP]})
        kind = "PinApp"
    else:
        spec.update(containers=[APP])
        kind = "PinPod"
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": {"name": name}, "spec": spec}


def completed(name: str) -> dict[str, Any]:
    """``document(name)`` as the service completes it (for the core's claim arithmetic)."""
    doc = document(name)
    doc["metadata"]["namespace"] = "x"
    doc["spec"].update(project="x", team="bench")
    return doc


# -- setup --------------------------------------------------------------------------------------------------


def make_project(admin: Any, names: list[str]) -> tuple[Any, Any]:
    """A developer and a project granted (OnDemand) twice what ``names`` need, provisioned on every cluster."""
    from django.contrib.auth import get_user_model

    from projects.grants import QuotaInput
    from projects.members import MemberInput
    from projects.onboarding import ProjectDraft, onboard_project

    developer, _ = get_user_model().objects.get_or_create(username="bench-developer")
    needed = sum((claim(completed(n)) for n in names), Allocation())
    pods = sum(2 if n.startswith("app-") else 1 for n in names)
    # pods granted explicitly: with pods "0" (no pod cap for admission) the preview's quota fit says "never"
    grant = Allocation.of(Resources(needed.cpu_milli * 2, needed.memory_bytes * 2), pods * 2 + 10)
    draft = ProjectDraft(
        name=f"bench-sub-{uuid.uuid4().hex[:5]}",
        team="Bench",
        cost_center="CC-0001",
        members=[
            MemberInput("user", admin.get_username(), "owner"),
            MemberInput("user", developer.get_username(), "developer"),
        ],
        quotas={"ondemand": QuotaInput.of(grant)},
    )
    project = onboard_project(draft, actor=admin)
    wait_for(lambda: provisioned_everywhere(project.pk, 3), timeout=120, interval=0.1, what="project provisioned")
    print(f"project {project.name} (namespace {project.namespace}), OnDemand grant {grant.describe()}", flush=True)
    return project, developer


# -- 1. preview ---------------------------------------------------------------------------------------------


def time_previews(actor: Any, project: Any, n: int) -> dict[str, Any]:
    from workloads.preview import preview

    out: dict[str, Any] = {}
    for label, name in (("PinApp (2 replicas, 2 zones)", "app-preview"), ("PinPod", "pp-preview")):
        doc = document(name)
        samples = []
        result = None
        for _ in range(n):
            t0 = time.perf_counter()
            result = preview(project, doc, actor=actor)
            samples.append(time.perf_counter() - t0)
        assert result is not None
        out[label] = {
            **summary_ms(samples),
            "shards": [f"{p.cluster}x{p.replicas}" for p in result.placement.shards],
            "quota_verdict": result.quota.verdict,
            "problems": result.problems,
        }
    return out


def cold_preview(actor: Any, project: Any) -> dict[str, Any]:
    """The first preview of the process: it starts the host and member watch caches (not waited for)."""
    from workloads.preview import preview

    t0 = time.perf_counter()
    result = preview(project, document("app-preview"), actor=actor)
    seconds = time.perf_counter() - t0
    return {
        "ms": round(seconds * 1000, 1),
        "shards": [f"{p.cluster}x{p.replicas}" for p in result.placement.shards],
        "problems": result.problems,
    }


def profiled(call: Any, calls: int = 20) -> list[str]:
    """The portal's functions by cumulative time over ``calls`` calls of ``call()`` (where the time goes)."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        call()
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(60)
    rows = []
    for line in text.getvalue().splitlines():
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[0].replace("/", "").isdigit():
            where = parts[5].split("/main/")[-1]
            if where.startswith(("workloads/", "projects/", "clusters/", "base/")):
                rows.append(f"{float(parts[3]) / calls * 1000:7.1f} ms/call cumulative  {where}")
    return rows[:16]


def print_previews(title: str, figures: dict[str, Any]) -> None:
    print(f"  {title}")
    for label, s in figures.items():
        print(
            f"    {label:<30} p50 {s['p50']:>7} / p90 {s['p90']:>7} / p99 {s['p99']:>7} / max {s['max']:>7} ms "
            f"(n={s['n']}; placed {', '.join(s['shards']) or '-'}; quota {s['quota_verdict']}"
            f"{'; ' + '; '.join(s['problems']) if s['problems'] else ''})",
            flush=True,
        )


# -- 2. submit ----------------------------------------------------------------------------------------------


class Parts:
    """Per submit call, the time spent in the host read, the host create and the audit row (wrapping the
    service's module attributes for the phase; the product code is not changed)."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.saved: list[tuple[Any, str, Any]] = []

    def current(self) -> dict[str, float]:
        if not hasattr(self.local, "parts"):
            self.local.parts = {}
        return self.local.parts

    def reset(self) -> None:
        self.local.parts = {}

    def _wrap(self, module: Any, attr: str, label: str) -> None:
        original = getattr(module, attr)

        def timed(*a: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return original(*a, **kw)
            finally:
                parts = self.current()
                parts[label] = parts.get(label, 0.0) + time.perf_counter() - t0

        self.saved.append((module, attr, original))
        setattr(module, attr, timed)

    def __enter__(self) -> Parts:
        from base import audit
        from workloads import host

        self._wrap(host, "get", "host_get")
        self._wrap(host, "create", "host_create")
        self._wrap(audit, "record", "audit_row")
        return self

    def __exit__(self, *exc: object) -> None:
        for module, attr, original in self.saved:
            setattr(module, attr, original)


def run_submissions(
    args: argparse.Namespace, actor: Any, project: Any, names: list[str], apis: dict[str, Any], op: OperatorProcess
) -> dict[str, Any]:
    from django.db import connection

    from workloads import services

    n = len(names)
    expected = {name: ((2, 2) if name.startswith("app-") else (1, 1)) for name in names}
    observer = LatencyObserver(apis, project.namespace, expected)
    wait_for(lambda: all(w.connected.is_set() for w in observer.watchers), 30, what="watches connected")
    time.sleep(0.5)
    work: queue.Queue[tuple[int, str]] = queue.Queue()
    for index, name in enumerate(names):
        work.put((index, name))
    returned: dict[str, float] = {}
    calls: dict[str, float] = {}
    parts: dict[str, dict[str, float]] = {}
    failures: list[str] = []
    lock = threading.Lock()
    start = 0.0

    def worker() -> None:
        try:
            while True:
                try:
                    index, name = work.get_nowait()
                except queue.Empty:
                    return
                if args.rate:
                    delay = start + index / args.rate - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                timing.reset()
                t0 = time.monotonic()
                try:
                    services.submit_workload(project, document(name), actor=actor, create_only=True)
                except Exception as exc:  # noqa: BLE001 (counted and shown; the run goes on)
                    with lock:
                        failures.append(f"{name}: {exc!r}")
                    continue
                t1 = time.monotonic()
                with lock:
                    returned[name], calls[name], parts[name] = t1, t1 - t0, dict(timing.current())
        finally:
            connection.close()  # this thread's SQLite connection

    before = op.metrics()
    sampler = Sampler(op)
    cpu0 = time.process_time()
    pods = sum(e[1] for e in expected.values())
    print(
        f"submit: {n} workloads ({sum(nm.startswith('pp-') for nm in names)} PinPods, "
        f"{sum(nm.startswith('app-') for nm in names)} PinApps, {pods} pods) by {args.threads} threads"
        f"{f' paced at {args.rate}/s' if args.rate else ''}",
        flush=True,
    )
    started_at = datetime.now().astimezone().isoformat(timespec="milliseconds")
    print(f"  first submit at {started_at} (compare with the operator log's timestamps)", flush=True)
    with Parts() as timing:
        start = time.monotonic()
        threads = [threading.Thread(target=worker, name=f"submit-{i}") for i in range(args.threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        submit_seconds = time.monotonic() - start
    ok = [nm for nm in names if nm in returned]

    def done() -> bool:
        return all(nm in observer.times["running"] and nm in observer.times["ready"] for nm in ok)

    try:
        wait_for(done, timeout=180 + n, interval=0.2, what=f"{len(ok)} workloads Running and Ready")
    finally:
        observer.close()
    total = time.monotonic() - start
    after = op.metrics()
    sampled = sampler.close()
    stages = {
        stage: summary_ms([observer.times[stage][nm] - returned[nm] for nm in ok if nm in observer.times[stage]])
        for stage in STAGES
    }
    by_kind = {
        kind: {
            stage: summary_ms([observer.times[stage][nm] - returned[nm] for nm in ok if nm.startswith(prefix)])
            for stage in ("running", "ready")
        }
        for prefix, kind in (("pp-", "PinPod"), ("app-", "PinApp"))
    }
    call_parts = {
        label: summary_ms([parts[nm].get(label, 0.0) for nm in ok])
        for label in ("host_get", "host_create", "audit_row")
    }
    call_parts["rest (role, complete, validate, policy, grant check)"] = summary_ms(
        [calls[nm] - sum(parts[nm].values()) for nm in ok]
    )
    last = max(max(observer.times["running"].values()), max(observer.times["ready"].values()))
    result = {
        "workloads": n,
        "submitted": len(ok),
        "failures": failures[:10],
        "pinpods": sum(nm.startswith("pp-") for nm in names),
        "pinapps": sum(nm.startswith("app-") for nm in names),
        "pods": pods,
        "workloads_created": len(ok),
        "client_threads": args.threads,
        "rate_per_second": args.rate or None,
        "first_create_at": started_at,
        "create_seconds": round(submit_seconds, 2),
        "creates_per_second": round(len(ok) / submit_seconds, 1),
        "submit_call_ms": summary_ms(list(calls.values())),
        "submit_call_parts_ms": call_parts,
        "bench_process_cpu_seconds": round(time.process_time() - cpu0, 1),
        "wall_seconds_first_create_to_last_ready": round(last - start, 2),
        "latency_from_create_returned_ms": stages,
        "by_kind_ms": by_kind,
        **counters(before, after, total),
        "operator_rss_kib": rss_kib(op.proc.pid) if op.proc else {},
        "operator": sampled,
        "namespace": project.namespace,
    }
    s = result["submit_call_ms"]
    print(f"  submit call p50 {s['p50']} / p90 {s['p90']} / p99 {s['p99']} / max {s['max']} ms; parts p50 / p99:")
    for label, part in call_parts.items():
        print(f"    {label:<55}{part['p50']:>8} / {part['p99']:>8} ms")
    if failures:
        print(f"  {len(failures)} submissions FAILED: {failures[:3]}")
    print_latency(result)
    print_timeline(sampled)
    print(f"  this process (portal + observer) CPU {result['bench_process_cpu_seconds']} s over the phase")
    return result


# -- main ---------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state-dir", default="/tmp/bench-sub-cp")
    parser.add_argument("--nodes", type=int, default=4, help="kwok nodes per member")
    parser.add_argument("--preview-calls", type=int, default=200, help="warm preview calls per kind")
    parser.add_argument("--workloads", type=int, default=200)
    parser.add_argument("--app-every", type=int, default=5, help="every Nth submission is a 2-replica PinApp")
    parser.add_argument("--threads", type=int, default=4, help="threads calling services.submit_workload")
    parser.add_argument("--rate", type=float, default=0.0, help="submissions per second (0: unpaced)")
    parser.add_argument("--workers", default="4", help="operator --workers")
    parser.add_argument("--log-level", default="INFO", help="operator --log-level")
    args = parser.parse_args()

    load_start = load()
    print(f"load average at the start: {load_start}", flush=True)
    state_dir = Path(args.state_dir)
    workdir = Path(tempfile.mkdtemp(prefix="bench-submission-"))
    cp = LocalControlPlane(state_dir, members=2, nodes_per_member=args.nodes)
    started = not cp.is_healthy()
    backing = Backing("eager", workdir, 1)
    every = args.app_every
    names = [f"app-{i:04d}" if every and i % every == 0 else f"pp-{i:04d}" for i in range(args.workloads)]
    op: OperatorProcess | None = None
    results: dict[str, Any] = {}
    code = None
    try:
        t0 = time.monotonic()
        cp.up()
        print(f"control plane up in {time.monotonic() - t0:.0f} s ({'started' if started else 'reused'})", flush=True)
        backing.start()
        admin, _clusters = setup_portal(cp)
        from devtools.devstack import sync_member_clusters

        print(f"member clusters on the host: {sync_member_clusters()}", flush=True)
        project, developer = make_project(admin, names)
        kubeconfig = str(cp.kubeconfig_path)
        apis = {name: api_client(kubeconfig, name) for name in ("host", *MEMBERS)}
        for api in apis.values():
            api.configuration.connection_pool_maxsize = 32
        op = OperatorProcess(
            cp.kubeconfig_path,
            state_dir,
            f"bench-sub-{os.getpid()}",
            f"bench-sub-{uuid.uuid4().hex[:6]}",
            "--workers",
            args.workers,
            "--log-level",
            args.log_level,
            federation=True,
        )
        op.start()
        print(f"operator log: {op.log_path}", flush=True)
        wait_for(lambda: op.metrics().get("leading") == 1.0, 60, what="operator leading")

        from clusters import runtime
        from devtools.devstack import wait_for_caches

        print("preview:", flush=True)
        cold = cold_preview(developer, project)
        print(f"  first call (cold: starts the watch caches) {cold['ms']} ms; {cold['problems'] or 'no problems'}")
        wait_for_caches(60)
        t0 = time.perf_counter()
        empty = time_previews(developer, project, args.preview_calls)
        preview_wall = time.perf_counter() - t0
        print_previews(f"warm, host without workloads ({preview_wall:.1f} s for all)", empty)
        results["preview"] = {"cold_first_call": cold, "warm_empty_host_ms": empty}

        results["submit"] = run_submissions(args, developer, project, names, apis, op)

        host = runtime.host_cache()
        held = len(host.list("pinpods")) + len(host.list("pinapps")) if host is not None else 0
        loaded = time_previews(developer, project, args.preview_calls)
        print_previews(f"warm, host holding {held} workloads (all admitted)", loaded)
        from workloads.preview import preview
        from workloads.services import submit_workload

        top = profiled(lambda: preview(project, document("app-preview"), actor=developer))
        print("  cProfile of 20 loaded PinApp previews, portal functions by cumulative time:")
        for row in top:
            print(f"    {row}")
        results["preview"].update(
            {"warm_loaded_host_ms": loaded, "loaded_host_workloads": held, "loaded_profile_top": top}
        )
        top = profiled(
            lambda: submit_workload(project, document("pp-profile"), actor=developer, dry_run=True, create_only=True)
        )
        print("  cProfile of 20 dry-run PinPod submissions (no create, no audit row), by cumulative time:")
        for row in top:
            print(f"    {row}")
        results["submit"]["dry_run_profile_top"] = top
        if not started:
            remove_project(apis, project.namespace)
    except Exception:
        traceback.print_exc()
        raise
    finally:
        from clusters import runtime

        runtime.shutdown()
        if op is not None and op.proc is not None:
            code = op.terminate()
        backing.stop()
        if started:
            cp.down()
        shutil.rmtree(workdir, ignore_errors=True)
    load_end = load()
    print(f"load average at the end: {load_end}", flush=True)
    out = {
        "machine": f"{os.cpu_count()} cores",
        "load_average_start": load_start,
        "load_average_end": load_end,
        "nodes_per_member": args.nodes,
        "operator_workers": int(args.workers),
        "operator_log_level": args.log_level,
        "operator_exit": code,
        "portal": "in-process (SQLite, eager tasks); preview and submission services called directly",
        **results,
    }
    runs = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    runs = {k: v for k, v in runs.items() if k.startswith(("unpaced", "paced"))}
    runs[f"paced_{args.rate:g}_per_s" if args.rate else "unpaced"] = out
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(runs, indent=2) + "\n")


if __name__ == "__main__":
    main()
