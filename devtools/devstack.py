"""The embedded default's moving parts: local clusters, their registration, the platform install on the
members, and the operator process. The demo data is in ``devtools.demo``.

``manage.py dev`` (devtools/dev.py) calls these in order; each is idempotent so a second run takes seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from clusters import runtime
from clusters import services as cluster_services
from clusters.health import probe_cluster
from clusters.models import Cluster, FederationRole
from clusters.runtime import api_for
from devtools.localcp import ClusterInfo, LocalControlPlane
from workloads.core.operator.install import install
from workloads.core.operator.kubeio import Kube

DEFAULT_DEV_STATE = Path.home() / ".cache" / "pinconsole" / "state" / "dev"  # as `python -m devtools.localcp`
DEV_STATE = Path(os.environ.get("PINCONSOLE_DEV_STATE", DEFAULT_DEV_STATE))


def control_plane(members: int, nodes: int) -> LocalControlPlane:
    """The dev control plane (not started: ``up()`` reuses a healthy running one)."""
    return LocalControlPlane(DEV_STATE, members=members, nodes_per_member=nodes)


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


def install_platform(cluster: Cluster) -> None:
    """CRDs and tier PriorityClasses on a member, exactly as `python -m workloads.core.operator install-crds`."""
    install(Kube(api_for(cluster), cluster.name))


def start_operator(cp: LocalControlPlane, members: list[Cluster], log_dir: Path) -> subprocess.Popen[bytes]:
    """The operator as a child process (the same entry point production runs)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "workloads.core.operator", "--kubeconfig", str(cp.kubeconfig_path)]
    for cluster in members:
        cmd += ["--context", cluster.kube_context]
    log = (log_dir / "operator.log").open("ab")
    return subprocess.Popen(
        cmd, stdout=log, stderr=subprocess.STDOUT, cwd=settings.BASE_DIR, preexec_fn=_die_with_parent
    )


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
