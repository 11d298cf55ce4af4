"""The Django admin never writes around the services.

An admin is either read-only (``ReadOnlyAdminMixin``: rows can be viewed, nothing added, changed or
deleted; the portal's pages make the changes through the services) or it declares
``writes_through_services = True`` and routes every save and delete to a service function, which
validates and audits like the pages and the API do. ``tests/console/test_admin.py`` holds every
registered admin to that.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from base.admin_site import may_use_admin
from base.models import AuditEvent


class ViewableByPlatformAdmins:
    """For ModelAdmins and inlines: platform admins (and explicit superusers) may view; writes stay as declared."""

    def has_view_permission(self, request: Any, obj: Any = None) -> bool:
        return may_use_admin(request.user)

    def has_module_permission(self, request: Any) -> bool:
        return may_use_admin(request.user)


class ReadOnlyAdminMixin(ViewableByPlatformAdmins):
    """For ModelAdmins and inlines: view only."""

    def has_add_permission(self, request: Any, *args: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "actor_name", "action", "target_kind", "target_name", "project_name", "cluster")
    list_filter = ("action", "cluster")
    search_fields = ("actor_name", "target_name", "project_name", "request_id")
