"""The dashboard's read model: what needs the signed-in user's attention, built from the read functions the other
pages use (``workloads.reads.list_workloads``, ``projects.headroom.project_usage``, ``projects.grants.grants_for``,
``projects.quota.pending_requests``, ``clusters.health.health_of``): nothing here queries on its own what those
pages already compute. Reads only (the registry, the watch caches, the audit log)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from base.models import AuditEvent
from base.permissions import is_platform_admin
from clusters import runtime
from clusters.health import Health, health_of
from clusters.models import Cluster
from pincompute.grants import Allocation
from pincompute.quantity import format_amount
from pincompute.tiers import Tier
from projects.grants import grants_for
from projects.headroom import project_usage
from projects.models import Project, QuotaRequest, QuotaRequestState
from projects.quota import pending_requests
from workloads.reads import Row, list_workloads

ATTENTION = ("invalid", "unschedulable", "degraded", "waiting")
"""Workload statuses that need someone: refused or broken first, then waiting (``workloads.reads.STATUSES``)."""
SHOWN = 8  # rows per panel; the panel links to the full page for the rest
USE_RESOURCES = ("cpu", "memory", "gpu")


@dataclass(frozen=True)
class Attention:
    """The user's workloads that are not fine, worst first, and why the list may be incomplete."""

    rows: list[Row]
    total: int
    problems: list[str]


def workloads_needing_attention(projects: Sequence[Project]) -> Attention:
    listing = list_workloads(projects)
    rows = sorted((r for r in listing.rows if r.status in ATTENTION), key=lambda r: ATTENTION.index(r.status))
    return Attention(rows[:SHOWN], len(rows), listing.problems)


@dataclass(frozen=True)
class Use:
    """One resource of one tier of one project: what its admitted workloads hold against its grant."""

    resource: str
    used: int
    granted: int

    @property
    def text(self) -> str:
        return f"{format_amount(self.resource, self.used)} / {format_amount(self.resource, self.granted)}"

    @property
    def percent(self) -> int:
        """Of the grant, capped at 100 for the bar (an over-use reads from ``text``)."""
        if self.granted <= 0:
            return 100 if self.used else 0
        return min(100, round(100 * self.used / self.granted))


@dataclass(frozen=True)
class TierUse:
    project: str
    tier: Tier
    uses: list[Use]
    waiting: int  # the project's workloads of this tier not admitted yet


def quota_use(projects: Sequence[Project]) -> tuple[list[TierUse], list[str]]:
    """Per project and tier with a grant or a use: used (admitted, as federation admission counts it) against
    granted, per resource; and why usage may be incomplete (a cache not synced)."""
    grants = grants_for(projects)
    out, problems = [], []
    for project in projects:
        usage = project_usage(project)
        problems += [p for p in usage.problems if p not in problems]
        for tier in Tier:
            grant = grants.get(project.pk, {}).get(tier, Allocation())
            used = usage.admitted[tier]
            waiting = sum(1 for w in usage.waiting if w.tier is tier)
            if grant == Allocation() and used == Allocation() and not waiting:
                continue
            g, u = grant.amounts(), used.amounts()
            uses = [Use(name, u[name], g[name]) for name in USE_RESOURCES]
            out.append(TierUse(project.name, tier, uses, waiting))
    return out, problems


def use_chart(rows: Sequence[TierUse]) -> dict[str, Any]:
    """CPU used against granted per project and tier, as the registry's chart draws capacity against requests
    (colours from the tier palette in app.css: ``tier`` and ``alpha``)."""
    labels = [f"{r.project} · {r.tier.value}" for r in rows]

    def cores(amounts: list[int]) -> list[float]:
        return [round(a / 1000, 2) for a in amounts]

    cpu = [next(u for u in r.uses if u.resource == "cpu") for r in rows]
    tiers = [r.tier.label for r in rows]
    return {
        "type": "bar",
        "data": {
            "labels": labels,
            "datasets": [
                {"label": "Granted", "data": cores([c.granted for c in cpu]), "tiers": tiers, "alpha": 0.3},
                {"label": "Used", "data": cores([c.used for c in cpu]), "tiers": tiers, "alpha": 0.9},
            ],
        },
        "options": {
            "unit": "cores",
            "plugins": {"title": {"display": True, "text": "CPU used (admitted) against granted, per tier"}},
        },
    }


@dataclass(frozen=True)
class Requests:
    """Quota requests: those the user decides (platform admins: the queue), and the user's own still open."""

    to_decide: list[QuotaRequest]
    to_decide_total: int
    mine: list[QuotaRequest]


def requests_for(user: Any) -> Requests:
    to_decide: list[QuotaRequest] = []
    total = 0
    if is_platform_admin(user):
        queue = pending_requests()
        total = queue.count()
        to_decide = list(queue[:SHOWN])
    mine = QuotaRequest.objects.filter(requested_by=user, state=QuotaRequestState.PENDING).select_related("project")
    return Requests(to_decide, total, list(mine.order_by("-created_at")[:SHOWN]))


def recent_activity(user: Any, projects: Sequence[Project]) -> QuerySet[AuditEvent]:
    """The newest audit rows of the user's projects (platform admins: everything)."""
    events = AuditEvent.objects.all()
    if not is_platform_admin(user):
        events = events.filter(project_name__in=[p.name for p in projects])
    return events[:10]


@dataclass(frozen=True)
class ClusterAttention:
    cluster: Cluster
    health: Health
    why: list[str]


def clusters_needing_attention() -> list[ClusterAttention]:
    """Members that are unreachable, whose watch cache is not synced or stale, or whose MemberCluster the host does
    not hold as the registry says (for platform admins)."""
    caches = runtime.member_caches()
    out = []
    for cluster in Cluster.objects.members():
        health = health_of(cluster)
        why = []
        if health.state == "unreachable":
            why.append(f"unreachable{': ' + health.error if health.error else ''}")
        cache = caches.get(cluster.name)
        if cache is not None and not cache.synced:
            why.append("its watch cache is not synced")
        elif health.stale_seconds:
            why.append(f"its watch cache has heard nothing for {health.stale_seconds:.0f} s")
        if cluster.host_sync_error:
            why.append(f"not on the host as saved: {cluster.host_sync_error}")
        if not cluster.schedulable:
            why.append("closed to scheduling")
        if why:
            out.append(ClusterAttention(cluster, health, why))
    return out
