"""The minute sampler: what each project's pods request and use per tier, cluster and workload, and each member's
pools against what runs there, read from the watch caches (never from an apiserver) and Prometheus (use, where
scraped: ``usage.sample_use``), into ``UsageSample`` and ``CapacitySample`` minute rows.

Idempotent: a row's key is unique and rows are inserted with ``ignore_conflicts``, and a (minute, cluster) already
in ``SampleRun`` is skipped, so a doubled run of a minute changes nothing. A cluster whose cache is not synced is
not sampled that minute (a gap, never zeros). Missed minutes since a cluster's last run, up to
``USAGE_GAP_FILL_MINUTES``, carry this run's observation (marked ``filled``); longer gaps stay gaps.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from clusters import runtime
from clusters.kube.aggregates import pod_contribution
from clusters.models import ClusterPool, FederationRole
from pincompute.labels import KIND_LABEL, WORKLOAD_LABEL
from pincompute.tiers import DEFAULT_TIER, Tier
from projects.grants import grants_for
from projects.models import Project
from usage import costmodel, poolmodel
from usage.models import MINUTE, CapacitySample, Resolution, SampleRun, UsageSample
from usage.poolmodel import Quantity
from usage.sample_use import Scrape, UseKey, pod_use, scrape

TIER_OF_CLASS = {tier.priority_class: tier.label for tier in Tier}
Key = tuple[int, str, str, str]  # project id, tier, cluster, workload


@dataclass
class Tally:
    """One key's pods in a minute: requested, billed by use (request plus use beyond it, per container), used."""

    request: Quantity = field(default_factory=Quantity)
    billable: Quantity = field(default_factory=Quantity)
    use: Quantity = field(default_factory=Quantity)
    pods: int = 0
    measured_pods: int = 0


@dataclass(frozen=True)
class PoolRow:
    """One tier's pool on one member: capacity, allocated and idle by request, and the same by use."""

    capacity: Quantity
    allocated: Quantity
    idle: Quantity
    use_allocated: Quantity
    use_idle: Quantity


@dataclass
class Observation:
    """One minute's view: a tally per key and capacity rows per cluster."""

    usage: dict[Key, Tally] = field(default_factory=dict)
    capacity: dict[str, dict[str, PoolRow]] = field(default_factory=dict)
    clusters: list[str] = field(default_factory=list)  # sampled (synced) members
    skipped: dict[str, str] = field(default_factory=dict)  # member -> why not
    region: bool = False  # every member synced: the Reserved grants' unused part is known
    use_missing: str = ""  # why no use was scraped this minute (every pod then counts as its request)


@dataclass(frozen=True)
class SampleResult:
    minute: datetime
    clusters: list[str]
    skipped: dict[str, str]
    rows: int
    filled_minutes: int
    use_missing: str = ""


def minute_of(now: datetime) -> datetime:
    return now.replace(second=0, microsecond=0)


def workload_of(labels: dict[str, str]) -> str:
    name = labels.get(WORKLOAD_LABEL, "")
    return f"{labels.get(KIND_LABEL, '')}/{name}" if name else ""


def observe_pods(
    cache: Any, cluster: str, projects: dict[str, int], into: dict[Key, Tally],
    scraped: dict[UseKey, Quantity] | None = None,
) -> None:  # fmt: skip
    """Add each running pod of a project namespace to its (project, tier, cluster, workload) key. Terminal pods
    hold nothing; a pod without a tier PriorityClass counts as the default tier, as admission counts it. A pod is
    billed its request plus what its containers used beyond their requests (``scraped``; none: its request)."""
    for pod in cache.list("pods"):
        meta = pod.get("metadata") or {}
        project = projects.get(meta.get("namespace") or "")
        if project is None:
            continue
        contribution = pod_contribution(pod)
        if contribution.requests is None:
            continue
        tier = TIER_OF_CLASS.get(contribution.tier, DEFAULT_TIER.label)
        key = (project, tier, cluster, workload_of(meta.get("labels") or {}))
        r = contribution.requests
        request = Quantity(r.cpu_m, r.memory, r.gpu)
        used = pod_use(pod, cluster, scraped or {})
        t = into.setdefault(key, Tally())
        t.request, t.billable, t.use = t.request + request, t.billable + used.billed(request), t.use + used.use
        t.pods, t.measured_pods = t.pods + 1, t.measured_pods + used.measured


