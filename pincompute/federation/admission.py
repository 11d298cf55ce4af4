"""Kueue-like admission of a project's workloads against its tier grants.

Per project and tier a workload is admitted when its total requests (and pods) fit the tier's grant
minus what the admitted workloads already hold. Each tier's queue is first come first served, best
effort: workloads are tried oldest first (creation time, then uid), and one that does not fit waits
(``Admitted=False``, reason ``QuotaExceeded``, a message with the numbers) without blocking a later
one that fits; so a waiting workload is only ever passed by one that needs less of some resource.
A resource a workload does not request never stops it (as ``quota.check_fit`` counts).

Admissions of one project must be decided one at a time (the controller serializes them, e.g. one
work-queue key per project), each on the state the previous decision left: ``admit`` keeps the
admitted total within a grant only for the snapshot it is given.

Reclaim: when a tier's grant falls below what its admitted workloads hold, Preemptible workloads lose
their admission newest first: the admitted ones are re-admitted in admission order
(``grants.workloads_beyond``, the queue's own rule), so no workload is reclaimed to keep a newer one.
Reserved and OnDemand workloads are never reclaimed (a grant cannot shrink below their usage); such a
tier admits nothing more of an over-held resource until it fits again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pincompute.grants import ALLOCATION_RESOURCES, Allocation, workloads_beyond
from pincompute.quantity import Resources, format_amount
from pincompute.quota import NO_OVERHEAD, workload_pods, workload_request
from pincompute.runtime.profile import RuntimeProfile
from pincompute.specs import Workload
from pincompute.status import condition_of
from pincompute.tiers import Tier

CONDITION = "Admitted"
ADMITTED = "Admitted"
QUOTA_EXCEEDED = "QuotaExceeded"
RECLAIMED = "Reclaimed"

RECLAIMABLE_TIERS = frozenset({Tier.PREEMPTIBLE})


@dataclass(frozen=True)
class Claim:
    """One workload's claim on its project's grant; ``key`` is unique in the project (``Kind/name``)."""

    key: str
    tier: Tier
    request: Allocation
    created: datetime
    uid: str = ""

    @property
    def order(self) -> tuple[datetime, str, str]:
        """Queue order: first come first served (creation time, then uid, then key: a total order)."""
        return (self.created, self.uid, self.key)


def claim_of(
    workload: Workload,
    created: datetime,
    *,
    profile: RuntimeProfile | None = None,
    node_count: int = 1,
    overhead: Resources = NO_OVERHEAD,
) -> Claim:
    """A workload's claim, counted as the ResourceQuota counts the pods that will exist: the runtime
    profile's containers, native sidecars added, other init containers as a maximum, pod overhead."""
    request = workload_request(workload, profile=profile, node_count=node_count, overhead=overhead)
    pods = workload_pods(workload, node_count=node_count)
    meta = workload.meta
    return Claim(f"{workload.kind}/{meta.name}", meta.tier, Allocation.of(request, pods), created, meta.uid)


@dataclass(frozen=True)
class Shortfall:
    """One resource a claim does not fit: ``requested`` on top of ``held`` goes beyond ``grant``."""

    tier: Tier
    resource: str
    requested: int
    held: int
    grant: int

    @property
    def over_by(self) -> int:
        return self.requested + self.held - self.grant

    @property
    def message(self) -> str:
        def fmt(amount: int) -> str:
            return format_amount(self.resource, amount)

        return (
            f"{self.tier.value} {self.resource}: requested {fmt(self.requested)} + {fmt(self.held)} held by "
            f"admitted workloads exceeds the project's grant of {fmt(self.grant)} by {fmt(self.over_by)}"
        )


@dataclass(frozen=True)
class Verdict:
    """The ``Admitted`` condition of one claim."""

    key: str
    admitted: bool
    reason: str
    message: str
    shortfalls: tuple[Shortfall, ...] = ()

    def condition(self) -> dict[str, Any]:
        """``type``/``status``/``reason``/``message``, for ``status.set_condition``."""
        status = "True" if self.admitted else "False"
        return {"type": CONDITION, "status": status, "reason": self.reason, "message": self.message}


