"""Benchmark: project provisioning on the local control plane (not a test).

    .venv/bin/python bench/provisioning.py [--state-dir DIR] [--mode eager|worker] [--concurrency 4]
                                           [--latency-projects 50] [--pass-projects 500] [--nodes 4]

Onboards projects through the product's own service (``projects.onboarding.onboard_project``: members, grants,
``project_changed`` on commit) and measures, per project, the time from the create call to every
cluster's provisioning record being ``ready`` at the project's generation (host: namespace +
ProjectQuota; each member: namespace, 3 RoleBindings, 3 ResourceQuotas, LimitRange). Projects are
created one at a time, so this is the latency of one onboarding on an otherwise idle system. Then it
onboards up to ``--pass-projects`` projects in all and times ``reconcile_all``: the periodic pass when
nothing is due (the database scan alone), and a forced pass that re-applies every project on every
cluster (what drift repair costs when every record is stale).

``--mode eager`` is the embedded default (SQLite, tasks run inside the create call and the pass);
``--mode worker`` is production-shaped: PostgreSQL and Redis (started like the test harness does) and
``celery -A console worker --concurrency N``; the tasks fan out per cluster over the worker's processes.

A fresh control plane (host + 2 members) is started in a temporary state dir unless ``--state-dir``
names a running one; the one it started is stopped at the end. Writes bench/results/provisioning.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from devtools.localcp import LocalControlPlane  # noqa: E402
from devtools.waiting import wait_for  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "provisioning.json"


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))] if s else float("nan")


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


class Backing:
    """The database and broker of the chosen mode, set in the environment before Django starts."""

    def __init__(self, mode: str, workdir: Path, concurrency: int) -> None:
        self.mode, self.workdir, self.concurrency = mode, workdir, concurrency
        self.services: list[Any] = []
        self.worker: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        os.environ.update({"DJANGO_SETTINGS_MODULE": "console.settings", "DEBUG": "true", "LOG_LEVEL": "WARNING"})
        os.environ["PINCONSOLE_VAR_DIR"] = str(self.workdir / "var")
        os.environ.pop("REDIS_URL", None)
        if self.mode == "eager":
            os.environ["DATABASE_URL"] = f"sqlite:///{self.workdir / 'bench.sqlite3'}"
            return
        from tests.harness.services import Postgres, Redis  # the harness's starters (bench only)

        postgres, redis = Postgres(), Redis()
        self.services = [redis, postgres]
        postgres.start()
        redis.start()
        os.environ["DATABASE_URL"], os.environ["REDIS_URL"] = postgres.url, redis.url

    def start_worker(self) -> None:
        if self.mode != "worker":
            return
        log = (self.workdir / "worker.log").open("wb")
        self.worker = subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "-A", "console", "worker", "--loglevel", "WARNING"),
                *("--concurrency", str(self.concurrency), "--without-gossip", "--without-mingle"),
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.send_signal(signal.SIGTERM)
            try:
                self.worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.worker.pid, signal.SIGKILL)
        for service in self.services:
            service.stop()


def setup_portal(cp: LocalControlPlane) -> tuple[Any, list[Any]]:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from clusters import services as cluster_services
    from clusters.models import PoolKind
    from devtools import devstack

    call_command("migrate", verbosity=0, interactive=False)
    from django.conf import settings

    admin, _ = get_user_model().objects.get_or_create(username="bench-admin")
    admin.groups.add(Group.objects.get_or_create(name=settings.PLATFORM_ADMIN_GROUP)[0])
    Group.objects.get_or_create(name="bench-devs")  # an OIDC group, as mirrored at sign-in
    clusters = devstack.register(cp)
    for cluster in clusters:
        devstack.install_platform(cluster)
        if cluster.role == "member":
            for kind in (PoolKind.RESERVED, PoolKind.ONDEMAND, PoolKind.BURST):
                pool = cluster_services.PoolInput(cpu="10000", memory="40000Gi", gpu="0")
                cluster_services.update_pool(cluster.pk, kind, pool, actor=admin)
    return admin, clusters


def onboard(name: str, admin: Any) -> Any:
    from projects.grants import QuotaInput
    from projects.members import MemberInput
    from projects.onboarding import ProjectDraft, onboard_project

    draft = ProjectDraft(
        name=name,
        team="Bench",
        cost_center="CC-0001",
        members=[MemberInput("user", admin.get_username(), "owner"), MemberInput("group", "bench-devs", "developer")],
        quotas={
            "reserved": QuotaInput(cpu="1", memory="1Gi", gpu="0", pods="10"),
            "ondemand": QuotaInput(cpu="2", memory="2Gi", gpu="0", pods="20"),
        },
    )
    return onboard_project(draft, actor=admin)


def provisioned_everywhere(project_id: int, cluster_count: int) -> bool:
    from projects.models import ClusterProvisioning, Project

    generation = Project.objects.values_list("generation", flat=True).get(pk=project_id)
    return (
        ClusterProvisioning.objects.filter(project_id=project_id, state="ready", observed_generation=generation).count()
        == cluster_count
    )


def measure_latency(n: int, admin: Any, clusters: list[Any], prefix: str) -> dict[str, Any]:
    """Create one project at a time; the create call returning -> every cluster ready. One unmeasured
    project first, so that connections, imports and the worker's processes are warm."""
    warm = onboard(f"{prefix}-warm", admin).pk
    wait_for(lambda: provisioned_everywhere(warm, len(clusters)), timeout=120, interval=0.01)
    samples, create_calls = [], []
    for index in range(n):
        start = time.monotonic()
        project_id = onboard(f"{prefix}-{index:04d}", admin).pk
        create_calls.append(time.monotonic() - start)
        wait_for(lambda: provisioned_everywhere(project_id, len(clusters)), timeout=120, interval=0.01)  # noqa: B023
        samples.append(time.monotonic() - start)
    return {
        "projects": n,
        "clusters": len(clusters),
        "create_to_provisioned_everywhere_p50_ms": ms(pct(samples, 50)),
        "create_to_provisioned_everywhere_p90_ms": ms(pct(samples, 90)),
        "create_to_provisioned_everywhere_p99_ms": ms(pct(samples, 99)),
        "create_to_provisioned_everywhere_max_ms": ms(max(samples)),
        "create_call_p50_ms": ms(pct(create_calls, 50)),
    }


