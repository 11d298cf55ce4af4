"""Who may change what in a project: the checks every project service makes before it writes.

Another tenant's project is ``NotFound`` (its existence is not disclosed); a member whose role is too
low gets ``Forbidden``; platform admins may do everything an owner may.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Case, OuterRef, Q, Subquery, Value, When

from base.errors import Conflict, Forbidden, NotFound, Unauthenticated
from base.permissions import is_platform_admin
from projects.models import ROLE_RANK, AccessGrant, Membership, Project, ProjectRole, live_roles_of, memberships_of

ADMIN = "admin"
OWNER_ROLES = (ProjectRole.OWNER,)


def require_signed_in(actor: Any) -> None:
    if not getattr(actor, "is_authenticated", False):
        raise Unauthenticated("Sign in first.")


def require_role(project: Project, actor: Any, roles: tuple[str, ...] = OWNER_ROLES) -> str:
    """The actor's effective role (``"admin"`` for platform admins); refuses non-members and lower roles."""
    require_signed_in(actor)
    if is_platform_admin(actor):
        return ADMIN
    role = project.role_of(actor)
    if role is None:
        raise NotFound("No such project.")
    if role not in roles:
        allowed = " or ".join(f"{r}s" for r in roles)
        raise Forbidden(f"Only {allowed} of {project.name} may do this; you are a {role}.")
    return role


def visible_project(actor: Any, name: str) -> Project:
    """The project named ``name`` if ``actor`` may see it; ``NotFound`` otherwise (another tenant's, or a
    name no project can have, such as one holding a NUL that PostgreSQL refuses in a query)."""
    found = None if "\x00" in name else Project.objects.visible_to(actor).filter(name=name).first()
    if found is None:
        raise NotFound("No such project.")
    return found


def visible_project_role(actor: Any, name: str) -> tuple[Project, str]:
    """``visible_project`` and the actor's role in it (``roles_of``: ``admin`` for platform admins), in one query:
    the memberships and live time-limited grants that make the project visible are the ones that give the role."""
    if is_platform_admin(actor):
        return visible_project(actor, name), ADMIN
    found = None
    if getattr(actor, "is_authenticated", False) and "\x00" not in name:
        member = Membership.objects.filter(memberships_of(actor), project=OuterRef("pk"))
        granted = AccessGrant.objects.filter(live_roles_of(actor), project=OuterRef("pk"))
        found = (
            Project.objects.filter(name=name)
            .annotate(
                member_role=Subquery(member.order_by(_ranked("role").desc()).values("role")[:1]),
                granted_role=Subquery(granted.order_by(_ranked("access").desc()).values("access")[:1]),
            )
            .filter(Q(member_role__isnull=False) | Q(granted_role__isnull=False))
            .first()
        )
    if found is None:
        raise NotFound("No such project.")
    roles = [r for r in (found.member_role, found.granted_role) if r]
    return found, max(roles, key=lambda r: ROLE_RANK.get(r, 0))


def _ranked(field: str) -> Case:
    """``field`` (a role) as its rank, to order by."""
    return Case(*(When(**{field: role}, then=Value(rank)) for role, rank in ROLE_RANK.items()), default=Value(0))


def require_platform_admin(actor: Any, what: str) -> None:
    require_signed_in(actor)
    if not is_platform_admin(actor):
        raise Forbidden(f"Only platform admins may {what}.")


def require_active(project: Project) -> None:
    if not project.is_active:
        raise Conflict(f"{project.name} is archived; nothing in it can change.")


def lock_project(project: Project) -> Project:
    """The project row, locked until the transaction ends (serializes member and lifecycle changes)."""
    locked = Project.objects.select_for_update().filter(pk=project.pk).first()
    if locked is None:
        raise NotFound("No such project.")
    return locked


def roles_of(user: Any, projects: list[Project]) -> dict[int, str]:
    """``Project.role_of`` for many projects in one query: the highest of the user's own, their groups' and their
    live time-limited roles per project (``admin`` for platform admins; projects without a membership are left out)."""
    if is_platform_admin(user):
        return {p.pk: ADMIN for p in projects}
    members = Membership.objects.filter(memberships_of(user), project__in=projects).order_by()
    granted = AccessGrant.objects.filter(live_roles_of(user), project__in=projects).order_by()
    rows = members.values_list("project_id", "role").union(granted.values_list("project_id", "access"), all=True)
    best: dict[int, str] = {}
    for project_id, role in rows:
        if ROLE_RANK.get(role, 0) > ROLE_RANK.get(best.get(project_id, ""), 0):
            best[project_id] = role
    return best
