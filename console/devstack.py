"""The embedded default's moving parts: local clusters, their registration, platform install, demo data.

`manage.py dev` calls these in order; each step is idempotent so a second run takes seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from kubernetes.client.exceptions import ApiException

from clusters import provision, runtime
from clusters import services as cluster_services
from clusters.health import probe_cluster
from clusters.models import Cluster, Role
from clusters.runtime import api_for
from console import demo
from projects.models import Project, TierQuota
from workloads.core import API_VERSION
from workloads.core.labels import (
    CLUSTER_ANNOTATION,
    MANAGED_BY,
    MANAGED_BY_LABEL,
    PROJECT_LABEL,
    SHARD_COUNT_ANNOTATION,
    SHARD_INDEX_ANNOTATION,
    TEAM_LABEL,
    ZONE_ANNOTATION,
)
from workloads.core.operator.install import install
from workloads.core.operator.kubeio import Kube
from workloads.core.quantity import Resources
from workloads.core.quota import TierQuota as CoreTierQuota
from workloads.core.quota import limit_range_manifest, resource_quota_manifests
from workloads.core.tiers import Tier

DEV_STATE = Path(os.environ.get("PINCONSOLE_DEV_STATE", Path.home() / ".cache" / "pinconsole" / "state" / "dev"))


def start_clusters(members: int, nodes: int) -> Any:
    from devtools.localcp import LocalControlPlane

    cp = LocalControlPlane(DEV_STATE, members=members, nodes_per_member=nodes)
    cp.up()
    return cp


def register(cp: Any) -> list[Cluster]:
    registered = []
    for info in cp.clusters:
        cluster, _ = cluster_services.register_cluster(
            name=info.name, region=info.region, zone=info.zone, role=info.role, api_server=info.server,
            kubeconfig_path=str(cp.kubeconfig_path), kube_context=info.context)
        registered.append(cluster)
    return registered


def install_platform(cluster: Cluster) -> None:
    """CRDs and tier PriorityClasses on a member, exactly as `python -m workloads.core.operator install-crds`."""
    install(Kube(api_for(cluster), cluster.name))


def provision_project(project: Project, cluster: Cluster) -> None:
    """Namespace, one ResourceQuota per tier and a LimitRange on one member cluster."""
    limits = {}
    for quota in TierQuota.objects.filter(project=project, cluster=cluster):
        limits[Tier.parse(quota.tier)] = Resources(quota.cpu_milli, quota.memory_bytes, quota.gpu)
    namespace = {
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": project.namespace, "labels": {
            PROJECT_LABEL: project.name, TEAM_LABEL: project.team, MANAGED_BY_LABEL: MANAGED_BY}},
    }
    manifests = [namespace, *resource_quota_manifests(project.namespace, CoreTierQuota(limits)),
                 limit_range_manifest(project.namespace)]
    provision.apply_all(api_for(cluster), manifests)


def demo_workloads(project: Project, members: list[Cluster]) -> list[tuple[Cluster, dict[str, Any]]]:
    """A PinApp sharded over every member zone, and a job set on the first member."""
    out = []
    for index, cluster in enumerate(members):
        app = {
            "apiVersion": API_VERSION, "kind": "PinApp",
            "metadata": {"name": "ranker", "namespace": project.namespace, "annotations": {
                CLUSTER_ANNOTATION: cluster.name, ZONE_ANNOTATION: cluster.zone,
                SHARD_INDEX_ANNOTATION: str(index), SHARD_COUNT_ANNOTATION: str(len(members))}},
            "spec": {"project": project.name, "team": project.team, "costCenter": project.cost_center,
                     "tier": Tier.ONDEMAND.value, "replicas": 2, "zones": [cluster.zone],
                     "template": {"containers": [{"name": "ranker", "image": "registry.local/ads/ranker:1.8.2",
                                                  "ports": [{"name": "http", "containerPort": 8080}],
                                                  "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]}},
        }
        out.append((cluster, app))
    first = members[0]
    jobset = {
        "apiVersion": API_VERSION, "kind": "PinterestJobSet",
        "metadata": {"name": "feature-backfill", "namespace": project.namespace, "annotations": {
            CLUSTER_ANNOTATION: first.name, ZONE_ANNOTATION: first.zone}},
        "spec": {"project": project.name, "team": project.team, "costCenter": project.cost_center,
                 "tier": Tier.PREEMPTIBLE.value, "shards": 4,
                 "containers": [{"name": "backfill", "image": "registry.local/ads/backfill:2.0.0",
                                 "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}}}]},
    }
    out.append((first, jobset))
    return out


def apply_demo_workloads(project: Project, members: list[Cluster]) -> list[str]:
    """Write the demo custom resources; returns human-readable problems instead of raising."""
    problems = []
    for cluster, manifest in demo_workloads(project, members):
        try:
            provision.apply_all(api_for(cluster), [manifest])
        except ApiException as exc:
            problems.append(f"{cluster.name}: {manifest['kind']}/{manifest['metadata']['name']}: {exc.reason}")
    return problems


def start_operator(cp: Any, members: list[Cluster], log_dir: Path) -> subprocess.Popen[bytes]:
    """The operator as a child process (the same entry point production runs)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "workloads.core.operator", "--kubeconfig", str(cp.kubeconfig_path)]
    for cluster in members:
        cmd += ["--context", cluster.kube_context]
    log = (log_dir / "operator.log").open("ab")
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=settings.BASE_DIR,
                            preexec_fn=_die_with_parent)


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


def members_of(clusters: list[Cluster]) -> list[Cluster]:
    return [c for c in clusters if c.role == Role.MEMBER]


def prepare_clusters(cp: Any) -> tuple[list[Cluster], list[Cluster]]:
    """Register, probe, install the platform on members and derive their demo attributes from real nodes."""
    clusters = register(cp)
    for cluster in clusters:
        probe_cluster(cluster)
    members = members_of(clusters)
    for cluster in members:
        install_platform(cluster)
        nodes = provision.dynamic_client(api_for(cluster)).resources.get(api_version="v1", kind="Node").get()
        demo.ensure_cluster_attributes(cluster, nodes.to_dict()["items"])
    return clusters, members


def seed_demo(members: list[Cluster]) -> list[str]:
    """Demo projects with quotas provisioned on every member, and demo workloads; returns problems."""
    users = get_user_model().objects.in_bulk(["demo", "admin"], field_name="username")
    projects = demo.ensure_projects(members, users["demo"], users["admin"])
    for project in projects:
        for cluster in members:
            provision_project(project, cluster)
    return apply_demo_workloads(projects[0], members)


def wait_for_caches(timeout: float = 30) -> None:
    """So the first page already shows live data."""
    for cache in runtime.member_caches().values():
        cache.wait_synced(timeout)