def measure_pass(total: int, admin: Any, clusters: list[Any], prefix: str, mode: str) -> dict[str, Any]:
    from django.utils import timezone

    from projects.models import ClusterProvisioning, Project
    from projects.tasks import reconcile_all

    existing = Project.objects.count()
    start = time.monotonic()
    for index in range(existing, total):
        onboard(f"{prefix}-{index:04d}", admin)
    pairs = total * len(clusters)
    wait_for(
        lambda: ClusterProvisioning.objects.filter(state="ready").count() >= pairs,
        timeout=60 + total,
        interval=0.5,
        what=f"{total} projects provisioned",
    )
    onboard_seconds = time.monotonic() - start

    start = time.monotonic()
    idle = reconcile_all()
    idle_seconds = time.monotonic() - start

    marker = timezone.now()
    start = time.monotonic()
    forced = reconcile_all(force=True)
    queued_seconds = time.monotonic() - start
    wait_for(
        lambda: ClusterProvisioning.objects.filter(last_success_at__gte=marker).count() >= pairs,
        timeout=60 + total * 2,
        interval=0.2,
        what="the forced pass",
    )
    forced_seconds = time.monotonic() - start
    failed = ClusterProvisioning.objects.exclude(state="ready").count()
    members = sum(1 for c in clusters if c.role == "member")
    applies = total * (members * 8 + (len(clusters) - members) * 2)
    return {
        "projects": total,
        "pairs": pairs,
        "onboarding_seconds": round(onboard_seconds, 1),
        "idle_pass_ms": ms(idle_seconds),
        "idle_pass_queued": idle["queued"],
        "forced_pass_seconds": round(forced_seconds, 1),
        "forced_pass_queue_seconds": round(queued_seconds, 2) if mode == "worker" else None,
        "forced_pass_queued": forced["queued"],
        "forced_pass_projects_per_second": round(total / forced_seconds, 1),
        "server_side_applies": applies,
        "applies_per_second": round(applies / forced_seconds, 1),
        "not_ready_after": failed,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--state-dir", help="reuse (or start) the control plane there; default: a fresh temp dir")
    ap.add_argument("--mode", choices=("eager", "worker"), default="eager")
    ap.add_argument("--concurrency", type=int, default=4, help="worker processes (--mode worker)")
    ap.add_argument("--latency-projects", type=int, default=50)
    ap.add_argument("--pass-projects", type=int, default=500)
    ap.add_argument("--nodes", type=int, default=4)
    args = ap.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="bench-provisioning-"))
    cp = LocalControlPlane(Path(args.state_dir) if args.state_dir else workdir / "cp", nodes_per_member=args.nodes)
    started = not cp.is_healthy()
    backing = Backing(args.mode, workdir, args.concurrency)
    prefix = f"bench-{uuid.uuid4().hex[:4]}"
    try:
        cp.up()
        backing.start()
        admin, clusters = setup_portal(cp)
        backing.start_worker()
        latency = measure_latency(args.latency_projects, admin, clusters, prefix)
        print(json.dumps(latency, indent=2), flush=True)
        reconcile = measure_pass(args.pass_projects, admin, clusters, prefix, args.mode) if args.pass_projects else {}
        print(json.dumps(reconcile, indent=2), flush=True)
    finally:
        from clusters import runtime

        runtime.shutdown()
        backing.stop()
        if started:
            cp.down()
        shutil.rmtree(workdir, ignore_errors=True)
    result = {
        "machine": f"{os.cpu_count()} cores",
        "mode": args.mode,
        "worker_concurrency": args.concurrency if args.mode == "worker" else None,
        "latency": latency,
        "reconcile": reconcile,
    }
    runs = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    runs[args.mode] = result
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(runs, indent=2) + "\n")


if __name__ == "__main__":
    main()
