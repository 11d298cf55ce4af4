"""The writes of time-limited access, each ``verb_noun(target, *, actor)``: authorized first, then validated,
atomic, audited through ``base.audit.record``; the clusters' RoleBindings follow (``provisioning.project_changed``),
open sockets re-check (``accounts.live_access``) and the signals go out after commit.

Who may do what: any member asks for a higher role in their project, a developer or owner for exec into its
platform sidecars; the project's owners (and platform admins) decide role requests and grant roles directly;
only platform admins decide or grant sidecar exec. Owners, admins and the grant's holder end a grant early.
A project the actor cannot see is ``NotFound``, whatever they ask.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts.live_access import access_changed
from base import audit
from base.errors import Conflict, Forbidden, Invalid, NotFound
from base.permissions import is_platform_admin
from pincompute.policy import sidecar_exec_refusal
from projects import provisioning
from projects.access import ADMIN, OWNER_ROLES, require_active, require_platform_admin, require_role
from projects.access_requests.checks import access_errors
from projects.access_requests.models import (
    ROLE_ACCESS,
    Access,
    AccessGrant,
    AccessRequest,
    GrantEnd,
    RequestState,
)
from projects.access_requests.signals import access_decided, access_expired, access_requested, send_on_commit
from projects.models import ROLE_RANK, Membership, Project, ProjectRole, memberships_of
from projects.policy import policy_of

ALL_ROLES = tuple(ProjectRole.values)
EXEC_ROLES = (ProjectRole.OWNER, ProjectRole.DEVELOPER)


def _member_role(project: Project, user: Any) -> str | None:
    """The highest role ``user``'s memberships (not their time-limited grants) give in ``project``."""
    roles = Membership.objects.filter(memberships_of(user), project=project).values_list("role", flat=True)
    return max(roles, key=lambda r: ROLE_RANK.get(r, 0), default=None)


def _already_holds(project: Project, user: Any, access: str) -> str:
    """Why ``user`` needs no grant of ``access`` (a sentence), or ""."""
    if is_platform_admin(user):
        return f"{user.get_username()} is a platform admin and already has every access."
    role = _member_role(project, user)
    if access in ROLE_ACCESS and role is not None and ROLE_RANK[role] >= ROLE_RANK[access]:
        return f"{user.get_username()} is already a {role} of {project.name}."
    return ""


def _refused_by_policy(project: Project, access: Any, field: str) -> None:
    """A sidecar-exec request or grant under a policy that forbids it: it would open nothing (``debugging.authz``
    refuses the shell), so it is refused when asked, naming the rule."""
    why = sidecar_exec_refusal(policy_of(project), project.name) if access == Access.SIDECAR_EXEC else ""
    if why:
        raise Invalid.on(field, f"A grant would open nothing: {why}.")


def authorize_decision(project: Project, access: Any, actor: Any) -> None:
    """Owners (and platform admins) decide roles; platform admins alone decide sidecar exec."""
    if access == Access.SIDECAR_EXEC:
        require_role(project, actor, ALL_ROLES)  # another tenant's project stays a 404
        require_platform_admin(actor, "decide on exec into platform sidecars")
    else:
        require_role(project, actor, OWNER_ROLES)


def request_access(project: Project, *, access: Any, duration_seconds: Any, reason: Any, actor: Any) -> AccessRequest:
    """Ask for ``access`` in ``project`` for ``duration_seconds``. Raises ``NotFound`` (not a member), ``Invalid``
    (each field named), ``Forbidden`` (sidecar exec without a shell), ``Conflict`` (held already, or asked already)."""
    role = require_role(project, actor, ALL_ROLES)
    errors = access_errors(access, duration_seconds, reason)
    if errors:
        raise Invalid.on_fields(errors)
    _refused_by_policy(project, access, "access")
    if access == Access.SIDECAR_EXEC and role not in (ADMIN, *EXEC_ROLES):
        raise Forbidden("A shell in a platform sidecar needs a shell in the project: ask for developer first.")
    held = _already_holds(project, actor, access)
    if held:
        raise Conflict.on("access", held)
    with transaction.atomic():
        require_active(project)
        mine = AccessRequest.objects.select_for_update().filter(project=project, requested_by=actor, access=access)
        if mine.filter(state=RequestState.PENDING).exists():
            raise Conflict.on("access", f"You already asked for {access} in {project.name}; it waits for a decision.")
        row = AccessRequest.objects.create(
            project=project, requested_by=actor, access=access, duration_seconds=duration_seconds, reason=reason
        )
        audit.record(
            "project.access.request",
            actor=actor,
            target_kind="AccessRequest",
            target_name=f"{actor.get_username()}:{access}",
            project=project.name,
            after={"access": access, "duration_seconds": duration_seconds, "reason": reason},
        )
        send_on_commit(access_requested, AccessRequest, request=row)
    return row