@dataclass(frozen=True)
class AdmissionDecision:
    """What to do now: admit ``admit`` (in order), take admission from ``reclaim`` (newest first), and
    set every claim's ``verdicts``; ``held`` is what the admitted claims hold afterwards, every tier."""

    admit: tuple[Claim, ...]
    wait: tuple[Verdict, ...]
    reclaim: tuple[Claim, ...]
    held: Mapping[Tier, Allocation]
    verdicts: Mapping[str, Verdict] = field(default_factory=dict)


def is_admitted(obj: Mapping[str, Any] | None) -> bool:
    """Whether a host object's ``Admitted`` condition is True (what holds its project's grant)."""
    return condition_of(obj, CONDITION).get("status") == "True"


def held_by(claims: Iterable[Claim]) -> dict[Tier, Allocation]:
    """What ``claims`` hold per tier, every tier present."""
    held = {tier: Allocation() for tier in Tier}
    for claim in claims:
        held[claim.tier] = held[claim.tier] + claim.request
    return held


def shortfalls(tier: Tier, grant: Allocation, held: Allocation, request: Allocation) -> tuple[Shortfall, ...]:
    """Why ``request`` does not fit on top of ``held``: every resource it requests that would go beyond
    ``grant`` (empty: it fits)."""
    asked, have, limit = request.amounts(), held.amounts(), grant.amounts()
    return tuple(
        Shortfall(tier, name, asked[name], have[name], limit[name])
        for name in ALLOCATION_RESOURCES
        if asked[name] > 0 and asked[name] + have[name] > limit[name]
    )


def admit(grants: Mapping[Tier, Allocation], admitted: Sequence[Claim], waiting: Sequence[Claim]) -> AdmissionDecision:
    """One project's admission decision; a tier absent from ``grants`` has a grant of zero.

    ``admitted`` hold their share already; ``waiting`` (any order; a key also in ``admitted`` is
    ignored) are tried oldest first per tier. Pure and deterministic: the same input, the same decision.
    """
    admitted_keys = {claim.key for claim in admitted}
    queue = [claim for claim in waiting if claim.key not in admitted_keys]
    admit_now: list[Claim] = []
    waits: list[Verdict] = []
    reclaim: list[Claim] = []
    held: dict[Tier, Allocation] = {}
    verdicts: dict[str, Verdict] = {}
    for tier in Tier:
        grant = grants.get(tier, Allocation())
        mine = sorted((c for c in admitted if c.tier is tier), key=lambda c: c.order)
        beyond: set[str] = set()
        if tier in RECLAIMABLE_TIERS:
            beyond = set(workloads_beyond(grant, [(c.key, c.request) for c in mine]))
        kept = [c for c in mine if c.key not in beyond]
        taken = [c for c in mine if c.key in beyond]
        total = sum((c.request for c in kept), Allocation())
        for claim in kept:
            verdicts[claim.key] = _admitted(claim, grant)
        reclaim += sorted(taken, key=lambda c: c.order, reverse=True)
        for claim in sorted([*taken, *(c for c in queue if c.tier is tier)], key=lambda c: c.order):
            missing = shortfalls(tier, grant, total, claim.request)
            if not missing:
                total = total + claim.request
                admit_now.append(claim)
                verdicts[claim.key] = _admitted(claim, grant)
                continue
            reason = RECLAIMED if claim.key in beyond else QUOTA_EXCEEDED
            lead = "reclaimed, newest first, to fit" if reason == RECLAIMED else "waiting for"
            message = f"{lead} the {tier.value} grant: " + "; ".join(s.message for s in missing)
            verdict = Verdict(claim.key, False, reason, message, missing)
            verdicts[claim.key] = verdict
            waits.append(verdict)
        held[tier] = total
    reclaimed = tuple(c for c in reclaim if not verdicts[c.key].admitted)
    return AdmissionDecision(tuple(admit_now), tuple(waits), reclaimed, held, verdicts)


def _admitted(claim: Claim, grant: Allocation) -> Verdict:
    message = f"admitted in {claim.tier.value}: holds {claim.request.describe()} of the grant of {grant.describe()}"
    return Verdict(claim.key, True, ADMITTED, message)
