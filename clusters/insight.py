"""Read models for the cluster pages, built from the registry, the watch caches and this process's
breakers (no apiserver call, no database write)."""

from __future__ import annotations

from typing import Any

from clusters import runtime
from clusters.attributes import pool_snapshot
from clusters.capacity import region_pools
from clusters.health import health_of
from clusters.hooks import grant_totals
from clusters.models import Cluster, ClusterPool, PoolKind
from pincompute.grants import TIER_POOL_KINDS, tier_capacity
from pincompute.labels import HARDWARE_FAMILY_LABEL, NODE_INSTANCE_TYPE_LABEL, NODE_ZONE_LABEL
from pincompute.quantity import Resources, format_cpu, format_memory
from pincompute.tiers import Tier

TIER_POOLS = (PoolKind.RESERVED, PoolKind.ONDEMAND, PoolKind.BURST)
TIER_PRIORITY = {tier.label: tier.priority_class for tier in Tier}
POOL_TIERS = (Tier.RESERVED, Tier.ONDEMAND)  # tiers with a pool of their own (requested vs pool)


def _resources(amounts: Any) -> Resources:
    """Convert the watch cache's aggregate (cpu_m, memory, gpu) into the core's Resources."""
    if amounts is None:
        return Resources()
    if isinstance(amounts, Resources):
        return amounts
    return Resources(cpu_milli=int(amounts.cpu_m), memory_bytes=int(amounts.memory), gpu=int(amounts.gpu))


def _cache_state(cache: Any) -> dict[str, Any]:
    if cache is None:
        return {"synced": False, "error": "watch cache disabled", "nodes": None, "ready_nodes": None}
    aggregates = cache.aggregates()
    return {
        "synced": cache.synced,
        "error": cache.last_error or "",
        "nodes": aggregates["nodes_total"],
        "ready_nodes": aggregates["nodes_ready"],
        "aggregates": aggregates,
    }


def _tier_requested(state: dict[str, Any]) -> dict[str, Resources]:
    aggregates = state.get("aggregates")
    if aggregates is None:
        return {}
    by_tier = aggregates["requests_by_tier"]
    return {tier: _resources(by_tier.get(pc)) for tier, pc in TIER_PRIORITY.items()}


def registry_overview() -> dict[str, Any]:
    clusters = list(Cluster.objects.prefetch_related("pools"))
    caches = runtime.member_caches()
    rows = []
    labels, capacity_cpu, requested_cpu = [], {k: [] for k in TIER_POOLS}, {k: [] for k in TIER_PRIORITY}
    for cluster in clusters:
        pools = {p.kind: p for p in cluster.pools.all()}
        state = _cache_state(caches.get(cluster.name)) if cluster.role == "member" else {}
        requested = _tier_requested(state)
        rows.append(
            {
                "cluster": cluster,
                "pools": pools,
                "cache": state,
                "health": health_of(cluster),
                "requested": requested,
                "requested_by_pool_tier": [
                    format_cpu(requested[t.label].cpu_milli) if t.label in requested else None for t in POOL_TIERS
                ],
            }
        )
        if cluster.role == "member":
            labels.append(cluster.name)
            for kind in TIER_POOLS:
                pool = pools.get(kind)
                capacity_cpu[kind].append(round((pool.cpu_milli if pool else 0) / 1000, 1))
            for tier in TIER_PRIORITY:
                requested_cpu[tier].append(round(requested.get(tier, Resources()).cpu_milli / 1000, 1))
    # Colours come from the tier palette in app.css (charts.js reads ``tier``); ``alpha`` sets the shade.
    chart = {
        "type": "bar",
        "data": {
            "labels": labels,
            "datasets": [
                *(
                    {
                        "label": PoolKind(kind).label,
                        "data": capacity_cpu[kind],
                        "stack": "capacity",
                        "tier": Tier.parse(kind).label,
                        "alpha": 0.35,
                    }
                    for kind in (PoolKind.RESERVED, PoolKind.ONDEMAND)
                ),
                {
                    "label": PoolKind.BURST.label,
                    "data": capacity_cpu[PoolKind.BURST],
                    "stack": "capacity",
                    "backgroundColor": "rgba(148,163,184,0.35)",
                },
                *(
                    {
                        "label": f"{tier.value} requested",
                        "data": requested_cpu[tier.label],
                        "stack": "requested",
                        "tier": tier.label,
                        "alpha": 0.9,
                    }
                    for tier in Tier
                ),
            ],
        },
        "options": {
            "unit": "cores",
            "stacked": True,
            "plugins": {"title": {"display": True, "text": "CPU: pool capacity vs requested, per tier"}},
        },
    }
    return {"rows": rows, "chart": chart, "pool_tiers": POOL_TIERS}


