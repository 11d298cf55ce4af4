"""Projects in the Django admin, written through the project services (validated and audited).

A project is created with ``onboard_project`` (with the members listed inline) and described with
``update_project`` (its name is its namespace and stays); its Pod Security level goes through
``set_pod_security``; members are set and removed with ``set_member``/``remove_member``; a grant with
``change_quota`` (an admin's change applies when the region's pools hold it, else it is queued as a
request). Nothing here saves a model directly, and projects are not deleted here (archive them).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.urls import reverse

from base.admin import ReadOnlyAdminMixin, ViewableByPlatformAdmins
from projects.grants import QuotaInput
from projects.lifecycle import set_pod_security, update_project
from projects.members import MemberInput, remove_member, set_member
from projects.models import Membership, Project, QuotaRequest, TierQuota
from projects.onboarding import ProjectDraft, onboard_project
from projects.quota import change_quota


class _FixedKeyForm(forms.ModelForm):
    """An existing row keeps its key (the member's user or group, the quota's tier): the services
    address rows by key, so changing one would silently mean another row."""

    key_fields: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            for name in self.key_fields:
                self.fields[name].disabled = True


class MembershipForm(_FixedKeyForm):
    key_fields = ("user", "group")


class TierQuotaForm(_FixedKeyForm):
    key_fields = ("tier",)


class MembershipInline(ViewableByPlatformAdmins, admin.TabularInline):
    model = Membership
    form = MembershipForm
    extra = 0


class TierQuotaInline(ViewableByPlatformAdmins, admin.TabularInline):
    model = TierQuota
    form = TierQuotaForm
    extra = 0
    can_delete = False  # set the amounts to 0 instead: change_quota audits that

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False  # onboarding creates one row per tier


def _member(row: Membership) -> MemberInput:
    if row.user_id:
        return MemberInput("user", row.user.get_username(), row.role)
    return MemberInput("group", row.group.name, row.role)


@admin.register(Project)
class ProjectAdmin(ViewableByPlatformAdmins, admin.ModelAdmin):
    writes_through_services = True
    list_display = ("name", "team", "cost_center", "state", "pod_security", "created_at")
    list_filter = ("state", "pod_security")
    search_fields = ("name", "team", "cost_center")
    inlines = [MembershipInline, TierQuotaInline]
    # openings: the network service (projects/network.py); policy: projects/policy.py; on-call and links:
    # projects/ownership.py (each audited there)
    exclude = ("generation", "network_openings", "policy", "oncall", "links")

    def get_readonly_fields(self, request: Any, obj: Project | None = None) -> tuple[str, ...]:
        return ("name", "state", "archived_at", "created_at") if obj else ("state", "pod_security", "archived_at")

    def has_delete_permission(self, request: Any, obj: Project | None = None) -> bool:
        return False

    def view_on_site(self, obj: Project) -> str:
        return reverse("projects:detail", args=[obj.name])

    def save_model(self, request: Any, obj: Project, form: Any, change: bool) -> None:
        if not change:
            return  # created in save_related, with the members listed inline (one atomic onboarding)
        changes = {name: form.cleaned_data[name] for name in form.changed_data if name != "pod_security"}
        if changes:
            update_project(obj, changes, actor=request.user)
        if "pod_security" in form.changed_data:
            set_pod_security(obj, form.cleaned_data["pod_security"], actor=request.user)

    def save_related(self, request: Any, form: Any, formsets: Any, change: bool) -> None:
        if change:
            for formset in formsets:
                self.save_formset(request, form, formset, change)
            return
        obj = form.instance
        members = []
        for formset in formsets:
            rows = formset.save(commit=False)  # every formset: the admin's history reads what it collected
            members += [_member(row) for row in rows if isinstance(row, Membership)]
        created = onboard_project(
            ProjectDraft(
                name=obj.name,
                display_name=obj.display_name,
                team=obj.team,
                cost_center=obj.cost_center,
                description=obj.description,
                members=members,
            ),
            actor=request.user,
        )
        obj.pk, obj.created_at = created.pk, created.created_at

    def save_formset(self, request: Any, form: Any, formset: Any, change: bool) -> None:
        project = form.instance
        rows = formset.save(commit=False)  # collects the changes (and the admin's history) without writing
        for row in formset.deleted_objects:
            member = _member(row)
            remove_member(project, member.kind, member.name, actor=request.user)
        for row in rows:
            if isinstance(row, Membership):
                set_member(project, _member(row), actor=request.user)
            elif isinstance(row, TierQuota):
                grant = QuotaInput.of(row.allocation)
                change_quota(project, row.tier, grant, actor=request.user, reason="Changed in the Django admin")


@admin.register(QuotaRequest)
class QuotaRequestAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Read-only: requests are decided on the portal's approval queue (approve_request/reject_request)."""

    list_display = ("project", "tier", "state", "requested_by", "created_at", "decided_by")
    list_filter = ("state", "tier")
