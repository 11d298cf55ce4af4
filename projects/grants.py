"""Tier grants in the database: reading what people typed, the region's pools and totals, the per-tier
lock, and the two ways a grant changes (written at once, or a pending request).

Grants in a tier must never exceed what the tier's pools hold. Every change to a grant first locks the
ClusterPool rows the tier grants from (``clusters.capacity.lock_pools``, in primary-key order), then
reads the totals: two changes in one tier are serialized, and a pool edit (which locks its own row)
waits for them or they for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import Sum
from django.urls import reverse

from base import audit
from base.errors import Conflict, Invalid
from clusters import capacity as cluster_capacity
from notifications.models import Event
from notifications.services import notify
from pincompute.grants import Allocation, GrantVerdict, judge_grant_change, region_headroom
from pincompute.quantity import QuantityError, Resources, parse_cpu, parse_gpu, parse_memory
from pincompute.tiers import Tier
from projects.audience import platform_admins
from projects.models import Project, QuotaRequest, QuotaRequestState, TierQuota


@dataclass(frozen=True)
class QuotaInput:
    """A grant as typed in a form or sent as JSON: Kubernetes quantities (``8``, ``500m``, ``32Gi``). The API
    passes a JSON value of another type (``8``) as sent: ``parse_quota_input`` refuses it by field."""

    cpu: str = "0"
    memory: str = "0"
    gpu: str = "0"
    pods: str = "0"

    @classmethod
    def of(cls, grant: Allocation) -> QuotaInput:
        return cls(**grant.formatted())


_COLUMNS = {"cpu": "cpu_milli", "memory": "memory_bytes", "gpu": "gpu", "pods": "pods"}
_EXAMPLES = {"cpu": "8 or 500m", "memory": "32Gi", "gpu": "2", "pods": "50"}
_UNITS = {"cpu": "", "memory": " bytes", "gpu": " GPUs", "pods": " pods"}


def _parse_pods(value: str) -> int:
    try:
        return parse_gpu(value)
    except QuantityError:
        raise QuantityError(f"{value!r} is not a whole number of pods") from None


def _json_type(value: object) -> str:
    """What JSON calls ``value``'s type, for a message (its text may be megabytes)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "array" if isinstance(value, list) else "object" if isinstance(value, dict) else type(value).__name__


QUANTITY_MAX = 64  # characters: far more than any storable grant needs (9223372036854775807 is 19)
_PARSERS = {"cpu": parse_cpu, "memory": parse_memory, "gpu": parse_gpu, "pods": _parse_pods}


def _column_top(field: str) -> int:
    """The largest value of the field's column type on every database (SQLite alone would take 2**63
    GPUs), so the same grant is valid wherever the portal runs."""
    column = TierQuota._meta.get_field(_COLUMNS[field])
    return int(BaseDatabaseOperations.integer_field_ranges[column.get_internal_type()][1])


def parse_quota_input(data: QuotaInput, *, prefix: str = "") -> Allocation:
    """The grant ``data`` asks for; ``Invalid`` names every bad field (``{prefix}cpu``...) at once."""
    errors: dict[str, str] = {}
    values: dict[str, int] = {}
    for field in (f.name for f in fields(QuotaInput)):
        value: object = getattr(data, field)
        path, example = f"{prefix}{field}", _EXAMPLES[field]
        if not isinstance(value, str):
            errors[path] = f"A JSON {_json_type(value)} is not a quantity; send a string, for example {example}."
            continue
        raw = value.strip()
        if not raw:
            errors[path] = f"Give a quantity (0 for none), for example {example}."
            continue
        if len(raw) > QUANTITY_MAX:  # and Python parses no integer of more than 4300 digits
            errors[path] = (
                f"{raw[:12]!r}... is not a quantity: {QUANTITY_MAX} characters at most; for example {example}."
            )
            continue
        if raw.startswith("-"):
            errors[path] = f"{raw!r} is negative; a grant is 0 or more."
            continue
        try:
            amount = _PARSERS[field](raw)
        except QuantityError as exc:
            errors[path] = f"{raw!r} is not a quantity ({exc}); for example {example}."
            continue
        top = _column_top(field)
        if amount > top:
            errors[path] = f"{raw!r} is more than the largest grant, {top}{_UNITS[field]}."
            continue
        values[field] = amount
    if errors:
        raise Invalid.on_fields(errors)
    return Allocation(values["cpu"], values["memory"], values["gpu"], values["pods"])


def auto_approve_limit() -> Allocation:
    """``PROJECT_QUOTA_AUTO_APPROVE``: the largest increase per change that applies without review."""
    configured = QuotaInput(**{k: str(v) for k, v in settings.PROJECT_QUOTA_AUTO_APPROVE.items()})
    try:
        return parse_quota_input(configured)
    except Invalid as exc:
        raise ImproperlyConfigured(f"PROJECT_QUOTA_AUTO_APPROVE: {exc.message}") from exc


def tier_named(label: str) -> Tier | None:
    """The tier whose label is exactly ``label``, as the API's schema enumerates them (``reserved``...): one
    rule for every spelling, so ``Reserved`` is refused like ``RESERVED`` (the spec's ``spec.tier`` spelling
    is ``Tier.parse``'s)."""
    return next((tier for tier in Tier if tier.label == label), None)


