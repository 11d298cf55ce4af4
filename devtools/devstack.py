"""The embedded default's moving parts: local clusters, their registration, the platform install on the
host and the members, the provisioning reconcile loop, and the operator process. The demo data is in
``devtools.demo``.

``manage.py dev`` (devtools/dev.py) calls these in order; each is idempotent so a second run takes seconds.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from django.conf import settings

from clusters import runtime
from clusters import services as cluster_services
from clusters.health import probe_cluster
from clusters.models import Cluster, FederationRole
from clusters.runtime import api_for
from devtools.localcp import ClusterInfo, LocalControlPlane
from devtools.localcp.mailpit import Mailpit
from devtools.localcp.victorialogs import VictoriaLogs
from devtools.waiting import wait_for
from pincompute.kinds import KINDS, InstalledOn
from pincompute.operator.install import install
from pincompute.operator.kubeio import Kube

DEFAULT_DEV_STATE = Path.home() / ".cache" / "pinconsole" / "state" / "dev"  # as `python -m devtools.localcp`
DEV_STATE = Path(os.environ.get("PINCONSOLE_DEV_STATE", DEFAULT_DEV_STATE))


def control_plane(members: int, nodes: int, log_archive_url: str = "") -> LocalControlPlane:
    """The dev control plane (not started: ``up()`` reuses a healthy running one); the dev command built its
    binaries first. Its pod supervisors ship every pod's lines to ``log_archive_url``."""
    return LocalControlPlane(
        DEV_STATE, members=members, nodes_per_member=nodes, build_missing=False, log_archive_url=log_archive_url
    )


def start_mail(smtp_port: int, url: str) -> Mailpit:
    """The dev stack's Mailpit: the portal mails there (``EMAIL_HOST``/``EMAIL_PORT``), its web page at ``url`` (the
    dev banner links it), its database in ``var/mailpit`` (kept across runs)."""
    from django.conf import settings

    mail = Mailpit(settings.VAR_DIR / "mailpit", smtp_port, int(url.rsplit(":", 1)[1]), build_missing=False)
    mail.start()
    return mail


def start_log_archive(url: str) -> VictoriaLogs:
    """The dev stack's VictoriaLogs on ``url``'s port, its data in ``var/victorialogs`` (kept across runs), its
    retention ``LOG_ARCHIVE_RETENTION`` (VictoriaLogs' -retentionPeriod, default 7d)."""
    port = int(url.rsplit(":", 1)[1])
    retention = os.environ.get("LOG_ARCHIVE_RETENTION", "7d")
    archive = VictoriaLogs(settings.VAR_DIR / "victorialogs", port, retention=retention, build_missing=False)
    archive.start()
    return archive


def register(cp: LocalControlPlane) -> list[Cluster]:
    """Register every local cluster through the registry's service and probe it."""
    registered = []
    for info in cp.clusters:
        cluster = register_one(cp, info)
        probe_cluster(cluster)
        registered.append(cluster)
    return registered


def register_one(cp: LocalControlPlane, info: ClusterInfo) -> Cluster:
    """One local cluster in the registry, through the registry's service (idempotent)."""
    cluster, _ = cluster_services.register_cluster(
        name=info.name,
        region=info.region,
        zone=info.zone,
        role=info.role,
        api_server=info.server,
        kubeconfig_path=str(cp.kubeconfig_path),
        kube_context=info.context,
    )
    return cluster


def members_of(clusters: list[Cluster]) -> list[Cluster]:
    return [c for c in clusters if c.role == FederationRole.MEMBER]


def host_of(clusters: list[Cluster]) -> Cluster:
    return next(c for c in clusters if c.role == FederationRole.HOST)


def sync_member_clusters() -> dict[str, str]:
    """The registry's members as MemberCluster objects on the host, before the operator places anything:
    the registry's own task (``clusters.tasks``), run once the host's CRDs are installed (the sync queued
    at registration ran before them)."""
    from clusters.tasks import sync_member_clusters as sync

    return sync()


def install_platform(cluster: Cluster) -> None:
    """Exactly as ``python -m pincompute.operator install-crds``: on a member the workload CRDs, tier
    PriorityClasses and project ClusterRoles; on the host (``--host-context``) the workload, ProjectQuota and
    MemberCluster CRDs."""
    install(Kube(api_for(cluster), cluster.name), role=installed_on(cluster))


