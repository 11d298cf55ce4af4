"""Changing a project's tier grant: at once, by request and approval, or forced down by a platform admin.

- ``change_quota`` (owners, platform admins): a decrease below what the workloads already request is
  refused with the numbers; an increase within the auto-approve limit (``PROJECT_QUOTA_AUTO_APPROVE``;
  platform admins have none) and the region's headroom applies at once; anything else becomes a pending
  QuotaRequest.
- ``approve_request`` / ``reject_request`` (platform admins) decide a pending request; approving checks
  the headroom again and refuses with the numbers when the pools cannot hold it now.
- ``preview_forced_decrease`` / ``force_decrease`` (platform admins) take a grant below usage after a
  preview naming the workloads that would no longer fit; the preview's token must come back.

Every write locks the tier first (``projects.grants``), so concurrent changes never grant more than the
pools hold, and calls ``project_changed`` so the clusters follow.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from base import audit
from base.errors import Conflict, Invalid, NotFound, Unavailable
from notifications.models import Event, Severity
from notifications.services import notify
from pincompute.federation.admission import RECLAIMABLE_TIERS
from pincompute.grants import Allocation, Excess, workloads_beyond
from pincompute.tiers import Tier
from projects import provisioning
from projects.access import ADMIN, lock_project, require_active, require_platform_admin, require_role
from projects.grants import (
    QuotaInput,
    auto_approve_limit,
    grant_of,
    judge,
    lock_tiers,
    open_request,
    parse_quota_input,
    tier_of,
    write_grant,
)
from projects.headroom import project_usage
from projects.models import Project, ProjectState, QuotaRequest, QuotaRequestState


def forced_consequence(tier: Tier) -> str:
    """What the federation does to a tier's workloads that no longer fit a grant forced below them
    (``pincompute.federation.admission``: only ``RECLAIMABLE_TIERS`` lose their admission)."""
    if tier in RECLAIMABLE_TIERS:
        return (
            "The federation reclaims them: it takes their admission, newest first, and removes their shards from the "
            f"member clusters, so their pods stop. They wait in the {tier.value} queue (Admitted=False, reason "
            "Reclaimed) and are admitted again, oldest first, when the grant has room."
        )
    return (
        f"They keep running: the federation never reclaims {tier.value} workloads. Until they fit the grant again, "
        f"the {tier.value} tier admits nothing new that asks for an over-held resource, and a change that grows one "
        "of them waits (ChangePending). Pods created anew for them (a restart, a rollout, a replaced pod) count "
        "against each member's smaller ResourceQuota and may be refused there; the workload then shows "
        "MemberRefused and holds no quota until its spec changes."
    )


REASON_MAX = 2000  # a reason is shown in the queue, on the project page and in the audit log


def _check_reason(reason: str) -> None:
    if len(reason.strip()) > REASON_MAX:
        raise Invalid.on("reason", f"Use at most {REASON_MAX} characters; this has {len(reason.strip())}.")


@dataclass(frozen=True)
class QuotaChange:
    """``applied``: the grant is ``after`` now; otherwise ``request`` waits for a platform admin."""

    applied: bool
    request: QuotaRequest | None
    before: Allocation
    after: Allocation


def _as_tier(tier: Tier | str) -> Tier:
    return tier if isinstance(tier, Tier) else tier_of(tier)


def _usage(project: Project, tier: Tier, current: Allocation, new: Allocation) -> Allocation:
    """What the project's workloads hold in ``tier``, read only when ``new`` decreases something."""
    if all(new.amounts()[r] >= amount for r, amount in current.amounts().items()):
        return Allocation()
    usage = project_usage(project)
    if not usage.complete:
        raise Unavailable(
            "Cannot check a decrease against what the workloads request: " + "; ".join(usage.problems), retry_after=10
        )
    return usage.admitted[tier]


def _refusal(excesses: tuple[Excess, ...], cls: type[Invalid] | type[Conflict], hint: str) -> Invalid | Conflict:
    """One field error per resource (``cpu``...), every reason it gives, with the numbers."""
    by_resource: dict[str, list[str]] = {}
    for excess in excesses:
        by_resource.setdefault(excess.resource, []).append(excess.message)
    return cls.on_fields({name: "; ".join(texts) + hint for name, texts in by_resource.items()})