def tier_error(label: str) -> str:
    return f"{label!r} is not a tier; use one of {', '.join(t.label for t in Tier)}."


def tier_of(label: str, *, path: str = "tier") -> Tier:
    tier = tier_named(label)
    if tier is None:
        raise Invalid.on(path, tier_error(label))
    return tier


def grant_of(project: Project, tier: Tier, *, lock: bool = False) -> Allocation:
    rows = TierQuota.objects.filter(project=project, tier=tier.label)
    row = (rows.select_for_update() if lock else rows).first()
    return Allocation() if row is None else row.allocation


def grants_of(project: Project) -> dict[Tier, Allocation]:
    found = {Tier.parse(q.tier): q.allocation for q in project.quotas.all()}
    return {tier: found.get(tier, Allocation()) for tier in Tier}


def grants_for(projects: Iterable[Project]) -> dict[int, dict[Tier, Allocation]]:
    """``grants_of`` for many projects in one query (a tier without a row is a zero grant)."""
    ids = [p.pk for p in projects]
    found = {(q.project_id, q.tier): q.allocation for q in TierQuota.objects.filter(project_id__in=ids)}
    return {pk: {tier: found.get((pk, tier.label), Allocation()) for tier in Tier} for pk in ids}


def tier_grant_totals() -> dict[Tier, Resources]:
    """Every project's grants summed per tier (what the region's pools must hold)."""
    totals = {tier: Resources() for tier in Tier}
    rows = TierQuota.objects.values("tier").annotate(cpu=Sum("cpu_milli"), mem=Sum("memory_bytes"), gpu=Sum("gpu"))
    for row in rows:
        totals[Tier.parse(row["tier"])] = Resources(row["cpu"] or 0, row["mem"] or 0, row["gpu"] or 0)
    return totals


def lock_tiers(tiers: Iterable[Tier]) -> None:
    """Serialize grant changes in ``tiers`` with each other and with pool edits (see the module doc)."""
    cluster_capacity.lock_pools(tiers)


def headroom(tier: Tier) -> Resources:
    """What is left to grant in ``tier`` across the region (call after ``lock_tiers`` when writing)."""
    return region_headroom(cluster_capacity.region_pools(), tier_grant_totals(), tier)


def judge(
    tier: Tier, current: Allocation, new: Allocation, *, usage: Allocation, auto_approve: Allocation | None
) -> GrantVerdict:
    return judge_grant_change(tier, current, new, usage=usage, headroom=headroom(tier), auto_approve=auto_approve)


def write_grant(
    project: Project, tier: Tier, new: Allocation, *, actor: Any, action: str = "project.quota.set", reason: str = ""
) -> Allocation:
    """Store ``new`` as the project's grant in ``tier`` with an audit row; returns the grant before.

    The caller holds the tier lock, has judged the change and calls ``project_changed`` afterwards."""
    row, _ = TierQuota.objects.select_for_update().get_or_create(project=project, tier=tier.label)
    before = row.allocation
    if before == new:
        return before
    row.cpu_milli, row.memory_bytes, row.gpu, row.pods = new.cpu_milli, new.memory_bytes, new.gpu, new.pods
    row.save()
    audit.record(
        action,
        actor=actor,
        target_kind="TierQuota",
        target_name=f"{project.name}/{tier.label}",
        project=project.name,
        before=before.to_json(),
        after=new.to_json(),
        summary=reason,
    )
    return before


def open_request(
    project: Project,
    tier: Tier,
    current: Allocation,
    new: Allocation,
    *,
    actor: Any,
    reason: str,
    verdict: GrantVerdict,
) -> QuotaRequest:
    """A pending request for ``new``; one per project and tier at a time (``Conflict`` otherwise)."""
    pending = QuotaRequest.objects.filter(project=project, tier=tier.label, state=QuotaRequestState.PENDING).first()
    if pending is not None:
        raise Conflict.on(
            "tier", f"A request for {tier.value} quota (#{pending.pk}) is already waiting for a platform admin."
        )
    why = "; ".join(e.message for e in (*verdict.over_headroom, *verdict.over_auto_approve))
    request = QuotaRequest.objects.create(
        project=project,
        tier=tier.label,
        previous=current.to_json(),
        requested=new.to_json(),
        reason=reason,
        requested_by=actor if getattr(actor, "is_authenticated", False) else None,
    )
    audit.record(
        "project.quota.request",
        actor=actor,
        target_kind="QuotaRequest",
        target_name=f"{project.name}/{tier.label}#{request.pk}",
        project=project.name,
        before=current.to_json(),
        after=new.to_json(),
        summary=f"Needs approval: {why}" if why else reason,
    )
    notify(
        Event.QUOTA_REQUESTED,
        recipients=platform_admins(),
        project=project,
        text=f"{project.name} asks for more {tier.value} quota (request #{request.pk})" + (f": {why}." if why else "."),
        link=reverse("projects:requests"),
        key=f"quota-request/{request.pk}",
        occurrence="requested",
    )
    return request


def release_grants(project: Project, *, actor: Any, reason: str) -> dict[str, Any]:
    """Set every grant of ``project`` to zero (archiving); returns the grants before, by tier label."""
    before = {}
    for tier, grant in grants_of(project).items():
        if grant != Allocation():
            before[tier.label] = write_grant(project, tier, Allocation(), actor=actor, reason=reason).to_json()
    return before
