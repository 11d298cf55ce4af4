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


def make_quota(cluster: Cluster, tier: str, cpu_cores: int, project: str = "ads", mem_gib: int = 0) -> TierQuota:
    proj = Project.objects.get_or_create(name=project, defaults={"team": "t", "cost_center": "cc"})[0]
    return TierQuota.objects.create(
        project=proj, cluster=cluster, tier=tier, cpu_milli=cpu_cores * 1000, memory_bytes=mem_gib * GIB
    )