def observe_capacity(cache: Any, pools: dict[str, Quantity], excess: dict[str, Quantity]) -> dict[str, PoolRow]:
    """Per tier: its pool, its running requests on the cluster (every namespace) and the idle part; by use, the
    same plus what the tier's project containers used beyond their requests (``excess``)."""
    by_class = cache.aggregates().get("requests_by_tier") or {}
    allocated: dict[str, Quantity] = defaultdict(Quantity)
    for priority_class, r in by_class.items():
        tier = TIER_OF_CLASS.get(priority_class, DEFAULT_TIER.label)
        allocated[tier] = allocated[tier] + Quantity(r.cpu_m, r.memory, r.gpu)
    by_use = {tier: allocated.get(tier, Quantity()) + excess.get(tier, Quantity()) for tier in poolmodel.POOL_OF_TIER}
    idle, use_idle = poolmodel.idle_by_tier(pools, allocated), poolmodel.idle_by_tier(pools, by_use)
    return {
        tier: PoolRow(
            pools.get(pool, Quantity()), allocated.get(tier, Quantity()), idle[tier], by_use[tier], use_idle[tier]
        )
        for tier, pool in poolmodel.POOL_OF_TIER.items()
    }


def excess_by_tier(usage: dict[Key, Tally], cluster: str) -> dict[str, Quantity]:
    out: dict[str, Quantity] = defaultdict(Quantity)
    for (_project, tier, where, _workload), t in usage.items():
        if where == cluster:
            out[tier] = out[tier] + (t.billable - t.request)
    return out


def observe() -> Observation:
    """Read the caches once (no apiserver call)."""
    projects = dict(Project.objects.values_list("name", "pk"))
    namespaces = {f"proj-{name}": pk for name, pk in projects.items()}
    pools: dict[str, dict[str, Quantity]] = defaultdict(dict)
    rows = ClusterPool.objects.filter(cluster__role=FederationRole.MEMBER)
    columns = ("cluster__name", "kind", "cpu_milli", "memory_bytes", "gpu")
    for cluster, kind, cpu, memory, gpu in rows.values_list(*columns):
        pools[cluster][kind] = Quantity(cpu, memory, gpu)
    seen = Observation()
    caches = runtime.member_caches()
    scraped: Scrape = scrape() if caches else Scrape()
    seen.use_missing = scraped.why
    for cluster, cache in sorted(caches.items()):
        if not cache.synced:
            seen.skipped[cluster] = f"cache not synced ({cache.last_error or 'starting'})"
            continue
        observe_pods(cache, cluster, namespaces, seen.usage, scraped.use)
        seen.capacity[cluster] = observe_capacity(cache, pools.get(cluster, {}), excess_by_tier(seen.usage, cluster))
        seen.clusters.append(cluster)
    seen.region = bool(caches) and not seen.skipped
    if seen.region:
        add_unused_reservations(seen, list(projects.values()))
    return seen


def add_unused_reservations(seen: Observation, project_ids: list[int]) -> None:
    """Reserved is committed capacity: a grant's part that no Reserved pod requested (by use: billed) is its own
    regional row, so a grant is charged once whether used or not, by request and by use alike."""
    requested: dict[int, Quantity] = defaultdict(Quantity)
    billed: dict[int, Quantity] = defaultdict(Quantity)
    for (project, tier, _cluster, _workload), t in seen.usage.items():
        if tier == Tier.RESERVED.label:
            requested[project], billed[project] = requested[project] + t.request, billed[project] + t.billable
    grants = grants_for(Project(pk=pk) for pk in project_ids)
    for pk, by_tier in grants.items():
        g = by_tier[Tier.RESERVED]
        grant = Quantity(g.cpu_milli, g.memory_bytes, g.gpu)
        unused = poolmodel.unused_reservation(grant, requested[pk])
        if not unused.zero:
            by_use = poolmodel.unused_reservation(grant, billed[pk])
            key = (pk, Tier.RESERVED.label, costmodel.REGION, costmodel.UNUSED_RESERVATION)
            seen.usage[key] = Tally(unused, by_use, by_use)


