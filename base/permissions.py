"""Who is a platform admin: one definition used by pages, API views and consumers."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef
from rest_framework.permissions import BasePermission


def is_platform_admin(user: Any) -> bool:
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    cached = getattr(user, "_is_platform_admin", None)
    if cached is None:
        cached = bool(user.is_superuser) or user.groups.filter(name=settings.PLATFORM_ADMIN_GROUP).exists()
        user._is_platform_admin = cached
    return cached


def in_admin_group(user_field: str) -> Exists:
    """A query expression: the user ``user_field`` names is in the platform admins' group. Annotated on the query that
    loads a user (an API token's, for every API request), it answers ``is_platform_admin`` without a query of its
    own (``remember_platform_admin``)."""
    through = get_user_model().groups.through
    return Exists(through.objects.filter(user_id=OuterRef(user_field), group__name=settings.PLATFORM_ADMIN_GROUP))


def remember_platform_admin(user: Any, in_group: bool) -> None:
    """What ``is_platform_admin(user)`` answers, from ``in_admin_group`` read with the user."""
    user._is_platform_admin = bool(user.is_superuser) or in_group


def require_platform_admin(user: Any) -> None:
    if not is_platform_admin(user):
        raise PermissionDenied("This page is for platform admins.")


class IsPlatformAdmin(BasePermission):
    message = "Only platform admins may use this endpoint."

    def has_permission(self, request: Any, view: Any) -> bool:
        return is_platform_admin(request.user)
