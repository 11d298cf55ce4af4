"""Who is a platform admin: one definition used by pages, API views and consumers."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission


def is_platform_admin(user: Any) -> bool:
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    cached = getattr(user, "_is_platform_admin", None)
    if cached is None:
        cached = bool(user.is_superuser) or user.groups.filter(name=settings.PLATFORM_ADMIN_GROUP).exists()
        user._is_platform_admin = cached
    return cached


def require_platform_admin(user: Any) -> None:
    if not is_platform_admin(user):
        raise PermissionDenied("This page is for platform admins.")


class IsPlatformAdmin(BasePermission):
    message = "Only platform admins may use this endpoint."

    def has_permission(self, request: Any, view: Any) -> bool:
        return is_platform_admin(request.user)
