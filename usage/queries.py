"""What pages and the API ask of chargeback (reads; the one write, the price sheet, is ``usage.services``): a cost
report for one project (its members) or for every project the caller sees (platform admins: all of them and the idle
pool capacity), and a member's capacity history. Parameters are read here, so a page and the API refuse the same input
with the same field errors."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.utils import timezone

from base.errors import FieldError, Invalid, NotFound
from base.permissions import is_platform_admin
from clusters.models import Cluster, FederationRole
from projects.access import require_signed_in, visible_project
from projects.models import Project
from usage import costmodel, reports
from usage.costmodel import RESOURCES, UNIT_SECONDS, Allocation, CostInputError, Report, Window
from usage.idlecost import PoolCost

MAX_WINDOW = timedelta(days=800)
PROJECT_DIMENSIONS = ("tier", "cluster", "workload", "project")
OUTPUT_UNITS = {"cpu": "cpu_core_hours", "memory": "ram_gib_hours", "gpu": "gpu_hours"}
REQUEST_NAMES = {"cpu": "cpu_request_core_hours", "memory": "ram_request_gib_hours", "gpu": "gpu_request_hours"}
COST_NAMES = {"cpu": "cpu_cost", "memory": "ram_cost", "gpu": "gpu_cost"}
USE_NAMES = {"cpu": "cpu_use_core_hours", "memory": "ram_use_gib_hours"}  # GPUs: no use metric (billed as requested)
REQUEST_COST_NAMES = {"cpu": "cpu_request_cost", "memory": "ram_request_cost", "gpu": "gpu_request_cost"}


@dataclass(frozen=True)
class CostQuery:
    window: Window
    step: int
    aggregate: tuple[str, ...]


def parse_query(params: Any, *, allowed: tuple[str, ...], default_aggregate: str, now: datetime | None = None,
                default_window: str = "7d", default_step: str = "1d") -> CostQuery:  # fmt: skip
    """``window``, ``step`` and ``aggregate`` from a query string (``Invalid`` naming the parameter)."""
    try:
        window = costmodel.parse_window(params.get("window", default_window), now or timezone.now())
        if window.end - window.start > MAX_WINDOW:
            raise CostInputError("window", f"A window is at most {MAX_WINDOW.days} days.")
        step = costmodel.parse_step(params.get("step", default_step), window)
        aggregate = costmodel.parse_aggregate(params.get("aggregate", default_aggregate), allowed)
    except CostInputError as exc:
        raise Invalid(fields=[FieldError(exc.parameter, str(exc))]) from None
    except OverflowError:
        raise Invalid(fields=[FieldError("window", "That date is out of range.")]) from None
    return CostQuery(window, step, aggregate)


def project_cost(
    project_name: str, params: Any, *, actor: Any, default_aggregate: str = "tier", **kw: Any
) -> tuple[Project, Report]:
    """One project's cost (its members and platform admins; another tenant's project is ``NotFound``)."""
    require_signed_in(actor)
    project = visible_project(actor, project_name)
    query = parse_query(params, allowed=PROJECT_DIMENSIONS, default_aggregate=default_aggregate, **kw)
    scope = reports.Scope([project.pk], include_idle=False)
    return project, reports.cost_report(query.window, query.step, query.aggregate, scope)


def cost_report(params: Any, *, actor: Any, **kw: Any) -> Report:
    """Every project the caller sees; platform admins see all projects and the idle ``__idle__`` row."""
    require_signed_in(actor)
    admin = is_platform_admin(actor)
    query = parse_query(params, allowed=costmodel.DIMENSIONS, default_aggregate="team" if admin else "project", **kw)
    ids = None if admin else list(Project.objects.visible_to(actor).values_list("pk", flat=True))
    return reports.cost_report(query.window, query.step, query.aggregate, reports.Scope(ids, include_idle=admin))


def member_cluster(name: str) -> Cluster:
    found = Cluster.objects.filter(role=FederationRole.MEMBER, name=name).first() if "\x00" not in name else None
    if found is None:
        raise NotFound("No such member cluster.")
    return found


def capacity(cluster_name: str, params: Any, *, actor: Any, **kw: Any) -> tuple[Window, list[dict[str, Any]]]:
    """A member's pools per tier hour by hour: average capacity, allocated and idle (cores, GiB, GPUs)."""
    require_signed_in(actor)
    cluster = member_cluster(cluster_name)
    query = parse_query(params, allowed=("tier",), default_aggregate="tier", default_window="24h",
                        default_step="1h", **kw)  # fmt: skip
    points = []
    for p in reports.capacity_history(cluster.name, query.window):
        seconds = max(p.seconds, 1)
        entry: dict[str, Any] = {"start": p.start, "tier": p.tier, "sampled_seconds": p.seconds}
        for name, amounts in (("capacity", p.capacity), ("allocated", p.allocated), ("idle", p.idle)):
            for r in RESOURCES:
                entry[f"{name}_{UNIT_NAMES[r]}"] = _round(amounts.of(r) * 3600 / UNIT_SECONDS[r] / seconds, 3)
        points.append(entry)
    return query.window, points