def granted_display(cluster: Cluster, kind: str) -> dict[str, str] | None:
    """For a pool row: what the region has granted in the tier this pool kind serves, against what that
    tier's pools hold across the schedulable members (grants are regional: no single pool holds them).
    None for the burst buffer, which only Preemptible borrows from."""
    tiers = [tier for tier, kinds in TIER_POOL_KINDS.items() if kind in kinds and tier is not Tier.PREEMPTIBLE]
    if not tiers:
        return None
    [tier] = tiers
    granted, capacity = grant_totals()[tier], tier_capacity(region_pools(), tier)
    return {
        "tier": tier.value,
        "cpu": format_cpu(granted.cpu_milli),
        "memory": format_memory(granted.memory_bytes),
        "gpu": str(granted.gpu),
        "region_cpu": format_cpu(capacity.cpu_milli),
        "region_memory": format_memory(capacity.memory_bytes),
        "region_gpu": str(capacity.gpu),
    }


def cluster_detail(cluster: Cluster) -> dict[str, Any]:
    caches = runtime.member_caches() if cluster.role == "member" else {}
    cache = caches.get(cluster.name)
    state = _cache_state(cache) if cluster.role == "member" else {}
    nodes, events, zones, families = [], [], [], []
    if cache is not None:
        for node in sorted(cache.list("nodes"), key=lambda n: n["metadata"]["name"]):
            status = node.get("status", {})
            ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions", []))
            alloc = status.get("allocatable", {})
            labels = node["metadata"].get("labels", {})
            nodes.append(
                {
                    "name": node["metadata"]["name"],
                    "ready": ready,
                    "cpu": alloc.get("cpu", ""),
                    "memory": alloc.get("memory", ""),
                    "gpu": alloc.get("nvidia.com/gpu", "0"),
                    "instance_type": labels.get(NODE_INSTANCE_TYPE_LABEL, ""),
                    "family": labels.get(HARDWARE_FAMILY_LABEL, ""),
                    "zone": labels.get(NODE_ZONE_LABEL, ""),
                    "unschedulable": bool((node.get("spec") or {}).get("unschedulable")),
                }
            )
        events = sorted(
            cache.list("events"), key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "", reverse=True
        )[:50]
        aggregates = state["aggregates"]
        zones = [{"name": z, **_fmt(r)} for z, r in sorted(aggregates["allocatable_by_zone"].items())]
        families = [{"name": f, **_fmt(r)} for f, r in sorted(aggregates["allocatable_by_family"].items())]
    pools = []
    for kind in TIER_POOLS:
        pool = ClusterPool.objects.filter(cluster=cluster, kind=kind).first() or ClusterPool(cluster=cluster, kind=kind)
        pools.append(
            {
                "kind": kind,
                "label": PoolKind(kind).label,
                "pool": pool,
                "values": pool_snapshot(pool),
                "granted": granted_display(cluster, kind),
                "cluster": cluster,
            }
        )
    return {
        "cluster": cluster,
        "cache": state,
        "health": health_of(cluster),
        "nodes": nodes,
        "events": events,
        "zones": zones,
        "families": families,
        "pools": pools,
    }


def _fmt(r: Any) -> dict[str, str]:
    res = _resources(r)
    return {
        "cpu": format_cpu(res.cpu_milli),
        "memory": format_memory(res.memory_bytes),
        "gpu": str(res.gpu),
        "nodes": str(getattr(r, "count", "")),
    }