def change_quota(project: Project, tier: Tier | str, data: QuotaInput, *, actor: Any, reason: str = "") -> QuotaChange:
    """Ask for a new grant in ``tier`` (owners and platform admins).

    Raises ``Invalid`` (bad quantities; a decrease below usage, per resource with the numbers),
    ``NotFound``/``Forbidden``, ``Conflict`` (archived; a request for the tier already pending) and
    ``Unavailable`` (a decrease while a watch cache is not synced)."""
    role = require_role(project, actor)
    tier = _as_tier(tier)
    _check_reason(reason)
    new = parse_quota_input(data)
    limit = None if role == ADMIN else auto_approve_limit()
    with transaction.atomic():
        lock_tiers([tier])
        project = lock_project(project)
        require_active(project)
        current = grant_of(project, tier, lock=True)
        if new == current:
            return QuotaChange(True, None, current, current)
        usage = _usage(project, tier, current, new)
        verdict = judge(tier, current, new, usage=usage, auto_approve=limit)
        if verdict.refused:
            raise _refusal(verdict.below_usage, Invalid, "; stop or shrink workloads first.")
        if verdict.applies_at_once:
            write_grant(project, tier, new, actor=actor, reason=reason)
            provisioning.project_changed(project)
            return QuotaChange(True, None, current, new)
        request = open_request(project, tier, current, new, actor=actor, reason=reason, verdict=verdict)
        return QuotaChange(False, request, current, current)


def pending_requests() -> QuerySet[QuotaRequest]:
    """The approval queue, oldest first (for platform admins; the caller checks the role)."""
    return (
        QuotaRequest.objects.filter(state=QuotaRequestState.PENDING, project__state=ProjectState.ACTIVE)
        .select_related("project", "requested_by")
        .order_by("created_at", "pk")
    )


def _locked_request(request_id: int, actor: Any, what: str) -> tuple[QuotaRequest, Tier]:
    """The pending request, locked after its tier (the caller is in a transaction)."""
    require_platform_admin(actor, what)
    found = QuotaRequest.objects.filter(pk=request_id).values_list("tier", flat=True).first()
    if found is None:
        raise NotFound("No such quota request.")
    tier = Tier.parse(found)
    lock_tiers([tier])
    request = QuotaRequest.objects.select_for_update().select_related("project").get(pk=request_id)
    if request.state != QuotaRequestState.PENDING:
        raise Conflict(f"Quota request #{request.pk} was already {request.get_state_display().lower()}.")
    return request, tier


def _decide(request: QuotaRequest, state: str, *, actor: Any, reason: str) -> None:
    before = request.state
    now = timezone.now()
    request.state, request.decided_by, request.decided_at, request.decision_reason = state, actor, now, reason
    if state == QuotaRequestState.APPLIED:
        request.applied_at = now
    request.save()
    audit.record(
        f"project.quota.{'approve' if state == QuotaRequestState.APPLIED else 'reject'}",
        actor=actor,
        target_kind="QuotaRequest",
        target_name=f"{request.project.name}/{request.tier}#{request.pk}",
        project=request.project.name,
        before={"state": before},
        after={"state": state, "requested": request.requested},
        summary=reason,
    )
    applied = state == QuotaRequestState.APPLIED
    if request.requested_by_id is not None:
        notify(
            Event.QUOTA_DECIDED,
            recipients=[request.requested_by_id],
            project=request.project,
            text=f"Your request #{request.pk} for {Tier.parse(request.tier).value} quota in {request.project.name} "
            f"was {'approved and applied' if applied else 'rejected'}" + (f": {reason}" if reason else "."),
            link=reverse("projects:quota", args=[request.project.name]),
            key=f"quota-request/{request.pk}",
            occurrence=state,
            severity=Severity.INFO if applied else Severity.WARNING,
        )


def approve_request(request_id: int, *, actor: Any, reason: str = "") -> QuotaRequest:
    """Apply a pending request (platform admins). Raises ``Conflict`` with the numbers when the region's
    pools cannot hold it now (or it would go below usage), or when it is no longer pending."""
    require_platform_admin(actor, "approve quota requests")
    _check_reason(reason)
    with transaction.atomic():
        request, tier = _locked_request(request_id, actor, "approve quota requests")
        project = lock_project(request.project)
        require_active(project)
        current = grant_of(project, tier, lock=True)
        new = Allocation.from_json(request.requested)
        verdict = judge(tier, current, new, usage=_usage(project, tier, current, new), auto_approve=None)
        if not verdict.applies_at_once:
            hint = "; grow the pools or reject the request." if verdict.over_headroom else "."
            raise _refusal(verdict.over_headroom + verdict.below_usage, Conflict, hint)
        write_grant(project, tier, new, actor=actor, reason=f"Approved request #{request.pk}: {reason}".strip(": "))
        _decide(request, QuotaRequestState.APPLIED, actor=actor, reason=reason)
        provisioning.project_changed(project)
    return request


