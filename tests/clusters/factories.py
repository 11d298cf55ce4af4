from __future__ import annotations

from clusters.models import Cluster, ClusterPool
from projects.models import Project, TierQuota

GIB = 2**30


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


def make_project(name: str = "ads") -> Project:
    return Project.objects.get_or_create(name=name, defaults={"team": "t", "cost_center": "cc"})[0]


def make_quota(tier: str, cpu_cores: int, project: str = "ads", mem_gib: int = 0, gpu: int = 0) -> TierQuota:
    """A project's regional grant in one tier, written directly (the registry tests need grants to exist,
    not the way they were granted)."""
    quota, _ = TierQuota.objects.update_or_create(
        project=make_project(project),
        tier=tier,
        defaults={"cpu_milli": cpu_cores * 1000, "memory_bytes": mem_gib * GIB, "gpu": gpu},
    )
    return quota