def _decide(row: AccessRequest, *, approve: bool, reason: str, actor: Any) -> AccessRequest:
    authorize_decision(row.project, row.access, actor)
    if "\x00" in reason or len(reason) > 1000:
        raise Invalid.on("reason", "Keep the decision's reason under 1000 characters, without NUL.")
    if approve:
        _refused_by_policy(row.project, row.access, "access")  # the policy may have changed since it was asked
    with transaction.atomic():
        locked = AccessRequest.objects.select_for_update().select_related("project", "requested_by").get(pk=row.pk)
        if locked.state != RequestState.PENDING:
            raise Conflict(f"This request was {locked.state} already.")
        if approve:
            require_active(locked.project)
        locked.state = RequestState.APPROVED if approve else RequestState.DENIED
        locked.decided_by, locked.decided_at, locked.decision_reason = actor, timezone.now(), reason
        locked.save(update_fields=["state", "decided_by", "decided_at", "decision_reason"])
        grant = None
        if approve:
            grant = _make_grant(
                locked.project,
                locked.requested_by,
                locked.access,
                locked.duration_seconds,
                locked.reason,
                actor,
                locked,
            )
        audit.record(
            f"project.access.{'approve' if approve else 'deny'}",
            actor=actor,
            target_kind="AccessRequest",
            target_name=f"{locked.requested_by.get_username()}:{locked.access}",
            project=locked.project.name,
            before={"state": RequestState.PENDING},
            after={"state": locked.state, "reason": reason, **({"ends_at": grant.ends_at} if grant else {})},
        )
        send_on_commit(access_decided, AccessRequest, request=locked, grant=grant, approved=approve)
    return locked


def approve_access_request(row: AccessRequest, *, actor: Any, reason: str = "") -> AccessRequest:
    """Grant what ``row`` asks, from now for its duration. Owners (platform admins for sidecar exec)."""
    return _decide(row, approve=True, reason=reason, actor=actor)


def deny_access_request(row: AccessRequest, *, actor: Any, reason: str = "") -> AccessRequest:
    return _decide(row, approve=False, reason=reason, actor=actor)


def _make_grant(
    project: Project,
    user: Any,
    access: str,
    seconds: int,
    reason: str,
    actor: Any,
    request: AccessRequest | None = None,
) -> AccessGrant:
    now = timezone.now()
    grant = AccessGrant.objects.create(
        project=project,
        user=user,
        access=access,
        reason=reason,
        request=request,
        granted_by=actor,
        starts_at=now,
        ends_at=now + timedelta(seconds=seconds),
    )
    if access in ROLE_ACCESS:
        provisioning.project_changed(project)  # the RoleBindings name the user until the grant ends
    return grant


def authorize_grant(project: Project, access: Any, actor: Any) -> None:
    authorize_decision(project, access if access == Access.SIDECAR_EXEC else ProjectRole.OWNER, actor)


def grant_access(
    project: Project, *, username: Any, access: Any, duration_seconds: Any, reason: Any, actor: Any
) -> AccessGrant:
    """An owner's direct time-limited grant to ``username`` (sidecar exec: platform admins only)."""
    authorize_grant(project, access, actor)
    errors = access_errors(access, duration_seconds, reason)
    user = None
    if not isinstance(username, str) or not username.strip() or "\x00" in username:
        errors["user"] = "Give the username to grant the access to."
    else:
        user = get_user_model().objects.filter(username=username.strip(), is_active=True).first()
        if user is None:
            errors["user"] = f"There is no active user named {username.strip()!r}."
    if errors:
        raise Invalid.on_fields(errors)
    _refused_by_policy(project, access, "access")
    held = _already_holds(project, user, access)
    if held:
        raise Conflict.on("user", held)
    with transaction.atomic():
        require_active(project)
        grant = _make_grant(project, user, access, duration_seconds, reason, actor)
        audit.record(
            "project.access.grant",
            actor=actor,
            target_kind="AccessGrant",
            target_name=f"{grant.user.get_username()}:{access}",
            project=project.name,
            after={"access": access, "ends_at": grant.ends_at, "reason": reason},
        )
        send_on_commit(access_decided, AccessRequest, request=None, grant=grant, approved=True)
    return grant


def end_grant(grant: AccessGrant, *, end: str, actor: Any) -> None:
    """Inside a transaction, with ``grant`` locked: close it, audited; the clusters and open sockets follow."""
    now = timezone.now()
    before = {"ends_at": grant.ends_at}
    grant.ends_at = min(grant.ends_at, now)
    grant.closed_at, grant.end, grant.ended_by = now, end, actor if end == GrantEnd.REVOKED else None
    grant.save(update_fields=["ends_at", "closed_at", "end", "ended_by"])
    audit.record(
        f"project.access.{'revoke' if end == GrantEnd.REVOKED else 'expire'}",
        actor=actor,
        target_kind="AccessGrant",
        target_name=f"{grant.user.get_username()}:{grant.access}",
        project=grant.project.name,
        before=before,
        after={"ends_at": grant.ends_at, "end": end},
    )
    if grant.access in ROLE_ACCESS:
        provisioning.project_changed(grant.project)
    access_changed([grant.user_id], reason=f"time-limited {grant.access} access {end}", project=grant.project.name)
    send_on_commit(access_expired, AccessGrant, grant=grant, reason=end)


def revoke_access_grant(grant: AccessGrant, *, actor: Any) -> None:
    """End a live grant now. The project's owners, platform admins, and the grant's holder."""
    if grant.user_id != getattr(actor, "pk", None):
        require_role(grant.project, actor, OWNER_ROLES)
    with transaction.atomic():
        locked = AccessGrant.objects.select_for_update().select_related("project", "user").filter(pk=grant.pk).first()
        if locked is None:
            raise NotFound("No such grant.")
        if locked.closed_at is not None or locked.ends_at <= timezone.now():
            raise Conflict(f"This grant has ended already ({locked.end or GrantEnd.EXPIRED}).")
        end_grant(locked, end=GrantEnd.REVOKED, actor=actor)
