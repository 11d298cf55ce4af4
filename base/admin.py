"""Django admin: every save and delete made here is audited like any other mutation."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.forms.models import model_to_dict

from base import audit
from base.models import AuditEvent


class AuditedModelAdmin(admin.ModelAdmin):
    def save_model(self, request: Any, obj: Any, form: Any, change: bool) -> None:
        before = model_to_dict(type(obj).objects.get(pk=obj.pk)) if change and obj.pk else None
        super().save_model(request, obj, form, change)
        audit.record(f"{obj._meta.model_name}.{'update' if change else 'create'}", actor=request.user,
                     target_kind=type(obj).__name__, target_name=str(obj), before=before,
                     after=model_to_dict(obj), summary="via Django admin")

    def delete_model(self, request: Any, obj: Any) -> None:
        audit.record(f"{obj._meta.model_name}.delete", actor=request.user, target_kind=type(obj).__name__,
                     target_name=str(obj), before=model_to_dict(obj), summary="via Django admin")
        super().delete_model(request, obj)


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ("created_at", "actor_name", "action", "target_kind", "target_name", "project_name", "cluster")
    list_filter = ("action", "cluster")
    search_fields = ("actor_name", "target_name", "project_name", "request_id")

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False
