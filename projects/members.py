"""Project members: users or OIDC groups (mirrored into Django groups at sign-in) with a role.

Only owners and platform admins manage members. A project always keeps an owner: the last one cannot be
removed or demoted, and two owners removing each other at once leave one (the project row is locked
while the owners are counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.db.models import Q

from accounts.live_access import access_changed
from base import audit
from base.errors import Conflict, Invalid
from projects import provisioning
from projects.access import lock_project, require_active, require_role
from projects.models import Membership, Project, ProjectRole

KINDS = ("user", "group")
MAX_MEMBERS = 250  # users and groups per project (one RoleBinding subject each); large teams are groups


@dataclass(frozen=True)
class MemberInput:
    """``kind`` is ``user`` (a username) or ``group`` (an OIDC group name); ``role`` a ProjectRole."""

    kind: str
    name: str
    role: str = ProjectRole.DEVELOPER


def find_subject(kind: str, name: str, *, member_of: Project | None = None) -> Any:
    """The user or group ``name`` names, or None (also for a name no user or group can have). A deactivated
    user is found only as a member of ``member_of``: their membership can still change or go, but nobody
    adds them anew."""
    name = name.strip()
    if "\x00" in name:  # PostgreSQL refuses it in a query: no such subject
        return None
    if kind == "user":
        usable = Q(is_active=True) if member_of is None else Q(is_active=True) | Q(memberships__project=member_of)
        return get_user_model().objects.filter(usable, username=name).first()
    if kind == "group":
        return Group.objects.filter(name=name).first()
    return None


def member_errors(member: MemberInput, path: str, *, member_of: Project | None = None) -> tuple[dict[str, str], Any]:
    """Field errors of one member (``{path}.kind``, ``.name``, ``.role``) and the subject it names."""
    errors: dict[str, str] = {}
    if member.kind not in KINDS:
        errors[f"{path}.kind"] = f"{member.kind!r} is not a member kind; use user or group."
    if member.role not in ProjectRole.values:
        errors[f"{path}.role"] = f"{member.role!r} is not a role; use one of {', '.join(ProjectRole.values)}."
    subject = None
    if not member.name.strip():
        errors[f"{path}.name"] = f"Give the {member.kind if member.kind in KINDS else 'user or group'}'s name."
    elif member.kind in KINDS:
        subject = find_subject(member.kind, member.name, member_of=member_of)
        if subject is None:
            errors[f"{path}.name"] = f"There is no {member.kind} named {member.name.strip()!r}."
    return errors, subject


def _membership(project: Project, kind: str, subject: Any) -> Membership | None:
    lookup = {"user": subject} if kind == "user" else {"group": subject}
    return Membership.objects.filter(project=project, **lookup).first()


def _users_of(membership: Membership) -> list[int]:
    """The users a membership reaches (its user, or everyone in its group): whose open sockets re-check."""
    if membership.user_id is not None:
        return [membership.user_id]
    return list(membership.group.user_set.values_list("pk", flat=True)) if membership.group_id else []


def _owners_left(project: Project, without: Membership) -> int:
    return Membership.objects.filter(project=project, role=ProjectRole.OWNER).exclude(pk=without.pk).count()


def set_member(project: Project, member: MemberInput, *, actor: Any) -> Membership:
    """Add a user or group with a role, or change its role. Owners and platform admins only.

    Raises ``Invalid`` (unknown user/group, bad role), ``NotFound``/``Forbidden`` (not an owner),
    ``Conflict`` (the last owner demoted, or the project archived)."""
    require_role(project, actor)
    errors, subject = member_errors(member, "member", member_of=project)
    if errors:
        raise Invalid.on_fields({path.removeprefix("member."): text for path, text in errors.items()})
    with transaction.atomic():
        project = lock_project(project)
        require_active(project)
        require_role(project, actor)  # again, under the lock: the actor may just have been removed
        existing = _membership(project, member.kind, subject)
        if existing is None:
            count = Membership.objects.filter(project=project).count()
            if count >= MAX_MEMBERS:
                raise Conflict.on(
                    "name",
                    f"{project.name} has {count} members, the most a project may have; remove one or add a team "
                    "as an OIDC group.",
                )
            before = None
            lookup = {"user": subject} if member.kind == "user" else {"group": subject}
            existing = Membership.objects.create(project=project, role=member.role, **lookup)
        else:
            before = existing.role
            if before == member.role:
                return existing
            if before == ProjectRole.OWNER and _owners_left(project, existing) == 0:
                raise Conflict.on("role", f"{existing.subject} is the last owner of {project.name}; add another first.")
            existing.role = member.role
            existing.save(update_fields=["role"])
        audit.record(
            "project.member.set",
            actor=actor,
            target_kind="Membership",
            target_name=existing.subject,
            project=project.name,
            before=None if before is None else {"role": before},
            after={"role": member.role},
        )
        provisioning.project_changed(project)
        access_changed(_users_of(existing), reason="role changed", project=project.name)
    return existing


def remove_member(project: Project, kind: str, name: str, *, actor: Any) -> None:
    """Take a user or group out of the project; removing a non-member changes nothing.

    Raises ``NotFound``/``Forbidden`` (not an owner) and ``Conflict`` (the last owner, or archived)."""
    require_role(project, actor)
    if kind not in KINDS:
        raise Invalid.on("kind", f"{kind!r} is not a member kind; use user or group.")
    subject = find_subject(kind, name, member_of=project)
    if subject is None:
        return
    with transaction.atomic():
        project = lock_project(project)
        require_active(project)
        require_role(project, actor)
        existing = _membership(project, kind, subject)
        if existing is None:
            return
        if existing.role == ProjectRole.OWNER and _owners_left(project, existing) == 0:
            raise Conflict.on("name", f"{existing.subject} is the last owner of {project.name}; add another first.")
        existing.delete()
        audit.record(
            "project.member.remove",
            actor=actor,
            target_kind="Membership",
            target_name=existing.subject,
            project=project.name,
            before={"role": existing.role},
            after=None,
        )
        provisioning.project_changed(project)
        access_changed(_users_of(existing), reason="removed from the project", project=project.name)


def lookup_subjects(query: str, limit: int = 10) -> list[dict[str, str]]:
    """Users and groups whose name matches ``query``, for the wizard's member picker:
    ``[{kind, name, label}]``, users first. Any signed-in user may look (names are not secrets here)."""
    query = query.replace("\x00", "").strip()
    if not query:
        return []
    users = (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(
            Q(username__icontains=query)
            | Q(email__icontains=query)
            | Q(first_name__icontains=query)
            | Q(last_name__icontains=query)
        )
        .order_by("username")[:limit]
    )
    out = []
    for user in users:
        full = user.get_full_name()
        out.append(
            {
                "kind": "user",
                "name": user.get_username(),
                "label": f"{full} ({user.get_username()})" if full else user.get_username(),
            }
        )
    for group in Group.objects.filter(name__icontains=query).order_by("name")[: max(limit - len(out), 0)]:
        out.append({"kind": "group", "name": group.name, "label": f"group {group.name}"})
    return out