def installed_on(cluster: Cluster) -> InstalledOn:
    """Which of the platform's installs a registered cluster gets."""
    return InstalledOn.HOST if cluster.role == FederationRole.HOST else InstalledOn.MEMBER


def operator_command(cp: LocalControlPlane, clusters: list[Cluster]) -> list[str]:
    """The operator on every member and, with ``--host-context``, the federation controller on the host
    (the lease lives there too): workloads are written once on the host and sharded onto the members."""
    cmd = [sys.executable, "-m", "pincompute.operator", "--kubeconfig", str(cp.kubeconfig_path)]
    for cluster in members_of(clusters):
        cmd += ["--context", cluster.kube_context]
    host = host_of(clusters)
    cmd += ["--host-context", host.kube_context, "--lease-context", host.kube_context]
    # The host's admission webhook, as in production, but failing open: the dev stack serves the portal before the
    # operator is up and restarts a crashed operator after a backoff, and a stale registration from the last run
    # would refuse every write until then (the portal checks first, the federation's admission after).
    cmd += ["--webhook-bind-address", "127.0.0.1:0", "--webhook-failure-policy", "Ignore"]
    return cmd


def start_operator(cp: LocalControlPlane, clusters: list[Cluster], log_dir: Path) -> subprocess.Popen[bytes]:
    """The operator as a child process (the same entry point production runs), federation included."""
    log_dir.mkdir(parents=True, exist_ok=True)
    cmd = operator_command(cp, clusters)
    log = (log_dir / "operator.log").open("ab")
    return subprocess.Popen(
        cmd, stdout=log, stderr=subprocess.STDOUT, cwd=settings.BASE_DIR, preexec_fn=_die_with_parent
    )


class OperatorSupervisor:
    """Keeps the dev operator running, as Kubernetes does in production: a process that exits (it does,
    on purpose, when it loses its lease: a stopped host apiserver) is started again after a backoff that
    grows to ``max_backoff`` seconds and resets once a run lasted a minute."""

    def __init__(self, cp: LocalControlPlane, clusters: list[Cluster], log_dir: Path, max_backoff: float = 30) -> None:
        self.cp, self.clusters, self.log_dir, self.max_backoff = cp, clusters, log_dir, max_backoff
        self.proc = start_operator(cp, clusters, log_dir)
        self.restarts = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="operator-supervisor", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        import time

        log = logging.getLogger("devtools.operator")
        backoff, started = 1.0, time.monotonic()
        while not self._stop.wait(1.0):
            code = self.proc.poll()
            if code is None:
                if time.monotonic() - started > 60:
                    backoff = 1.0
                continue
            log.warning("the operator exited (%s); starting it again in %.0fs", code, backoff)
            if self._stop.wait(backoff):
                return
            self.proc = start_operator(self.cp, self.clusters, self.log_dir)
            self.restarts += 1
            backoff, started = min(backoff * 2, self.max_backoff), time.monotonic()

    def stop(self, timeout: float = 20) -> None:
        self._stop.set()
        self._thread.join(timeout)
        stop_process(self.proc, timeout)


def _die_with_parent() -> None:
    """Linux: the child gets SIGTERM when the dev process dies, even by SIGKILL, so nothing is orphaned."""
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 20) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def wait_for_caches(timeout: float = 30) -> None:
    """So the first page already shows live data."""
    for cache in runtime.member_caches().values():
        cache.wait_synced(timeout)
    host = runtime.host_cache()
    if host is not None:
        host.wait_synced(timeout)


def wait_for_shards(kind: str, namespace: str, name: str, timeout: float = 60, settle: float = 3) -> list[str]:
    """The members whose watch cache holds a shard of the host's workload ``kind/namespace/name`` once the
    federation placed it (empty after ``timeout``): the dev command's first page shows the demo placed. Every
    member's cache, or a set unchanged for ``settle`` seconds: the shards reach the members' caches one by one, and
    returning at the first one named a single member for a workload placed on two."""
    plural = KINDS[kind].plural
    members = set(runtime.member_caches())
    seen: list[str] = []
    since = time.monotonic()

    def settled() -> list[str]:
        nonlocal seen, since
        now = sorted(n for n, cache in runtime.member_caches().items() if cache.get(plural, namespace, name))
        if now != seen:
            seen, since = now, time.monotonic()
        return now if now and (set(now) == members or time.monotonic() - since >= settle) else []

    try:
        return wait_for(settled, timeout=timeout, interval=0.25, what=f"{kind} {namespace}/{name} placed")
    except AssertionError:
        return []
