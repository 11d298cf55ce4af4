"""One factory per model: projects (through the services, or the bare row), clusters, their pools, tier grants; and
workloads as the host's watch cache holds them (the federation's objects: admission and placement in their status)."""

from __future__ import annotations

from typing import Any

from base.permissions import is_platform_admin
from clusters.models import Cluster, ClusterPool
from projects.members import MemberInput
from projects.models import Project, TierQuota
from projects.onboarding import ProjectDraft, onboard_project
from tests.support.fakes import FilledCache

HOST = "host"
"""The key of the host's cache in the ``caches`` fixture (every other key is a member's)."""
GIB = 2**30


def make_project(name: str = "ads", creator: Any = None, **fields: Any) -> Project:
    """Onboarded through the service by ``creator`` (an owner unless a platform admin); without a creator, the bare
    row, got or created (for tests that need a project to exist, not the way it was made)."""
    team, cost_center = fields.pop("team", name), fields.pop("cost_center", "CC-1")
    if creator is None:
        assert not fields, f"a bare project row takes no {sorted(fields)}"
        return Project.objects.get_or_create(name=name, defaults={"team": team, "cost_center": cost_center})[0]
    members = fields.pop("members", [])
    if is_platform_admin(creator):
        members = members or [MemberInput("user", creator.username, "owner")]
    draft = ProjectDraft(name=name, team=team, cost_center=cost_center)
    draft.members, draft.quotas = members, fields.pop("quotas", {})
    return onboard_project(draft, actor=creator)


def make_cluster(name: str = "member-x", **fields) -> Cluster:
    defaults = {
        "region": "local-1",
        "zone": "local-1a",
        "role": "member",
        "api_server": "https://127.0.0.1:1",
        "kubeconfig_path": "/nonexistent",
        "kube_context": name,
    }
    return Cluster.objects.create(name=name, **{**defaults, **fields})


def make_pool(cluster: Cluster, kind: str, cpu_cores: int, mem_gib: int = 0, gpu: int = 0) -> ClusterPool:
    return ClusterPool.objects.create(
        cluster=cluster, kind=kind, cpu_milli=cpu_cores * 1000, memory_bytes=mem_gib * GIB, gpu=gpu
    )


def make_quota(tier: str, cpu_cores: int, project: str = "ads", mem_gib: int = 0, gpu: int = 0) -> TierQuota:
    """A project's regional grant in one tier, written directly (the registry tests need grants to exist,
    not the way they were granted)."""
    quota, _ = TierQuota.objects.update_or_create(
        project=make_project(project, team="t", cost_center="cc"),
        tier=tier,
        defaults={"cpu_milli": cpu_cores * 1000, "memory_bytes": mem_gib * GIB, "gpu": gpu},
    )
    return quota


def workload_cr(
    name: str,
    *,
    kind: str = "PinApp",
    tier: str = "OnDemand",
    replicas: int = 2,
    cpu: str = "1",
    memory: str = "1Gi",
    project: str = "ads",
    created: str = "2026-11-22T00:00:00Z",
    admitted: bool | None = True,
    clusters: tuple[str, ...] = ("member-a",),
) -> dict[str, Any]:
    """A workload object as the host's watch cache holds it: ``admitted`` True/False is its ``Admitted``
    condition (None: not decided yet), ``clusters`` where the federation placed its shards."""
    container = {
        "name": "app",
        "image": "registry.local/app:1",
        "resources": {"requests": {"cpu": cpu, "memory": memory}},
    }
    spec: dict[str, Any] = {"project": project, "team": project, "costCenter": "CC-1", "tier": tier}
    if kind == "PinApp":
        spec |= {"replicas": replicas, "zones": ["local-1a"], "template": {"containers": [container]}}
    else:
        spec |= {"containers": [container]}
    status: dict[str, Any] = {
        "placement": {"clusters": [{"cluster": c, "shardIndex": i} for i, c in enumerate(clusters)]}
    }
    if admitted is not None:
        reason, message = ("Admitted", "fits") if admitted else ("QuotaExceeded", f"{tier} cpu: over the grant")
        status["conditions"] = [{"type": "Admitted", "status": str(admitted), "reason": reason, "message": message}]
    return {
        "apiVersion": "pincompute.io/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": f"proj-{project}", "creationTimestamp": created},
        "spec": spec,
        "status": status,
    }


def fill(caches: dict[str, FilledCache], cluster: str, *workloads: dict[str, Any], pods: Any = ()) -> FilledCache:
    """Put custom resources (and pods) into ``cluster``'s cache, as its watches would (``HOST``: the host's)."""
    from pincompute.kinds import KINDS

    cache = caches.setdefault(cluster, FilledCache({}))
    for cr in workloads:
        cache.put(KINDS[cr["kind"]].plural, cr)
    for pod in pods:
        cache.put("pods", pod)
    return cache
