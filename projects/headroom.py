"""Quota headroom: what a project's workloads hold against its grants, read from the portal's watch caches (never
from an apiserver), and the quota overview pages and the API show: grant, admitted use, running pods and headroom
per tier (the region's, and each member's). Not chargeback: cost over time is the ``usage`` app.

Workloads are read from the host cluster's objects (``clusters.runtime.host_cache``), the federation's
store: each workload once, whatever number of members hold a shard of it (every shard carries the full
spec, so counting shards would count a workload once per member). Admitted usage is what federation
admission counts: what the workloads whose ``Admitted`` condition is true were admitted with
(``status.admission``: a change of theirs still waiting for quota holds nothing yet); the others wait
(``QuotaExceeded``, or not decided yet) and hold nothing. Running requests are the pods' own requests as
the member clusters report them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from clusters import capacity as cluster_capacity
from clusters import runtime
from clusters.health import not_synced
from pincompute import API_VERSION
from pincompute.errors import SpecInvalid
from pincompute.federation.admission import CONDITION, recorded_admission
from pincompute.federation.propagation import placements_of
from pincompute.grants import Allocation, Pool, pool_headroom, region_headroom, tier_capacity
from pincompute.kinds import KINDS
from pincompute.quantity import Resources
from pincompute.quota import workload_pods, workload_request
from pincompute.runtime import load_profile
from pincompute.specs.cache import parse_version
from pincompute.status import condition_of
from pincompute.tiers import Tier
from projects.grants import grants_for, grants_of, tier_grant_totals
from projects.models import Project, QuotaRequest, QuotaRequestState

NOT_DECIDED = "waiting for federation admission"


@dataclass(frozen=True)
class WorkloadUse:
    """One workload of the project and what it requests in its tier (held only once admitted)."""

    name: str
    kind: str
    tier: Tier
    request: Allocation
    clusters: tuple[str, ...]  # where the federation placed its shards
    created: str = ""  # creationTimestamp: admission order
    admitted: bool = True
    waiting: str = ""  # why it is not admitted (the Admitted condition's message)


@dataclass(frozen=True)
class ProjectUsage:
    workloads: list[WorkloadUse]
    admitted: dict[Tier, Allocation]
    running: dict[Tier, Allocation]
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """False when a cache was not synced: usage may be missing workloads or pods."""
        return not self.problems

    @property
    def holding(self) -> list[WorkloadUse]:
        """The admitted workloads: what holds the grants."""
        return [w for w in self.workloads if w.admitted]

    @property
    def waiting(self) -> list[WorkloadUse]:
        return [w for w in self.workloads if not w.admitted]


def _manifest(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    """The parts of a cached custom resource the core validates (list items may lack kind/apiVersion)."""
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": obj.get("metadata") or {}, "spec": obj.get("spec")}


def admission_of(obj: dict[str, Any]) -> tuple[bool, str]:
    """(admitted, why not) from a host object's ``Admitted`` condition, as the federation wrote it."""
    condition = condition_of(obj, CONDITION)
    if not condition:
        return False, NOT_DECIDED
    if condition.get("status") == "True":
        return True, ""
    return False, str(condition.get("message") or condition.get("reason") or NOT_DECIDED)


def project_usage(project: Project) -> ProjectUsage:
    """The project's workloads (from the host) and what they hold; its running pods (from every member)."""
    namespace = project.namespace
    problems: list[str] = []
    running = {tier: Allocation() for tier in Tier}
    node_total = 0
    for cluster_name, cache in sorted(runtime.member_caches().items()):
        if not cache.synced:
            problems.append(not_synced(cluster_name, cache))
        aggregates = cache.aggregates()
        node_total += int(aggregates.get("nodes_total") or 0)
        by_namespace_tier = aggregates.get("requests_by_namespace_tier") or {}
        for tier in Tier:
            pods = by_namespace_tier.get((namespace, tier.priority_class))
            if pods is not None:
                running[tier] = running[tier] + Allocation(pods.cpu_m, pods.memory, pods.gpu, pods.count)
    uses: list[WorkloadUse] = []
    host = runtime.host_cache()
    if host is not None:
        if not host.synced:
            problems.append(not_synced("the host", host))
        uses, invalid = _workloads(host, namespace, node_total or 1)
        problems += invalid
    admitted = {tier: Allocation() for tier in Tier}
    for use in uses:
        if use.admitted:
            admitted[use.tier] = admitted[use.tier] + use.request
    return ProjectUsage(uses, admitted, running, problems)


