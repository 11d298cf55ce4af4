"""Projects in the Django admin, written through ``projects.services`` (validated and audited).

A project is created with ``create_project`` and described with ``update_project`` (its name is its
namespace and stays); members are set and removed with ``add_member``/``remove_member``, quota with
``grant_quota``. Nothing here saves a model directly, and projects are not deleted here.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.urls import reverse

from projects import services
from projects.models import Membership, Project, TierQuota


class _FixedKeyForm(forms.ModelForm):
    """An existing row keeps its key (the member's user, the quota's cluster and tier): the services
    address rows by key, so changing one would silently mean another row."""

    key_fields: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            for name in self.key_fields:
                self.fields[name].disabled = True


class MembershipForm(_FixedKeyForm):
    key_fields = ("user",)


class TierQuotaForm(_FixedKeyForm):
    key_fields = ("cluster", "tier")


class MembershipInline(admin.TabularInline):
    model = Membership
    form = MembershipForm
    extra = 0


class TierQuotaInline(admin.TabularInline):
    model = TierQuota
    form = TierQuotaForm
    extra = 0
    can_delete = False  # set the amounts to 0 instead: grant_quota audits that


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    writes_through_services = True
    list_display = ("name", "team", "cost_center", "created_at")
    search_fields = ("name", "team", "cost_center")
    inlines = [MembershipInline, TierQuotaInline]

    def get_readonly_fields(self, request: Any, obj: Project | None = None) -> tuple[str, ...]:
        return ("name", "created_at") if obj else ()

    def has_delete_permission(self, request: Any, obj: Project | None = None) -> bool:
        return False

    def view_on_site(self, obj: Project) -> str:
        return reverse("projects:detail", args=[obj.name])

    def save_model(self, request: Any, obj: Project, form: Any, change: bool) -> None:
        if change:
            changes = {name: form.cleaned_data[name] for name in form.changed_data}
            if changes:
                services.update_project(project=obj, changes=changes, actor=request.user)
            return
        created = services.create_project(
            name=obj.name,
            team=obj.team,
            cost_center=obj.cost_center,
            display_name=obj.display_name,
            description=obj.description,
            actor=request.user,
        )
        obj.pk, obj.created_at = created.pk, created.created_at

    def save_formset(self, request: Any, form: Any, formset: Any, change: bool) -> None:
        project = form.instance
        rows = formset.save(commit=False)  # collects the changes (and the admin's history) without writing
        for row in formset.deleted_objects:
            services.remove_member(project=project, user=row.user, actor=request.user)
        for row in rows:
            if isinstance(row, Membership):
                services.add_member(project=project, user=row.user, role=row.role, actor=request.user)
            else:
                services.grant_quota(
                    project=project,
                    cluster=row.cluster,
                    tier=row.tier,
                    cpu_milli=row.cpu_milli,
                    memory_bytes=row.memory_bytes,
                    gpu=row.gpu,
                    actor=request.user,
                )