def _usage_rows(seen: Observation, minute: datetime, clusters: set[str]) -> list[UsageSample]:
    rows = []
    for (project, tier, cluster, workload), t in seen.usage.items():
        if cluster not in clusters:
            continue
        amounts = {
            f"{r}_{name}": getattr(q, r) * MINUTE
            for name, q in (("request", t.request), ("billable", t.billable), ("use", t.use))
            for r in ("cpu", "memory", "gpu")
        }
        rows.append(
            UsageSample(
                resolution=Resolution.MINUTE, start=minute, project_id=project, tier=tier, cluster=cluster,
                workload=workload, **amounts, pod_seconds=t.pods * MINUTE,
                measured_pod_seconds=t.measured_pods * MINUTE, seconds=MINUTE,
            )
        )  # fmt: skip
    return rows


def _capacity_rows(seen: Observation, minute: datetime, clusters: set[str]) -> list[CapacitySample]:
    rows = []
    for cluster, tiers in seen.capacity.items():
        if cluster not in clusters:
            continue
        for tier, row in tiers.items():
            amounts = {f"{r}_{name}": getattr(getattr(row, name), r) * MINUTE for r in ("cpu", "memory", "gpu")
                       for name in ("capacity", "allocated", "idle", "use_allocated", "use_idle")}  # fmt: skip
            rows.append(CapacitySample(resolution=Resolution.MINUTE, start=minute, cluster=cluster, tier=tier,
                                       **amounts, seconds=MINUTE))  # fmt: skip
    return rows


def minutes_to_write(cluster: str, minute: datetime) -> list[tuple[datetime, bool]]:
    """This minute, and the missed ones since the cluster's last run when the gap is short enough to fill."""
    if SampleRun.objects.filter(minute=minute, cluster=cluster).exists():
        return []  # sampled already: a doubled run changes nothing
    last = SampleRun.objects.filter(cluster=cluster, minute__lt=minute).aggregate(m=Max("minute"))["m"]
    out = [(minute, False)]
    if last is not None:
        missed = int((minute - last).total_seconds() // MINUTE) - 1
        if 0 < missed <= settings.USAGE_GAP_FILL_MINUTES:
            out += [(last + timedelta(minutes=i), True) for i in range(1, missed + 1)]
    return out


def write(seen: Observation, minute: datetime) -> tuple[int, int]:
    """Insert the observation for ``minute`` (and filled minutes); (rows written, minutes filled)."""
    targets = [*seen.clusters, *([costmodel.REGION] if seen.region else [])]
    rows, filled = 0, 0
    with transaction.atomic():
        for cluster in targets:
            for at, was_missed in minutes_to_write(cluster, minute):
                run = {"minute": at, "cluster": cluster}
                _, created = SampleRun.objects.get_or_create(**run, defaults={"filled": was_missed})
                if not created:  # a concurrent run of the same minute got there first
                    continue
                usage = _usage_rows(seen, at, {cluster})
                capacity = _capacity_rows(seen, at, {cluster})
                UsageSample.objects.bulk_create(usage, ignore_conflicts=True, batch_size=2000)
                CapacitySample.objects.bulk_create(capacity, ignore_conflicts=True, batch_size=2000)
                rows += len(usage) + len(capacity)
                filled += was_missed
    return rows, filled


def sample(now: datetime | None = None) -> SampleResult:
    """Sample the current minute (``now`` for tests and the bench)."""
    minute = minute_of(now or timezone.now())
    seen = observe()
    rows, filled = write(seen, minute)
    return SampleResult(minute, seen.clusters, seen.skipped, rows, filled, seen.use_missing)