def _workloads(host: Any, namespace: str, daemon_nodes: int) -> tuple[list[WorkloadUse], list[str]]:
    """Each workload object of ``namespace`` on the host, with its request counted as admission counts it
    (a daemon on every member node, as the federation admits it)."""
    profile = load_profile()
    uses, problems = [], []
    for info in KINDS.values():
        for obj in host.list(info.plural, namespace=namespace):
            meta = obj.get("metadata") or {}
            name = str(meta.get("name", ""))
            try:
                workload = parse_version(_manifest(obj, info.kind))
            except SpecInvalid as exc:
                problems.append(f"{info.kind} {name} is not counted: {exc.message}")
                continue
            nodes = daemon_nodes if info.kind == "PinterestDaemon" else 1
            request = workload_request(workload, profile=profile, node_count=nodes)
            held = Allocation.of(request, workload_pods(workload, node_count=nodes))
            tier = workload.meta.tier
            admitted, waiting = admission_of(obj)
            record = recorded_admission(obj) if admitted else None
            if record is not None:
                held, tier = record.request, record.tier
            clusters = tuple(dict.fromkeys(p.cluster for p in placements_of(obj.get("status"))))
            created = str(meta.get("creationTimestamp") or "")
            uses.append(WorkloadUse(name, info.kind, tier, held, clusters, created, admitted, waiting))
    uses.sort(key=lambda w: (w.kind, w.name))
    return uses, problems


@dataclass(frozen=True)
class ClusterRoom:
    """One member's pools for a tier against what runs there now (all projects)."""

    cluster: str
    capacity: Resources
    requested: Resources
    headroom: Resources


@dataclass(frozen=True)
class TierOverview:
    tier: Tier
    grant: Allocation
    usage: Allocation  # admitted: the workloads' requests, as federation admission counts them
    running: Allocation  # the running pods' requests (and count) in the project's namespace
    region_capacity: Resources
    region_granted: Resources
    region_headroom: Resources
    clusters: list[ClusterRoom]
    pending: QuotaRequest | None


@dataclass(frozen=True)
class QuotaOverview:
    tiers: list[TierOverview]
    workloads: list[WorkloadUse]
    problems: list[str]

    def tier(self, tier: Tier) -> TierOverview:
        return next(t for t in self.tiers if t.tier is tier)


def requested_by_tier(cache: Any) -> dict[Tier, Resources]:
    """Requests of the pods running on one member, per tier (the cache's aggregates, by PriorityClass)."""
    by_tier = cache.aggregates().get("requests_by_tier") or {}
    out = {}
    for tier in Tier:
        amount = by_tier.get(tier.priority_class)
        if amount is not None:
            out[tier] = Resources(amount.cpu_m, amount.memory, amount.gpu)
    return out


@dataclass(frozen=True)
class RegionRoom:
    """One tier across the region: its pools' capacity, what is granted, what is left to grant, and each
    member's pools against what runs there now. Project-independent: the wizard shows it before a project
    exists."""

    capacity: Resources
    granted: Resources
    headroom: Resources
    clusters: list[ClusterRoom]


def region_rooms() -> dict[Tier, RegionRoom]:
    """Read from the registry and the watch caches only."""
    totals = tier_grant_totals()
    pools = cluster_capacity.region_pools()
    by_cluster: dict[str, list[Pool]] = {}
    for pool in pools:
        by_cluster.setdefault(pool.cluster, []).append(pool)
    requested = {name: requested_by_tier(cache) for name, cache in runtime.member_caches().items()}
    rooms = {}
    for tier in Tier:
        clusters = []
        for cluster, own in sorted(by_cluster.items()):
            live = requested.get(cluster, {})
            used = sum((amount for t, amount in live.items() if tier is Tier.PREEMPTIBLE or t is tier), Resources())
            clusters.append(ClusterRoom(cluster, tier_capacity(own, tier), used, pool_headroom(own, live, tier)))
        rooms[tier] = RegionRoom(
            tier_capacity(pools, tier), totals[tier], region_headroom(pools, totals, tier), clusters
        )
    return rooms


def quota_overview(project: Project) -> QuotaOverview:
    """Per tier: the grant, admitted usage, running pods, the region's headroom and each member's room.

    Takes a project the caller may already see (``Project.objects.visible_to``); reads only the
    database and the watch caches."""
    usage = project_usage(project)
    grants = grants_of(project)
    rooms = region_rooms()
    pending = {
        r.tier: r for r in QuotaRequest.objects.filter(project=project, state=QuotaRequestState.PENDING).order_by("pk")
    }
    tiers = [
        TierOverview(
            tier=tier,
            grant=grants[tier],
            usage=usage.admitted[tier],
            running=usage.running[tier],
            region_capacity=rooms[tier].capacity,
            region_granted=rooms[tier].granted,
            region_headroom=rooms[tier].headroom,
            clusters=rooms[tier].clusters,
            pending=pending.get(tier.label),
        )
        for tier in Tier
    ]
    return QuotaOverview(tiers, usage.workloads, usage.problems)


def quota_rows_for(projects: Iterable[Project]) -> dict[int, list[dict[str, Any]]]:
    """Each project's grant per tier, for many projects in one query: raw amounts (charts) and
    formatted ones (tables)."""
    rows: dict[int, list[dict[str, Any]]] = {}
    for pk, grants in grants_for(projects).items():
        rows[pk] = []
        for tier, grant in grants.items():
            rows[pk].append(
                {
                    "tier": tier.label,
                    "label": tier.value,
                    "cpu_milli": grant.cpu_milli,
                    "memory_bytes": grant.memory_bytes,
                    "pods": grant.pods,
                    **grant.formatted(),
                }
            )
    return rows
