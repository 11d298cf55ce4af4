"""The admin site: a read-only window for platform admins, never a second sign-in."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponseForbidden

from base.permissions import is_platform_admin


def may_use_admin(user: Any) -> bool:
    """Platform admins (by group) and explicit superusers; never loads base.admin (that imports this module)."""
    return bool(user.is_active and (user.is_superuser or is_platform_admin(user)))


class PortalAdminSite(admin.AdminSite):
    """The Django admin as a read-only window for platform admins (their role comes from the platform-admin group,
    never from Django's superuser flag), plus explicit superusers made with ``createsuperuser``.

    Its own password sign-in is never used: sign-in is the portal's (SSO, or the dev password form when enabled),
    so /admin/login/ sends people there instead of trying backends that take no password (that was a 500)."""

    site_header = "PinConsole admin (read-only)"

    def has_permission(self, request: Any) -> bool:
        return may_use_admin(request.user)

    def login(self, request: Any, extra_context: Any = None) -> Any:
        if request.user.is_authenticated:  # signed in without the admin role: no second sign-in form
            return HttpResponseForbidden("The admin is for platform admins.", content_type="text/plain")
        return redirect_to_login(request.GET.get("next") or "/admin/", settings.LOGIN_URL)
