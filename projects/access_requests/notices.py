"""Access requests and grants, told to the people they concern (``notifications.notify``), from the signals the
access services send after commit (``signals``): a request to its approvers (the project's owners; platform admins
for exec into platform sidecars), a decision to the requester (or a direct grant to its user), a grant about to end
and an ended one to its user."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import timezone

from notifications.models import Event, Severity
from notifications.services import notify
from projects.access_requests import signals
from projects.access_requests.models import SIDECAR_EXEC, AccessGrant, AccessRequest
from projects.audience import members_of, platform_admins


def _link(project: Any) -> str:
    return reverse("projects:access", args=[project.name])


def requested(sender: Any, request: AccessRequest, **_: Any) -> None:
    approvers = platform_admins() if request.access == SIDECAR_EXEC else members_of(request.project, ("owner",))
    hours = request.duration_seconds / 3600
    text = (f"{request.requested_by.get_username()} asks for {request.access} in {request.project.name} for "
            f"{hours:g} h: {request.reason}")  # fmt: skip
    notify(Event.ACCESS_REQUESTED, recipients=approvers, text=text, link=_link(request.project),
           key=f"access-request/{request.pk}", occurrence="made", project=request.project)  # fmt: skip


def decided(sender: Any, request: AccessRequest | None, grant: AccessGrant | None, approved: bool, **_: Any) -> None:
    who = request.requested_by if request is not None else grant.user if grant is not None else None
    project = request.project if request is not None else grant.project if grant is not None else None
    if who is None or project is None:
        return
    if approved and grant is not None:
        text = f"You have {grant.access} in {project.name} until {timezone.localtime(grant.ends_at):%Y-%m-%d %H:%M}."
    else:
        why = f": {request.decision_reason}" if request is not None and request.decision_reason else "."
        text = f"Your request for {request.access if request else 'access'} in {project.name} was denied{why}"
    key = f"access-request/{request.pk}" if request is not None else f"access-grant/{grant.pk if grant else 0}"
    notify(Event.ACCESS_DECIDED, recipients=[who], text=text, link=_link(project), key=key,
           occurrence="approved" if approved else "denied", project=project,
           severity=Severity.INFO if approved else Severity.WARNING)  # fmt: skip


def expiring(sender: Any, grant: AccessGrant, **_: Any) -> None:
    text = (f"Your {grant.access} in {grant.project.name} ends at "
            f"{timezone.localtime(grant.ends_at):%H:%M}; ask again to keep it.")  # fmt: skip
    notify(Event.ACCESS_EXPIRING, recipients=[grant.user], text=text, link=_link(grant.project),
           key=f"access-grant/{grant.pk}", occurrence="expiring", project=grant.project,
           severity=Severity.WARNING)  # fmt: skip


def expired(sender: Any, grant: AccessGrant, reason: str, **_: Any) -> None:
    how = "was revoked" if reason == "revoked" else "has ended"
    text = f"Your {grant.access} in {grant.project.name} {how}; its open shells and streams are closed."
    notify(Event.ACCESS_EXPIRED, recipients=[grant.user], text=text, link=_link(grant.project),
           key=f"access-grant/{grant.pk}", occurrence=reason, project=grant.project)  # fmt: skip


def connect() -> None:
    signals.access_requested.connect(requested, dispatch_uid="notices.access_requested")
    signals.access_decided.connect(decided, dispatch_uid="notices.access_decided")
    signals.access_expiring.connect(expiring, dispatch_uid="notices.access_expiring")
    signals.access_expired.connect(expired, dispatch_uid="notices.access_expired")
