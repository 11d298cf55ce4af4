"""Cluster-level scheduling: filter member clusters, score the rest, shard across zones.

Pure: the portal feeds it the cluster registry and the live tier usage, and gets back where each
shard goes or, when nothing fits, a sentence per cluster saying why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pincompute.errors import NoFeasibleCluster
from pincompute.placement import Placement, split_replicas
from pincompute.quantity import Resources, format_amount
from pincompute.tiers import Tier

ZERO = Resources()


@dataclass(frozen=True)
class ClusterCandidate:
    name: str
    region: str
    zone: str
    role: str  # "host" or "member"
    schedulable: bool
    healthy: bool
    hardware_families: frozenset[str]
    labels: Mapping[str, str]
    taints: Sequence[Mapping[str, str]]
    pool_capacity: Mapping[Tier, Resources]
    tier_requested: Mapping[Tier, Resources]
    node_allocatable: Resources  # the largest node: a single replica must fit on it
    node_count: int
    burst_buffer: Resources = ZERO  # active but unused capacity OnDemand may burst into

    def free(self, tier: Tier) -> Resources:
        return self.pool_capacity.get(tier, ZERO) - self.tier_requested.get(tier, ZERO)

    def headroom(self, tier: Tier) -> Resources:
        """What ``tier`` may still take: Preemptible borrows unused Reserved and OnDemand capacity."""
        if tier is Tier.RESERVED:
            return self.free(Tier.RESERVED).clamp_min_zero()
        if tier is Tier.ONDEMAND:
            return (self.free(Tier.ONDEMAND) + self.burst_buffer).clamp_min_zero()
        borrowed = self.free(Tier.RESERVED).clamp_min_zero() + self.free(Tier.ONDEMAND).clamp_min_zero()
        return (borrowed - self.tier_requested.get(Tier.PREEMPTIBLE, ZERO)).clamp_min_zero()

    def capacity(self, tier: Tier) -> Resources:
        if tier is Tier.PREEMPTIBLE:
            return self.pool_capacity.get(Tier.RESERVED, ZERO) + self.pool_capacity.get(Tier.ONDEMAND, ZERO)
        extra = self.burst_buffer if tier is Tier.ONDEMAND else ZERO
        return self.pool_capacity.get(tier, ZERO) + extra


@dataclass(frozen=True)
class PlacementRequest:
    kind: str
    tier: Tier
    request_per_replica: Resources
    replicas: int
    zones: Sequence[str] | None = None
    hardware_family: str | None = None
    tolerations: Sequence[Mapping[str, Any]] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    spread: bool = False


@dataclass(frozen=True)
class PlacementDecision:
    shards: list[Placement]
    scores: dict[str, float]
    rejected: dict[str, list[str]]


def place(request: PlacementRequest, candidates: Sequence[ClusterCandidate]) -> PlacementDecision:
    """Pick member clusters for ``request``; raises NoFeasibleCluster with per-cluster reasons."""
    rejected: dict[str, list[str]] = {}
    feasible = []
    for cluster in sorted(candidates, key=lambda c: c.name):
        reasons = _filter(request, cluster)
        if reasons:
            rejected[cluster.name] = reasons
        else:
            feasible.append(cluster)
    scores: dict[str, float] = {}
    if request.kind == "PinterestDaemon":
        shards = _everywhere(request, feasible, rejected, scores)
    elif request.zones or request.spread:
        shards = _sharded(request, feasible, rejected, scores)
    else:
        shards = _single(request, feasible, rejected, scores)
    if not shards:
        raise NoFeasibleCluster(rejected)
    return PlacementDecision(shards, scores, rejected)


def _filter(request: PlacementRequest, cluster: ClusterCandidate) -> list[str]:
    reasons = []
    if cluster.role != "member":
        reasons.append(f"is a {cluster.role} cluster; only member clusters run workloads")
    if not cluster.schedulable:
        reasons.append("is not schedulable (an admin closed it to new workloads)")
    if not cluster.healthy:
        reasons.append("is unhealthy")
    if request.zones and cluster.zone not in request.zones:
        reasons.append(f"is in zone {cluster.zone}, not in the requested {', '.join(request.zones)}")
    if request.hardware_family and request.hardware_family not in cluster.hardware_families:
        offered = ", ".join(sorted(cluster.hardware_families)) or "none"
        reasons.append(f"has no {request.hardware_family} hardware (offers {offered})")
    for key, value in sorted(request.node_selector.items()):
        if cluster.labels.get(key) != value:
            reasons.append(f"does not have label {key}={value}")
    for taint in cluster.taints:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerated(taint, request.tolerations):
            reasons.append(
                f"has taint {taint.get('key')}={taint.get('value', '')}:{taint.get('effect')} "
                "that the workload does not tolerate"
            )
    too_big = request.request_per_replica.exceeded_by(cluster.node_allocatable)
    for resource, over in too_big.items():
        needed, offered = _fmt(resource, request.request_per_replica), _fmt(resource, cluster.node_allocatable)
        reasons.append(
            f"one replica needs {resource} {needed} but its largest node offers {offered} "
            f"({format_amount(resource, over)} short)"
        )
    return reasons


def tolerated(taint: Mapping[str, str], tolerations: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``tolerations`` tolerate ``taint`` (a cluster's, here; a node's in ``largest_fit``)."""
    for toleration in tolerations:
        if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
            continue
        if toleration.get("operator") == "Exists":
            if not toleration.get("key") or toleration["key"] == taint.get("key"):
                return True
        elif toleration.get("key") == taint.get("key") and toleration.get("value", "") == taint.get("value", ""):
            return True
    return False


