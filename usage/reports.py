"""Reports from the stored samples: the rows a window needs, summed in SQL by the finest bucket the step allows,
then split, aggregated and priced by ``usage.costmodel``.

Hourly rows are read before the roll-up watermark and minute rows from it on (no sample twice). Rows wholly in the
window are summed per (day or hour, resolution, tier, dimensions) in the database; an hourly row across a window
edge is read alone and split in proportion (``costmodel.split``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import Max, Min, Q, QuerySet, Sum
from django.db.models.functions import TruncDay, TruncHour

from usage import costmodel
from usage.costmodel import IDLE, Amounts, Record, Report, Window
from usage.idlecost import PoolRecord, pool_costs
from usage.models import CapacitySample, Resolution, UsageSample
from usage.prices import current_prices
from usage.rollup import watermark

DIMENSION_FIELDS = {
    "project": "project__name",
    "team": "project__team",
    "cost_center": "project__cost_center",
    "cluster": "cluster",
    "workload": "workload",
}
RESOURCE_FIELDS = ("cpu", "memory", "gpu")


@dataclass(frozen=True)
class Scope:
    """Whose samples: some projects (None: every project) and whether idle capacity is shown (admins)."""

    project_ids: list[int] | None
    include_idle: bool = False


def _time_filter(window: Window) -> tuple[Q, Q]:
    """(inner rows, hourly rows across a window edge)."""
    mark = watermark()
    hourly = Q(resolution=Resolution.HOUR)
    minute = Q(resolution=Resolution.MINUTE, start__gte=window.start, start__lt=window.end)
    if mark is None:
        return minute, Q(pk__in=[])
    minute &= Q(start__gte=mark)
    first_hour = window.start.replace(minute=0)
    hourly &= Q(start__gte=first_hour, start__lt=min(window.end, mark))
    inner_hourly = hourly & Q(start__gte=window.start, start__lte=window.end - timedelta(hours=1))
    return minute | inner_hourly, hourly & ~Q(start__gte=window.start, start__lte=window.end - timedelta(hours=1))


def _bucket(step: int, window: Window) -> Any:
    return (
        TruncDay("start", tzinfo=UTC) if step % 86400 == 0 or step >= window.seconds else TruncHour("start", tzinfo=UTC)
    )


def _sums(prefixes: tuple[str, ...]) -> dict[str, Sum]:
    return {f"s_{r}_{p}": Sum(f"{r}_{p}") for r in RESOURCE_FIELDS for p in prefixes}


def _amounts(row: dict[str, Any], prefix: str) -> Amounts:
    return Amounts.make(*(row.get(f"s_{r}_{prefix}") or 0 for r in RESOURCE_FIELDS))


def _usage_records(qs: QuerySet[UsageSample], dims: list[str], grouped: bool, bucket: Any) -> list[Record]:
    fields = ["resolution", "tier", *dims]
    by = qs.annotate(b=bucket).values("b", *fields) if grouped else qs.values("start", *fields)
    rows = by.annotate(first=Min("start"), last=Max("start"), **_sums(("request", "billable", "use"))).order_by()
    return [
        Record(
            start=row["first"],
            end=row["last"] + timedelta(seconds=row["resolution"]),
            project=row.get("project__name", ""),
            tier=row["tier"],
            cluster=row.get("cluster", ""),
            workload=row.get("workload", ""),
            team=row.get("project__team", ""),
            cost_center=row.get("project__cost_center", ""),
            request=_amounts(row, "request"),
            billable=_amounts(row, "billable"),
            use=_amounts(row, "use"),
        )
        for row in rows
    ]


def _idle_records(qs: QuerySet[CapacitySample], grouped: bool, bucket: Any) -> list[Record]:
    base = qs.annotate(b=bucket).values("b", "resolution", "tier", "cluster") if grouped else qs.values(
        "start", "resolution", "tier", "cluster"
    )  # fmt: skip
    rows = base.annotate(first=Min("start"), last=Max("start"), **_sums(("idle", "use_idle"))).order_by()
    return [
        Record(
            start=row["first"],
            end=row["last"] + timedelta(seconds=row["resolution"]),
            project=IDLE,
            tier=row["tier"],
            cluster=row["cluster"],
            workload=IDLE,
            team=IDLE,
            cost_center=IDLE,
            request=_amounts(row, "idle"),
            billable=_amounts(row, "use_idle"),
        )
        for row in rows
    ]


def records(window: Window, step: int, aggregate: tuple[str, ...], scope: Scope) -> list[Record]:
    """The samples of ``window`` as cost-model records: summed per bucket and key where they lie inside."""
    inner, edges = _time_filter(window)
    dims = [DIMENSION_FIELDS[d] for d in aggregate if d in DIMENSION_FIELDS]
    usage = UsageSample.objects.all()
    if scope.project_ids is not None:
        usage = usage.filter(project_id__in=scope.project_ids)
    bucket = _bucket(step, window)
    out = _usage_records(usage.filter(inner), dims, True, bucket)
    out += _usage_records(usage.filter(edges), dims, False, bucket)
    if scope.include_idle:
        out += _idle_records(CapacitySample.objects.filter(inner), True, bucket)
        out += _idle_records(CapacitySample.objects.filter(edges), False, bucket)
    return out


def cost_report(window: Window, step: int, aggregate: tuple[str, ...], scope: Scope) -> Report:
    prices = current_prices()
    report = costmodel.allocate(
        records(window, step, aggregate, scope), window, step, aggregate, prices, include_idle=scope.include_idle
    )
    if scope.include_idle:
        report.pools = pool_costs(pool_records(window), window, prices)
    return report


def pool_records(window: Window) -> list[PoolRecord]:
    """Each member pool's capacity and idle (by request, by use) in the window: rows inside summed per pool and
    resolution, rows across an edge alone (split in proportion by ``idlecost.pool_costs``)."""
    inner, edges = _time_filter(window)
    out = []
    for where, grouped in ((inner, True), (edges, False)):
        qs = CapacitySample.objects.filter(where)
        keys = ("resolution", "cluster", "tier") if grouped else ("start", "resolution", "cluster", "tier")
        by = qs.values(*keys)
        rows = by.annotate(first=Min("start"), last=Max("start"), **_sums(("capacity", "idle", "use_idle"))).order_by()
        out += [
            PoolRecord(row["first"], row["last"] + timedelta(seconds=row["resolution"]), row["cluster"], row["tier"],
                       _amounts(row, "capacity"), _amounts(row, "idle"), _amounts(row, "use_idle"))
            for row in rows
        ]  # fmt: skip
    return out


@dataclass(frozen=True)
class CapacityPoint:
    start: datetime
    tier: str
    seconds: int
    capacity: Amounts
    allocated: Amounts
    idle: Amounts


def capacity_history(cluster: str, window: Window) -> list[CapacityPoint]:
    """One member's pools per tier, hour by hour: capacity, allocated and idle resource-seconds and the seconds
    sampled (averages are amount / seconds)."""
    inner, edges = _time_filter(window)
    qs = CapacitySample.objects.filter(Q(cluster=cluster) & (inner | edges))
    rows = qs.annotate(h=TruncHour("start", tzinfo=UTC)).values("h", "tier").annotate(
        secs=Sum("seconds"), **_sums(("capacity", "allocated", "idle"))
    ).order_by("h", "tier")  # fmt: skip
    return [
        CapacityPoint(
            row["h"],
            row["tier"],
            row["secs"] or 0,
            _amounts(row, "capacity"),
            _amounts(row, "allocated"),
            _amounts(row, "idle"),
        )
        for row in rows
    ]