UNIT_NAMES = {"cpu": "cores", "memory": "gib", "gpu": "gpus"}


def _round(value: Fraction, digits: int) -> float:
    return round(float(value), digits)


def allocation_body(a: Allocation) -> dict[str, Any]:
    body: dict[str, Any] = {"name": a.name, "properties": a.properties}
    for r in RESOURCES:
        unit = OUTPUT_UNITS[r]
        body[unit] = _round(a.billable.of(r) / UNIT_SECONDS[r], 6)
        body[REQUEST_NAMES[r]] = _round(a.request.of(r) / UNIT_SECONDS[r], 6)
    for r, name in USE_NAMES.items():
        body[name] = _round(a.use.of(r) / UNIT_SECONDS[r], 6)
    cost, request_cost = a.cost, a.request_cost
    for r in RESOURCES:
        body[COST_NAMES[r]] = _round(cost[r], 6)
    body["total_cost"] = _round(sum(cost.values(), Fraction(0)), 6)
    for r in RESOURCES:
        body[REQUEST_COST_NAMES[r]] = _round(request_cost[r], 6)
    body["total_request_cost"] = _round(a.total_request_cost, 6)
    body["over_request_cost"] = _round(a.total_cost - a.total_request_cost, 6)
    return body


def pool_body(p: PoolCost) -> dict[str, Any]:
    """One member pool's cost over the window, by request and by use (allocated + idle = capacity, each way)."""
    return {
        "cluster": p.cluster, "tier": p.tier, "capacity_cost": _round(p.capacity_cost, 6),
        "allocated_cost_by_request": _round(p.allocated_cost_by_request, 6),
        "idle_cost_by_request": _round(p.idle_cost_by_request, 6),
        "allocated_cost_by_use": _round(p.allocated_cost_by_use, 6),
        "idle_cost_by_use": _round(p.idle_cost_by_use, 6),
    }  # fmt: skip


def by_cost(allocations: dict[str, Allocation]) -> list[Allocation]:
    return sorted(allocations.values(), key=lambda a: (-a.total_cost, a.name))


def report_body(report: Report) -> dict[str, Any]:
    """The API's and the CSV's shape (OpenCost's allocation response, flattened)."""
    return {
        "window": {"start": report.window.start, "end": report.window.end},
        "step_seconds": report.step,
        "aggregate": list(report.aggregate),
        "currency": settings.USAGE_CURRENCY,
        "total_cost": _round(report.total_cost, 6),
        "total_request_cost": _round(report.total_request_cost, 6),
        "totals": [allocation_body(a) for a in by_cost(report.totals())],
        "steps": [
            {
                "start": s.start,
                "end": s.end,
                "total_cost": _round(s.total_cost, 6),
                "total_request_cost": _round(s.total_request_cost, 6),
                "allocations": [allocation_body(a) for a in by_cost(s.allocations)],
            }
            for s in report.steps
        ],
        "pools": [pool_body(p) for p in report.pools],
    }