def _fmt(resource: str, amounts: Resources) -> str:
    return format_amount(resource, amounts.amounts()[resource])


def _capacity_reasons(request: PlacementRequest, cluster: ClusterCandidate, replicas: int) -> list[str]:
    need = request.request_per_replica * replicas
    headroom = cluster.headroom(request.tier)
    return [
        f"{request.tier.value} headroom for {replicas} replica(s): {resource} {_fmt(resource, headroom)} "
        f"left, {_fmt(resource, need)} needed ({format_amount(resource, over)} short)"
        for resource, over in need.exceeded_by(headroom).items()
    ]


def score(request: PlacementRequest, cluster: ClusterCandidate, replicas: int) -> float:
    """0-100: mostly headroom left after placing (bin-pack less, keep burst room), plus load balance."""
    capacity = cluster.capacity(request.tier).amounts()
    after = (cluster.headroom(request.tier) - request.request_per_replica * replicas).amounts()
    ratios = [after[r] / capacity[r] for r in capacity if capacity[r] > 0]
    headroom = max(0.0, min(ratios)) if ratios else 0.0
    total_cap, total_used = ZERO, ZERO
    for tier in Tier:
        total_cap = total_cap + cluster.pool_capacity.get(tier, ZERO)
        total_used = total_used + cluster.tier_requested.get(tier, ZERO)
    loads = [total_used.amounts()[r] / total_cap.amounts()[r] for r in ("cpu", "memory") if total_cap.amounts()[r]]
    balance = 1.0 - (sum(loads) / len(loads)) if loads else 0.0
    return round(100 * (0.6 * headroom + 0.4 * max(0.0, balance)), 3)


def _best(
    request: PlacementRequest,
    clusters: Sequence[ClusterCandidate],
    replicas: int,
    rejected: dict[str, list[str]],
    scores: dict[str, float],
) -> ClusterCandidate | None:
    fitting = []
    for cluster in clusters:
        reasons = _capacity_reasons(request, cluster, replicas)
        if reasons:
            rejected.setdefault(cluster.name, []).extend(r for r in reasons if r not in rejected.get(cluster.name, []))
            continue
        scores[cluster.name] = score(request, cluster, replicas)
        fitting.append(cluster)
    fitting.sort(key=lambda c: (-scores[c.name], c.name))
    return fitting[0] if fitting else None


def _single(
    request: PlacementRequest,
    feasible: list[ClusterCandidate],
    rejected: dict[str, list[str]],
    scores: dict[str, float],
) -> list[Placement]:
    best = _best(request, feasible, request.replicas, rejected, scores)
    if best is None:
        return []
    return [Placement(best.name, best.zone, best.region, 0, 1, request.replicas)]


def _sharded(
    request: PlacementRequest,
    feasible: list[ClusterCandidate],
    rejected: dict[str, list[str]],
    scores: dict[str, float],
) -> list[Placement]:
    """One shard per zone; explicit zones must all be served, spread drops zones that cannot fit."""
    if request.zones:
        zones = list(request.zones)
    else:
        best_score: dict[str, float] = {}
        for cluster in feasible:
            best_score[cluster.zone] = max(best_score.get(cluster.zone, -1.0), score(request, cluster, 0))
        zones = sorted(best_score, key=lambda z: (-best_score[z], z))[: max(1, request.replicas)]
    while zones:
        split = split_replicas(request.replicas, zones)
        chosen: list[ClusterCandidate] = []
        for zone in zones:
            best = _best(request, [c for c in feasible if c.zone == zone], split[zone], rejected, scores)
            if best is None:
                break
            chosen.append(best)
        if len(chosen) == len(zones):
            return [Placement(c.name, c.zone, c.region, i, len(zones), split[c.zone]) for i, c in enumerate(chosen)]
        if request.zones:
            return []
        zones = zones[: len(chosen)] + zones[len(chosen) + 1 :]  # drop the zone that did not fit
    return []


def _everywhere(
    request: PlacementRequest,
    feasible: list[ClusterCandidate],
    rejected: dict[str, list[str]],
    scores: dict[str, float],
) -> list[Placement]:
    """A daemon runs on every feasible cluster: one pod per node."""
    placed = [c for c in feasible if _best(request, [c], c.node_count, rejected, scores) is not None]
    return [Placement(c.name, c.zone, c.region, i, len(placed), c.node_count) for i, c in enumerate(placed)]
