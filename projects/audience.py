"""Who is told about a project's events: its members (their own memberships or their groups'), by role, and the
platform admins who decide quota requests (``base.permissions.is_platform_admin``'s group, and superusers)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet

from projects.models import Membership, Project


def members_of(project: Project, roles: tuple[str, ...] | None = None) -> QuerySet[Any]:
    """Active users holding a role in ``roles`` (any role when None) in ``project``, directly or through a group."""
    memberships = Membership.objects.filter(project=project)
    if roles is not None:
        memberships = memberships.filter(role__in=roles)
    direct = memberships.filter(user__isnull=False).values("user")
    groups = memberships.filter(group__isnull=False).values("group")
    return get_user_model().objects.filter(Q(pk__in=direct) | Q(groups__in=groups), is_active=True).distinct()


def platform_admins() -> QuerySet[Any]:
    """The users who approve quota requests (``projects.quota.approve_request`` requires a platform admin)."""
    admins = Q(is_superuser=True) | Q(groups__name=settings.PLATFORM_ADMIN_GROUP)
    return get_user_model().objects.filter(admins, is_active=True).distinct()
