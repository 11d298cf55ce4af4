"""What live time-limited grants allow, for the checks outside ``Project.objects.visible_to`` / ``for_role`` (which
compare the grants themselves): exec into platform sidecars, and until when an open socket's access holds."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Max
from django.utils import timezone

from base.permissions import is_platform_admin
from projects.access_requests.models import Access, AccessGrant
from projects.models import Membership, ProjectRole, live_roles_of, memberships_of


def may_exec_sidecars(user: Any, project_id: int) -> bool:
    """Platform admins, and a user with a live sidecar-exec grant in the project."""
    if is_platform_admin(user):
        return True
    return live_sidecar_grants(user, project_id).exists()


def live_sidecar_grants(user: Any, project_id: int) -> Any:
    return AccessGrant.objects.filter(
        user=user, project_id=project_id, access=Access.SIDECAR_EXEC, ends_at__gt=timezone.now()
    )


def access_until(user: Any, project_id: int, *, roles: tuple[str, ...], sidecar: bool) -> datetime | None:
    """When the access a socket needs (one of ``roles``, and a sidecar shell with ``sidecar``) ends: the earliest
    end among what it rests on; None while it rests on nothing that ends (a membership, a platform admin). The
    socket re-checks when this passes, before it forwards anything more."""
    if is_platform_admin(user):
        return None
    ends: list[datetime] = []
    if not Membership.objects.filter(memberships_of(user), project_id=project_id, role__in=roles).exists():
        granted = AccessGrant.objects.filter(live_roles_of(user, roles=roles), project_id=project_id)
        end = granted.aggregate(end=Max("ends_at"))["end"]
        if end is not None:
            ends.append(end)
    if sidecar:
        end = live_sidecar_grants(user, project_id).aggregate(end=Max("ends_at"))["end"]
        if end is not None:
            ends.append(end)
    return min(ends) if ends else None


ALL_ROLES: tuple[str, ...] = tuple(ProjectRole.values)
