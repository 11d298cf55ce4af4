"""Causes from admission: a workload waiting for its project's grant (who holds it, its place in the queue), one not
decided yet, and an admitted workload whose change waits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pincompute.conditions import condition_of
from pincompute.diagnosis.model import Diagnosis, Evidence, State, Target
from pincompute.diagnosis.text import clause, names, ordinal, sentence
from pincompute.federation.admission import (
    CHANGE_PENDING,
    CONDITION,
    QUOTA_EXCEEDED,
    RECLAIMED,
    is_admitted,
    recorded_admission,
    shortfalls,
)
from pincompute.grants import Allocation
from pincompute.kinds import KINDS
from pincompute.quantity import format_amount
from pincompute.tiers import Tier

Obj = Mapping[str, Any]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def tier_of(obj: Obj) -> Tier | None:
    """The tier the spec asks (the kind's default when it names none), None when unknown."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    try:
        if (spec or {}).get("tier"):
            return Tier(str((spec or {})["tier"]))
        info = KINDS.get(str(obj.get("kind")))
        return info.default_tier if info is not None else None
    except ValueError:
        return None


def _name(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def _order(obj: Obj) -> tuple[datetime, str, str]:
    meta = obj.get("metadata") or {}
    try:
        created = datetime.fromisoformat(str(meta.get("creationTimestamp") or "").replace("Z", "+00:00"))
    except ValueError:
        created = _EPOCH
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    return (created, str(meta.get("uid") or ""), f"{obj.get('kind')}/{_name(obj)}")


def _holders(neighbours: Sequence[Obj], tier: Tier, resource: str) -> tuple[int, list[str]]:
    """What the admitted neighbours hold of ``resource`` in ``tier`` and their names, the largest first."""
    held: list[tuple[int, str]] = []
    for obj in neighbours:
        record = recorded_admission(obj) if is_admitted(obj) else None
        if record is None or record.tier is not tier:
            continue
        amount = record.request.amounts()[resource]
        if amount > 0:
            held.append((amount, _name(obj)))
    held.sort(key=lambda item: (-item[0], item[1]))
    return sum(a for a, _ in held), [n for _, n in held]


def _queue_place(evidence: Evidence, tier: Tier) -> int:
    """This workload's place among its project's workloads of ``tier`` waiting for admission (1: the first)."""
    me = _order(evidence.workload)
    waiting = [o for o in evidence.neighbours if not is_admitted(o) and tier_of(o) is tier and _order(o) < me]
    return len(waiting) + 1


def _blocking(evidence: Evidence, tier: Tier, asks: Allocation, held_by: Sequence[Obj]) -> str:
    """``OnDemand cpu 12 of 12 used by a, b`` for each resource ``asks`` does not fit, or "" when it all fits."""
    grant = evidence.grants.get(tier, Allocation())
    parts = []
    total = Allocation()
    for obj in held_by:
        record = recorded_admission(obj) if is_admitted(obj) else None
        if record is not None and record.tier is tier:
            total = total + record.request
    for short in shortfalls(tier, grant, total, asks):
        held, who = _holders(held_by, tier, short.resource)

        def fmt(amount: int, resource: str = short.resource) -> str:
            return format_amount(resource, amount)

        users = f" used by {names(who)}" if who else " used"
        parts.append(
            f"{tier.value} {short.resource} {fmt(held)} of {fmt(short.grant)}{users}, "
            f"this workload asks {fmt(short.requested)}"
        )
    return "; ".join(parts)


def admission_cause(evidence: Evidence) -> Diagnosis | None:
    """Not admitted: waiting for quota (or reclaimed), or not decided yet."""
    obj = evidence.workload
    if is_admitted(obj):
        return None
    admitted = condition_of(obj, CONDITION)
    tier = tier_of(obj)
    reason = str(admitted.get("reason") or "")
    if admitted and reason not in (QUOTA_EXCEEDED, RECLAIMED):
        return Diagnosis(
            State.WAITING_FOR_ADMISSION,
            sentence(f"Not admitted ({reason or 'no reason'}): {clause(admitted.get('message') or 'no message')}"),
            "Read the workload's timeline for what admission said, and fix what it names.",
            Target.TIMELINE,
        )
    if not admitted or tier is None:
        return Diagnosis(
            State.WAITING_FOR_ADMISSION,
            "Waiting for the federation's admission: no verdict on this workload yet.",
            "Nothing to do yet: admission decides within seconds; if it does not, the platform's operator is down.",
            Target.TIMELINE,
        )
    blocking = _blocking(evidence, tier, evidence.asks, evidence.neighbours) if evidence.asks is not None else ""
    place = _queue_place(evidence, tier)
    lead = "Reclaimed for quota" if reason == RECLAIMED else "Waiting for quota"
    if blocking:
        cause = f"{lead}: {blocking} ({ordinal(place)} in the {tier.value} queue)"
    else:
        cause = f"{lead}: {clause(admitted.get('message') or reason)} ({ordinal(place)} in the {tier.value} queue)"
    return Diagnosis(
        State.WAITING_FOR_QUOTA,
        sentence(cause),
        f"Free room in the project's {tier.value} grant (stop or scale down what holds it) or ask the project's "
        f"owner to raise the {tier.value} quota; it starts by itself once it fits.",
        Target.QUOTA,
    )


def change_cause(evidence: Evidence) -> Diagnosis | None:
    """Admitted, but a newer spec waits for quota: the admitted one keeps running."""
    pending = condition_of(evidence.workload, CHANGE_PENDING)
    if pending.get("status") != "True":
        return None
    tier = tier_of(evidence.workload)
    others = [o for o in evidence.neighbours if _name(o) != _name(evidence.workload)]
    blocking = ""
    if tier is not None and evidence.asks is not None:
        blocking = _blocking(evidence, tier, evidence.asks, others)
    said = blocking or clause(pending.get("message") or pending.get("reason") or "it does not fit the grant")
    return Diagnosis(
        State.CHANGE_WAITS,
        sentence(f"The latest change waits for quota, the admitted spec keeps running: {said}"),
        "Free room in the grant or ask for more quota, or roll back the change to the admitted revision.",
        Target.QUOTA,
    )