def reject_request(request_id: int, *, actor: Any, reason: str) -> QuotaRequest:
    """Refuse a pending request (platform admins); the reason is required and shown to the owners."""
    if not reason.strip():
        require_platform_admin(actor, "reject quota requests")
        raise Invalid.on("reason", "Say why the request is rejected; the project's owners will read it.")
    require_platform_admin(actor, "reject quota requests")
    _check_reason(reason)
    with transaction.atomic():
        request, _ = _locked_request(request_id, actor, "reject quota requests")
        _decide(request, QuotaRequestState.REJECTED, actor=actor, reason=reason.strip())
    return request


@dataclass(frozen=True)
class AffectedWorkload:
    name: str
    kind: str
    tier: Tier
    requests: Allocation


@dataclass(frozen=True)
class ForcedDecreasePreview:
    """What ``force_decrease`` would do; ``token`` must be passed back as ``confirm``."""

    tier: Tier
    current: Allocation
    new: Allocation
    usage: Allocation
    workloads: list[AffectedWorkload]
    consequence: str
    problems: list[str]
    token: str


def preview_forced_decrease(project: Project, tier: Tier | str, data: QuotaInput) -> ForcedDecreasePreview:
    """The project's workloads in ``tier`` that would no longer fit the smaller grant (oldest keep their
    place) and what happens to them. A read: the caller checks the role (platform admins)."""
    tier = _as_tier(tier)
    new = parse_quota_input(data)
    current = grant_of(project, tier)
    raised = [r for r, amount in new.amounts().items() if amount > current.amounts()[r]]
    if raised:
        raise Invalid.on_fields(
            {r: f"A forced change only decreases; use a quota change to raise {r}." for r in raised}
        )
    usage = project_usage(project)
    held = sorted((w for w in usage.holding if w.tier is tier), key=lambda w: (w.created, w.kind, w.name))
    beyond = set(workloads_beyond(new, [(f"{w.kind}/{w.name}", w.request) for w in held]))
    affected = [AffectedWorkload(w.name, w.kind, w.tier, w.request) for w in held if f"{w.kind}/{w.name}" in beyond]
    seen = {
        "project": project.name,
        "tier": tier.label,
        "current": current.to_json(),
        "new": new.to_json(),
        "affected": sorted(f"{w.kind}/{w.name}" for w in affected),
    }
    token = hashlib.sha256(json.dumps(seen, sort_keys=True).encode()).hexdigest()[:20]
    return ForcedDecreasePreview(
        tier, current, new, usage.admitted[tier], affected, forced_consequence(tier), usage.problems, token
    )


def force_decrease(
    project: Project, tier: Tier | str, data: QuotaInput, *, actor: Any, reason: str, confirm: str
) -> ForcedDecreasePreview:
    """Lower a grant even below usage (platform admins), after ``preview_forced_decrease``: ``confirm``
    is the preview's token, so it is never done blind. Raises ``Conflict`` on ``confirm`` when what the
    preview showed has changed since."""
    require_platform_admin(actor, "force a quota decrease")
    errors = {}
    if not reason.strip():
        errors["reason"] = "Say why; the project's owners will read it."
    elif len(reason.strip()) > REASON_MAX:
        errors["reason"] = f"Use at most {REASON_MAX} characters; this has {len(reason.strip())}."
    if not confirm:
        errors["confirm"] = "Preview the decrease first and confirm with the preview's token."
    if errors:
        raise Invalid.on_fields(errors)
    tier = _as_tier(tier)
    with transaction.atomic():
        lock_tiers([tier])
        project = lock_project(project)
        require_active(project)
        preview = preview_forced_decrease(project, tier, data)
        if confirm != preview.token:
            raise Conflict.on("confirm", "What the preview showed has changed; preview again and confirm that.")
        affected = ", ".join(f"{w.kind}/{w.name}" for w in preview.workloads) or "none"
        write_grant(
            project,
            tier,
            preview.new,
            actor=actor,
            action="project.quota.force_decrease",
            reason=f"{reason.strip()} (no longer fitting: {affected})",
        )
        provisioning.project_changed(project)
    return preview
