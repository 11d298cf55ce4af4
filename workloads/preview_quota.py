"""The quota fit of a preview (``workloads.preview``): per tier and resource, what the project's admitted workloads
hold, what waits, what this workload would claim and the grant, and the verdict admission would give now."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from pincompute.federation.admission import claim_of, shortfalls
from pincompute.grants import NO_POD_CAP, Allocation
from pincompute.quantity import format_amount
from pincompute.specs import Workload
from pincompute.tenancy import admission_grant
from pincompute.tiers import Tier
from projects.grants import grants_of
from projects.headroom import project_usage
from projects.models import Project
from workloads import submission

RESOURCES = (("cpu", "CPU", "cores", 1000), ("memory", "Memory", "GiB", 2**30), ("gpu", "GPU", "GPUs", 1))


@dataclass(frozen=True)
class QuotaRow:
    tier: Tier
    resource: str
    label: str
    unit: str
    scale: int
    held: int
    waiting: int
    this: int
    granted: int

    @property
    def over(self) -> bool:
        return self.this > 0 and self.held + self.this > self.granted

    @property
    def uncapped(self) -> bool:
        """A pod grant of 0 means no cap: admission counts it as ``NO_POD_CAP``, not a number to draw or show."""
        return self.resource == "pods" and self.granted >= NO_POD_CAP

    def shown(self, amount: int) -> float:
        return round(amount / self.scale, 2)

    def text(self, amount: int) -> str:
        if self.resource == "pods":
            return "no cap" if amount >= NO_POD_CAP else str(amount)
        return format_amount(self.resource, amount)

    @property
    def texts(self) -> dict[str, str]:
        return {k: self.text(getattr(self, k)) for k in ("held", "waiting", "this", "granted")}


@dataclass(frozen=True)
class QuotaFit:
    tier: Tier
    rows: list[QuotaRow]  # every tier and resource
    verdict: str  # "fits", "waits" or "never"
    messages: list[str]
    waiting_count: int

    def for_tier(self, tier: Tier) -> list[QuotaRow]:
        return [r for r in self.rows if r.tier is tier]


def quota_fit(project: Project, workload: Workload, daemon_nodes: int, *, exclude: tuple[str, str]) -> QuotaFit:
    """Per tier and resource: admitted (held), waiting, this workload and the grant; ``exclude``: the live object
    this one replaces (an edit), counted as this workload instead."""
    grants = {tier: admission_grant(grant) for tier, grant in grants_of(project).items()}  # pods 0: no cap
    usage = project_usage(project)
    held = {tier: Allocation() for tier in Tier}
    waiting = {tier: Allocation() for tier in Tier}
    waiting_count = 0
    for use in usage.workloads:
        if (use.kind, use.name) == exclude:
            continue
        if use.admitted:
            held[use.tier] = held[use.tier] + use.request
        else:
            waiting[use.tier] = waiting[use.tier] + use.request
            waiting_count += use.tier is workload.meta.tier
    nodes = daemon_nodes if workload.kind == "PinterestDaemon" else 1
    claim = claim_of(workload, timezone.now(), profile=submission.profile(), node_count=nodes).request
    tier = workload.meta.tier
    rows = []
    for t in Tier:
        grant, have, wait = grants.get(t, Allocation()).amounts(), held[t].amounts(), waiting[t].amounts()
        this = claim.amounts() if t is tier else dict.fromkeys(grant, 0)
        for key, label, unit, scale in (*RESOURCES, ("pods", "Pods", "pods", 1)):
            rows.append(QuotaRow(t, key, label, unit, scale, have[key], wait[key], this[key], grant[key]))
    grant = grants.get(tier, Allocation())
    never = shortfalls(tier, grant, Allocation(), claim)
    now = shortfalls(tier, grant, held[tier], claim)
    if never:
        verdict, messages = "never", [s.message for s in never]
    elif now:
        verdict, messages = "waits", [s.message for s in now]
    else:
        verdict, messages = "fits", []
    return QuotaFit(tier, rows, verdict, messages, waiting_count)
